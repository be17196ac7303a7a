// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recommendations from the tuner's window: each rule names the observation (counts from
 * the histograms and counters of the last window) and the limit that makes a change
 * possible. Thresholds are deliberately conservative; the tuner, not this, experiments.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "recommend.h"
#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "rtltune/nic.h"
#include "bpf.h"
#include "iface.h"
#include "rtltune/hostknob.h"
#include "rtltune/actuate.h"
#include "sampler.h"
#include "signals.h"
#include "tune_json.h"

/* Below this many events in the window a share means nothing. */
#define MIN_EVENTS 200
/* Retransmitted share of TX skbs that reads as a segmentation problem, in per mille. */
#define RETRANS_PERMILLE 20

struct reco {
	json_object *list, *notes;
	const struct iface *ifc;
};

static void suggest(struct reco *r, enum knob_id k, int64_t cur, int64_t want, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void suggest(struct reco *r, enum knob_id k, int64_t cur, int64_t want, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* Someone else set it: say what the window shows, suggest nothing (outside.h). */
	if (r->ifc->m && iface_manual(r->ifc, k)) {
		char text[600];

		json_object_put(o);
		snprintf(text, sizeof(text),
			 "%s was changed outside rtltune and is left alone; the window says: %s",
			 knob_name(k), why);
		json_object_array_add(r->notes, json_object_new_string(text));
		return;
	}
	json_object_object_add(o, "knob", json_object_new_string(knob_name(k)));
	json_object_object_add(o, "current", knob_value_json(k, cur));
	json_object_object_add(o, "suggested", knob_value_json(k, want));
	json_object_object_add(o, "reason", json_object_new_string(why));
	json_object_array_add(r->list, o);
}

static void note(struct reco *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct reco *r, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_object_array_add(r->notes, json_object_new_string(text));
}

/* Share (per mille) of h's values in buckets whose le >= bound's bucket le. */
static uint64_t permille_at_or_above(const struct rtl_hist *h, uint64_t bound)
{
	uint64_t n = hist_count(h), le = hist_bucket_le(hist_bucket_index(bound));

	return n ? hist_count_above(h, le / 2) * 1000 / n : 0;
}

json_object *recommend_json(struct iface *ifc)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const struct chip_entry *chip = NULL;
	struct rtl_hist tx_skb, rx_frame, rx_skb, segs;
	struct reco r = {json_object_new_array(), json_object_new_array(), ifc};
	json_object *o = json_object_new_object(), *basis = json_object_new_object();
	uint64_t tx, retrans, busy, timeouts, gso_skbs;
	const struct iface_stats *st = ifc->m ? &ifc->m->stats : NULL;
	int64_t kv[KNOB__COUNT];
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		kv[k] = iface_knob(ifc, k);
	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "window_seconds",
			       json_object_new_double((double)rtd.cfg.sample_interval_us *
						      SAMPLE_SLOT_SAMPLES * STAT_WINDOW_SLOTS /
						      1e6));
	if (!st || !st->have_hist) {
		note(&r, "no histograms (%s): nothing to base advice on",
		     !st	      ? "not managed"
		     : bpf_error()[0] ? bpf_error()
				      : "BPF probes not running: not counted");
		goto out;
	}
	if (rtd.chips)
		chip = chipdb_match_nic(rtd.chips, iface_snap(ifc), NULL);
	chip_effective_limits(chip, iface_snap(ifc), eff);

	stat_window_sum(st, SH_TX_SKB_BYTES, &tx_skb);
	stat_window_sum(st, SH_TX_GSO_SEGMENTS, &segs);
	stat_window_sum(st, SH_RX_FRAME_BYTES, &rx_frame);
	stat_window_sum(st, SH_RX_SKB_BYTES, &rx_skb);
	tx = hist_count(&tx_skb);
	gso_skbs = hist_count(&segs);
	retrans = stat_window_counter(st, SC_TCP_RETRANSMITS);
	busy = stat_window_counter(st, SC_TX_BUSY);
	timeouts = stat_window_counter(st, SC_TX_TIMEOUTS);
	json_object_object_add(basis, "tx_skbs", json_object_new_uint64(tx));
	json_object_object_add(basis, "tx_gso_skbs", json_object_new_uint64(gso_skbs));
	json_object_object_add(basis, "rx_frames", json_object_new_uint64(hist_count(&rx_frame)));
	json_object_object_add(basis, "tcp_retransmits", json_object_new_uint64(retrans));
	json_object_object_add(basis, "tx_busy", json_object_new_uint64(busy));
	json_object_object_add(basis, "tx_timeouts", json_object_new_uint64(timeouts));
	json_object_object_add(o, "basis", basis);

	/* GSO skbs pressing against gso_max_size while the device takes more (BIG TCP). */
	if (gso_skbs >= MIN_EVENTS && kv[KNOB_GSO_MAX_SIZE] != LINK_UNSET &&
	    eff[CHIP_LIMIT_GSO_MAX_SIZE].value > kv[KNOB_GSO_MAX_SIZE]) {
		uint64_t pm = permille_at_or_above(&tx_skb, (uint64_t)kv[KNOB_GSO_MAX_SIZE]);

		if (pm >= 500)
			suggest(&r, KNOB_GSO_MAX_SIZE, kv[KNOB_GSO_MAX_SIZE],
				eff[CHIP_LIMIT_GSO_MAX_SIZE].value,
				"%" PRIu64 ".%" PRIu64 "%% of TX skbs are as large as gso_max_size "
				"allows; the device takes up to %" PRId64 " (%s)",
				pm / 10, pm % 10, eff[CHIP_LIMIT_GSO_MAX_SIZE].value,
				chip_limit_source_name(eff[CHIP_LIMIT_GSO_MAX_SIZE].source));
	}
	/* Retransmits out of proportion with TSO on: the RTL8126 field report's signature. */
	if (tx >= MIN_EVENTS && kv[KNOB_TSO] == 1 && retrans * 1000 / tx >= RETRANS_PERMILLE)
		suggest(&r, KNOB_TSO, 1, 0,
			"%" PRIu64 " TCP retransmits for %" PRIu64 " TX skbs (%" PRIu64 ".%" PRIu64
			"%%) with TSO on%s: try TSO off and compare",
			retrans, tx, retrans * 1000 / tx / 10, retrans * 1000 / tx % 10,
			chip_has_quirk(chip, CHIP_Q_TSO_RETRANSMIT_STORM)
				? " (this chip has field reports of exactly that)"
				: "");
	/* Full-sized frames arriving one by one: GRO would merge them. Not when they come
	 * merged already (a peer's GSO skbs, LRO: 3 frames or more in 2 skbs). */
	if (hist_count(&rx_frame) >= MIN_EVENTS && kv[KNOB_GRO] == 0 &&
	    permille_at_or_above(&rx_frame, 1024) >= 500 &&
	    2 * hist_count(&rx_frame) < 3 * hist_count(&rx_skb))
		suggest(&r, KNOB_GRO, 0, 1,
			"%" PRIu64 " RX frames, mostly 1 KiB or larger, reach the stack unmerged "
			"with GRO off",
			hist_count(&rx_frame));
	if (busy)
		note(&r,
		     "the driver refused %" PRIu64 " transmissions (TX ring full) in the window",
		     busy);
	if (timeouts)
		note(&r,
		     "the TX watchdog fired %" PRIu64 " times in the window: check the link "
		     "and the driver before tuning",
		     timeouts);
	if (hist_count(&rx_frame) >= MIN_EVENTS && kv[KNOB_MTU] != LINK_UNSET &&
	    eff[CHIP_LIMIT_MAX_MTU].value > kv[KNOB_MTU] &&
	    permille_at_or_above(&rx_frame, (uint64_t)kv[KNOB_MTU]) >= 500)
		note(&r,
		     "most RX frames are MTU-sized and the device takes MTU up to %" PRId64
		     ": jumbo frames help only if every device on the segment uses them",
		     eff[CHIP_LIMIT_MAX_MTU].value);
	if (!json_object_array_length(r.list) && !json_object_array_length(r.notes))
		note(&r, "nothing to suggest from the last window");
