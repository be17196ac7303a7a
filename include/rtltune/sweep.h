/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_SWEEP_H
#define RTLTUNE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * `rtltune sweep`'s pure part (docs/sweep.md): the VALUES argument and the summary of a
 * step's samples. No I/O: the CLI measures (cli/cmd_sweep.c), plans every value before the
 * first change, and changes through the actuator.
 */

/* Steps a sweep may take (an MTU sweep 1000:1600:8 is 76). */
#define SWEEP_MAX_STEPS 512

/*
 * Parse VALUES for knob k into values[] (*n of them, at most cap): a comma list of values
 * as a profile writes them (a number with optional K/M suffix, on/off for booleans, "max"),
 * a range FROM:TO:STEP (numbers; TO is included when the steps reach it, FROM > TO steps
 * down), or "max" alone. max is what "max" means on this device (the planner's limit,
 * LINK_UNSET when nothing bounds the knob: then "max" is refused). A value the same as
 * an earlier one is kept once. Limits of the device are the planner's to check, not this.
 * RTERR_INPUT naming the part that is wrong.
 */
int sweep_parse_values(enum knob_id k, const char *text, int64_t max, int64_t *values,
		       unsigned int *n, unsigned int cap, struct rterr *err);

/* The spread of one step's samples. */
struct sweep_summary {
	unsigned int n;
	double median, min, max, q1, q3, mean;
};

/* Summarise v[0..n) (n may be 0: everything 0). Quartiles by linear interpolation. */
void sweep_summarize(const double *v, unsigned int n, struct sweep_summary *out);

/* The index of the best of n medians (the highest; the first of equals), -1 when n is 0. */
int sweep_best(const struct sweep_summary *s, unsigned int n);

#endif
