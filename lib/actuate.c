// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actuator (actuate.h): every NIC change rtltune makes runs through actuate(), the
 * only caller of the knob setters. Plans come from lib/plan.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/actuate.h"
#include "rtltune/testhook.h"

struct actuator {
	char sysfs_root[256];
	struct link_sock *links;
};

int actuator_new(const char *sysfs_root, struct actuator **out, struct rterr *err)
{
	struct actuator *a = calloc(1, sizeof(*a));
	int r;

	*out = NULL;
	if (!a)
		return rterr_sys(err, ENOMEM, "actuator");
	snprintf(a->sysfs_root, sizeof(a->sysfs_root), "%s", sysfs_root ? sysfs_root : "/sys");
	r = link_sock_open(&a->links, err);
	if (r < 0) {
		free(a);
		return r;
	}
	*out = a;
	return 0;
}

void actuator_free(struct actuator *a)
{
	if (!a)
		return;
	link_sock_close(a->links);
	free(a);
}

struct link_sock *actuator_link_sock(struct actuator *a)
{
	return a->links;
}

const char *actuator_sysfs_root(const struct actuator *a)
{
	return a->sysfs_root;
}

int actuator_snapshot(struct actuator *a, int ifindex, struct nic *out, struct rterr *err)
{
	return nic_snapshot_index(a->links, a->sysfs_root, ifindex, out, err);
}

/* ---- the setters ------------------------------------------------------------------ */

/* Set one knob now, by ifindex (ifname only names the device in messages). */
static int knob_set(struct actuator *a, const char *ifname, int ifindex, enum knob_id k,
		    int64_t value, struct rterr *err)
{
	const struct knob_desc *d = knob_desc(k);
	struct eth_features f;
	int r;

	switch (d->backend) {
	case KNOB_B_LINK:
		r = link_set_u32(a->links, ifindex, d->ifla, d->name, (uint32_t)value, err);
		/* By ifindex, ENODEV means the device is gone: say which one it was. */
		if (r == -ENODEV && link_index_gone(ifindex))
			return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared (set %s)",
					 ifindex, ifname, d->name);
		return r;
	case KNOB_B_FEATURES:
		r = ethtool_features_get_index(ifindex, ifname, &f, err);
		if (r < 0)
			return r;
		r = ethtool_features_set_index(ifindex, ifname, &f, d->features, d->n_features,
					       value != 0, err);
		ethtool_features_free(&f);
		/* A positive ETHTOOL_F_* mask is not an error here: the read-back judges it. */
		return r < 0 ? r : 0;
	}
	return rterr_sys(err, EINVAL, "%s: no way to set %s", ifname, d->name);
}

/* ---- actuate() -------------------------------------------------------------------- */

static void log_event(struct journal *j, const struct plan *plan, enum knob_id k, int64_t old,
		      int64_t new, const char *outcome, const char *reason, const char *actor)
{
	struct journal_event ev = {
		.ifname = plan->ifname,
		.knob = (int)k,
		.old_value = old,
		.new_value = new,
		.outcome = outcome,
		.reason = reason,
		.actor = actor,
	};
	struct rterr ignored;

	/* The log is informational: a failed append must not fail the change itself. */
	journal_log_append(j, &ev, &ignored);
}

/* Set every knob in which[] back to pre[], in apply order; returns how many failed. */
static int undo(struct actuator *a, struct plan *plan, const int64_t pre[KNOB__COUNT],
		const bool which[KNOB__COUNT], char *undone, size_t len)
{
	struct rterr e;
	size_t used = 0;
	char num[24];
	int k, failed = 0;

	undone[0] = '\0';
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || pre[k] == LINK_UNSET)
			continue;
		if (knob_set(a, plan->ifname, plan->ifindex, (enum knob_id)k, pre[k], &e) < 0) {
			failed++;
			used += (size_t)snprintf(undone + used, used < len ? len - used : 0,
						 "%s%s NOT undone (%s)", used ? ", " : "",
						 knob_name((enum knob_id)k), e.msg);
			continue;
		}
		plan->items[k].undone = plan->items[k].changed;
		if (plan->items[k].changed)
			used += (size_t)snprintf(
				undone + used, used < len ? len - used : 0, "%s%s back to %s",
				used ? ", " : "", knob_name((enum knob_id)k),
				knob_value_str((enum knob_id)k, pre[k], num, sizeof(num)));
	}
	if (!undone[0])
		snprintf(undone, len, "nothing had changed");
	return failed;
}

/* Reports keep the name the caller asked for; a rename meanwhile becomes a note. */
static void note_rename(struct plan *plan)
{
	char now[IF_NAMESIZE];
	size_t len;

	if (plan->ifindex <= 0 || link_index_to_name(plan->ifindex, now) < 0 ||
	    strcmp(now, plan->ifname) == 0)
		return;
	snprintf(plan->ifname_now, sizeof(plan->ifname_now), "%s", now);
	len = strlen(plan->warnings);
	snprintf(plan->warnings + len, sizeof(plan->warnings) - len,
		 "%srenamed to %s during this run", len ? "; " : "", now);
}

