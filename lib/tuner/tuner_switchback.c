// SPDX-License-Identifier: GPL-2.0-only
/*
 * Switchback trials (docs/tuning.md "Switchback"): a gain the traffic shows at once is
 * judged by alternating the trial's and the pre-trial values sample by sample and testing
 * the paired differences sequentially (tnr_pair_bf() in tuner_stats.c); the state machine
 * and the guards it shares are in tuner.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tuner_priv.h"

/*
 * Scale of the prior on the standardized gain (delta ~ N(0, g) in tnr_pair_bf()): gains
 * that matter here are 1 to 3 standard deviations of a pair's difference (+25-100% where
 * one connection's 1 s samples differ by 20-30% from the next).
 */
#define SWITCH_PRIOR_G 2.0

/*
 * Gains whose change the traffic shows at once go by switchback: the sizes (established
 * connections re-read them at their next transmit, as the actuator invalidates their
 * routes; GRO at its next merge) and GRO itself. The MTU does not (an established
 * connection keeps its MSS), and a fix must show its fault falling over a window.
 */
bool tnr_switchback_fits(const struct tuner_candidate *c)
{
	return !tuner_rule_is_fix(c->rule) && c->dir == TUNER_UP && c->knob != KNOB_MTU &&
	       c->rule != TUNER_RULE_NAPI_DEFER;
}

unsigned int tnr_switch_baseline_needed(const struct tuner *t, const struct iface *ifc)
{
	unsigned int n = t->cfg.switch_baseline, full = t->cfg.baseline_samples;

	return (n < full ? n : full) * tnr_factor(&t->cfg, ifc);
}

unsigned int tnr_switch_pairs_max(const struct tuner *t, const struct iface *ifc)
{
	return t->cfg.switch_pairs * tnr_factor(&t->cfg, ifc);
}

static double log_thr(const struct point *p, enum objective o)
{
	double v = tnr_throughput(p, o);

	return log(v > 1 ? v : 1);
}

/* CPU time per byte, on a log scale; false when the sample has none to tell. */
static bool log_cpu(const struct point *p, double *v)
{
	double bytes = p->tx_bytes + p->rx_bytes;

	if (!(p->have & TUNER_HAVE_CPU) || p->cpu_ns <= 0 || bytes <= 0)
		return false;
	*v = log(p->cpu_ns / bytes);
	return true;
}

/*
 * The baseline, all at the pre-trial values, as pairs of adjacent samples (0, 1), (2, 3),
 * ..., its last sample left for the first pair of the trial: differences with mean 0
 * that give the test the spread of a pair before the trial has any.
 */
void tnr_switchback_begin(struct trial *tr, const struct tuner_candidate *c)
{
	struct switchback *sb = &tr->sb;
	const struct window *w = &tr->base;
	double x, y;
	unsigned int i;

	memset(sb, 0, sizeof(*sb));
	for (i = 0; i < c->n_changes; i++)
		sb->b[i] = c->changes[i].to;
	/* Throughput per busy CPU has the CPU in it already: no second test. */
	sb->cpu = w->n > 0 && tnr_knob_objective(c->knob) != OBJ_RX_PER_CPU;
	for (i = 0; i < w->n; i++)
		sb->cpu = sb->cpu && log_cpu(&w->p[i], &x);
	for (i = 0; i + 2 < w->n && sb->nulls < TUNER_NULL_PAIRS / 2; i += 2) {
		enum objective o = tnr_knob_objective(c->knob);

		sb->e_thr[sb->nulls] = log_thr(&w->p[i + 1], o) - log_thr(&w->p[i], o);
		if (sb->cpu && log_cpu(&w->p[i + 1], &x) && log_cpu(&w->p[i], &y))
			sb->e_cpu[sb->nulls] = x - y;
		sb->nulls++;
	}
	if (w->n) {
		sb->last_thr = log_thr(&w->p[w->n - 1], tnr_knob_objective(c->knob));
		if (sb->cpu)
			log_cpu(&w->p[w->n - 1], &sb->last_cpu);
	}
}

