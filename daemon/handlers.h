/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_HANDLERS_H
#define RTLTUNED_HANDLERS_H

#include "ctl.h"

/*
 * The control requests (docs/control-protocol.md), one handler each with its root-only
 * bit; the control server (ctl.c) looks them up through this table.
 */
const struct ctl_handler *handlers_find(const char *cmd);

#endif
