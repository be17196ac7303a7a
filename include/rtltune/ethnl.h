/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ETHNL_H
#define RTLTUNE_ETHNL_H
/*
 * The ethtool generic netlink family (genl "ethtool", kernel 5.6+): rings, coalescing,
 * channels, pause and offload features, addressed by ifindex, with the kernel's extack
 * text in every error. One handle (one socket) serves every request of a run; a second
 * socket listens to the "monitor" multicast group for changes made by anyone.
 *
 * The reply parsers work on one netlink message in a buffer (no socket), so they are
 * tested on captured replies and fuzzed; the requests use exactly these parsers.
 */
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/ethtool.h"
#include "rtltune/link.h"

/* enum ethnl_group (ETHNL_RINGS ...) is knob.h's: a knob row names its group. */

enum ethnl_type {
	ETHNL_U32,
	ETHNL_U8,   /* a small number or an enum (ring tcp_data_split: 1 off, 2 on) */
	ETHNL_BOOL, /* u8 0/1 on the wire, off/on to users */
};

/* One settable attribute of a group: one row of the knob table. */
struct ethnl_attr {
	const char *name;  /* knob suffix as SPEC names it: ring_<name>, coalesce_<name>, ... */
	uint16_t attr;	   /* ETHTOOL_A_<GROUP>_* carrying the value (GET and SET) */
	uint16_t max_attr; /* ETHTOOL_A_<GROUP>_*_MAX: the device's own maximum; 0 if none */
	enum ethnl_type type;
	enum ethnl_group group;
	int knob; /* enum knob_id of the row (knob_ethtool.def) */
};

/* Highest attribute number of any group (ETHTOOL_A_COALESCE_TX_PROFILE in 6.18). */
#define ETHNL_MAX_ATTR 30

/*
 * A group's values, indexed by the value's attribute number (ethnl_attr.attr); max[]
 * holds the device's maximum for that value, under the value's number too. LINK_UNSET
 * where the device reports nothing: the driver does not support that attribute.
 */
struct ethnl_values {
	int64_t val[ETHNL_MAX_ATTR + 1];
	int64_t max[ETHNL_MAX_ATTR + 1];
};

void ethnl_values_init(struct ethnl_values *v);
/* The descriptor rows of a group, in ethtool(8)'s order; *n gets their count. */
const struct ethnl_attr *ethnl_attrs(enum ethnl_group g, size_t *n);
/* A row by its name ("rx_usecs"), or NULL. */
const struct ethnl_attr *ethnl_attr_find(enum ethnl_group g, const char *name);
/* "rings", "coalesce", "channels", "pause". */
const char *ethnl_group_name(enum ethnl_group g);
/* The SPEC knob prefix: "ring_", "coalesce_", "channels_", "pause_". */
const char *ethnl_knob_prefix(enum ethnl_group g);
/*
 * Every value set in want fits its attribute's type (u32, u8, bool 0/1): 0, or -EINVAL
 * (RTERR_INPUT) naming the knob. ethnl_set() checks the same before sending anything.
 */
int ethnl_values_check(enum ethnl_group g, const struct ethnl_values *want, struct rterr *err);

/* ---- requests --------------------------------------------------------------------- */

struct ethnl;

/*
 * One genl socket with NETLINK_EXT_ACK, the family id and the "monitor" group id resolved
 * once. No ethtool family (kernel < 5.6, CONFIG_ETHTOOL_NETLINK=n): -EOPNOTSUPP with a
 * message saying so; the caller falls back to the SIOCETHTOOL ioctl (rtltune/ethtool.h for
 * features, rtltune/ethtool_groups.h for rings, coalescing, channels and pause).
 * The 5.6 family lacks the commands used here (5.7 added them): there every GET answers
 * -EOPNOTSUPP, and ethnl_features_get()'s message says to use the ioctl. A handle serves
 * one thread at a time and the network namespace it was opened in.
 */
int ethnl_open(struct ethnl **e, struct rterr *err);
void ethnl_close(struct ethnl *e); /* NULL is fine */
/*
 * The handle's generic netlink socket, for requests to another family on the same socket
 * (the netdev family's, napi_nl_open()): one process, one generic netlink socket. NULL for
 * a NULL handle.
 */
