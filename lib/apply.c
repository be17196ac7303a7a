// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actuator: plans (profile or explicit targets -> per-knob changes) and their
 * all-or-nothing execution. Every NIC change rtltune makes goes through apply_execute().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/apply.h"

/*
 * One row per knob: how it is written and which limit bounds it. A new knob is a row
 * here plus its name in lib/knob.c.
 */
static const struct knob_actuator {
	int link_attr;			 /* enum link_attr, or -1 for an ethtool feature knob */
	const char *const *features;	 /* ethtool feature names the boolean drives */
	unsigned int n_features;
	int limit;			 /* enum chip_limit bounding it, or -1 */
	int64_t min;			 /* smallest value the kernel takes */
} actuators[KNOB__COUNT] = {
	[KNOB_MTU] = { LINK_ATTR_MTU, NULL, 0, CHIP_LIMIT_MAX_MTU, 68 },
	[KNOB_TSO] = { -1, NULL /* nic_tso_features, set below */, 0, -1, 0 },
	[KNOB_GSO] = { -1, (const char *const[]){ "tx-generic-segmentation" }, 1, -1, 0 },
	[KNOB_GRO] = { -1, (const char *const[]){ "rx-gro" }, 1, -1, 0 },
	[KNOB_GSO_MAX_SIZE] = { LINK_ATTR_GSO_MAX_SIZE, NULL, 0, CHIP_LIMIT_GSO_MAX_SIZE, 1 },
	[KNOB_GSO_IPV4_MAX_SIZE] = { LINK_ATTR_GSO_IPV4_MAX_SIZE, NULL, 0,
				     CHIP_LIMIT_GSO_MAX_SIZE, 1 },
	[KNOB_GRO_MAX_SIZE] = { LINK_ATTR_GRO_MAX_SIZE, NULL, 0, CHIP_LIMIT_GRO_MAX_SIZE, 0 },
	[KNOB_GRO_IPV4_MAX_SIZE] = { LINK_ATTR_GRO_IPV4_MAX_SIZE, NULL, 0,
				     CHIP_LIMIT_GRO_MAX_SIZE, 0 },
	[KNOB_GSO_MAX_SEGS] = { LINK_ATTR_GSO_MAX_SEGS, NULL, 0, CHIP_LIMIT_TSO_MAX_SEGS, 1 },
};

static void actuator_features(enum knob_id k, const char *const **names, unsigned int *n)
{
	if (k == KNOB_TSO) {
		*names = nic_tso_features;
		*n = nic_tso_feature_count;
	} else {
		*names = actuators[k].features;
		*n = actuators[k].n_features;
	}
}

const char *plan_action_name(enum plan_action a)
{
	static const char *const names[] = { "keep", "same", "change", "skip" };

	return (unsigned int)a < 4 ? names[a] : "?";
}

void apply_side_effects(const bool which[KNOB__COUNT], bool out[KNOB__COUNT])
{
	memcpy(out, which, sizeof(bool) * KNOB__COUNT);
	/* net/core/dev.c netif_set_gso_max_size()/netif_set_gro_max_size(): a size up to
	 * 64K is mirrored into the IPv4 twin. */
	if (which[KNOB_GSO_MAX_SIZE])
		out[KNOB_GSO_IPV4_MAX_SIZE] = true;
	if (which[KNOB_GRO_MAX_SIZE])
		out[KNOB_GRO_IPV4_MAX_SIZE] = true;
}

/*
 * An apply follows its device by ifindex, never by name: a rename between two knobs, or
 * between the plan and the run, must neither fail the rest nor reach whichever device
 * took the old name. rtnetlink writes go by ifindex already, the ethtool ones look the
 * name up around each call (lib/ethtool.c), and what apply_execute() itself reads by name
 * (identity, read-back) is retried below until the name held still.
 */
#define APPLY_RENAME_TRIES ETHTOOL_RENAME_TRIES

static bool device_gone(int ifindex)
{
	char name[IF_NAMESIZE];

	return ifindex > 0 && ethtool_index_to_name(ifindex, name) == -ENODEV;
}

