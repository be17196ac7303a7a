// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's call sites into lib/apply.c: the same plan/execute path `rtltune apply`
 * and `rtltune restore` run, so one code path changes a NIC.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "rtltune/apply.h"
#include "rtltuned.h"

/*
 * The journal lock is shared with `rtltune apply`. The daemon's loop must not stall
 * behind it for JOURNAL_LOCK_TIMEOUT_MS: a short wait, and a hotplug apply that loses
 * the race is retried a second later.
 */
#define DAEMON_LOCK_WAIT_MS   300
#define DAEMON_APPLY_RETRY_US 1000000

const char *decision_outcome_name(enum decision_outcome o)
{
	static const char *const names[] = {"applied", "failed",    "rolled_back", "kept",
					    "trial",   "abandoned", "step"};

	return (unsigned int)o < OUTCOME__COUNT ? names[o] : "unknown";
}

int daemon_load_profile_and_chips(const struct rtd_config *cfg, struct rterr *err)
{
	struct profile *p = NULL;
	struct chipdb *db = NULL;
	int r;

	r = chipdb_load_default(&db, err);
	if (r < 0)
		return r;
	if (cfg->profile[0]) {
		r = profile_load(cfg->profile, &p, err);
		if (r < 0) {
			chipdb_free(db);
			return r;
		}
	}
	profile_free(rtd.profile);
	chipdb_free(rtd.chips);
	rtd.profile = p;
	rtd.chips = db;
	return 0;
}

static json_object *value_json(enum knob_id k, int64_t v)
{
	if (v == LINK_UNSET)
		return NULL;
	return knob_type(k) == KNOB_T_BOOL ? json_object_new_boolean(v != 0)
					   : json_object_new_int64(v);
}

/* The document `rtltune apply --json` prints per interface (cli/cmd_apply.c plan_json). */
static json_object *plan_json(const struct plan *plan, bool executed)
{
	json_object *o = json_object_new_object(), *items = json_object_new_array();
	int k;

	json_object_object_add(o, "ifname", json_object_new_string(plan->ifname));
	json_object_object_add(o, "chip",
			       plan->chip_id[0] ? json_object_new_string(plan->chip_id) : NULL);
	json_object_object_add(o, "warnings",
			       plan->warnings[0] ? json_object_new_string(plan->warnings) : NULL);
	for (k = 0; k < KNOB__COUNT; k++) {
		const struct plan_item *it = &plan->items[k];
		json_object *i;

		if (it->action == PLAN_KEEP && !it->note[0])
			continue;
		i = json_object_new_object();
		json_object_object_add(i, "knob",
				       json_object_new_string(knob_name((enum knob_id)k)));
		json_object_object_add(i, "action",
				       json_object_new_string(plan_action_name(it->action)));
		json_object_object_add(i, "old", value_json((enum knob_id)k, it->cur));
		json_object_object_add(i, "new", value_json((enum knob_id)k, it->target));
		json_object_object_add(i, "source",
				       it->src[0] ? json_object_new_string(it->src) : NULL);
		json_object_object_add(i, "note",
				       it->note[0] ? json_object_new_string(it->note) : NULL);
		if (executed && it->action == PLAN_CHANGE) {
			json_object_object_add(i, "applied",
					       json_object_new_boolean(it->changed && !it->undone));
			json_object_object_add(i, "undone", json_object_new_boolean(it->undone));
		}
		json_object_array_add(items, i);
	}
	json_object_object_add(o, "changes", items);
	return o;
}

/* Count and log what a run did, knob by knob. */
static void account(struct iface *ifc, const struct plan *plan, int rc, const char *why)
{
	char a[24], b[24];
	int k;

	ifc->applied_changes = 0;
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
		ifc->decisions[k][o]++;
		if (o == OUTCOME_APPLIED) {
			ifc->applied_changes++;
			dlog(LOG_NOTICE, ifc->name, "%s %s -> %s (%s)", knob_name((enum knob_id)k),
			     knob_value_str((enum knob_id)k, it->cur, a, sizeof(a)),
			     knob_value_str((enum knob_id)k, it->after, b, sizeof(b)), why);
		}
	}
	rtd.generation++;
}

static int snapshot(struct iface *ifc, struct nic *nic, const struct chip_entry **chip,
		    struct rterr *err)
{
	int r = nic_snapshot("/sys", ifc->name, nic, err);

	if (r < 0)
		return r;
	*chip = rtd.chips ? chipdb_match_nic(rtd.chips, nic, NULL) : NULL;
	return 0;
}

/* Plan p for ifc and, unless dry_run, execute it. *out gets the per-interface document. */
static int run_profile(struct iface *ifc, const struct profile *p, bool dry_run, const char *why,
		       json_object **out, struct rterr *err)
{
	struct apply_opts opts = {
		.op = "apply", .actor = "daemon", .reason = why, .journal_originals = true};
	const struct chip_entry *chip;
	struct journal *j = NULL;
	struct plan plan;
	struct nic nic;
	int r;

	r = snapshot(ifc, &nic, &chip, err);
	if (r == 0)
		r = apply_plan_profile(p, &nic, chip, &plan, err);
	if (r < 0)
		return r;
	if (dry_run || !plan.n_changes) {
		if (out)
			*out = plan_json(&plan, false);
		return 0;
	}
	/* Kept for iface_forget(): read now, while the device surely exists (it may vanish
	 * during the run and leave originals journaled under this identity). */
	if (journal_ident_read(ifc->name, &ifc->jid, err) < 0)
		return -ENODEV;
	ifc->have_jid = true;
	r = journal_open_timeout(rtd.cfg.state_dir, DAEMON_LOCK_WAIT_MS, &j, err);
	if (r < 0)
		return r;
	r = apply_execute(j, "/sys", &plan, &opts, err);
	journal_close(j);
	account(ifc, &plan, r, why);
	if (out) {
		*out = plan_json(&plan, true);
		if (r < 0)
			json_object_object_add(*out, "error", json_object_new_string(err->msg));
	}
	iface_refresh(ifc);
	return r;
}

