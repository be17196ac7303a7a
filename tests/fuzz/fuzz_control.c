// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control protocol framing and replies (lib/control/control.c), the bytes a client or the daemon
 * reads from the socket: the input is a byte stream fed into a bounded line buffer in
 * chunks of input-chosen sizes. Every complete line is parsed as JSON and as a reply;
 * every parsed object serializes to exactly one line that parses back. The buffer
 * never holds a line over its bound and never loses or invents bytes.
 */
#include <json-c/json.h>

#include "fuzz.h"
#include "rtltune/control.h"

static void check_line(const char *line, size_t len)
{
	json_object *obj, *result = NULL, *back;
	struct rterr err = {0};
	char *ser;
	size_t n;

	obj = json_tokener_parse(line);
	if (!obj)
		return;
	ser = control_serialize(obj, &n);
	FUZZ_CHECK(ser && n >= 1 && ser[n - 1] == '\n' && !memchr(ser, '\n', n - 1));
	ser[n - 1] = '\0';
	/* Not json_object_equal(): json-c reads "0e" as a double and writes it as 0. */
	back = json_tokener_parse(ser);
	FUZZ_CHECK(back);
	FUZZ_CHECK(json_object_get_type(back) == json_object_get_type(obj) ||
		   json_object_is_type(obj, json_type_double));
	json_object_put(back);
	free(ser);

	if (control_reply_parse(obj, &result, &err) == 0)
		FUZZ_CHECK(result);
	else
		FUZZ_CHECK(!result && err.kind != RTERR_NONE && err.msg[0]);
	json_object_put(result);
	json_object_put(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct linebuf lb;
	size_t max, off = 0, consumed = 0, chunk;
	unsigned int seed;
	char *dst, *line;
	size_t room;
	int r;

	if (size < 2)
		return 0;
	/* Small bounds reach the overflow edges that CONTROL_MAX_REQUEST hides. */
	max = 1 + (size_t)data[0] * 16;
	seed = data[1];
	data += 2;
	size -= 2;
	linebuf_init(&lb, max);
	while (off < size) {
		r = linebuf_reserve(&lb, &dst, &room);
		if (r == -EMSGSIZE)
			break; /* the peer is told and dropped */
		FUZZ_CHECK(r == 0 && room >= 1);
		seed = seed * 1103515245u + 12345u;
		chunk = 1 + (seed >> 16) % 300;
		if (chunk > room)
			chunk = room;
		if (chunk > size - off)
			chunk = size - off;
		memcpy(dst, data + off, chunk);
		linebuf_commit(&lb, chunk);
		off += chunk;
		while ((r = linebuf_next(&lb, &line)) >= 0) {
			FUZZ_CHECK((size_t)r <= max && strlen(line) <= (size_t)r);
			consumed += (size_t)r + 1;
			check_line(line, (size_t)r);
		}
		if (r == -EMSGSIZE)
			break;
		FUZZ_CHECK(r == -EAGAIN);
		FUZZ_CHECK(linebuf_pending(&lb) <= max + 1);
	}
	/* CRLF trimming shortens a line by one byte; nothing else may differ. */
	FUZZ_CHECK(consumed <= off);
	linebuf_free(&lb);
	return 0;
}
