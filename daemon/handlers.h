/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_HANDLERS_H
#define RTLTUNED_HANDLERS_H

#include "ctl.h"

/*
 * The control requests (docs/control-protocol.md), one handler each with its root-only
 * bit; the control server (ctl.c) looks them up through this table.
 */
const struct ctl_handler *handlers_find(const char *cmd);
/*
 * What the "reload" request runs (main.c's reload, given at start: the handlers do not
 * call up into main.c): 0, or -errno with err saying why nothing changed.
 */
void handlers_set_reload(int (*fn)(struct rterr *err));

#endif
