// SPDX-License-Identifier: GPL-2.0-only
/* Framing of the control protocol, shared by rtltuned and the rtltune client. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/control.h"

#define LINEBUF_MIN 4096

void linebuf_init(struct linebuf *lb, size_t max)
{
	memset(lb, 0, sizeof(*lb));
	lb->max = max;
}

void linebuf_free(struct linebuf *lb)
{
	free(lb->buf);
	memset(lb, 0, sizeof(*lb));
}

size_t linebuf_pending(const struct linebuf *lb)
{
	return lb->len - lb->off;
}

int linebuf_reserve(struct linebuf *lb, char **dst, size_t *room)
{
	size_t want;

	/* Lines already handed out are dropped only now, so their pointers stayed valid. */
	if (lb->off) {
		memmove(lb->buf, lb->buf + lb->off, lb->len - lb->off);
		lb->len -= lb->off;
		lb->off = 0;
	}
	/* One byte beyond max so that a line of exactly max bytes still fits its '\n'. */
	if (lb->len > lb->max)
		return -EMSGSIZE;
	if (lb->cap - lb->len < LINEBUF_MIN / 2 && lb->cap < lb->max + 1) {
		want = lb->cap ? lb->cap * 2 : LINEBUF_MIN;
		if (want > lb->max + 1)
			want = lb->max + 1;
		char *grown = realloc(lb->buf, want);

		if (!grown)
			return -ENOMEM;
		lb->buf = grown;
		lb->cap = want;
	}
	if (lb->cap == lb->len)
		return -EMSGSIZE;
	*dst = lb->buf + lb->len;
	*room = lb->cap - lb->len;
	return 0;
}

void linebuf_commit(struct linebuf *lb, size_t n)
{
	lb->len += n;
}

int linebuf_next(struct linebuf *lb, char **line)
{
	char *start, *nl;
	size_t n;

	if (lb->len == lb->off)
		return -EAGAIN;
	start = lb->buf + lb->off;
	nl = memchr(start, '\n', lb->len - lb->off);
	if (!nl)
		return -EAGAIN;
	*nl = '\0';
	n = (size_t)(nl - start);
	if (n > lb->max)
		return -EMSGSIZE;
	lb->off += n + 1;
	/* Tolerate CRLF from hand-typed sessions (socat, nc). */
	if (n && start[n - 1] == '\r')
		start[--n] = '\0';
	*line = start;
	return (int)n;
}

json_object *control_request_new(const char *cmd)
{
	json_object *req = json_object_new_object();

	json_object_object_add(req, "v", json_object_new_int(CONTROL_PROTO_VERSION));
	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	return req;
}

json_object *control_reply_ok(json_object *result)
{
	json_object *rep = json_object_new_object();

	json_object_object_add(rep, "v", json_object_new_int(CONTROL_PROTO_VERSION));
	json_object_object_add(rep, "ok", json_object_new_boolean(1));
	json_object_object_add(rep, "result", result ? result : json_object_new_object());
	return rep;
}

json_object *control_reply_error(const struct rterr *err)
{
	json_object *rep = json_object_new_object();
	int code = err->kind == RTERR_NONE ? RTERR_SYSTEM : (int)err->kind;

	json_object_object_add(rep, "v", json_object_new_int(CONTROL_PROTO_VERSION));
	json_object_object_add(rep, "ok", json_object_new_boolean(0));
	json_object_object_add(rep, "error", json_object_new_string(err->msg));
	json_object_object_add(rep, "errno", json_object_new_int(err->errnum));
	json_object_object_add(rep, "exit_code", json_object_new_int(code));
	return rep;
}

int control_reply_parse(json_object *reply, json_object **result, struct rterr *err)
{
	json_object *v, *ok, *o;
	int errnum, code;

	*result = NULL;
	if (!json_object_is_type(reply, json_type_object) ||
	    !json_object_object_get_ex(reply, "v", &v) || !json_object_is_type(v, json_type_int))
		return rterr_sys(err, EPROTO, "rtltuned sent a reply without a protocol version");
	if (json_object_get_int(v) > CONTROL_PROTO_VERSION)
		return rterr_sys(err, EPROTO,
				 "rtltuned speaks control protocol %d, this rtltune knows up to %d",
				 json_object_get_int(v), CONTROL_PROTO_VERSION);
	if (!json_object_object_get_ex(reply, "ok", &ok))
		return rterr_sys(err, EPROTO, "rtltuned sent a reply without \"ok\"");
	if (json_object_get_boolean(ok)) {
		if (!json_object_object_get_ex(reply, "result", &o))
			return rterr_sys(err, EPROTO, "rtltuned sent a reply without \"result\"");
		*result = json_object_get(o);
		return 0;
	}
	errnum = json_object_object_get_ex(reply, "errno", &o) ? json_object_get_int(o) : 0;
	code = json_object_object_get_ex(reply, "exit_code", &o) ? json_object_get_int(o) : 3;
	if (errnum <= 0)
		errnum = code == RTERR_INPUT ? EINVAL : EIO;
	err->kind =
		code == RTERR_INPUT || code == RTERR_DIFF ? (enum rterr_kind)code : RTERR_SYSTEM;
	err->errnum = errnum;
	/* The user must read why: an absent, empty or non-string "error" (or one whose C
	 * string is empty: "\u0000...") still says something. */
	err->msg[0] = '\0';
	if (json_object_object_get_ex(reply, "error", &o) &&
	    json_object_is_type(o, json_type_string))
		snprintf(err->msg, sizeof(err->msg), "%s", json_object_get_string(o));
	if (!err->msg[0])
		snprintf(err->msg, sizeof(err->msg),
			 "rtltuned refused the request without saying why (errno %d: %s)", errnum,
			 strerror(errnum));
	return -errnum;
}

char *control_serialize(json_object *msg, size_t *len)
{
	/* json-c never emits a raw newline in PLAIN mode: strings escape it as \n. */
	const char *s = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen(s);
	char *out = malloc(n + 2);

	if (!out)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	if (len)
		*len = n + 1;
	return out;
}

int control_parse_line(const char *line, size_t len, json_object **out, struct rterr *err)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	json_object *o;
	size_t end;

	*out = NULL;
	if (!tok)
		return rterr_sys(err, ENOMEM, "JSON parser");
	/* Strict: what rtltune sends is plain RFC 8259 JSON; anything looser is not ours. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o || jerr != json_tokener_success) {
		json_object_put(o);
		return rterr_input(err, "not JSON at byte %zu: %s", end,
				   jerr == json_tokener_continue ? "unexpected end of line"
								 : json_tokener_error_desc(jerr));
	}
	/* One value per line: "{...} junk" or "{...}{...}" is refused, not half-read. */
	while (end < len && strchr(" \t\r", line[end]) && line[end])
		end++;
	if (end < len) {
		json_object_put(o);
		return rterr_input(err, "trailing data after the JSON value at byte %zu", end);
	}
	*out = o;
	return 0;
}
