/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ETHTOOL_H
#define RTLTUNE_ETHTOOL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * The process's one socket for interface ioctls (SIOCETHTOOL, SIOCGIFNAME, SIOCGIFINDEX,
 * SO_NETNS_COOKIE), opened at first use; and the name <-> ifindex lookups through it
 * (ethtool_index_to_name: -ENODEV for an ifindex nobody holds; name_to_index: 0 for none).
 */
int ethtool_ctl_fd(void);
/* Make fd (a socket of another network namespace) the process's ioctl socket; returns the
 * one it replaces (lib/netdev/netns.c puts it back). */
int ethtool_ctl_fd_use(int fd);
int ethtool_index_to_name(int ifindex, char name[IF_NAMESIZE]);
int ethtool_name_to_index(const char *ifname);

struct eth_drvinfo {
	char driver[32];
	char version[32];
	char firmware[32]; /* "" when the driver reports none */
	char bus_info[32]; /* PCI slot "0000:01:00.0", or "" */
};

/* ETHTOOL_GDRVINFO. */
int ethtool_drvinfo(const char *ifname, struct eth_drvinfo *out, struct rterr *err);
/* Link speed in Mbit/s from ETHTOOL_GLINKSETTINGS (GSET fallback); -1 when unknown. */
int ethtool_speed(const char *ifname, int64_t *speed_mbps, struct rterr *err);

/* The netdev feature set as ETH_SS_FEATURES names it, one bit per name. */
struct eth_features {
	unsigned int count;
	char (*names)[32];   /* ETH_GSTRING_LEN each */
	uint32_t *available; /* hw_features: user-changeable */
	uint32_t *requested; /* wanted_features */
	uint32_t *active;    /* features */
	uint32_t *never_changed;
	unsigned int words;
};

void ethtool_features_free(struct eth_features *f);
/* Index of a feature name, or -1. */
int ethtool_feature_index(const struct eth_features *f, const char *name);
/* Active state of one named feature: 1 on, 0 off, -1 unknown name. */
int ethtool_feature_active(const struct eth_features *f, const char *name);
/* Requested state of one named feature: 1 on, 0 off, -1 unknown name. */
int ethtool_feature_requested(const struct eth_features *f, const char *name);

/*
 * The feature set of a device by ifindex, for callers that must follow a device across
 * renames (an apply between its knobs): SIOCETHTOOL takes a name, so the current name is
 * looked up right before each ioctl and checked right after it; a rename in between only
 * costs a retry, at most ETHTOOL_RENAME_TRIES per call (then -EAGAIN, "renamed N times").
 * An ifindex nobody holds any more: -ENODEV, "interface N (was WAS) disappeared". was is
 * the name the caller knows the device by, used in messages only.
 */
#define ETHTOOL_RENAME_TRIES 16
int ethtool_features_get_index(int ifindex, const char *was, struct eth_features *f,
			       struct rterr *err);
/*
 * ETHTOOL_SFEATURES for every listed name present on the device (absent names are
 * ignored). Features not user-changeable are left alone. Returns 0 when the kernel
 * accepted everything, or a positive ETHTOOL_F_* mask (WISH: the kernel kept some bit
 * different from the request, e.g. r8169 forcing TSO off at jumbo MTU; UNSUPPORTED), or
 * a negative errno. The caller re-reads to learn the outcome per bit. Only the actuator
 * (lib/actuate/actuate.c) calls this.
 */
int ethtool_features_set_index(int ifindex, const char *was, const struct eth_features *cur,
			       const char *const *names, unsigned int n_names, bool on,
			       struct rterr *err);
/* Whether any of names is user-changeable (hw_features) on the device. */
bool ethtool_features_changeable(const struct eth_features *f, const char *const *names,
				 unsigned int n_names);

#endif
