/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_HISTORY_H
#define RTLTUNED_HISTORY_H

#include <json-c/json.h>
#include <stdint.h>

#include "iface.h"

/*
 * What `rtltune report` draws (docs/report.md): per managed interface, a bounded ring of
 * its recent samples (throughput both ways, packets, segments sent and retransmitted,
 * drops: 40 bytes each, HISTORY_SAMPLES at most, an hour at the default 1 s interval) and
 * of the changes made outside rtltune. The tuner's decisions are the journal's decision
 * log (lib/journal_log.c): history_json() reads them from there.
 */

#define HISTORY_SAMPLES	 3600
#define HISTORY_EXTERNAL 256

/* Per sample, after the sampler advanced ifc's stats (sampler.c). */
void history_sample(struct iface *ifc, uint64_t now_us);
/* A knob changed outside rtltune (outside.c). */
void history_external(struct iface *ifc, enum knob_id k, int64_t old_value, int64_t new_value);
/* Interface table observer: the rings go with the managed part. */
void history_iface_event(struct iface *ifc, const struct iface_change *c);
/*
 * The `history` reply for ifc: samples since (Unix time; 0 everything kept) as rows, and
 * the decisions of the journal's log and the outside changes since then as events, in
 * time order. err on a log that cannot be read.
 */
json_object *history_json(const struct iface *ifc, double since, struct rterr *err);

#endif
