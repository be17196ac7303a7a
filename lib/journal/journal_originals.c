// SPDX-License-Identifier: GPL-2.0-only
/*
 * Originals (docs/journal.md): the value of every knob before rtltune first changed it,
 * per device, what `rtltune restore` goes back to.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_priv.h"

int jr_check_ident(const struct journal_ident *id, struct rterr *err)
{
	if (!id || !jr_ifname_ok(id->ifname))
		return rterr_input(err, "invalid interface name '%s'", id ? id->ifname : "");
	if ((id->perm_addr[0] && !jr_perm_addr_ok(id->perm_addr)) ||
	    (id->boot_id[0] && !jr_boot_id_ok(id->boot_id)) || id->ifindex < 0 ||
	    (journal_ident_is_host(id) && !jr_host_ok(id)))
		return rterr_input(err, "%s: malformed identity (use journal_ident_read)",
				   id->ifname);
	return 0;
}

/* A device's record holds device knobs, the host's the host-wide ones: never a mix. */
static int check_scope(const struct journal_ident *id, const bool which[KNOB__COUNT],
		       struct rterr *err)
{
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && knob_is_host((enum knob_id)k) != journal_ident_is_host(id))
			return rterr_input(err, "%s: %s is %s", id->ifname, knob_name(k),
					   journal_ident_is_host(id)
						   ? "not a host-wide knob"
						   : "host-wide: journaled as the host's");
	return 0;
}

/*
 * A value the kernel does not report (JOURNAL_UNKNOWN) is skipped: the knob does not
 * exist there, so nothing changes it. Anything else out of range is refused, since it
 * could not be restored.
 */
int jr_check_values(const struct journal_ident *id, const int64_t values[KNOB__COUNT],
		    const bool which[KNOB__COUNT], struct rterr *err)
{
	int k, r = check_scope(id, which, err);

	if (r)
		return r;
	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && values[k] != JOURNAL_UNKNOWN && !knob_value_valid(k, values[k]))
			return rterr_input(err,
					   "%s: current %s %" PRId64 " is out of range; cannot "
					   "journal it, so not changing it",
					   id->ifname, knob_name(k), values[k]);
	return 0;
}

/* Whether device id's journaled originals include every knob in which[] it reports. */
bool jr_originals_cover(struct journal *j, const struct journal_ident *id,
			const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT])
{
	const struct journal_entry *e = jr_find_entry(j, id);
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && values[k] != JOURNAL_UNKNOWN && (!e || !e->have[k]))
			return false;
	return true;
}

/*
 * Add to the in-memory journal the originals in which[] that device id does not have
 * yet, and refresh its name/ifindex (rename, reboot). *changed says whether a commit is
 * needed.
 */
int jr_stage_originals(struct journal *j, const struct journal_ident *id,
		       const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
		       bool *changed, struct rterr *err)
{
	struct journal_entry *e = jr_find_entry(j, id);
	int k, r = jr_check_values(id, values, which, err);

	if (r)
		return r;
	if (!e) {
		for (k = 0; k < KNOB__COUNT && (!which[k] || values[k] == JOURNAL_UNKNOWN); k++)
			;
		if (k == KNOB__COUNT)
			return 0;
		if (jr_grow(&j->ents, j->n_ents, sizeof(*j->ents)))
			return rterr_sys(err, ENOMEM, "%s", j->path);
		e = &j->ents[j->n_ents++];
		*e = (struct journal_entry){.id = *id, .since = jr_now_us() / 1000000};
		*changed = true;
	} else if (!jr_ident_equal(&e->id, id)) {
		e->id = *id;
		*changed = true;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || e->have[k] || values[k] == JOURNAL_UNKNOWN)
			continue;
		e->have[k] = true;
		e->orig[k] = values[k];
		*changed = true;
	}
	return 0;
}

int journal_record_originals(struct journal *j, const struct journal_ident *id,
			     const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
			     struct rterr *err)
{
	struct jr_snapshot s;
	bool changed = false;
	int r = jr_check_ident(id, err);

	if (r)
		return r;
	r = jr_snapshot_take(j, &s, err);
	if (r)
		return r;
	r = jr_stage_originals(j, id, values, which, &changed, err);
	if (r || !changed) {
		if (r)
			jr_snapshot_restore(j, &s);
		else
			jr_snapshot_drop(&s);
		return r;
	}
	return jr_commit_or_undo(j, &s, err);
}