static int gone_err(const struct plan *plan, struct rterr *err)
{
	return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared", plan->ifindex,
			 plan->ifname);
}

/* The device's name now (plan->ifindex > 0). */
static int current_name(const struct plan *plan, char now[IF_NAMESIZE], struct rterr *err)
{
	int r = ethtool_index_to_name(plan->ifindex, now);

	if (r == -ENODEV)
		return gone_err(plan, err);
	return r < 0 ? rterr_sys(err, -r, "%s: name of ifindex %d", plan->ifname, plan->ifindex)
		     : 0;
}

/* journal_ident_read() goes by name: read under the current one until it names our device. */
static int ident_read(const struct plan *plan, struct journal_ident *id, struct rterr *err)
{
	char now[IF_NAMESIZE];
	int r, tries;

	if (plan->ifindex <= 0)
		return journal_ident_read(plan->ifname, id, err);
	for (tries = 0; tries < APPLY_RENAME_TRIES; tries++) {
		r = current_name(plan, now, err);
		if (r < 0)
			return r;
		r = journal_ident_read(now, id, err);
		if (r == 0 && id->ifindex == plan->ifindex)
			return 0;
		if (r < 0 && r != -ENODEV && r != -EAGAIN)
			return r;
	}
	return rterr_sys(err, EAGAIN, "%s: renamed %d times while reading its identity",
			 plan->ifname, tries);
}

/* nic_snapshot() by ifindex: it reads by name (one link dump, then ethtool), so it
 * describes our device only when the name named it before and after. */
static int snapshot(const char *sysfs_root, const struct plan *plan, struct nic *out,
		    struct rterr *err)
{
	char now[IF_NAMESIZE], again[IF_NAMESIZE];
	int r, tries;

	if (plan->ifindex <= 0)
		return nic_snapshot(sysfs_root, plan->ifname, out, err);
	for (tries = 0; tries < APPLY_RENAME_TRIES; tries++) {
		r = current_name(plan, now, err);
		if (r < 0)
			return r;
		r = nic_snapshot(sysfs_root, now, out, err);
		if (r < 0 && r != -ENODEV)
			return r;
		if (r == 0 && out->link.ifindex == plan->ifindex &&
		    ethtool_index_to_name(plan->ifindex, again) == 0 && strcmp(now, again) == 0)
			return 0;
	}
	return rterr_sys(err, EAGAIN, "%s: renamed %d times while reading it back", plan->ifname,
			 tries);
}

int apply_knob_set(const char *ifname, int ifindex, enum knob_id knob, int64_t value,
		   struct rterr *err)
{
	const struct knob_actuator *a = &actuators[knob];
	const char *const *names;
	struct eth_features f;
	unsigned int n;
	int r;

	if (a->link_attr >= 0) {
		r = link_set_u32(ifindex, (enum link_attr)a->link_attr, (uint32_t)value, err);
		/* By ifindex, ENODEV means the device is gone: say which one it was. */
		if (r == -ENODEV && device_gone(ifindex))
			return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared (set %s)",
					 ifindex, ifname, knob_name(knob));
		return r;
	}
	actuator_features(knob, &names, &n);
	r = ifindex > 0 ? ethtool_features_get_index(ifindex, ifname, &f, err)
			: ethtool_features_get(ifname, &f, err);
	if (r < 0)
		return r;
	r = ifindex > 0 ? ethtool_features_set_index(ifindex, ifname, &f, names, n, value != 0, err)
			: ethtool_features_set(ifname, &f, names, n, value != 0, err);
	ethtool_features_free(&f);
	/* A positive ETHTOOL_F_* mask is not an error here: the read-back judges it. */
	return r < 0 ? r : 0;
}

/* Is a boolean knob's feature changeable at all on this device? */
static int feature_changeable(const struct eth_features *f, enum knob_id k)
{
	const char *const *names;
	unsigned int n, i;

	actuator_features(k, &names, &n);
	for (i = 0; i < n; i++) {
		int idx = ethtool_feature_index(f, names[i]);

		if (idx >= 0 && (f->available[idx / 32] >> (idx % 32) & 1))
			return 1;
	}
	return 0;
}

