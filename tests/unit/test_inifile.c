// SPDX-License-Identifier: GPL-2.0-only
/*
 * The INI reader under the chip database, profiles and rtltuned.conf (lib/base/inifile.c):
 * file lines for every callback, the byte-order mark, over-long lines (refused by the line
 * callback, or handed to inih in pieces on their own line), inih's error numbers mapped
 * back to file lines, and the first refusal stopping the reading.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/inifile.h"

#define MAX_SEEN 16

struct seen {
	unsigned int n, lines_n;
	unsigned int line[MAX_SEEN];
	char section[MAX_SEEN][32], name[MAX_SEEN][32], value[MAX_SEEN][256];
	unsigned int line_seen[MAX_SEEN]; /* ini->lineno at each line callback */
	char first_text[64];		  /* what the line callback saw of line 1 */
	bool too_long[MAX_SEEN];
	unsigned int refuse_key_line; /* the key callback refuses on this line */
	unsigned int refuse_line;     /* the line callback refuses this line */
	bool hide_bang;		      /* the line callback hands '!' lines on empty */
};

static int on_key(struct inifile *ini, const char *section, const char *name, const char *value)
{
	struct seen *s = ini->user;

	assert_true(s->n < MAX_SEEN);
	assert_string_equal(ini->path, "test.conf");
	s->line[s->n] = ini->lineno;
	snprintf(s->section[s->n], sizeof(s->section[0]), "%s", section);
	snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
	snprintf(s->value[s->n], sizeof(s->value[0]), "%s", value);
	s->n++;
	return ini->lineno != s->refuse_key_line;
}

static char *on_line(struct inifile *ini, char *text)
{
	struct seen *s = ini->user;

	assert_true(s->lines_n < MAX_SEEN);
	assert_int_equal(ini->max_text, 198);
	if (ini->lineno == 1)
		snprintf(s->first_text, sizeof(s->first_text), "%s", text);
	s->too_long[s->lines_n] = ini->too_long;
	s->line_seen[s->lines_n++] = ini->lineno;
	if (ini->lineno == s->refuse_line)
		return NULL;
	if (s->hide_bang && text[0] == '!') {
		text[0] = '\0';
		return text;
	}
	return text;
}

static int parse(const char *text, struct seen *s, bool with_line)
{
	struct inifile ini = {.path = "test.conf", .user = s, .key = on_key};
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	if (with_line)
		ini.line = on_line;
	r = inifile_parse(&ini, f);
	fclose(f);
	return r;
}

static void test_file_lines(void **state)
{
	struct seen s = {0};

	(void)state;
	assert_int_equal(parse("# comment\n\n[daemon]\na = 1\n; another\nb = two ; inline\n"
			       "  c = 3\n[tuner]\nd=4",
			       &s, true),
			 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.line[0], 4);
	assert_string_equal(s.section[0], "daemon");
	assert_string_equal(s.name[0], "a");
	assert_string_equal(s.value[0], "1");
	assert_int_equal(s.line[1], 6);
	assert_string_equal(s.value[1], "two"); /* inih's inline comment */
	/* An indented line continues the value above (inih's multiline), on its own line. */
	assert_int_equal(s.line[2], 7);
	assert_string_equal(s.name[2], "b");
	assert_string_equal(s.value[2], "c = 3");
	assert_int_equal(s.line[3], 9);
	assert_string_equal(s.section[3], "tuner");
	assert_string_equal(s.value[3], "4");
	assert_int_equal(s.lines_n, 9);
	assert_int_equal(s.line_seen[8], 9);
}

static void test_byte_order_mark(void **state)
{
	struct seen s = {0};

	(void)state;
	assert_int_equal(parse("\xef\xbb\xbf[chip]\nx = 1\n", &s, true), 0);
	assert_string_equal(s.first_text, "[chip]\n");
	assert_int_equal(s.n, 1);
	assert_string_equal(s.section[0], "chip");
	assert_int_equal(s.line[0], 2);
	/* Only line 1's. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(parse("[a]\n\xef\xbb\xbfx = 1\n", &s, true), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.name[0], "\xef\xbb\xbfx");
}

static void test_too_long(void **state)
{
	char text[1024];
	struct seen s = {0};

	(void)state;
	/* 198 characters and a newline fit inih's 200-byte buffer; 199 and a newline do not,
	 * nor 201 without one; 199 at the end of the file without a newline does. */
	snprintf(text, sizeof(text), "[s]\nk = %0194d\nk = %0195d\nk = %0197d\nk = %0195d", 1, 2, 3,
		 4);
	parse(text, &s, true);
	assert_int_equal(s.lines_n, 5);
	assert_false(s.too_long[0]);
	assert_false(s.too_long[1]);
	assert_true(s.too_long[2]);
	assert_true(s.too_long[3]);
	assert_false(s.too_long[4]);
}

static void test_long_line_in_pieces(void **state)
{
	char text[512];
	struct seen s = {0};

	(void)state;
	/* Without a line callback to refuse it, the line goes to inih in 199-byte pieces, all
	 * on line 2: here the second piece is no 'key = value', which inih reports on line 2. */
	snprintf(text, sizeof(text), "[s]\nk = %0300d\nafter = 1\n", 7);
	assert_int_equal(parse(text, &s, false), 2);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.line[0], 2);
	assert_int_equal(strlen(s.value[0]), 199 - 4);
	assert_int_equal(s.line[1], 3);
	/* A piece that starts with a blank continues the value: still line 2. */
	memset(&s, 0, sizeof(s));
	snprintf(text, sizeof(text), "[s]\nk = %0195d %s\n", 5, "tail");
	assert_int_equal(parse(text, &s, false), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.line[1], 2);
	assert_string_equal(s.value[1], "tail");
}

static void test_first_problem_wins(void **state)
{
	struct seen s = {0};

	(void)state;
	/* inih's syntax error on line 2 comes before the key refused on line 4. */
	s.refuse_key_line = 4;
	assert_int_equal(parse("[s]\nnot a key\na = 1\nb = 2\nc = 3\n", &s, true), 2);
	assert_int_equal(s.n, 2);
	/* The key refused on line 2 stops the reading: the syntax error after it is not
	 * reported, and no line after it is read. */
	memset(&s, 0, sizeof(s));
	s.refuse_key_line = 2;
	assert_int_equal(parse("[s]\na = 1\nnot a key\nb = 2\n", &s, true), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.lines_n, 2);
	/* The line callback's refusal stops it too; a syntax error before it still counts. */
	memset(&s, 0, sizeof(s));
	s.refuse_line = 3;
	assert_int_equal(parse("[s]\na = 1\nb = 2\nc = 3\n", &s, true), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.lines_n, 3);
	memset(&s, 0, sizeof(s));
	s.refuse_line = 4;
	assert_int_equal(parse("[s]\noops\na = 1\nb = 2\n", &s, true), 2);
}

static void test_line_callback_hides(void **state)
{
	struct seen s = {0};

	(void)state;
	/* A line handed on empty is no key to inih, and does not upset its line numbers. */
	s.hide_bang = true;
	assert_int_equal(parse("# x\n[s]\n!hidden = 1\nk = v\n\nbad\n", &s, true), 6);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.line[0], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_lines),
		cmocka_unit_test(test_byte_order_mark),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_long_line_in_pieces),
		cmocka_unit_test(test_first_problem_wins),
		cmocka_unit_test(test_line_callback_hides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