int daemon_apply_profile(struct iface *ifc, struct rterr *err)
{
	char why[300];
	int r;

	if (!rtd.profile)
		return rterr_input(err, "profile %s is not loaded (see the log)", rtd.cfg.profile);
	snprintf(why, sizeof(why), "profile %s", rtd.profile->name);
	r = run_profile(ifc, rtd.profile, false, why, NULL, err);
	if (r == -EBUSY || r == -ETIMEDOUT || r == -EAGAIN) {
		/* The journal is held by a CLI run: try again shortly rather than block. */
		dlog(LOG_INFO, ifc->name, "%s; retrying in 1 s", err->msg);
		iface_schedule_apply(ifc, DAEMON_APPLY_RETRY_US);
		return 0;
	}
	return r;
}

int daemon_apply_request(struct iface *ifc, const char *profile, bool dry_run, uid_t uid,
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
	r = run_profile(ifc, p ? p : rtd.profile, dry_run, why, out, err);
	profile_free(p);
	if (r < 0 && *out)
		return r; /* per-interface failure: reported in *out, others go on */
	return r;
}

int daemon_restore_request(struct iface *ifc, uid_t uid, json_object **out, struct rterr *err)
{
	struct apply_opts opts = {.op = "restore", .actor = "daemon", .reason = "restore"};
	int64_t orig[KNOB__COUNT];
	bool have[KNOB__COUNT];
	const struct chip_entry *chip;
	struct journal_ident id;
	struct journal *j = NULL;
	struct rterr e = {0};
	char note[sizeof(e.msg)] = "";
	struct plan plan;
	struct nic nic;
	int r;

	*out = NULL;
	r = journal_open_timeout(rtd.cfg.state_dir, DAEMON_LOCK_WAIT_MS, &j, err);
	if (r < 0)
		return r;
	/* Its targets are originals already durable: a full or read-only state dir must not
	 * keep the interface changed (docs/journal.md). */
	journal_set_inflight_optional(j, true);
	r = journal_ident_read(ifc->name, &id, &e);
	if (r == 0)
		r = journal_get_originals(j, &id, orig, have, &e);
	if (r == 0) {
		/* Nothing journaled: nothing to do, and that is not an error. */
		*out = json_object_new_object();
		json_object_object_add(*out, "ifname", json_object_new_string(ifc->name));
		json_object_object_add(*out, "changes", json_object_new_array());
		journal_close(j);
		return 0;
	}
	if (r > 0)
		r = snapshot(ifc, &nic, &chip, &e);
	/* The originals were the kernel's own values: only its limits apply, not the chip's. */
	if (r >= 0)
		r = apply_plan_values(&nic, NULL, orig, have, "restore", &plan, &e);
	if (r < 0) {
		journal_close(j);
		*out = json_object_new_object();
		json_object_object_add(*out, "ifname", json_object_new_string(ifc->name));
		json_object_object_add(*out, "changes", json_object_new_array());
		json_object_object_add(*out, "error", json_object_new_string(e.msg));
		*err = e;
		return r;
	}
	r = apply_execute(j, "/sys", &plan, &opts, &e);
	/* Restored whether or not the journal can say so: what it keeps equals the current
	 * values, and the next restore clears it (cli/cmd_apply.c restore_one). */
	if (r == 0 && journal_restore_done(j, &id, have, &e) < 0)
		journal_restore_note(j, &id, &e, note, sizeof(note));
	journal_close(j);
	account(ifc, &plan, r, "restore");
	*out = plan_json(&plan, true);
	if (r < 0) {
		json_object_object_add(*out, "error", json_object_new_string(e.msg));
		*err = e;
	} else {
		dlog(LOG_NOTICE, ifc->name, "restored (requested by uid %u)", (unsigned int)uid);
	}
	if (note[0]) {
		json_object_object_add(*out, "journal", json_object_new_string(note));
		dlog(LOG_WARNING, ifc->name, "restored, but the journal was %s", note);
	}
	iface_refresh(ifc);
	return r;
}

void daemon_restore_all(void)
{
	struct iface *ifc;

	for (ifc = rtd.ifaces; ifc; ifc = ifc->next) {
		json_object *out = NULL;
		struct rterr err = {0};

		if (!ifc->managed)
			continue;
		if (daemon_restore_request(ifc, 0, &out, &err) < 0)
			dlog(LOG_ERR, ifc->name, "restore on exit failed: %s", err.msg);
		json_object_put(out);
	}
}

void iface_forget(struct iface *ifc)
{
	struct journal *j = NULL;
	struct rterr err;

	bpf_untrack(ifc);
	tune_forget(ifc);
	sampler_note_removal();
	/* A device without a permanent address (veth, bridge, tunnel) is matched by ifindex
	 * within one boot and netns: once gone, its journal entry can never be restored and
	 * would only accumulate. Real NICs keep theirs (they come back after a replug). */
	if (!ifc->have_jid || ifc->jid.perm_addr[0])
		return;
	if (journal_open_timeout(rtd.cfg.state_dir, DAEMON_LOCK_WAIT_MS, &j, &err) < 0)
		return;
	/* A run the device's removal cut short leaves its operation in flight too. */
	journal_inflight_end(j, &ifc->jid, &err);
	journal_forget(j, &ifc->jid, NULL, &err);
	journal_close(j);
}
