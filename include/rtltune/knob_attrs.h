/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_KNOB_ATTRS_H
#define RTLTUNE_KNOB_ATTRS_H
/*
 * The ethtool netlink attribute numbers the knob rows name (knob_ethtool.def), for the
 * table (lib/base/knob.c) and the wire rows (lib/netdev/ethnl_table.c) alike.
 */
#include <linux/ethtool_netlink.h>

/*
 * Attribute numbers newer than Debian 12's 6.1 uapi, from the 6.18 uapi
 * (include/uapi/linux/ethtool_netlink_generated.h). Netlink attribute numbers are
 * append-only, so a kernel that lacks one simply never sends it; the asserts tie each
 * block to the last number 6.1 knows.
 */
enum {
	RT_ETHTOOL_A_RINGS_RX_PUSH = 14,	     /* 6.3 */
	RT_ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN = 15,     /* 6.4 */
	RT_ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN_MAX = 16, /* 6.4 */
	RT_ETHTOOL_A_RINGS_HDS_THRESH = 17,	     /* 6.14 */
	RT_ETHTOOL_A_RINGS_HDS_THRESH_MAX = 18,	     /* 6.14 */
	RT_ETHTOOL_A_RINGS_LAST = 18,

	RT_ETHTOOL_A_COALESCE_TX_AGGR_MAX_BYTES = 26,  /* 6.2 */
	RT_ETHTOOL_A_COALESCE_TX_AGGR_MAX_FRAMES = 27, /* 6.2 */
	RT_ETHTOOL_A_COALESCE_TX_AGGR_TIME_USECS = 28, /* 6.2 */
	RT_ETHTOOL_A_COALESCE_RX_PROFILE = 29,	       /* 6.11, nested: skipped */
	RT_ETHTOOL_A_COALESCE_TX_PROFILE = 30,	       /* 6.11, nested: skipped */
	RT_ETHTOOL_A_COALESCE_LAST = 30,

	RT_ETHTOOL_A_PAUSE_STATS_SRC = 6, /* 6.10, only with ETHTOOL_FLAG_STATS */
};
_Static_assert(RT_ETHTOOL_A_RINGS_RX_PUSH == ETHTOOL_A_RINGS_TX_PUSH + 1, "ring attributes");
_Static_assert(RT_ETHTOOL_A_COALESCE_TX_AGGR_MAX_BYTES == ETHTOOL_A_COALESCE_USE_CQE_MODE_RX + 1,
	       "coalesce attributes");
#endif
