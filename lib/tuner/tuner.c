// SPDX-License-Identifier: GPL-2.0-only
/*
 * The autotuner's decision core (docs/tuning.md): per interface, a state machine that
 * collects a baseline, starts one trial when a rule calls for it, judges the trial against
 * the baseline, keeps or rolls back, and backs off after a rejection. Rules are in
 * tuner_rules.c, the statistics in tuner_stats.c. Pure: time comes in as arguments,
 * nothing here does I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "tuner_priv.h"

/* ---- interfaces ------------------------------------------------------------------- */

static struct iface *iface_find(const struct tuner *t, int ifindex)
{
	struct iface *i;

	for (i = t->ifaces; i; i = i->next)
		if (i->ifindex == ifindex)
			return i;
	return NULL;
}

unsigned int tnr_factor(const struct tuner_config *cfg, const struct iface *ifc)
{
	return ifc->have_env && (ifc->env.quirks & CHIP_Q_JUDGE_SLOWLY) ? cfg->judge_slowly_factor
									: 1;
}

static unsigned int baseline_needed(const struct tuner *t, const struct iface *ifc)
{
	return t->cfg.baseline_samples * tnr_factor(&t->cfg, ifc);
}

static unsigned int observe_needed(const struct tuner *t, const struct iface *ifc)
{
	return t->cfg.observe_samples * tnr_factor(&t->cfg, ifc);
}

static void win_reset(struct iface *ifc, const struct tuner_env *env)
{
	ifc->win.n = 0;
	memcpy(ifc->win_knob, env->knob, sizeof(ifc->win_knob));
}

int tuner_new(const struct tuner_config *cfg, struct tuner **out, struct rterr *err)
{
	struct tuner *t;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return rterr_sys(err, ENOMEM, "tuner");
	if (cfg)
		t->cfg = *cfg;
	else
		tuner_config_default(&t->cfg);
	r = tuner_config_check(&t->cfg, err);
	if (r < 0) {
		free(t);
		return r;
	}
	*out = t;
	return 0;
}

static void iface_free(struct iface *ifc)
{
	tnr_win_free(&ifc->win);
	tnr_win_free(&ifc->trial.base);
	tnr_win_free(&ifc->trial.obs);
	free(ifc);
}

void tuner_free(struct tuner *t)
{
	struct iface *i, *n;

	if (!t)
		return;
	for (i = t->ifaces; i; i = n) {
		n = i->next;
		iface_free(i);
	}
	free(t);
}

const struct tuner_config *tuner_config(const struct tuner *t)
{
	return &t->cfg;
}

int tuner_iface_add(struct tuner *t, int ifindex, const char *ifname)
{
	struct iface *ifc;

	if (iface_find(t, ifindex))
		return -EEXIST;
	ifc = calloc(1, sizeof(*ifc));
	if (!ifc)
		return -ENOMEM;
	ifc->ifindex = ifindex;
	snprintf(ifc->ifname, sizeof(ifc->ifname), "%s", ifname ? ifname : "");
	ifc->state = TUNER_ST_IDLE;
	ifc->next = t->ifaces;
	t->ifaces = ifc;
	return 0;
}

int tuner_iface_remove(struct tuner *t, int ifindex)
{
	struct iface **pp, *ifc;

	for (pp = &t->ifaces; *pp; pp = &(*pp)->next) {
		if ((*pp)->ifindex != ifindex)
			continue;
		ifc = *pp;
		*pp = ifc->next;
		if (ifc->in_trial && t->active_trials)
			t->active_trials--;
		iface_free(ifc);
		return 0;
	}
	return -ENOENT;
}

int tuner_iface_rename(struct tuner *t, int ifindex, const char *ifname)
{
	struct iface *ifc = iface_find(t, ifindex);

	if (!ifc)
		return -ENOENT;
	snprintf(ifc->ifname, sizeof(ifc->ifname), "%s", ifname ? ifname : "");
	return 0;
}

/* ---- backoff ---------------------------------------------------------------------- */

static void backoff_update(const struct tuner_config *cfg, struct iface *ifc, enum knob_id k,
			   enum tuner_dir d, enum backoff_mode mode, uint64_t now)
{
	struct tuner_backoff *b, *rev;
	uint64_t period;

