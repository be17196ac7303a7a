/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ETHNL_PRIV_H
#define RTLTUNE_ETHNL_PRIV_H
/* Shared by lib/netdev/ethnl.c (requests) and lib/netdev/ethnl_parse.c (tables, parsers). */
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "rtltune/ethnl.h"
#include "rtltune/knob_attrs.h"

_Static_assert(RT_ETHTOOL_A_COALESCE_LAST == ETHNL_MAX_ATTR, "ETHNL_MAX_ATTR");

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
/* NLMSGERR_ATTR_MISS_TYPE/_NEST: 6.0 uapi. */
enum {
	RT_NLMSGERR_ATTR_MSG = 1,
	RT_NLMSGERR_ATTR_OFFS = 2,
	RT_NLMSGERR_ATTR_MISS_TYPE = 5,
	RT_NLMSGERR_ATTR_MISS_NEST = 6,
	RT_NLMSGERR_ATTR_LAST = 6
};

#define RT_ETHTOOL_A_HEADER 1 /* every message's ETHTOOL_A_*_HEADER */
#define ETH_SS_FEATURES_ID  4 /* enum ethtool_stringset, linux/ethtool.h */
/* Bound on a bitset / string set this code accepts: features are a u64 in the kernel. */
#define ETHNL_BITS_MAX 1024

/* Per group: the genl commands and the table rows. */
struct ethnl_group_info {
	const char *name, *prefix;
	uint8_t get_cmd, set_cmd;   /* ETHTOOL_MSG_*_GET / _SET (user to kernel) */
	uint8_t reply_cmd, ntf_cmd; /* ETHTOOL_MSG_*_GET_REPLY / _NTF (kernel to user) */
	uint16_t last_attr;	    /* highest attribute number of the group */
	const struct ethnl_attr *attrs;
	size_t n_attrs;
};
extern const struct ethnl_group_info ethnl_groups[ETHNL_GROUP_COUNT];

/*
 * The top-level attribute at byte offset off of a request we built (nlmsghdr + genl
 * header + attributes), as the kernel's NLMSGERR_ATTR_OFFS points at it: its type, the
 * type of the top-level nest holding off, or -1.
 */
int ethnl_request_attr_at(const void *req, size_t len, uint32_t off);

#endif
