/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_LINKMON_H
#define RTLTUNED_LINKMON_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The rtnetlink link monitor: one socket subscribed to RTNLGRP_LINK that also carries a
 * full RTM_GETLINK dump per sample. Events keep the interface table current the moment a
 * link appears, renames, flaps or goes; each dump refreshes the link counters
 * (IFLA_STATS64) and sweeps away any interface whose removal the kernel could not tell us
 * about (socket overrun: ENOBUFS).
 */
int linkmon_start(void);
void linkmon_stop(void);
/* Ask for a dump; done() runs once it completed (or failed). -EBUSY while one runs. */
int linkmon_dump(void (*done)(int err));
#endif
