/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_HOSTCHECK_H
#define RTLTUNE_HOSTCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/genl_family.h"
#include "rtltune/probes.h"

/*
 * What this host offers rtltune, asked without changing anything (rtltune doctor,
 * docs/doctor.md): the kernel and its BTF, this process's capabilities, the probes' hooks
 * tried for real with a program that does nothing, each tracepoint the probes use, the
 * ethtool and netdev generic netlink families, the way cached routes are invalidated, and
 * per kernel feature rtltune uses: the release that brought it, whether this kernel has it,
 * and what rtltune does without it.
 */

/* ---- capabilities ------------------------------------------------------------------- */

enum hc_cap {
	HC_CAP_BPF,
	HC_CAP_PERFMON,
	HC_CAP_NET_ADMIN,
	HC_CAP_SYS_ADMIN,
	HC_CAP_CHOWN,
	HC_CAP__COUNT
};

/* What rtltune needs a capability for, and whether rtltuned cannot run its probes or
 * change a NIC without it. */
struct hc_cap_need {
	enum hc_cap cap;
	const char *name;    /* "CAP_BPF" */
	int number;	     /* linux/capability.h */
	enum hc_cap instead; /* the one that serves as well (CAP_SYS_ADMIN), or HC_CAP__COUNT */
	bool required;	     /* rtltuned needs it (or instead) to run with its probes */
	const char *for_what;
};
const struct hc_cap_need *hc_cap_need(enum hc_cap cap);

/* The effective set of this process (capget(2)). */
struct hc_caps {
	bool have[HC_CAP__COUNT];
};
int hostcheck_caps(struct hc_caps *out, struct rterr *err);
/* Whether the process lacks cap and the one that would serve instead. */
bool hc_cap_missing(const struct hc_caps *caps, enum hc_cap cap);

/* netdev family commands rtltune asks about (include/uapi/linux/netdev.h; Debian 12's
 * headers predate the family). */
#define NETDEV_CMD_DEV_GET_ID  1
#define NETDEV_CMD_NAPI_GET_ID 11
#define NETDEV_CMD_NAPI_SET_ID 14

/* ---- kernel features ---------------------------------------------------------------- */

enum hc_feature_id {
	HC_F_BTF,
	HC_F_RAW_TP,
	HC_F_TP_BTF,
	HC_F_CAP_BPF,
	HC_F_BPF_STATS,
	HC_F_BPF_MEMCG,
	HC_F_DROP_REASON,
	HC_F_RETRANSMIT_ERR,
	HC_F_ETHTOOL_NETLINK,
	HC_F_ETHTOOL_GROUPS,
	HC_F_ROUTE_XFRM,
	HC_F_GRO_MAX_SIZE,
	HC_F_BIG_TCP_IPV6,
	HC_F_BIG_TCP_IPV4,
	HC_F_NETDEV_FAMILY,
	HC_F_NAPI_SET,
	HC_F__COUNT
};

/* Asked of the kernel, or judged by the release when it cannot be (how says which). */
enum hc_state { HC_NO, HC_YES };
const char *hc_state_name(enum hc_state s); /* "no", "yes" */

struct hc_feature {
	const char *key;     /* "big_tcp_ipv4": the doctor's JSON key */
	const char *what;    /* one line */
	int major, minor;    /* the first release that has it */
	const char *source;  /* the kernel commit or file that shows it */
	const char *without; /* what rtltune does on a kernel without it */
	enum hc_state state;
	char how[200]; /* how this kernel was asked ("the genl family resolves", "6.18 >= 5.19") */
};

struct hostcheck {
	char release[65];
	int major, minor;
	bool btf; /* /sys/kernel/btf/vmlinux readable */
	struct hc_caps caps;
	char caps_error[256];
	/* The probes' hooks tried for real on net_dev_start_xmit (probes_try_hook()). */
	int hook_err[2]; /* [0] tp_btf, [1] raw_tp: 0 or -errno */
	char hook_msg[2][300];
	struct probe_support probes[PROBE_COUNT];
	char probes_error[256];
	struct genl_family_info ethtool, netdev;
	char ethtool_error[256], netdev_error[256];
	int route_method; /* route_invalidation_method() */
	char route_how[200];
	struct hc_feature features[HC_F__COUNT];
};

/* Ask everything above. Never fails: what could not be asked says why in its field. */
void hostcheck_run(struct hostcheck *hc);
/*
 * What stops rtltuned from running with its probes here, one line each in lines[] ("CAP_BPF
 * (or CAP_SYS_ADMIN): load the probes ..."): the number of lines, 0 when it can.
 */
#define HC_MISSING_MAX 16
#define HC_MISSING_LEN 320
unsigned int hostcheck_missing(const struct hostcheck *hc, char (*lines)[HC_MISSING_LEN]);

#endif
