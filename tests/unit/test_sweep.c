// SPDX-License-Identifier: GPL-2.0-only
/* `rtltune sweep`'s VALUES (lists, ranges, max) and the summary of a step's samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/link.h"
#include "rtltune/sweep.h"

static int parse(enum knob_id k, const char *text, int64_t max, int64_t *v, unsigned int *n,
		 struct rterr *err)
{
	memset(err, 0, sizeof(*err));
	return sweep_parse_values(k, text, max, v, n, SWEEP_MAX_STEPS, err);
}

static void test_list(void **state)
{
	int64_t v[SWEEP_MAX_STEPS];
	struct rterr err;
	unsigned int n;

	(void)state;
	assert_int_equal(parse(KNOB_GSO_MAX_SIZE, "16K,32K,65536,max", 524280, v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0], 16384);
	assert_int_equal(v[1], 32768);
	assert_int_equal(v[2], 65536);
	assert_int_equal(v[3], 524280);
	/* The same value twice is measured once. */
	assert_int_equal(parse(KNOB_MTU, "1500,9000,1500", 65535, v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(parse(KNOB_TSO, "on,off", 1, v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 0);
	assert_int_equal(parse(KNOB_MTU, "max", 9194, v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 9194);
}

static void test_range(void **state)
{
	int64_t v[SWEEP_MAX_STEPS];
	struct rterr err;
	unsigned int n;

	(void)state;
	/* The DMA burst seed's sweep: 1000, 1008, ..., 1600. */
	assert_int_equal(parse(KNOB_MTU, "1000:1600:8", 65535, v, &n, &err), 0);
	assert_int_equal(n, 76);
	assert_int_equal(v[0], 1000);
	assert_int_equal(v[9], 1072);
	assert_int_equal(v[10], 1080);
	assert_int_equal(v[75], 1600);
	/* TO not on a step: the last step below it. */
	assert_int_equal(parse(KNOB_MTU, "1500:1600:30", 65535, v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 1590);
	/* Downwards, and with suffixes and max. */
	assert_int_equal(parse(KNOB_GSO_MAX_SIZE, "64K:16K:16K", 524280, v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0], 65536);
	assert_int_equal(v[3], 16384);
	/* max as an end: 262144, 393216 (524288 would pass the chip's 524280). */
	assert_int_equal(parse(KNOB_GSO_MAX_SIZE, "262144:max:131072", 524280, v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1], 393216);
}

static void test_refused(void **state)
{
	static const struct {
		enum knob_id k;
		const char *text;
		const char *why;
	} bad[] = {
		{KNOB_MTU, "", "no VALUES"},
		{KNOB_MTU, "1500,", NULL}, /* a trailing comma is just the one value */
		{KNOB_MTU, "abc", "expects a number"},
		{KNOB_MTU, "1500,keep", "'keep' is not a value"},
		{KNOB_MTU, "1000:2000", "FROM:TO:STEP"},
		{KNOB_MTU, "1000:2000:0", "positive"},
		{KNOB_MTU, "1000:2000:x", "positive"},
		{KNOB_MTU, "1000:2000:1", "more than 512 steps"},
		{KNOB_MTU, "1000:2000:8,9000", "not both"},
		{KNOB_TSO, "0:1:1", "on/off"},
		{KNOB_TSO, "maybe", "expects on, off"},
		{KNOB_GSO_MAX_SEGS, "max", "no limit known"},
	};
	int64_t v[SWEEP_MAX_STEPS];
	struct rterr err;
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].k, bad[i].text, bad[i].k == KNOB_GSO_MAX_SEGS ? LINK_UNSET : 1,
			      v, &n, &err);

		if (!bad[i].why) {
			assert_int_equal(r, 0);
			continue;
		}
		if (r != -EINVAL || err.kind != RTERR_INPUT || !strstr(err.msg, bad[i].why))
			fail_msg("'%s': got %d '%s', wanted '%s'", bad[i].text, r, err.msg,
				 bad[i].why);
	}
	/* More values than room. */
	assert_int_equal(sweep_parse_values(KNOB_MTU, "1,2,3", 65535, v, &n, 2, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "more than 2 values"));
}

static void test_summary(void **state)
{
	static const double v[] = {5, 1, 4, 2, 3};
	static const double even[] = {10, 20, 30, 40};
	struct sweep_summary s[3];

	(void)state;
	sweep_summarize(v, 5, &s[0]);
	assert_int_equal(s[0].n, 5);
	assert_true(s[0].median == 3 && s[0].min == 1 && s[0].max == 5);
	assert_true(s[0].q1 == 2 && s[0].q3 == 4 && s[0].mean == 3);
	sweep_summarize(even, 4, &s[1]);
	assert_true(s[1].median == 25 && s[1].q1 == 17.5 && s[1].q3 == 32.5);
	sweep_summarize(v, 0, &s[2]);
	assert_int_equal(s[2].n, 0);
	assert_true(s[2].median == 0);
	assert_int_equal(sweep_best(s, 3), 1);
	assert_int_equal(sweep_best(s, 1), 0);
	assert_int_equal(sweep_best(s, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
