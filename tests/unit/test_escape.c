// SPDX-License-Identifier: GPL-2.0-only
/*
 * Control bytes made visible (lib/base/escape.c), and the stream every byte of rtltune's stdout
 * and stderr passes through (cli/term.c): ESC, BEL and CR from a profile or the kernel reach
 * a terminal as \x1b, \x07, \x0d; UTF-8 text and newlines pass unchanged; a C1 control split
 * over two writes is still caught; --json output stays valid JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../cli/term.h"
#include "rtltune/escape.h"

/* Escape s whole (one call, then the end of the stream). */
static const char *esc(const char *s, bool json)
{
	static char out[4096];
	bool carry = false;
	size_t n = escape_controls(out, s, strlen(s), json, &carry);

	n += escape_flush(out + n, &carry);
	out[n] = '\0';
	return out;
}

static void test_text(void **state)
{
	(void)state;
	assert_string_equal(esc("got '9\033[31mK\a'", false), "got '9\\x1b[31mK\\x07'");
	assert_string_equal(esc("a\rb\bc\x7f", false), "a\\x0db\\x08c\\x7f");
	assert_string_equal(esc("two\nlines\tand a tab", false), "two\nlines\tand a tab");
	/* UTF-8 passes: é (c3 a9), µ (c2 b5), → (e2 86 92); U+009B (c2 9b) is a CSI. */
	assert_string_equal(esc("\xc3\xa9 \xc2\xb5 \xe2\x86\x92", false),
			    "\xc3\xa9 \xc2\xb5 \xe2\x86\x92");
	assert_string_equal(esc("x\xc2\x9b"
				"2J",
				false),
			    "x\\xc2\\x9b2J");
	assert_string_equal(esc("\xc2\xc2\x9b", false), "\xc2\\xc2\\x9b");
	assert_string_equal(esc("end\xc2", false), "end\xc2");
}

/* Inside a JSON string: \u00hh is a valid escape, \x is not. */
static void test_json(void **state)
{
	(void)state;
	assert_string_equal(esc("\"a\x7f\"", true), "\"a\\u007f\"");
	assert_string_equal(esc("\"\xc2\x9b\"", true), "\"\\u009b\"");
	assert_string_equal(esc("{\n  \"k\": \"\xc2\xb5\"\n}", true),
			    "{\n  \"k\": \"\xc2\xb5\"\n}");
}

/* A C1 control split between two writes. */
static void test_carry(void **state)
{
	char out[64];
	bool carry = false;
	size_t n;

	(void)state;
	n = escape_controls(out, "ab\xc2", 3, false, &carry);
	assert_true(carry);
	n += escape_controls(out + n,
			     "\x9b"
			     "c",
			     2, false, &carry);
	out[n] = '\0';
	assert_string_equal(out, "ab\\xc2\\x9bc");
	n = escape_controls(out, "\xc2", 1, false, &carry);
	n += escape_controls(out + n, "\xb5", 1, false, &carry);
	out[n] = '\0';
	assert_string_equal(out, "\xc2\xb5");
}

/* The stdout stream as rtltune sets it up: what printf gives reaches fd 1 escaped. */
static void test_stream(void **state)
{
	char buf[256];
	int fds[2], saved = dup(1);
	ssize_t n;

	(void)state;
	fflush(stdout);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(dup2(fds[1], 1), 1);
	close(fds[1]);
	cli_term_init();
	printf("why \033[2J\a here\n");
	cli_term_raw("\033[H");
	printf("ok\n");
	fflush(stdout);
	dup2(saved, 1);
	n = read(fds[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "why \\x1b[2J\\x07 here\n\033[Hok\n");
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
