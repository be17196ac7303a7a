// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actuator (actuate.h): every NIC change rtltune makes runs through actuate(), the
 * only caller of the knob setters. Plans come from lib/plan/plan.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/actuate.h"
#include "rtltune/around.h"
#include "rtltune/ethtool_groups.h"
#include "rtltune/hostknob.h"
#include "rtltune/netns.h"
#include "rtltune/route.h"
#include "rtltune/testhook.h"

struct actuator {
	struct nic_io *io;
	/* The sockets of the namespace the actuator works in now: io, or another namespace's
	 * while it changes a device there (scope_enter()). */
	struct nic_io *cur;
	struct netns *cur_ns;
	const char *proc_sys; /* the host-wide knobs' files (HOST_PROC_SYS) */
};

/* Where the actuator was before it entered a device's namespace. */
struct act_scope {
	struct netns *prev, *prev_cur;
	struct nic_io *io;
};

/*
 * Into ns (NULL: the process's own) for the work on one of its devices: the thread (for the
 * ioctls, sysfs and the sockets opened per call, such as the route invalidation's) and the
 * actuator's device sockets. Scopes nest; each is left with scope_leave().
 */
static int scope_enter(struct actuator *a, struct netns *ns, struct act_scope *s, struct rterr *err)
{
	struct nic_io *io = ns ? netns_io(ns, err) : a->io;
	int r;

	s->io = a->cur;
	s->prev_cur = a->cur_ns;
	s->prev = NULL;
	if (!io)
		return -(err->errnum ? err->errnum : EIO);
	r = netns_switch(ns, &s->prev, err);
	if (r < 0)
		return r;
	a->cur = io;
	a->cur_ns = ns;
	return 0;
}

static void scope_leave(struct actuator *a, const struct act_scope *s)
{
	netns_switch(s->prev, NULL, NULL);
	a->cur = s->io;
	a->cur_ns = s->prev_cur;
}

int actuator_new(const char *sysfs_root, struct actuator **out, struct rterr *err)
{
	struct actuator *a = calloc(1, sizeof(*a));
	int r;

	*out = NULL;
	if (!a)
		return rterr_sys(err, ENOMEM, "actuator");
	r = nic_io_open(sysfs_root, &a->io, err);
	if (r < 0) {
		free(a);
		return r;
	}
	a->cur = a->io;
	a->proc_sys = host_proc_sys();
	*out = a;
	return 0;
}

void actuator_free(struct actuator *a)
{
	if (!a)
		return;
	nic_io_close(a->io);
	free(a);
}

struct nic_io *actuator_io(struct actuator *a)
{
	return a->io;
}

struct link_sock *actuator_link_sock(struct actuator *a)
{
	return nic_io_links(a->io);
}

const char *actuator_sysfs_root(const struct actuator *a)
{
	return nic_io_sysfs_root(a->io);
}

int actuator_snapshot(struct actuator *a, int ifindex, struct nic *out, struct rterr *err)
{
	int r = nic_snapshot_index(a->cur, ifindex, out, err);

	out->ns = a->cur_ns;
	return r;
}

int actuator_snapshot_ns(struct actuator *a, struct netns *ns, int ifindex, struct nic *out,
			 struct rterr *err)
{
	struct act_scope s;
	int r = scope_enter(a, ns, &s, err);

	if (r < 0)
		return r;
	r = actuator_snapshot(a, ifindex, out, err);
	scope_leave(a, &s);
	return r;
}

void actuator_set_proc_sys(struct actuator *a, const char *proc_sys)
{
	a->proc_sys = proc_sys;
}

void actuator_host_snapshot(struct actuator *a, struct nic *out)
{
	host_snapshot(a->proc_sys, out);
}

/* The journal's identity of the device (or the host) nic is, read in its namespace. */
static int ident_of(const struct nic *nic, struct journal_ident *id, struct rterr *err)
{
	struct netns *prev;
	int r;

	if (nic->host) {
		journal_ident_host(id);
		return 0;
	}
	r = netns_switch(nic->ns, &prev, err);
	if (r < 0)
		return r;
	r = journal_ident_read_index(nic->link.ifindex, nic->link.ifname, id, err);
	netns_switch(prev, NULL, NULL);
	return r;
}

/* ---- the setters ------------------------------------------------------------------ */

/* By ifindex, ENODEV means the device is gone: say which one it was. */
static int gone_or(int r, const char *ifname, int ifindex, const char *what, struct rterr *err)
{
	if (r == -ENODEV && link_index_gone(ifindex))
		return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared (set %s)", ifindex,
				 ifname, what);
	return r;
}

/* A device's feature bits, read once for the knobs of one run over it: what the setters
 * need of them (names to bit numbers, what may change) does not move with a change. */
struct feat_cache {
	struct eth_features f;
	bool have;
};

static void feat_cache_free(struct feat_cache *fc)
{
	if (fc->have)
		ethtool_features_free(&fc->f);
	fc->have = false;
}