	if ((unsigned int)k >= TUNER_KNOBS)
		return;
	b = &ifc->backoff[k][d];
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
			rev = &ifc->backoff[k][TUNER_UP];
			period = rev->period_ms ? rev->period_ms : cfg->backoff_initial_ms;
			if (rev->until_ms < now + period)
				rev->until_ms = now + period;
		}
		break;
	}
}

static uint64_t backoff_left_s(const struct iface *ifc, enum knob_id k, enum tuner_dir d,
			       uint64_t now)
{
	const struct tuner_backoff *b = tnr_backoff(ifc, k, d);

	return b && b->until_ms > now ? (b->until_ms - now) / 1000 : 0;
}

/* ---- trials ----------------------------------------------------------------------- */

void tnr_action_from_trial(const struct iface *ifc, const struct trial *tr,
			   enum tuner_action_kind kind, uint64_t now, struct tuner_action *out)
{
	*out = tr->start;
	out->kind = kind;
	out->ts_ms = now;
	memcpy(out->changes, tr->chg, sizeof(out->changes));
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->reason[0] = '\0';
}

void tnr_count(struct iface *ifc, const struct tuner_action *a)
{
	if (a->kind != TUNER_NONE && (unsigned int)a->knob < TUNER_KNOBS)
		ifc->decisions[a->knob][a->kind]++;
}

/* The trial ends without a rollback (kept, failed, abandoned). */
static void trial_end(struct tuner *t, struct iface *ifc)
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
	const struct trial *tr = &ifc->trial;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_ROLLBACK, now, out);
	for (i = 0; i < out->n_changes; i++) {
		/* A switchback may be at either value: the log names the trial's. */
		out->changes[i].from = tr->switchback ? tr->sb.b[i] : tr->chg[i].to;
		out->changes[i].to = tr->chg[i].from;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
	backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, mode, now);
	ifc->rollback = *out;
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
		if (f != F_TIMEOUTS && rb < cfg->fault_ratio / 10)
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

static void describe_cmp(const char *what, const struct cmp *c, bool bps, char *buf, size_t len)
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
static bool can_step(const struct tuner_config *cfg, const struct trial *tr, bool cured)
{
	return tr->start.rule == TUNER_RULE_GSO_FAULTS && tr->chg[0].to > cfg->gso_floor && !cured;
}

