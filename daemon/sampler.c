// SPDX-License-Identifier: GPL-2.0-only
/*
 * The periodic sampler: sums the probes' per-CPU maps, reads by ifindex the link counters
 * of a managed interface the probes do not count (no dump: link events keep the table),
 * then turns the cumulative values into rates and window slots and refreshes what changed.
 */
#include <linux/if_link.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "bpf.h"
#include "history.h"
#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/link.h"
#include "outside.h"
#include "sampler.h"
#include "signals.h"
#include "tune.h"

static struct ev_timer tick;
static void (*on_done)(void);
static uint64_t samples, sample_cost;
static uint64_t run_start_us;
static bool running;
static unsigned int removed_since_trim;
static uint64_t last_trim_us;
#define TRIM_INTERVAL_US 5000000

uint64_t sampler_samples(void)
{
	return samples;
}

uint64_t sampler_cost_us(void)
{
	return sample_cost;
}

/* The link counters of one interface the probes do not count: a targeted RTM_GETLINK.
 * True when it read the link (*li, for outside_sample()). */
static bool fill_from_link(struct iface *ifc, struct link_info *li)
{
	struct iface_stats *s = &ifc->m->stats;
	const struct link_counters *l = &ifc->m->link;
	struct rtnl_link_stats64 st;
	struct rterr err;
	bool have = false, read;

	read = iface_read_link(ifc, li, &st, &have, &err) == 0;
	if (read && have) {
		linkmon_counters_from(&st, &ifc->m->link);
		ifc->m->have_link = true;
	}
	if (!ifc->m->have_link)
		return read;
	s->counter[SC_TX_PACKETS] = l->tx_packets;
	s->counter[SC_RX_PACKETS] = l->rx_packets;
	s->counter[SC_TX_BYTES] = l->tx_bytes;
	s->counter[SC_RX_BYTES] = l->rx_bytes;
	s->have_counter[SC_TX_PACKETS] = s->have_counter[SC_RX_PACKETS] = true;
	s->have_counter[SC_TX_BYTES] = s->have_counter[SC_RX_BYTES] = true;
	stat_drop_set(s, "rx_dropped", l->rx_dropped);
	stat_drop_set(s, "tx_dropped", l->tx_dropped);
	return read;
}

/* bpf_read_all()'s callback: one interface's probe counters into its stats (ifc is the
 * slot's record: a pod's eth0 and the node's device of the same ifindex are apart). */
static void store_counters(struct iface *ifc, const struct probe_counters *pc, void *arg)
{
	struct stat_hists *h;
	struct iface_stats *s;
	char name[48];
	unsigned int i;

	if (!ifc || !ifc->m)
		return;
	s = &ifc->m->stats;
	/* Counted by its link counters until now (it waited for a slot, daemon/bpf.c): the
	 * slot's start from zero and count skbs, so the sample across the switch is no
	 * interval of either for the tuner. */
	if (s->valid && s->probe_sample != samples)
		tune_gap(ifc);
	/* The histograms exist from the first count on (out of memory: counters only). */
	h = stat_hists_get(s);
	if (h) {
		h->hist[SH_TX_SKB_BYTES] = pc->tx_skb_bytes;
		h->hist[SH_TX_GSO_SIZE_BYTES] = pc->tx_gso_size_bytes;
		h->hist[SH_TX_GSO_SEGMENTS] = pc->tx_gso_segments;
		h->hist[SH_RX_FRAME_BYTES] = pc->rx_frame_bytes;
		h->hist[SH_RX_SKB_BYTES] = pc->rx_skb_bytes;
	}
	s->have_hist = h != NULL;
	s->counter[SC_TX_PACKETS] = hist_count(&pc->tx_skb_bytes);
	s->counter[SC_TX_BYTES] = pc->tx_skb_bytes.sum;
	s->counter[SC_RX_PACKETS] = hist_count(&pc->rx_frame_bytes);
	s->counter[SC_RX_BYTES] = pc->rx_frame_bytes.sum;
	s->counter[SC_TX_BUSY] = pc->tx_busy;
	s->counter[SC_TX_TIMEOUTS] = pc->tx_timeouts;
	s->counter[SC_TCP_RETRANSMITS] = pc->tcp_retransmits;
	s->counter[SC_TCP_RETRANSMIT_SEGMENTS] = pc->tcp_retransmit_segments;
	for (i = 0; i < SC__COUNT; i++)
		s->have_counter[i] = true;
	for (i = 0; i < pc->n_drop_reasons; i++)
		stat_drop_set(s,
			      bpf_drop_reason_name(pc->drop_reasons[i].reason, name, sizeof(name)),
			      pc->drop_reasons[i].count);
	s->probe_sample = samples + 1;
}

/*
 * The probes' counters of every interface are read in one pass when the sample starts
 * (bpf_read_all(): well under a millisecond for 64 interfaces). The rest per interface
 * (knob re-reads, rates, the tuner) done in one go could stall every scrape and request
 * that arrives meanwhile (the /metrics p99), so it goes in slices of SAMPLE_SLICE_US, in
 * ifindex order, between other events. The sample's generation is bumped once at the
 * end, so /metrics never serves a half.
 */
