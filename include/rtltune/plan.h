/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PLAN_H
#define RTLTUNE_PLAN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/chipdb.h"
#include "rtltune/err.h"
#include "rtltune/knob.h"
#include "rtltune/nic.h"
#include "rtltune/profile.h"
#include "rtltune/stack.h"

/*
 * A plan: what one change of one interface will set, knob by knob, built from a snapshot
 * without touching the device. Bad input (a value outside the limits) is refused here, so
 * nothing changes on it. lib/actuate/actuate.c executes plans; nothing else changes a NIC.
 *
 *	plan_profile()   a profile's targets for the interface, "max" resolved
 *	plan_values()    explicit targets (the tuner, a rollback)
 *	plan_restore()   the journaled originals (actuate.h)
 *	plan_device()    either of the first two for a device on its stack: what
 *	                 `rtltune apply`, `rtltune sweep`, rtltuned's applies and its tuner
 *	                 hand actuate_set()
 */

enum plan_action {
	PLAN_KEEP,   /* not set by the profile (or "keep") */
	PLAN_SAME,   /* already at the target */
	PLAN_CHANGE, /* will change */
	PLAN_SKIP,   /* cannot apply here (kernel lacks the attribute, fixed feature, ...) */
};

struct plan_item {
	enum plan_action action;
	int64_t cur;	/* current value, LINK_UNSET when unknown */
	int64_t target; /* value to set (PLAN_CHANGE/PLAN_SAME) */
	/* Offsets into the plan's text (plan_src(), plan_note()): "file:line" of the profile
	 * line or "restore" / "tuner"; why skipped, how "max" resolved, quirks weighed. */
	uint16_t src, note;
	/* Filled by actuate(): */
	int64_t after; /* value read back after the run */
	bool changed;  /* the kernel call was made and succeeded */
	bool undone;   /* changed, then undone because the run failed */
};

/* Room for the sources and notes of one plan's items (a plan is copied and kept by the
 * dozen: its 115 items hold offsets, not buffers). */
#define PLAN_TEXT 6144

struct plan {
	char ifname[IF_NAMESIZE];   /* as asked for; reports keep it across a rename */
	char upper_of[IF_NAMESIZE]; /* an upper (or lower) planned along with this device */
	int level;   /* in a set: 0 the device, > 0 its uppers (nearest 1), < 0 its lowers */
	int ifindex; /* actuate() follows the device by this */
	/* Its network namespace (the snapshot's nic.ns; NULL: the process's own): actuate()
	 * works on it from inside. A set's devices share it but for the device's veth peer
	 * in another namespace (stack.h struct stack_peer), planned with it. */
	struct netns *ns;
	/* The host's own plan (hostknob.h: a snapshot with host set): its host-wide knobs,
	 * journaled under the host's identity (journal_ident_host()); ifindex 0. */
	bool host;
	char chip_id[48]; /* "" when no entry matched */
	struct plan_item items[KNOB__COUNT];
	char warnings[512];   /* plan-wide notes ("jumbo MTU turns TSO off on this chip") */
	char text[PLAN_TEXT]; /* the items' sources and notes; text[0] is "" */
	uint16_t text_used;
	unsigned int n_changes;
	/* Filled by actuate(): the name the device has now when renamed meanwhile (also
	 * noted in warnings), else ""; and the device as read back (when after_valid), so
	 * the caller needs no read of its own. */
	char ifname_now[IF_NAMESIZE];
	bool after_valid;
	struct nic after;
	/* Filled by actuate(): how established connections were made to take the change
	 * (route.h), or why they could not (reroute_failed); "" when the change needed
	 * nothing. */
	char rerouted[256];
	bool reroute_failed;
};

/* A change of a device and of the uppers that carry its traffic, executed as one: the
 * device, its uppers, its lowers, its veth peer in another namespace. */
#define PLAN_SET_MAX (2 + 2 * STACK_MAX)

/*
 * Resolve profile p for nic (chip may be NULL) into *plan: every knob's target, "max"
 * resolved from the effective limits (kernel cut by chip table and quirks). A value
 * outside the limits is refused here (RTERR_INPUT naming the knob, value and limit).
 */
int plan_profile(const struct profile *p, const struct nic *nic, const struct chip_entry *chip,
		 struct plan *plan, struct rterr *err);
/*
 * A device's plan leaves the host-wide knobs (knob_is_host()) alone and the host's plan
 * everything else: a profile's host knobs go to the host's plan only (plan_profile() of
 * host_snapshot()), once per apply; an explicit target of the other kind is skipped with
 * why (refused where the request sets refuse_skip).
 */