/* Checks after every observed sample: a penalty rise or a collapse ends the trial now. */
bool tnr_observe_early(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = &ifc->trial;
	enum objective o = tnr_knob_objective(tr->start.knob);
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	char why[sizeof(out->reason)] = "", x[32], y[32];
	struct agg ab, ob;
	unsigned int na, nb;

	tnr_aggregate(&tr->base, &ab);
	tnr_aggregate(&tr->obs, &ob);
	/* The fault a fix that can still step is after is judged by its verdict (can_step()). */
	if (penalty_rose(cfg, &ab, &ob, can_step(cfg, tr, false) ? tr->fault : -1, why,
			 sizeof(why))) {
		tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	/* A fix that can still step is judged on its full window (can_step()). */
	if (tr->obs.n < 3 || can_step(cfg, tr, false))
		return false;
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

static void give_step(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		      struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	int64_t to = tr->chg[0].to / 2 > t->cfg.gso_floor ? tr->chg[0].to / 2 : t->cfg.gso_floor;
	unsigned int i;

	tnr_action_from_trial(ifc, tr, TUNER_STEP, now, out);
	for (i = 0; i < tr->start.n_changes; i++) {
		tr->step_from[i] = tr->chg[i].to;
		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = to;
		tr->chg[i].to = to;
	}
	tr->steps++;
	snprintf(out->reason, sizeof(out->reason), "%s; step %u: %s %" PRId64 " -> %" PRId64, why,
		 tr->steps, knob_name(tr->chg[0].knob), out->changes[0].from, to);
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
static bool promising(const struct trial *tr, const struct cmp *thr)
{
	return tr->kind == TRIAL_GAIN && !tr->retest && thr->t >= 1 &&
	       thr->medb >= thr->meda * (1 + 2 * tr->min_effect);
}

/* Retest phase 1 (back to the pre-trial values) or 2 (the trial's values again): a step. */
static void give_retest(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
			struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
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
	struct trial *tr = &ifc->trial;

	tnr_action_from_trial(ifc, tr, TUNER_KEEP, now, out);
	snprintf(out->reason, sizeof(out->reason), "%s", why);
	backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_KEEP, now);
	tnr_count(ifc, out);
	trial_end(t, ifc);
	/* The observed window was taken with the kept value: it is the next baseline (a swap:
	 * each window keeps its own storage). */
	swap_windows(&ifc->win, &tr->obs);
	memcpy(ifc->win_knob, ifc->env.knob, sizeof(ifc->win_knob));
	ifc->state = TUNER_ST_BASELINE;
}

static void verdict(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = &ifc->trial;
	enum objective o = tnr_knob_objective(tr->start.knob);
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	char why[sizeof(out->reason)] = "", x[64];
	struct agg ab, ob;
	struct cmp thr, cpu;
	bool keep = false, fell = false, unused = false;

	tnr_aggregate(&tr->base, &ab);
	tnr_aggregate(&tr->obs, &ob);
	tnr_compare(a, tnr_win_values(&tr->base, 0, tr->base.n, o, a), b,
		    tnr_win_values(&tr->obs, 0, tr->obs.n, o, b), &thr);
	if (tr->kind == TRIAL_FIX) {
		int f = tr->fault;
		double ra = tnr_agg_rate(&ab, f), rb = tnr_agg_rate(&ob, f);
		double z = tnr_fault_z(&ab, &ob, f);

		/* TX timeouts are too rare for a rate test: cured means none while observed. */
		fell = f == F_TIMEOUTS ? ab.ev[f] > 0 && ob.ev[f] == 0
				       : z <= -cfg->fix_z && rb <= ra * (1 - cfg->fix_min_fall);

		snprintf(why, sizeof(why), "%s %s %s ", tnr_faults[f].name,
			 fell ? "fell" : "did not fall enough:",
			 tnr_fmt_fault_change(f, ra, rb, x, sizeof(x)));
		if (f == F_TIMEOUTS)
			tnr_cat(why, sizeof(why), "(cured means none while observed); ");
		else
			tnr_cat(why, sizeof(why), "(z %.1f vs -%.1f, at least -%.0f%%); ",
				tnr_tclamp(z), cfg->fix_z, cfg->fix_min_fall * 100);
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		if (fell && tnr_cmp_down(&thr, cfg->fix_max_loss))
			tnr_cat(why, sizeof(why), "; costs more than %.0f%% throughput",
				cfg->fix_max_loss * 100);
		else
			keep = fell;
	} else if ((unused = tnr_raise_unused(cfg, tr, ifc->have_env ? &ifc->env : NULL, &ob, why,
					      sizeof(why)))) {
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
	} else if (tnr_cmp_up(&thr, tr->min_effect)) {
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ": a gain beyond noise (at least %.0f%%)",
			tr->min_effect * 100);
		keep = true;
	} else if (tnr_cmp_down(&thr, cfg->min_effect)) {
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ": worse");
	} else if ((ab.have & ob.have & TUNER_HAVE_CPU) && ab.cpu_ns > 0) {
		/* Throughput did not move (not saturated, or at line rate): CPU per byte decides.
		 */
		tnr_compare(a, tnr_win_cpu_per_byte(&tr->base, a), b,
			    tnr_win_cpu_per_byte(&tr->obs, b), &cpu);
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ", same; ");
		describe_cmp("CPU", &cpu, false, why, sizeof(why));
		keep = tnr_cmp_down(&cpu, tr->min_effect);
		if (keep)
			tnr_cat(why, sizeof(why), ": cheaper beyond noise (at least %.0f%%)",
				tr->min_effect * 100);
		else if (cpu.t <= -cpu.tcrit && cpu.medb < cpu.meda)
			tnr_cat(why, sizeof(why), ": cheaper, but below the %.0f%% required",
				tr->min_effect * 100);
		else
			tnr_cat(why, sizeof(why), ": no gain beyond noise (at least %.0f%%)",
				tr->min_effect * 100);
	} else {
		describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		if (thr.t >= thr.tcrit)
			tnr_cat(why, sizeof(why), ": a gain below the %.0f%% required",
				tr->min_effect * 100);
		else
			tnr_cat(why, sizeof(why), ": no gain beyond noise (at least %.0f%%)",
				tr->min_effect * 100);
	}
	tnr_penalty_summary(&ab, &ob, tr->kind == TRIAL_FIX ? tr->fault : -1, why, sizeof(why));
	if (!keep && can_step(cfg, tr, fell)) {
		give_step(t, ifc, now, why, out);
		return;
	}
	if (!keep && !unused && promising(tr, &thr)) {
		give_retest(t, ifc, now, why, out);
		return;
	}
	if (!keep) {
		tnr_give_rollback(t, ifc, BO_REJECT, now, why, out);
		return;
	}
	tnr_give_keep(t, ifc, now, why, out);
}

