/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_STATS_H
#define RTLTUNED_STATS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/hist.h"

/*
 * What the sampler keeps per interface: cumulative counters and histograms (what
 * /metrics and `stats` show), the rates of the last interval, and a sliding window of
 * histogram deltas for the tuner (recent behaviour, not the daemon's whole life).
 */

enum stat_counter {
	SC_TX_PACKETS,
	SC_RX_PACKETS,
	SC_TX_BYTES,
	SC_RX_BYTES,
	SC_TX_BUSY,
	SC_TX_TIMEOUTS,
	SC_TCP_RETRANSMITS,
	SC_TCP_RETRANSMIT_SEGMENTS,
	SC__COUNT
};

enum stat_hist {
	SH_TX_SKB_BYTES,
	SH_TX_GSO_SIZE_BYTES,
	SH_TX_GSO_SEGMENTS,
	SH_RX_FRAME_BYTES,
	SH_RX_SKB_BYTES,
	SH__COUNT
};

/* Names as SPEC fixes them, without prefix and suffix ("tx_packets", "tx_skb_bytes"). */
const char *stat_counter_name(enum stat_counter c);
const char *stat_counter_help(enum stat_counter c);
const char *stat_hist_name(enum stat_hist h);
const char *stat_hist_help(enum stat_hist h);
const char *stat_hist_unit(enum stat_hist h); /* "bytes", "segments" */
int stat_hist_from_name(const char *name);    /* -1 unknown */

/* Link counters as rtnetlink reports them (IFLA_STATS64): the fallback without BPF. */
struct link_counters {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
	uint64_t rx_dropped, tx_dropped, rx_errors, tx_errors;
};

/* A trickle, not traffic: at most this many packets, both ways together, a sample
 * interval (the sampler's idle reads) or a second (the history's quiet rows): a pod's
 * router solicitations, a neighbour probe and its answer, a keepalive and its ACK. */
#define STAT_TRICKLE 2

/* Drop reasons kept per interface; the probes report at most this many too. */
#define STAT_MAX_DROP_REASONS 64
#define STAT_DROP_REASON_MAX  48 /* the longest kept, with its NUL */
struct stat_drop {
	const char *reason; /* one copy for the process (text_shared()), never NULL */
	uint64_t count;
};

/* The tuner's window: STAT_WINDOW_SLOTS slots of histogram deltas, the oldest reused. */
#define STAT_WINDOW_SLOTS 8

/* The probes' histograms of an interface and the window of their deltas: 9 KiB that an
 * interface the probes never counted (a pod's, one past the probes' slots, any without
 * BPF) never needs, allocated when the probes first count it (stat_hists_get()). */
struct stat_hists {
	struct rtl_hist hist[SH__COUNT];
	struct rtl_hist window[STAT_WINDOW_SLOTS][SH__COUNT];
	struct rtl_hist window_base[SH__COUNT]; /* cumulative at the current slot's start */
	bool fresh; /* allocated since the last stat_advance(): its window starts there */
};

struct iface_stats {
	bool valid; /* at least one sample taken */
	bool have_hist; /* the probes counted it: h holds their histograms */
	uint64_t probe_sample; /* number of the sample the probes' counters are from */
	uint64_t counter[SC__COUNT];
	bool have_counter[SC__COUNT];
	struct stat_hists *h; /* NULL until the probes first count it */
	struct stat_drop *drops; /* grown as reasons appear (most interfaces see a few) */
	unsigned int n_drops, drops_cap;

	/* Per-second rates since the read before (rate_us: one sample interval, or the
	 * samples an idle interface skipped with it). */
	double rate[SC__COUNT];
	uint64_t rate_us;
	uint64_t prev_counter[SC__COUNT];
	uint64_t prev_us;

	/* Window: slot deltas, each slot covering slot_us (the histograms' in h): rows of
	 * STAT_WINDOW_SLOTS, kept packed (rtltune/packed.h: a zero slot one byte, a small
	 * count one or two more), allocated while a slot is not zero (an idle interface's
	 * window is all zero: NULL). */
	uint8_t *window_z;
	uint32_t window_zlen;
	uint64_t window_counter_base[SC__COUNT];
	unsigned int window_cur;
	uint64_t window_slot_start_us;

	/* Idle sampling (sampler.c): reads in a row whose packet counters did not move, and
	 * whether samples were skipped since the last read. */
	unsigned int still;
	bool skipped;
	bool idle; /* read every IDLE_EVERY-th sample only (sampler.c) */
};

/* The interface's histograms, allocated at the first call (NULL out of memory). */
struct stat_hists *stat_hists_get(struct iface_stats *s);
/* Sum of the window's slots for one histogram (empty without histograms) / one counter. */
void stat_window_sum(const struct iface_stats *s, enum stat_hist h, struct rtl_hist *out);
uint64_t stat_window_counter(const struct iface_stats *s, enum stat_counter c);
/* Account a new cumulative sample taken at now_us: rates and window slots. */
void stat_advance(struct iface_stats *s, uint64_t now_us, uint64_t slot_us);
/* Set a drop reason's count (created on first sight; beyond STAT_MAX_DROP_REASONS or out of
 * memory: ignored). */
void stat_drop_set(struct iface_stats *s, const char *reason, uint64_t count);
/* What the stats hold besides themselves. */
void stat_free(struct iface_stats *s);

#endif
