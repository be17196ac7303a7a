// SPDX-License-Identifier: GPL-2.0-only
/*
 * Texts shared by the process (lib/base/texts.c): one copy per text, whatever buffer it
 * came from; cut at max - 1 characters as the fixed buffers were; a text that is a prefix
 * of another, or has one, is its own copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/texts.h"

static void test_one_copy(void **state)
{
	char a[16], b[16];
	const char *x, *y;

	(void)state;
	snprintf(a, sizeof(a), "veth");
	snprintf(b, sizeof(b), "veth");
	x = text_shared(a, sizeof(a));
	y = text_shared(b, sizeof(b));
	assert_ptr_equal(x, y);
	assert_ptr_not_equal(x, a);
	assert_string_equal(x, "veth");
	/* A prefix, and a longer one: each its own. */
	assert_string_equal(text_shared("vet", 16), "vet");
	assert_ptr_not_equal(text_shared("vet", 16), x);
	assert_string_equal(text_shared("veth0", 16), "veth0");
	assert_ptr_equal(text_shared("veth", 16), x);
}

static void test_cut(void **state)
{
	(void)state;
	/* Cut at max - 1, and then the same copy as the cut text. */
	assert_string_equal(text_shared("NOT_SPECIFIED_AT_ALL", 14), "NOT_SPECIFIED");
	assert_ptr_equal(text_shared("NOT_SPECIFIED_AT_ALL", 14), text_shared("NOT_SPECIFIED", 32));
	assert_string_equal(text_shared("", 8), "");
}

static void test_many(void **state)
{
	const char *first[100];
	char buf[16];
	unsigned int i;

	(void)state;
	/* Past the first growth of the pool: every one still the same copy. */
	for (i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "reason%u", i);
		first[i] = text_shared(buf, sizeof(buf));
	}
	for (i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "reason%u", i);
		assert_ptr_equal(text_shared(buf, sizeof(buf)), first[i]);
		assert_string_equal(first[i], buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_copy),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