static int start_trial(struct tuner *t, struct iface *ifc, const struct tuner_env *env,
		       const struct tuner_candidate *c, uint64_t now, struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	struct window base = tr->base, obs = tr->obs;
	char why[192];
	struct agg a;

	/* The windows' storage outlives a trial; only the points are new. */
	if (tnr_win_copy(&base, &ifc->win) < 0)
		return -ENOMEM;
	memset(tr, 0, sizeof(*tr));
	tr->base = base;
	tr->obs = obs;
	tr->obs.n = 0;
	tr->kind = c->dir == TUNER_DOWN ? TRIAL_FIX : TRIAL_GAIN;
	tnr_aggregate(&tr->base, &a);
	tr->fault = tr->kind == TRIAL_FIX ? tnr_fault_present(&t->cfg, &a, why, sizeof(why)) : -1;
	if (tr->kind == TRIAL_FIX && tr->fault < 0)
		tr->fault = F_RETRANS;
	tr->min_effect = t->cfg.min_effect;
	if (c->knob == KNOB_MTU && (env->quirks & CHIP_Q_JUMBO_DISABLES_TSO) &&
	    env->knob[KNOB_TSO] > 0 && c->changes[0].to > 1500)
		tr->min_effect *= t->cfg.jumbo_tso_factor;
	tr->started_ms = now;
	tr->switchback = tnr_switchback_fits(c);
	if (tr->switchback)
		tnr_switchback_begin(tr, c);

	memset(out, 0, sizeof(*out));
	out->kind = TUNER_START_TRIAL;
	out->ts_ms = now;
	out->trial = ++t->next_trial;
	out->ifindex = ifc->ifindex;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->rule = c->rule;
	out->knob = c->knob;
	out->dir = c->dir;
	memcpy(out->changes, c->changes, sizeof(out->changes));
	out->n_changes = c->n_changes;
	snprintf(out->reason, sizeof(out->reason), "%s: %s", tuner_rule_name(c->rule), c->reason);
	tr->start = *out;
	memcpy(tr->chg, c->changes, sizeof(tr->chg));

	ifc->in_trial = true;
	ifc->awaiting = true;
	ifc->state = TUNER_ST_APPLYING;
	ifc->count = 0;
	t->active_trials++;
	tnr_count(ifc, out);
	return 0;
}

/* ---- feeding ---------------------------------------------------------------------- */

/* The sample as a point; false when it cannot be rated (no interval known yet). */
static bool to_point(struct iface *ifc, const struct tuner_sample *s, struct point *p)
{
	uint64_t ms = s->interval_ms;

	if (!ms && ifc->have_ts && s->ts_ms > ifc->last_ts_ms)
		ms = s->ts_ms - ifc->last_ts_ms;
	ifc->last_ts_ms = s->ts_ms;
	ifc->have_ts = true;
	if (!ms)
		return false;
	memset(p, 0, sizeof(*p));
	p->secs = (double)ms / 1000.0;
	p->have = s->have;
	p->tx_bytes = (double)s->tx_bytes;
	p->rx_bytes = (double)s->rx_bytes;
	p->tx_pkts = (double)s->tx_packets;
	p->rx_pkts = (double)s->rx_packets;
	/* Without GSO data every skb is a segment as far as the rates can tell. */
	p->tx_segs = (s->have & TUNER_HAVE_GSO) && s->tx_segs ? (double)s->tx_segs : p->tx_pkts;
	p->gso_skbs = (double)s->tx_gso_skbs;
	p->gso_at_cap = (double)s->tx_gso_at_cap;
	p->rx_skbs = (double)s->rx_skbs;
	p->gro_at_cap = (double)s->rx_gro_at_cap;
	p->retrans = (double)s->tcp_retransmits;
	p->retrans_skbs = s->tcp_retransmit_skbs && s->tcp_retransmit_skbs <= s->tcp_retransmits
				  ? (double)s->tcp_retransmit_skbs
				  : p->retrans;
	p->drops = (double)s->drops;
	p->busy = (double)s->tx_busy;
	p->timeouts = (double)s->tx_timeouts;
	p->cpu_ns = (double)s->cpu_ns;
	return true;
}

