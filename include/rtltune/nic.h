/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_NIC_H
#define RTLTUNE_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/ethnl.h"
#include "rtltune/ethtool.h"
#include "rtltune/knob.h"
#include "rtltune/link.h"
#include "rtltune/pci.h"

/*
 * The sockets a run reads (and the actuator writes) devices through, opened once per run:
 * rtnetlink, and the ethtool netlink family where the kernel has it. Without the family
 * (kernel < 5.7 for these commands, CONFIG_ETHTOOL_NETLINK=n; RTLTUNE_TEST_FAULT=
 * ethnl_open=EOPNOTSUPP in tests) the SIOCETHTOOL ioctl serves instead, and
 * nic_io_path() says which one does.
 */
struct nic_io;
int nic_io_open(const char *sysfs_root, struct nic_io **io, struct rterr *err);
void nic_io_close(struct nic_io *io); /* NULL is fine */
struct link_sock *nic_io_links(struct nic_io *io);
struct ethnl *nic_io_ethnl(struct nic_io *io); /* NULL: the ioctl path */
const char *nic_io_sysfs_root(const struct nic_io *io);
/* The netdev family's handle (napi.h), NULL where the kernel lacks the family. */
struct napi_nl *nic_io_napi(struct nic_io *io);
/* Whether rings, coalescing, channels and pause go through SIOCETHTOOL (no family, or one
 * without the group commands). */
bool nic_io_groups_by_ioctl(const struct nic_io *io);
/* "netlink" or "ioctl"; why the family is not used ("" when it is). */
const char *nic_io_path(const struct nic_io *io);
const char *nic_io_fallback_reason(const struct nic_io *io);

/*
 * Everything rtltune knows about one interface at one moment: rtnetlink state, every
 * knob's current value, ethtool identity and offloads, PCI identity.
 */
/* The knobs a device may report its own maximum for: the ethtool group ones. */
#define NIC_MAX_KNOBS (KNOB_FIRST_FEATURE - KNOB_FIRST_ETHNL)

struct netns;
struct nic {
	struct link_info link;
	/* The network namespace the device is in (netns.h), NULL: the process's own. Set by
	 * whoever read it there (actuator_snapshot_ns()); plans and the actuator follow it. */
	struct netns *ns;
	int64_t val[KNOB__COUNT]; /* current values, LINK_UNSET when unknown */
	/* Feature knobs: requested on (wanted), whatever the kernel keeps active; and whether
	 * the driver lets nobody change them ("[fixed]"). */
	bool requested[KNOB__COUNT];
	bool fixed[KNOB__COUNT];
	/* Ethtool group knobs: the device's own maximum (LINK_UNSET: none reported), by
	 * k - KNOB_FIRST_ETHNL (nic_max(): no other knob has one), and per group 0 or the
	 * negative errno of its read (-EOPNOTSUPP: the driver has no such operation; its
	 * knobs are then unsupported). */
	int64_t max[NIC_MAX_KNOBS];
	int group_err[ETHNL_GROUP_COUNT];
	const char *ethtool_path; /* "netlink" or "ioctl": how groups and features were read */
	bool have_drvinfo;
	struct eth_drvinfo drv;
	/* The stack around the NIC (around.h): per such knob 0 or the negative errno that
	 * left it unknown; how many NAPIs the device has (-1: not known); whether napi-get
	 * names an IRQ for any of them (1: driven by interrupts, 0: none has one, a veth's or
	 * no NAPI at all, -1: not known); how the NAPI settings were read (enum
	 * around_napi_path). */
	int16_t around_err[KNOB_AROUND_COUNT];
	int16_t n_napi;
	int8_t napi_irq;
	uint8_t napi_path;
	/* The host's own snapshot (hostknob.h: host_snapshot()), not a device: its name is
	 * KNOB_HOST_NAME, its ifindex 0, and only the host-wide knobs have values; per such
	 * knob 0 or the negative errno that left it unknown (an interface's snapshot has them
	 * all LINK_UNSET, and host false). */
	bool host;
	int16_t host_err[KNOB_HOST_COUNT];
	int64_t speed_mbps; /* -1 unknown */
	struct pci_ident pci;
};

/* The device's own maximum for knob k, LINK_UNSET: none (or not a knob that has one). */
static inline int64_t nic_max(const struct nic *nic, enum knob_id k)
{
	return k >= KNOB_FIRST_ETHNL && k < KNOB_FIRST_FEATURE ? nic->max[k - KNOB_FIRST_ETHNL]
							       : LINK_UNSET;
}

/* Set the maximum of an ethtool group knob k (others have none: ignored). */
static inline void nic_set_max(struct nic *nic, enum knob_id k, int64_t v)
{
	if (k >= KNOB_FIRST_ETHNL && k < KNOB_FIRST_FEATURE)
		nic->max[k - KNOB_FIRST_ETHNL] = v;
}

/* Every maximum unknown (LINK_UNSET). */
static inline void nic_max_clear(struct nic *nic)
{
	unsigned int i;

	for (i = 0; i < NIC_MAX_KNOBS; i++)
		nic->max[i] = LINK_UNSET;
}

/*
 * Which ethtool groups (rings, coalescing, channels, pause) and whether the knobs around
 * the NIC (NAPI and queue settings: NIC_GROUP_AROUND) a snapshot through io reads:
 * NIC_GROUPS_ALL (the default), or the bits of the groups a command's knobs are in (an
 * apply of size and offload knobs reads none). A group not read has group_err -ENODATA
 * and its knobs LINK_UNSET (the knobs around the NIC: around_err -ENODATA); a read-back
 * does not read it either. Features are always read.
 */
#define NIC_GROUP_BIT(g)  (1u << (unsigned int)(g))
#define NIC_GROUP_AROUND  (1u << ETHNL_GROUP_COUNT)
#define NIC_GROUPS_ALL	  ((1u << (ETHNL_GROUP_COUNT + 1)) - 1)
void nic_io_read_groups(struct nic_io *io, unsigned int groups);
/* The knobs around the NIC of nic, read now through io (for a snapshot that skipped them). */
void nic_read_around(struct nic_io *io, struct nic *nic);
/*
 * A snapshot from a link already read (a dump, a targeted get, a link event): the ethtool
 * and PCI parts are read now through io, groups and features by ifindex.
 */
void nic_from_link(struct nic_io *io, const struct link_info *li, struct nic *out);
/* One interface by ifindex (a targeted RTM_GETLINK); -ENODEV "interface N disappeared". */
int nic_snapshot_index(struct nic_io *io, int ifindex, struct nic *out, struct rterr *err);
/*
 * The knobs of a snapshot read again (by its ifindex: link, ethtool groups, features), its
 * identity kept: the read-back after a change, which moves no driver, chip or PCI id. A
 * group the driver had no operation for is not asked again.
 */
int nic_reread(struct nic_io *io, struct nic *nic, struct rterr *err);
/* One interface by name; -ENODEV "no such interface: NAME". */
int nic_snapshot(struct nic_io *io, const char *ifname, struct nic *out, struct rterr *err);
/* Every link in the current netns (one netlink dump), sorted by ifindex. */
int nic_snapshot_all(struct nic_io *io, struct nic **nics, int *n, struct rterr *err);
/*
 * Re-read one ethtool group of nic (a monitor event, a check for outside changes): its
 * knobs' values and maxima; the group's read status in nic->group_err.
 */
void nic_read_group(struct nic_io *io, enum ethnl_group g, struct nic *nic);

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
