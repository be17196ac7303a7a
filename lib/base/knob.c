// SPDX-License-Identifier: GPL-2.0-only
/*
 * The knob table: one row per knob, everything else derived from it (knob.h). To add a
 * knob, add its enum id and its row; docs/architecture.md "Adding a knob" says what then
 * follows by itself and what tests to write.
 */
#include <ctype.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtltune/cpus.h"
#include "rtltune/knob.h"
#include "rtltune/knob_attrs.h"

/* Attribute numbers newer than Debian 12's 6.1 uapi headers (include/uapi/linux/if_link.h). */
#define RT_IFLA_GRO_MAX_SIZE	  58
#define RT_IFLA_GSO_IPV4_MAX_SIZE 63
#define RT_IFLA_GRO_IPV4_MAX_SIZE 64

/*
 * "TSO" as a user means it: every TCP segmentation bit. Clearing only tx-tcp-segmentation
 * leaves IPv6 TSO on (a known systemd bug; docs/kernel.md F11). Reading it, TSO is on when
 * the stack may hand the driver a TCP super-packet of either family (fec does IPv4 only):
 * what ethtool -k's tcp-segmentation-offload line shows.
 */
static const char *const tso_features[] = {
	"tx-tcp-segmentation",		"tx-tcp6-segmentation",	      "tx-tcp-ecn-segmentation",
	"tx-tcp-mangleid-segmentation", "tx-tcp-accecn-segmentation",
};
static const char *const gso_features[] = {"tx-generic-segmentation"};
static const char *const gro_features[] = {"rx-gro"};

#define FEATURES(list, nread)                                                                      \
	.backend = KNOB_B_FEATURES, .features = list,                                              \
	.n_features = sizeof(list) / sizeof(list[0]), .n_read = nread, .min = 0, .max = 1,         \
	.limit = -1, .legacy_max = 1, .twin = -1
#define LINK_U32(attr) .backend = KNOB_B_LINK, .ifla = attr, .max = UINT32_MAX

/* Knob name prefixes, value types and ranges of the ethtool groups' rows. */
#define KP_RINGS    "ring_"
#define KP_COALESCE "coalesce_"
#define KP_CHANNELS "channels_"
#define KP_PAUSE    "pause_"
#define KT_U32	    KNOB_T_NUMBER
#define KT_U8	    KNOB_T_NUMBER
#define KT_BOOL	    KNOB_T_BOOL
#define KMAX_U32    UINT32_MAX
#define KMAX_U8	    UINT8_MAX
#define KMAX_BOOL   1

/* The kernel rounds a flow count up to a power of two (net-sysfs.c
 * store_rps_dev_flow_table_cnt): any other value would read back different. */
static const char *power_of_two(int64_t v)
{
	return v & (v - 1) ? "a power of two (the kernel rounds others up), or 0" : NULL;
}

#define NAPI_SET(s)                                                                                \
	.backend = KNOB_B_NAPI, .sub = s, .limit = -1, .legacy_max = LINK_UNSET, .twin = -1
#define QUEUE_FILE(f)                                                                              \
	.backend = KNOB_B_QUEUE, .sub = f, .limit = -1, .legacy_max = LINK_UNSET, .twin = -1
/* An int sysctl (proc_dointvec): 0 to INT_MAX, the range a journal can hold of it. */
#define SYSCTL_INT                                                                                 \
	.backend = KNOB_B_SYSCTL, .min = 0, .max = INT32_MAX, .limit = -1,                         \
	.legacy_max = LINK_UNSET, .twin = -1