/*
 * Traffic to judge: above the idle thresholds, or TCP retransmitting through the device. A
 * flow that big bursts collapsed into retransmission timeouts (the i.MX6 fec seed) sends
 * little between them, and is exactly what a fix must see, not an idle link.
 */
static bool active(const struct tuner_config *cfg, const struct point *p)
{
	return ((p->tx_bytes + p->rx_bytes) / p->secs >= cfg->idle_bytes_per_s &&
		(p->tx_pkts + p->rx_pkts) / p->secs >= cfg->idle_packets_per_s) ||
	       (p->retrans_skbs > 0 && p->tx_pkts > 0);
}

/* A sample spanning much longer than the window's: the daemon stalled or the host slept. */
static bool gap(const struct window *w, const struct point *p)
{
	return w->n && p->secs > 3 * tnr_win_mean_secs(w);
}

/* During settle/observe: why the trial cannot go on, with the action to take; 0 none. */
static enum tuner_action_kind trial_interrupted(const struct iface *ifc,
						const struct tuner_env *env, bool check_values,
						char *why, size_t len)
{
	const struct trial *tr = &ifc->trial;
	unsigned int i;

	if (!env->autotune) {
		snprintf(why, len, "autotune turned off during the trial");
		return TUNER_ROLLBACK;
	}
	for (i = 0; i < tr->start.n_changes; i++) {
		const struct tuner_change *c = &tr->chg[i];

		if (env->manual[c->knob]) {
			snprintf(why, len,
				 "%s changed outside rtltune during the trial (%" PRId64
				 " instead of %" PRId64 "): left as found",
				 knob_name(c->knob), env->knob[c->knob], c->to);
			return TUNER_ABANDON;
		}
		if (env->pinned[c->knob]) {
			snprintf(why, len, "%s pinned during the trial", knob_name(c->knob));
			return TUNER_ROLLBACK;
		}
		if (check_values && env->knob[c->knob] != c->to) {
			snprintf(why, len,
				 "%s changed outside the tuner during the trial (%" PRId64
				 " instead of %" PRId64 "): left as found",
				 knob_name(c->knob), env->knob[c->knob], c->to);
			return TUNER_ABANDON;
		}
	}
	return TUNER_NONE;
}

static void feed_trial(struct tuner *t, struct iface *ifc, const struct tuner_env *env,
		       const struct point *p, bool usable, uint64_t now, struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	char why[sizeof(out->reason)];
	enum tuner_action_kind k;

	k = trial_interrupted(ifc, env, ifc->state == TUNER_ST_OBSERVE, why, sizeof(why));
	if (k == TUNER_ROLLBACK)
		return tnr_give_rollback(t, ifc, BO_ABORT, now, why, out);
	if (k == TUNER_ABANDON) {
		tnr_action_from_trial(ifc, tr, TUNER_ABANDON, now, out);
		snprintf(out->reason, sizeof(out->reason), "%s", why);
		backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_ABORT, now);
		tnr_count(ifc, out);
		trial_end(t, ifc);
		win_reset(ifc, env);
		ifc->state = TUNER_ST_IDLE;
		return;
	}
	if (!usable)
		return;
	if (!active(&t->cfg, p))
		return tnr_give_rollback(t, ifc, BO_ABORT, now,
					 "traffic stopped during the trial: cannot judge", out);
	if (gap(&tr->base, p))
		return tnr_give_rollback(t, ifc, BO_ABORT, now,
					 "sampling gap during the trial: cannot judge", out);
	if (tr->switchback)
		return tnr_feed_switchback(t, ifc, p, now, out);
	if (ifc->state == TUNER_ST_SETTLE) {
		if (++ifc->count >= t->cfg.settle_samples)
			ifc->state = TUNER_ST_OBSERVE;
		return;
	}
	if (tr->retest == 1) {
		/* The fresh baseline, at the pre-trial values; then the change again. */
		if (tnr_win_push(&tr->base, p, baseline_needed(t, ifc)) == 0 &&
		    tr->base.n >= baseline_needed(t, ifc))
			give_retest(t, ifc, now, "", out);
		return;
	}
	if (tnr_win_push(&tr->obs, p, TUNER_MAX_WINDOW) < 0)
		return; /* out of memory: this sample is not judged */
	if (tnr_observe_early(t, ifc, now, out))
		return;
	if (tr->obs.n >= observe_needed(t, ifc))
		verdict(t, ifc, now, out);
}

