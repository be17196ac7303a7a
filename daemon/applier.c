// SPDX-License-Identifier: GPL-2.0-only
/*
 * Profile applications and restores in rtltuned (applier.h): the same plans and the same
 * actuator `rtltune apply` and `rtltune restore` run, so one code path changes a NIC.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier.h"
#include "log.h"
#include "loop.h"
#include "outside.h"
#include "pods.h"
#include "rtltune/actuate.h"
#include "rtltune/netns.h"
#include "rtltune/profile.h"
#include "trust.h"

/*
 * The journal lock is shared with `rtltune apply`. The daemon's loop must not stall
 * behind it for JOURNAL_LOCK_TIMEOUT_MS: a short wait, and a hotplug apply that loses
 * the race is retried a second later.
 */
#define DAEMON_LOCK_WAIT_MS   300
#define DAEMON_APPLY_RETRY_US 1000000

/* Count and log what a run did, knob by knob, on the interface and the uppers it reached. */
static void account(struct iface *ifc, const struct plan *set, unsigned int n, int rc,
		    const char *why)
{
	char a[24], b[24], who[IFACE_NAME_MAX];
	unsigned int u;
	int k;

	if (ifc->m)
		ifc->m->apply.changes = 0;
	for (u = 0; u < n; u++) {
		const struct plan *plan = &set[u];

		for (k = 0; k < KNOB__COUNT; k++) {
			const struct plan_item *it = &plan->items[k];
			enum decision_outcome o;

			if (it->action != PLAN_CHANGE)
				continue;
			if (it->changed && !it->undone && rc == 0)
				o = OUTCOME_APPLIED;
			else if (it->undone)
				o = OUTCOME_ROLLED_BACK;
			else
				o = OUTCOME_FAILED;
			if (u == 0)
				iface_count_decision(ifc, (enum knob_id)k, o);
			if (o != OUTCOME_APPLIED)
				continue;
			if (ifc->m)
				ifc->m->apply.changes++;
			/* A pod's devices are named NETNS/IFACE, as the table names them (a
			 * node's veth's peer too, planned with it in its pod's namespace). */
			snprintf(who, sizeof(who), "%s%s%s", plan->ns ? netns_name(plan->ns) : "",
				 plan->ns ? "/" : "", plan->ifname);
			dlog(LOG_NOTICE, who, "%s %s -> %s (%s%s%s)", knob_name((enum knob_id)k),
			     knob_value_str((enum knob_id)k, it->cur, a, sizeof(a)),
			     knob_value_str((enum knob_id)k, it->after, b, sizeof(b)),
			     u ? (plan->ns != set[0].ns ? "peer of " : "upper of ") : "",
			     u ? ifc->name : "", u ? "" : why);
		}
	}
	if (set[0].rerouted[0])
		dlog(LOG_INFO, ifc->name, "%s", set[0].rerouted);
	/* The read-back is the interface's new snapshot (and the uppers' theirs: what
	 * rtltuned set there is its own too); a failed run is read again. */
	for (u = 1; u < n; u++)
		if (set[u].after_valid && iface_by_dev(set[u].ns, set[u].ifindex))
			iface_update(iface_by_dev(set[u].ns, set[u].ifindex), &set[u].after);
	if (set[0].after_valid)
		iface_update(ifc, &set[0].after);
	else if (set[0].n_changes || n > 1)
		iface_refresh(ifc);
}

/*
 * What the configured profile wants (rtltune_knob_drift), and the knobs someone else
 * changed: a reload or hotplug apply leaves them alone; an explicit apply takes them back.
 */
static void hands_off(struct iface *ifc, struct plan *base, bool configured, bool explicit_apply)
{
	bool which[KNOB__COUNT];
	int k;

	for (k = 0; ifc->m && k < KNOB__COUNT; k++) {
		struct plan_item *it = &base->items[k];
		bool sets = it->action == PLAN_CHANGE || it->action == PLAN_SAME;

		which[k] = sets;
		if (configured && (sets || ifc->m->want) &&
		    (ifc->m->want || (ifc->m->want = calloc(1, sizeof(*ifc->m->want))))) {
			ifc->m->want->wanted[k] = sets;
			ifc->m->want->want[k] = it->target;
		}
		if (!explicit_apply && iface_manual(ifc, k) && it->action == PLAN_CHANGE) {
			it->action = PLAN_SKIP;
			plan_set_note(base, (enum knob_id)k,
				      "changed outside rtltune: left alone (rtltune apply or "
				      "autotune on takes it back)");
			base->n_changes--;
		}
	}
	if (explicit_apply)
		outside_clear(ifc, which);
}

