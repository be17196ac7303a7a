// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plans: a profile or explicit targets turned into per-knob changes for one interface,
 * checked against the knob table's limits and the chip database, without touching the
 * device. lib/actuate/actuate.c executes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/around.h"
#include "rtltune/cpus.h"
#include "rtltune/hostknob.h"
#include "rtltune/netns.h"
#include "rtltune/plan.h"

const char *plan_action_name(enum plan_action a)
{
	static const char *const names[] = {"keep", "same", "change", "skip"};

	return (unsigned int)a < 4 ? names[a] : "?";
}

const char *plan_src(const struct plan *plan, enum knob_id k)
{
	return plan->text + plan->items[k].src;
}

const char *plan_note(const struct plan *plan, enum knob_id k)
{
	return plan->text + plan->items[k].note;
}

/* Append a string to the plan's text; its offset, or 0 ("") when nothing is left. */
static uint16_t text_add(struct plan *plan, const char *fmt, va_list ap)
{
	size_t room;
	int n;

	if (!plan->text_used)
		plan->text_used = 1; /* text[0] stays the empty string */
	room = sizeof(plan->text) - plan->text_used;
	if (room < 2)
		return 0;
	n = vsnprintf(plan->text + plan->text_used, room, fmt, ap);
	if (n < 0)
		return 0;
	plan->text_used += (uint16_t)((size_t)n < room ? (size_t)n + 1 : room);
	return (uint16_t)(plan->text_used - ((size_t)n < room ? (size_t)n + 1 : room));
}

void plan_set_src(struct plan *plan, enum knob_id k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan->items[k].src = text_add(plan, fmt, ap);
	va_end(ap);
}

void plan_set_note(struct plan *plan, enum knob_id k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plan->items[k].note = text_add(plan, fmt, ap);
	va_end(ap);
}

void plan_side_effects(const bool which[KNOB__COUNT], bool out[KNOB__COUNT])
{
	int k;

	memcpy(out, which, sizeof(bool) * KNOB__COUNT);
	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && knob_desc((enum knob_id)k)->twin >= 0)
			out[knob_desc((enum knob_id)k)->twin] = true;
}

/*
 * The largest value "max" means for k, and where that limit came from ("" legacy): the
 * chip table's named limit cut by the kernel's (eff), or for a knob without one (rings,
 * channels) the device's own maximum cut by the chip entry's max.KNOB.
 */
static int64_t knob_max(enum knob_id k, const struct nic *nic, const struct chip_entry *chip,
			const struct chip_limit_eff eff[CHIP_LIMIT__COUNT], const char **from)
{
	const struct knob_desc *d = knob_desc(k);
	int64_t dev = d->backend == KNOB_B_ETHNL ? nic_max(nic, k) : LINK_UNSET;
	int64_t tab = chip_knob_max(chip, k);

	*from = "";
	if (d->type == KNOB_T_BOOL)
		return 1;
	if (d->limit < 0) {
		if (tab != LINK_UNSET && (dev == LINK_UNSET || tab < dev)) {
			*from = "chip";
			return tab;
		}
		if (dev != LINK_UNSET)
			*from = "device";
		return dev != LINK_UNSET ? dev : d->legacy_max;
	}
	if (eff[d->limit].value == LINK_UNSET)
		return d->legacy_max; /* kernels without the attribute */
	*from = chip_limit_source_name(eff[d->limit].source);
	return eff[d->limit].value;
}

