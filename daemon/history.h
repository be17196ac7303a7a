/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_HISTORY_H
#define RTLTUNED_HISTORY_H

#include <json-c/json.h>
#include <stdint.h>

#include "iface.h"

/*
 * What `rtltune report` draws (docs/report.md): per managed interface, its recent samples
 * (throughput both ways, packets, segments sent and retransmitted, drops: 40 bytes each)
 * and the changes made outside rtltune. HISTORY_SAMPLES samples back (an hour at the
 * default 1 s interval): the last HISTORY_FINE as they came, the older ones as rows of
 * HISTORY_FOLD (time-weighted means), so an hour costs 900 rows (36 KiB), not 3600; a quiet
 * stretch (no traffic, or a trickle: history.c) is two rows however long, so an idle
 * interface holds a few. The
 * tuner's decisions are the journal's decision log (lib/journal/journal_log.c): history_json()
 * reads them from there.
 */

#define HISTORY_FINE	 600
#define HISTORY_FOLD	 10
#define HISTORY_COARSE	 300
#define HISTORY_SAMPLES	 (HISTORY_FINE + HISTORY_FOLD * HISTORY_COARSE)
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