/* The knobs in order; the first failure's message in failure. */
static int change_all(struct actuator *a, struct plan *plan, char *failure, size_t len)
{
	int k, r, nth = 0;

	for (k = 0; k < KNOB__COUNT; k++) {
		struct plan_item *it = &plan->items[k];
		struct rterr e = {0};
		char point[32];

		if (it->action != PLAN_CHANGE)
			continue;
		snprintf(point, sizeof(point), "apply_knob_%d", ++nth);
		r = test_hook("apply_knob");
		if (r == 0)
			r = test_hook(point);
		if (r < 0)
			rterr_sys(&e, -r, "set %s %" PRId64 " (test fault %s)",
				  knob_name((enum knob_id)k), it->target, point);
		else
			r = knob_set(a, plan->ifname, plan->ifindex, (enum knob_id)k, it->target,
				     &e);
		if (r < 0) {
			snprintf(failure, len, "%s", e.msg);
			return r;
		}
		it->changed = true;
	}
	return 0;
}

/* Read back: the kernel may keep a value other than the one asked for. */
static int read_back(struct actuator *a, struct plan *plan, char *failure, size_t len)
{
	struct rterr e = {0};
	int k, r;

	r = plan->ifindex > 0
		    ? actuator_snapshot(a, plan->ifindex, &plan->after, &e)
		    : nic_snapshot(a->links, a->sysfs_root, plan->ifname, &plan->after, &e);
	if (r < 0) {
		snprintf(failure, len, "read back: %s", e.msg);
		return r;
	}
	plan->after_valid = true;
	for (k = 0; k < KNOB__COUNT; k++) {
		struct plan_item *it = &plan->items[k];

		it->after = nic_knob_value(&plan->after, (enum knob_id)k);
		if (it->action == PLAN_CHANGE && it->after != it->target && !failure[0])
			snprintf(failure, len,
				 "%s not applied: the kernel kept %" PRId64 " (requested %" PRId64
				 ")%s",
				 knob_name((enum knob_id)k), it->after, it->target,
				 nic_knob_wish(&plan->after, (enum knob_id)k)
					 ? ", \"off [requested on]\""
					 : "");
	}
	return failure[0] ? -EIO : 0;
}

int actuate(struct actuator *a, struct journal *j, struct plan *plan, const struct act_opts *o,
	    struct rterr *err)
{
	bool which[KNOB__COUNT] = {0}, touched[KNOB__COUNT];
	const char *outcome = o->outcome ? o->outcome : "applied";
	struct journal_inflight before;
	int64_t pre[KNOB__COUNT];
	struct journal_ident id;
	char failure[1024] = "", undone[768];
	bool gone = false, existed;
	int k, r;

	plan->ifname_now[0] = '\0';
	plan->after_valid = false;
	for (k = 0; k < KNOB__COUNT; k++) {
		pre[k] = plan->items[k].cur;
		which[k] = plan->items[k].action == PLAN_CHANGE;
	}
	if (!plan->n_changes)
		return 0;
	plan_side_effects(which, touched);
	r = plan->ifindex > 0 ? journal_ident_read_index(plan->ifindex, plan->ifname, &id, err)
			      : journal_ident_read(plan->ifname, &id, err);
	if (r < 0)
		return r;
	existed = journal_inflight_get(j, &id, &before) > 0;
	/* Durable before the first change: the originals and what this run is about to do. */
	r = journal_inflight_begin(j, &id, o->op, o->actor, pre,
				   o->journal_originals ? touched : which, err);
	if (r < 0) {
		rterr_prefix(err, "%s: nothing changed: ", plan->ifname);
		return r;
	}
	r = change_all(a, plan, failure, sizeof(failure));
	if (r < 0)
		gone = r == -ENODEV && link_index_gone(plan->ifindex);
	else if (read_back(a, plan, failure, sizeof(failure)) < 0 && !plan->after_valid)
		gone = link_index_gone(plan->ifindex);
	note_rename(plan);
	if (failure[0]) {
		bool changed[KNOB__COUNT], to_undo[KNOB__COUNT];
		int bad = 0;

		/* Only what this run changed, and what the kernel moved along with it. */
		for (k = 0; k < KNOB__COUNT; k++)
			changed[k] = plan->items[k].changed;
		plan_side_effects(changed, to_undo);
		if (!gone)
			bad = undo(a, plan, pre, to_undo, undone, sizeof(undone));
		/* A device deleted midway took this run's changes with it: nothing is left to
		 * undo or to roll back later, so its operation ends here too. */
		if (gone || (bad && link_index_gone(plan->ifindex))) {
			gone = true;
			bad = 0;
			snprintf(undone, sizeof(undone), "nothing, the interface is gone");
		}
		for (k = 0; k < KNOB__COUNT; k++)
			if (plan->items[k].changed)
				log_event(j, plan, (enum knob_id)k, pre[k], plan->items[k].target,
					  gone ? "failed" : "rolled_back", failure, o->actor);
		/* A record this run joined belongs to the operation around it (the trial this
		 * step is part of, the interrupted one taken over): it stays. */
		if (gone || (!bad && !existed))
			journal_inflight_end(j, &id, NULL);
		err->kind = RTERR_SYSTEM;
		if (gone)
			err->errnum = ENODEV;
		else if (!err->errnum)
			err->errnum = EIO;
		snprintf(err->msg, sizeof(err->msg), "%s: %s; undone: %s%s", plan->ifname, failure,
			 undone, bad ? " (interface left changed: run rtltune restore)" : "");
		return -err->errnum;
	}
	r = o->keep_inflight ? 0 : journal_inflight_end(j, &id, err);
	for (k = 0; k < KNOB__COUNT; k++)
		if (plan->items[k].changed)
			log_event(j, plan, (enum knob_id)k, pre[k], plan->items[k].after, outcome,
				  o->reason ? o->reason : plan->items[k].src, o->actor);
	return r < 0 ? r : 0;
}