/* Plan p for ifc (and the uppers it reaches) and, unless dry_run, execute it. *out gets the
 * per-interface documents (an array when an upper is in the plan, else one object).
 * explicit_apply: an admin's `rtltune apply`, which takes back knobs changed outside. */
struct hands_off_arg {
	struct iface *ifc;
	bool configured, explicit_apply;
};

static void hands_off_plan(struct plan *base, void *arg)
{
	const struct hands_off_arg *h = arg;

	hands_off(h->ifc, base, h->configured, h->explicit_apply);
}

static int run_profile(struct iface *ifc, const struct profile *p, bool dry_run,
		       bool explicit_apply, const char *why, json_object **out, struct rterr *err)
{
	struct act_opts opts = {
		.op = "apply", .actor = "daemon", .reason = why, .journal_originals = true};
	struct hands_off_arg h = {ifc, p == rtd.profile, explicit_apply};
	struct plan_request req = {
		.profile = p, .adjust = dry_run ? NULL : hands_off_plan, .arg = &h};
	struct plan set[PLAN_SET_MAX];
	struct nic_stack stbuf;
	const struct nic_stack *st;
	const struct link_info *links;
	struct journal *j = NULL;
	unsigned int n = 1, changes = 0, u;
	struct nic nic;
	int r, n_links;

	r = iface_snapshot(ifc, &nic, err);
	if (r < 0)
		return r;
	st = pods_stack(ifc, &links, &n_links, &stbuf);
	r = plan_device(&nic, rtd.chips, &req, st, links, n_links, set, &n, err);
	if (r < 0)
		return r;
	for (u = 0; u < n; u++)
		changes += set[u].n_changes;
	if (dry_run || !changes) {
		if (out)
			*out = applier_set_json(set, n, false, NULL);
		return 0;
	}
	r = trust_journal_open(DAEMON_LOCK_WAIT_MS, &j, err);
	if (r < 0)
		return r;
	r = actuate_set(rtd.act, j, set, n, &opts, err);
	journal_close(j);
	account(ifc, set, n, r, why);
	if (out)
		*out = applier_set_json(set, n, true, r < 0 ? err->msg : NULL);
	return r;
}

/* Set with any interface's apply.pending; applier_run_pending() clears it once none is. */
static bool any_pending;

static void schedule(struct iface *ifc, uint64_t delay_us)
{
	if (!rtd.cfg.profile[0] || !ifc->m)
		return;
	ifc->m->apply.pending = true;
	any_pending = true;
	ifc->m->apply.due_us = now_us() + delay_us;
}

static int apply_configured(struct iface *ifc, struct rterr *err)
{
	char why[300];
	int r;

	if (!rtd.profile)
		return rterr_input(err, "profile %s is not loaded (see the log)", rtd.cfg.profile);
	snprintf(why, sizeof(why), "profile %s", rtd.profile->name);
	r = run_profile(ifc, rtd.profile, false, false, why, NULL, err);
	if (r == -EBUSY || r == -ETIMEDOUT || r == -EAGAIN) {
		/* The journal is held by a CLI run: try again shortly rather than block. */
		dlog(LOG_INFO, ifc->name, "%s; retrying in 1 s", err->msg);
		schedule(ifc, DAEMON_APPLY_RETRY_US);
		return 0;
	}
	return r;
}

/* ---- the host-wide knobs (docs/knobs-stack.md "Host-wide knobs") ----------------------- */

/* The configured profile's host-wide knobs: due at start and after each reload. */
static struct {
	bool pending;
	uint64_t due_us;
} host_apply;

static void host_log(const struct plan *plan, int rc, const char *why)
{
	char a[24], b[24];
	int k;

	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		const struct plan_item *it = &plan->items[k];

		if (it->action != PLAN_CHANGE || !it->changed || it->undone || rc < 0)
			continue;
		dlog(LOG_NOTICE, KNOB_HOST_NAME, "%s %s -> %s (%s)", knob_name((enum knob_id)k),
		     knob_value_str((enum knob_id)k, it->cur, a, sizeof(a)),
		     knob_value_str((enum knob_id)k, it->after, b, sizeof(b)), why);
	}
}

