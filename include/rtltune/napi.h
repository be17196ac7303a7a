/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_NAPI_H
#define RTLTUNE_NAPI_H
/*
 * The NAPI instances of a device and their settings, through the netdev generic netlink
 * family (genl "netdev": napi-get since 6.9, napi-set since 6.13, the threaded attribute
 * in both since 6.17), with the per-device sysfs files (/sys/class/net/DEV/threaded,
 * napi_defer_hard_irqs, gro_flush_timeout) where the kernel lacks the netlink way
 * (docs/kernel.md "The stack around the NIC").
 *
 * The reply parser works on one netlink message in a buffer (no socket): it is tested on
 * captured replies and fuzzed, and the requests use exactly it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/genl_family.h"
#include "rtltune/knob.h"

/* include/uapi/linux/netdev.h (6.18); Debian 12's headers predate the family. */
#define NETDEV_GENL_NAME		   "netdev"
#define NETDEV_GENL_VER			   1
#define RT_NETDEV_CMD_NAPI_GET		   11
#define RT_NETDEV_CMD_NAPI_SET		   14
#define RT_NETDEV_A_NAPI_IFINDEX	   1
#define RT_NETDEV_A_NAPI_ID		   2
#define RT_NETDEV_A_NAPI_IRQ		   3
#define RT_NETDEV_A_NAPI_PID		   4
#define RT_NETDEV_A_NAPI_DEFER_HARD_IRQS   5
#define RT_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT 6
#define RT_NETDEV_A_NAPI_IRQ_SUSPEND	   7
#define RT_NETDEV_A_NAPI_THREADED	   8

/* The settings of one NAPI, in the order of enum napi_setting. */
/* enum napi_setting (the knob rows name them): rtltune/knob.h */

/* One napi-get reply: -1 (NAPI_ABSENT) where the kernel sent no such attribute. */
#define NAPI_ABSENT (-1)
struct napi_info {
	int64_t id, ifindex, irq, pid;
	int64_t set[NAPI_SETTING_COUNT];
};

/*
 * Parse one netlink message holding a napi-get reply (nlmsghdr, genlmsghdr, attributes).
 * Every attribute must fit its container and have its type's size (u32, or the variable
 * uint of 4 or 8 bytes); values beyond their range are refused. 0, or -EBADMSG.
 */
int napi_parse_reply(const void *msg, size_t len, struct napi_info *out);
/*
 * Whether a device's NAPIs are driven by hardware interrupts: 1 when napi-get names an IRQ
 * for any of the n (the attribute since 6.9, sent only for a NAPI whose driver tied it to
 * one: netif_napi_set_irq()), else 0 (a veth's NAPI, scheduled by its peer; no NAPI).
 */
int napi_list_has_irq(const struct napi_info *list, unsigned int n);
/* The attribute that carries setting s. */
uint16_t napi_setting_attr(enum napi_setting s);
/* "threaded", "defer-hard-irqs", ... (the family's names). */
const char *napi_setting_name(enum napi_setting s);

/* ---- requests ------------------------------------------------------------------------ */

struct napi_nl;

/*
 * The netdev family on shared, a connected generic netlink socket the caller keeps open
 * longer than the handle (the ethtool family's: ethnl_socket()), or on a socket of its own
 * when shared is NULL. No family (kernel < 6.3): -EOPNOTSUPP. has_get / has_set: whether
 * the family has napi-get and napi-set.
 */
struct nl_sock;
int napi_nl_open(struct nl_sock *shared, struct napi_nl **out, struct rterr *err);
void napi_nl_close(struct napi_nl *nl); /* NULL is fine */
bool napi_nl_has_get(const struct napi_nl *nl);
bool napi_nl_has_set(const struct napi_nl *nl);

/* Whether the kernel's netdev family has command cmd (RT_NETDEV_CMD_*). */
bool napi_nl_has_op(const struct napi_nl *nl, unsigned int cmd);
/* A u32 attribute of a request. */
struct napi_nl_attr {
	uint16_t type;
	uint32_t value;
};
/*
 * A dump of the netdev family's command cmd with n_attrs u32 attributes: each reply
 * message to fn (genl_transact()). what names the request in err. The one exchange of
 * napi-get here, of qstats-get (qstats.h), and of rtltuned's napi-get of every device.
 */
int napi_nl_dump(struct napi_nl *nl, uint8_t cmd, const struct napi_nl_attr *attrs,
		 unsigned int n_attrs, genl_reply_fn fn, void *arg, const char *what,
		 struct rterr *err);

#define NAPI_MAX_PER_DEV 256
/* The NAPIs of ifindex (a napi-get dump filtered by ifindex): *n of them into out[]. */
int napi_nl_list(struct napi_nl *nl, int ifindex, struct napi_info *out, unsigned int max,
		 unsigned int *n, struct rterr *err);
/* napi-set of one setting on one NAPI id; the kernel's extack text in err. */
int napi_nl_set(struct napi_nl *nl, uint32_t napi_id, enum napi_setting s, uint64_t value,
		struct rterr *err);

/* ---- the per-device sysfs files (the fallback) ------------------------------------------ */

/* The file under /sys/class/net/DEV/ of setting s, or NULL (irq_suspend_timeout: none). */
const char *napi_sysfs_file(enum napi_setting s);

#endif
