// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the tuner decides, carried out (tune_act.h): its trials, steps and rollbacks set
 * through the actuator on the interface and the devices its changes reach, its verdicts
 * ended in the journal, and the operations a crash left in flight rolled back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "pods.h"
#include "rtltune/actuate.h"
#include "trust.h"
#include "tune_act.h"

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

/* The interface and the devices its changes reach in stack st (pods_stack()), as the last
 * read saw them: its uppers, its lowers (a pair tuned together, tune-with-master, changed
 * them too) and its veth peer in a pod. The journal's records say which a trial reached. */
static unsigned int stack_nics(const struct iface *ifc, const struct nic_stack *st,
			       struct nic nics[PLAN_SET_MAX], int levels[PLAN_SET_MAX])
{
	unsigned int n = 1, u;

	nics[0] = *iface_snap(ifc);
	levels[0] = 0;
	for (u = 0; u < st->n_uppers && n < PLAN_SET_MAX; u++) {
		levels[n] = (int)u + 1;
		nic_from_link_only(&st->uppers[u].li, &nics[n]);
		nics[n++].ns = ifc->ns; /* a stack is within one namespace */
	}
	for (u = 0; u < st->n_lowers && n < PLAN_SET_MAX; u++) {
		levels[n] = -1;
		nic_from_link_only(&st->lowers[u].li, &nics[n]);
		nics[n++].ns = ifc->ns;
	}
	/* Raised after the veth, lowered before it, as plan_stack() orders it. */
	if (st->has_peer && n < PLAN_SET_MAX) {
		levels[n] = 1;
		nic_from_link_only(&st->peer.li, &nics[n]);
		nics[n++].ns = st->peer.ns;
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
	struct nic_stack stbuf;
	const struct nic_stack *st;
	const struct link_info *links;
	struct rterr err = {0};
	unsigned int i, n = 1;
	int r, k, n_links;

	set[0].after_valid = false;
	set[0].rerouted[0] = '\0';
	st = pods_stack(ifc, &links, &n_links, &stbuf);
	if (a->kind == TUNER_ROLLBACK) {
		unsigned int nn = stack_nics(ifc, st, nics, levels);

		r = actuate_rollback(rtd.act, j, nics, levels, nn, &opts, set, &err);
		n = nn;
		goto done;
	}
	for (k = 0; k < KNOB__COUNT; k++)
		targets[k] = want[k] = LINK_UNSET;
	for (i = 0; i < a->n_changes; i++) {
		enum knob_id kk = a->changes[i].knob;
		int64_t to = a->changes[i].to, own = iface_snap(ifc)->val[kk];

		want[kk] = to;
		/* A raise of the effective size never lowers the interface itself. */
		targets[kk] = to > iface_eff(ifc, kk) && own > to ? own : to;
		which[kk] = true;
	}
	r = plan_device(iface_snap(ifc), rtd.chips, &req, st, links, n_links, set, &n, &err);
	if (r == 0)
		r = actuate_set(rtd.act, j, set, n, &opts, &err);
done:
	/* Its own change: the read-back, or a fresh read, is what rtltuned set (on the
	 * uppers and the pod's peer too, each in its own namespace). */
	for (i = 1; i < n && i < PLAN_SET_MAX; i++)
		if (set[i].after_valid && iface_by_dev(set[i].ns, set[i].ifindex))
			iface_update(iface_by_dev(set[i].ns, set[i].ifindex), &set[i].after);
	if (set[0].after_valid)
		iface_update(ifc, &set[0].after);
	else
		iface_refresh(ifc);
	if (r == 0 && set[0].rerouted[0])
		dlog(LOG_INFO, ifc->name, "%s", set[0].rerouted);
	if (r == 0) {
		free(ifc->m->reroute_note);
		ifc->m->reroute_note = set[0].reroute_failed ? strdup(set[0].rerouted) : NULL;
	}
	if (r < 0)
		dlog(LOG_WARNING, ifc->name, "tuner: %s", err.msg);
	return r == 0;
}

/* A decision that changes nothing: logged, and a kept or abandoned trial ends on every
 * device it reached. */
static void conclude(struct iface *ifc, struct journal *j, const struct tuner_action *a)
{
	struct journal_event ev = {
		.ifname = ifc->dev, /* the device's own name, as the actuator logs it */
		.knob = (int)a->knob,
		.old_value = a->n_changes ? a->changes[0].from : JOURNAL_NO_VALUE,
		.new_value = a->n_changes ? a->changes[0].to : JOURNAL_NO_VALUE,
		.outcome = tuner_outcome_name(a->kind),
		.reason = a->reason,
		.actor = "daemon",
	};
	struct nic nics[PLAN_SET_MAX];
	int levels[PLAN_SET_MAX];
	struct nic_stack stbuf;
	const struct link_info *links;
	struct rterr err = {0};
	int n_links;

	if (j && actuate_conclude(j, nics,
				  stack_nics(ifc, pods_stack(ifc, &links, &n_links, &stbuf), nics,
					     levels),
				  &ev,
				  a->kind != TUNER_FAILED, &err) < 0)
		dlog(LOG_WARNING, ifc->name, "tuner: ending the trial: %s", err.msg);
}

void tune_act(struct tuner *tuner, struct iface *ifc, struct tuner_action *a)
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
			if (tuner_applied(tuner, ifc->ifindex, ok, now_us() / 1000, &next) < 0)
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

/* ---- the host's knobs ------------------------------------------------------------- */

static uint32_t host_decisions[KNOB_HOST_COUNT][OUTCOME__COUNT];

uint32_t tune_host_decisions(enum knob_id k, enum decision_outcome o)
{
	return knob_is_host(k) && (unsigned int)o < OUTCOME__COUNT
		       ? host_decisions[k - KNOB_FIRST_HOST][o]
		       : 0;
}

/*
 * A host trial's values through the actuator, on the host's own plan (no stack: nothing
 * sits above a host-wide knob); a ROLLBACK puts back the pre-values the journal's host
 * record holds. *after: the read-back.
 */
static bool host_set(struct journal *j, const struct tuner_action *a, struct nic *after)
{
	struct act_opts opts = {
		.op = "trial",
		.actor = "daemon",
		.outcome = tuner_outcome_name(a->kind),
		.reason = a->reason,
		.journal_originals = true,
		.keep_inflight = a->kind != TUNER_ROLLBACK,
	};
	int64_t targets[KNOB__COUNT];
	bool which[KNOB__COUNT] = {0};
	struct plan_request req = {
		.targets = targets, .which = which, .src = "tuner", .refuse_skip = true};
	static const struct nic_stack none;
	/* plan_device() takes room for a stack (PLAN_SET_MAX plans of some 15 KiB). */
	struct plan *set = calloc(PLAN_SET_MAX, sizeof(*set));
	struct nic host;
	struct rterr err = {0};
	unsigned int i, n = 1;
	int level = 0, r, k;

	if (!set) {
		dlog(LOG_WARNING, KNOB_HOST_NAME, "tuner: out of memory");
		return false;
	}
	actuator_host_snapshot(rtd.act, &host);
	if (a->kind == TUNER_ROLLBACK) {
		r = actuate_rollback(rtd.act, j, &host, &level, 1, &opts, set, &err);
	} else {
		for (k = 0; k < KNOB__COUNT; k++)
			targets[k] = LINK_UNSET;
		for (i = 0; i < a->n_changes; i++) {
			targets[a->changes[i].knob] = a->changes[i].to;
			which[a->changes[i].knob] = true;
		}
		r = plan_device(&host, NULL, &req, &none, NULL, 0, set, &n, &err);
		if (r == 0)
			r = actuate_set(rtd.act, j, set, 1, &opts, &err);
	}
	if (set[0].after_valid)
		*after = set[0].after;
	else
		actuator_host_snapshot(rtd.act, after);
	free(set);
	if (r < 0)
		dlog(LOG_WARNING, KNOB_HOST_NAME, "tuner: %s", err.msg);
	return r == 0;
}

void tune_act_host(struct tuner *tuner, struct tuner_action *a, struct nic *after)
{
	struct journal *j = NULL;
	struct rterr err = {0};
	unsigned int rounds;
	char from[24], to[24];

	if (a->kind == TUNER_NONE)
		return;
	if (trust_journal_open(TUNE_LOCK_WAIT_MS, &j, &err) < 0 && err.errnum != EBADMSG)
		dlog(LOG_WARNING, KNOB_HOST_NAME, "tuner: %s", err.msg);
	for (rounds = 0; a->kind != TUNER_NONE && rounds < 8; rounds++) {
		struct tuner_action next = {0};
		bool ok;

		if (!(a->kind == TUNER_ROLLBACK && a->retry) && knob_is_host(a->knob)) {
			host_decisions[a->knob - KNOB_FIRST_HOST][outcome_of(a->kind)]++;
			state_changed();
		}
		dlog(LOG_NOTICE, KNOB_HOST_NAME, "tuner %s %s %s -> %s: %s",
		     tuner_outcome_name(a->kind), knob_name(a->knob),
		     knob_value_str(a->knob, a->n_changes ? a->changes[0].from : LINK_UNSET, from,
				    sizeof(from)),
		     knob_value_str(a->knob, a->n_changes ? a->changes[0].to : LINK_UNSET, to,
				    sizeof(to)),
		     a->reason);
		if (a->kind == TUNER_START_TRIAL || a->kind == TUNER_STEP ||
		    a->kind == TUNER_ROLLBACK) {
			ok = j && host_set(j, a, after);
			if (tuner_applied(tuner, TUNER_HOST, ok, now_us() / 1000, &next) < 0)
				break;
			*a = next;
			continue;
		}
		if ((a->kind == TUNER_KEEP || a->kind == TUNER_ABANDON || a->kind == TUNER_FAILED) &&
		    j) {
			struct journal_event ev = {
				.ifname = KNOB_HOST_NAME,
				.knob = (int)a->knob,
				.old_value = a->n_changes ? a->changes[0].from : JOURNAL_NO_VALUE,
				.new_value = a->n_changes ? a->changes[0].to : JOURNAL_NO_VALUE,
				.outcome = tuner_outcome_name(a->kind),
				.reason = a->reason,
				.actor = "daemon",
			};
			struct nic host;

			actuator_host_snapshot(rtd.act, &host);
			if (actuate_conclude(j, &host, 1, &ev, a->kind != TUNER_FAILED, &err) < 0)
				dlog(LOG_WARNING, KNOB_HOST_NAME, "tuner: ending the trial: %s",
				     err.msg);
		}
		break;
	}
	journal_close(j);
}

/* The interface a journal record is about, if it is here. */
static struct iface *iface_of(const struct journal_ident *rec)
{
	struct journal_ident id;
	struct iface *ifc;

	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (iface_ident(ifc, &id, NULL) == 0 &&
		    journal_ident_same(rec, &id))
			return ifc;
	return NULL;
}

void tune_recover_orphans(struct iface *only)
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
		bool host = journal_ident_is_host(&op->id);
		struct iface *ifc = host ? NULL : iface_of(&op->id);
		const char *name = host ? KNOB_HOST_NAME : ifc ? ifc->name : NULL;
		struct journal_ident here;
		struct plan plan;
		struct nic nic;
		int r;