int applier_host_apply(const struct profile *p, bool dry_run, const char *why, json_object **out,
		       struct rterr *err)
{
	struct act_opts opts = {
		.op = "apply", .actor = "daemon", .reason = why, .journal_originals = true};
	struct journal *j = NULL;
	struct plan *plan;
	struct nic host;
	bool executed = false;
	int r;

	*out = NULL;
	/* No actuator (the control socket's fuzzer runs the handlers without one): nothing
	 * may read or change the host here. */
	if (!profile_sets_host(p) || !rtd.act)
		return 0;
	plan = malloc(sizeof(*plan));
	if (!plan)
		return rterr_sys(err, ENOMEM, "host");
	actuator_host_snapshot(rtd.act, &host);
	r = plan_profile(p, &host, NULL, plan, err);
	if (r == 0 && !dry_run && plan->n_changes) {
		r = trust_journal_open(DAEMON_LOCK_WAIT_MS, &j, err);
		if (r == 0) {
			r = actuate(rtd.act, j, plan, &opts, err);
			executed = true;
			journal_close(j);
			host_log(plan, r, why);
			state_changed();
		}
	}
	*out = applier_set_json(plan, 1, executed, r < 0 ? err->msg : NULL);
	free(plan);
	return r;
}

int applier_host_restore(uid_t uid, json_object **out, struct rterr *err)
{
	struct plan *plans = calloc(PLAN_SET_MAX, sizeof(*plans));
	struct journal *j = NULL;
	char note[sizeof(err->msg)] = "";
	unsigned int n = 1;
	struct nic host;
	int r;

	*out = NULL;
	if (!rtd.act) { /* as in applier_host_apply() */
		free(plans);
		return 0;
	}
	if (!plans)
		return rterr_sys(err, ENOMEM, "host");
	r = trust_journal_open(DAEMON_LOCK_WAIT_MS, &j, err);
	if (r == 0) {
		/* Its targets are originals already durable (docs/journal.md). */
		journal_set_inflight_optional(j, true);
		actuator_host_snapshot(rtd.act, &host);
		r = actuate_restore(rtd.act, j, &host, NULL, "daemon", plans, &n, note,
				    sizeof(note), err);
		journal_close(j);
	}
	if (r != 0 && (r > 0 || plans[0].host)) {
		*out = applier_set_json(plans, n, r > 0, r < 0 ? err->msg : NULL);
		if (note[0])
			json_object_object_add(*out, "journal", json_object_new_string(note));
		host_log(&plans[0], r, "restore");
		if (r > 0)
			dlog(LOG_NOTICE, KNOB_HOST_NAME, "restored (requested by uid %u)",
			     (unsigned int)uid);
		state_changed();
	}
	free(plans);
	return r < 0 ? r : 0;
}

void applier_host_schedule(void)
{
	host_apply.pending = rtd.cfg.profile[0] != '\0';
	host_apply.due_us = now_us();
}

/* The configured profile's host-wide knobs, when due; a journal held by a CLI run is tried
 * again a second later. */
static void host_run_pending(uint64_t now, uint64_t *next)
{
	json_object *out = NULL;
	struct rterr err = {0};
	char why[300];
	int r;

	if (!host_apply.pending)
		return;
	if (host_apply.due_us > now) {
		if (host_apply.due_us - now < *next)
			*next = host_apply.due_us - now;
		return;
	}
	host_apply.pending = false;
	if (!rtd.profile || !trust_ok())
		return;
	snprintf(why, sizeof(why), "profile %s", rtd.profile->name);
	r = applier_host_apply(rtd.profile, false, why, &out, &err);
	json_object_put(out);
	if (r == -EBUSY || r == -ETIMEDOUT || r == -EAGAIN) {
		dlog(LOG_INFO, KNOB_HOST_NAME, "%s; retrying in 1 s", err.msg);
		host_apply.pending = true;
		host_apply.due_us = now_us() + DAEMON_APPLY_RETRY_US;
	} else if (r < 0) {
		dlog(LOG_ERR, KNOB_HOST_NAME, "profile %s not applied: %s", rtd.profile->name,
		     err.msg);
	}
}

/* Applications per loop turn are bounded in time: a burst of 200 new interfaces (each a
 * journal write with fsync) must not keep the socket and /metrics waiting for seconds. */
#define APPLY_SLICE_US 20000

