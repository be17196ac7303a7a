// SPDX-License-Identifier: GPL-2.0-only
/* Counter and histogram bookkeeping shared by the sampler, /metrics and the socket. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/packed.h"
#include "rtltune/texts.h"
#include "stats.h"

static const char *const counter_names[SC__COUNT] = {
	[SC_TX_PACKETS] = "tx_packets",
	[SC_RX_PACKETS] = "rx_packets",
	[SC_TX_BYTES] = "tx_bytes",
	[SC_RX_BYTES] = "rx_bytes",
	[SC_TX_BUSY] = "tx_busy",
	[SC_TX_TIMEOUTS] = "tx_timeouts",
	[SC_TCP_RETRANSMITS] = "tcp_retransmits",
	[SC_TCP_RETRANSMIT_SEGMENTS] = "tcp_retransmit_segments",
};

static const char *const counter_help[SC__COUNT] = {
	[SC_TX_PACKETS] =
		"Packets handed to the driver for transmission (skbs); exact, every one counted.",
	[SC_RX_PACKETS] = "Packets the driver delivered to the stack; exact, every one counted.",
	[SC_TX_BYTES] = "Bytes handed to the driver for transmission; exact.",
	[SC_RX_BYTES] = "Bytes the driver delivered to the stack; exact.",
	[SC_TX_BUSY] =
		"Transmissions the device refused, from the kernel's own counters: requeues of "
		"the root qdisc (NETDEV_TX_BUSY) plus the device's tx_dropped.",
	[SC_TX_TIMEOUTS] = "TX watchdog timeouts.",
	[SC_TCP_RETRANSMITS] = "TCP retransmissions through the device (skbs, not segments).",
	[SC_TCP_RETRANSMIT_SEGMENTS] =
		"TCP segments retransmitted through the device (what netstat calls RetransSegs).",
};

static const char *const hist_names[SH__COUNT] = {
	[SH_TX_SKB_BYTES] = "tx_skb_bytes",	  [SH_TX_GSO_SIZE_BYTES] = "tx_gso_size_bytes",
	[SH_TX_GSO_SEGMENTS] = "tx_gso_segments", [SH_RX_FRAME_BYTES] = "rx_frame_bytes",
	[SH_RX_SKB_BYTES] = "rx_skb_bytes",
};

/* Every histogram's _count and _sum are exact; its buckets are sampled at high rates. */
#define HIST_SAMPLED                                                                               \
	" _count and _sum are exact; the buckets are exact up to 4096 events/s per CPU and an "    \
	"estimate from a sample above (docs/probes.md, Sampling, states the error)."

static const char *const hist_help[SH__COUNT] = {
	[SH_TX_SKB_BYTES] = "Length of each skb handed to the driver." HIST_SAMPLED,
	[SH_TX_GSO_SIZE_BYTES] = "gso_size of each GSO skb handed to the driver." HIST_SAMPLED,
	[SH_TX_GSO_SEGMENTS] = "gso_segs of each GSO skb handed to the driver." HIST_SAMPLED,
	[SH_RX_FRAME_BYTES] =
		"Length of each frame as the driver delivered it (before GRO)." HIST_SAMPLED,
	[SH_RX_SKB_BYTES] = "Length of each skb entering the stack (after GRO)." HIST_SAMPLED,
};

const char *stat_counter_name(enum stat_counter c)
{
	return counter_names[c];
}

const char *stat_counter_help(enum stat_counter c)
{
	return counter_help[c];
}

const char *stat_hist_name(enum stat_hist h)
{
	return hist_names[h];
}

const char *stat_hist_help(enum stat_hist h)
{
	return hist_help[h];
}

int stat_hist_from_name(const char *name)
{
	int i;

	for (i = 0; i < SH__COUNT; i++)
		if (strcmp(hist_names[i], name) == 0)
			return i;
	return -1;
}

const char *stat_hist_unit(enum stat_hist h)
{
	return h == SH_TX_GSO_SEGMENTS ? "segments" : "bytes";
}

struct stat_hists *stat_hists_get(struct iface_stats *s)
{
	if (!s->h && (s->h = calloc(1, sizeof(*s->h))))
		s->h->fresh = true;
	return s->h;
}

void stat_window_sum(const struct iface_stats *s, enum stat_hist h, struct rtl_hist *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; s->h && i < STAT_WINDOW_SLOTS; i++)
		hist_add(out, &s->h->window[i][h]);
}

/* A slot's counters are one packed row: a byte of flags holds them all. */
_Static_assert(SC__COUNT <= 8, "a packed window row holds at most 8 counters");

/* The window's slots as numbers (all zero when it has none). */
static void window_get(const struct iface_stats *s, uint64_t w[STAT_WINDOW_SLOTS][SC__COUNT])
{
	if (!s->window_z ||
	    packed_get(&w[0][0], STAT_WINDOW_SLOTS, SC__COUNT, s->window_z, s->window_zlen) < 0)
		memset(w, 0, sizeof(uint64_t[STAT_WINDOW_SLOTS][SC__COUNT]));
}

