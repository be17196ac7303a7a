/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_NOTIFY_H
#define RTLTUNED_NOTIFY_H

/* sd_notify(3) messages; all are no-ops when NOTIFY_SOCKET is unset. */
void notify_ready(void);     /* READY=1, STATUS=, and the watchdog timer if asked for */
void notify_status(void);    /* STATUS= when the one-line summary changed */
void notify_reloading(void); /* RELOADING=1 (SIGHUP) */
void notify_reloaded(void);  /* READY=1 after a reload */
void notify_stopping(void);  /* STOPPING=1 */

#endif
