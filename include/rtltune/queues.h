/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_QUEUES_H
#define RTLTUNE_QUEUES_H
/*
 * The per-queue sysfs files of a device, set alike on every queue of their kind
 * (net/core/net-sysfs.c): rx-N/rps_cpus and rx-N/rps_flow_cnt, tx-N/xps_cpus, under
 * SYSFS/class/net/DEV/queues/.
 */
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/* enum queue_file (the knob rows name them): rtltune/knob.h */

/* "rps_cpus", ... */
const char *queue_file_name(enum queue_file f);
/*
 * The value every queue of the kind has (a CPU mask, or the flow count). -ENOENT: the
 * device has no such queue or file; -ENOTUNIQ: its queues differ (rtltune sets them all
 * alike, so it would not restore them exactly: left alone); -ERANGE: a CPU above 62.
 */
int queue_read(const char *sysfs_root, const char *ifname, enum queue_file f, int64_t *value);
/* Write value to the file of every queue of the kind; the kernel's errno in err. */
int queue_write(const char *sysfs_root, const char *ifname, enum queue_file f, int64_t value,
		struct rterr *err);

#endif
