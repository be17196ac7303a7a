/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ACTUATE_H
#define RTLTUNE_ACTUATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/journal.h"
#include "rtltune/nic.h"
#include "rtltune/plan.h"

/*
 * The actuator: the one code path that changes a NIC. `rtltune apply` and `restore`, and
 * in rtltuned the hotplug and reload applies, restores, the tuner's trials, steps and
 * rollbacks, and the rollback of operations a crash interrupted all execute a plan
 * (plan.h) through actuate(). It journals, changes, reads back, undoes on failure and
 * records each decision in the journal's log. Nothing else in rtltune calls a setter
 * (link_set_u32, ethtool_features_set_index): `make lint` checks it.
 */

/* One per run (a CLI command) or per daemon: the sockets every call reuses. */
struct actuator;
int actuator_new(const char *sysfs_root, struct actuator **out, struct rterr *err);
void actuator_free(struct actuator *a); /* NULL is fine */
/* The device sockets (rtnetlink, ethtool netlink) every read and write of the run uses. */
struct nic_io *actuator_io(struct actuator *a);
struct link_sock *actuator_link_sock(struct actuator *a);
const char *actuator_sysfs_root(const struct actuator *a);
/* A snapshot over the actuator's socket: by ifindex (a targeted RTM_GETLINK). */
int actuator_snapshot(struct actuator *a, int ifindex, struct nic *out, struct rterr *err);
/*
 * The same for the device ifindex of network namespace ns (netns.h; NULL: the process's
 * own), read from inside it with its own sockets; out->ns is ns, so that the plans made
 * from it, and actuate(), work there too (docs/namespaces.md).
 */
struct netns;
int actuator_snapshot_ns(struct actuator *a, struct netns *ns, int ifindex, struct nic *out,
			 struct rterr *err);
/*
 * The host's snapshot (hostknob.h: host_snapshot()): what a plan of the host-wide knobs is
 * made from and actuate() reads back; through HOST_PROC_SYS, or the directory a test set
 * with actuator_set_proc_sys() (kept, not copied).
 */
void actuator_host_snapshot(struct actuator *a, struct nic *out);
void actuator_set_proc_sys(struct actuator *a, const char *proc_sys);

struct act_opts {
	const char *op;		/* the journal's in-flight name: "apply", "restore", "trial", ... */
	const char *actor;	/* "cli" or "daemon" */
	const char *outcome;	/* the decision log's outcome per changed knob; NULL: "applied" */
	const char *reason;	/* logged with each change; NULL: the item's source */
	bool journal_originals; /* record originals first (false for restore, rollback) */
	/*
	 * Leave the in-flight record open on success: a tuner trial stays in flight until its
	 * verdict, so a crash mid-trial is rolled back at the next start. The verdict ends it
	 * (a rollback through actuate(), a keep through actuate_conclude()).
	 */
	bool keep_inflight;
};

/*
 * Execute plan on the live interface, all-or-nothing. Before the first change, the
 * originals (with journal_originals) and the in-flight operation are journaled durably;
 * knobs change in enum order (gso_max_size before its IPv4 twin); the device is read back
 * (plan->after) and a value the kernel kept different ("off [requested on]") counts as a
 * failure. On failure every knob this run changed is set back and err says what failed
 * and what was undone; an in-flight record this run began is ended, one it joined (a
 * trial's step, an interrupted operation it took over) stays for the caller or the next
 * start. The device is followed by plan->ifindex: a rename before or during the run
 * changes nothing; a device deleted midway fails with ENODEV "interface N (was NAME)
 * disappeared" and its operation ends (nothing is left to roll back). j must be open.
 */
int actuate(struct actuator *a, struct journal *j, struct plan *plan, const struct act_opts *o,
	    struct rterr *err);
/*
 * The same for a device and the uppers planned with it (plan_stack()), as one operation:
 * every record begun before the first change, a raise applied from the device up and a
 * decrease from the top down (no upper is ever left above a lower), all read back, and a
 * failure on any device undoes every device. Once, after the changes (and again after an
 * undo), the cached routes the changed knobs need are invalidated (route.h) so that
 * established connections take the new sizes; plans[0].rerouted says how, and the log has
 * a "rerouted" record. RTLTUNE_TEST_FAULT=apply_upper fails the first upper.
 */
