/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_CTL_H
#define RTLTUNED_CTL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtltune/control.h"
#include "rtltune/err.h"

/* The control socket (docs/control-protocol.md). */

/* At most this many clients at once; more are told so and closed. */
#define CTL_MAX_CLIENTS 256
/* A client whose unread replies exceed this stops being read (requests wait) ... */
#define CTL_OUT_PAUSE (1024 * 1024)
/* ... and a follower that lets them grow past this is dropped. */
#define CTL_OUT_MAX (8 * 1024 * 1024)

struct ctl_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool may_read;
	bool may_change;
};

struct ctl_client;

/* Handlers (handlers.c). A handler returns the result object, or NULL with err filled. */
struct ctl_request_ctx {
	struct ctl_client *client;
	const struct ctl_peer *peer;
	json_object *req;
	bool follow; /* set by a handler that streams events afterwards ("log") */
	uint64_t follow_seq;
};

struct ctl_handler {
	const char *cmd;
	bool changes; /* root only */
	json_object *(*fn)(struct ctl_request_ctx *rc, struct rterr *err);
};

/*
 * Run fn when client c disconnects (or the server stops): what a request holds for as long
 * as its connection lasts (a `pause`) is let go even when the client dies. One per client;
 * a later call replaces it.
 */
void ctl_client_on_close(struct ctl_client *c, void (*fn)(struct ctl_client *c));

/* The handler of a request's "cmd", or NULL (handlers.h handlers_find()). */
typedef const struct ctl_handler *(*ctl_lookup_fn)(const char *cmd);

/*
 * Listen on path (mode 0660, group gid), answering requests with lookup's handlers;
 * -EADDRINUSE when a daemon already answers there.
 */
int ctl_start(const char *path, gid_t gid, ctl_lookup_fn lookup, struct rterr *err);
/* Clients connected now, and requests answered since start. */
unsigned int ctl_client_count(void);
uint64_t ctl_request_count(void);
void ctl_stop(void);
/* The listening path ("" when not listening). */
const char *ctl_path(void);
/* Change the socket's group (SIGHUP with a new socket_group). */
int ctl_set_group(gid_t gid);

#endif