/* One row per knob: read as a table, so laid out by hand. */
// clang-format off
static const struct knob_desc knobs[KNOB__COUNT] = {
	[KNOB_MTU] = {
		.name = "mtu", .type = KNOB_T_NUMBER, LINK_U32(IFLA_MTU), .min = 68,
		.limit = CHIP_LIMIT_MAX_MTU, .limit_name = "max_mtu", .legacy_max = LINK_UNSET,
		.twin = -1, .dir = KNOB_DIR_BOTH, .unit = "bytes",
		.shown = { { "min", "min_mtu" }, { "max", "max_mtu" } },
		.help = "largest IP packet the device sends and receives in one frame",
	},
	[KNOB_TSO] = {
		.name = "tso", .type = KNOB_T_BOOL, FEATURES(tso_features, 2),
		.dir = KNOB_DIR_TX, .unit = "", .reroute = ROUTE_IPV4 | ROUTE_IPV6,
		.help = "TCP segmentation offload, IPv4 and IPv6 (every tx-tcp*-segmentation bit)",
	},
	[KNOB_GSO] = {
		.name = "gso", .type = KNOB_T_BOOL, FEATURES(gso_features, 1),
		.dir = KNOB_DIR_TX, .unit = "", .reroute = ROUTE_IPV4 | ROUTE_IPV6,
		.help = "generic segmentation offload (tx-generic-segmentation)",
	},
	[KNOB_GRO] = {
		.name = "gro", .type = KNOB_T_BOOL, FEATURES(gro_features, 1),
		.dir = KNOB_DIR_RX, .unit = "",
		.help = "generic receive offload (rx-gro)",
	},
	[KNOB_GSO_MAX_SIZE] = {
		.name = "gso_max_size", .type = KNOB_T_NUMBER, LINK_U32(IFLA_GSO_MAX_SIZE),
		.min = 1, .limit = CHIP_LIMIT_GSO_MAX_SIZE, .limit_name = "tso_max_size",
		.legacy_max = GSO_LEGACY_MAX_SIZE, .twin = KNOB_GSO_IPV4_MAX_SIZE,
		.dir = KNOB_DIR_TX, .unit = "bytes", .flags = KNOB_F_STACK,
		/* Up to 64K it moves the IPv4 twin too. */
		.reroute = ROUTE_IPV4 | ROUTE_IPV6,
		.shown = { { "tso_max_size", "tso_max_size" } },
		.help = "largest GSO/TSO packet the stack builds for the device (IPv6, and IPv4 up "
			"to 64K)",
	},
	[KNOB_GSO_IPV4_MAX_SIZE] = {
		.name = "gso_ipv4_max_size", .type = KNOB_T_NUMBER,
		LINK_U32(RT_IFLA_GSO_IPV4_MAX_SIZE), .min = 1, .limit = CHIP_LIMIT_GSO_MAX_SIZE,
		.limit_name = "tso_max_size", .legacy_max = GSO_LEGACY_MAX_SIZE, .twin = -1,
		.dir = KNOB_DIR_TX, .unit = "bytes", .flags = KNOB_F_STACK, .reroute = ROUTE_IPV4,
		.help = "largest IPv4 GSO/TSO packet (IPv4 BIG TCP above 64K)",
	},
	[KNOB_GRO_MAX_SIZE] = {
		.name = "gro_max_size", .type = KNOB_T_NUMBER, LINK_U32(RT_IFLA_GRO_MAX_SIZE),
		.min = 0, .limit = CHIP_LIMIT_GRO_MAX_SIZE, .limit_name = "gro_max_size",
		.legacy_max = GSO_MAX_SIZE_BIG, .twin = KNOB_GRO_IPV4_MAX_SIZE,
		.dir = KNOB_DIR_RX, .unit = "bytes",
		.help = "largest packet GRO merges received frames into (IPv6, and IPv4 up to 64K)",
	},
	[KNOB_GRO_IPV4_MAX_SIZE] = {
		.name = "gro_ipv4_max_size", .type = KNOB_T_NUMBER,
		LINK_U32(RT_IFLA_GRO_IPV4_MAX_SIZE), .min = 0, .limit = CHIP_LIMIT_GRO_MAX_SIZE,
		.limit_name = "gro_max_size", .legacy_max = GSO_MAX_SIZE_BIG, .twin = -1,
		.dir = KNOB_DIR_RX, .unit = "bytes",
		.help = "largest IPv4 packet GRO builds (IPv4 BIG TCP above 64K)",
	},
	[KNOB_GSO_MAX_SEGS] = {
		.name = "gso_max_segs", .type = KNOB_T_NUMBER, LINK_U32(IFLA_GSO_MAX_SEGS),
		.min = 1, .limit = CHIP_LIMIT_TSO_MAX_SEGS, .limit_name = "tso_max_segs",
		.legacy_max = GSO_MAX_SEGS_MAX, .twin = -1, .dir = KNOB_DIR_TX,
		.unit = "segments", .flags = KNOB_F_STACK, .reroute = ROUTE_IPV4 | ROUTE_IPV6,
		.shown = { { "tso_max_segs", "tso_max_segs" } },
		.help = "most segments in one GSO/TSO packet",
	},
	[KNOB_TXQUEUELEN] = {
		/* dev_change_tx_queue_len() takes any u32; 0 is valid (no qdisc queue). */
		.name = "txqueuelen", .type = KNOB_T_NUMBER, LINK_U32(IFLA_TXQLEN), .min = 0,
		.limit = -1, .legacy_max = LINK_UNSET, .twin = -1, .dir = KNOB_DIR_TX,
		.unit = "packets",
		.help = "length of the device's transmit queue (ip link set txqueuelen)",
	},

	/* The ethtool netlink groups, from knob_ethtool.def: the device's own maximum is
	 * what "max" means (no chip limit cuts these; the chip database's max.KNOB does). */
#define ETHNL_KNOB(id, grp, nm, attr, max_attr, typ, d, u, h)                              \
	[KNOB_##id] = {                                                                    \
		.name = KP_##grp nm, .type = KT_##typ, .backend = KNOB_B_ETHNL,           \
		.ethnl_group = ETHNL_##grp, .ethnl_attr = attr, .ethnl_max_attr = max_attr, \
		.min = 0, .max = KMAX_##typ, .limit = -1, .legacy_max = LINK_UNSET,        \
		.twin = -1, .dir = KNOB_DIR_##d, .unit = u, .help = h,                     \
	},
#include "rtltune/knob_ethtool.def"
#undef ETHNL_KNOB

	/* Every feature by name, from knob_features.def. */
#define FEATURE_KNOB(id, nm, d, h)                                                         \
	[KNOB_FEAT_##id] = {                                                               \
		.name = "feature." nm, .type = KNOB_T_BOOL, .backend = KNOB_B_FEATURES,    \
		.features = (const char *const[]){nm}, .n_features = 1, .n_read = 1,       \
		.min = 0, .max = 1, .limit = -1, .legacy_max = 1, .twin = -1,              \
		.dir = KNOB_DIR_##d, .unit = "", .help = h,                                \
	},
#include "rtltune/knob_features.def"
#undef FEATURE_KNOB

	/* The stack around the NIC (lib/netdev/around.c, docs/knobs-stack.md): every NAPI of the
	 * device through netdev napi-set, or the per-device sysfs file; every queue's file. */
	[KNOB_NAPI_THREADED] = {
		.name = "napi_threaded", .type = KNOB_T_BOOL, NAPI_SET(NAPI_THREADED), .max = 1,
		.dir = KNOB_DIR_RX, .unit = "",
		.help = "NAPI polling in a kernel thread per NAPI instead of softirq context",
	},
	[KNOB_NAPI_DEFER_HARD_IRQS] = {
		/* The napi-set policy's bound (net/core/netdev-genl-gen.c). */
		.name = "napi_defer_hard_irqs", .type = KNOB_T_NUMBER,
		NAPI_SET(NAPI_DEFER_HARD_IRQS), .max = INT32_MAX, .dir = KNOB_DIR_RX,
		.unit = "polls",
		.help = "empty polls before the device's interrupts are re-armed (with "
			"gro_flush_timeout)",
	},
	[KNOB_GRO_FLUSH_TIMEOUT] = {
		.name = "gro_flush_timeout", .type = KNOB_T_NUMBER,
		NAPI_SET(NAPI_GRO_FLUSH_TIMEOUT), .max = INT64_MAX, .dir = KNOB_DIR_RX,
		.unit = "nanoseconds",
		.help = "how long GRO holds packets and a timer replaces the interrupt (0: off)",
	},
	[KNOB_IRQ_SUSPEND_TIMEOUT] = {
		.name = "irq_suspend_timeout", .type = KNOB_T_NUMBER,
		NAPI_SET(NAPI_IRQ_SUSPEND), .max = INT64_MAX, .dir = KNOB_DIR_RX,
		.unit = "nanoseconds",
		.help = "how long busy polling by the application suspends the device's "
			"interrupts (netlink only)",
	},
	[KNOB_RPS_CPUS] = {
		.name = "rps_cpus", .type = KNOB_T_CPUS, QUEUE_FILE(QUEUE_RPS_CPUS),
		.max = INT64_MAX, .dir = KNOB_DIR_RX, .unit = "",
		.help = "CPUs receive packet steering hands each rx queue's packets to (none: off)",
	},
	[KNOB_RPS_FLOW_CNT] = {
		/* The kernel refuses a table above 2^30 entries on 32-bit hosts; one bound. */
		.name = "rps_flow_cnt", .type = KNOB_T_NUMBER, QUEUE_FILE(QUEUE_RPS_FLOW_CNT),
		.max = 1 << 30, .check = power_of_two, .dir = KNOB_DIR_RX, .unit = "flows",
		.help = "flows per rx queue that receive flow steering follows to their CPU",
	},
	[KNOB_XPS_CPUS] = {
		.name = "xps_cpus", .type = KNOB_T_CPUS, QUEUE_FILE(QUEUE_XPS_CPUS),
		.max = INT64_MAX, .dir = KNOB_DIR_TX, .unit = "",
		.help = "CPUs whose packets each tx queue takes (transmit packet steering)",
	},

	/* Host-wide (lib/host/hostknob.c, docs/knobs-stack.md): /proc/sys/net/core files of
	 * the initial network namespace (net/core/sysctl_net_core.c, net_core_table). */
	[KNOB_NETDEV_MAX_BACKLOG] = {
		.name = "net.core.netdev_max_backlog", .type = KNOB_T_NUMBER, SYSCTL_INT,
		.dir = KNOB_DIR_RX, .unit = "packets",
		.help = "host-wide: packets each CPU's backlog queue holds before dropping "
			"(drop reason CPU_BACKLOG)",
	},
	[KNOB_NETDEV_BUDGET] = {
		.name = "net.core.netdev_budget", .type = KNOB_T_NUMBER, SYSCTL_INT,
		.dir = KNOB_DIR_RX, .unit = "packets",
		.help = "host-wide: packets one NET_RX softirq run polls before it yields "
			"(time_squeeze)",
	},
	[KNOB_NETDEV_BUDGET_USECS] = {
		.name = "net.core.netdev_budget_usecs", .type = KNOB_T_NUMBER, SYSCTL_INT,
		.dir = KNOB_DIR_RX, .unit = "microseconds",
		.help = "host-wide: time one NET_RX softirq run may poll before it yields "
			"(time_squeeze)",
	},
};
// clang-format on