/* Why k cannot be set on this device at all (cur unknown), for the plan's note. */
static void unsupported_note(const struct nic *nic, enum knob_id k, struct plan *plan)
{
	char note[200];
	size_t len = sizeof(note);
	const struct knob_desc *d = knob_desc(k);
	int e = d->backend == KNOB_B_ETHNL ? nic->group_err[d->ethnl_group] : 0;

	if (d->backend == KNOB_B_ETHNL && e == -EOPNOTSUPP)
		snprintf(note, len, "%s unsupported: the driver has no %s settings", d->name,
			 ethnl_group_name(d->ethnl_group));
	else if (d->backend == KNOB_B_ETHNL && e < 0)
		snprintf(note, len, "%s unsupported: reading %s failed (%s)", d->name,
			 ethnl_group_name(d->ethnl_group), strerror(-e));
	else if (d->backend == KNOB_B_ETHNL)
		snprintf(note, len, "%s unsupported: the driver does not report it", d->name);
	else if (knob_is_feature(k))
		snprintf(note, len, "%s unsupported: the kernel has no feature %s", d->name,
			 knob_feature_name(k));
	else if (d->backend == KNOB_B_NAPI || d->backend == KNOB_B_QUEUE)
		around_why(nic, k, note, len);
	else if (d->backend == KNOB_B_SYSCTL)
		host_why(nic, k, note, len);
	else
		snprintf(note, len, "%s not reported by this kernel/driver", d->name);
	plan_set_note(plan, k, "%s", note);
}

