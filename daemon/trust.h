/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TRUST_H
#define RTLTUNED_TRUST_H

#include <json-c/json.h>
#include <stdbool.h>

#include "rtltune/journal.h"

/*
 * Whether rtltuned may change anything. Every change journals the originals first and
 * every rollback reads them back, so a journal it cannot trust (torn, garbage, a wrong
 * record count: -EBADMSG from journal_open()) stops every change, crash recovery
 * included, and nothing else: probes, stats, metrics and the control socket go on. The
 * verdict is taken at start and again on every reload, the operator's way back once the
 * file is corrected or moved aside, and by every open on the way to a change, which
 * catches a file spoiled while running. The file itself is never repaired, replaced or
 * removed (docs/daemon.md "An untrusted journal").
 */

/* Read the journal now (lock, parse, release): true when it can be trusted. A change of
 * verdict is logged once; a failure that says nothing about the file (its lock held past
 * the wait, an unreadable state dir) keeps the verdict and is logged as a warning. */
bool trust_check(void);
/* The verdict in force. */
bool trust_ok(void);
/* journal_open_timeout() for a change: refused at once (-EBADMSG, the reason and what to
 * do, RTERR_INPUT) while the journal is untrusted; a refusal by the file itself makes it
 * so. */
int trust_journal_open(int timeout_ms, struct journal **j, struct rterr *err);
/* status's "journal": {"state": "ok" or "untrusted", "reason", "file"}. */
json_object *trust_status_json(void);

#endif
