/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ETHTOOL_GROUPS_H
#define RTLTUNE_ETHTOOL_GROUPS_H
/*
 * Rings, coalescing, channels and pause over the SIOCETHTOOL ioctl: the fallback where
 * the ethtool netlink family is missing (kernels before 5.7, CONFIG_ETHTOOL_NETLINK=n;
 * ethnl_open() says -EOPNOTSUPP). Values come and go in the netlink path's layout,
 * struct ethnl_values indexed by ETHTOOL_A_<GROUP>_* attribute number, so a caller uses
 * ethnl_get()/ethnl_set() or these two interchangeably. Where the two paths differ:
 *
 *  - Attributes the ioctl structs lack are LINK_UNSET, and a set of one is refused
 *    (-EOPNOTSUPP) rather than dropped: rings rx_buf_len, cqe_size, tx_push, rx_push,
 *    tx_push_buf_len, tcp_data_split, hds_thresh; coalesce cqe_mode_rx/tx, tx_aggr_*.
 *  - A ring or channel count whose maximum is 0 is LINK_UNSET with its maximum, as the
 *    kernel's netlink replies leave both out.
 *  - Coalescing: all 22 fields of struct ethtool_coalesce are reported, 0 for those the
 *    driver does not support. Netlink leaves out a zero field that is not in the driver's
 *    supported_coalesce_params; no ioctl reports that mask. Setting an unsupported field
 *    nonzero fails with EOPNOTSUPP from 5.7 on (the kernel checks the mask for the ioctl
 *    too; netlink says EINVAL with an extack text); older kernels leave it to the driver,
 *    which may ignore it, so read the value back.
 *  - A set is read-modify-write of the whole struct, as ethtool(8)'s ioctl path does: a
 *    change another writer makes between the two calls is undone, and errors carry no
 *    extack text ("set channels rx 8: Invalid argument").
 *
 * Devices are addressed by ifindex, the name looked up around each call (rtltune/ethtool.h,
 * ethtool_features_get_index()); was is the caller's name for it, used in messages only.
 */
#include <linux/ethtool.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/ethnl.h"

/*
 * A group's current values, as ethnl_get() gives them. A driver without the operation:
 * -EOPNOTSUPP, "get rings (not implemented by the driver)"; a vanished ifindex: -ENODEV,
 * "interface N (was NAME) disappeared (get rings)".
 */
int ethtool_group_get(int ifindex, const char *was, enum ethnl_group g, struct ethnl_values *out,
		      struct rterr *err);
/*
 * Change exactly the values set in want (range-checked as ethnl_set() does; nothing set:
 * 0, no call made). When every value is already as wanted nothing is written, as the
 * kernel's netlink SET skips the driver then. Errors name the operation and values, e.g.
 * "set channels combined 4: Invalid argument". Read the result back with
 * ethtool_group_get(): drivers may store another value (tun caps rx_frames at 64).
 * Only the actuator (lib/actuate/actuate.c) calls this.
 */
int ethtool_group_set(int ifindex, const char *was, enum ethnl_group g,
		      const struct ethnl_values *want, struct rterr *err);

/* ---- the mapping, without syscalls (tests/unit/test_ethtool_groups.c) -------------- */

/* The ioctl structs: ETHTOOL_G<group> fills one, ETHTOOL_S<group> takes it back. */
union ethtool_group_buf {
	uint32_t cmd; /* first member of each */
	struct ethtool_ringparam rings;
	struct ethtool_coalesce coalesce;
	struct ethtool_channels channels;
	struct ethtool_pauseparam pause;
};

/* Whether the group's ioctl struct carries the value of attribute attr. */
bool ethtool_group_has(enum ethnl_group g, unsigned int attr);
/* A struct as the ETHTOOL_G<group> call left it, to values and maxima. */
void ethtool_group_to_values(enum ethnl_group g, const union ethtool_group_buf *buf,
			     struct ethnl_values *out);
/*
 * Whether want can be sent through the ioctl: 0, -EINVAL (RTERR_INPUT) for a value out of
 * its attribute's range, -EOPNOTSUPP naming the first value the struct has no field for.
 */
int ethtool_group_check(enum ethnl_group g, const struct ethnl_values *want, struct rterr *err);
/*
 * Write the values set in want into buf (a struct read from the device); nothing else in
 * it changes. Returns how many fields now differ from before (0: nothing to send), or
 * ethtool_group_check()'s error with buf untouched.
 */
int ethtool_group_apply(enum ethnl_group g, union ethtool_group_buf *buf,
			const struct ethnl_values *want, struct rterr *err);

#endif
