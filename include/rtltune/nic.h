/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_NIC_H
#define RTLTUNE_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/ethtool.h"
#include "rtltune/knob.h"
#include "rtltune/link.h"
#include "rtltune/pci.h"

/*
 * Everything rtltune knows about one interface at one moment: rtnetlink state, ethtool
 * identity and offloads, PCI identity. Built by nic_snapshot_all() from one link dump.
 */
struct nic {
	struct link_info link;
	bool have_drvinfo;
	struct eth_drvinfo drv;
	int64_t speed_mbps; /* -1 unknown */
	struct pci_ident pci;
	/* Offloads as ethtool -k shows them: 1 on, 0 off, -1 unknown. */
	int tso, gso, gro;
	bool tso_requested, tso_wish; /* "off [requested on]": kernel kept TSO off */
};

/* Snapshot every link in the current netns (one netlink dump), sorted by ifindex. */
int nic_snapshot_all(const char *sysfs_root, struct nic **nics, int *n, struct rterr *err);
/* Snapshot one link; -ENODEV "no such interface: NAME". */
int nic_snapshot(const char *sysfs_root, const char *ifname, struct nic *out,
		 struct rterr *err);
/* Current value of a knob from a snapshot, or LINK_UNSET. */
int64_t nic_knob_value(const struct nic *nic, enum knob_id id);

/* The TCP segmentation feature bits "TSO" means (all of them: IPv4, IPv6, ECN, mangleid). */
extern const char *const nic_tso_features[];
extern const unsigned int nic_tso_feature_count;

#endif
