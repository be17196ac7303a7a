// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trial's ends: keep, roll back, step on, retest; the backoff a rollback leaves; the
 * penalties and comparisons a verdict names. Below tuner.c (the state machine) and
 * tuner_switchback.c (gains judged by switchback), which both end trials through it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "tuner_priv.h"

unsigned int tnr_factor(const struct tuner_config *cfg, const struct iface *ifc)
{
	return ifc->fed && (ifc->fed->env.quirks & CHIP_Q_JUDGE_SLOWLY) ? cfg->judge_slowly_factor
									 : 1;
}

void tnr_backoff_update(const struct tuner_config *cfg, struct iface *ifc, enum knob_id k,
			enum tuner_dir d, enum backoff_mode mode, uint64_t now)
{
	struct tuner_backoff *b, *rev;
	int slot = tnr_knob_slot(k);
	struct iface_memo *memo;
	uint64_t period;

	if (slot < 0 || !(memo = tnr_memo(ifc)))
		return;
	b = &memo->backoff[slot][d];
	period = b->period_ms ? b->period_ms : cfg->backoff_initial_ms;

	switch (mode) {
	case BO_REJECT:
		b->until_ms = now + period;
		b->period_ms = period * 2 < cfg->backoff_max_ms ? period * 2 : cfg->backoff_max_ms;
		b->rejected++;
		break;
	case BO_ABORT:
		b->until_ms = now + period;
		b->period_ms = period;
		break;
	case BO_KEEP:
		memset(b, 0, sizeof(*b));
		/* Gains go up, fixes go down: after a kept fix, the gain that undoes it waits
		 * (its own period), so the two never alternate faster than the backoff. */
		if (d == TUNER_DOWN) {
			rev = &memo->backoff[slot][TUNER_UP];
			period = rev->period_ms ? rev->period_ms : cfg->backoff_initial_ms;
			if (rev->until_ms < now + period)
				rev->until_ms = now + period;
		}
		break;
	}
}

uint64_t tnr_backoff_left_s(const struct iface *ifc, enum knob_id k, enum tuner_dir d, uint64_t now)
{
	const struct tuner_backoff *b = tnr_backoff(ifc, k, d);

	return b && b->until_ms > now ? (b->until_ms - now) / 1000 : 0;
}

/* ---- trials ----------------------------------------------------------------------- */

/* The trial ends without a rollback (kept, failed, abandoned). */
void tnr_trial_end(struct tuner *t, struct iface *ifc)
{
	if (ifc->in_trial && t->active_trials)
		t->active_trials--;
	ifc->in_trial = false;
	ifc->awaiting = false;
}

/* Give a rollback to the pre-trial values; the trial ends when tuner_applied(ok) says so. */
void tnr_give_rollback(struct tuner *t, struct iface *ifc, enum backoff_mode mode, uint64_t now,
		       const char *reason, struct tuner_action *out)
{
	const struct trial *tr = ifc->trial;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_ROLLBACK, now, out);
	for (i = 0; i < out->n_changes; i++) {
		/* A switchback may be at either value: the log names the trial's. */
		out->changes[i].from = tr->switchback ? tr->sb.b[i] : tr->chg[i].to;
		out->changes[i].to = tr->chg[i].from;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
	tnr_backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, mode, now);
	ifc->trial->rollback = *out;
	ifc->state = TUNER_ST_ROLLING_BACK;
	ifc->awaiting = true;
	tnr_count(ifc, out);
}

/* Penalty rates in base vs obs; a clear rise of any but skip (or -1) is a rollback. */
static bool penalty_rose(const struct tuner_config *cfg, const struct agg *a, const struct agg *b,
			 int skip, char *why, size_t len)
{
	char x[64];
	int f;

	for (f = 0; f < F__COUNT; f++) {
		double ra = tnr_agg_rate(a, f), rb = tnr_agg_rate(b, f), z;

		if (f == skip)
			continue;
		if (!(a->have & b->have & tnr_faults[f].have))
			continue;
		if (b->occ[f] < tnr_fault_min_events(cfg, f) ||
		    rb <= ra * (1 + cfg->penalty_min_rise))
			continue;
		/*
		 * Below a tenth of what counts as a fault the rate is the background of a busy
		 * host (veth under load: 0.01-0.07% of segments, backlog drops in bursts), and
		 * the bursts defeat a rate test: a whole loss episode resends many skbs at once.
		 * bench-tuner saw 0.016% -> 0.071% in one sample (z 8.1) roll a +60% raise back.
		 */
		if (rb < tnr_fault_threshold(cfg, (enum fault)f) / 10)
			continue;
		z = tnr_fault_z(a, b, f);
		/* A hung TX queue where the baseline had none needs no statistics. */
		if (!(f == F_TIMEOUTS && a->ev[f] == 0) && z < cfg->penalty_z)
			continue;
		snprintf(why, len, "%s rose: %s (%.0f in %u samples, z %.1f)", tnr_faults[f].name,
			 tnr_fmt_fault_change(f, ra, rb, x, sizeof(x)), b->ev[f], b->n,
			 tnr_tclamp(z));
		return true;
	}
	return false;
}