uint64_t applier_run_pending(void)
{
	uint64_t now = now_us(), next = UINT64_MAX, start = now;
	struct iface *ifc;
	struct rterr err;
	int rc;

	host_run_pending(now, &next);
	/* The table is walked only when an application may be pending (it runs every loop
	 * turn: with 1000 pods the walks alone cost 1% of a core). */
	if (!any_pending)
		return next;
	any_pending = false;
	for (ifc = iface_first(); ifc; ifc = ifc->next) {
		struct iface_apply *ap;

		if (!ifc->m || !ifc->m->apply.pending)
			continue;
		ap = &ifc->m->apply;
		if (now_us() - start > APPLY_SLICE_US) {
			any_pending = true;
			return 0; /* the rest at the next turn, after other events */
		}
		if (ap->due_us > now) {
			any_pending = true;
			if (ap->due_us - now < next)
				next = ap->due_us - now;
			continue;
		}
		ap->pending = false;
		if (!rtd.cfg.profile[0])
			continue;
		rterr_clear(&err);
		rc = apply_configured(ifc, &err);
		if (!ifc->m)
			continue; /* the application's read-back found it unmanaged (and freed ap) */
		ap = &ifc->m->apply;
		ap->rc = rc;
		ap->applied_at = now_real();
		free(ap->profile);
		free(ap->msg);
		ap->profile = strdup(rtd.cfg.profile);
		ap->msg = ap->rc < 0 ? strdup(err.msg) : NULL;
		/* An untrusted journal was logged once, with what to do; status has it all. */
		if (ap->rc == -EBADMSG)
			dlog(LOG_WARNING, ifc->name,
			     "profile %s not applied: the journal is untrusted (rtltune status)",
			     rtd.cfg.profile);
		else if (ap->rc < 0)
			dlog(LOG_ERR, ifc->name, "profile %s not applied: %s", rtd.cfg.profile,
			     err.msg);
		state_changed();
	}
	return next;
}

int applier_apply_request(struct iface *ifc, const char *profile, bool dry_run, uid_t uid,
			  json_object **out, struct rterr *err)
{
	struct profile *p = NULL;
	char why[320];
	int r;

	*out = NULL;
	if (profile) {
		r = profile_load(profile, &p, err);
		if (r < 0)
			return r;
	} else if (!rtd.profile) {
		return rterr_input(err, "no profile given and rtltuned has none configured");
	}
	snprintf(why, sizeof(why), "profile %s, requested by uid %u",
		 p ? p->name : rtd.profile->name, (unsigned int)uid);
	r = run_profile(ifc, p ? p : rtd.profile, dry_run, true, why, out, err);
	profile_free(p);
	return r; /* a per-interface failure is reported in *out too; others go on */
}

int applier_restore_request(struct iface *ifc, uid_t uid, json_object **out, struct rterr *err)
{
	struct plan set[PLAN_SET_MAX];
	struct nic_stack stbuf;
	const struct nic_stack *st;
	const struct link_info *links;
	struct journal *j = NULL;
	struct rterr e = {0};
	char note[sizeof(e.msg)] = "";
	unsigned int n = 1;
	struct nic nic;
	int r, n_links;

	*out = NULL;
	r = trust_journal_open(DAEMON_LOCK_WAIT_MS, &j, err);
	if (r < 0)
		return r;
	/* Its targets are originals already durable: a full or read-only state dir must not
	 * keep the interface changed (docs/journal.md). */
	journal_set_inflight_optional(j, true);
	memset(&set[0], 0, sizeof(set[0]));
	snprintf(set[0].ifname, sizeof(set[0].ifname), "%s", ifc->dev);
	st = pods_stack(ifc, &links, &n_links, &stbuf);
	r = iface_snapshot(ifc, &nic, &e);
	if (r == 0)
		r = actuate_restore(rtd.act, j, &nic, st, "daemon", set, &n, note, sizeof(note),
				    &e);
	journal_close(j);
	account(ifc, set, n, r, "restore");
	/* Restored: every knob is rtltune's again. */
	if (r > 0)
		outside_clear(ifc, NULL);
	*out = applier_set_json(set, n, r > 0, r < 0 ? e.msg : NULL);
	if (r < 0) {
		*err = e;
		return r;
	}
	if (r > 0)
		dlog(LOG_NOTICE, ifc->name, "restored (requested by uid %u)", (unsigned int)uid);
	if (note[0]) {
		json_object_object_add(json_object_is_type(*out, json_type_array)
					       ? json_object_array_get_idx(*out, 0)
					       : *out,
				       "journal", json_object_new_string(note));
		dlog(LOG_WARNING, ifc->name, "restored, but the journal was %s", note);
	}
	return 0;
}