static void plan_init(struct plan *plan, const struct nic *nic, const struct chip_entry *chip)
{
	int k;

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->ifname, sizeof(plan->ifname), "%s", nic->link.ifname);
	plan->ifindex = nic->link.ifindex;
	plan->ns = nic->ns;
	plan->host = nic->host;
	/* The read-back starts from the snapshot: its identity stays, its knobs are read. */
	plan->after = *nic;
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
		       const struct chip_limit_eff eff[CHIP_LIMIT__COUNT], enum knob_id k,
		       int64_t target, const char *src, struct rterr *err)
{
	const struct knob_desc *d = knob_desc(k);
	struct plan_item *it = &plan->items[k];
	const char *from;
	int64_t max;

	plan_set_src(plan, k, "%s", src);
	if (knob_is_host(k) != nic->host) {
		it->action = PLAN_SKIP;
		if (nic->host)
			plan_set_note(plan, k, "%s is a knob of each interface, not host-wide",
				      d->name);
		else
			plan_set_note(plan, k,
				      "%s is host-wide, not a knob of %s (a profile's [knobs] "
				      "sets it once for the host)",
				      d->name, plan->ifname);
		return 0;
	}
	if (it->cur == LINK_UNSET) {
		it->action = PLAN_SKIP;
		unsupported_note(nic, k, plan);
		return 0;
	}
	if (d->type == KNOB_T_CPUS) {
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		/* The kernel drops CPUs it does not have from the mask (the read-back would
		 * differ): refused here, before anything changes. */
		if (ncpu > 0 && ncpu < CPUS_MAX && (target >> ncpu) != 0)
			return rterr_input(err, "%s: %s: %s names CPUs beyond this host's 0-%ld",
					   src, plan->ifname, d->name, ncpu - 1);
	} else if (d->type == KNOB_T_BOOL) {
		if (nic->fixed[k] && target != it->cur) {
			it->action = PLAN_SKIP;
			plan_set_note(plan, k, "%s is fixed by the driver", d->name);
			return 0;
		}
	} else {
		max = knob_max(k, nic, chip, eff, &from);
		if (k == KNOB_MTU && target < nic->link.min_mtu && nic->link.min_mtu != LINK_UNSET)
			return rterr_input(err, "%s: %s: mtu %" PRId64 " below min_mtu %" PRId64,
					   src, plan->ifname, target, nic->link.min_mtu);
		if (target < d->min)
			return rterr_input(err, "%s: %s: %s %" PRId64 " below the minimum %" PRId64,
					   src, plan->ifname, d->name, target, d->min);
		if (max != LINK_UNSET && target > max)
			return rterr_input(
				err, "%s: %s: %s %" PRId64 " exceeds %s %" PRId64 " (%s%s%s)", src,
				plan->ifname, d->name, target,
				d->limit_name ? d->limit_name : "limit", max,
				*from ? from : "kernel", chip ? " " : "", chip ? chip->id : "");
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

/* What k will be after the plan runs: its target when set, else its current value. */
static int64_t after_plan(const struct plan *plan, enum knob_id k)
{
	const struct plan_item *it = &plan->items[k];

	return it->action == PLAN_CHANGE ? it->target : it->cur;
}

/* The coalescing and queue quirks: what the driver refuses, said before anything runs. */
static int plan_coalesce_quirks(struct plan *plan, const struct chip_entry *chip, const char *where,
				struct rterr *err)
{
	static const enum knob_id usecs[] = {KNOB_COALESCE_RX_USECS, KNOB_COALESCE_TX_USECS};
	static const enum knob_id adaptive[] = {KNOB_COALESCE_ADAPTIVE_RX,
						KNOB_COALESCE_ADAPTIVE_TX};
	const struct plan_item *tx = &plan->items[KNOB_COALESCE_TX_USECS];
	unsigned int i;
	int k;

	for (i = 0; i < 2 && chip_has_quirk(chip, CHIP_Q_USECS_NEED_ADAPTIVE_OFF); i++) {
		const struct plan_item *it = &plan->items[usecs[i]];

		if (it->action == PLAN_CHANGE && after_plan(plan, adaptive[i]) == 1)
			return rterr_input(err,
					   "%s: %s: %s cannot change while %s stays on: chip %s "
					   "takes usecs only with adaptive moderation off "
					   "(usecs-need-adaptive-off, %s); set %s = off too",
					   plan_src(plan, usecs[i]), plan->ifname,
					   knob_name(usecs[i]), knob_name(adaptive[i]), chip->id,
					   where, knob_name(adaptive[i]));
	}
	if (chip_has_quirk(chip, CHIP_Q_TX_COALESCE_FOLLOWS_RX) && tx->action == PLAN_CHANGE &&
	    tx->target != 0)
		return rterr_input(err,
				   "%s: %s: coalesce_tx_usecs %" PRId64
				   " is refused by chip %s: TX shares the RX interrupt vectors, "
				   "coalesce_rx_usecs moderates both (tx-coalesce-follows-rx, %s)",
				   plan_src(plan, KNOB_COALESCE_TX_USECS), plan->ifname, tx->target,
				   chip->id, where);
	if (!chip_has_quirk(chip, CHIP_Q_QUEUE_CHANGE_RESETS_LINK))
		return 0;
	for (k = KNOB_FIRST_ETHNL; k < KNOB_FIRST_FEATURE; k++) {
		int g = knob_desc((enum knob_id)k)->ethnl_group;

		if (plan->items[k].action == PLAN_CHANGE &&
		    (g == ETHNL_RINGS || g == ETHNL_CHANNELS)) {
			plan_warn(plan,
				  "%s%s: a ring or channel change rebuilds the queues: traffic "
				  "stops for a moment (%s)",
				  chip->id, where);
			break;
		}
	}
	return 0;
}

/* Quirks of the chip that change what a plan can promise. */
static int plan_quirks(struct plan *plan, const struct chip_entry *chip, struct rterr *err)
{
	struct plan_item *mtu = &plan->items[KNOB_MTU], *tso = &plan->items[KNOB_TSO];
	int64_t mtu_after = mtu->action == PLAN_CHANGE ? mtu->target : mtu->cur;
	char where[320];
	int r;

	if (!chip)
		return 0;
	snprintf(where, sizeof(where), "%s:%u", chip->file, chip->line);
	if (chip_has_quirk(chip, CHIP_Q_JUMBO_DISABLES_TSO) && mtu_after > 1500) {
		if (tso->action == PLAN_CHANGE && tso->target == 1)
			return rterr_input(
				err,
				"%s: %s: tso on is impossible with mtu %" PRId64
				": chip %s turns TSO off above 1500 (jumbo-disables-tso, %s)",
				plan_src(plan, KNOB_TSO), plan->ifname, mtu_after, chip->id, where);
		plan_warn(plan, "%s%s: MTU above 1500 turns TSO and TX checksumming off (%s)",
			  chip->id, where);
	}
	if (chip_has_quirk(chip, CHIP_Q_JUMBO_DISABLES_PAUSE) && mtu_after > 1500) {
		static const enum knob_id pause[] = {KNOB_PAUSE_RX, KNOB_PAUSE_TX};
		unsigned int i;

		for (i = 0; i < 2; i++) {
			const struct plan_item *it = &plan->items[pause[i]];

			if (it->action == PLAN_CHANGE && it->target == 1)
				return rterr_input(err,
						   "%s: %s: %s on is impossible with mtu %" PRId64
						   ": chip %s stops pause frames above 1500 "
						   "(jumbo-disables-pause, %s)",
						   plan_src(plan, pause[i]), plan->ifname,
						   knob_name(pause[i]), mtu_after, chip->id, where);
		}
		plan_warn(plan, "%s%s: MTU above 1500 stops pause frames (%s)", chip->id, where);
	}
	r = plan_coalesce_quirks(plan, chip, where, err);
	if (r < 0)
		return r;
	if (chip_has_quirk(chip, CHIP_Q_MTU_CHANGE_NEEDS_LINK_DOWN) && mtu->action == PLAN_CHANGE)
		plan_warn(plan, "%s%s: MTU changes need the link down (%s)", chip->id, where);
	if (chip_has_quirk(chip, CHIP_Q_MTU_CHANGE_RESETS_LINK) && mtu->action == PLAN_CHANGE)
		plan_warn(plan, "%s%s: an MTU change resets the link (%s)", chip->id, where);
	if (chip_has_quirk(chip, CHIP_Q_TSO_IPV4_ONLY) && tso->action == PLAN_CHANGE &&
	    tso->target == 1)
		plan_warn(plan, "%s%s: TSO covers IPv4 only (%s)", chip->id, where);
	return 0;
}

/* Whether a plan item sets its knob (to a value, even the current one). */
static bool sets(const struct plan_item *it)
{
	return it->action == PLAN_CHANGE || it->action == PLAN_SAME;
}

/*
 * tso, gso and gro switch named feature bits that are knobs of their own too
 * (feature.tx-tcp-segmentation): a profile sets one or the other, never both.
 */
static int plan_overlap(const struct plan *plan, struct rterr *err)
{
	int k, f;
	unsigned int i;

	for (k = 0; k < KNOB_FIRST_FEATURE; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		if (d->backend != KNOB_B_FEATURES || !sets(&plan->items[k]))
			continue;
		for (f = KNOB_FIRST_FEATURE; f < KNOB_FIRST_AROUND; f++)
			for (i = 0; i < d->n_features; i++)
				if (sets(&plan->items[f]) &&
				    strcmp(d->features[i], knob_feature_name((enum knob_id)f)) == 0)
					return rterr_input(
						err,
						"%s: %s: %s and %s (%s) both set: %s includes %s",
						plan_src(plan, (enum knob_id)f), plan->ifname,
						d->name, knob_name((enum knob_id)f),
						plan_src(plan, (enum knob_id)k), d->name,
						d->features[i]);
	}
	return 0;
}

/* One profile setting of "max": resolved, or skipped when nothing bounds the knob. */
static int plan_max(struct plan *plan, const struct nic *nic, const struct chip_entry *chip,
		    const struct chip_limit_eff eff[CHIP_LIMIT__COUNT],
		    const struct profile_setting set[KNOB__COUNT], enum knob_id k, const char *src,
		    struct rterr *err)
{
	struct plan_item *it = &plan->items[k];
	const char *from;
	int64_t target = knob_max(k, nic, chip, eff, &from);
	int r;

	plan_set_src(plan, k, "%s", src);
	if (it->cur == LINK_UNSET || target == LINK_UNSET) {
		it->action = PLAN_SKIP;
		if (it->cur == LINK_UNSET)
			unsupported_note(nic, k, plan);
		else
			plan_set_note(plan, k, "max: no limit known for %s", knob_name(k));
		return 0;
	}
	/* TSO "max" on a chip that drops TSO at jumbo MTU: the chip decides. */
	if (k == KNOB_TSO && chip_has_quirk(chip, CHIP_Q_JUMBO_DISABLES_TSO) &&
	    (set[KNOB_MTU].value.kind == KV_MAX ||
	     (set[KNOB_MTU].value.kind == KV_NUMBER && set[KNOB_MTU].value.num > 1500))) {
		plan_set_note(plan, k, "max: kept, jumbo MTU turns TSO off on %s", chip->id);
		return 0;
	}
	r = plan_target(plan, nic, chip, eff, k, target, src, err);
	if (r == 0 && knob_type(k) == KNOB_T_NUMBER)
		plan_set_note(plan, k, "max = %" PRId64 " (%s)", target,
			      *from ? from : "legacy ceiling");
	return r;
}

int plan_profile(const struct profile *p, const struct nic *nic, const struct chip_entry *chip,
		 struct plan *plan, struct rterr *err)
{
	struct profile_setting set[KNOB__COUNT];
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	int k, r = 0;

	plan_init(plan, nic, chip);
	chip_effective_limits(chip, nic, eff);
	profile_resolve(p, nic->have_drvinfo ? nic->drv.driver : NULL, chip ? chip->id : NULL, set);
	for (k = 0; k < KNOB__COUNT && r == 0; k++) {
		const struct profile_setting *s = &set[k];
		char src[320];

		/* The host's knobs are the host plan's, the others each interface's. */
		if (knob_is_host((enum knob_id)k) != nic->host)
			continue;
		if (s->value.kind == KV_UNSET || s->value.kind == KV_KEEP) {
			if (s->file)
				plan_set_src(plan, (enum knob_id)k, "%s:%u", s->file, s->line);
			continue;
		}
		snprintf(src, sizeof(src), "%s:%u", s->file, s->line);
		if (s->value.kind == KV_MAX)
			r = plan_max(plan, nic, chip, eff, set, (enum knob_id)k, src, err);
		else
			r = plan_target(plan, nic, chip, eff, (enum knob_id)k, s->value.num, src,
					err);
	}
	if (r == 0)
		r = plan_overlap(plan, err);
	if (r == 0)
		r = plan_quirks(plan, chip, err);
	plan_count(plan);
	return r;
}

int plan_values(const struct nic *nic, const struct chip_entry *chip,
		const int64_t targets[KNOB__COUNT], const bool which[KNOB__COUNT], const char *src,
		struct plan *plan, struct rterr *err)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	int k, r = 0;

	plan_init(plan, nic, chip);
	chip_effective_limits(chip, nic, eff);
	for (k = 0; k < KNOB__COUNT && r == 0; k++)
		if (which[k])
			r = plan_target(plan, nic, chip, eff, (enum knob_id)k, targets[k], src,
					err);
	plan_count(plan);
	return r;
}

int64_t plan_knob_max(enum knob_id k, const struct nic *nic, const struct chip_entry *chip)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const char *from;

	chip_effective_limits(chip, nic, eff);
	return knob_max(k, nic, chip, eff, &from);
}

