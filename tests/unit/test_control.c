// SPDX-License-Identifier: GPL-2.0-only
/* The control protocol's framing (lib/control/control.c): bounded line buffers, replies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/control.h"

/* Feed text into lb as a socket read would, in chunks of at most chunk bytes. */
static int feed(struct linebuf *lb, const char *text, size_t chunk)
{
	size_t len = strlen(text), off = 0, room, n;
	char *dst;
	int r;

	while (off < len) {
		r = linebuf_reserve(lb, &dst, &room);
		if (r < 0)
			return r;
		n = len - off < room ? len - off : room;
		if (n > chunk)
			n = chunk;
		memcpy(dst, text + off, n);
		linebuf_commit(lb, n);
		off += n;
	}
	return 0;
}

static void test_lines_split_across_reads(void **state)
{
	struct linebuf lb;
	char *line;

	linebuf_init(&lb, 1024);
	assert_int_equal(feed(&lb, "{\"v\":1,\"cmd\":\"status\"}\n{\"v\":1,", 7), 0);
	assert_int_equal(linebuf_next(&lb, &line), 22);
	assert_string_equal(line, "{\"v\":1,\"cmd\":\"status\"}");
	assert_int_equal(linebuf_next(&lb, &line), -EAGAIN);
	assert_int_equal(linebuf_pending(&lb), 7);
	assert_int_equal(feed(&lb, "\"cmd\":\"log\"}\r\n\n", 3), 0);
	/* A CR before the LF (socat, nc) is not part of the line. */
	assert_int_equal(linebuf_next(&lb, &line), 19);
	assert_string_equal(line, "{\"v\":1,\"cmd\":\"log\"}");
	/* An empty line is a line. */
	assert_int_equal(linebuf_next(&lb, &line), 0);
	assert_int_equal(linebuf_next(&lb, &line), -EAGAIN);
	assert_int_equal(linebuf_pending(&lb), 0);
	linebuf_free(&lb);
}

static void test_line_at_the_limit(void **state)
{
	char *text = malloc(103), *line;
	struct linebuf lb;

	/* Exactly max bytes plus its newline fits ... */
	memset(text, 'a', 100);
	strcpy(text + 100, "\n");
	linebuf_init(&lb, 100);
	assert_int_equal(feed(&lb, text, 33), 0);
	assert_int_equal(linebuf_next(&lb, &line), 100);
	linebuf_free(&lb);

	/* ... one byte more does not: the buffer refuses to grow past the bound. */
	memset(text, 'b', 101);
	strcpy(text + 101, "\n");
	linebuf_init(&lb, 100);
	assert_int_equal(feed(&lb, text, 33), -EMSGSIZE);
	assert_true(lb.cap <= 101);
	linebuf_free(&lb);
	free(text);
}

static void test_many_lines_reuse_memory(void **state)
{
	struct linebuf lb;
	size_t cap = 0;
	char *line;
	int i;

	linebuf_init(&lb, 4096);
	for (i = 0; i < 10000; i++) {
		assert_int_equal(feed(&lb, "{\"v\":1,\"cmd\":\"stats\"}\n", 64), 0);
		assert_int_equal(linebuf_next(&lb, &line), 21);
		if (i == 0)
			cap = lb.cap;
	}
	/* Consumed lines are dropped: a long-lived client does not grow the buffer. */
	assert_int_equal(lb.cap, cap);
	linebuf_free(&lb);
}

static void test_reply_round_trip(void **state)
{
	struct rterr err = {.kind = RTERR_INPUT, .errnum = EINVAL}, got = {0};
	json_object *rep, *parsed, *result = NULL;
	size_t len;
	char *line;

	snprintf(err.msg, sizeof(err.msg), "no such interface: eth9\n(with a newline)");
	rep = control_reply_error(&err);
	line = control_serialize(rep, &len);
	/* One line: the newline in the message is escaped. */
	assert_non_null(line);
	assert_int_equal(strchr(line, '\n') - line, (long)len - 1);
	parsed = json_tokener_parse(line);
	assert_int_equal(control_reply_parse(parsed, &result, &got), -EINVAL);
	assert_null(result);
	assert_int_equal(got.kind, RTERR_INPUT);
	assert_int_equal(got.errnum, EINVAL);
	assert_string_equal(got.msg, err.msg);
	json_object_put(parsed);
	json_object_put(rep);
	free(line);

	rep = control_reply_ok(json_object_new_int(42));
	assert_int_equal(control_reply_parse(rep, &result, &got), 0);
	assert_int_equal(json_object_get_int(result), 42);
	json_object_put(result);
	json_object_put(rep);
}