/* Explicit targets: which[] knobs to targets[], src naming who asks ("tuner"). */
int plan_values(const struct nic *nic, const struct chip_entry *chip,
		const int64_t targets[KNOB__COUNT], const bool which[KNOB__COUNT], const char *src,
		struct plan *plan, struct rterr *err);

/*
 * The uppers' part of a change (docs/stack.md): for each KNOB_F_STACK knob base sets, each
 * upper of st gets the value the device below it will have, within the upper's own
 * ceiling and the values of its other lowers (then the note says which lower limits it);
 * a raise lowers no device, a decrease brings every upper down with it. links[0..n) is
 * the dump st was built from. want (NULL: base's targets) is what the stack as a whole
 * should get of each knob, for a change asked of the effective size (the tuner's): no upper
 * gets more. with_lowers (a pair tuned together, chip quirk tune-with-master: hv_netvsc and
 * its VF) also raises the device's lowers to what it gets, so that none is below it (a
 * decrease leaves them: a lower above its upper costs nothing). set[0] gets base (which may
 * be set[0] itself, planned in place), then the
 * uppers in st's order (nearest
 * first), *n_set how many plans there are; an upper that needs no change has none.
 * The device's veth peer in another namespace (st->has_peer: a pod's eth0) comes last, an
 * upper of the device: it gets what the device gets, raised or lowered, within its own
 * ceiling; its plan's ns is the peer's.
 */
int plan_stack(const struct plan *base, const int64_t *want, const struct nic_stack *st,
	       const struct link_info *links, int n, bool with_lowers,
	       struct plan set[PLAN_SET_MAX], unsigned int *n_set, struct rterr *err);
/* What to plan for a device (plan_device()). */
struct plan_request {
	const struct profile *profile; /* its targets; NULL: targets[] for which[] */
	const int64_t *targets;	       /* [KNOB__COUNT] */
	const bool *which;	       /* [KNOB__COUNT] */
	const char *src;	       /* who asks for targets[] ("tuner", "sweep") */
	const int64_t *want;	       /* plan_stack()'s want (NULL: the device's targets) */
	/* A which[] knob the device's plan skips refuses the plan (RTERR_INPUT, the note). */
	bool refuse_skip;
	/* Called on the device's plan before the stack gets it (NULL: none): the daemon
	 * leaves alone what was changed outside rtltune. */
	void (*adjust)(struct plan *base, void *arg);
	void *arg;
};

/*
 * A device and the uppers its change reaches, planned in one call: the chip database's
 * entry for nic (db NULL: none), plan_profile() or plan_values(), the check of skipped
 * knobs, then plan_stack() over st (links[0..n) its dump) with the lowers raised too
 * where the chip is tuned with its master (CHIP_Q_TUNE_WITH_MASTER). set and *n_set as
 * plan_stack()'s; set[0] is the device's plan.
 */
int plan_device(const struct nic *nic, const struct chipdb *db, const struct plan_request *req,
		const struct nic_stack *st, const struct link_info *links, int n,
		struct plan set[PLAN_SET_MAX], unsigned int *n_set, struct rterr *err);
/* What "max" means for knob k on nic (the kernel's limit cut by the chip database, the
 * device's own maximum, or the legacy ceiling), LINK_UNSET when nothing bounds it. */
int64_t plan_knob_max(enum knob_id k, const struct nic *nic, const struct chip_entry *chip);
/* A snapshot of a device from its link alone (stacked knobs are all rtnetlink's). */
void nic_from_link_only(const struct link_info *li, struct nic *out);

/* Knobs whose value the kernel moves when another is set: which[] plus their twins. */
void plan_side_effects(const bool which[KNOB__COUNT], bool out[KNOB__COUNT]);

const char *plan_action_name(enum plan_action a); /* "keep", "same", "change", "skip" */

/* Knob k's source and note in plan ("" when none), and setting them (printf-style; a text
 * that no longer fits the plan's room is cut). */
const char *plan_src(const struct plan *plan, enum knob_id k);
const char *plan_note(const struct plan *plan, enum knob_id k);
void plan_set_src(struct plan *plan, enum knob_id k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void plan_set_note(struct plan *plan, enum knob_id k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The plan as `rtltune apply/restore --json` prints it for one interface (the CLI and
 * rtltuned's control socket send the same document): ifname, chip, warnings, changes[]
 * with knob, action, old, new, source, note, and once executed applied and undone.
 */
json_object *plan_json(const struct plan *plan, bool executed);
/*
 * The documents of a plan set (plan_stack()): the device's, then each upper's that
 * changes or has a note ("upper_of" naming the device), in an array; error goes into the
 * device's, and "rerouted" (how established connections were made to take the change)
 * into the last.
 */
json_object *plan_set_json(const struct plan *set, unsigned int n, bool executed,
			   const char *error);

#endif
