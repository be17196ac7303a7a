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

/* An odd multiplier permutes the low bits: consecutive ifindexes (a pod's table keys are)
 * land in distinct buckets. */
static unsigned int bucket_of(const struct tuner *t, int ifindex)
{
	return ((uint32_t)ifindex * 2654435761u) & (t->n_buckets - 1);
}

static struct iface *iface_find(const struct tuner *t, int ifindex)
{
	struct iface *i;

	if (!t->n_buckets)
		return NULL;
	for (i = t->buckets[bucket_of(t, ifindex)]; i; i = i->hnext)
		if (i->ifindex == ifindex)
			return i;
	return NULL;
}

/* Room for one more interface: the buckets doubled when it would outnumber them (out of
 * memory then: the chains grow longer, nothing is lost); -ENOMEM only without any. */
static int buckets_fit(struct tuner *t)
{
	unsigned int n = t->n_buckets ? 2 * t->n_buckets : 64, old_n = t->n_buckets, b, o;
	struct iface **grown, **old = t->buckets, *i, *next;

	if (t->n_ifaces < t->n_buckets)
		return 0;
	grown = calloc(n, sizeof(*grown));
	if (!grown)
		return t->n_buckets ? 0 : -ENOMEM;
	t->buckets = grown;
	t->n_buckets = n;
	for (o = 0; o < old_n; o++)
		for (i = old[o]; i; i = next) {
			next = i->hnext;
			b = bucket_of(t, i->ifindex);
			i->hnext = t->buckets[b];
			t->buckets[b] = i;
		}
	free(old);
	return 0;
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
	if (ifc->fed)
		memcpy(ifc->fed->win_knob, env->knob, sizeof(ifc->fed->win_knob));
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
	free(ifc->fed);
	free(ifc->memo);
	if (ifc->trial) {
		tnr_win_free(&ifc->trial->base);
		tnr_win_free(&ifc->trial->obs);
		free(ifc->trial);
	}
	free(ifc);
}

void tuner_free(struct tuner *t)
{
	struct iface *i, *n;
	unsigned int b;

	if (!t)
		return;
	for (b = 0; b < t->n_buckets; b++)
		for (i = t->buckets[b]; i; i = n) {
			n = i->hnext;
			iface_free(i);
		}
	free(t->buckets);
	free(t);
}

const struct tuner_config *tuner_config(const struct tuner *t)
{
	return &t->cfg;
}

int tuner_iface_add(struct tuner *t, int ifindex, const char *ifname)
{
	struct iface *ifc;

	unsigned int b;

	if (iface_find(t, ifindex))
		return -EEXIST;
	if (buckets_fit(t) < 0)
		return -ENOMEM;
	ifc = calloc(1, sizeof(*ifc));
	if (!ifc)
		return -ENOMEM;
	ifc->ifindex = ifindex;
	snprintf(ifc->ifname, sizeof(ifc->ifname), "%s", ifname ? ifname : "");
	ifc->state = TUNER_ST_IDLE;
	b = bucket_of(t, ifindex);
	ifc->hnext = t->buckets[b];
	t->buckets[b] = ifc;
	t->n_ifaces++;
	return 0;
}

int tuner_iface_remove(struct tuner *t, int ifindex)
{
	struct iface **pp, *ifc = iface_find(t, ifindex);

	if (!ifc)
		return -ENOENT;
	for (pp = &t->buckets[bucket_of(t, ifindex)]; *pp != ifc; pp = &(*pp)->hnext)
		;
	*pp = ifc->hnext;
	t->n_ifaces--;
	if (ifc->in_trial && t->active_trials)
		t->active_trials--;
	iface_free(ifc);
	return 0;
}

