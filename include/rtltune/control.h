/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CONTROL_H
#define RTLTUNE_CONTROL_H

#include <json-c/json.h>
#include <stddef.h>

#include "rtltune/err.h"

/*
 * The control protocol between rtltuned and rtltune (docs/control-protocol.md): a Unix
 * stream socket carrying one JSON object per line in each direction.
 *   request:  {"v": 1, "cmd": "stats", "iface": "eth0"}
 *   reply:    {"v": 1, "ok": true, "result": {...}}
 *             {"v": 1, "ok": false, "error": "...", "errno": 13, "exit_code": 3}
 *   event:    {"v": 1, "event": "log", "entry": {...}}   (after "log" with follow)
 * A peer that sees a larger "v" than it knows refuses the message rather than guessing.
 */
#define CONTROL_PROTO_VERSION 1
/* The socket's directory: under the unit, made (and given to socket_group) by rtltuned
 * --prepare-socket. */
#define CONTROL_RUNTIME_DIR    "/run/rtltune"
#define CONTROL_DEFAULT_SOCKET CONTROL_RUNTIME_DIR "/control.sock"
/* Longest line either side accepts: bounds the per-client buffer in the daemon. */
#define CONTROL_MAX_REQUEST (64 * 1024)
#define CONTROL_MAX_REPLY   (16 * 1024 * 1024)

/*
 * A byte stream cut into lines, never holding more than max bytes of one unfinished
 * line. Used on both ends of the socket.
 */
struct linebuf {
	char *buf;
	size_t len; /* bytes held */
	size_t off; /* start of the unconsumed part */
	size_t cap;
	size_t max;
};

void linebuf_init(struct linebuf *lb, size_t max);
void linebuf_free(struct linebuf *lb);
/* Room to read into: at least one byte; -EMSGSIZE when the pending line already hit max. */
int linebuf_reserve(struct linebuf *lb, char **dst, size_t *room);
/* Account for n bytes written at the pointer linebuf_reserve() returned. */
void linebuf_commit(struct linebuf *lb, size_t n);
/*
 * The next complete line without its '\n', NUL-terminated in place. Returns its length
 * and sets *line (valid until the next call on lb), or -EAGAIN when no complete line is
 * buffered yet.
 */
int linebuf_next(struct linebuf *lb, char **line);
/* Bytes held that are not yet a complete line. */
size_t linebuf_pending(const struct linebuf *lb);

/* {"v": 1, "cmd": cmd}: add the arguments with json_object_object_add(). */
json_object *control_request_new(const char *cmd);
/* Successful reply carrying result (ownership taken; NULL becomes {}). */
json_object *control_reply_ok(json_object *result);
/* Error reply from err (kind -> exit_code, errnum, msg). */
json_object *control_reply_error(const struct rterr *err);
/*
 * Check a reply's version and outcome. On success returns 0 and sets *result to a new
 * reference of "result" (json_object_put() it). An error reply returns -errno with err
 * filled as the daemon filled its own (same kind, errno and message); a malformed or
 * too-new reply is a system error naming what was wrong.
 */
int control_reply_parse(json_object *reply, json_object **result, struct rterr *err);
/*
 * Parse one line (len bytes, no '\n') as exactly one JSON value: a syntax error, an
 * incomplete value or anything but blanks after it is -EINVAL (input error) naming the
 * byte offset. On success *out holds a new reference.
 */
int control_parse_line(const char *line, size_t len, json_object **out, struct rterr *err);
/* Serialize msg as one line (no newline inside, '\n' appended). Caller frees. */
char *control_serialize(json_object *msg, size_t *len);

#endif