void nic_from_link_only(const struct link_info *li, struct nic *out)
{
	int k;

	memset(out, 0, sizeof(*out));
	out->link = *li;
	link_knob_values(li, out->val);
	nic_max_clear(out);
	for (k = 0; k < ETHNL_GROUP_COUNT; k++)
		out->group_err[k] = -ENODATA; /* not read */
	out->speed_mbps = -1;
}

/* What the device will have of k after plan: its target, or what the kernel moves along
 * (a size up to 64K is mirrored into the IPv4 twin), else what it has. */
static int64_t expected_after(const struct plan *plan, enum knob_id k)
{
	const struct plan_item *it = &plan->items[k];
	int j;

	if (it->action == PLAN_CHANGE || it->action == PLAN_SAME)
		return it->target;
	for (j = 0; j < KNOB__COUNT; j++) {
		const struct plan_item *o = &plan->items[j];

		if (knob_desc((enum knob_id)j)->twin == (int)k && o->action == PLAN_CHANGE &&
		    o->target <= GSO_LEGACY_MAX_SIZE)
			return o->target;
	}
	return it->cur;
}

/* The target of knob k of the device with ifindex among the plans made so far. */
static int64_t below_target(const struct plan *set, unsigned int n, int ifindex, enum knob_id k)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (set[i].ifindex == ifindex)
			return expected_after(&set[i], k);
	return expected_after(&set[0], k);
}