/* Switch to the trial's values (to_b) or back to the pre-trial ones: a STEP. */
static void give_switch(struct tuner *t, struct iface *ifc, bool to_b, uint64_t now,
			const char *why, struct tuner_action *out)
{
	struct trial *tr = ifc->trial;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_STEP, now, out);
	for (i = 0; i < tr->start.n_changes; i++) {
		int64_t to = to_b ? tr->sb.b[i] : tr->chg[i].from;

		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = to;
		tr->step_from[i] = tr->chg[i].to;
		tr->chg[i].to = to;
	}
	tr->steps++;
	snprintf(out->reason, sizeof(out->reason), "%s", why);
	ifc->state = TUNER_ST_APPLYING;
	ifc->awaiting = true;
	tnr_count(ifc, out);
}

/*
 * The pair limit is not a test: the Bayes factor bounds the false keeps however many pairs
 * it sees (Ville), so stopping later costs time, never the error rate. A trial that reached
 * switch_pairs with its pairs pointing at a gain (the throughput's mean beyond the margin,
 * or CPU per byte's below minus the margin with the throughput held) goes on, up to
 * SWITCH_PAIRS_EXTEND times as many: a real +20% in noise of 20-30% per sample is shown in
 * 8-16 pairs (docs/tuning.md "The pair limit"), and rolled back at 8 it waits out a backoff
 * before it is tried again. Without a lean toward a gain it ends at switch_pairs as before.
 */
#define SWITCH_PAIRS_EXTEND 2

static unsigned int switch_pairs_extended(const struct tuner *t, const struct iface *ifc)
{
	unsigned int n = tnr_switch_pairs_max(t, ifc) * SWITCH_PAIRS_EXTEND;

	return n < TUNER_MAX_PAIRS ? n : TUNER_MAX_PAIRS;
}

/* The limit the trial runs under now: switch_pairs, or the extended one once past it. */
unsigned int tnr_switch_pairs_now(const struct tuner *t, const struct iface *ifc)
{
	unsigned int n = tnr_switch_pairs_max(t, ifc);

	return !ifc->trial || ifc->trial->sb.pairs < n ? n : switch_pairs_extended(t, ifc);
}

static bool promising(const struct switchback *sb, double raw, double margin)
{
	double cpu = 0;
	unsigned int i;

	if (raw > margin)
		return true;
	if (!sb->cpu || raw <= -margin)
		return false;
	for (i = 0; i < sb->pairs; i++)
		cpu += sb->d_cpu[i] / sb->pairs;
	return cpu < -margin;
}

/* "tx throughput +38.2% (5 pairs, Bayes factor 63 vs 50)" */
static void describe_pairs(const char *what, const double *d, unsigned int n, double bf, double bar,
			   char *buf, size_t len)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += d[i];
	tnr_cat(buf, len, "%s %+.1f%% (geometric mean of %u pairs), Bayes factor %.3g vs %.3g",
		what, n ? tnr_pct(exp(sum / n)) : 0, n, bf, bar);
}

/*
 * After each pair: the sequential tests on throughput (a gain of at least min_effect) and,
 * with CPU sampled, on CPU per byte (cheaper by min_effect while throughput holds). Each
 * stops at a Bayes factor of bar either way; alpha = false_keep is spent over both, so a
 * gain below min_effect is kept with a chance of at most false_keep (tnr_pair_bf()).
 */