/* "; retransmits 0.010% -> 0.020% of segments" for the reason of a verdict; skip: the
 * fault already described (a fix's own), or -1. */
void tnr_penalty_summary(const struct agg *a, const struct agg *b, int skip, char *buf, size_t len)
{
	char x[64];
	int f;

	for (f = 0; f < F__COUNT; f++) {
		if (f == skip || !(a->have & b->have & tnr_faults[f].have))
			continue;
		if (f != F_RETRANS && a->ev[f] == 0 && b->ev[f] == 0)
			continue;
		tnr_cat(buf, len, "; %s %s", tnr_faults[f].name,
			tnr_fmt_fault_change(f, tnr_agg_rate(a, f), tnr_agg_rate(b, f), x,
					     sizeof(x)));
	}
}

void tnr_describe_cmp(const char *what, const struct cmp *c, bool bps, char *buf, size_t len)
{
	char x[32], y[32];

	if (bps) {
		tnr_fmt_bps(c->ma, x, sizeof(x));
		tnr_fmt_bps(c->mb, y, sizeof(y));
	} else {
		snprintf(x, sizeof(x), "%.3g ns/byte", c->ma);
		snprintf(y, sizeof(y), "%.3g ns/byte", c->mb);
	}
	tnr_cat(buf, len,
		"%s %s -> %s (%+.1f%%, medians %+.1f%%), Welch t %.1f vs %.2f over %u+%u samples",
		what, x, y, c->ma > 0 ? tnr_pct(c->mb / c->ma) : 0,
		c->meda > 0 ? tnr_pct(c->medb / c->meda) : 0, tnr_tclamp(c->t), c->tcrit, c->na,
		c->nb);
	if (c->rho > 0)
		tnr_cat(buf, len, " (autocorrelation %.2f)", c->rho);
}

/*
 * A fix that did not cure goes one step further within the same trial: gso_max_size halves
 * again down to the floor, each step judged against the pre-trial baseline; only when the
 * floor does not cure either is it all rolled back. A step that would not cure is never
 * kept on its own (it would cost for nothing). What a step's throughput did does not stop
 * it: while the fault persists, throughput says little about the size (a TSO engine that
 * mangles a share of big bursts loses twice as many per byte at 32K as at 64K, and the
 * emulated one cost 17-57% there before 16K cured it); the floor's verdict weighs the cost.
 */
static int64_t step_to(const struct tuner_config *cfg, const struct trial *tr, unsigned int i)
{
	int64_t cur = tr->chg[i].to;

	if (tr->start.rule == TUNER_RULE_GSO_FAULTS)
		return cur / 2 > cfg->gso_floor ? cur / 2 : cfg->gso_floor;
	if (tuner_rule_for_host(tr->start.rule))
		return tnr_host_next(cfg, tr->chg[i].knob, cur);
	if (tr->start.rule == TUNER_RULE_RING_OVERRUNS)
		return tnr_ring_next(cur, tr->cap);
	return cur;
}

/* The host's fixes step the same way, up: a backlog or a budget doubles again to its cap;
 * and ring-overruns: ring_rx doubles again to the ring's max. */
bool tnr_can_step(const struct tuner_config *cfg, const struct trial *tr, bool cured)
{
	unsigned int i;

	if (cured)
		return false;
	for (i = 0; i < tr->start.n_changes; i++)
		if (step_to(cfg, tr, i) != tr->chg[i].to)
			return true;
	return false;
}

/* The median TCP RTTs of w's samples that have one, into v; how many. */
static unsigned int win_rtt(const struct window *w, double *v)
{
	unsigned int i, n = 0;

	for (i = 0; i < w->n; i++)
		if ((w->p[i].have & TUNER_HAVE_RTT) && w->p[i].rtt_us > 0)
			v[n++] = w->p[i].rtt_us;
	return n;
}

/*
 * napi-defer's latency guard: the median TCP RTT of the trial's samples against the
 * baseline's. It trips on a rise beyond noise (Welch's t) by defer_max_rtt_rise and
 * defer_min_rtt_rise_us both: deferral delays a frame by up to gro_flush_timeout, and a
 * few microseconds more on a short RTT are a change of its noise, not of the service.
 * 1 tripped, 0 held, -1 no RTT to judge by (fewer than 3 samples with one on either side);
 * why says it.
 */