#define SAMPLE_SLICE_US 250

static bool finishing;
static uint64_t sample_now, busy_us;
/* The managed interfaces of this sample in ifindex order, taken when it starts (one sort,
 * not a walk of the table per interface: 1000 pods made that a walk of 2000 a thousand
 * times a second); pos: the next to do. One that goes meanwhile is cleared from it
 * (sampler_iface_event()); one that comes is in the next sample. Taken again only when
 * the managed set changed (order_stale): a node's 1000 idle pods do not sort each
 * sample. */
static struct iface **order;
static unsigned int n_order, cap_order, pos;
static bool order_stale = true;
static bool order_own; /* one of them is in the daemon's own namespace */

static int by_ifindex(const void *a, const void *b)
{
	int x = (*(struct iface *const *)a)->ifindex, y = (*(struct iface *const *)b)->ifindex;

	return (x > y) - (x < y);
}

static void order_take(void)
{
	struct iface *ifc;

	pos = 0;
	if (!order_stale)
		return;
	order_stale = false;
	order_own = false;
	n_order = 0;
	for (ifc = iface_first(); ifc; ifc = ifc->next) {
		if (!ifc->m)
			continue;
		if (n_order == cap_order) {
			unsigned int cap = cap_order ? 2 * cap_order : 64;
			struct iface **grown = realloc(order, cap * sizeof(*grown));

			if (!grown) {
				order_stale = true; /* out of memory: the rest next time */
				break;
			}
			order = grown;
			cap_order = cap;
		}
		order[n_order++] = ifc;
		order_own |= !ifc->ns;
	}
	if (n_order)
		qsort(order, n_order, sizeof(*order), by_ifindex);
}

static struct iface *next_managed(void)
{
	while (pos < n_order) {
		struct iface *ifc = order[pos++];

		if (ifc && ifc->m)
			return ifc;
	}
	return NULL;
}

static void sample_done(void)
{
	uint64_t now = now_us();

	bpf_read_costs();
	samples++;
	state_changed();
	if (on_done)
		on_done();
	busy_us += now_us() - now;
	sample_cost = busy_us;
	finishing = false;
	running = false;
	/* Bursts (200 veths that come and go, 50 clients at once) leave freed memory in
	 * the middle of the heap, which free() never returns: hand it back so RSS comes
	 * down to where it was. Cheap (a walk of the free lists), so at most every 5 s. */
	if (removed_since_trim || now - last_trim_us >= TRIM_INTERVAL_US) {
		malloc_trim(0);
		removed_since_trim = 0;
		last_trim_us = now;
	}
}

/*
 * Idle sampling (docs/daemon.md "Every sample"). An interface whose packet counters did
 * not move over its last IDLE_AFTER reads, with nothing else asking for a look (a link
 * or ethtool notification about it, a profile application pending, the tuner anywhere but
 * idle or paused), is read every IDLE_EVERY-th sample only: 1000 idle pods cost 63 link
 * reads a sample, not 1000 (125 at every 8th). Each in its own phase (its key modulo
 * IDLE_EVERY), so the reads spread over the samples. Counters that moved by a trickle only
 * (at most STAT_TRICKLE packets an interval since the last read, both ways together: a
 * pod's router solicitations and MLD reports) count as standing still: the tuner judges a
 * sample under 100 packets a second as no traffic anyway, and an idle pod's IPv6 start-up
 * would otherwise wake it (its previous reading, the tuner's 2.5 KiB, a read every sample)
 * at every packet. The read after skipped samples has rates over the real time since the
 * last one (stat_advance()), and the tuner is not fed its deltas (tune_gap()): a skipped
 * interval never looks like one of no traffic. An interface the probes count has its
 * counters every sample anyway, and is read as soon as they move.
 */
#define IDLE_AFTER 2
#define IDLE_EVERY 16

/* Whether s's packet counters moved by more than a trickle since its last read (at
 * sample_now): a counter that went back (a reset device) counts as moved, and so does any
 * fault the probes count (a TCP flow stalled in retransmission timeouts sends a trickle,
 * and is what the tuner must see: lib/tuner/tuner.c active()). */
static bool moved(const struct iface_stats *s)
{
	static const enum stat_counter faults[] = {SC_TX_BUSY, SC_TX_TIMEOUTS, SC_TCP_RETRANSMITS,
						   SC_TCP_RETRANSMIT_SEGMENTS};
	uint64_t tx = s->counter[SC_TX_PACKETS], rx = s->counter[SC_RX_PACKETS];
	uint64_t ptx = s->prev_counter[SC_TX_PACKETS], prx = s->prev_counter[SC_RX_PACKETS];
	uint64_t interval = rtd.cfg.sample_interval_us, intervals = 1;
	unsigned int i;

	if (tx < ptx || rx < prx)
		return true;
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		if (s->counter[faults[i]] != s->prev_counter[faults[i]])
			return true;
	if (s->prev_us && sample_now > s->prev_us && interval)
		intervals = (sample_now - s->prev_us + interval / 2) / interval;
	return (tx - ptx) + (rx - prx) > STAT_TRICKLE * (intervals ? intervals : 1);
}

