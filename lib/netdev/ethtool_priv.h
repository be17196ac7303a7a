/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ETHTOOL_PRIV_H
#define RTLTUNE_ETHTOOL_PRIV_H
/* Shared by lib/netdev/ethtool.c (identity, features) and lib/netdev/ethtool_groups.c (rings, ...).
 */
#include <stdbool.h>

#include "rtltune/ethtool.h"

/*
 * The device an ethtool call is for. SIOCETHTOOL knows devices only by name, and a name
 * moves with a rename; the ifindex does not. By index, the name is looked up right before
 * each ioctl and again right after it: the kernel resolves the name under RTNL, so when
 * both lookups agree the call reached the device (short of a rename away and back within
 * those microseconds). When they differ the call is made again under the new name, which
 * is safe because every call made through here is a read, an SFEATURES that states each
 * bit it sets, or a group SET carrying the whole struct (absolute values, no deltas). A
 * rename storm gets ETHTOOL_RENAME_TRIES attempts per call, then -EAGAIN.
 */
struct eth_dev {
	const char *ifname; /* by name: the name used; by index: the caller's, for messages */
	int ifindex;	    /* > 0: address by index */
	bool gone;	    /* by index: the ifindex no longer exists */
	int renames;	    /* by index: retries spent on renames */
};

/* One SIOCETHTOOL call with cmd as ifr_data: its return value or a negative errno. */
int ethtool_dev_ioctl(struct eth_dev *d, void *cmd);

#endif