int tuner_iface_rest(struct tuner *t, int ifindex)
{
	struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	if (!ifc)
		return -ENOENT;
	if (ifc->state != TUNER_ST_IDLE && ifc->state != TUNER_ST_BASELINE)
		return 0; /* a trial, or its cooldown: the next samples are its */
	/* The next feed finds a gap anyway (its window would be reset): a new start. */
	tnr_win_free(&ifc->win);
	free(ifc->fed);
	ifc->fed = NULL;
	ifc->state = TUNER_ST_IDLE;
	return 0;
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

/*
 * napi-defer's verdict: kept only when CPU per byte falls beyond noise (min_effect) while
 * throughput does not fall, and the latency guard holds (tnr_rtt_guard()). No RTT to guard
 * with: not kept.
 */
static bool defer_verdict(const struct tuner_config *cfg, const struct trial *tr,
			  const struct agg *ab, const struct agg *ob, const struct cmp *thr,
			  char *why, size_t len)
{
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	const char *o = tnr_objective_name(tnr_knob_objective(tr->start.knob));
	struct cmp cpu;
	int g = tnr_rtt_guard(cfg, tr, why, len);
	bool keep;

	if (g < 0)
		return false;
	tnr_cat(why, len, "; ");
	tnr_describe_cmp(o, thr, true, why, len);
	if (g > 0)
		return false;
	if (tnr_cmp_down(thr, cfg->min_effect)) {
		tnr_cat(why, len, ": worse");
		return false;
	}
	if (!((ab->have & ob->have & TUNER_HAVE_CPU) && ab->cpu_ns > 0)) {
		tnr_cat(why, len, "; CPU time not sampled: nothing to judge a saving by");
		return false;
	}
	tnr_compare(a, tnr_win_cpu_per_byte(&tr->base, a), b, tnr_win_cpu_per_byte(&tr->obs, b),
		    &cpu);
	tnr_cat(why, len, "; ");
	tnr_describe_cmp("CPU", &cpu, false, why, len);
	keep = tnr_cmp_down(&cpu, tr->min_effect);
	if (keep)
		tnr_cat(why, len, ": cheaper beyond noise (at least %.0f%%)", tr->min_effect * 100);
	else
		tnr_cat(why, len, ": no saving beyond noise (at least %.0f%%)",
			tr->min_effect * 100);
	return keep;
}

static void verdict(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = ifc->trial;
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
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		if (fell && tnr_cmp_down(&thr, cfg->fix_max_loss))
			tnr_cat(why, sizeof(why), "; costs more than %.0f%% throughput",
				cfg->fix_max_loss * 100);
		else
			keep = fell;
	} else if (tr->start.rule == TUNER_RULE_NAPI_DEFER) {
		keep = defer_verdict(cfg, tr, &ab, &ob, &thr, why, sizeof(why));
	} else if ((unused = tnr_raise_unused(cfg, tr, tnr_env(ifc), &ob, why,
					      sizeof(why)))) {
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
	} else if (tnr_cmp_up(&thr, tr->min_effect)) {
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ": a gain beyond noise (at least %.0f%%)",
			tr->min_effect * 100);
		keep = true;
	} else if (tnr_cmp_down(&thr, cfg->min_effect)) {
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ": worse");
	} else if (o != OBJ_RX_PER_CPU && (ab.have & ob.have & TUNER_HAVE_CPU) && ab.cpu_ns > 0) {
		/* Throughput did not move (not saturated, or at line rate): CPU per byte decides.
		 */
		tnr_compare(a, tnr_win_cpu_per_byte(&tr->base, a), b,
			    tnr_win_cpu_per_byte(&tr->obs, b), &cpu);
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		tnr_cat(why, sizeof(why), ", same; ");
		tnr_describe_cmp("CPU", &cpu, false, why, sizeof(why));
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
		tnr_describe_cmp(tnr_objective_name(o), &thr, true, why, sizeof(why));
		if (thr.t >= thr.tcrit)
			tnr_cat(why, sizeof(why), ": a gain below the %.0f%% required",
				tr->min_effect * 100);
		else
			tnr_cat(why, sizeof(why), ": no gain beyond noise (at least %.0f%%)",
				tr->min_effect * 100);
	}
	tnr_penalty_summary(&ab, &ob, tr->kind == TRIAL_FIX ? tr->fault : -1, why, sizeof(why));
	if (!keep && tnr_can_step(cfg, tr, fell)) {
		tnr_give_step(t, ifc, now, why, out);
		return;
	}
	if (!keep && !unused && tnr_promising(tr, &thr)) {
		tnr_give_retest(t, ifc, now, why, out);
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
	struct trial *tr;
	struct window base, obs;
	char why[192];
	struct agg a;

	if (!ifc->trial && !(ifc->trial = calloc(1, sizeof(*ifc->trial))))
		return -ENOMEM;
	tr = ifc->trial;
	base = tr->base;
	obs = tr->obs;
	/* The windows' storage outlives a trial; only the points are new. */
	if (tnr_win_copy(&base, &ifc->win) < 0) {
		tr->base = base; /* what tnr_win_copy() grew stays the trial's to free */
		return -ENOMEM;
	}
	memset(tr, 0, sizeof(*tr));
	tr->base = base;
	tr->obs = obs;
	tr->obs.n = 0;
	tr->kind = tuner_rule_is_fix(c->rule) ? TRIAL_FIX : TRIAL_GAIN;
	tnr_aggregate(&tr->base, &a);
	/* The fault the fix must cure: the host's rules and ring-overruns name theirs, a
	 * device's TX-side fix takes the worst one present. */
	tr->fault = tr->kind == TRIAL_FIX ? tnr_rule_fault(&t->cfg, c->rule, &a, why, sizeof(why))
					  : -1;
	if (tr->kind == TRIAL_FIX && tr->fault < 0) {
		int own = tnr_rule_own_fault(c->rule);

		tr->fault = own >= 0 ? own : F_RETRANS;
	}
	tr->cap = c->rule == TUNER_RULE_RING_OVERRUNS ? env->ring_rx_max : 0;
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
	p->backlog_drops = (double)s->backlog_drops;
	p->squeezes = (double)s->time_squeeze;
	p->softirq_max = (double)s->softirq_max_ppm / 1e6;
	p->softirq_min = (double)s->softirq_min_ppm / 1e6;
	p->busiest = s->softirq_busiest;
	p->busy = (double)s->tx_busy;
	p->timeouts = (double)s->tx_timeouts;
	p->cpu_ns = (double)s->cpu_ns;
	p->cpu_busy_ns = (double)s->cpu_busy_ns;
	p->overruns = (double)s->rx_overruns;
	p->rtt_us = (double)s->tcp_rtt_us;
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
	const struct trial *tr = ifc->trial;
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
	struct trial *tr = ifc->trial;
	char why[sizeof(out->reason)];
	enum tuner_action_kind k;

	k = trial_interrupted(ifc, env, ifc->state == TUNER_ST_OBSERVE, why, sizeof(why));
	if (k == TUNER_ROLLBACK)
		return tnr_give_rollback(t, ifc, BO_ABORT, now, why, out);
	if (k == TUNER_ABANDON) {
		tnr_action_from_trial(ifc, tr, TUNER_ABANDON, now, out);
		snprintf(out->reason, sizeof(out->reason), "%s", why);
		tnr_backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_ABORT, now);
		tnr_count(ifc, out);
		tnr_trial_end(t, ifc);
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
			tnr_give_retest(t, ifc, now, "", out);
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
	return memcmp(ifc->fed->win_knob, env->knob, sizeof(ifc->fed->win_knob)) != 0;
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
	if (!ifc->fed) {
		/* A new start: the window (empty) is taken with these values. */
		if (!(ifc->fed = malloc(sizeof(*ifc->fed))))
			return -ENOMEM;
		memcpy(ifc->fed->win_knob, env->knob, sizeof(ifc->fed->win_knob));
	}
	ifc->fed->env = *env;
	usable = to_point(ifc, s, &p);

	switch (ifc->state) {
	case TUNER_ST_APPLYING:
		return 0;
	case TUNER_ST_ROLLING_BACK:
		if (!ifc->awaiting) {
			/* The last rollback failed: the journal keeps the trial in flight, and
			 * the tuner keeps asking until the pre-trial values are back. */
			*out = ifc->trial->rollback;
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
	if (!tuner_rule_is_fix(cands[r].rule)
		    ? tnr_unsteady(&t->cfg, &ifc->win, tnr_knob_objective(cands[r].knob), why,
				   sizeof(why))
		    : tnr_fault_unsteady(&t->cfg, &ifc->win, cands[r].rule, why, sizeof(why)))
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
	tr = ifc->trial;
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
		tnr_backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_REJECT, now);
		if (out) {
			tnr_action_from_trial(ifc, tr, TUNER_FAILED, now, out);
			snprintf(out->reason, sizeof(out->reason),
				 "the change could not be applied (nothing changed); backing off "
				 "%" PRIu64 "s",
				 tnr_backoff_left_s(ifc, tr->start.knob, tr->start.dir, now));
			tnr_count(ifc, out);
		}
		tnr_trial_end(t, ifc);
	} else if (ifc->state == TUNER_ST_ROLLING_BACK) {
		if (!ok)
			return 0; /* given again at the next sample */
		tnr_trial_end(t, ifc);
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
		*out = ifc->trial->rollback;
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
	return tuner_recommend_env(t, ifindex, NULL, now, out);
}

int tuner_recommend_env(const struct tuner *t, int ifindex, const struct tuner_env *now_env,
			uint64_t now, struct tuner_recommendation *out)
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
	if (ifc->fed) {
		env = &ifc->fed->env;
	} else if (now_env) {
		env = now_env; /* resting, or not fed yet: the caller's reading of it now */
	} else {
		memset(&none, 0, sizeof(none));
		for (i = 0; i < KNOB__COUNT; i++)
			none.knob[i] = LINK_UNSET;
		env = &none;
	}
	out->samples = ifc->win.n;
	out->needed = baseline_needed(t, ifc);
	next = tnr_evaluate(t, ifc, env, &ifc->win, now, out->cands);
	tr = ifc->trial;

	if (ifc->in_trial) {
		const struct tuner_change *c = &tr->chg[0];

		if (tr->switchback)
			snprintf(out->summary, sizeof(out->summary),
				 "trial %u in progress (%s, switchback): %s %" PRId64
				 " against %" PRId64 ", %u of at most %u pairs",
				 tr->start.trial, tuner_rule_name(tr->start.rule),
				 knob_name(c->knob), tr->sb.b[0], c->from, tr->sb.pairs,
				 tnr_switch_pairs_now(t, ifc));
		else
			snprintf(out->summary, sizeof(out->summary),
				 "trial %u in progress (%s, %s): %s %" PRId64 " -> %" PRId64
				 ", observed %u/%u samples",
				 tr->start.trial, tuner_rule_name(tr->start.rule),
				 tuner_state_name(ifc->state), knob_name(c->knob), c->from, c->to,
				 tr->obs.n, observe_needed(t, ifc));
		out->samples = tr->switchback ? tr->sb.pairs : tr->obs.n;
		out->needed =
			tr->switchback ? tnr_switch_pairs_now(t, ifc) : observe_needed(t, ifc);
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
	else if (next >= 0 && !tuner_rule_is_fix(out->cands[next].rule))
		tnr_unsteady(&t->cfg, &ifc->win, tnr_knob_objective(out->cands[next].knob), why,
			     sizeof(why));
	else if (next >= 0)
		tnr_fault_unsteady(&t->cfg, &ifc->win, out->cands[next].rule, why, sizeof(why));
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
	int slot;

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
		if (ifc->trial->switchback) {
			out->samples = ifc->trial->sb.pairs;
			out->needed = tnr_switch_pairs_now(t, ifc);
			break;
		}
		out->samples = ifc->trial->retest == 1 ? ifc->trial->base.n : ifc->trial->obs.n;
		out->needed =
			ifc->trial->retest == 1 ? baseline_needed(t, ifc) : observe_needed(t, ifc);
		break;
	default:
		out->samples = ifc->win.n;
		out->needed = baseline_needed(t, ifc);
		break;
	}
	out->in_trial = ifc->in_trial;
	if (ifc->in_trial) {
		out->trial = ifc->trial->start;
		memcpy(out->trial.changes, ifc->trial->chg, sizeof(out->trial.changes));
		out->trial_started_ms = ifc->trial->started_ms;
	}
	/* [knob][...] rows: the tuner keeps its TUNER_KNOBS slots, the API has every knob. */
	for (slot = 0; slot < TUNER_KNOBS; slot++) {
		enum knob_id k = tnr_slot_knob(slot);

		if (!ifc->memo)
			break; /* none yet: the zeros of *out */
		memcpy(out->backoff[k], ifc->memo->backoff[slot], sizeof(ifc->memo->backoff[slot]));
		memcpy(out->decisions[k], ifc->memo->decisions[slot],
		       sizeof(ifc->memo->decisions[slot]));
	}
	return 0;
}

int tuner_iface_state(const struct tuner *t, int ifindex)
{
	const struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	return ifc ? (int)ifc->state : -ENOENT;
}
