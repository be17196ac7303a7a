// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ethtool netlink knob table: one row per settable attribute of rings, coalescing,
 * channels and pause, with the attribute carrying the device's maximum where there is one.
 * A new attribute is one row here (and its number in include/rtltune/knob_attrs.h); the parsers,
 * the requests, the range check and the names all follow from the row.
 */
#include <string.h>

#include "ethnl_priv.h"

/*
 * Every row of knob_ethtool.def, in its order: a group's rows are adjacent, and the knob
 * ids follow the same order, so a group's slice starts at its first knob's offset.
 */
static const struct ethnl_attr all_attrs[] = {
#define ETHNL_KNOB(id, grp, nm, a, m, t, ...)                                                      \
	{.name = nm,                                                                               \
	 .attr = a,                                                                                \
	 .max_attr = m,                                                                            \
	 .type = ETHNL_##t,                                                                        \
	 .group = ETHNL_##grp,                                                                     \
	 .knob = KNOB_##id},
#include "rtltune/knob_ethtool.def"
#undef ETHNL_KNOB
};
_Static_assert(sizeof(all_attrs) / sizeof(all_attrs[0]) == KNOB_FIRST_FEATURE - KNOB_FIRST_ETHNL,
	       "one wire row per ethtool knob");

#define SLICE(first, next) &all_attrs[KNOB_##first - KNOB_FIRST_ETHNL], KNOB_##next - KNOB_##first

const struct ethnl_group_info ethnl_groups[ETHNL_GROUP_COUNT] = {
	[ETHNL_RINGS] = {"rings", "ring_", ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET,
			 ETHTOOL_MSG_RINGS_GET_REPLY, ETHTOOL_MSG_RINGS_NTF,
			 RT_ETHTOOL_A_RINGS_LAST, SLICE(RING_RX, COALESCE_ADAPTIVE_RX)},
	[ETHNL_COALESCE] = {"coalesce", "coalesce_", ETHTOOL_MSG_COALESCE_GET,
			    ETHTOOL_MSG_COALESCE_SET, ETHTOOL_MSG_COALESCE_GET_REPLY,
			    ETHTOOL_MSG_COALESCE_NTF, RT_ETHTOOL_A_COALESCE_LAST,
			    SLICE(COALESCE_ADAPTIVE_RX, CHANNELS_RX)},
	[ETHNL_CHANNELS] = {"channels", "channels_", ETHTOOL_MSG_CHANNELS_GET,
			    ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_MSG_CHANNELS_GET_REPLY,
			    ETHTOOL_MSG_CHANNELS_NTF, ETHTOOL_A_CHANNELS_COMBINED_COUNT,
			    SLICE(CHANNELS_RX, PAUSE_AUTONEG)},
	[ETHNL_PAUSE] = {"pause", "pause_", ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_PAUSE_SET,
			 ETHTOOL_MSG_PAUSE_GET_REPLY, ETHTOOL_MSG_PAUSE_NTF,
			 RT_ETHTOOL_A_PAUSE_STATS_SRC, SLICE(PAUSE_AUTONEG, FIRST_FEATURE)},
};

static bool group_ok(enum ethnl_group g)
{
	return (unsigned int)g < ETHNL_GROUP_COUNT;
}

const struct ethnl_attr *ethnl_attrs(enum ethnl_group g, size_t *n)
{
	*n = group_ok(g) ? ethnl_groups[g].n_attrs : 0;
	return group_ok(g) ? ethnl_groups[g].attrs : NULL;
}

const struct ethnl_attr *ethnl_attr_find(enum ethnl_group g, const char *name)
{
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++)
		if (strcmp(a[i].name, name) == 0)
			return &a[i];
	return NULL;
}

const char *ethnl_group_name(enum ethnl_group g)
{
	return group_ok(g) ? ethnl_groups[g].name : "?";
}

const char *ethnl_knob_prefix(enum ethnl_group g)
{
	return group_ok(g) ? ethnl_groups[g].prefix : "?";
}

void ethnl_values_init(struct ethnl_values *v)
{
	unsigned int i;

	for (i = 0; i <= ETHNL_MAX_ATTR; i++)
		v->val[i] = v->max[i] = LINK_UNSET;
}

int ethnl_values_check(enum ethnl_group g, const struct ethnl_values *want, struct rterr *err)
{
	static const int64_t limit[] = {
		[ETHNL_U32] = UINT32_MAX, [ETHNL_U8] = UINT8_MAX, [ETHNL_BOOL] = 1};
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++) {
		int64_t v = want->val[a[i].attr];

		if (v != LINK_UNSET && (v < 0 || v > limit[a[i].type]))
			return rterr_input(err, "%s%s: %lld out of range (0..%lld)",
					   ethnl_knob_prefix(g), a[i].name, (long long)v,
					   (long long)limit[a[i].type]);
	}
	return 0;
}