/* ---- restore, orphans, conclusions -------------------------------------------------- */

static void plan_blank(struct plan *plan, const struct nic *nic)
{
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", nic->link.ifname);
	plan->ifindex = nic->link.ifindex;
}

int actuate_restore(struct actuator *a, struct journal *j, const struct nic *nic, const char *actor,
		    struct plan *plan, char *note, size_t note_len, struct rterr *err)
{
	struct act_opts opts = {.op = "restore", .actor = actor, .reason = "restore"};
	int64_t orig[KNOB__COUNT];
	bool have[KNOB__COUNT];
	struct journal_ident id;
	struct rterr e = {0};
	int r;

	note[0] = '\0';
	plan_blank(plan, nic);
	r = journal_ident_read_index(nic->link.ifindex, nic->link.ifname, &id, err);
	if (r == 0)
		r = journal_get_originals(j, &id, orig, have, err);
	if (r <= 0)
		return r;
	r = plan_values(nic, NULL, orig, have, "restore", plan, err);
	if (r == 0)
		r = actuate(a, j, plan, &opts, err);
	if (r < 0)
		return r;
	/* Back at the originals: an orphaned operation (a crash mid-apply) is over too. The
	 * interface is restored whether or not the journal can say so: what it keeps equals
	 * the current values, and the next restore clears it. */
	if (journal_restore_done(j, &id, have, &e) < 0)
		journal_restore_note(j, &id, &e, note, note_len);
	return 1;
}

/* Every knob op touched is at its journaled original (and readable). */
static bool at_originals(struct journal *j, const struct journal_inflight *op,
			 const struct nic *nic)
{
	int64_t orig[KNOB__COUNT];
	bool have[KNOB__COUNT];
	struct rterr err = {0};
	int k;

	if (journal_get_originals(j, &op->id, orig, have, &err) <= 0)
		return false;
	for (k = 0; k < KNOB__COUNT; k++) {
		int64_t cur = nic_knob_value(nic, (enum knob_id)k);

		if (op->which[k] && (!have[k] || cur == LINK_UNSET || cur != orig[k]))
			return false;
	}
	return true;
}

int actuate_orphan(struct actuator *a, struct journal *j, const struct journal_inflight *op,
		   const struct nic *nic, struct plan *plan, struct rterr *err)
{
	struct act_opts opts = {
		.op = "rollback",
		.actor = "daemon",
		.outcome = "rolled_back",
		.reason = strcmp(op->op, "trial") == 0
				  ? "trial in flight when the daemon stopped"
				  : "operation in flight when its process stopped",
	};
	int r;

	plan_blank(plan, nic);
	if (at_originals(j, op, nic)) {
		r = journal_inflight_end(j, &op->id, err);
		return r < 0 ? r : ACT_ORPHAN_NOTHING_LEFT;
	}
	r = plan_values(nic, NULL, op->pre, op->which, "rollback", plan, err);
	if (r < 0)
		return r;
	/* Every knob already at its pre-value: only the record is left to end. */
	r = plan->n_changes ? actuate(a, j, plan, &opts, err)
			    : journal_inflight_end(j, &op->id, err);
	return r < 0 ? r : ACT_ORPHAN_ROLLED_BACK;
}

int actuate_conclude(struct journal *j, int ifindex, const struct journal_event *ev,
		     bool end_inflight, struct rterr *err)
{
	struct journal_ident id;
	struct rterr ignored;
	int r = 0;

	if (end_inflight && journal_ident_read_index(ifindex, ev->ifname, &id, err) == 0)
		r = journal_inflight_end(j, &id, err);
	journal_log_append(j, ev, &ignored);
	return r;
}