/* Keep w packed; a window of zero slots is not kept. Out of memory: the window reads
 * empty. */
static void window_put(struct iface_stats *s, const uint64_t w[STAT_WINDOW_SLOTS][SC__COUNT])
{
	uint8_t buf[PACKED_MAX(STAT_WINDOW_SLOTS, SC__COUNT)];
	size_t n = packed_put(buf, &w[0][0], STAT_WINDOW_SLOTS, SC__COUNT);
	uint8_t *z = s->window_z;

	if (n && n != s->window_zlen)
		z = realloc(z, n);
	if (!n || !z) {
		free(s->window_z);
		s->window_z = NULL;
		s->window_zlen = 0;
		return;
	}
	memcpy(z, buf, n);
	s->window_z = z;
	s->window_zlen = (uint32_t)n;
}

uint64_t stat_window_counter(const struct iface_stats *s, enum stat_counter c)
{
	uint64_t w[STAT_WINDOW_SLOTS][SC__COUNT], n = 0;
	unsigned int i;

	window_get(s, w);
	for (i = 0; i < STAT_WINDOW_SLOTS; i++)
		n += w[i][c];
	return n;
}

void stat_advance(struct iface_stats *s, uint64_t now_us, uint64_t slot_us)
{
	struct stat_hists *hs = s->h;
	uint64_t w[STAT_WINDOW_SLOTS][SC__COUNT];
	unsigned int c, h;

	if (s->prev_us && now_us > s->prev_us) {
		double dt = (double)(now_us - s->prev_us) / 1e6;

		s->rate_us = now_us - s->prev_us;
		for (c = 0; c < SC__COUNT; c++)
			s->rate[c] = s->counter[c] >= s->prev_counter[c]
					     ? (double)(s->counter[c] - s->prev_counter[c]) / dt
					     : 0;
	}
	memcpy(s->prev_counter, s->counter, sizeof(s->prev_counter));
	s->prev_us = now_us;

	/* Histograms that came with this sample start their window here. */
	if (hs && hs->fresh) {
		memcpy(hs->window_base, hs->hist, sizeof(hs->window_base));
		hs->fresh = false;
	}
	if (!s->window_slot_start_us) {
		s->window_slot_start_us = now_us;
		memcpy(s->window_counter_base, s->counter, sizeof(s->window_counter_base));
		return;
	}
	/* The current slot holds what arrived since it opened; a full slot moves on. */
	for (h = 0; hs && h < SH__COUNT; h++)
		hist_delta(&hs->window[s->window_cur][h], &hs->hist[h], &hs->window_base[h]);
	window_get(s, w);
	for (c = 0; c < SC__COUNT; c++)
		w[s->window_cur][c] = s->counter[c] >= s->window_counter_base[c]
					      ? s->counter[c] - s->window_counter_base[c]
					      : s->counter[c];
	if (now_us - s->window_slot_start_us >= slot_us) {
		s->window_cur = (s->window_cur + 1) % STAT_WINDOW_SLOTS;
		if (hs) {
			memset(hs->window[s->window_cur], 0, sizeof(hs->window[s->window_cur]));
			memcpy(hs->window_base, hs->hist, sizeof(hs->window_base));
		}
		memset(w[s->window_cur], 0, sizeof(w[0]));
		memcpy(s->window_counter_base, s->counter, sizeof(s->window_counter_base));
		s->window_slot_start_us = now_us;
	}
	window_put(s, w);
}

void stat_drop_set(struct iface_stats *s, const char *reason, uint64_t count)
{
	unsigned int i;

	for (i = 0; i < s->n_drops; i++)
		if (strcmp(s->drops[i].reason, reason) == 0)
			break;
	if (i == s->n_drops) {
		if (s->n_drops == STAT_MAX_DROP_REASONS)
			return;
		if (s->n_drops == s->drops_cap) {
			/* 2: the link counters' two reasons (most interfaces have no more) */
			unsigned int cap = s->drops_cap ? 2 * s->drops_cap : 2;
			struct stat_drop *grown = realloc(s->drops, cap * sizeof(*grown));

			if (!grown)
				return;
			s->drops = grown;
			s->drops_cap = cap;
		}
		/* The reasons are the kernel's few dozen names and the link counters' two. Out
		 * of memory ("" for a name): not counted, rather than one "" entry a sample. */
		s->drops[i].reason = text_shared(reason, STAT_DROP_REASON_MAX);
		if (!s->drops[i].reason[0] && reason[0])
			return;
		s->n_drops++;
	}
	s->drops[i].count = count;
}

void stat_free(struct iface_stats *s)
{
	free(s->drops);
	s->drops = NULL;
	free(s->h);
	s->h = NULL;
	free(s->window_z);
	s->window_z = NULL;
	s->window_zlen = 0;
	s->n_drops = s->drops_cap = 0;
}