const struct knob_desc *knob_desc(enum knob_id id)
{
	return &knobs[id];
}

const char *knob_name(enum knob_id id)
{
	return (unsigned int)id < KNOB__COUNT ? knobs[id].name : "?";
}

int knob_from_name(const char *name)
{
	int i;

	for (i = 0; i < KNOB__COUNT; i++)
		if (strcmp(knobs[i].name, name) == 0)
			return i;
	return -1;
}

enum knob_type knob_type(enum knob_id id)
{
	return knobs[id].type;
}

const char *knob_names_list(void)
{
	static char list[(KNOB_FIRST_ETHNL + KNOB__COUNT - KNOB_FIRST_AROUND) * 32 + 160];
	size_t len = 0;
	int i;

	if (list[0])
		return list;
	for (i = 0; i < KNOB_FIRST_ETHNL; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					knobs[i].name);
	len += (size_t)snprintf(list + len, sizeof(list) - len,
				", ring_*, coalesce_*, channels_*, pause_*, feature.NAME");
	for (i = KNOB_FIRST_AROUND; i < KNOB__COUNT; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, ", %s", knobs[i].name);
	snprintf(list + len, sizeof(list) - len, " (`rtltune knobs` lists them all)");
	return list;
}

const char *knob_feature_name(enum knob_id id)
{
	return knob_is_feature(id) ? knobs[id].features[0] : NULL;
}

