/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_GENL_FAMILY_H
#define RTLTUNE_GENL_FAMILY_H
/*
 * A generic netlink family by name: its id, version and the commands this kernel has
 * (CTRL_CMD_GETFAMILY), for the families rtltune speaks (ethtool, netdev) and for
 * `rtltune doctor`.
 */
#include <stdbool.h>
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
bool genl_family_has_op(const struct genl_family_info *f, unsigned int cmd);

#endif