/* A raise of p's stacked size k to want, cut to the device's own ceiling (tso_max_size,
 * tso_max_segs) with a note saying so. */
static int64_t own_ceiling(struct plan *p, enum knob_id k, const struct link_info *li, int64_t want)
{
	int64_t cap = stack_ceiling(li, k), cur = p->items[k].cur;

	if (cap == LINK_UNSET || cap >= want)
		return want;
	plan_set_note(p, k, "%s raised to %" PRId64 " only: its own %s", knob_name(k),
		      cap > cur ? cap : cur,
		      k == KNOB_GSO_MAX_SEGS ? "tso_max_segs" : "tso_max_size");
	return cap;
}

/* A lower of a pair tuned together: raised to what the device above it gets. */
static void plan_lower(const struct plan *base, const int64_t *want_all, const struct stack_dev *d,
		       struct plan *p)
{
	struct nic nic;
	int k;

	nic_from_link_only(&d->li, &nic);
	nic.ns = base->ns; /* a stack is within one namespace */
	plan_init(p, &nic, NULL);
	snprintf(p->upper_of, sizeof(p->upper_of), "%s", base->ifname);
	p->level = -1;
	for (k = 0; k < KNOB__COUNT; k++) {
		struct plan_item *it = &p->items[k];
		int64_t want = expected_after(base, (enum knob_id)k);

		if (!(knob_desc((enum knob_id)k)->flags & KNOB_F_STACK) || it->cur == LINK_UNSET)
			continue;
		if (want_all && want_all[k] != LINK_UNSET && want_all[k] < want)
			want = want_all[k];
		if (want == LINK_UNSET || want <= it->cur)
			continue;
		plan_set_src(p, (enum knob_id)k, "lower of %s (tuned with it)", base->ifname);
		want = own_ceiling(p, (enum knob_id)k, &d->li, want);
		if (want <= it->cur)
			continue;
		it->target = want;
		it->action = PLAN_CHANGE;
	}
	plan_count(p);
}

