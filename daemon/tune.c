// SPDX-License-Identifier: GPL-2.0-only
/*
 * The autotuner wired into the daemon (docs/tuning.md): lib/tuner/tuner.c decides, this file
 * feeds it one sample per managed interface per sample interval and carries out what it
 * says through the actuator, which keeps a trial's pre-values in flight in the journal
 * until the verdict, so that a crash mid-trial is rolled back at the next start.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/cpustat.h"
#include "rtltune/sample.h"
#include "rtltune/tcpstat.h"
#include "rtltune/tuner.h"
#include "trust.h"
#include "tune.h"

#define TUNE_LOCK_WAIT_MS 300

static struct tuner *tuner;
static uint64_t cpu_ns_delta, cpu_ns_prev;
/* TCP's counters for the namespace at the last sample (tcp_prev), and its retransmitted
 * segments and those DSACKed as spurious over the last two sample intervals (tcp_w_*),
 * the share tcpstat_lossy() takes off; both 0 when unknown. Two intervals: a DSACK comes
 * a round trip after its retransmit, often in the next sample. */
static struct tcpstat tcp_prev;
static bool tcp_prev_valid, tcp_warned;
static uint64_t tcp_d_retrans, tcp_d_dsack, tcp_w_retrans, tcp_w_dsack;

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

static enum decision_outcome outcome_of(enum tuner_action_kind k)
{
	switch (k) {
	case TUNER_START_TRIAL:
		return OUTCOME_TRIAL;
	case TUNER_KEEP:
		return OUTCOME_KEPT;
	case TUNER_ROLLBACK:
		return OUTCOME_ROLLED_BACK;
	case TUNER_ABANDON:
		return OUTCOME_ABANDONED;
	case TUNER_STEP:
		return OUTCOME_STEP;
	default:
		return OUTCOME_FAILED;
	}
}

/* One decision: counted and logged (the journal's log gets it from the actuator). */
static void record(struct iface *ifc, const struct tuner_action *a)
{
	char from[24], to[24];

	if (!(a->kind == TUNER_ROLLBACK && a->retry))
		iface_count_decision(ifc, a->knob, outcome_of(a->kind));
	/* knob_value_str() returns "on"/"off" for a feature without touching the buffer. */
	dlog(LOG_NOTICE, ifc->name, "tuner %s %s %s -> %s: %s", tuner_outcome_name(a->kind),
	     knob_name(a->knob),
	     knob_value_str(a->knob, a->n_changes ? a->changes[0].from : LINK_UNSET, from,
			    sizeof(from)),
	     knob_value_str(a->knob, a->n_changes ? a->changes[0].to : LINK_UNSET, to, sizeof(to)),
	     a->reason);
}

/* The interface and the devices its changes reach, as the last read saw them. */
static unsigned int stack_nics(const struct iface *ifc, struct nic nics[PLAN_SET_MAX],
			       int levels[PLAN_SET_MAX])
{
	unsigned int n = 1, u;

	nics[0] = ifc->m->snap;
	levels[0] = 0;
	for (u = 0; u < ifc->m->stack.n_uppers && n < PLAN_SET_MAX; u++) {
		levels[n] = (int)u + 1;
		nic_from_link_only(&ifc->m->stack.uppers[u].li, &nics[n++]);
	}
	/* A pair tuned together (tune-with-master) changed its lowers too; the journal's
	 * records say which devices a trial reached. */
	for (u = 0; u < ifc->m->stack.n_lowers && n < PLAN_SET_MAX; u++) {
		levels[n] = -1;
		nic_from_link_only(&ifc->m->stack.lowers[u].li, &nics[n++]);
	}
	return n;
}

/*
 * Set the action's values through the actuator, on the interface and the uppers that carry
 * its traffic (docs/stack.md). The tuner asks for a size of what the traffic gets (the
 * effective value, the smallest on the path): a raise takes every device of the stack to
 * at least that, lowering none; a decrease takes every device down to it. A trial (START_
 * TRIAL, STEP) stays in flight in the journal with the pre-trial values until the verdict;
 * a ROLLBACK puts back, on every device the trial reached, the pre-values its records hold.
 * The plan starts from the snapshot this sample took, and the read-back becomes the
 * interface's next one.
 */