int knob_of_ethnl(int group, unsigned int attr)
{
	int k;

	for (k = KNOB_FIRST_ETHNL; k < KNOB_FIRST_FEATURE; k++)
		if (knobs[k].ethnl_group == group && knobs[k].ethnl_attr == attr)
			return k;
	return -1;
}

bool knob_value_valid(enum knob_id id, int64_t v)
{
	return v >= 0 && v <= knobs[id].max && (!knobs[id].check || !knobs[id].check(v));
}

int knob_value_parse(enum knob_id id, const char *text, struct knob_value *out, char *why,
		     unsigned int whylen)
{
	const struct knob_desc *d = &knobs[id];
	unsigned long long v, mult = 1;
	char *end;

	memset(out, 0, sizeof(*out));
	if (strcasecmp(text, "keep") == 0) {
		out->kind = KV_KEEP;
		return 0;
	}
	if (strcasecmp(text, "max") == 0 && d->backend == KNOB_B_SYSCTL) {
		/* No device reports a ceiling for a host-wide value: "max" would mean nothing. */
		snprintf(why, whylen,
			 "%s expects a number up to %lld (optional K or M suffix) or keep: a "
			 "host-wide value has no 'max'",
			 d->name, (long long)d->max);
		return -EINVAL;
	}
	if (strcasecmp(text, "max") == 0) {
		out->kind = KV_MAX;
		return 0;
	}
	if (d->type == KNOB_T_CPUS) {
		int64_t mask;
		char cwhy[160];

		if (cpus_parse(text, &mask, cwhy, sizeof(cwhy)) < 0) {
			snprintf(why, whylen, "%s %s", d->name, cwhy);
			return -EINVAL;
		}
		*out = (struct knob_value){KV_NUMBER, mask};
		return 0;
	}
	if (d->type == KNOB_T_BOOL) {
		if (strcasecmp(text, "on") == 0 || strcasecmp(text, "yes") == 0 ||
		    strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0) {
			*out = (struct knob_value){KV_NUMBER, 1};
			return 0;
		}
		if (strcasecmp(text, "off") == 0 || strcasecmp(text, "no") == 0 ||
		    strcmp(text, "0") == 0 || strcasecmp(text, "false") == 0) {
			*out = (struct knob_value){KV_NUMBER, 0};
			return 0;
		}
		snprintf(why, whylen, "%s expects on, off, max or keep, got '%s'", d->name, text);
		return -EINVAL;
	}
	if (text[0] == '-' && isdigit((unsigned char)text[1])) {
		snprintf(why, whylen, "%s %s is out of range (0 to %lld)", d->name, text,
			 (long long)d->max);
		return -EINVAL;
	}
	if (!isdigit((unsigned char)text[0]))
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		goto bad;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end != '\0' || v > (unsigned long long)d->max / mult)
		goto bad;
	if (d->check && d->check((int64_t)(v * mult))) {
		snprintf(why, whylen, "%s expects %s, got '%s'", d->name,
			 d->check((int64_t)(v * mult)), text);
		return -EINVAL;
	}
	*out = (struct knob_value){KV_NUMBER, (int64_t)(v * mult)};
	return 0;