static bool idle_skip(struct iface *ifc)
{
	struct iface_stats *s = &ifc->m->stats;

	s->idle = s->valid && s->still >= IDLE_AFTER && !ifc->knob_dirty &&
		  !ifc->m->apply.pending && tune_idle(ifc) &&
		  !(s->probe_sample == samples + 1 && moved(s));
	if (!s->idle)
		return false;
	if ((samples + (uint64_t)(unsigned int)ifc->ifindex) % IDLE_EVERY == 0)
		return false;
	s->skipped = true;
	return true;
}

uint64_t sampler_step(void)
{
	uint64_t start, slot_us = rtd.cfg.sample_interval_us * SAMPLE_SLOT_SAMPLES;
	struct iface *ifc;

	if (!finishing)
		return UINT64_MAX;
	start = now_us();
	while ((ifc = next_managed())) {
		struct iface_stats *s = &ifc->m->stats;
		struct link_info li;
		bool read = false, busy, quiet;

		if (idle_skip(ifc))
			continue;
		/* An interface the probes cannot count (no free slot) falls back alone. */
		if (s->probe_sample != samples + 1)
			read = fill_from_link(ifc, &li);
		/* After skipped samples the tuner is not fed this read (tune_gap()): nothing
		 * acts on it, so the outside-change check need not drain the monitor first. */
		outside_sample(ifc, read ? &li : NULL, s->skipped);
		busy = s->valid && moved(s);
		if (s->valid && !busy)
			s->still += s->still < IDLE_AFTER;
		else
			s->still = 0;
		quiet = s->idle && s->still >= IDLE_AFTER;
		/* The tuner is not fed a read that spans skipped samples, nor, while it is
		 * idle there, one without traffic (the first, a trickle): fed, it would only
		 * empty its window (under 100 packets a second is no traffic to it), and until
		 * traffic comes it holds nothing for the interface. A new pod does not take
		 * the tuner's 3 KiB for its first reads. */
		if (s->skipped || (!busy && tune_idle(ifc)))
			tune_gap(ifc);
		s->skipped = false;
		stat_advance(s, sample_now, slot_us);
		s->valid = true;
		history_sample(ifc, sample_now);
		tune_sample(ifc, sample_now);
		/* Idle, and still so at its turn: its snapshot rests until a read of the device
		 * or something that acts on it brings it back (traffic alone does not: the
		 * tuner reads it through iface_snap_peek()). */
		if (quiet)
			iface_rest(ifc);
		if (now_us() - start >= SAMPLE_SLICE_US) {
			busy_us += now_us() - start;
			return 0;
		}
	}
	tune_sample_end(sample_now);
	busy_us += now_us() - start;
	sample_done();
	return UINT64_MAX;
}

static void sample_finish(int err)
{
	finishing = true;
	order_take();
	/* One timestamp for the whole sample: rates use the time the counters were read. */
	sample_now = now_us();
	busy_us += sample_now - run_start_us;
	bpf_read_all(store_counters, NULL);
	/* The per-CPU and queue signals once per sample, after the probes' drops. */
	signals_sample(sample_now, order_own);
	busy_us += now_us() - sample_now;
	tune_sample_begin();
	sampler_step();
}

void sampler_iface_event(struct iface *ifc, const struct iface_change *c)
{
	unsigned int i;

	if (c->ev == IFACE_GONE)
		for (i = 0; i < n_order; i++)
			if (order[i] == ifc)
				order[i] = NULL;
	if (c->ev == IFACE_NEW || c->ev == IFACE_GONE || c->ev == IFACE_SELECTED)
		order_stale = true;
	if (c->ev == IFACE_GONE || (c->ev == IFACE_SELECTED && c->was_managed && !ifc->managed))
		removed_since_trim++;
}

static void sample_run(void)
{
	if (running)
		return; /* the previous one is still in progress: skip, do not pile up */
	running = true;
	busy_us = 0;
	run_start_us = now_us();
	/* The first sample waits for the dump that fills the table; after it the link
	 * events keep the table (linkmon dumps again itself when events were lost). */
	if (samples == 0 && linkmon_dumps() == 0 && linkmon_dump(sample_finish) == 0)
		return;
	sample_finish(0);
}

static void tick_fire(struct ev_timer *t)
{
	sample_run();
}

int sampler_start(void (*done)(void))
{
	on_done = done;
	tick.fire = tick_fire;
	return timer_start(&tick, rtd.cfg.sample_interval_us, rtd.cfg.sample_interval_us);
}

void sampler_stop(void)
{
	timer_stop(&tick);
	free(order);
	order = NULL;
	n_order = cap_order = pos = 0;
	order_stale = true;
}

void sampler_kick(void)
{
	uint64_t deadline = now_us() + 2000000;

	sample_run();
	while (running && now_us() < deadline)
		if (sampler_step() != 0)
			loop_run_once(100);
}