static bool set_values(struct iface *ifc, struct journal *j, const struct tuner_action *a)
{
	struct act_opts opts = {
		.op = "trial",
		.actor = "daemon",
		.outcome = tuner_outcome_name(a->kind),
		.reason = a->reason,
		.journal_originals = true,
		.keep_inflight = a->kind != TUNER_ROLLBACK,
	};
	int64_t targets[KNOB__COUNT], want[KNOB__COUNT];
	bool which[KNOB__COUNT] = {0};
	struct plan_request req = {.targets = targets,
				   .which = which,
				   .src = "tuner",
				   .want = want,
				   .refuse_skip = true};
	struct plan set[PLAN_SET_MAX];
	struct nic nics[PLAN_SET_MAX];
	int levels[PLAN_SET_MAX];
	struct rterr err = {0};
	unsigned int i, n = 1;
	int r, k;

	set[0].after_valid = false;
	set[0].rerouted[0] = '\0';
	if (iface_stacked(ifc))
		iface_read_stack(ifc);
	if (a->kind == TUNER_ROLLBACK) {
		unsigned int nn = stack_nics(ifc, nics, levels);

		r = actuate_rollback(rtd.act, j, nics, levels, nn, &opts, set, &err);
		n = nn;
		goto done;
	}
	for (k = 0; k < KNOB__COUNT; k++)
		targets[k] = want[k] = LINK_UNSET;
	for (i = 0; i < a->n_changes; i++) {
		enum knob_id kk = a->changes[i].knob;
		int64_t to = a->changes[i].to, own = ifc->m->snap.val[kk];

		want[kk] = to;
		/* A raise of the effective size never lowers the interface itself. */
		targets[kk] = to > ifc->m->eff[kk] && own > to ? own : to;
		which[kk] = true;
	}
	r = plan_device(&ifc->m->snap, rtd.chips, &req, &ifc->m->stack, ifc->m->stack_links,
			ifc->m->n_stack_links, set, &n, &err);
	if (r == 0)
		r = actuate_set(rtd.act, j, set, n, &opts, &err);
done:
	/* Its own change: the read-back, or a fresh read, is what rtltuned set (on the
	 * uppers too). */
	for (i = 1; i < n && i < PLAN_SET_MAX; i++)
		if (set[i].after_valid && iface_by_index(set[i].ifindex))
			iface_update(iface_by_index(set[i].ifindex), &set[i].after);
	if (set[0].after_valid)
		iface_update(ifc, &set[0].after);
	else
		iface_refresh(ifc);
	if (r == 0 && set[0].rerouted[0])
		dlog(LOG_INFO, ifc->name, "%s", set[0].rerouted);
	if (r == 0)
		snprintf(ifc->m->reroute_note, sizeof(ifc->m->reroute_note), "%s",
			 set[0].reroute_failed ? set[0].rerouted : "");
	if (r < 0)
		dlog(LOG_WARNING, ifc->name, "tuner: %s", err.msg);
	return r == 0;
}

/* A decision that changes nothing: logged, and a kept or abandoned trial ends on every
 * device it reached. */
static void conclude(struct iface *ifc, struct journal *j, const struct tuner_action *a)
{
	struct journal_event ev = {
		.ifname = ifc->name,
		.knob = (int)a->knob,
		.old_value = a->n_changes ? a->changes[0].from : JOURNAL_NO_VALUE,
		.new_value = a->n_changes ? a->changes[0].to : JOURNAL_NO_VALUE,
		.outcome = tuner_outcome_name(a->kind),
		.reason = a->reason,
		.actor = "daemon",
	};
	struct nic nics[PLAN_SET_MAX];
	int levels[PLAN_SET_MAX];
	struct rterr err = {0};

	if (j && actuate_conclude(j, nics, stack_nics(ifc, nics, levels), &ev,
				  a->kind != TUNER_FAILED, &err) < 0)
		dlog(LOG_WARNING, ifc->name, "tuner: ending the trial: %s", err.msg);
}