static bool knobs_moved(const struct iface *ifc, const struct tuner_env *env)
{
	return memcmp(ifc->win_knob, env->knob, sizeof(ifc->win_knob)) != 0;
}

int tuner_feed(struct tuner *t, int ifindex, const struct tuner_sample *s,
	       const struct tuner_env *env, uint64_t now, struct tuner_action *out)
{
	struct tuner_candidate cands[TUNER_RULE__COUNT];
	struct iface *ifc;
	struct point p;
	bool usable;
	char why[256];
	int r;

	if (!t || !s || !env || !out)
		return -EINVAL;
	ifc = iface_find(t, ifindex);
	if (!ifc)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->kind = TUNER_NONE;
	ifc->env = *env;
	ifc->have_env = true;
	usable = to_point(ifc, s, &p);

	switch (ifc->state) {
	case TUNER_ST_APPLYING:
		return 0;
	case TUNER_ST_ROLLING_BACK:
		if (!ifc->awaiting) {
			/* The last rollback failed: the journal keeps the trial in flight, and
			 * the tuner keeps asking until the pre-trial values are back. */
			*out = ifc->rollback;
			out->ts_ms = now;
			out->retry = true;
			ifc->awaiting = true;
		}
		return 0;
	case TUNER_ST_SETTLE:
	case TUNER_ST_OBSERVE:
		feed_trial(t, ifc, env, &p, usable, now, out);
		return 0;
	case TUNER_ST_COOLDOWN:
		if (usable && ++ifc->count >= t->cfg.settle_samples) {
			win_reset(ifc, env);
			ifc->state = TUNER_ST_IDLE;
		}
		return 0;
	default:
		break;
	}
	if (!usable)
		return 0;
	if (knobs_moved(ifc, env) || gap(&ifc->win, &p) || !active(&t->cfg, &p)) {
		win_reset(ifc, env);
		if (!active(&t->cfg, &p)) {
			ifc->state = TUNER_ST_IDLE;
			return 0;
		}
	}
	if (tnr_win_push(&ifc->win, &p, baseline_needed(t, ifc)) < 0)
		return -ENOMEM;
	ifc->state = TUNER_ST_BASELINE;
	if (ifc->win.n < tnr_switch_baseline_needed(t, ifc) || !env->autotune ||
	    t->active_trials >= t->cfg.max_trials)
		return 0;
	r = tnr_evaluate(t, ifc, env, &ifc->win, now, cands);
	if (r < 0)
		return 0;
	/*
	 * A switchback compares adjacent samples, so drift and a flow's ramp cancel: it needs
	 * only the rule's evidence. Other gains wait for a full window of steady traffic,
	 * fixes for a steady fault.
	 */
	if (tnr_switchback_fits(&cands[r]))
		return start_trial(t, ifc, env, &cands[r], now, out);
	if (ifc->win.n < baseline_needed(t, ifc))
		return 0;
	if (cands[r].dir == TUNER_UP
		    ? tnr_unsteady(&t->cfg, &ifc->win, tnr_knob_objective(cands[r].knob), why,
				   sizeof(why))
		    : tnr_fault_unsteady(&t->cfg, &ifc->win, why, sizeof(why)))
		return 0;
	return start_trial(t, ifc, env, &cands[r], now, out);
}