/*
 * The device's veth peer in another namespace: the sizes the device gets, both ways (its
 * skbs go whole into the device: above it they would be segmented in software there),
 * within its own ceiling.
 */
static void plan_peer(const struct plan *base, const int64_t *want_all, const struct nic_stack *st,
		      struct plan *set, unsigned int *n_set)
{
	struct plan *p = &set[*n_set];
	struct nic nic;
	int k;

	nic_from_link_only(&st->peer.li, &nic);
	nic.ns = st->peer.ns;
	plan_init(p, &nic, NULL);
	snprintf(p->upper_of, sizeof(p->upper_of), "%s", base->ifname);
	p->level = 1;
	for (k = 0; k < KNOB__COUNT; k++) {
		struct plan_item *it = &p->items[k];
		int64_t want;

		if (!(knob_desc((enum knob_id)k)->flags & KNOB_F_STACK) || it->cur == LINK_UNSET)
			continue;
		want = below_target(set, *n_set, st->ifindex, (enum knob_id)k);
		if (want_all && want_all[k] != LINK_UNSET && want_all[k] < want)
			want = want_all[k];
		if (want == LINK_UNSET || want == it->cur)
			continue;
		plan_set_src(p, (enum knob_id)k, "peer of %s", base->ifname);
		if (want > it->cur) {
			want = own_ceiling(p, (enum knob_id)k, &st->peer.li, want);
			if (want <= it->cur)
				continue;
		}
		it->target = want;
		it->action = PLAN_CHANGE;
	}
	plan_count(p);
	(*n_set)++;
}

int plan_stack(const struct plan *base, const int64_t *want_all, const struct nic_stack *st,
	       const struct link_info *links, int n, bool with_lowers,
	       struct plan set[PLAN_SET_MAX], unsigned int *n_set, struct rterr *err)
{
	unsigned int u;
	int k;