int journal_get_originals(struct journal *j, const struct journal_ident *id,
			  int64_t values[KNOB__COUNT], bool have[KNOB__COUNT], struct rterr *err)
{
	const struct journal_entry *e = jr_find_entry(j, id);
	char then[160], now[160];
	int i;

	memset(have, 0, KNOB__COUNT * sizeof(*have));
	if (e) {
		memcpy(have, e->have, sizeof(e->have));
		memcpy(values, e->orig, sizeof(e->orig));
		return 1;
	}
	for (i = 0; i < j->n_ents; i++) {
		/* The host's record of another netns or boot is not another device's: nothing
		 * to restore from here, and no device is ever taken for the host. */
		if (strcmp(j->ents[i].id.ifname, id->ifname) || journal_ident_is_host(id) ||
		    journal_ident_is_host(&j->ents[i].id))
			continue;
		/* Nor is a device of another namespace in this boot: every pod has its eth0
		 * (docs/namespaces.md), and a namespace's records end when it goes. */
		if (j->ents[i].id.netns_cookie != id->netns_cookie &&
		    !strcmp(j->ents[i].id.boot_id, id->boot_id))
			continue;
		jr_ident_describe(&j->ents[i].id, then, sizeof(then));
		jr_ident_describe(id, now, sizeof(now));
		rterr_input(err,
			    "%s: the journal's originals are for another device (recorded: %s; "
			    "now: %s); not restoring them",
			    id->ifname, then, now);
		if (err)
			err->errnum = ESTALE;
		return -ESTALE;
	}
	return 0;
}

/* Drop e's originals in which[] (NULL: all), and e itself once it has none left. */
bool jr_drop_originals(struct journal *j, struct journal_entry *e, const bool which[KNOB__COUNT])
{
	bool changed = false, left = false;
	int k;

	for (k = 0; k < KNOB__COUNT; k++) {
		if (e->have[k] && (!which || which[k])) {
			e->have[k] = false;
			changed = true;
		}
		left |= e->have[k];
	}
	if (!left) {
		memmove(e, e + 1, (j->ents + j->n_ents - (e + 1)) * sizeof(*e));
		j->n_ents--;
	}
	return changed;
}

int journal_forget(struct journal *j, const struct journal_ident *id, const bool which[KNOB__COUNT],
		   struct rterr *err)
{
	struct journal_entry *e = jr_find_entry(j, id);
	struct jr_snapshot s;
	int r;

	if (!e)
		return 0;
	r = jr_snapshot_take(j, &s, err);
	if (r)
		return r;
	if (!jr_drop_originals(j, e, which)) {
		jr_snapshot_drop(&s);
		return 0;
	}
	return jr_commit_or_undo(j, &s, err);
}

int journal_restore_done(struct journal *j, const struct journal_ident *id,
			 const bool which[KNOB__COUNT], struct rterr *err)
{
	struct journal_entry *e = jr_find_entry(j, id);
	struct journal_inflight *op = jr_find_op(j, id);
	struct jr_snapshot s;
	bool changed = false;
	int r;

	if (!e && !op)
		return 0;
	r = jr_snapshot_take(j, &s, err);
	if (r)
		return r;
	if (op) {
		jr_drop_op(j, op);
		changed = true;
	}
	if (e && jr_drop_originals(j, e, which))
		changed = true;
	if (!changed) {
		jr_snapshot_drop(&s);
		return 0;
	}
	return jr_commit_or_undo(j, &s, err);
}

void journal_restore_note(struct journal *j, const struct journal_ident *id,
			  const struct rterr *failed, char *buf, size_t len)
{
	const struct journal_inflight *op = jr_find_op(j, id);
	int n;

	n = snprintf(buf, len, "not updated: %s (state dir %s)",
		     failed->errnum ? strerror(failed->errnum) : failed->msg, j->dir);
	if (op && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; it still holds an in-flight %s by %s (pid %d)",
			 op->op, op->actor, (int)op->pid);
}

int journal_entries(struct journal *j, const struct journal_entry **entries)
{
	*entries = j->ents;
	return j->n_ents;
}
