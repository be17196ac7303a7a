/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_APPLIER_H
#define RTLTUNED_APPLIER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "iface.h"
#include "rtltune/err.h"
#include "rtltune/plan.h"

/*
 * Profile applications and restores in rtltuned, through the actuator (the code `rtltune
 * apply` and `restore` run). The configured profile goes to every managed interface as it
 * appears, becomes managed or the configuration is reloaded; the control socket's apply
 * and restore requests come here too.
 */

/* Interface table observer: schedules applications, forgets the records of gone ones. */
void applier_iface_event(struct iface *ifc, const struct iface_change *c);
/* Run due applications; returns microseconds until the next one is due, or UINT64_MAX. */
uint64_t applier_run_pending(void);
/* For the control socket: *out gets the document `rtltune apply/restore --json` prints for
 * one interface. */
int applier_apply_request(struct iface *ifc, const char *profile, bool dry_run, uid_t uid,
			  json_object **out, struct rterr *err);
int applier_restore_request(struct iface *ifc, uid_t uid, json_object **out, struct rterr *err);
/*
 * The host-wide knobs (docs/knobs-stack.md "Host-wide knobs"): profile p's, once, on the
 * host's own plan (skipped with why outside the initial network namespace); *out gets the
 * plan's document (NULL when p sets none). And back to their originals (*out NULL when
 * none are journaled here). applier_host_schedule(): the configured profile's, due now
 * (at start and after a reload).
 */
struct profile;
int applier_host_apply(const struct profile *p, bool dry_run, const char *why, json_object **out,
		       struct rterr *err);
int applier_host_restore(uid_t uid, json_object **out, struct rterr *err);
void applier_host_schedule(void);
/* Restore every interface the daemon manages, and the host-wide knobs (restore_on_exit). */
void applier_restore_all(void);
/* The documents `rtltune apply --json` prints for a plan set: one object for the device
 * alone, an array when uppers are in it. */
json_object *applier_set_json(const struct plan *set, unsigned int n, bool executed,
			      const char *error);
/* The last application, for status ("applied"), or NULL when none. */
json_object *applier_status_json(const struct iface *ifc);
/* Applications that failed, for the one-line status. */
unsigned int applier_failed_count(void);

#endif
