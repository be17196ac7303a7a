/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TUNE_ACT_H
#define RTLTUNED_TUNE_ACT_H

#include "iface.h"
#include "rtltune/tuner.h"

/* How long a decision waits for the journal's lock before it is given up for now. */
#define TUNE_LOCK_WAIT_MS 300

/*
 * Carry out the tuner's action on ifc and the actions that follow from its result (a
 * trial that could not be set is ended, tuner_applied()), in one journal lock: logged,
 * counted, set through the actuator on the interface and the devices its changes reach
 * (docs/stack.md), a verdict ended in the journal on every device the trial reached.
 */
void tune_act(struct tuner *tuner, struct iface *ifc, struct tuner_action *a);
/*
 * The same for the host's pseudo-interface (TUNER_HOST): the host-wide knobs set on the
 * host's own plan, journaled as the host's record; *after gets the host's values as the
 * last change left them (a read-back, else a fresh read).
 */
void tune_act_host(struct tuner *tuner, struct tuner_action *a, struct nic *after);
/* rtltune_tuning_decisions_total of a host knob (no device label). */
uint32_t tune_host_decisions(enum knob_id k, enum decision_outcome o);
/*
 * journal.h: an operation whose process is gone must be rolled back (its pre-values set)
 * before anything else touches the device. A trial the daemon was running when it was
 * killed is the common case; an `rtltune apply` or `sweep` killed mid-way is handled the
 * same way. only: that interface's records alone (NULL: every interface here, at start).
 */
void tune_recover_orphans(struct iface *only);

#endif