int tuner_applied(struct tuner *t, int ifindex, bool ok, uint64_t now, struct tuner_action *out)
{
	struct iface *ifc = t ? iface_find(t, ifindex) : NULL;
	struct trial *tr;

	if (!ifc)
		return -ENOENT;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->kind = TUNER_NONE;
	}
	if (!ifc->awaiting)
		return -EALREADY;
	tr = &ifc->trial;
	ifc->awaiting = false;
	if (ifc->state == TUNER_ST_APPLYING) {
		if (ok) {
			if (!tr->steps)
				tr->started_ms = now;
			/* A switchback's blocks follow each other with nothing thrown away:
			 * skb sizes follow a change within the sample (docs/tuning.md). */
			ifc->state = tr->switchback ? TUNER_ST_OBSERVE : TUNER_ST_SETTLE;
			ifc->count = 0;
			return 0;
		}
		if (tr->steps) {
			struct tuner_action rb;
			unsigned int i;

			/* apply undid the step itself: the previous step's values are on. */
			for (i = 0; i < tr->start.n_changes; i++)
				tr->chg[i].to = tr->step_from[i];
			tnr_give_rollback(
				t, ifc, BO_REJECT, now,
				"the next step could not be applied: back to the pre-trial "
				"values",
				&rb);
			if (out)
				*out = rb;
			return 0;
		}
		backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_REJECT, now);
		if (out) {
			tnr_action_from_trial(ifc, tr, TUNER_FAILED, now, out);
			snprintf(out->reason, sizeof(out->reason),
				 "the change could not be applied (nothing changed); backing off "
				 "%" PRIu64 "s",
				 backoff_left_s(ifc, tr->start.knob, tr->start.dir, now));
			tnr_count(ifc, out);
		}
		trial_end(t, ifc);
	} else if (ifc->state == TUNER_ST_ROLLING_BACK) {
		if (!ok)
			return 0; /* given again at the next sample */
		trial_end(t, ifc);
	} else {
		return -EALREADY;
	}
	ifc->state = TUNER_ST_COOLDOWN;
	ifc->count = 0;
	return 0;
}