struct nl_sock *ethnl_socket(struct ethnl *e);

/*
 * A group's current values. A driver without the operation: -EOPNOTSUPP ("get rings (not
 * implemented by the driver)"), the caller's "unsupported"; a driver that lacks a single
 * attribute reports it LINK_UNSET, never an error. A vanished ifindex: -ENODEV.
 */
int ethnl_get(struct ethnl *e, int ifindex, enum ethnl_group g, struct ethnl_values *out,
	      struct rterr *err);
/*
 * Send exactly the values set in want (others stay as they are; nothing set: 0, nothing
 * sent). Errors carry the kernel's errno and extack text, e.g. "set rings rx 8192
 * (kernel: requested ring size exceeds maximum): Invalid argument"; when the kernel
 * points at one of several attributes sent, ", at rx" names it. The kernel may store a
 * value other than the one sent (tun caps rx_frames at 64): read it back with ethnl_get().
 */
int ethnl_set(struct ethnl *e, int ifindex, enum ethnl_group g, const struct ethnl_values *want,
	      struct rterr *err);

/*
 * ETHTOOL_MSG_FEATURES_GET, filling f exactly as ethtool_features_get_index() does over
 * the ioctl (names from ETH_SS_FEATURES, fetched once per handle; available = hw_features,
 * requested = wanted_features, active = features, never_changed = NETIF_F_NEVER_CHANGE).
 * Free with ethtool_features_free().
 */
int ethnl_features_get(struct ethnl *e, int ifindex, struct eth_features *f, struct rterr *err);

/*
 * What a FEATURES_SET left different: bit i of kept is set when feature i was requested
 * and its active state is not what was requested ("off [requested on]"); wanted holds the
 * requested state of those bits. changed marks every bit whose active state this request
 * changed, asked for or not (TSO going off with TX checksumming); active its new state.
 */
struct ethnl_features_diff {
	unsigned int count, words;
	uint32_t *kept, *wanted, *changed, *active;
};
void ethnl_features_diff_free(struct ethnl_features_diff *d); /* NULL is fine */

/*
 * Turn the listed features on or off: cur is a ethnl_features_get() (or ioctl) result of
 * this device, for the bit numbers. Names the device lacks are ignored, as the ioctl path
 * does. Features in never_changed are not sent (the kernel refuses the whole request for
 * them); fixed ones (not in available) are sent and the kernel leaves them alone. Returns
 * 0 when every listed feature is now active as requested, a positive mask like the
 * ioctl's SFEATURES (ETHTOOL_F_WISH: a changeable feature was kept different,
 * "requested on"; ETHTOOL_F_UNSUPPORTED: a fixed one differs), or a negative errno.
 * (ETHTOOL_F_* from <linux/ethtool.h>.) diff (may be NULL) gets the kernel's account, to be freed
 * by the caller.
 */
int ethnl_features_set(struct ethnl *e, int ifindex, const struct eth_features *cur,
		       const char *const *names, unsigned int n_names, bool on,
		       struct ethnl_features_diff *diff, struct rterr *err);
/*
 * Several such changes (each its names, on or off) in one FEATURES_SET: one request and one
 * round of feature notifications for the lot. Returns as ethnl_features_set(); on an error
 * the message names no single change. Only the actuator calls this.
 */
struct ethnl_features_change {
	const char *const *names;
	unsigned int n_names;
	bool on;
};
int ethnl_features_set_many(struct ethnl *e, int ifindex, const struct eth_features *cur,
			    const struct ethnl_features_change *changes, unsigned int n,
			    struct rterr *err);

/* ---- monitor ------------------------------------------------------------------------ */

/* What a notification is about (the ETHTOOL_MSG_*_NTF it came as). */
enum ethnl_ntf {
	ETHNL_NTF_OTHER,
	ETHNL_NTF_RINGS,
	ETHNL_NTF_COALESCE,
	ETHNL_NTF_CHANNELS,
	ETHNL_NTF_PAUSE,
	ETHNL_NTF_FEATURES,
	ETHNL_NTF_LINKINFO,
	ETHNL_NTF_LINKMODES,
	ETHNL_NTF_DEBUG,
	ETHNL_NTF_WOL,
	ETHNL_NTF_PRIVFLAGS,
	ETHNL_NTF_EEE,
	ETHNL_NTF_FEC,
	ETHNL_NTF_MODULE,
	ETHNL_NTF_COUNT,
};
const char *ethnl_ntf_name(enum ethnl_ntf what); /* "rings", ..., "other" */