/* Carry out an action and the ones that follow from its result, in one journal lock. */
static void act(struct iface *ifc, struct tuner_action *a)
{
	struct journal *j = NULL;
	struct rterr err = {0};
	unsigned int rounds;

	if (a->kind == TUNER_NONE)
		return;
	/* An untrusted journal was logged once by trust.c; a rollback waiting for it is
	 * given again at every sample, which would repeat it. */
	if (trust_journal_open(TUNE_LOCK_WAIT_MS, &j, &err) < 0 && err.errnum != EBADMSG)
		dlog(LOG_WARNING, ifc->name, "tuner: %s", err.msg);
	for (rounds = 0; a->kind != TUNER_NONE && rounds < 8; rounds++) {
		struct tuner_action next = {0};
		bool ok;

		record(ifc, a);
		switch (a->kind) {
		case TUNER_START_TRIAL:
		case TUNER_STEP:
		case TUNER_ROLLBACK:
			ok = j && set_values(ifc, j, a);
			if (tuner_applied(tuner, ifc->ifindex, ok, now_ms(), &next) < 0)
				goto out;
			*a = next;
			continue;
		case TUNER_KEEP:
		case TUNER_ABANDON:
		case TUNER_FAILED:
			conclude(ifc, j, a);
			break;
		default:
			break;
		}
		break;
	}
out:
	journal_close(j);
}

static void recover_orphans(struct iface *only);

static void track(struct iface *ifc)
{
	if (!tuner)
		return;
	if (ifc->managed && !ifc->m->tune.tuned) {
		if (tuner_iface_add(tuner, ifc->ifindex, ifc->name) == 0)
			ifc->m->tune.tuned = true;
		ifc->m->tune.prev_valid = false;
		ifc->m->tune.retrans_segs = ifc->m->tune.retrans_spurious = 0;
	}
}

/* No longer managed (or going): a trial in progress is rolled back first. */
static void untrack(struct iface *ifc, const char *why)
{
	struct tuner_action a = {0};

	if (!tuner || !ifc->m || !ifc->m->tune.tuned)
		return;
	if (why && tuner_abort(tuner, ifc->ifindex, now_ms(), why, &a) == 0)
		act(ifc, &a);
	tuner_iface_remove(tuner, ifc->ifindex);
	ifc->m->tune.tuned = false;
}

void tune_iface_event(struct iface *ifc, const struct iface_change *c)
{
	struct tuner_action a = {0};

	switch (c->ev) {
	case IFACE_NEW:
	case IFACE_SELECTED:
		if (ifc->managed)
			track(ifc);
		else if (c->was_managed)
			untrack(ifc, "no longer managed");
		break;
	case IFACE_RENAMED:
		if (tuner && ifc->m && ifc->m->tune.tuned)
			tuner_iface_rename(tuner, ifc->ifindex, ifc->name);
		break;
	case IFACE_AUTOTUNE:
		/* After `autotune off`: a trial in progress is rolled back now. */
		if (tuner && ifc->m && ifc->m->tune.tuned && !ifc->autotune &&
		    tuner_abort(tuner, ifc->ifindex, now_ms(), "autotune off", &a) == 0)
			act(ifc, &a);
		break;
	case IFACE_GONE:
		/* Gone: nothing to roll back on it (the applier forgets its records). */
		untrack(ifc, NULL);
		break;
	default:
		break;
	}
}

/* Retransmits that reordering caused are not loss: the receiver got the segment twice
 * and said so with a DSACK (docs/tuning.md "Spurious retransmits"). */
static void tcp_sample(void)
{
	uint64_t d_retrans = 0, d_dsack = 0;
	struct tcpstat t;
	int rc = tcpstat_read(&t);

	if (rc < 0 || !t.have_dsack) {
		if (!tcp_warned)
			dlog(LOG_INFO, NULL,
			     "TCP's DSACK count unavailable (%s): the tuner takes every "
			     "retransmit for loss, spurious ones included",
			     rc < 0 ? strerror(-rc) : "no TCPDSACKRecvSegs in /proc/net/netstat");
		tcp_warned = true;
	} else {
		if (tcp_prev_valid) {
			d_retrans = counter_delta(t.retrans_segs, tcp_prev.retrans_segs);
			d_dsack = counter_delta(t.dsack_recv_segs, tcp_prev.dsack_recv_segs);
		}
		tcp_prev = t;
		tcp_prev_valid = true;
	}
	tcp_w_retrans = tcp_d_retrans + d_retrans;
	tcp_w_dsack = tcp_d_dsack + d_dsack;
	tcp_d_retrans = d_retrans;
	tcp_d_dsack = d_dsack;
}

