/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_SAMPLER_H
#define RTLTUNED_SAMPLER_H

#include <stdint.h>

#include "iface.h"

/*
 * The periodic sampler: every sample_interval, the probes' counters (or rtnetlink's link
 * counters where the probes do not count), rates and window slots per managed interface,
 * knob re-reads where rtnetlink announced a change, and the tuner's sample. It runs in
 * slices between other events (sampler_step()).
 */

/* Samples per window slot: the tuner's window is STAT_WINDOW_SLOTS * this many samples. */
#define SAMPLE_SLOT_SAMPLES 4

/* Start (or, after a reload, restart) the timer; done() runs after every sample. */
int sampler_start(void (*done)(void));
void sampler_stop(void);
/* Continue a sample in progress for one time slice: 0 when more remains, else
 * UINT64_MAX. The main loop calls it every turn. */
uint64_t sampler_step(void);
/* Run one sample now and wait for it (bounded): startup. */
void sampler_kick(void);
/* Interface table observer: memory handed back after removals. */
void sampler_iface_event(struct iface *ifc, const struct iface_change *c);

/* Samples taken since start, and the last one's own cost. */
uint64_t sampler_samples(void);
uint64_t sampler_cost_us(void);

#endif