/*
 * One notification. Notifications carry no sender: a change rtltune made itself comes
 * back too, and the caller tells them apart by the values it set.
 */
struct ethnl_event {
	enum ethnl_ntf what;
	uint8_t cmd; /* the genl command as received */
	int ifindex; /* 0 when the message names no device */
	char ifname[IF_NAMESIZE];
	int group; /* enum ethnl_group for rings/coalesce/channels/pause, else -1 */
	struct ethnl_values values; /* for those: the new settings, as ethnl_get() gives them */
};

struct ethnl_monitor;

/* A non-blocking socket on e's family "monitor" group (ids from e: no extra resolve). */
int ethnl_monitor_open(const struct ethnl *e, struct ethnl_monitor **m, struct rterr *err);
int ethnl_monitor_fd(const struct ethnl_monitor *m); /* for epoll: readable = events */
/*
 * The next notification: 1 and *ev filled, 0 when none is pending, or a negative errno:
 * -ENOBUFS when the kernel dropped notifications (receive buffer overrun: re-read every
 * device), -EBADMSG for a malformed message (skipped; keep reading).
 */
int ethnl_monitor_read(struct ethnl_monitor *m, struct ethnl_event *ev, struct rterr *err);
void ethnl_monitor_close(struct ethnl_monitor *m); /* NULL is fine */

/* ---- parsers: one netlink message (header included) of len bytes ------------------- */

/* The device a reply's ETHTOOL_A_*_HEADER names. */
struct ethnl_dev {
	int ifindex; /* 0 when absent */
	char ifname[IF_NAMESIZE];
};

/* An NLMSG_ERROR: the errno (0 for an ACK) and the extended ACK attributes. */
struct ethnl_ack {
	int error;	   /* negative errno, 0 = success */
	char msg[256];	   /* NLMSGERR_ATTR_MSG, "" when absent */
	int64_t offset;	   /* NLMSGERR_ATTR_OFFS: byte offset in the request, or -1 */
	int64_t miss_type; /* NLMSGERR_ATTR_MISS_TYPE: a missing attribute, or -1 */
	int64_t miss_nest; /* NLMSGERR_ATTR_MISS_NEST: ...inside the nest at offset, or -1 */
};

/* ETH_SS_* string set as STRSET_GET_REPLY gives it. */
struct ethnl_strings {
	unsigned int count;
	char (*names)[32]; /* ETH_GSTRING_LEN each, "" for an index the kernel skipped */
};
void ethnl_strings_free(struct ethnl_strings *s);

/*
 * Every parser returns 0, or -EBADMSG for a message that is not what it parses or is
 * malformed in any way (lengths are checked attribute by attribute, nothing is read past
 * len); outputs are then left initialised but meaningless.
 */
/* A group's GET_REPLY or NTF; dev may be NULL. */
int ethnl_parse_reply(const void *buf, size_t len, enum ethnl_group g, struct ethnl_values *out,
		      struct ethnl_dev *dev);
/*
 * FEATURES_GET_REPLY or FEATURES_NTF, compact or verbose bitsets. Names come from verbose
 * bitsets ("" for compact ones: ethnl_features_get() adds them from the string set).
 */
int ethnl_parse_features(const void *buf, size_t len, struct eth_features *f);
/* FEATURES_SET_REPLY. */
int ethnl_parse_features_set_reply(const void *buf, size_t len, struct ethnl_features_diff *d);
/* STRSET_GET_REPLY: the set set_id (ETH_SS_FEATURES = 4) from it. */
int ethnl_parse_strset(const void *buf, size_t len, uint32_t set_id, struct ethnl_strings *out);
/* NLMSG_ERROR, request echoed or capped (NLM_F_CAPPED), with or without TLVs. */
int ethnl_parse_ack(const void *buf, size_t len, struct ethnl_ack *ack);
/* A monitor notification; family 0 accepts any genl family id. */
int ethnl_parse_event(const void *buf, size_t len, uint16_t family, struct ethnl_event *ev);

#endif