	if (base != &set[0])
		set[0] = *base;
	set[0].level = 0;
	*n_set = 1;
	for (u = 0; u < st->n_uppers && *n_set < PLAN_SET_MAX; u++) {
		const struct stack_dev *d = &st->uppers[u];
		struct plan *p = &set[*n_set];
		struct nic nic;

		nic_from_link_only(&d->li, &nic);
		nic.ns = base->ns;
		plan_init(p, &nic, NULL);
		snprintf(p->upper_of, sizeof(p->upper_of), "%s", base->ifname);
		p->level = (int)u + 1;
		for (k = 0; k < KNOB__COUNT; k++) {
			struct plan_item *it = &p->items[k];
			int64_t want, cap, t;
			char why[160];

			if (!(knob_desc((enum knob_id)k)->flags & KNOB_F_STACK) ||
			    it->cur == LINK_UNSET)
				continue;
			want = below_target(set, *n_set, d->below, (enum knob_id)k);
			if (want_all && want_all[k] != LINK_UNSET && want_all[k] < want)
				want = want_all[k];
			if (want == LINK_UNSET || want == it->cur)
				continue;
			plan_set_src(p, (enum knob_id)k, "upper of %s", base->ifname);
			if (want > it->cur) {
				/* A raise: as far as the upper and its other lowers take it. */
				cap = stack_upper_cap(links, n, &d->li, d->below, (enum knob_id)k,
						      why, sizeof(why));
				t = cap != LINK_UNSET && cap < want ? cap : want;
				if (t < want)
					plan_set_note(p, (enum knob_id)k,
						      "%s raised to %" PRId64 " only: %s",
						      knob_name((enum knob_id)k),
						      t > it->cur ? t : it->cur,
						      why[0] ? why : "its own tso_max_size");
				if (t <= it->cur)
					continue;
			} else {
				/* Above the device below it, skbs would be segmented in software.
				 */
				t = want;
			}
			it->target = t;
			it->action = PLAN_CHANGE;
		}
		plan_count(p);
		(*n_set)++;
	}
	for (u = 0; with_lowers && u < st->n_lowers && *n_set < PLAN_SET_MAX; u++)
		plan_lower(base, want_all, &st->lowers[u], &set[(*n_set)++]);
	if (st->has_peer && *n_set < PLAN_SET_MAX)
		plan_peer(base, want_all, st, set, n_set);
	return 0;
}

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

json_object *plan_set_json(const struct plan *set, unsigned int n, bool executed, const char *error)
{
	json_object *arr = json_object_new_array(), *last = NULL;
	unsigned int u;
	int k;

	for (u = 0; u < n; u++) {
		bool says = u == 0 || set[u].n_changes;

		for (k = 0; k < KNOB__COUNT && !says; k++)
			says = plan_note(&set[u], (enum knob_id)k)[0] != '\0';
		if (!says)
			continue;
		last = plan_json(&set[u], executed);
		/* A veth's peer in another namespace (a pod's eth0) planned with the veth. */
		if (u > 0 && set[u].ns != set[0].ns)
			json_object_object_add(last, "peer_of",
					       json_object_new_string(set[u].upper_of));
		if (u == 0 && error)
			json_object_object_add(last, "error", json_object_new_string(error));
		json_object_array_add(arr, last);
	}
	/* After the last device's changes: the invalidation came after all of them. */
	if (executed && set[0].rerouted[0] && last)
		json_object_object_add(last, "rerouted", json_object_new_string(set[0].rerouted));
	return arr;
}

json_object *plan_json(const struct plan *plan, bool executed)
{
	json_object *o = json_object_new_object(), *items = json_object_new_array();
	int k;

	json_object_object_add(o, "ifname", json_object_new_string(plan->ifname));
	if (plan->ns)
		json_object_object_add(o, "netns", json_object_new_string(netns_name(plan->ns)));
	if (plan->upper_of[0])
		json_object_object_add(o, "upper_of", json_object_new_string(plan->upper_of));
	json_object_object_add(o, "chip", str_or_null(plan->chip_id));
	json_object_object_add(o, "warnings", str_or_null(plan->warnings));
	for (k = 0; k < KNOB__COUNT; k++) {
		const struct plan_item *it = &plan->items[k];
		json_object *i;

		if (it->action == PLAN_KEEP && !plan_note(plan, (enum knob_id)k)[0])
			continue;
		i = json_object_new_object();
		json_object_object_add(i, "knob",
				       json_object_new_string(knob_name((enum knob_id)k)));
		json_object_object_add(i, "action",
				       json_object_new_string(plan_action_name(it->action)));
		json_object_object_add(i, "old", knob_value_json((enum knob_id)k, it->cur));
		json_object_object_add(i, "new", knob_value_json((enum knob_id)k, it->target));
		json_object_object_add(i, "source", str_or_null(plan_src(plan, (enum knob_id)k)));
		json_object_object_add(i, "note", str_or_null(plan_note(plan, (enum knob_id)k)));
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
