/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TUNE_H
#define RTLTUNED_TUNE_H

#include <json-c/json.h>
#include <stdint.h>

#include "iface.h"
#include "rtltune/err.h"

/*
 * The autotuner (lib/tuner.c) wired to the daemon: fed one sample per managed interface
 * by the sampler, it carries out what the tuner says through the actuator, one journal
 * operation per decision (docs/tuning.md).
 */
int tune_start(struct rterr *err);
/* Roll back trials in progress (shutdown, reconfiguration) and free the tuner. */
void tune_stop(const char *why);
/* Interface table observer: tracked while managed; a trial ends with autotune off. */
void tune_iface_event(struct iface *ifc, const struct iface_change *c);
/* Host CPU time for this sample (once per sample, before the interfaces). */
void tune_sample_begin(void);
/* Feed ifc's sample (its stats are current) and act on what the tuner says. */
void tune_sample(struct iface *ifc, uint64_t now_us);
/* Operations a crash left in flight: their pre-values put back (start-up). */
void tune_recover_orphans(void);
json_object *tune_status_json(const struct iface *ifc);
json_object *tune_recommend_json(const struct iface *ifc);

#endif
