/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_KNOB_H
#define RTLTUNE_KNOB_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The vocabulary the knob rows are written in, shared by every module below and above
 * the table (so the table depends on no back end): values, limits, groups, routes.
 */

/* Unknown / not reported by this kernel. Printed as JSON null. */
#define LINK_UNSET (-1LL)

/* Kernel constants (include/linux/netdevice.h), for kernels/headers that lack them. */
#define GSO_LEGACY_MAX_SIZE 65536
#define GSO_MAX_SIZE_BIG    524280
#define GSO_MAX_SEGS_MAX    65535

/* The smaller of two values where LINK_UNSET means "no bound" (a limit nobody reported). */
static inline int64_t knob_min_known(int64_t a, int64_t b)
{
	if (a == LINK_UNSET)
		return b;
	if (b == LINK_UNSET)
		return a;
	return a < b ? a : b;
}

/* Limits a chip entry may declare (chipdb.h: chip_limit(), chip_limit_name()). */
enum chip_limit {
	CHIP_LIMIT_MAX_MTU,
	CHIP_LIMIT_TSO_MAX_SIZE,
	CHIP_LIMIT_TSO_MAX_SEGS,
	CHIP_LIMIT_GSO_MAX_SIZE,
	CHIP_LIMIT_GRO_MAX_SIZE,
	CHIP_LIMIT__COUNT
};

/* The ethtool netlink groups (ethnl.h). */
enum ethnl_group {
	ETHNL_RINGS,
	ETHNL_COALESCE,
	ETHNL_CHANNELS,
	ETHNL_PAUSE,
	ETHNL_GROUP_COUNT,
};

/* The cached routes a change invalidates (route.h: route_invalidate()). */
enum route_family {
	ROUTE_IPV4 = 1u << 0,
	ROUTE_IPV6 = 1u << 1,
};

/*
 * The knobs a profile can set (SPEC "Knobs a profile can set"), one row each in
 * lib/base/knob.c's table. Everything else is derived from the row: profile parsing, planning
 * and its limits, the kernel write, the read-back, undo, the journal, `show` (text and
 * --json), `verify`, metrics, `rtltune knobs` and the completion (docs/architecture.md
 * "Adding a knob"). The enum order is the apply order.
 */
enum knob_id {
	KNOB_MTU,
	KNOB_TSO,
	KNOB_GSO,
	KNOB_GRO,
	KNOB_GSO_MAX_SIZE, /* before the IPv4 twin: setting it <= 64K moves gso_ipv4 too */
	KNOB_GSO_IPV4_MAX_SIZE,
	KNOB_GRO_MAX_SIZE,
	KNOB_GRO_IPV4_MAX_SIZE,
	KNOB_GSO_MAX_SEGS,
	KNOB_TXQUEUELEN,
/* The ethtool netlink groups: rings, coalescing, channels, pause (knob_ethtool.def). */
#define ETHNL_KNOB(id, ...) KNOB_##id,
#include "rtltune/knob_ethtool.def"
#undef ETHNL_KNOB
/* Every offload feature by name, feature.NAME (knob_features.def). */
#define FEATURE_KNOB(id, ...) KNOB_FEAT_##id,
#include "rtltune/knob_features.def"
#undef FEATURE_KNOB
/* The stack around the NIC (lib/netdev/around.c): per NAPI, then per queue set. */
	KNOB_NAPI_THREADED,
	KNOB_NAPI_DEFER_HARD_IRQS,
	KNOB_GRO_FLUSH_TIMEOUT,
	KNOB_IRQ_SUSPEND_TIMEOUT,
	KNOB_RPS_CPUS,
	KNOB_RPS_FLOW_CNT,
	KNOB_XPS_CPUS,
/* Host-wide: the initial network namespace's net.core sysctls (lib/host/hostknob.c), set
 * once per apply on the host's own plan, never on an interface's. */
	KNOB_NETDEV_MAX_BACKLOG,
	KNOB_NETDEV_BUDGET,
	KNOB_NETDEV_BUDGET_USECS,
	KNOB__COUNT
};

