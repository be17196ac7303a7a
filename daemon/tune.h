/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TUNE_H
#define RTLTUNED_TUNE_H

#include <stdint.h>

#include "iface.h"
#include "rtltune/err.h"
#include "rtltune/tuner.h"

/*
 * The autotuner (lib/tuner/tuner.c) wired to the daemon: fed one sample per managed interface
 * by the sampler, it carries out what the tuner says through the actuator, one journal
 * operation per decision (docs/tuning.md). The carrying out is tune_act.c's, the state as
 * status and recommend show it tune_json.c's.
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
/* Whether ifc may be sampled less often while its counters stand still: the tuner has it
 * idle (no trial, no cooldown), not paused, nothing to recover (or no tuner at all). */
bool tune_idle(const struct iface *ifc);
/* The environment the tuner judges a managed ifc in, as read now (what a sample feeds it,
 * and what `recommend` shows while it rests). */
struct tuner_env;
void tune_env(const struct iface *ifc, struct tuner_env *env);
/* The sampler skipped samples of ifc: the next one spans them and is not fed to the
 * tuner (the one after it is, over one interval). */
void tune_gap(struct iface *ifc);
/* After the interfaces: the host's sample (tune_host.h), from the same sample's signals. */
void tune_sample_end(uint64_t now_us);
/*
 * Pause the tuner on ifc (on; by says who: "rtltune sweep mtu (pid 812)") or let one pause
 * go. Pauses nest: the tuner starts no trial while any is held. Taking one rolls a trial in
 * progress back first (returns 1 then, else 0); after the last goes, the next sample rolls
 * back what an operation left in flight on ifc when its process died (a sweep killed
 * midway), as at start. -ENOENT when ifc is not managed (nothing tunes it).
 */
int tune_pause(struct iface *ifc, bool on, const char *by);
/* Who holds managed ifc's pause (its first holder), "" when unknown. */
static inline const char *tune_paused_by(const struct iface *ifc)
{
	return ifc->m->tune.paused_by ? ifc->m->tune.paused_by : "";
}
/* The tuner, for what shows its state (tune_json.c); NULL while autotuning is off. */
const struct tuner *tune_tuner(void);

#endif
