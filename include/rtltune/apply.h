/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_APPLY_H
#define RTLTUNE_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/chipdb.h"
#include "rtltune/err.h"
#include "rtltune/journal.h"
#include "rtltune/knob.h"
#include "rtltune/nic.h"
#include "rtltune/profile.h"

/*
 * The one code path that changes a NIC: `rtltune apply/restore`, the daemon's hotplug
 * apply and the tuner's trials all build a plan and execute it here.
 *
 *	apply_plan_profile()   resolve a profile for one interface into target values
 *	apply_execute()        journal originals, change, read back, undo on failure
 */

enum plan_action {
	PLAN_KEEP,   /* not set by the profile (or "keep") */
	PLAN_SAME,   /* already at the target */
	PLAN_CHANGE, /* will change */
	PLAN_SKIP,   /* cannot apply here (kernel lacks the attribute, fixed feature, ...) */
};

struct plan_item {
	enum plan_action action;
	int64_t cur;	   /* current value, LINK_UNSET when unknown */
	int64_t target;	   /* value to set (PLAN_CHANGE/PLAN_SAME) */
	char src[320];	   /* "file:line" of the profile line, or "restore" / "tuner" */
	char note[256];	   /* why skipped, how "max" resolved, quirks weighed */
	/* Filled by apply_execute(): */
	int64_t after;	   /* value read back after the run */
	bool changed;	   /* the kernel call was made and succeeded */
	bool undone;	   /* changed, then undone because the run failed */
};

struct plan {
	char ifname[IF_NAMESIZE]; /* as asked for; reports keep it across a rename */
	int ifindex;		  /* apply_execute() follows the device by this */
	char chip_id[48]; /* "" when no entry matched */
	struct plan_item items[KNOB__COUNT];
	char warnings[512]; /* plan-wide notes ("jumbo MTU turns TSO off on this chip") */
	unsigned int n_changes;
	/* Filled by apply_execute(): the name the device has now when renamed meanwhile
	 * (also noted in warnings), else "". */
	char ifname_now[IF_NAMESIZE];
};

/*
 * Resolve profile p for nic (chip may be NULL) into *plan: every knob's target, "max"
 * resolved from the effective limits (kernel cut by chip table and quirks). A value
 * outside the limits is refused here (RTERR_INPUT naming the knob, value and limit), so
 * nothing is changed on bad input.
 */
int apply_plan_profile(const struct profile *p, const struct nic *nic,
		       const struct chip_entry *chip, struct plan *plan, struct rterr *err);
/* Build a plan from explicit targets (restore, tuner): which[] knobs to targets[]. */
int apply_plan_values(const struct nic *nic, const struct chip_entry *chip,
		      const int64_t targets[KNOB__COUNT], const bool which[KNOB__COUNT],
		      const char *src, struct plan *plan, struct rterr *err);

struct apply_opts {
	const char *op;	   /* "apply", "restore", "trial": journal in-flight op name */
	const char *actor; /* "cli" or "daemon" */
	const char *reason; /* logged with each change, may be NULL */
	bool journal_originals; /* record originals first (false for restore) */
	/*
	 * Leave the in-flight record open on success: a tuner trial stays in flight until its
	 * verdict, so a crash mid-trial is rolled back at the next start. The caller ends it
	 * (journal_inflight_end) when it keeps or rolls back.
	 */
	bool keep_inflight;
};

/*
 * Execute plan on the live interface, all-or-nothing: originals (and the in-flight
 * operation) are journaled durably before the first change; knobs change in enum order
 * (gso_max_size before its IPv4 twin); each is read back and a value the kernel kept
 * different (ETHTOOL_F_WISH, "off [requested on]") counts as a failure. On failure every
 * knob this run changed is set back, and err says what failed and what was undone.
 * The device is followed by plan->ifindex, so a rename before or during the run changes
 * nothing; a device deleted midway fails with ENODEV, "interface N (was NAME)
 * disappeared", and its operation is ended (nothing is left to roll back).
 * j must be open (it holds the lock). sysfs_root as for nic_snapshot().
 */
int apply_execute(struct journal *j, const char *sysfs_root, struct plan *plan,
		  const struct apply_opts *opts, struct rterr *err);

/*
 * Set one knob on an interface now (no journal, no readback): the actuator table's
 * single entry point. With ifindex > 0 the device is found by ifindex (ifname only names
 * it in messages), else by ifname.
 */
int apply_knob_set(const char *ifname, int ifindex, enum knob_id knob, int64_t value,
		   struct rterr *err);

/* Knobs whose value the kernel moves when another is set (gso_max_size <= 64K also
 * sets gso_ipv4_max_size; likewise gro). */
void apply_side_effects(const bool which[KNOB__COUNT], bool out[KNOB__COUNT]);

const char *plan_action_name(enum plan_action a); /* "keep", "same", "change", "skip" */

#endif