/* The first knob of the ethtool groups and the first feature.NAME knob. */
#define KNOB_FIRST_ETHNL   KNOB_RING_RX
#define KNOB_FIRST_FEATURE KNOB_FEAT_TX_SCATTER_GATHER
/* The first knob of the stack around the NIC (NAPI, RPS/XPS): the features end there. */
#define KNOB_FIRST_AROUND  KNOB_NAPI_THREADED
#define KNOB_AROUND_COUNT  (KNOB_FIRST_HOST - KNOB_FIRST_AROUND)
/* The host-wide knobs: the last rows. */
#define KNOB_FIRST_HOST	   KNOB_NETDEV_MAX_BACKLOG
#define KNOB_HOST_COUNT	   (KNOB__COUNT - KNOB_FIRST_HOST)
/*
 * The name the host's own plan, journal record and outputs go by ("host KNOB OLD -> NEW"):
 * its knobs' names (net.core.*) say which they are, whatever a device may be called.
 */
#define KNOB_HOST_NAME "host"

enum knob_type {
	KNOB_T_NUMBER,
	KNOB_T_BOOL,
	/* A set of CPUs held as a bit mask (CPUs 0..62): written "0-3,8", "0xf" or "none",
	 * shown as a list (lib/base/cpus.c). */
	KNOB_T_CPUS,
};

/* How the kernel is told. */
enum knob_backend {
	KNOB_B_LINK,	 /* one u32 rtnetlink attribute (RTM_NEWLINK IFLA_*) */
	KNOB_B_FEATURES, /* netdev feature bits, all of .features switched together */
	KNOB_B_ETHNL,	 /* one attribute of an ethtool netlink group (ethnl.h) */
	KNOB_B_NAPI,	 /* one setting of every NAPI of the device (napi.h, .sub) */
	KNOB_B_QUEUE,	 /* one sysfs file of every rx or tx queue (queues.h, .sub) */
	KNOB_B_SYSCTL,	 /* a host-wide /proc/sys file, named by the knob (hostknob.h) */
};

/* Which traffic a knob moves: what the tuner judges a change of it by. */
enum knob_dir { KNOB_DIR_TX, KNOB_DIR_RX, KNOB_DIR_BOTH };

enum knob_flag {
	/* A size local traffic takes from the top of a device stack (a bridge, a bond, a
	 * macvlan over the NIC), and one a lower below it must match or the skbs are
	 * segmented in software there (docs/stack.md): applied to the uppers too. */
	KNOB_F_STACK = 1u << 0,
};

/* A limit shown next to a knob by `show` ("mtu 1500 (min 68, max 65535)"). */
struct knob_shown_limit {
	const char *label; /* "min" */
	const char *key;   /* the `show --json` key holding it: "min_mtu" */
};

struct knob_desc {
	const char *name; /* profile key, journal and log name, metric label, JSON key */
	enum knob_type type;
	enum knob_backend backend;
	int ifla; /* KNOB_B_LINK: the IFLA_* attribute, read and written as u32 */
	/* KNOB_B_FEATURES: the ETH_SS_FEATURES names set together; the state read back is
	 * "on" when any of the first n_read is active. */
	const char *const *features;
	unsigned int n_features, n_read;
	/* KNOB_B_ETHNL: the group (enum ethnl_group), the attribute carrying the value and
	 * the one carrying the device's own maximum (0: none). A group's knobs are adjacent
	 * in the table and change in one request. */
	int ethnl_group;
	uint16_t ethnl_attr, ethnl_max_attr;
	/* KNOB_B_NAPI: enum napi_setting; KNOB_B_QUEUE: enum queue_file. */
	int sub;
	int64_t min, max; /* what the attribute may carry (booleans 0..1) */
	/* A rule of the value beyond its range (rps_flow_cnt: a power of two), or NULL:
	 * returns NULL when v is fine, else what is expected. */
	const char *(*check)(int64_t v);
	int limit; /* enum chip_limit bounding it (kernel cut by chip database), or -1 */
	const char *limit_name; /* how a refusal names that limit ("tso_max_size") */
	/* Ceiling for "max" when the kernel reports no limit (older kernels); LINK_UNSET:
	 * none, then "max" is skipped. */
	int64_t legacy_max;
	/* The knob the kernel sets along with this one (net/core/dev.c: a size up to 64K is
	 * mirrored into its IPv4 twin), or -1. */
	int twin;
	enum knob_dir dir;
	const char *unit;   /* base unit of a number ("bytes", "segments", "packets"), "" */
	unsigned int flags; /* enum knob_flag */
	/* The cached routes a change must invalidate (enum route_family bits, route.h):
	 * sockets copied the value when they got their route (sk_setup_caps). */
	unsigned int reroute;
	struct knob_shown_limit shown[2];
	const char *help; /* one line: `rtltune knobs`, metrics and docs */
};

