/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by ethnl_dump and ethnl_set: a group read or written by the path the tools'
 * --ioctl option picks (e == NULL: the SIOCETHTOOL fallback of lib/netdev/ethtool_groups.c, which
 * names the device in its messages; else ethtool netlink), and one bit of a feature bitmap.
 *
 * Static functions in a header because every C file in tests/tools is its own program.
 */
#ifndef RTLTUNE_TESTS_ETHNL_TOOL_H
#define RTLTUNE_TESTS_ETHNL_TOOL_H

#include <stdint.h>

#include "rtltune/ethnl.h"
#include "rtltune/ethtool_groups.h"

static inline int bit(const uint32_t *w, unsigned int i)
{
	return (w[i / 32] >> (i % 32)) & 1;
}

static inline int group_get(struct ethnl *e, int ifindex, const char *ifname, enum ethnl_group g,
			    struct ethnl_values *v, struct rterr *err)
{
	return e ? ethnl_get(e, ifindex, g, v, err) : ethtool_group_get(ifindex, ifname, g, v, err);
}

static inline int group_set(struct ethnl *e, int ifindex, const char *ifname, enum ethnl_group g,
			    const struct ethnl_values *want, struct rterr *err)
{
	return e ? ethnl_set(e, ifindex, g, want, err)
		 : ethtool_group_set(ifindex, ifname, g, want, err);
}

#endif