static int64_t knob_max(enum knob_id k, const struct chip_limit_eff eff[CHIP_LIMIT__COUNT],
			const char **from)
{
	const struct knob_actuator *a = &actuators[k];

	*from = "";
	if (knob_type(k) == KNOB_T_BOOL)
		return 1;
	if (a->limit < 0 || eff[a->limit].value == LINK_UNSET) {
		/* Kernels without the attribute: the legacy ceilings. */
		if (k == KNOB_GSO_MAX_SEGS)
			return GSO_MAX_SEGS_MAX;
		if (k == KNOB_GRO_MAX_SIZE || k == KNOB_GRO_IPV4_MAX_SIZE)
			return GSO_MAX_SIZE_BIG;
		return k == KNOB_MTU ? LINK_UNSET : GSO_LEGACY_MAX_SIZE;
	}
	*from = chip_limit_source_name(eff[a->limit].source);
	return eff[a->limit].value;
}

static void plan_init(struct plan *plan, const struct nic *nic, const struct chip_entry *chip)
{
	int k;

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", nic->link.ifname);
	plan->ifindex = nic->link.ifindex;
	if (chip)
		snprintf(plan->chip_id, sizeof(plan->chip_id), "%s", chip->id);
	for (k = 0; k < KNOB__COUNT; k++) {
		plan->items[k].action = PLAN_KEEP;
		plan->items[k].cur = nic_knob_value(nic, (enum knob_id)k);
		plan->items[k].target = plan->items[k].cur;
		plan->items[k].after = LINK_UNSET;
	}
}

/*
 * Decide one knob's item from a concrete target. Limits refuse (input error); what the
 * device cannot do at all is skipped with a note.
 */
static int plan_target(struct plan *plan, const struct nic *nic, const struct chip_entry *chip,
		       const struct eth_features *feat,
		       const struct chip_limit_eff eff[CHIP_LIMIT__COUNT], enum knob_id k,
		       int64_t target, const char *src, struct rterr *err)
{
	struct plan_item *it = &plan->items[k];
	const char *from;
	int64_t max;

	snprintf(it->src, sizeof(it->src), "%s", src);
	if (it->cur == LINK_UNSET) {
		it->action = PLAN_SKIP;
		snprintf(it->note, sizeof(it->note), "%s not reported by this kernel/driver",
			 knob_name(k));
		return 0;
	}
	if (knob_type(k) == KNOB_T_BOOL) {
		if (feat && !feature_changeable(feat, k) && target != it->cur) {
			it->action = PLAN_SKIP;
			snprintf(it->note, sizeof(it->note), "%s is fixed by the driver",
				 knob_name(k));
			return 0;
		}
	} else {
		max = knob_max(k, eff, &from);
		if (k == KNOB_MTU && target < nic->link.min_mtu && nic->link.min_mtu != LINK_UNSET)
			return rterr_input(err, "%s: %s: mtu %" PRId64 " below min_mtu %" PRId64,
					   src, plan->ifname, target, nic->link.min_mtu);
		if (target < actuators[k].min)
			return rterr_input(err, "%s: %s: %s %" PRId64 " below the minimum %" PRId64,
					   src, plan->ifname, knob_name(k), target,
					   actuators[k].min);
		if (max != LINK_UNSET && target > max) {
			const char *limit = actuators[k].limit >= 0
						    ? chip_limit_name((enum chip_limit)actuators[k].limit)
						    : "limit";

			/* The limit's kernel name reads better for the TSO ceiling. */
			if (actuators[k].limit == CHIP_LIMIT_GSO_MAX_SIZE)
				limit = "tso_max_size";
			return rterr_input(err,
					   "%s: %s: %s %" PRId64 " exceeds %s %" PRId64 " (%s%s%s)",
					   src, plan->ifname, knob_name(k), target, limit, max,
					   *from ? from : "kernel", chip ? " " : "",
					   chip ? chip->id : "");
		}
	}
	it->target = target;
	it->action = target == it->cur ? PLAN_SAME : PLAN_CHANGE;
	return 0;
}

