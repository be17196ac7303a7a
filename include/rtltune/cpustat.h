/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CPUSTAT_H
#define RTLTUNE_CPUSTAT_H

#include <stdint.h>

/*
 * The host's kernel CPU time so far, all CPUs: system + irq + softirq from /proc/stat, in
 * nanoseconds (USER_HZ ticks converted). Where the network stack's cost shows: the tuner's
 * and `rtltune sweep`'s CPU per byte is its delta over the bytes moved. -errno when
 * /proc/stat cannot be read or parsed.
 */
int cpustat_kernel_ns(uint64_t *out);

#endif
