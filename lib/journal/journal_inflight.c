// SPDX-License-Identifier: GPL-2.0-only
/*
 * Operations in flight (docs/journal.md): what an apply, a trial or a restore is about to
 * change, durable before the first change, so that one its process could not finish is
 * rolled back at rtltuned's next start; and whose process each record belongs to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal_priv.h"

/* This process's own start time, read once (per pid: a forked child reads its own). */
static uint64_t self_start_time(void)
{
	static pid_t pid;
	static uint64_t start;

	if (pid != jr_pid() || !start) {
		pid = jr_pid();
		start = jr_proc_start_time(pid);
	}
	return start;
}

bool jr_op_mine(const struct journal_inflight *op)
{
	return op->pid == jr_pid() && op->pid_start == self_start_time() &&
	       !strcmp(op->id.boot_id, jr_boot_id());
}

void journal_set_inflight_optional(struct journal *j, bool optional)
{
	j->inflight_optional = optional;
}

int journal_inflight_skipped(const struct journal *j, struct rterr *err)
{
	if (err && j->inflight_skip.errnum)
		*err = j->inflight_skip;
	return j->inflight_skip.errnum;
}

/*
 * Commit an in-flight change. On a handle where in-flight records are optional, a state
 * dir that cannot take the write (full, read-only, over quota, failing) is noted and the
 * change skipped: jr_commit_or_undo() has left memory equal to the disk. may_skip is false
 * when the write would also journal a new original, which nothing may do without.
 */
static int commit_inflight(struct journal *j, struct jr_snapshot *s, bool may_skip,
			   struct rterr *err)
{
	struct rterr e = {0};
	int r;

	if (j->batch) {
		/* journal_batch_flush() writes it; only new originals make that write a must. */
		j->batch_dirty = true;
		j->batch_needs_disk |= !may_skip;
		return 0;
	}
	r = jr_commit_or_undo(j, s, &e);
	if (!r)
		return 0;
	if (may_skip && j->inflight_optional &&
	    (r == -ENOSPC || r == -EROFS || r == -EDQUOT || r == -EIO)) {
		j->inflight_skip = e;
		return 0;
	}
	if (err)
		*err = e;
	return r;
}

int journal_inflight_begin(struct journal *j, const struct journal_ident *id, const char *op_name,
			   const char *actor, const int64_t pre[KNOB__COUNT],
			   const bool which[KNOB__COUNT], struct rterr *err)
{
	struct journal_inflight *op;
	struct jr_snapshot s = {0};
	struct jr_mark mark;
	bool changed = false, covered;
	int k, r = jr_check_ident(id, err);

	if (r)
		return r;
	if (!jr_word_ok(op_name, sizeof(op->op)) || !jr_word_ok(actor, sizeof(op->actor)))
		return rterr_input(err, "%s: invalid operation '%s' or actor '%s'", id->ifname,
				   op_name ? op_name : "", actor ? actor : "");
	r = jr_check_values(id, pre, which, err);
	if (r)
		return r;
	op = jr_find_op(j, id);
	if (op && !jr_op_mine(op) && jr_op_alive(op))
		return rterr_sys(err, EBUSY, "%s: %s by %s (pid %d) in progress", id->ifname,
				 op->op, op->actor, (int)op->pid);
	covered = jr_originals_cover(j, id, pre, which);
	/* In a batch nothing is written here, and what this changes is this device's: a mark
	 * to go back to, not a copy of every record (a run over N devices would copy N^2). */
	if (j->batch)
		jr_mark_take(j, id, &mark);
	else if ((r = jr_snapshot_take(j, &s, err)))
		return r;
	if (op && !jr_op_mine(op)) {
		/*
		 * Adopt an interrupted operation: its pre-values are older than ours, and a
		 * crash of this one too must roll back to them, so they are kept.
		 */
		op->id = *id;
		op->pid = jr_pid();
		op->pid_start = self_start_time();
		op->orphaned = false;
		snprintf(op->op, sizeof(op->op), "%s", op_name);
		snprintf(op->actor, sizeof(op->actor), "%s", actor);
		changed = true;
	} else if (!op) {
		if (jr_grow(&j->ops, j->n_ops, sizeof(*j->ops))) {
			if (j->batch)
				jr_mark_restore(j, &mark);
			jr_snapshot_drop(&s);
			return rterr_sys(err, ENOMEM, "%s", j->path);
		}
		op = &j->ops[j->n_ops++];
		*op = (struct journal_inflight){.id = *id,
						.pid = jr_pid(),
						.pid_start = self_start_time(),
						.since = jr_now_us() / 1000000};
		snprintf(op->op, sizeof(op->op), "%s", op_name);
		snprintf(op->actor, sizeof(op->actor), "%s", actor);
		changed = true;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || op->which[k] || pre[k] == JOURNAL_UNKNOWN)
			continue;
		op->which[k] = true;
		op->pre[k] = pre[k];
		changed = true;
	}
	for (k = 0; k < KNOB__COUNT && !op->which[k]; k++)
		;
	if (k == KNOB__COUNT) /* nothing known to change: no record (the parser wants one) */
		changed = false;
	r = jr_stage_originals(j, id, pre, which, &changed, err);
	if (r || !changed) {
		if (j->batch)
			jr_mark_restore(j, &mark);
		else
			jr_snapshot_restore(j, &s);
		return r;
	}
	return commit_inflight(j, &s, covered, err);
}

int journal_inflight_end(struct journal *j, const struct journal_ident *id, struct rterr *err)
{
	struct journal_inflight *op = jr_find_op(j, id);
	struct jr_snapshot s = {0};
	int r;

	if (!op)
		return 0;
	/* In a batch the flush has the snapshot to go back to. */
	if (!j->batch && (r = jr_snapshot_take(j, &s, err)))
		return r;
	jr_drop_op(j, op);
	return commit_inflight(j, &s, true, err);
}

int journal_inflight_get(struct journal *j, const struct journal_ident *id,
			 struct journal_inflight *out)
{
	struct journal_inflight *op = jr_find_op(j, id);

	if (!op)
		return 0;
	op->orphaned = !jr_op_mine(op) && !jr_op_alive(op);
	*out = *op;
	return 1;
}

int journal_inflight_list(struct journal *j, const struct journal_inflight **ops)
{
	int i;

	for (i = 0; i < j->n_ops; i++)
		j->ops[i].orphaned = !jr_op_mine(&j->ops[i]) && !jr_op_alive(&j->ops[i]);
	*ops = j->ops;
	return j->n_ops;
}