int tnr_rtt_guard(const struct tuner_config *cfg, const struct trial *tr, char *why, size_t len)
{
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	unsigned int na = win_rtt(&tr->base, a), nb = win_rtt(&tr->obs, b);
	struct cmp rtt;

	if (na < 3 || nb < 3) {
		snprintf(why, len,
			 "no latency guard: TCP RTT sampled in %u of %u samples before, %u of %u "
			 "during the trial",
			 na, tr->base.n, nb, tr->obs.n);
		return -1;
	}
	tnr_compare(a, na, b, nb, &rtt);
	snprintf(why, len,
		 "median TCP RTT %.0f -> %.0f us (%+.1f%%), Welch t %.1f vs %.2f over %u+%u "
		 "samples",
		 rtt.meda, rtt.medb, rtt.meda > 0 ? tnr_pct(rtt.medb / rtt.meda) : 0,
		 tnr_tclamp(rtt.t), rtt.tcrit, rtt.na, rtt.nb);
	if (tnr_cmp_up(&rtt, cfg->defer_max_rtt_rise) &&
	    rtt.medb - rtt.meda >= cfg->defer_min_rtt_rise_us) {
		tnr_cat(why, len,
			": the latency guard tripped (a rise beyond noise of at least %.0f%% and "
			"%.0f us)",
			cfg->defer_max_rtt_rise * 100, cfg->defer_min_rtt_rise_us);
		return 1;
	}
	tnr_cat(why, len, ": held");
	return 0;
}