static void plan_count(struct plan *plan)
{
	int k;

	plan->n_changes = 0;
	for (k = 0; k < KNOB__COUNT; k++)
		plan->n_changes += plan->items[k].action == PLAN_CHANGE;
}

static void plan_warn(struct plan *plan, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(plan->warnings);

	snprintf(plan->warnings + len, sizeof(plan->warnings) - len, fmt, len ? "; " : "", a, b);
}

/* Quirks of the chip that change what a plan can promise. */
static int plan_quirks(struct plan *plan, const struct chip_entry *chip, struct rterr *err)
{
	struct plan_item *mtu = &plan->items[KNOB_MTU], *tso = &plan->items[KNOB_TSO];
	int64_t mtu_after = mtu->action == PLAN_CHANGE ? mtu->target : mtu->cur;
	char where[320];

	if (!chip)
		return 0;
	snprintf(where, sizeof(where), "%s:%u", chip->file, chip->line);
	if (chip_has_quirk(chip, CHIP_Q_JUMBO_DISABLES_TSO) && mtu_after > 1500) {
		if (tso->action == PLAN_CHANGE && tso->target == 1)
			return rterr_input(err,
					   "%s: %s: tso on is impossible with mtu %" PRId64
					   ": chip %s turns TSO off above 1500 (jumbo-disables-tso, %s)",
					   tso->src, plan->ifname, mtu_after, chip->id, where);
		plan_warn(plan, "%s%s: MTU above 1500 turns TSO and TX checksumming off (%s)",
			  chip->id, where);
	}
	if (chip_has_quirk(chip, CHIP_Q_MTU_CHANGE_NEEDS_LINK_DOWN) && mtu->action == PLAN_CHANGE)
		plan_warn(plan, "%s%s: MTU changes need the link down (%s)", chip->id, where);
	if (chip_has_quirk(chip, CHIP_Q_MTU_CHANGE_RESETS_LINK) && mtu->action == PLAN_CHANGE)
		plan_warn(plan, "%s%s: an MTU change resets the link (%s)", chip->id, where);
	if (chip_has_quirk(chip, CHIP_Q_TSO_IPV4_ONLY) && tso->action == PLAN_CHANGE &&
	    tso->target == 1)
		plan_warn(plan, "%s%s: TSO covers IPv4 only (%s)", chip->id, where);
	return 0;
}

int apply_plan_profile(const struct profile *p, const struct nic *nic,
		       const struct chip_entry *chip, struct plan *plan, struct rterr *err)
{
	struct profile_setting set[KNOB__COUNT];
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	struct eth_features feat, *fp = NULL;
	struct rterr ignored;
	int k, r = 0;

	plan_init(plan, nic, chip);
	chip_effective_limits(chip, nic, eff);
	profile_resolve(p, nic->have_drvinfo ? nic->drv.driver : NULL, chip ? chip->id : NULL,
			set);
	if (ethtool_features_get(nic->link.ifname, &feat, &ignored) == 0)
		fp = &feat;
	for (k = 0; k < KNOB__COUNT && r == 0; k++) {
		const struct profile_setting *s = &set[k];
		struct plan_item *it = &plan->items[k];
		const char *from;
		char src[320];
		int64_t target;

		if (s->value.kind == KV_UNSET || s->value.kind == KV_KEEP) {
			if (s->file)
				snprintf(it->src, sizeof(it->src), "%s:%u", s->file, s->line);
			continue;
		}
		snprintf(src, sizeof(src), "%s:%u", s->file, s->line);
		if (s->value.kind == KV_MAX) {
			target = knob_max((enum knob_id)k, eff, &from);
			if (target == LINK_UNSET) {
				snprintf(it->src, sizeof(it->src), "%s", src);
				it->action = PLAN_SKIP;
				snprintf(it->note, sizeof(it->note),
					 "max: no limit known for %s", knob_name((enum knob_id)k));
				continue;
			}
			/* TSO "max" on a chip that drops TSO at jumbo MTU: the chip decides. */
			if (k == KNOB_TSO && chip_has_quirk(chip, CHIP_Q_JUMBO_DISABLES_TSO) &&
			    (set[KNOB_MTU].value.kind == KV_MAX ||
			     (set[KNOB_MTU].value.kind == KV_NUMBER &&
			      set[KNOB_MTU].value.num > 1500))) {
				snprintf(it->src, sizeof(it->src), "%s", src);
				snprintf(it->note, sizeof(it->note),
					 "max: kept, jumbo MTU turns TSO off on %s", chip->id);
				continue;
			}
			r = plan_target(plan, nic, chip, fp, eff, (enum knob_id)k, target, src, err);
			if (r == 0 && knob_type((enum knob_id)k) == KNOB_T_NUMBER)
				snprintf(it->note, sizeof(it->note), "max = %" PRId64 " (%s)", target,
					 *from ? from : "legacy ceiling");
		} else {
			r = plan_target(plan, nic, chip, fp, eff, (enum knob_id)k, s->value.num,
					src, err);
		}
	}
	if (fp)
		ethtool_features_free(fp);
	if (r == 0)
		r = plan_quirks(plan, chip, err);
	plan_count(plan);
	return r;
}