void tune_sample_begin(void)
{
	uint64_t ns;

	if (tuner)
		tcp_sample();
	/* Kernel time of all CPUs: where the network stack's cost shows. */
	if (cpustat_kernel_ns(&ns) < 0)
		return;
	cpu_ns_delta = sample_cpu_delta(ns, cpu_ns_prev);
	cpu_ns_prev = ns;
}

/* The interface's totals as the sampler stored them (sampler.c). */
static void reading_of(const struct iface_stats *st, struct sample_reading *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->tx_packets = st->counter[SC_TX_PACKETS];
	r->tx_bytes = st->counter[SC_TX_BYTES];
	r->rx_packets = st->counter[SC_RX_PACKETS];
	r->rx_bytes = st->counter[SC_RX_BYTES];
	r->have_probes = st->have_hist;
	r->tx_skb_bytes = st->hist[SH_TX_SKB_BYTES];
	r->tx_gso_segments = st->hist[SH_TX_GSO_SEGMENTS];
	r->rx_skb_bytes = st->hist[SH_RX_SKB_BYTES];
	r->tcp_retransmits = st->counter[SC_TCP_RETRANSMITS];
	r->tcp_retransmit_segments = st->counter[SC_TCP_RETRANSMIT_SEGMENTS];
	for (i = 0; i < st->n_drops; i++)
		r->drops += st->drops[i].count;
	r->tx_busy = st->counter[SC_TX_BUSY];
	r->tx_timeouts = st->counter[SC_TX_TIMEOUTS];
}

void tune_sample(struct iface *ifc, uint64_t now)
{
	struct iface_tune *tp;
	struct sample_reading now_r;
	struct tuner_sample s = {0};
	struct tuner_env env = {0};
	struct tuner_action a = {0};
	uint64_t seg;
	int k;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned)
		return;
	if (ifc->m->tune.recover) {
		ifc->m->tune.recover = false;
		recover_orphans(ifc);
	}
	/* Uppers' sizes change without a notification (rtnetlink sends none for them). */
	if (iface_stacked(ifc))
		iface_read_stack(ifc);
	tp = &ifc->m->tune;
	reading_of(&ifc->m->stats, &now_r);
	if (tp->prev_valid) {
		struct sample_env se = {
			.interval_us = now - tp->prev_us,
			.cpu_ns = cpu_ns_delta,
			.gso_max_size = ifc->m->eff[KNOB_GSO_MAX_SIZE],
			.gro_max_size = iface_knob(ifc, KNOB_GRO_MAX_SIZE),
			.ns_retrans = tcp_w_retrans,
			.ns_dsack = tcp_w_dsack,
		};

		sample_build(&s, &tp->prev, &now_r, &se, &seg);
		s.ts_ms = now / 1000;
		tp->retrans_segs += seg;
		tp->retrans_spurious += seg - s.tcp_retransmits;
	}
	tp->prev = now_r;
	tp->prev_us = now;
	if (!tp->prev_valid) {
		tp->prev_valid = true;
		return;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		/* What the traffic gets: the smallest value on the device stack. */
		env.knob[k] = ifc->m->eff[k];
		/* Pinned by the admin, or fixed by the driver ("[fixed]"). */
		env.pinned[k] = rtd.cfg.pin[k] || ifc->m->snap.fixed[k];
		env.manual[k] = ifc->m->manual[k];
	}
	env.gso_max = ifc->m->gso_max;
	if (ifc->m->stack_gso_cap != LINK_UNSET && ifc->m->stack_gso_cap < env.gso_max) {
		env.gso_max = ifc->m->stack_gso_cap;
		snprintf(env.limit_note, sizeof(env.limit_note), "%s", ifc->m->stack_note);
	} else if (ifc->m->reroute_note[0]) {
		snprintf(env.limit_note, sizeof(env.limit_note), "%s", ifc->m->reroute_note);
	}
	env.gro_max = ifc->m->gro_max;
	env.mtu_max = ifc->m->mtu_max;
	env.allowed_mtu_min = rtd.cfg.allowed_mtu_min;
	env.allowed_mtu_max = rtd.cfg.allowed_mtu_max;
	env.quirks = ifc->m->quirks;
	/* Paused (a sweep measures), or a journal that cannot record originals: samples go
	 * on, trials do not. */
	env.autotune = ifc->autotune && !tp->paused && trust_ok();
	if (tuner_feed(tuner, ifc->ifindex, &s, &env, now / 1000, &a) == 0)
		act(ifc, &a);
}

