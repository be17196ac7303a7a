/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_LINK_H
#define RTLTUNE_LINK_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

/* Unknown / not reported by this kernel. Printed as JSON null. */
#define LINK_UNSET (-1LL)

/* Kernel constants (include/linux/netdevice.h), for kernels/headers that lack them. */
#define GSO_LEGACY_MAX_SIZE 65536
#define GSO_MAX_SIZE_BIG 524280
#define GSO_MAX_SEGS_MAX 65535

/* Everything rtnetlink says about one link; numeric fields are LINK_UNSET when absent. */
struct link_info {
	int ifindex;
	char ifname[IF_NAMESIZE];
	char kind[32];      /* IFLA_INFO_KIND ("veth", ...) or "" for hardware/unknown */
	char operstate[16]; /* "up", "down", "lowerlayerdown", ... as ip(8) names them */
	unsigned int flags; /* IFF_* */
	int64_t mtu, min_mtu, max_mtu;
	int64_t gso_max_size, gso_max_segs, gso_ipv4_max_size;
	int64_t gro_max_size, gro_ipv4_max_size;
	int64_t tso_max_size, tso_max_segs;
	int64_t tx_queues, rx_queues;
};

/*
 * One RTM_GETLINK dump (a single netlink round trip however many links) of the current
 * network namespace. *links is malloc'ed, sorted by ifindex; free() it.
 */
int link_dump(struct link_info **links, int *n, struct rterr *err);
/*
 * Parse one RTM_NEWLINK message (netlink header included) of len bytes, as a dump or the
 * link monitor receives it. -EINVAL for anything else or a malformed message.
 */
int link_info_from_msg(const void *buf, size_t len, struct link_info *out);
/* One link by name; -ENODEV with "no such interface: NAME" when absent. */
int link_get(const char *ifname, struct link_info *out, struct rterr *err);

/* Link attributes that can be written with RTM_NEWLINK/RTM_SETLINK. */
enum link_attr {
	LINK_ATTR_MTU,
	LINK_ATTR_GSO_MAX_SIZE,
	LINK_ATTR_GSO_MAX_SEGS,
	LINK_ATTR_GSO_IPV4_MAX_SIZE,
	LINK_ATTR_GRO_MAX_SIZE,
	LINK_ATTR_GRO_IPV4_MAX_SIZE,
};
/* Set one u32 attribute; err names the attribute, the value and the kernel's errno. */
int link_set_u32(int ifindex, enum link_attr attr, uint32_t value, struct rterr *err);
const char *link_attr_name(enum link_attr attr);

#endif
