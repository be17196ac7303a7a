/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TUNE_HOST_H
#define RTLTUNED_TUNE_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/tuner.h"

/*
 * The host's pseudo-interface in the tuner (TUNER_HOST): the host-wide knobs tuned from
 * the whole host's receive path (docs/tuning.md "The host's rules"). tune.c drives it:
 * start/stop with the tuner, the managed interfaces' traffic added as each is sampled,
 * then one host sample at the end of the sample.
 */
void tune_host_start(struct tuner *t);
/* A trial in progress is rolled back first (why: the reason), then the host forgotten. */
void tune_host_stop(struct tuner *t, const char *why);
void tune_host_add_traffic(const struct tuner_sample *s);
void tune_host_sample(struct tuner *t, uint64_t now_us);
/* Whether the host is tuned; else *why says why not ("tune_host = no", "host-wide: ..."). */
bool tune_host_tracked(const char **why);

#endif
