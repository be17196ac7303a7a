/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_LINKMON_H
#define RTLTUNED_LINKMON_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

/*
 * The rtnetlink link monitor: one socket subscribed to RTNLGRP_LINK. Events keep the
 * interface table current the moment a link appears, renames, flaps or goes; a full
 * RTM_GETLINK dump runs at start and only when events were lost (socket overrun: ENOBUFS,
 * or a dump the kernel marked interrupted), sweeping away any interface whose removal
 * the kernel could not tell us about. A healthy monitor never dumps again, so the daemon
 * costs the same with 1000 unmanaged interfaces as with 10 (the sampler reads the
 * counters of a managed one by ifindex where the probes do not count it).
 */
int linkmon_start(void);
void linkmon_stop(void);
/* Ask for a dump; done() runs once it completed (or failed). -EBUSY while one runs. */
int linkmon_dump(void (*done)(int err));
/* How many dumps ran (the first one and every resynchronisation). */
uint64_t linkmon_dumps(void);
struct rtnl_link_stats64;
/* IFLA_STATS64 as the daemon keeps it. */
void linkmon_counters_from(const struct rtnl_link_stats64 *s, struct link_counters *out);
#endif
