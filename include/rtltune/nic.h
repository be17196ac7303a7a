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
 * Everything rtltune knows about one interface at one moment: rtnetlink state, every
 * knob's current value, ethtool identity and offloads, PCI identity.
 */
struct nic {
	struct link_info link;
	int64_t val[KNOB__COUNT]; /* current values, LINK_UNSET when unknown */
	/* Feature knobs: requested on (wanted), whatever the kernel keeps active; and whether
	 * the driver lets nobody change them ("[fixed]"). */
	bool requested[KNOB__COUNT];
	bool fixed[KNOB__COUNT];
	bool have_drvinfo;
	struct eth_drvinfo drv;
	int64_t speed_mbps; /* -1 unknown */
	struct pci_ident pci;
};

/*
 * A snapshot from a link already read (a dump, a targeted get, a link event): the ethtool
 * and PCI parts are read now, features by ifindex.
 */
void nic_from_link(const char *sysfs_root, const struct link_info *li, struct nic *out);
/* One interface by ifindex (a targeted RTM_GETLINK); -ENODEV "interface N disappeared". */
int nic_snapshot_index(struct link_sock *ls, const char *sysfs_root, int ifindex, struct nic *out,
		       struct rterr *err);
/* One interface by name; -ENODEV "no such interface: NAME". */
int nic_snapshot(struct link_sock *ls, const char *sysfs_root, const char *ifname, struct nic *out,
		 struct rterr *err);
/* Every link in the current netns (one netlink dump), sorted by ifindex. */
int nic_snapshot_all(struct link_sock *ls, const char *sysfs_root, struct nic **nics, int *n,
		     struct rterr *err);

static inline int64_t nic_knob_value(const struct nic *nic, enum knob_id id)
{
	return nic->val[id];
}

/* A feature knob the kernel keeps off though it was asked on: "off [requested on]". */
static inline bool nic_knob_wish(const struct nic *nic, enum knob_id id)
{
	return nic->requested[id] && nic->val[id] == 0;
}

#endif