/* The row of a knob; id must be valid. */
const struct knob_desc *knob_desc(enum knob_id id);
/* Name ("gso_max_size") <-> id. */
const char *knob_name(enum knob_id id);
int knob_from_name(const char *name); /* -1 when unknown */
enum knob_type knob_type(enum knob_id id);
/* "mtu, tso, gso, ..." (every name, in order), for messages that list the valid ones. */
const char *knob_names_list(void);
/* A feature.NAME knob (one netdev feature by its kernel name). */
static inline bool knob_is_feature(enum knob_id id)
{
	return id >= KNOB_FIRST_FEATURE && id < KNOB_FIRST_AROUND;
}
/* A host-wide knob (net.core.*): set on the host's plan, never an interface's. */
static inline bool knob_is_host(enum knob_id id)
{
	return id >= KNOB_FIRST_HOST && id < KNOB__COUNT;
}
/* The kernel name of a feature.NAME knob ("rx-gro-hw"), NULL for other knobs. */
const char *knob_feature_name(enum knob_id id);
/* The knob of an ethtool group's attribute, or -1. */
int knob_of_ethnl(int group, unsigned int attr);

/* A profile's value for a knob. */
enum knob_value_kind {
	KV_UNSET = 0, /* not mentioned: same as keep */
	KV_KEEP,
	KV_NUMBER, /* also on=1/off=0 for booleans */
	KV_MAX,	   /* resolved per interface from kernel limits and chip quirks */
};

struct knob_value {
	enum knob_value_kind kind;
	int64_t num;
};

/*
 * Parse a profile value for knob id: a number (decimal, with optional K/M suffix in
 * 1024s), on/off (booleans), "max" or "keep". Returns 0 or -EINVAL with a message in
 * why (what was expected).
 */
int knob_value_parse(enum knob_id id, const char *text, struct knob_value *out, char *why,
		     unsigned int whylen);
/* Whether v is a value the knob can hold (the journal refuses any other). */
bool knob_value_valid(enum knob_id id, int64_t v);

/* A current value as people read it: "on"/"off" for booleans, the number otherwise,
 * "-" for unknown (negative). */
const char *knob_value_str(enum knob_id id, int64_t value, char *buf, unsigned int len);
/* The same as JSON: true/false, a number, or NULL (JSON null) for LINK_UNSET. */
json_object *knob_value_json(enum knob_id id, int64_t value);

/* A profile's value as JSON: the value as knob_value_json(), or "max" / "keep". */
json_object *knob_setting_json(enum knob_id id, const struct knob_value *v);

/* The settings of one NAPI (netdev napi-set; rtltune/napi.h), in the order the knob rows
 * and napi_info use. */
enum napi_setting {
	NAPI_THREADED,		/* 0 off, 1 on (2: busy-poll thread, 6.18; left alone) */
	NAPI_DEFER_HARD_IRQS,	/* polls that end with no work before IRQs are re-armed */
	NAPI_GRO_FLUSH_TIMEOUT, /* ns */
	NAPI_IRQ_SUSPEND,	/* ns; netlink only */
	NAPI_SETTING_COUNT
};

/* The per-queue sysfs files (rtltune/queues.h). */
enum queue_file { QUEUE_RPS_CPUS, QUEUE_RPS_FLOW_CNT, QUEUE_XPS_CPUS, QUEUE_FILE_COUNT };

#endif