int tune_start(struct rterr *err)
{
	struct iface *ifc;
	int r;

	r = tuner_new(&rtd.cfg.tuner, &tuner, err);
	if (r < 0)
		return r;
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->managed)
			track(ifc);
	return 0;
}

void tune_stop(const char *why)
{
	struct iface *ifc;

	if (!tuner)
		return;
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		untrack(ifc, why);
	tuner_free(tuner);
	tuner = NULL;
}

/* The interface a journal record is about, if it is here. */
static struct iface *iface_of(const struct journal_ident *rec)
{
	struct journal_ident id;
	struct iface *ifc;

	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (journal_ident_read_index(ifc->ifindex, ifc->name, &id, NULL) == 0 &&
		    journal_ident_same(rec, &id))
			return ifc;
	return NULL;
}

/*
 * journal.h: an operation whose process is gone must be rolled back (its pre-values set)
 * before anything else touches the device. A trial the daemon was running when it was
 * killed is the common case; an `rtltune apply` or `sweep` killed mid-way is handled the
 * same way. only: that interface's records alone (NULL: every interface here).
 */
static void recover_orphans(struct iface *only)
{
	const struct journal_inflight *ops;
	struct journal_inflight *orphans;
	struct journal *j = NULL;
	struct rterr err = {0};
	int n, i, k = 0, opened;

	/* Untrusted: said once, with what to do, by trust.c; the records wait for the file. */
	opened = trust_journal_open(TUNE_LOCK_WAIT_MS, &j, &err);
	if (opened == -EBADMSG)
		return;
	if (opened < 0) {
		dlog(LOG_WARNING, only ? only->name : NULL,
		     "operations a crash left in flight not looked at: %s (again on reload)",
		     err.msg);
		return;
	}
	/* Copies: every change rewrites the journal's own array. */
	n = journal_inflight_list(j, &ops);
	orphans = calloc((size_t)n + 1, sizeof(*orphans));
	for (i = 0; orphans && i < n; i++)
		if (ops[i].orphaned)
			orphans[k++] = ops[i];
	for (i = 0; i < k; i++) {
		const struct journal_inflight *op = &orphans[i];
		struct iface *ifc = iface_of(&op->id);
		struct plan plan;
		struct nic nic;
		int r;

		if (!ifc || (only && ifc != only) ||
		    actuator_snapshot(rtd.act, ifc->ifindex, &nic, &err) < 0)
			continue; /* not here (another netns, unplugged): left for later */
		r = actuate_orphan(rtd.act, j, op, &nic, &plan, &err);
		if (r < 0) {
			/* The record stays: the next start tries again. */
			dlog(LOG_ERR, ifc->name, "rolling back an interrupted %s: %s", op->op,
			     err.msg);
			continue;
		}
		if (r == ACT_ORPHAN_NOTHING_LEFT)
			dlog(LOG_NOTICE, ifc->name,
			     "the %s that was in flight when %s (pid %d) stopped left nothing to "
			     "roll back: every knob it touched is at its original",
			     op->op, op->actor, (int)op->pid);
		else
			dlog(LOG_NOTICE, ifc->name,
			     "rolled back the %s that was in flight when %s (pid %d) stopped",
			     op->op, op->actor, (int)op->pid);
		iface_refresh(ifc);
	}
	free(orphans);
	journal_close(j);
}

void tune_recover_orphans(void)
{
	recover_orphans(NULL);
}