out:
	json_object_object_add(o, "tuner", tune_recommend_json(ifc));
	json_object_object_add(o, "recommendations", r.list);
	json_object_object_add(o, "notes", r.notes);
	return o;
}

/* One suggestion for a host knob: the observation, and the next value the tuner's rule
 * would try. */
static void host_suggest(json_object *list, const struct nic *snap, enum knob_id k,
			 const char *why)
{
	int64_t cur = snap->val[k], want = tuner_host_next(&rtd.cfg.tuner, k, cur);
	json_object *o;

	if (cur == LINK_UNSET || want <= cur)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "knob", json_object_new_string(knob_name(k)));
	json_object_object_add(o, "current", json_object_new_int64(cur));
	json_object_object_add(o, "suggested", json_object_new_int64(want));
	json_object_object_add(o, "reason", json_object_new_string(why));
	json_object_array_add(list, o);
}

json_object *recommend_host_json(void)
{
	const struct tuner_config *cfg = &rtd.cfg.tuner;
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	json_object *notes = json_object_new_array();
	double proc = 0, drop = 0, squeeze = 0;
	char why[400], hw[256] = "";
	unsigned int i;
	struct nic snap;
	int k;

	for (i = 0; i < signals_cpu_count(); i++) {
		const struct cpu_signals *c = signals_cpu(i);

		proc += c->rate[SOFTNET_PROCESSED];
		drop += c->rate[SOFTNET_DROPPED];
		squeeze += c->rate[SOFTNET_TIME_SQUEEZE];
	}
	for (k = 0; k < KNOB__COUNT; k++)
		snap.val[k] = LINK_UNSET;
	if (rtd.act)
		actuator_host_snapshot(rtd.act, &snap);
	if (drop >= 1 && drop >= cfg->backlog_drop_share * (proc + drop)) {
		snprintf(why, sizeof(why),
			 "%.0f packets/s dropped because a CPU's backlog was full (%.3f%% of those "
			 "that reached one): a deeper backlog holds the bursts",
			 drop, 100 * drop / (proc + drop));
		if (snap.val[KNOB_NETDEV_MAX_BACKLOG] == LINK_UNSET)
			host_scope(host_proc_sys(), hw, sizeof(hw));
		host_suggest(list, &snap, KNOB_NETDEV_MAX_BACKLOG, why);
	}
	if (squeeze >= 1 && proc > 0 && squeeze >= cfg->squeeze_share * proc) {
		snprintf(why, sizeof(why),
			 "%.0f NET_RX runs/s ran out of budget with work left (time_squeeze, %.3f%% "
			 "per packet): a larger budget finishes them",
			 squeeze, 100 * squeeze / proc);
		if (snap.val[KNOB_NETDEV_BUDGET] == LINK_UNSET)
			host_scope(host_proc_sys(), hw, sizeof(hw));
		host_suggest(list, &snap, KNOB_NETDEV_BUDGET, why);
		host_suggest(list, &snap, KNOB_NETDEV_BUDGET_USECS, why);
	}
	if (hw[0])
		json_object_array_add(notes, json_object_new_string(hw));
	json_object_object_add(o, "recommendations", list);
	json_object_object_add(o, "notes", notes);
	json_object_object_add(o, "tuner", tune_host_recommend_json());
	return o;
}
