/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_GENL_FAMILY_H
#define RTLTUNE_GENL_FAMILY_H
/*
 * A generic netlink family by name: its id, version and the commands this kernel has
 * (CTRL_CMD_GETFAMILY), for the families rtltune speaks (ethtool, netdev) and for
 * `rtltune doctor`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

#define GENL_MAX_OPS 256

struct genl_family_info {
	bool present;
	uint16_t id;
	uint32_t version;
	uint32_t ops[GENL_MAX_OPS / 32]; /* bit per command the family has */
};
/*
 * Resolve family name (CTRL_CMD_GETFAMILY) and list its commands. 0 with present false
 * when the kernel has no such family; -errno when the controller could not be asked.
 */
int genl_family_probe(const char *name, struct genl_family_info *out, struct rterr *err);
struct nl_sock;
/*
 * A connected generic netlink socket as rtltune's families use it: NETLINK_EXT_ACK (the
 * kernel's text), NETLINK_CAP_ACK (an error does not echo the request), a 5 s receive
 * timeout (the kernel answers within sendmsg(): a longer wait is a lost reply).
 */
int genl_sock_open(struct nl_sock **out, struct rterr *err);
/* The same on sk, a connected generic netlink socket (one a caller already has open). */
int genl_family_probe_on(struct nl_sock *sk, const char *name, struct genl_family_info *out,
			 struct rterr *err);
bool genl_family_has_op(const struct genl_family_info *f, unsigned int cmd);

struct nl_msg;
struct ethnl_ack;

/* One reply message to its parser; a negative return ends the exchange with it. */
typedef int (*genl_reply_fn)(const void *msg, size_t len, void *arg);
/*
 * Send req on sk and read what answers it into buf: each reply message of family goes to
 * fn (a negative return is the exchange's result; the answer is still read to its end).
 * The exchange ends at the NLMSG_ERROR (an ACK asked for with NLM_F_ACK, or the kernel's
 * refusal), at NLMSG_DONE (a dump), or, with neither flag, at the first reply. Messages of
 * another sequence number (an answer to an exchange abandoned earlier) are dropped.
 * Returns 0 with ack->error the kernel's verdict, or a negative errno of the exchange.
 */
int genl_transact(struct nl_sock *sk, uint16_t family, void *buf, size_t buflen, struct nl_msg *req,
		  genl_reply_fn fn, void *arg, struct ethnl_ack *ack);

#endif