int apply_plan_values(const struct nic *nic, const struct chip_entry *chip,
		      const int64_t targets[KNOB__COUNT], const bool which[KNOB__COUNT],
		      const char *src, struct plan *plan, struct rterr *err)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	int k, r = 0;

	plan_init(plan, nic, chip);
	chip_effective_limits(chip, nic, eff);
	for (k = 0; k < KNOB__COUNT && r == 0; k++)
		if (which[k])
			r = plan_target(plan, nic, chip, NULL, eff, (enum knob_id)k, targets[k],
					src, err);
	plan_count(plan);
	return r;
}

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
static int undo(struct plan *plan, const int64_t pre[KNOB__COUNT], const bool which[KNOB__COUNT],
		char *undone, size_t len)
{
	struct rterr e;
	size_t used = 0;
	char num[24];
	int k, failed = 0;

	undone[0] = '\0';
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || pre[k] == LINK_UNSET)
			continue;
		if (apply_knob_set(plan->ifname, plan->ifindex, (enum knob_id)k, pre[k], &e) < 0) {
			failed++;
			used += (size_t)snprintf(undone + used, used < len ? len - used : 0,
						 "%s%s NOT undone (%s)", used ? ", " : "",
						 knob_name((enum knob_id)k), e.msg);
			continue;
		}
		plan->items[k].undone = plan->items[k].changed;
		if (plan->items[k].changed)
			used += (size_t)snprintf(undone + used, used < len ? len - used : 0,
						 "%s%s back to %s", used ? ", " : "",
						 knob_name((enum knob_id)k),
						 knob_value_str((enum knob_id)k, pre[k], num,
								sizeof(num)));
	}
	if (!undone[0])
		snprintf(undone, len, "nothing had changed");
	return failed;
}

/* Reports keep the name the caller asked for; a rename meanwhile becomes a note. */
static void note_rename(struct plan *plan)
{
	char now[IF_NAMESIZE];

	if (plan->ifindex <= 0 || ethtool_index_to_name(plan->ifindex, now) < 0 ||
	    strcmp(now, plan->ifname) == 0)
		return;
	snprintf(plan->ifname_now, sizeof(plan->ifname_now), "%s", now);
	plan_warn(plan, "%s%srenamed to %s during this run", "", now);
}