void applier_restore_all(void)
{
	struct iface *ifc;
	json_object *host = NULL;
	struct rterr herr = {0};

	if (applier_host_restore(0, &host, &herr) < 0)
		dlog(LOG_ERR, KNOB_HOST_NAME, "restore on exit failed: %s", herr.msg);
	json_object_put(host);
	for (ifc = iface_first(); ifc; ifc = ifc->next) {
		json_object *out = NULL;
		struct rterr err = {0};

		if (!ifc->managed)
			continue;
		if (applier_restore_request(ifc, 0, &out, &err) < 0)
			dlog(LOG_ERR, ifc->name, "restore on exit failed: %s", err.msg);
		json_object_put(out);
	}
}

/*
 * A managed device without a permanent address (veth, bridge, tunnel) is matched by
 * ifindex within one boot and netns: once gone, its journal records can never be restored
 * and would only accumulate. The journal's one mechanism for that decides, given every
 * link the daemon still has (docs/journal.md "Devices that are gone").
 */
static void forget(struct iface *gone)
{
	struct journal *j = NULL;
	struct rterr err = {0};
	struct netns *prev;
	struct iface *ifc;
	int *idx, n = 0;

	idx = calloc(iface_count() + 1, sizeof(*idx));
	if (!idx)
		return;
	/* The links of its namespace (a pod's: judged from inside it, journal_forget_gone()
	 * goes by the caller's netns). */
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc != gone && ifc->ns == gone->ns)
			idx[n++] = ifc->dev_index;
	if (netns_switch(gone->ns, &prev, &err) == 0) {
		if (trust_journal_open(DAEMON_LOCK_WAIT_MS, &j, &err) == 0)
			journal_forget_gone(j, idx, n, "daemon", NULL, &err);
		journal_close(j);
		netns_switch(prev, NULL, NULL);
	}
	free(idx);
}

void applier_iface_event(struct iface *ifc, const struct iface_change *c)
{
	switch (c->ev) {
	case IFACE_NEW:
		schedule(ifc, 0);
		break;
	case IFACE_SELECTED:
		if (ifc->managed && !c->was_managed)
			schedule(ifc, 0);
		break;
	case IFACE_RELOADED:
		/* Profiles and chips were read anew: apply again (a no-op where nothing
		 * changed). */
		schedule(ifc, 0);
		break;
	case IFACE_RESET:
		/* The driver wrote its own defaults over the profile's (outside.h). */
		schedule(ifc, 0);
		break;
	case IFACE_GONE:
		/* A deleted namespace's records end all at once (pods.c). */
		if (c->was_managed && !ifc->ns_gone)
			forget(ifc);
		break;
	default:
		break;
	}
}

json_object *applier_set_json(const struct plan *set, unsigned int n, bool executed,
			      const char *error)
{
	json_object *arr = plan_set_json(set, n, executed, error);

	if (json_object_array_length(arr) == 1) {
		json_object *one = json_object_get(json_object_array_get_idx(arr, 0));

		json_object_put(arr);
		return one;
	}
	return arr;
}

json_object *applier_status_json(const struct iface *ifc)
{
	const struct iface_apply *ap = ifc->m ? &ifc->m->apply : NULL;
	json_object *o;

	if (!ap || ap->applied_at <= 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "profile",
			       json_object_new_string(ap->profile ? ap->profile : ""));
	json_object_object_add(o, "ok", json_object_new_boolean(ap->rc == 0));
	json_object_object_add(o, "changes", json_object_new_int((int)ap->changes));
	json_object_object_add(o, "error",
			       ap->rc < 0 ? json_object_new_string(ap->msg ? ap->msg : "out of memory")
					  : NULL);
	json_object_object_add(o, "time", json_object_new_double(ap->applied_at));
	return o;
}

unsigned int applier_failed_count(void)
{
	unsigned int n = 0;
	struct iface *ifc;

	for (ifc = iface_first(); ifc; ifc = ifc->next)
		n += ifc->m && ifc->m->apply.applied_at > 0 && ifc->m->apply.rc < 0;
	return n;
}
