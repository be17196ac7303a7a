/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_QSTATS_H
#define RTLTUNE_QSTATS_H
/*
 * A device's queue statistics from the netdev generic netlink family: `qstats-get`
 * (since 6.9), per device or, with scope "queue", per rx and tx queue. Counters a driver
 * keeps with standard meanings (Documentation/netlink/specs/netdev.yaml, attribute set
 * "qstats"): packets and bytes since 6.9, rx-alloc-fail since 6.9, the hardware drop,
 * checksum and GRO/GSO counters since 6.10, tx-stop and tx-wake since 6.10,
 * rx-csum-complete since 6.15 (its attribute number is older). Only drivers
 * with queue stats answer (virtio_net, mlx5, bnxt, gve, ...); for the others (veth) the
 * dump is empty, which is "no qstats", not zeros. A driver reports only the counters it
 * keeps. Per-queue values count since the queue's last reconfiguration and need not add up
 * to the device's.
 *
 * The reply parser works on one netlink message in a buffer (no socket): it is tested on
 * captured replies and fuzzed, and the requests use exactly it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

/* include/uapi/linux/netdev.h (6.18). */
#define RT_NETDEV_CMD_QSTATS_GET      12
#define RT_NETDEV_A_QSTATS_IFINDEX    1
#define RT_NETDEV_A_QSTATS_QUEUE_TYPE 2
#define RT_NETDEV_A_QSTATS_QUEUE_ID   3
#define RT_NETDEV_A_QSTATS_SCOPE      4
#define RT_NETDEV_A_QSTATS_RX_PACKETS 8 /* the first counter; the others follow in order */
#define RT_NETDEV_QSTATS_SCOPE_QUEUE  1
#define RT_NETDEV_QUEUE_TYPE_RX	      0
#define RT_NETDEV_QUEUE_TYPE_TX	      1

/* The counters, in the kernel's attribute order (attribute RT_NETDEV_A_QSTATS_RX_PACKETS + s). */
enum qstat {
	QSTAT_RX_PACKETS,
	QSTAT_RX_BYTES,
	QSTAT_TX_PACKETS,
	QSTAT_TX_BYTES,
	QSTAT_RX_ALLOC_FAIL,
	QSTAT_RX_HW_DROPS,
	QSTAT_RX_HW_DROP_OVERRUNS,
	QSTAT_RX_CSUM_COMPLETE,
	QSTAT_RX_CSUM_UNNECESSARY,
	QSTAT_RX_CSUM_NONE,
	QSTAT_RX_CSUM_BAD,
	QSTAT_RX_HW_GRO_PACKETS,
	QSTAT_RX_HW_GRO_BYTES,
	QSTAT_RX_HW_GRO_WIRE_PACKETS,
	QSTAT_RX_HW_GRO_WIRE_BYTES,
	QSTAT_RX_HW_DROP_RATELIMITS,
	QSTAT_TX_HW_DROPS,
	QSTAT_TX_HW_DROP_ERRORS,
	QSTAT_TX_CSUM_NONE,
	QSTAT_TX_NEEDS_CSUM,
	QSTAT_TX_HW_GSO_PACKETS,
	QSTAT_TX_HW_GSO_BYTES,
	QSTAT_TX_HW_GSO_WIRE_PACKETS,
	QSTAT_TX_HW_GSO_WIRE_BYTES,
	QSTAT_TX_HW_DROP_RATELIMITS,
	QSTAT_TX_STOP,
	QSTAT_TX_WAKE,
	QSTAT_COUNT
};
_Static_assert(QSTAT_COUNT <= 32, "struct qstats.have has a bit per counter");

/* QSTATS_DEVICE in queue_type: the device's totals, not one queue's. */
#define QSTATS_DEVICE (-1)

/* One qstats-get reply. */
struct qstats {
	int ifindex;
	int queue_type;	   /* QSTATS_DEVICE, RT_NETDEV_QUEUE_TYPE_RX or _TX */
	uint32_t queue_id; /* with a queue type */
	uint32_t have;	   /* bit per enum qstat the driver reported */
	uint64_t val[QSTAT_COUNT];
};

/*
 * Parse one netlink message holding a qstats-get reply (nlmsghdr, genlmsghdr,
 * attributes). Every attribute must fit its container; ifindex (1..INT32_MAX), queue type
 * and queue id are u32, a counter the family's variable uint (4 or 8 bytes); queue type
 * and queue id come together or not at all, the type rx or tx. Attributes this parser
 * does not know (a newer kernel's) are skipped. 0, or -EBADMSG.
 */
int qstats_parse_reply(const void *msg, size_t len, struct qstats *out);
/* "rx-hw-drops" (the family's name) and "rx_hw_drops" (JSON keys, metric names). */
const char *qstat_name(enum qstat s);
const char *qstat_key(enum qstat s);
/* Whether the counter counts bytes (else packets or events). */
bool qstat_is_bytes(enum qstat s);
/* What the counter counts, one sentence (the spec's doc, shortened): metric HELP. */
const char *qstat_help(enum qstat s);

/* ---- requests ------------------------------------------------------------------------ */

struct napi_nl;

/* Whether the kernel's netdev family has qstats-get (6.9). */
bool qstats_nl_supported(const struct napi_nl *nl);
/* One reply to the caller (valid during the call); a negative return ends the dump. */
typedef int (*qstats_fn)(const struct qstats *q, void *arg);
/*
 * A qstats-get dump on the netdev family's handle (napi.h): of ifindex, or of every
 * device of the caller's namespace with ifindex 0; per device, or per queue with
 * per_queue. A device without queue stats gives no reply at all. Read only.
 */
int qstats_nl_dump(struct napi_nl *nl, int ifindex, bool per_queue, qstats_fn fn, void *arg,
		   struct rterr *err);

#endif
