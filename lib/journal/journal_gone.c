// SPDX-License-Identifier: GPL-2.0-only
/*
 * Devices that are gone (docs/journal.md "Devices that are gone"): the records of a device
 * without a permanent address can only ever match it in the boot, netns and ifindex they
 * name; once no link there has the ifindex, they are forgotten (and logged).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_priv.h"
#include "rtltune/link.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Whether id names a device gone from here; sorted[] holds here's ifindexes in order.
 * A permanent address follows its device across netns moves, replugs and reboots, so such
 * a record is never judged from one netns. Another boot's or another netns's record is not
 * ours to judge: their links are not in our list. A link that has the ifindex now is kept
 * whatever its identity: ifindexes are allocated cyclically, so it is most likely the very
 * device (one whose permanent address could not be read when it was recorded), and keeping
 * a record costs only space.
 */
static bool ident_gone(const struct journal_ident *id, const struct journal_here *here,
		       const int *sorted)
{
	/* The host's record names no device; its knobs stay as long as the kernel runs. */
	if (id->perm_addr[0] || journal_ident_is_host(id) || !here->boot_id[0] ||
	    !here->netns_cookie)
		return false;
	if (strcmp(id->boot_id, here->boot_id) || id->netns_cookie != here->netns_cookie)
		return false;
	return !bsearch(&id->ifindex, sorted, here->n_ifindexes, sizeof(*sorted), cmp_int);
}

int journal_gone_select(const struct journal_entry *ents, int n_ents,
			const struct journal_inflight *ops, int n_ops,
			const struct journal_here *here, bool *ent_gone, bool *op_gone)
{
	int *sorted = malloc(((size_t)(here->n_ifindexes > 0 ? here->n_ifindexes : 0) + 1) *
			     sizeof(*sorted));
	int i, k, n = 0;

	if (!sorted)
		return -ENOMEM;
	if (here->n_ifindexes > 0) {
		memcpy(sorted, here->ifindexes, here->n_ifindexes * sizeof(*sorted));
		qsort(sorted, here->n_ifindexes, sizeof(*sorted), cmp_int);
	}
	for (k = 0; k < n_ops; k++) {
		op_gone[k] = ops[k].orphaned && ident_gone(&ops[k].id, here, sorted);
		n += op_gone[k];
	}
	for (i = 0; i < n_ents; i++) {
		ent_gone[i] = ident_gone(&ents[i].id, here, sorted);
		/* A live operation on it still owns the device's records: its process ends
		 * them (rtltuned's trial, an apply that will fail with ENODEV). */
		for (k = 0; k < n_ops && ent_gone[i]; k++)
			if (!ops[k].orphaned && journal_ident_same(&ops[k].id, &ents[i].id))
				ent_gone[i] = false;
		n += ent_gone[i];
	}
	free(sorted);
	return n;
}

static void log_gone(struct journal *j, const struct journal_gone *g, const char *actor)
{
	const struct journal_ident *id = &g->entry.id;
	struct journal_event ev = {.ifname = id->ifname,
				   .new_value = JOURNAL_NO_VALUE,
				   .outcome = "forgotten",
				   .actor = actor};
	char reason[256];
	int k;

	ev.reason = g->reason;
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!g->entry.have[k])
			continue;
		ev.knob = k;
		ev.old_value = g->entry.orig[k];
		journal_log_append(j, &ev, NULL);
	}
	if (!g->had_inflight)
		return;
	snprintf(reason, sizeof(reason),
		 "%s; the %s by %s (pid %d) interrupted on it ended with it", g->reason, g->op.op,
		 g->op.actor, (int)g->op.pid);
	ev.reason = reason;
	ev.knob = -1;
	ev.old_value = JOURNAL_NO_VALUE;
	journal_log_append(j, &ev, NULL);
}

/*
 * Drop, in one durable write, the entries and in-flight records flagged in ent_gone[] and
 * op_gone[], each logged with why (a format taking the device's ifindex): the number of
 * devices forgotten, with *gone when not NULL.
 */
static int drop_flagged(struct journal *j, bool *ent_gone, bool *op_gone, const char *actor,
			const char *why, struct journal_gone **gone, struct rterr *err)
{
	struct journal_gone *list = NULL;
	struct jr_snapshot s;
	int i, k, n = 0, before, r;

	list = calloc((size_t)j->n_ents + j->n_ops + 1, sizeof(*list));
	if (!list)
		return rterr_sys(err, ENOMEM, "%s", j->path);
	for (i = 0; i < j->n_ents; i++) {
		if (!ent_gone[i])
			continue;
		list[n].entry = j->ents[i];
		for (k = 0; k < j->n_ops; k++) {
			if (op_gone[k] && journal_ident_same(&j->ops[k].id, &j->ents[i].id)) {
				list[n].had_inflight = true;
				list[n].op = j->ops[k];
				op_gone[k] = false; /* reported with its entry; dropped below */
			}
		}
		n++;
	}
	for (k = 0; k < j->n_ops; k++) {
		if (!op_gone[k])
			continue;
		list[n].entry =
			(struct journal_entry){.id = j->ops[k].id, .since = j->ops[k].since};
		list[n].had_inflight = true;
		list[n].op = j->ops[k];
		n++;
	}
	for (i = 0; i < n; i++)
		snprintf(list[i].reason, sizeof(list[i].reason), why, list[i].entry.id.ifindex);
	r = 0;
	if (!n)
		goto out;
	r = jr_snapshot_take(j, &s, err);
	if (r)
		goto out;
	before = j->n_ents + j->n_ops;
	/* From the end, so the indexes of what is still to drop do not move. */
	for (i = j->n_ents - 1; i >= 0; i--)
		if (ent_gone[i])
			jr_drop_originals(j, &j->ents[i], NULL);
	for (i = 0; i < n; i++) {
		struct journal_inflight *op =
			list[i].had_inflight ? jr_find_op(j, &list[i].op.id) : NULL;

		if (op)
			jr_drop_op(j, op);
	}
	r = jr_commit_or_undo(j, &s, err);
	if (r && j->n_ents + j->n_ops == before)
		goto out; /* undone: the records stay, on disk and in memory */
	/* Written (even when only the directory's fsync failed): the log keeps the values. */
	for (i = 0; i < n; i++)
		log_gone(j, &list[i], actor);
	if (r)
		goto out;
	r = n;
	if (gone) {
		*gone = list;
		list = NULL;
	}
out:
	free(list);
	return r;
}

