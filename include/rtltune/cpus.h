/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CPUS_H
#define RTLTUNE_CPUS_H
/*
 * Sets of CPUs as knob values (KNOB_T_CPUS): a bit mask in an int64_t, CPUs 0..62 (bit 63
 * would make the value negative, which every knob reserves for "unknown").
 */
#include <stddef.h>
#include <stdint.h>

#define CPUS_MAX 63

/*
 * What users write: a list "0-3,8" (ranges and single CPUs, as taskset -c and cpuset
 * take them), a hex mask with 0x ("0xf"), or "none" (the empty set, also ""). 0, or
 * -EINVAL with what was expected in why (a CPU above 62 names that limit).
 */
int cpus_parse(const char *text, int64_t *mask, char *why, size_t whylen);
/* "0-3,8", or "none" for the empty set. */
const char *cpus_format(int64_t mask, char *buf, size_t len);
/*
 * A mask as the kernel prints it in sysfs (bitmap_print_to_pagebuf: 32-bit hex words,
 * comma-separated, most significant first: "00000000,0000000f"). 0; -ERANGE when a CPU
 * above 62 is set; -EINVAL for anything else.
 */
int cpus_parse_kernel(const char *text, int64_t *mask);

#endif
