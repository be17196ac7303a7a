/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CONTROL_CLIENT_H
#define RTLTUNE_CONTROL_CLIENT_H

#include <json-c/json.h>
#include <stdbool.h>

#include "rtltune/control.h"
#include "rtltune/err.h"

/*
 * The client side of rtltuned's control socket (docs/control-protocol.md). The CLI's
 * commands that need the daemon (status, stats, hist, log, autotune, recommend) and
 * apply/restore when the daemon runs go through here, and so does `rtltuned --reload`.
 */

/* How long a reply may take: an apply can wait for the journal lock. */
#define CTL_REPLY_TIMEOUT_MS 30000

struct ctl_conn;

/*
 * Connect to path. When nobody answers: RTERR_SYSTEM "rtltuned is not running (connect
 * PATH: <strerror>)", so callers exit 3 with that message, followed by where the path was
 * looked for (ctl_explain_socket()) and how to point the CLI elsewhere.
 */
int ctl_open(const char *path, struct ctl_conn **out, struct rterr *err);
/* Each place the socket path was looked for and why it was used or not (cli/locate.c). */
void ctl_explain_socket(const char *looked_at);
void ctl_close(struct ctl_conn *c);
int ctl_send(struct ctl_conn *c, json_object *msg, struct rterr *err);
/* Next message from the daemon; timeout_ms < 0 waits forever. -ETIMEDOUT, -ECONNRESET. */
int ctl_recv(struct ctl_conn *c, json_object **msg, int timeout_ms, struct rterr *err);
/*
 * Send req (ownership kept by the caller) and wait for its reply. 0 and *result (put it
 * when done), or the daemon's error in err (same kind, errno and message) and -errno.
 */
int ctl_request(struct ctl_conn *c, json_object *req, json_object **result, struct rterr *err);
/* Connect, one request, close. */
int ctl_call(const char *path, json_object *req, json_object **result, struct rterr *err);
/* Whether a daemon answers on path (apply/restore route through it when it does). */
bool ctl_daemon_running(const char *path);
/*
 * Whether a daemon answers on path and runs in this network namespace: then it sees the
 * same links, and apply, restore and sweep go through it. A daemon in another namespace
 * sees other links: the CLI works directly (the journal lock still serialises the two).
 */
bool ctl_daemon_here(const char *path);

#endif