static void switchback_judge(struct tuner *t, struct iface *ifc, uint64_t now,
			     struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = ifc->trial;
	struct switchback *sb = &tr->sb;
	enum objective o = tnr_knob_objective(tr->start.knob);
	double margin = log(1 + tr->min_effect), bar, bf, bfc = 0, m, mc = 0, raw;
	char why[sizeof(out->reason)] = "";
	bool at_b = tr->chg[0].to == sb->b[0], keep = false, done = false;
	struct agg ab, ob;
	unsigned int i;

	bar = sb->cpu ? 1 / cfg->false_keep : 1 / (2 * cfg->false_keep);
	bf = tnr_pair_bf(sb->e_thr, sb->nulls, sb->d_thr, sb->pairs, margin, SWITCH_PRIOR_G, &m);
	/* The pairs' own mean (m is of the differences capped against outliers, which for a
	 * large effect in little noise says less than it is). */
	for (raw = 0, i = 0; i < sb->pairs; i++)
		raw += sb->d_thr[i] / sb->pairs;
	tnr_aggregate(&tr->base, &ab);
	tnr_aggregate(&tr->obs, &ob);
	if (tr->obs.n >= 2 &&
	    tnr_raise_unused(cfg, tr, tnr_env(ifc), &ob, why, sizeof(why))) {
		done = true;
	} else if (bf >= bar) {
		keep = m > 0;
		done = true;
	} else if (sb->cpu && raw > -margin) {
		bfc = tnr_pair_bf(sb->e_cpu, sb->nulls, sb->d_cpu, sb->pairs, -margin,
				  SWITCH_PRIOR_G, &mc);
		keep = bfc >= bar && mc < 0;
		done = bfc >= bar;
	}
	if (!done && (sb->pairs < tnr_switch_pairs_max(t, ifc) ||
		      (sb->pairs < switch_pairs_extended(t, ifc) && promising(sb, raw, margin))))
		return;
	describe_pairs(tnr_objective_name(o), sb->d_thr, sb->pairs, bf, bar, why, sizeof(why));
	if (keep && bf >= bar)
		tnr_cat(why, sizeof(why), ": a gain beyond noise (at least %.0f%%)",
			tr->min_effect * 100);
	else if (bf >= bar)
		tnr_cat(why, sizeof(why), ": %s, beyond noise",
			raw <= -margin ? "worse"
			: raw > 0      ? "a gain below the required"
				       : "no gain");
	if (sb->cpu && bfc > 0) {
		tnr_cat(why, sizeof(why), "; ");
		describe_pairs("CPU per byte", sb->d_cpu, sb->pairs, bfc, bar, why, sizeof(why));
		if (keep)
			tnr_cat(why, sizeof(why), ": cheaper beyond noise (at least %.0f%%)",
				tr->min_effect * 100);
	}
	if (!done)
		tnr_cat(why, sizeof(why), ": no gain beyond noise (at least %.0f%%) in %u pairs",
			tr->min_effect * 100, sb->pairs);
	tnr_penalty_summary(&ab, &ob, -1, why, sizeof(why));
	if (!keep)
		return tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
	if (at_b)
		return tnr_give_keep(t, ifc, now, why, out);
	/* The pre-trial values are on: the trial's go back, and the keep follows. */
	snprintf(sb->verdict, sizeof(sb->verdict), "%s", why);
	sb->keep_pending = true;
	give_switch(t, ifc, true, now, "switchback: the gain is shown; back to keep it", out);
}

/* One sample of a switchback trial: into its block, then the switch or the pair's test. */
void tnr_feed_switchback(struct tuner *t, struct iface *ifc, const struct point *p, uint64_t now,
			 struct tuner_action *out)
{
	struct trial *tr = ifc->trial;
	struct switchback *sb = &tr->sb;
	enum objective o = tnr_knob_objective(tr->start.knob);
	unsigned int i = sb->samples++;
	bool at_b = tr->chg[0].to == sb->b[0];
	double x = log_thr(p, o), c = 0;
	char why[96];

	if (tnr_win_push(at_b ? &tr->obs : &tr->base, p, TUNER_MAX_WINDOW) < 0)
		return;
	if (sb->keep_pending)
		return tnr_give_keep(t, ifc, now, sb->verdict, out);
	if (sb->cpu && !log_cpu(p, &c))
		sb->cpu = false;
	if (tnr_observe_early(t, ifc, now, out))
		return;
	if (i % 2) {
		/* A block's second sample: noise against its first; then the other value. */
		if (sb->nulls < TUNER_NULL_PAIRS) {
			sb->e_thr[sb->nulls] = x - sb->last_thr;
			sb->e_cpu[sb->nulls] = c - sb->last_cpu;
			sb->nulls++;
		}
		sb->last_thr = x;
		sb->last_cpu = c;
		snprintf(why, sizeof(why), "switchback pair %u: %s", sb->pairs + 1,
			 at_b ? "the pre-trial value" : "the trial's value");
		return give_switch(t, ifc, !at_b, now, why, out);
	}
	sb->d_thr[sb->pairs] = at_b ? x - sb->last_thr : sb->last_thr - x;
	sb->d_cpu[sb->pairs] = at_b ? c - sb->last_cpu : sb->last_cpu - c;
	sb->pairs++;
	sb->last_thr = x;
	sb->last_cpu = c;
	switchback_judge(t, ifc, now, out);
}