int journal_forget_gone(struct journal *j, const int *ifindexes, int n_ifindexes, const char *actor,
			struct journal_gone **gone, struct rterr *err)
{
	struct journal_here here = {.netns_cookie = jr_netns_cookie(),
				    .ifindexes = ifindexes,
				    .n_ifindexes = n_ifindexes};
	bool *ent_gone = calloc((size_t)j->n_ents + 1, sizeof(bool));
	bool *op_gone = calloc((size_t)j->n_ops + 1, sizeof(bool));
	int i, k, r;

	if (gone)
		*gone = NULL;
	if (!ent_gone || !op_gone) {
		r = rterr_sys(err, ENOMEM, "%s", j->path);
		goto out;
	}
	if (!jr_word_ok(actor, 16)) {
		r = rterr_input(err, "invalid actor '%s'", actor ? actor : "");
		goto out;
	}
	snprintf(here.boot_id, sizeof(here.boot_id), "%s", jr_boot_id());
	/* Ended with a gone device: a dead process's operation on it, and the caller's own
	 * (the caller says the device is gone, and an operation on it cannot go on: rtltuned's
	 * trial on a veth whose pod was deleted, tests/integration/tuner_pods.sh). Another live
	 * process's stays for it to end. For the decision only: the handle keeps the flags. */
	for (k = 0; k < j->n_ops; k++)
		j->ops[k].orphaned = jr_op_mine(&j->ops[k]) || !jr_op_alive(&j->ops[k]);
	r = journal_gone_select(j->ents, j->n_ents, j->ops, j->n_ops, &here, ent_gone, op_gone);
	for (k = 0; k < j->n_ops; k++)
		if (jr_op_mine(&j->ops[k]))
			j->ops[k].orphaned = false;
	if (r <= 0) {
		if (r < 0)
			rterr_sys(err, -r, "%s", j->path);
		goto out;
	}
	/* The list was the caller's; the kernel's word on each absence is the proof. */
	for (i = 0; i < j->n_ents; i++)
		ent_gone[i] = ent_gone[i] && link_index_gone(j->ents[i].id.ifindex);
	for (k = 0; k < j->n_ops; k++)
		op_gone[k] = op_gone[k] && link_index_gone(j->ops[k].id.ifindex);
	r = drop_flagged(j, ent_gone, op_gone, actor,
			 "device gone (ifindex %d in this netns no longer exists)", gone, err);
out:
	free(ent_gone);
	free(op_gone);
	return r;
}

int journal_forget_netns(struct journal *j, uint64_t netns_cookie, const char *actor,
			 struct journal_gone **gone, struct rterr *err)
{
	bool *ent_gone = calloc((size_t)j->n_ents + 1, sizeof(bool));
	bool *op_gone = calloc((size_t)j->n_ops + 1, sizeof(bool));
	const char *boot = jr_boot_id();
	int i, k, r = 0;

	if (gone)
		*gone = NULL;
	if (!ent_gone || !op_gone) {
		r = rterr_sys(err, ENOMEM, "%s", j->path);
		goto out;
	}
	if (!jr_word_ok(actor, 16)) {
		r = rterr_input(err, "invalid actor '%s'", actor ? actor : "");
		goto out;
	}
	/* A permanent address follows its device out of the namespace; the host's record is
	 * no device's. Every other record of this boot in that namespace names a device that
	 * went with it, and its in-flight record, whoever began it, can never be rolled back. */
	for (i = 0; i < j->n_ents; i++) {
		const struct journal_ident *id = &j->ents[i].id;

		ent_gone[i] = netns_cookie && id->netns_cookie == netns_cookie &&
			      !id->perm_addr[0] && !journal_ident_is_host(id) &&
			      !strcmp(id->boot_id, boot);
		r += ent_gone[i];
	}
	for (k = 0; k < j->n_ops; k++) {
		const struct journal_ident *id = &j->ops[k].id;

		op_gone[k] = netns_cookie && id->netns_cookie == netns_cookie &&
			     !id->perm_addr[0] && !journal_ident_is_host(id) &&
			     !strcmp(id->boot_id, boot);
		r += op_gone[k];
	}
	if (r > 0)
		r = drop_flagged(j, ent_gone, op_gone, actor,
				 "device gone with its network namespace (ifindex %d there)", gone,
				 err);
out:
	free(ent_gone);
	free(op_gone);
	return r;
}
