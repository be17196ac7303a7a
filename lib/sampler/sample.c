// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's sample from two readings (sample.h): rtltuned's samples and `rtltune
 * sweep`'s steps, so both count the same way.
 */
#include <string.h>

#include "rtltune/sample.h"
#include "rtltune/tcpstat.h"

void sample_reading_from_probes(struct sample_reading *r, const struct probe_counters *pc)
{
	memset(r, 0, sizeof(*r));
	r->tx_packets = hist_count(&pc->tx_skb_bytes);
	r->tx_bytes = pc->tx_skb_bytes.sum;
	r->rx_packets = hist_count(&pc->rx_frame_bytes);
	r->rx_bytes = pc->rx_frame_bytes.sum;
	r->have_probes = true;
	r->tx_skb_bytes = pc->tx_skb_bytes;
	r->tx_gso_segments = pc->tx_gso_segments;
	r->rx_skb_bytes = pc->rx_skb_bytes;
	r->tcp_retransmits = pc->tcp_retransmits;
	r->tcp_retransmit_segments = pc->tcp_retransmit_segments;
	r->drops = pc->drops;
	r->tx_busy = pc->tx_busy;
	r->tx_timeouts = pc->tx_timeouts;
}

uint64_t sample_cpu_delta(uint64_t now, uint64_t before)
{
	return before && now >= before ? now - before : 0;
}

/* Values at or near the cap: in the log2 bucket holding cap or above it. */
static uint64_t at_cap(const struct rtl_hist *h, int64_t cap)
{
	if (cap <= 0)
		return 0;
	return hist_count_above(h, hist_bucket_le(hist_bucket_index((uint64_t)cap)) / 2);
}

void sample_build(struct tuner_sample *s, const struct sample_reading *before,
		  const struct sample_reading *now, const struct sample_env *env,
		  uint64_t *retrans_segs)
{
	struct rtl_hist tx_skb, gso_segs, rx_skb;
	uint64_t seg = 0;

	memset(s, 0, sizeof(*s));
	s->interval_ms = (uint32_t)(env->interval_us / 1000);
	s->tx_packets = counter_delta(now->tx_packets, before->tx_packets);
	s->tx_bytes = counter_delta(now->tx_bytes, before->tx_bytes);
	s->rx_packets = counter_delta(now->rx_packets, before->rx_packets);
	s->rx_bytes = counter_delta(now->rx_bytes, before->rx_bytes);
	s->cpu_ns = env->cpu_ns;
	s->have = TUNER_HAVE_CPU;
	if (env->have_busy) {
		s->cpu_busy_ns = env->cpu_busy_ns;
		s->have |= TUNER_HAVE_CPU_BUSY;
	}
	if (retrans_segs)
		*retrans_segs = 0;
	if (!now->have_probes) {
		s->tx_segs = s->tx_packets;
		return;
	}
	s->have |= TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS | TUNER_HAVE_DROPS |
		   TUNER_HAVE_TX_FAULTS;
	hist_delta(&tx_skb, &now->tx_skb_bytes, &before->tx_skb_bytes);
	hist_delta(&gso_segs, &now->tx_gso_segments, &before->tx_gso_segments);
	hist_delta(&rx_skb, &now->rx_skb_bytes, &before->rx_skb_bytes);
	s->tx_gso_skbs = hist_count(&gso_segs);
	/* A GSO skb leaves as gso_segs segments, any other as one. */
	s->tx_segs = s->tx_packets - (s->tx_gso_skbs <= s->tx_packets ? s->tx_gso_skbs : 0) +
		     gso_segs.sum;
	s->tx_gso_at_cap = at_cap(&tx_skb, env->gso_max_size);
	if (s->tx_gso_at_cap > s->tx_gso_skbs)
		s->tx_gso_at_cap = s->tx_gso_skbs;
	s->rx_skbs = hist_count(&rx_skb);
	s->rx_gro_at_cap = at_cap(&rx_skb, env->gro_max_size);
	/* Segments, not retransmit events: after a loss TCP resends a whole GSO skb (up to 45
	 * segments at 64K), so events per segment sent understate the loss (0.16% counted
	 * where TcpRetransSegs/OutSegs said 5.2%). Less the namespace's share that DSACKs
	 * showed spurious. */
	seg = counter_delta(now->tcp_retransmit_segments, before->tcp_retransmit_segments);
	s->tcp_retransmits = tcpstat_lossy(seg, env->ns_retrans, env->ns_dsack);
	s->tcp_retransmit_skbs =
		tcpstat_lossy(counter_delta(now->tcp_retransmits, before->tcp_retransmits),
			      env->ns_retrans, env->ns_dsack);
	/* Segments left as loss went out in one retransmission at least (0 would read as
	 * "unknown": each segment an event). */
	if (s->tcp_retransmits && !s->tcp_retransmit_skbs)
		s->tcp_retransmit_skbs = 1;
	s->drops = counter_delta(now->drops, before->drops);
	s->tx_busy = counter_delta(now->tx_busy, before->tx_busy);
	s->tx_timeouts = counter_delta(now->tx_timeouts, before->tx_timeouts);
	if (retrans_segs)
		*retrans_segs = seg;
}