bad:
	snprintf(why, whylen,
		 "%s expects a number up to %lld (optional K or M suffix), %s, got '%s'", d->name,
		 (long long)d->max, d->backend == KNOB_B_SYSCTL ? "or keep" : "max or keep", text);
	return -EINVAL;
}

const char *knob_value_str(enum knob_id id, int64_t value, char *buf, unsigned int len)
{
	if (value < 0)
		return "-";
	if (knobs[id].type == KNOB_T_CPUS)
		return cpus_format(value, buf, len);
	if (knobs[id].type == KNOB_T_BOOL)
		return value ? "on" : "off";
	snprintf(buf, len, "%lld", (long long)value);
	return buf;
}

json_object *knob_value_json(enum knob_id id, int64_t value)
{
	char cpus[200];

	if (value == LINK_UNSET)
		return NULL;
	if (knobs[id].type == KNOB_T_CPUS)
		return json_object_new_string(cpus_format(value, cpus, sizeof(cpus)));
	return knobs[id].type == KNOB_T_BOOL ? json_object_new_boolean(value != 0)
					     : json_object_new_int64(value);
}

json_object *knob_setting_json(enum knob_id id, const struct knob_value *v)
{
	if (v->kind == KV_NUMBER)
		return knob_value_json(id, v->num);
	return json_object_new_string(v->kind == KV_MAX ? "max" : "keep");
}