static void test_reply_from_the_future(void **state)
{
	json_object *rep = json_tokener_parse("{\"v\": 2, \"ok\": true, \"result\": {}}"), *result;
	struct rterr err = {0};

	assert_int_equal(control_reply_parse(rep, &result, &err), -EPROTO);
	assert_int_equal(err.kind, RTERR_SYSTEM);
	assert_non_null(strstr(err.msg, "speaks control protocol 2"));
	json_object_put(rep);
	rep = json_tokener_parse("{\"ok\": true}");
	assert_int_equal(control_reply_parse(rep, &result, &err), -EPROTO);
	json_object_put(rep);
}

/* Found by fuzz_control: an error reply with an empty (or absent, or non-string) "error"
 * left the user an empty message. */
static void test_reply_error_without_message(void **state)
{
	static const char *const replies[] = {
		"{\"v\":1,\"ok\":false,\"error\":\"\",\"errno\":2,\"exit_code\":1}",
		"{\"v\":1,\"ok\":false,\"error\":null,\"errno\":2,\"exit_code\":1}",
		"{\"v\":1,\"ok\":false,\"error\":7,\"errno\":2,\"exit_code\":1}",
		"{\"v\":1,\"ok\":false,\"errno\":2,\"exit_code\":1}",
		"{\"v\":1,\"ok\":false,\"error\":\"\\u0000x\",\"errno\":2,\"exit_code\":1}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		json_object *rep = json_tokener_parse(replies[i]), *result = NULL;
		struct rterr err = {0};

		assert_int_equal(control_reply_parse(rep, &result, &err), -ENOENT);
		assert_null(result);
		assert_int_equal(err.kind, RTERR_DIFF);
		assert_string_equal(err.msg, "rtltuned refused the request without saying why "
					     "(errno 2: No such file or directory)");
		json_object_put(rep);
	}
}

/* One value per line, strictly: trailing data, a truncated value or a NUL is refused. */
static void test_parse_line_strict(void **state)
{
	static const struct {
		const char *line;
		size_t len;	  /* 0: strlen */
		const char *want; /* NULL: accepted */
	} cases[] = {
		{"{\"v\":1,\"cmd\":\"status\"}", 0, NULL},
		{"  {\"v\":1,\"cmd\":\"status\"} \t\r", 0, NULL},
		{"{\"v\":1,\"cmd\":\"status\"} junk", 0,
		 "not JSON at byte 23: unexpected character"},
		{"{\"v\":1}{\"v\":1}", 0, "not JSON at byte 7"},
		{"{\"v\":1,\"cmd\":\"st", 0, "unexpected end of line"},
		{"{\"v\":1,}", 0, "not JSON at byte"},
		{"{\"v\":1}\0{\"cmd\":\"restore\"}", 20,
		 "trailing data after the JSON value at byte 7"},
		{"", 0, "unexpected end of line"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].line);
		struct rterr err = {0};
		json_object *o = (json_object *)1;
		int r = control_parse_line(cases[i].line, len, &o, &err);

		if (!cases[i].want) {
			assert_int_equal(r, 0);
			assert_true(json_object_is_type(o, json_type_object));
			json_object_put(o);
			continue;
		}
		if (r != -EINVAL || !strstr(err.msg, cases[i].want))
			fail_msg("case %zu: r=%d msg='%s', want '%s'", i, r, err.msg,
				 cases[i].want);
		assert_null(o);
		assert_int_equal(err.kind, RTERR_INPUT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_split_across_reads),
		cmocka_unit_test(test_line_at_the_limit),
		cmocka_unit_test(test_many_lines_reuse_memory),
		cmocka_unit_test(test_reply_round_trip),
		cmocka_unit_test(test_reply_from_the_future),
		cmocka_unit_test(test_reply_error_without_message),
		cmocka_unit_test(test_parse_line_strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