		/* The host's knobs: a record of this boot's initial netns, when that is ours. */
		if (host) {
			journal_ident_host(&here);
			if (only || !journal_ident_same(&op->id, &here))
				continue;
			actuator_host_snapshot(rtd.act, &nic);
		} else if (!ifc || (only && ifc != only) ||
			   iface_snapshot(ifc, &nic, &err) < 0) {
			continue; /* not here (another netns, unplugged): left for later */
		}
		r = actuate_orphan(rtd.act, j, op, &nic, &plan, &err);
		if (r < 0) {
			/* The record stays: the next start tries again. */
			dlog(LOG_ERR, name, "rolling back an interrupted %s: %s", op->op, err.msg);
			continue;
		}
		if (r == ACT_ORPHAN_NOTHING_LEFT)
			dlog(LOG_NOTICE, name,
			     "the %s that was in flight when %s (pid %d) stopped left nothing to "
			     "roll back: every knob it touched is at its original",
			     op->op, op->actor, (int)op->pid);
		else
			dlog(LOG_NOTICE, name,
			     "rolled back the %s that was in flight when %s (pid %d) stopped",
			     op->op, op->actor, (int)op->pid);
		if (ifc)
			iface_refresh(ifc);
	}
	free(orphans);
	journal_close(j);
}