int apply_execute(struct journal *j, const char *sysfs_root, struct plan *plan,
		  const struct apply_opts *opts, struct rterr *err)
{
	bool which[KNOB__COUNT] = { 0 }, touched[KNOB__COUNT];
	int64_t pre[KNOB__COUNT];
	struct journal_ident id;
	char failure[1024] = "", undone[768];
	struct nic after;
	bool gone = false;
	int k, r, nth = 0;

	plan->ifname_now[0] = '\0';
	for (k = 0; k < KNOB__COUNT; k++) {
		pre[k] = plan->items[k].cur;
		which[k] = plan->items[k].action == PLAN_CHANGE;
	}
	if (!plan->n_changes)
		return 0;
	apply_side_effects(which, touched);
	r = ident_read(plan, &id, err);
	if (r < 0)
		return r;
	/* Durable before the first change: the originals and what this run is about to do. */
	r = journal_inflight_begin(j, &id, opts->op, opts->actor, pre,
				   opts->journal_originals ? touched : which, err);
	if (r < 0) {
		rterr_prefix(err, "%s: nothing changed: ", plan->ifname);
		return r;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		struct plan_item *it = &plan->items[k];
		char point[32];
		struct rterr e = { 0 };

		if (it->action != PLAN_CHANGE)
			continue;
		snprintf(point, sizeof(point), "apply_knob_%d", ++nth);
		r = journal_test_hook("apply_knob");
		if (r == 0)
			r = journal_test_hook(point);
		if (r < 0)
			rterr_sys(&e, -r, "set %s %" PRId64 " (test fault %s)",
				  knob_name((enum knob_id)k), it->target, point);
		else
			r = apply_knob_set(plan->ifname, plan->ifindex, (enum knob_id)k,
					   it->target, &e);
		if (r < 0) {
			snprintf(failure, sizeof(failure), "%s", e.msg);
			gone = r == -ENODEV && device_gone(plan->ifindex);
			break;
		}
		it->changed = true;
	}
	/* Read back: the kernel may keep a value other than the one asked for. */
	if (!failure[0]) {
		struct rterr e = { 0 };

		if (snapshot(sysfs_root, plan, &after, &e) < 0) {
			snprintf(failure, sizeof(failure), "read back: %s", e.msg);
			gone = e.errnum == ENODEV && device_gone(plan->ifindex);
		} else {
			for (k = 0; k < KNOB__COUNT; k++) {
				struct plan_item *it = &plan->items[k];

				it->after = nic_knob_value(&after, (enum knob_id)k);
				if (it->action == PLAN_CHANGE && it->after != it->target &&
				    !failure[0])
					snprintf(failure, sizeof(failure),
						 "%s not applied: the kernel kept %" PRId64
						 " (requested %" PRId64 ")%s",
						 knob_name((enum knob_id)k), it->after, it->target,
						 k == KNOB_TSO && after.tso_wish
							 ? ", \"off [requested on]\""
							 : "");
			}
		}
	}
	note_rename(plan);
	if (failure[0]) {
		bool changed[KNOB__COUNT], to_undo[KNOB__COUNT];
		int bad = 0;

		/* Only what this run changed, and what the kernel moved along with it. */
		for (k = 0; k < KNOB__COUNT; k++)
			changed[k] = plan->items[k].changed;
		apply_side_effects(changed, to_undo);
		if (!gone)
			bad = undo(plan, pre, to_undo, undone, sizeof(undone));
		/* A device deleted midway took this run's changes with it: nothing is left to
		 * undo or to roll back later, so its operation ends here too. */
		if (gone || (bad && device_gone(plan->ifindex))) {
			gone = true;
			bad = 0;
			snprintf(undone, sizeof(undone), "nothing, the interface is gone");
		}
		for (k = 0; k < KNOB__COUNT; k++)
			if (plan->items[k].changed)
				log_event(j, plan, (enum knob_id)k, pre[k], plan->items[k].target,
					  gone ? "failed" : "rolled_back", failure, opts->actor);
		if (!bad)
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
	r = opts->keep_inflight ? 0 : journal_inflight_end(j, &id, err);
	for (k = 0; k < KNOB__COUNT; k++)
		if (plan->items[k].changed)
			log_event(j, plan, (enum knob_id)k, pre[k], plan->items[k].after, "applied",
				  opts->reason ? opts->reason : plan->items[k].src, opts->actor);
	return r < 0 ? r : 0;
}