int tuner_abort(struct tuner *t, int ifindex, uint64_t now, const char *why,
		struct tuner_action *out)
{
	struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->kind = TUNER_NONE;
	switch (ifc->state) {
	case TUNER_ST_APPLYING:
	case TUNER_ST_SETTLE:
	case TUNER_ST_OBSERVE:
		tnr_give_rollback(t, ifc, BO_ABORT, now, why && *why ? why : "trial aborted", out);
		break;
	case TUNER_ST_ROLLING_BACK:
		*out = ifc->rollback;
		out->ts_ms = now;
		out->retry = true;
		ifc->awaiting = true;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- introspection ---------------------------------------------------------------- */

int tuner_recommend(const struct tuner *t, int ifindex, uint64_t now,
		    struct tuner_recommendation *out)
{
	const struct iface *ifc = t ? iface_find(t, ifindex) : NULL;
	struct tuner_env none;
	const struct tuner_env *env;
	const struct trial *tr;
	char why[256];
	unsigned int i;
	int next;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->state = ifc->state;
	out->next = -1;
	if (ifc->have_env) {
		env = &ifc->env;
	} else {
		memset(&none, 0, sizeof(none));
		for (i = 0; i < KNOB__COUNT; i++)
			none.knob[i] = LINK_UNSET;
		env = &none;
	}
	out->samples = ifc->win.n;
	out->needed = baseline_needed(t, ifc);
	next = tnr_evaluate(t, ifc, env, &ifc->win, now, out->cands);
	tr = &ifc->trial;

	if (ifc->in_trial) {
		const struct tuner_change *c = &tr->chg[0];

		if (tr->switchback)
			snprintf(out->summary, sizeof(out->summary),
				 "trial %u in progress (%s, switchback): %s %" PRId64
				 " against %" PRId64 ", %u of at most %u pairs",
				 tr->start.trial, tuner_rule_name(tr->start.rule),
				 knob_name(c->knob), tr->sb.b[0], c->from, tr->sb.pairs,
				 tnr_switch_pairs_max(t, ifc));
		else
			snprintf(out->summary, sizeof(out->summary),
				 "trial %u in progress (%s, %s): %s %" PRId64 " -> %" PRId64
				 ", observed %u/%u samples",
				 tr->start.trial, tuner_rule_name(tr->start.rule),
				 tuner_state_name(ifc->state), knob_name(c->knob), c->from, c->to,
				 tr->obs.n, observe_needed(t, ifc));
		out->samples = tr->switchback ? tr->sb.pairs : tr->obs.n;
		out->needed =
			tr->switchback ? tnr_switch_pairs_max(t, ifc) : observe_needed(t, ifc);
	}
	/* What feed would add before starting: a full window, steady traffic, a free slot. */
	why[0] = '\0';
	if (!ifc->in_trial && ifc->state != TUNER_ST_BASELINE)
		snprintf(why, sizeof(why), "%s",
			 ifc->state == TUNER_ST_IDLE ? "no traffic"
						     : "settling after the last trial");
	else if (!ifc->in_trial && ifc->win.n < out->needed)
		snprintf(why, sizeof(why), "collecting a baseline (%u/%u samples)", ifc->win.n,
			 out->needed);
	else if (!ifc->in_trial && t->active_trials >= t->cfg.max_trials)
		snprintf(why, sizeof(why), "another interface's trial is running (max_trials %u)",
			 t->cfg.max_trials);
	else if (next >= 0 && out->cands[next].dir == TUNER_UP)
		tnr_unsteady(&t->cfg, &ifc->win, tnr_knob_objective(out->cands[next].knob), why,
			     sizeof(why));
	else if (next >= 0)
		tnr_fault_unsteady(&t->cfg, &ifc->win, why, sizeof(why));
	if (next >= 0 && (why[0] || ifc->in_trial)) {
		struct tuner_candidate *c = &out->cands[next];
		char r[sizeof(c->reason)];

		snprintf(r, sizeof(r), "%s", c->reason);
		c->status = TUNER_CAND_WAITING;
		snprintf(c->reason, sizeof(c->reason), "%s (waiting: %s)", r,
			 ifc->in_trial ? "a trial is in progress" : why);
	}
	if (next < 0)
		for (i = 0; i < TUNER_RULE__COUNT && next < 0; i++)
			if (out->cands[i].status == TUNER_CAND_WAITING)
				next = (int)i;
	/* With autotune off, what it would try once on (docs/tuning.md "Pins and autotune"). */
	if (next < 0)
		for (i = 0; i < TUNER_RULE__COUNT && next < 0; i++)
			if (out->cands[i].status == TUNER_CAND_AUTOTUNE_OFF)
				next = (int)i;
	out->next = next;
	if (ifc->in_trial)
		return 0;
	if (next >= 0) {
		const struct tuner_candidate *c = &out->cands[next];

		snprintf(out->summary, sizeof(out->summary),
			 "next%s%s%s: %s %" PRId64 " -> %" PRId64 " (%s): %s",
			 c->status == TUNER_CAND_READY ? "" : " (",
			 c->status == TUNER_CAND_READY ? "" : tuner_cand_status_name(c->status),
			 c->status == TUNER_CAND_READY ? "" : ")", knob_name(c->changes[0].knob),
			 c->changes[0].from, c->changes[0].to, tuner_rule_name(c->rule), c->reason);
	} else {
		snprintf(out->summary, sizeof(out->summary), "nothing to try%s%s",
			 why[0] ? ": " : "", why);
	}
	return 0;
}

int tuner_iface_info(const struct tuner *t, int ifindex, struct tuner_iface_info *out)
{
	const struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->ifindex = ifc->ifindex;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->state = ifc->state;
	switch (ifc->state) {
	case TUNER_ST_SETTLE:
	case TUNER_ST_COOLDOWN:
		out->samples = ifc->count;
		out->needed = t->cfg.settle_samples;
		break;
	case TUNER_ST_OBSERVE:
		if (ifc->trial.switchback) {
			out->samples = ifc->trial.sb.pairs;
			out->needed = tnr_switch_pairs_max(t, ifc);
			break;
		}
		out->samples = ifc->trial.retest == 1 ? ifc->trial.base.n : ifc->trial.obs.n;
		out->needed =
			ifc->trial.retest == 1 ? baseline_needed(t, ifc) : observe_needed(t, ifc);
		break;
	default:
		out->samples = ifc->win.n;
		out->needed = baseline_needed(t, ifc);
		break;
	}
	out->in_trial = ifc->in_trial;
	if (ifc->in_trial) {
		out->trial = ifc->trial.start;
		memcpy(out->trial.changes, ifc->trial.chg, sizeof(out->trial.changes));
		out->trial_started_ms = ifc->trial.started_ms;
	}
	/* [knob][...] rows: the tuner's TUNER_KNOBS are the first rows of the API's. */
	memcpy(out->backoff, ifc->backoff, sizeof(ifc->backoff));
	memcpy(out->decisions, ifc->decisions, sizeof(ifc->decisions));
	return 0;
}