int tune_pause(struct iface *ifc, bool on, const char *by)
{
	struct iface_tune *tp;
	struct tuner_action a = {0};
	char why[160];

	if (!ifc->m)
		return -ENOENT;
	tp = &ifc->m->tune;
	if (!on) {
		if (tp->paused && --tp->paused == 0) {
			tp->paused_by[0] = '\0';
			/* Its operation ended, or its process died with it in flight: looked at
			 * by the next sample, since a killed client's socket closes before the
			 * kernel has made it a zombie, and until then its record is a live one. */
			tp->recover = true;
			tp->prev_valid = false;
		}
		return 0;
	}
	if (!tp->paused++)
		snprintf(tp->paused_by, sizeof(tp->paused_by), "%s", by);
	snprintf(why, sizeof(why), "tuner paused by %s", by);
	if (tuner && tp->tuned && tuner_abort(tuner, ifc->ifindex, now_ms(), why, &a) == 0 &&
	    a.kind != TUNER_NONE) {
		act(ifc, &a);
		return 1;
	}
	return 0;
}

static json_object *changes_json(const struct tuner_change *c, unsigned int n)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "knob", json_object_new_string(knob_name(c[i].knob)));
		json_object_object_add(o, "from", json_object_new_int64(c[i].from));
		json_object_object_add(o, "to", json_object_new_int64(c[i].to));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *tune_status_json(const struct iface *ifc)
{
	struct tuner_iface_info info;
	json_object *o, *r;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned ||
	    tuner_iface_info(tuner, ifc->ifindex, &info) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(info.state)));
	json_object_object_add(o, "paused_by",
			       ifc->m->tune.paused ? json_object_new_string(ifc->m->tune.paused_by)
						   : NULL);
	json_object_object_add(o, "samples", json_object_new_int((int)info.samples));
	json_object_object_add(o, "needed", json_object_new_int((int)info.needed));
	if (info.in_trial) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "rule",
				       json_object_new_string(tuner_rule_name(info.trial.rule)));
		json_object_object_add(t, "knob",
				       json_object_new_string(knob_name(info.trial.knob)));
		json_object_object_add(t, "changes",
				       changes_json(info.trial.changes, info.trial.n_changes));
		json_object_object_add(t, "reason", json_object_new_string(info.trial.reason));
		json_object_object_add(o, "trial", t);
	} else {
		json_object_object_add(o, "trial", NULL);
	}
	r = json_object_new_object();
	json_object_object_add(r, "counted", json_object_new_uint64(ifc->m->tune.retrans_segs));
	json_object_object_add(r, "spurious",
			       json_object_new_uint64(ifc->m->tune.retrans_spurious));
	json_object_object_add(o, "retransmit_segments", r);
	return o;
}

json_object *tune_recommend_json(const struct iface *ifc)
{
	struct tuner_recommendation rec;
	json_object *o, *cands;
	unsigned int i;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned ||
	    tuner_recommend(tuner, ifc->ifindex, now_ms(), &rec) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(rec.state)));
	json_object_object_add(o, "samples", json_object_new_int((int)rec.samples));
	json_object_object_add(o, "needed", json_object_new_int((int)rec.needed));
	json_object_object_add(o, "summary", json_object_new_string(rec.summary));
	cands = json_object_new_array();
	for (i = 0; i < TUNER_RULE__COUNT; i++) {
		const struct tuner_candidate *c = &rec.cands[i];
		json_object *co = json_object_new_object();

		json_object_object_add(co, "rule",
				       json_object_new_string(tuner_rule_name(c->rule)));
		json_object_object_add(co, "status",
				       json_object_new_string(tuner_cand_status_name(c->status)));
		json_object_object_add(co, "knob", json_object_new_string(knob_name(c->knob)));
		json_object_object_add(co, "dir", json_object_new_string(tuner_dir_name(c->dir)));
		json_object_object_add(co, "changes", changes_json(c->changes, c->n_changes));
		json_object_object_add(co, "reason", json_object_new_string(c->reason));
		json_object_object_add(co, "next", json_object_new_boolean((int)i == rec.next));
		json_object_array_add(cands, co);
	}
	json_object_object_add(o, "candidates", cands);
	return o;
}