int actuate_set(struct actuator *a, struct journal *j, struct plan *plans, unsigned int n,
		const struct act_opts *o, struct rterr *err);

/*
 * One interface's part of a run of many (an `rtltune apply` of a profile to every NIC): its
 * plans (plan_stack()) in, its outcome out.
 */
struct act_item {
	struct plan *plans;
	unsigned int n;
	int rc;		  /* 0, or the negative errno of its failure */
	struct rterr err; /* what failed and what was undone */
};
/*
 * Execute items[0..n) as actuate_set() does each, with the journal written twice for the
 * whole run whatever n is (journal_batch_begin()): every original and in-flight record of
 * every item in one durable write before the first change, every record ended in one write
 * after the last. Each item stays all-or-nothing on its own: a failure undoes that item only,
 * and its error is in items[i].err. The cached routes are invalidated once, after the last
 * change. Returns 0, minus the number of failed items, or a negative errno (err) when nothing
 * could start.
 */
int actuate_run(struct actuator *a, struct journal *j, struct act_item *items, unsigned int n,
		const struct act_opts *o, struct rterr *err);

/*
 * Put nic back to its journaled originals, with the uppers of st (may be NULL) that have
 * originals journaled (a change of nic reached them: plan_stack()), as one operation: the
 * plans (kernel limits only: the originals were the kernel's own values) through
 * actuate_set() as op "restore", then each device's originals forgotten and any operation
 * in flight on it ended in one durable write. plans[] gets PLAN_SET_MAX plans, *n_plans how
 * many were used. Returns 1 when originals were journaled (the plans executed), 0 when none
 * are (nothing to do), negative on failure with the plans holding what was planned and
 * done. A restore proceeds on a state dir that cannot be written
 * (journal_set_inflight_optional()); note then says what the journal still holds.
 */
int actuate_restore(struct actuator *a, struct journal *j, const struct nic *nic,
		    const struct nic_stack *st, const char *actor, struct plan *plans,
		    unsigned int *n_plans, char *note, size_t note_len, struct rterr *err);

/* What actuate_orphan() did. */
enum act_orphan {
	ACT_ORPHAN_ROLLED_BACK,	 /* its pre-values are set again, its record ended */
	ACT_ORPHAN_NOTHING_LEFT, /* every knob it touched is at its original: record ended */
};
/*
 * An operation whose process died (journal_inflight_list(): .orphaned) on device nic:
 * rolled back to its pre-values through actuate() (op "rollback", outcome "rolled_back"),
 * unless every knob it touched is at its journaled original: a restore ran after it died
 * but could not clear its record (docs/journal.md), and rolling back would undo that
 * restore. On failure the record stays, and the next start tries again.
 */
int actuate_orphan(struct actuator *a, struct journal *j, const struct journal_inflight *op,
		   const struct nic *nic, struct plan *plan, struct rterr *err);

/*
 * Roll the operation in flight on nics[0..n) (a device and the devices planned with it, at
 * levels[i] as plan.level says: NULL for index order)
 * back to the pre-values its journal records hold: the tuner's rollback, whatever steps the
 * trial took, on every device it reached. Through actuate_set() with o (its outcome
 * "rolled_back"), which ends the records; when every knob is already back, the records are
 * just ended. plans[] gets the PLAN_SET_MAX plans.
 */
int actuate_rollback(struct actuator *a, struct journal *j, const struct nic *nics,
		     const int *levels, unsigned int n, const struct act_opts *o,
		     struct plan *plans, struct rterr *err);

/*
 * A decision that changes nothing (the tuner keeps a trial, abandons one, or could not
 * start it): recorded in the log, and with end_inflight the in-flight records of nics[0..n)
 * (the device and the uppers the trial reached) ended, in the caller's one journal
 * operation.
 */
int actuate_conclude(struct journal *j, const struct nic *nics, unsigned int n,
		     const struct journal_event *ev, bool end_inflight, struct rterr *err);

#endif