/* Checks after every observed sample: a penalty rise or a collapse ends the trial now. */
bool tnr_observe_early(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = ifc->trial;
	enum objective o = tnr_knob_objective(tr->start.knob);
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	char why[sizeof(out->reason)] = "", x[32], y[32];
	struct agg ab, ob;
	unsigned int na, nb;

	tnr_aggregate(&tr->base, &ab);
	tnr_aggregate(&tr->obs, &ob);
	/* The fault a fix that can still step is after is judged by its verdict (tnr_can_step()).
	 */
	if (penalty_rose(cfg, &ab, &ob, tnr_can_step(cfg, tr, false) ? tr->fault : -1, why,
			 sizeof(why))) {
		tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	/* A fix that can still step is judged on its full window (tnr_can_step()). */
	if (tr->obs.n < 3 || tnr_can_step(cfg, tr, false))
		return false;
	/* napi-defer's latency guard ends it as soon as it trips. */
	if (tr->start.rule == TUNER_RULE_NAPI_DEFER && tnr_rtt_guard(cfg, tr, why, sizeof(why)) > 0) {
		tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	na = tnr_win_values(&tr->base, 0, tr->base.n, o, a);
	nb = tnr_win_values(&tr->obs, 0, tr->obs.n, o, b);
	if (tnr_median_of(b, nb) < (1 - cfg->collapse) * tnr_median_of(a, na)) {
		snprintf(why, sizeof(why), "%s collapsed: %s -> %s (medians, %u samples)",
			 tnr_objective_name(o), tnr_fmt_bps(tnr_median_of(a, na), x, sizeof(x)),
			 tnr_fmt_bps(tnr_median_of(b, nb), y, sizeof(y)), nb);
		tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	return false;
}

void tnr_give_step(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		   struct tuner_action *out)
{
	struct trial *tr = ifc->trial;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_STEP, now, out);
	for (i = 0; i < tr->start.n_changes; i++) {
		int64_t to = step_to(&t->cfg, tr, i);

		tr->step_from[i] = tr->chg[i].to;
		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = to;
		tr->chg[i].to = to;
	}
	tr->steps++;
	snprintf(out->reason, sizeof(out->reason), "%s; step %u: %s %" PRId64 " -> %" PRId64, why,
		 tr->steps, knob_name(tr->chg[0].knob), out->changes[0].from,
		 out->changes[0].to);
	tr->obs.n = 0;
	ifc->state = TUNER_ST_APPLYING;
	ifc->awaiting = true;
	ifc->count = 0;
	tnr_count(ifc, out);
}

/*
 * A gain the criterion did not confirm, but whose throughput pointed clearly up: medians
 * at least twice min_effect higher and Welch t >= 1. Noisy samples make the criterion miss
 * real gains now and then (on recorded bulk TCP traces 4-6 of 38 steps of +40-100%, each
 * of them promising by this test), and a rejection blocks the knob for the backoff period.
 * Such a trial is judged once more within itself: back to the pre-trial values for a fresh
 * baseline, then the same change again and a fresh observation; that second comparison
 * decides. 14% of the no-gain trials on those traces were promising: the second look adds
 * about a seventh to the rate of keeping noise, and no trial.
 */
bool tnr_promising(const struct trial *tr, const struct cmp *thr)
{
	return tr->kind == TRIAL_GAIN && !tr->retest && tr->start.rule != TUNER_RULE_NAPI_DEFER &&
	       thr->t >= 1 &&
	       thr->medb >= thr->meda * (1 + 2 * tr->min_effect);
}

/* Retest phase 1 (back to the pre-trial values) or 2 (the trial's values again): a step. */
void tnr_give_retest(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		     struct tuner_action *out)
{
	struct trial *tr = ifc->trial;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_STEP, now, out);
	for (i = 0; i < tr->start.n_changes; i++) {
		int64_t to = tr->retest ? tr->step_from[i] : tr->chg[i].from;

		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = to;
		tr->step_from[i] = tr->chg[i].to;
		tr->chg[i].to = to;
	}
	tr->steps++;
	tr->retest++;
	if (tr->retest == 1)
		snprintf(out->reason, sizeof(out->reason),
			 "%s; promising: back to %" PRId64 " for a fresh baseline, then %" PRId64
			 " again",
			 why, out->changes[0].to, out->changes[0].from);
	else
		snprintf(out->reason, sizeof(out->reason),
			 "a fresh baseline of %u samples at %" PRId64 ": %" PRId64 " again",
			 tr->base.n, out->changes[0].from, out->changes[0].to);
	if (tr->retest == 1)
		tr->base.n = 0;
	tr->obs.n = 0;
	ifc->state = TUNER_ST_APPLYING;
	ifc->awaiting = true;
	ifc->count = 0;
	tnr_count(ifc, out);
}

static void swap_windows(struct window *a, struct window *b)
{
	struct window w = *a;

	*a = *b;
	*b = w;
}

/*
 * Whether a raised size cap went unused: in the observed window hardly any skb is larger
 * than the old cap (the samples' at-cap counts, taken against the new cap, count the skbs
 * in its log2 bucket: those above the old one). What throughput did meanwhile is then the
 * traffic's own drift (tuner_backoff once saw such raises kept at +23% and +34%, Welch t
 * 3-4, when established connections kept their old size): a change that did not reach
 * the traffic is not credited, whatever the numbers say, and the verdict names the cause
 * it can see: a device above the NIC that stops the size (env->limit_note), or else the
 * traffic itself, whose skbs the size does not limit. (Established connections take a new
 * size since the actuator invalidates their routes: docs/stack.md.)
 */
bool tnr_raise_unused(const struct tuner_config *cfg, const struct trial *tr,
		      const struct tuner_env *env, const struct agg *ob, char *why, size_t len)
{
	unsigned int need;
	double skbs, above;

	switch (tr->start.rule) {
	case TUNER_RULE_GSO_AT_CAP:
		need = TUNER_HAVE_GSO;
		skbs = ob->gso_skbs;
		above = ob->gso_at_cap;
		break;
	case TUNER_RULE_GRO_AT_CAP:
		need = TUNER_HAVE_GRO;
		skbs = ob->rx_skbs;
		above = ob->gro_at_cap;
		break;
	default:
		return false;
	}
	if (!(ob->have & need) || skbs <= 0 || above >= skbs * cfg->cap_share / 2)
		return false;
	snprintf(why, len,
		 "%s raised to %" PRId64 ", but only %.1f%% of the skbs were larger than %" PRId64
		 " (< %.0f%%): the change did not reach the traffic (%s); ",
		 knob_name(tr->start.knob), tr->chg[0].to, 100 * above / skbs, tr->chg[0].from,
		 100 * cfg->cap_share / 2,
		 env && env->limit_note[0]
			 ? env->limit_note
			 : "its connections sent no larger skbs: the size is not what limits them");
	return true;
}

/* Kept: the trial's values stay, and what was observed with them is the next baseline. */
void tnr_give_keep(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		   struct tuner_action *out)
{
	struct trial *tr = ifc->trial;

	tnr_action_from_trial(ifc, tr, TUNER_KEEP, now, out);
	snprintf(out->reason, sizeof(out->reason), "%s", why);
	tnr_backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_KEEP, now);
	tnr_count(ifc, out);
	tnr_trial_end(t, ifc);
	/* The observed window was taken with the kept value: it is the next baseline (a swap:
	 * each window keeps its own storage). */
	swap_windows(&ifc->win, &tr->obs);
	if (ifc->fed)
		memcpy(ifc->fed->win_knob, ifc->fed->env.knob, sizeof(ifc->fed->win_knob));
	ifc->state = TUNER_ST_BASELINE;
}
