/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TESTHOOK_H
#define RTLTUNE_TESTHOOK_H

#include <stdbool.h>

/*
 * Test-only fault and delay injection (docs/journal.md "Test hooks"); unset in normal runs.
 * RTLTUNE_TEST_FAULT="point[=ERRNO][,...]" makes point fail (EIO by default);
 * RTLTUNE_TEST_DELAY="point=MS[,...]" sleeps there. Returns 0 or the injected -errno.
 * The points: journal_locked, journal_write, journal_fsync, journal_rename,
 * journal_committed, journal_log (lib/journal/journal_*.c), apply_knob and apply_knob_N (the
 * actuator, before its Nth change of a run), apply_upper (before an upper's changes),
 * route_xfrm (route.c: as if the kernel had no XFRM_MSG_SETDEFAULT).
 */
int test_hook(const char *point);
/* Whether a test set a fault or a delay at point (the actuator sends what it has batched
 * before such a point, so that "before the Nth change" keeps its meaning). */
bool test_hook_armed(const char *point);

#endif