static int features_set(struct actuator *a, const char *ifname, int ifindex,
			const struct knob_desc *d, bool on, struct feat_cache *fc,
			struct rterr *err)
{
	struct ethnl *en = nic_io_ethnl(a->cur);
	int r;

	if (!fc->have) {
		r = en ? ethnl_features_get(en, ifindex, &fc->f, err)
		       : ethtool_features_get_index(ifindex, ifname, &fc->f, err);
		if (r < 0)
			return gone_or(r, ifname, ifindex, d->name, err);
		fc->have = true;
	}
	r = en ? ethnl_features_set(en, ifindex, &fc->f, d->features, d->n_features, on, NULL, err)
	       : ethtool_features_set_index(ifindex, ifname, &fc->f, d->features, d->n_features, on,
					    err);
	/* A positive ETHTOOL_F_* mask is not an error here: the read-back judges it. */
	return r < 0 ? gone_or(r, ifname, ifindex, d->name, err) : 0;
}

/*
 * Set knob k to values[k], by ifindex (ifname only names the device in messages). The
 * knobs of an ethtool group change in one request: every knob of k's group set in mask
 * goes with it (a channel count or pause setting can depend on the others). *next gets
 * the knob after those handled.
 */
static int knob_set(struct actuator *a, const char *ifname, int ifindex, const int64_t *values,
		    const bool *mask, int k, int *next, struct feat_cache *fc, struct rterr *err)
{
	const struct knob_desc *d = knob_desc((enum knob_id)k);
	struct ethnl_values want;
	int j, r;

	*next = k + 1;
	switch (d->backend) {
	case KNOB_B_LINK:
		r = link_set_u32(nic_io_links(a->cur), ifindex, d->ifla, d->name,
				 (uint32_t)values[k], err);
		return gone_or(r, ifname, ifindex, d->name, err);
	case KNOB_B_FEATURES:
		return features_set(a, ifname, ifindex, d, values[k] != 0, fc, err);
	case KNOB_B_ETHNL:
		ethnl_values_init(&want);
		for (j = k;
		     j < KNOB__COUNT && knob_desc((enum knob_id)j)->backend == KNOB_B_ETHNL &&
		     knob_desc((enum knob_id)j)->ethnl_group == d->ethnl_group;
		     j++)
			if (j == k || mask[j])
				want.val[knob_desc((enum knob_id)j)->ethnl_attr] = values[j];
		*next = j;
		r = nic_io_groups_by_ioctl(a->cur)
			    ? ethtool_group_set(ifindex, ifname, d->ethnl_group, &want, err)
			    : ethnl_set(nic_io_ethnl(a->cur), ifindex, d->ethnl_group, &want, err);
		return gone_or(r, ifname, ifindex, ethnl_group_name(d->ethnl_group), err);
	case KNOB_B_NAPI:
	case KNOB_B_QUEUE:
		r = around_set(&(struct around_io){nic_io_napi(a->cur), nic_io_sysfs_root(a->cur)},
			       ifindex, ifname, (enum knob_id)k, values[k], err);
		return gone_or(r, ifname, ifindex, d->name, err);
	case KNOB_B_SYSCTL:
		return host_knob_write(a->proc_sys, (enum knob_id)k, values[k], err);
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
	struct feat_cache fc = {.have = false};
	bool mask[KNOB__COUNT];
	struct rterr e;
	size_t used = 0;
	char num[24];
	int k, j, next, failed = 0;

	undone[0] = '\0';
	for (k = 0; k < KNOB__COUNT; k++)
		mask[k] = which[k] && pre[k] != LINK_UNSET;
	for (k = 0; k < KNOB__COUNT; k = next) {
		next = k + 1;
		if (!mask[k])
			continue;
		if (knob_set(a, plan->ifname, plan->ifindex, pre, mask, k, &next, &fc, &e) < 0) {
			failed++;
			used += (size_t)snprintf(undone + used, used < len ? len - used : 0,
						 "%s%s NOT undone (%s)", used ? ", " : "",
						 knob_name((enum knob_id)k), e.msg);
			continue;
		}
		for (j = k; j < next; j++) {
			if (!mask[j])
				continue;
			plan->items[j].undone = plan->items[j].changed;
			if (plan->items[j].changed)
				used += (size_t)snprintf(
					undone + used, used < len ? len - used : 0,
					"%s%s back to %s", used ? ", " : "",
					knob_name((enum knob_id)j),
					knob_value_str((enum knob_id)j, pre[j], num, sizeof(num)));
		}
	}
	feat_cache_free(&fc);
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

/*
 * Knobs of one backend waiting to go to the kernel in one request: a device's link
 * attributes in one RTM_NEWLINK, its feature knobs in one FEATURES_SET. Each request makes
 * the kernel tell every listener of the netns (rtnetlink, ethtool monitor) that the device
 * changed: one per device and backend, as `ip link set` and `ethtool -K` with several
 * settings do, not one per knob.
 */
struct batch {
	enum knob_backend backend;
	unsigned int n;
	int k[KNOB__COUNT];
};

static int batch_request(struct actuator *a, struct plan *plan, const int64_t *target,
			 const struct batch *b, struct feat_cache *fc, struct rterr *err)
{
	struct ethnl_features_change ch[KNOB__COUNT];
	struct link_u32 attrs[KNOB__COUNT];
	struct ethnl *en = nic_io_ethnl(a->cur);
	unsigned int i;
	int r;

	for (i = 0; i < b->n; i++) {
		const struct knob_desc *d = knob_desc((enum knob_id)b->k[i]);

		attrs[i] = (struct link_u32){d->ifla, d->name, (uint32_t)target[b->k[i]]};
		ch[i] = (struct ethnl_features_change){d->features, d->n_features,
						       target[b->k[i]] != 0};
	}
	if (b->backend == KNOB_B_LINK) {
		r = link_set_u32s(nic_io_links(a->cur), plan->ifindex, attrs, b->n, err);
		return gone_or(r, plan->ifname, plan->ifindex, "its link attributes", err);
	}
	if (!fc->have) {
		r = ethnl_features_get(en, plan->ifindex, &fc->f, err);
		if (r < 0)
			return gone_or(r, plan->ifname, plan->ifindex, "its features", err);
		fc->have = true;
	}
	r = ethnl_features_set_many(en, plan->ifindex, &fc->f, ch, b->n, err);
	/* A positive ETHTOOL_F_* mask is not an error here: the read-back judges it. */
	return r < 0 ? gone_or(r, plan->ifname, plan->ifindex, "its features", err) : 0;
}

/*
 * Send what waits in b. A refused batch goes again knob by knob, in the table's order, so
 * that the failure is the one a lone request of that knob gets and the knobs before it are
 * changed, as without batching. The kernel takes a batch's attributes in its own order, so
 * it may have kept some of a refused one: sent[] marks them all for the undo.
 */
static int batch_send(struct actuator *a, struct plan *plan, const int64_t *target,
		      const bool *mask, struct batch *b, struct feat_cache *fc, bool *sent,
		      struct rterr *e)
{
	unsigned int i, n = b->n;
	int next, r = 0;

	if (n > 1) {
		r = batch_request(a, plan, target, b, fc, e);
		b->n = 0;
		if (r == 0) {
			for (i = 0; i < n; i++)
				plan->items[b->k[i]].changed = true;
			return 0;
		}
		for (i = 0; i < n; i++)
			sent[b->k[i]] = true;
		memset(e, 0, sizeof(*e));
	}
	b->n = 0;
	for (i = 0; i < n; i++) {
		r = knob_set(a, plan->ifname, plan->ifindex, target, mask, b->k[i], &next, fc, e);
		if (r < 0)
			return r;
		plan->items[b->k[i]].changed = true;
	}
	return 0;
}

/* The knobs in order, a group's in one request (and the link attributes and feature knobs
 * that follow one another in one each); the first failure's message in failure. */
static int change_all(struct actuator *a, struct plan *plan, bool *sent, char *failure, size_t len)
{
	struct feat_cache fc = {.have = false};
	struct batch b = {.n = 0};
	int64_t target[KNOB__COUNT];
	bool mask[KNOB__COUNT];
	int k, j, next, r, nth = 0;

	for (k = 0; k < KNOB__COUNT; k++) {
		mask[k] = plan->items[k].action == PLAN_CHANGE;
		target[k] = plan->items[k].target;
	}
	for (k = 0; k <= KNOB__COUNT; k = next) {
		const struct knob_desc *d = k < KNOB__COUNT ? knob_desc((enum knob_id)k) : NULL;
		struct rterr e = {0};
		bool batched;
		char point[32];

		next = k + 1;
		if (d && !mask[k])
			continue;
		batched = d && (d->backend == KNOB_B_LINK ||
				(d->backend == KNOB_B_FEATURES && nic_io_ethnl(a->cur)));
		if (d)
			snprintf(point, sizeof(point), "apply_knob_%d", ++nth);
		/* A test's fault or pause "before the Nth change" comes after every earlier one. */
		r = 0;
		if (b.n && (!batched || b.backend != d->backend || test_hook_armed("apply_knob") ||
			    test_hook_armed(point)))
			r = batch_send(a, plan, target, mask, &b, &fc, sent, &e);
		if (r == 0 && d) {
			r = test_hook("apply_knob");
			if (r == 0)
				r = test_hook(point);
			if (r < 0)
				rterr_sys(&e, -r, "set %s %" PRId64 " (test fault %s)",
					  knob_name((enum knob_id)k), target[k], point);
		}
		if (r == 0 && batched) {
			b.backend = d->backend;
			b.k[b.n++] = k;
			continue;
		}
		if (r == 0 && d)
			r = knob_set(a, plan->ifname, plan->ifindex, target, mask, k, &next, &fc,
				     &e);
		if (r < 0) {
			snprintf(failure, len, "%s", e.msg);
			feat_cache_free(&fc);
			return r;
		}
		for (j = k; d && j < next; j++)
			plan->items[j].changed = mask[j];
	}
	feat_cache_free(&fc);
	return 0;
}

/* Read back: the kernel may keep a value other than the one asked for. */
static int read_back(struct actuator *a, struct plan *plan, char *failure, size_t len)
{
	struct rterr e = {0};
	int k, r;

	/* Only the knobs, where the plan holds the snapshot it was made from (identity kept). */
	if (plan->host) {
		host_snapshot(a->proc_sys, &plan->after);
		r = 0;
	} else if (plan->ifindex > 0 && plan->after.link.ifindex == plan->ifindex &&
		   plan->after.have_drvinfo)
		r = nic_reread(a->cur, &plan->after, &e);
	else if (plan->ifindex > 0)
		r = actuator_snapshot(a, plan->ifindex, &plan->after, &e);
	else
		r = nic_snapshot(a->cur, plan->ifname, &plan->after, &e);
	if (r < 0) {
		snprintf(failure, len, "read back: %s", e.msg);
		return r;
	}
	plan->after.ns = plan->ns;
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

/* One device of a run. */
struct dev_run {
	struct plan *plan;
	struct journal_ident id;
	int64_t pre[KNOB__COUNT];
	bool which[KNOB__COUNT], touched[KNOB__COUNT];
	bool sent[KNOB__COUNT]; /* in a refused batch: maybe changed (batch_send()) */
	bool begun, existed, gone, bad;
	unsigned int families; /* the cached routes its changes (or their undo) make stale */
	char undone[512];
};

/* Whether the set raises a stacked size: then lowers change before their uppers. */
static bool raising(const struct plan *plans, unsigned int n)
{
	unsigned int i;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < KNOB__COUNT; k++)
			if ((knob_desc((enum knob_id)k)->flags & KNOB_F_STACK) &&
			    plans[i].items[k].action == PLAN_CHANGE &&
			    plans[i].items[k].target > plans[i].items[k].cur)
				return true;
	return false;
}

/* The cached routes the run's changes make stale (route.h). */
static unsigned int reroute_of(const struct dev_run *run, unsigned int nd)
{
	unsigned int i, f = 0;
	int k;

	for (i = 0; i < nd; i++)
		for (k = 0; k < KNOB__COUNT; k++)
			if (run[i].plan->items[k].changed)
				f |= knob_desc((enum knob_id)k)->reroute;
	return f;
}

/* The order the devices change in: by level, up for a raise and down for a decrease. */
static void stack_order(const struct dev_run *run, unsigned int nd, bool up, unsigned int *order)
{
	unsigned int i, j, t;

	for (i = 0; i < nd; i++)
		order[i] = i;
	for (i = 1; i < nd; i++)
		for (j = i; j > 0; j--) {
			int a = run[order[j - 1]].plan->level, b = run[order[j]].plan->level;

			if (up ? a <= b : a >= b)
				break;
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

/* Begin the in-flight record of every device that changes, all or none. */
static int begin_all(struct actuator *a, struct journal *j, struct dev_run *run, unsigned int nd,
		     const struct act_opts *o, struct rterr *err)
{
	struct journal_inflight before;
	struct act_scope sc;
	unsigned int i;
	int r = 0;

	for (i = 0; i < nd && r == 0; i++) {
		struct plan *p = run[i].plan;

		if (p->host) {
			journal_ident_host(&run[i].id); /* the host's knobs: no device */
		} else {
			/* Its identity where it is (a pod's veth peer: its namespace's cookie). */
			r = scope_enter(a, p->ns, &sc, err);
			if (r < 0)
				break;
			r = p->ifindex > 0 ? journal_ident_read_index(p->ifindex, p->ifname,
								      &run[i].id, err)
					   : journal_ident_read(p->ifname, &run[i].id, err);
			scope_leave(a, &sc);
		}
		if (r < 0)
			break;
		run[i].existed = journal_inflight_get(j, &run[i].id, &before) > 0;
		/* Durable before the first change: the originals and what the run does. */
		r = journal_inflight_begin(j, &run[i].id, o->op, o->actor, run[i].pre,
					   o->journal_originals ? run[i].touched : run[i].which,
					   err);
		if (r == 0)
			run[i].begun = true;
		else
			rterr_prefix(err, "%s: nothing changed: ", p->ifname);
	}
	if (r < 0)
		for (i = 0; i < nd; i++)
			if (run[i].begun && !run[i].existed)
				journal_inflight_end(j, &run[i].id, NULL);
	return r;
}

/* Into a device's namespace: the item's own (entered already: nothing to do) but for a
 * veth's peer in another (a pod's eth0 planned with its node side: stack.h stack_peer). */
static int dev_enter(struct actuator *a, const struct dev_run *d, struct act_scope *sc)
{
	struct rterr e = {0};

	return scope_enter(a, d->plan->ns, sc, &e);
}

/* Undo the devices that changed, last changed first, and say what became of each. */
static void undo_all(struct actuator *a, struct dev_run *run, unsigned int nd,
		     const unsigned int *order, unsigned int done, char *undone, size_t len)
{
	bool changed[KNOB__COUNT], to_undo[KNOB__COUNT];
	struct act_scope sc;
	size_t used = 0;
	unsigned int i;
	int k;

	undone[0] = '\0';
	for (i = done; i-- > 0;) {
		struct dev_run *d = &run[order[i]];

		/* Only what this run changed, and what the kernel moved along with it. */
		for (k = 0; k < KNOB__COUNT; k++)
			changed[k] = d->plan->items[k].changed || d->sent[k];
		plan_side_effects(changed, to_undo);
		d->bad = false;
		if (dev_enter(a, d, &sc) < 0) {
			d->bad = true;
			snprintf(d->undone, sizeof(d->undone),
				 "NOT undone (its namespace is gone)");
			continue;
		}
		if (!d->gone)
			d->bad =
				undo(a, d->plan, d->pre, to_undo, d->undone, sizeof(d->undone)) > 0;
		/* A device deleted midway took this run's changes with it: nothing is left to
		 * undo or to roll back later, so its operation ends here too. */
		if (d->gone || (d->bad && link_index_gone(d->plan->ifindex))) {
			d->gone = true;
			d->bad = false;
			snprintf(d->undone, sizeof(d->undone), "nothing, the interface is gone");
		}
		scope_leave(a, &sc);
	}
	for (i = 0; i < nd; i++) {
		if (!run[i].undone[0])
			continue;
		used += (size_t)snprintf(undone + used, used < len ? len - used : 0, "%s%s%s%s",
					 used ? "; " : "", i ? run[i].plan->ifname : "",
					 i ? ": " : "", run[i].undone);
	}
	if (!undone[0])
		snprintf(undone, len, "nothing had changed");
}

/* One interface's part of a run: the device and the uppers planned with it. */
struct run_item {
	struct act_item *it;
	struct dev_run *run; /* nd of them: the devices that change */
	unsigned int nd;
	bool begun;	       /* its records are journaled */
	unsigned int families; /* the cached routes its changes (or their undo) make stale */
};

/* The devices of an item that change, with what they had before; -ENOMEM or 0. */
static int item_prepare(struct run_item *ri)
{
	struct act_item *it = ri->it;
	unsigned int i, n = 0;
	int k;

	ri->nd = 0;
	for (i = 0; i < it->n && i < PLAN_SET_MAX; i++)
		n += it->plans[i].n_changes > 0;
	ri->run = calloc(n ? n : 1, sizeof(*ri->run));
	if (!ri->run)
		return -ENOMEM;
	for (i = 0; i < it->n && i < PLAN_SET_MAX; i++) {
		struct plan *p = &it->plans[i];
		struct dev_run *d = &ri->run[ri->nd];

		p->ifname_now[0] = '\0';
		p->rerouted[0] = '\0';
		p->reroute_failed = false;
		p->after_valid = false;
		if (!p->n_changes)
			continue;
		d->plan = p;
		for (k = 0; k < KNOB__COUNT; k++) {
			d->pre[k] = p->items[k].cur;
			d->which[k] = p->items[k].action == PLAN_CHANGE;
		}
		plan_side_effects(d->which, d->touched);
		ri->nd++;
	}
	return 0;
}

/* The error of an item whose run failed: what failed and what was undone. */
static void item_fail(struct run_item *ri, const char *failure, const char *undone, bool bad,
		      bool gone)
{
	struct rterr *err = &ri->it->err;

	err->kind = RTERR_SYSTEM;
	if (gone && ri->nd == 1)
		err->errnum = ENODEV;
	else if (!err->errnum)
		err->errnum = EIO;
	snprintf(err->msg, sizeof(err->msg), "%s: %s; undone: %s%s", ri->it->plans[0].ifname,
		 failure, undone, bad ? " (interface left changed: run rtltune restore)" : "");
	ri->it->rc = -err->errnum;
}

/* Change, read back, and on failure undo, one item; its records end in the batch. */
static void item_execute(struct actuator *a, struct journal *j, struct run_item *ri,
			 const struct act_opts *o)
{
	const char *outcome = o->outcome ? o->outcome : "applied";
	struct dev_run *run = ri->run;
	unsigned int order[PLAN_SET_MAX], nd = ri->nd, done = 0, i;
	char failure[1024] = "", undone[1024];
	bool bad = false, gone = false;
	struct act_scope sc;
	int k, r = 0;

	/* A raise goes up the stack from the lowest device, a decrease down from the top: no
	 * upper is ever above a lower (docs/stack.md). */
	stack_order(run, nd, raising(ri->it->plans, ri->it->n), order);
	for (i = 0; i < nd && !failure[0]; i++) {
		struct dev_run *d = &run[order[i]];
		const char *hook =
			d->plan->ns != ri->it->plans[0].ns ? "apply_peer" : "apply_upper";

		r = d->plan->upper_of[0] ? test_hook(hook) : 0;
		if (r < 0)
			snprintf(failure, sizeof(failure), "%s: set its sizes (test fault %s)",
				 d->plan->ifname, hook);
		else if ((r = dev_enter(a, d, &sc)) < 0)
			snprintf(failure, sizeof(failure), "%s: its network namespace: %s",
				 d->plan->ifname, strerror(-r));
		done = r < 0 ? i : i + 1; /* one that fails here was sent nothing: none to undo */
		if (r < 0) {
			ri->it->err.errnum = -r;
			break;
		}
		r = change_all(a, d->plan, d->sent, failure, sizeof(failure));
		if (r < 0)
			d->gone = r == -ENODEV && link_index_gone(d->plan->ifindex);
		scope_leave(a, &sc);
		/* The kernel's errno stays the item's: the caller explains an EPERM. */
		if (r < 0)
			ri->it->err.errnum = -r;
	}
	for (i = 0; i < nd && !failure[0]; i++) {
		if (dev_enter(a, &run[i], &sc) < 0)
			continue;
		if (read_back(a, run[i].plan, failure, sizeof(failure)) < 0 &&
		    !run[i].plan->after_valid)
			run[i].gone = link_index_gone(run[i].plan->ifindex);
		scope_leave(a, &sc);
	}
	for (i = 0; i < nd; i++) {
		if (dev_enter(a, &run[i], &sc) < 0)
			continue;
		note_rename(run[i].plan);
		scope_leave(a, &sc);
		run[i].families = reroute_of(&run[i], 1);
	}
	ri->families = reroute_of(run, nd);
	if (failure[0]) {
		undo_all(a, run, nd, order, done, undone, sizeof(undone));
		for (i = 0; i < nd; i++) {
			struct dev_run *d = &run[i];

			for (k = 0; k < KNOB__COUNT; k++)
				if (d->plan->items[k].changed)
					log_event(j, d->plan, (enum knob_id)k, d->pre[k],
						  d->plan->items[k].target,
						  d->gone ? "failed" : "rolled_back", failure,
						  o->actor);
			/* A record this run joined belongs to the operation around it (the trial
			 * this step is part of, the interrupted one taken over): it stays. */
			if (d->gone || (!d->bad && !d->existed))
				journal_inflight_end(j, &d->id, NULL);
			bad |= d->bad;
			gone |= d->gone;
		}
		item_fail(ri, failure, undone, bad, gone);
		return;
	}
	for (i = 0; i < nd; i++) {
		struct dev_run *d = &run[i];
		int e = o->keep_inflight ? 0 : journal_inflight_end(j, &d->id, &ri->it->err);

		if (e < 0 && ri->it->rc == 0)
			ri->it->rc = e;
		for (k = 0; k < KNOB__COUNT; k++)
			if (d->plan->items[k].changed)
				log_event(j, d->plan, (enum knob_id)k, d->pre[k],
					  d->plan->items[k].after, outcome,
					  o->reason ? o->reason
						    : plan_src(d->plan, (enum knob_id)k),
					  o->actor);
	}
}

/* The families an item's changes in ns make stale; *first: its first such device there. */
static unsigned int item_families_in(const struct run_item *ri, struct netns *ns,
				     struct plan **first)
{
	unsigned int f = 0, i;

	*first = NULL;
	for (i = 0; i < ri->nd; i++)
		if (ri->run[i].plan->ns == ns && ri->run[i].families) {
			if (!*first)
				*first = ri->run[i].plan;
			f |= ri->run[i].families;
		}
	return f;
}

/*
 * Established connections take the change only once their cached routes are stale: once
 * per run and network namespace (a netns's routes are its own: route.h; a pod's peer
 * changed with its node side is another), for every family a change (or its undo) touched
 * there, after the last device. A failure undoes nothing (the devices have the change; new
 * connections get it): it is said in the plans (each item's first changed device there,
 * and its plans[0]) and the log, one record per item and namespace.
 */
static void reroute_ns(struct actuator *a, struct journal *j, struct run_item *ris, unsigned int n,
		       struct netns *ns, const char *actor)
{
	unsigned int f = 0, i;
	char how[256];
	struct rterr e = {0}, ignored;
	struct act_scope sc;
	struct plan *first;
	bool failed;

	for (i = 0; i < n; i++)
		f |= item_families_in(&ris[i], ns, &first);
	if (!f)
		return;
	failed = scope_enter(a, ns, &sc, &e) < 0;
	if (!failed) {
		failed = route_invalidate(f, how, sizeof(how), &e) < 0;
		scope_leave(a, &sc);
	}
	if (failed)
		snprintf(how, sizeof(how), "established connections keep their old sizes: %s",
			 e.msg);
	for (i = 0; i < n; i++) {
		struct plan *p = &ris[i].it->plans[0];
		struct journal_event ev = {
			.knob = -1,
			.old_value = JOURNAL_NO_VALUE,
			.new_value = JOURNAL_NO_VALUE,
			.actor = actor,
			.outcome = failed ? "not_rerouted" : "rerouted",
			.reason = how,
		};
		if (!item_families_in(&ris[i], ns, &first))
			continue;
		snprintf(first->rerouted, sizeof(first->rerouted), "%s", how);
		first->reroute_failed = failed;
		if (p->ns == ns) {
			snprintf(p->rerouted, sizeof(p->rerouted), "%s", how);
			p->reroute_failed = failed;
		}
		/* The log's names are a device's own (a pod's eth0 as eth0). */
		ev.ifname = first->ifname;
		journal_log_append(j, &ev, &ignored);
	}
}

static void reroute(struct actuator *a, struct journal *j, struct run_item *ris, unsigned int n,
		    const char *actor)
{
	unsigned int i, d, k, e;

	/* Each namespace once, at its first device in the run. */
	for (i = 0; i < n; i++)
		for (d = 0; d < ris[i].nd; d++) {
			struct netns *ns = ris[i].run[d].plan->ns;
			bool seen = false;

			for (k = 0; k <= i && !seen; k++)
				for (e = 0; e < (k == i ? d : ris[k].nd) && !seen; e++)
					seen = ris[k].run[e].plan->ns == ns;
			if (!seen)
				reroute_ns(a, j, ris, n, ns, actor);
		}
}

int actuate_run(struct actuator *a, struct journal *j, struct act_item *items, unsigned int n,
		const struct act_opts *o, struct rterr *err)
{
	struct run_item *ris = calloc(n ? n : 1, sizeof(*ris));
	struct rterr e = {0};
	unsigned int i, k, failed = 0;
	int r;

	if (!ris)
		return rterr_sys(err, ENOMEM, "actuate");
	for (i = 0, r = 0; i < n; i++) {
		ris[i].it = &items[i];
		items[i].rc = 0;
		memset(&items[i].err, 0, sizeof(items[i].err));
		if (r == 0)
			r = item_prepare(&ris[i]);
	}
	/* Every record of the run, originals and operations, in one durable write before the
	 * first change. */
	if (r < 0)
		rterr_sys(err, ENOMEM, "actuate");
	else
		r = journal_batch_begin(j, err);
	if (r < 0) {
		for (i = 0; i < n; i++)
			free(ris[i].run);
		free(ris);
		return r;
	}
	for (i = 0; i < n; i++) {
		struct act_scope sc;

		if (!ris[i].nd)
			continue;
		/* The identity of a device of another namespace is read there. */
		items[i].rc = scope_enter(a, items[i].plans[0].ns, &sc, &items[i].err);
		if (items[i].rc < 0) {
			rterr_prefix(&items[i].err,
				     "%s: nothing changed: ", items[i].plans[0].ifname);
			continue;
		}
		items[i].rc = begin_all(a, j, ris[i].run, ris[i].nd, o, &items[i].err);
		scope_leave(a, &sc);
		ris[i].begun = items[i].rc == 0;
	}
	r = journal_batch_flush(j, false, &e);
	for (i = 0; i < n && r < 0; i++)
		if (ris[i].begun) {
			items[i].err = e;
			rterr_prefix(&items[i].err,
				     "%s: nothing changed: ", items[i].plans[0].ifname);
			items[i].rc = r;
			ris[i].begun = false;
		}
	for (i = 0; i < n; i++) {
		struct act_scope sc;

		if (!ris[i].begun)
			continue;
		/* Its namespace entered a moment ago for its records: it is there still. */
		if (scope_enter(a, items[i].plans[0].ns, &sc, &items[i].err) < 0) {
			items[i].rc = -EIO;
			for (k = 0; k < ris[i].nd; k++)
				journal_inflight_end(j, &ris[i].run[k].id, NULL);
			continue;
		}
		item_execute(a, j, &ris[i], o);
		scope_leave(a, &sc);
		/* Its records in the log now, as each was before batching (informational). */
		journal_log_flush(j, NULL);
	}
	reroute(a, j, ris, n, o->actor);
	/* The records end in one more write. */
	r = journal_batch_flush(j, true, &e);
	for (i = 0; i < n; i++) {
		if (r < 0 && ris[i].begun && items[i].rc == 0) {
			items[i].err = e;
			items[i].rc = r;
		}
		failed += items[i].rc < 0;
		free(ris[i].run);
	}
	free(ris);
	return failed ? -(int)failed : 0;
}

int actuate_set(struct actuator *a, struct journal *j, struct plan *plans, unsigned int n,
		const struct act_opts *o, struct rterr *err)
{
	struct act_item it = {.plans = plans, .n = n};
	int r = actuate_run(a, j, &it, 1, o, err);

	if (r < 0 && it.rc < 0) {
		*err = it.err;
		return it.rc;
	}
	return r;
}

int actuate(struct actuator *a, struct journal *j, struct plan *plan, const struct act_opts *o,
	    struct rterr *err)
{
	return actuate_set(a, j, plan, 1, o, err);
}

/* ---- restore, orphans, conclusions -------------------------------------------------- */

static void plan_blank(struct plan *plan, const struct nic *nic)
{
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", nic->link.ifname);
	plan->ifindex = nic->link.ifindex;
	plan->ns = nic->ns;
	plan->host = nic->host;
	plan->after = *nic;
}

/* The journaled originals of a device: 1 with the plan back to them, 0 none, or -errno. */
static int plan_originals(struct journal *j, const struct nic *nic, struct journal_ident *id,
			  bool have[KNOB__COUNT], struct plan *plan, struct rterr *err)
{
	int64_t orig[KNOB__COUNT];
	int r;

	plan_blank(plan, nic);
	r = ident_of(nic, id, err);
	if (r == 0)
		r = journal_get_originals(j, id, orig, have, err);
	if (r <= 0)
		return r;
	/* No chip entry: the originals were the kernel's own values, only its limits apply. */
	r = plan_values(nic, NULL, orig, have, "restore", plan, err);
	return r < 0 ? r : 1;
}

int actuate_restore(struct actuator *a, struct journal *j, const struct nic *nic,
		    const struct nic_stack *st, const char *actor, struct plan *plans,
		    unsigned int *n_plans, char *note, size_t note_len, struct rterr *err)
{
	struct act_opts opts = {.op = "restore", .actor = actor, .reason = "restore"};
	struct journal_ident ids[PLAN_SET_MAX];
	bool have[PLAN_SET_MAX][KNOB__COUNT], got[PLAN_SET_MAX] = {false};
	unsigned int i, n = 1;
	struct rterr e = {0};
	int r;

	note[0] = '\0';
	*n_plans = 1;
	r = plan_originals(j, nic, &ids[0], have[0], &plans[0], err);
	if (r < 0)
		return r;
	got[0] = r > 0;
	/* The uppers the device's changes reached were journaled too: back with it. */
	for (i = 0; st && i < st->n_uppers && n < PLAN_SET_MAX; i++) {
		struct nic up;
		int u;

		nic_from_link_only(&st->uppers[i].li, &up);
		up.ns = nic->ns;
		u = plan_originals(j, &up, &ids[n], have[n], &plans[n], err);
		if (u < 0)
			return u;
		if (u == 0)
			continue;
		snprintf(plans[n].upper_of, sizeof(plans[n].upper_of), "%s", nic->link.ifname);
		plans[n].level = (int)i + 1;
		got[n++] = true;
	}
	/* Its veth peer in another namespace, when its change reached it (plan_stack()). */
	if (st && st->has_peer && n < PLAN_SET_MAX) {
		struct nic peer;
		int u;

		nic_from_link_only(&st->peer.li, &peer);
		peer.ns = st->peer.ns;
		u = plan_originals(j, &peer, &ids[n], have[n], &plans[n], err);
		if (u < 0)
			return u;
		if (u > 0) {
			snprintf(plans[n].upper_of, sizeof(plans[n].upper_of), "%s",
				 nic->link.ifname);
			plans[n].level = 1;
			got[n++] = true;
		}
	}
	if (r == 0 && n == 1)
		return 0;
	*n_plans = n;
	r = actuate_set(a, j, plans, n, &opts, err);
	if (r < 0)
		return r;
	/* Back at the originals: an orphaned operation (a crash mid-apply) is over too. The
	 * interfaces are restored whether or not the journal can say so: what it keeps equals
	 * the current values, and the next restore clears it. */
	for (i = 0; i < n; i++)
		if (got[i] && journal_restore_done(j, &ids[i], have[i], &e) < 0 && !note[0])
			journal_restore_note(j, &ids[i], &e, note, note_len);
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

int actuate_rollback(struct actuator *a, struct journal *j, const struct nic *nics,
		     const int *levels, unsigned int n, const struct act_opts *o,
		     struct plan *plans, struct rterr *err)
{
	struct journal_ident ids[PLAN_SET_MAX];
	struct journal_inflight op;
	bool rec[PLAN_SET_MAX] = {false};
	unsigned int i, changes = 0;
	int r;

	for (i = 0; i < n && i < PLAN_SET_MAX; i++) {
		plan_blank(&plans[i], &nics[i]);
		r = ident_of(&nics[i], &ids[i], err);
		if (r < 0)
			return r;
		if (journal_inflight_get(j, &ids[i], &op) <= 0)
			continue;
		rec[i] = true;
		r = plan_values(&nics[i], NULL, op.pre, op.which, "rollback", &plans[i], err);
		if (r < 0)
			return r;
		if (i)
			snprintf(plans[i].upper_of, sizeof(plans[i].upper_of), "%s",
				 nics[0].link.ifname);
		plans[i].level = levels ? levels[i] : (int)i;
		changes += plans[i].n_changes;
	}
	if (changes)
		return actuate_set(a, j, plans, n < PLAN_SET_MAX ? n : PLAN_SET_MAX, o, err);
	/* Every knob already back at its pre-value: only the records are left to end. */
	for (i = 0; i < n && i < PLAN_SET_MAX; i++)
		if (rec[i] && (r = journal_inflight_end(j, &ids[i], err)) < 0)
			return r;
	return 0;
}

int actuate_conclude(struct journal *j, const struct nic *nics, unsigned int n,
		     const struct journal_event *ev, bool end_inflight, struct rterr *err)
{
	struct journal_ident id;
	struct rterr ignored;
	unsigned int i;
	int r = 0, e;

	for (i = 0; end_inflight && i < n; i++)
		if (ident_of(&nics[i], &id, err) == 0 &&
		    (e = journal_inflight_end(j, &id, err)) < 0 && r == 0)
			r = e;
	journal_log_append(j, ev, &ignored);
	return r;
}
