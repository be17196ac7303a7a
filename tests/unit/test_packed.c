// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rows of small counters packed for keeping (lib/base/packed.c): what is packed unpacks to
 * the same numbers (zeros, the 7-bit edges, UINT64_MAX), a zero table packs to nothing, the
 * sizes are as the header says, and bytes that are not such a table are refused with the
 * table left zero.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/packed.h"

#define ROWS 8
#define COLS 8

static size_t round_trip(const uint64_t *v, unsigned int rows, unsigned int cols)
{
	uint8_t buf[PACKED_MAX(ROWS, COLS)];
	uint64_t back[ROWS * COLS];
	size_t n = packed_put(buf, v, rows, cols);

	assert_true(n <= PACKED_MAX(rows, cols));
	if (n) {
		assert_int_equal(packed_get(back, rows, cols, buf, n), 0);
		assert_memory_equal(back, v, (size_t)rows * cols * sizeof(*v));
	}
	return n;
}

static void test_zero(void **state)
{
	uint64_t v[ROWS * COLS] = {0};

	(void)state;
	assert_int_equal(round_trip(v, ROWS, COLS), 0);
}

static void test_sizes(void **state)
{
	uint64_t v[ROWS * COLS] = {0};

	(void)state;
	/* A trickle: a few packets and their bytes in two slots. */
	v[0 * COLS + 0] = 1;
	v[0 * COLS + 2] = 90;
	v[5 * COLS + 1] = 3;
	v[5 * COLS + 3] = 270;
	/* 8 masks, 1 + 1 + 1 + 2 bytes of counters. */
	assert_int_equal(round_trip(v, ROWS, COLS), 8 + 5);
}

static void test_edges(void **state)
{
	static const uint64_t edge[] = {1, 127, 128, 16383, 16384, UINT32_MAX, 1ull << 63,
					UINT64_MAX};
	uint64_t v[ROWS * COLS];
	unsigned int i;

	(void)state;
	for (i = 0; i < ROWS * COLS; i++)
		v[i] = edge[i % (sizeof(edge) / sizeof(edge[0]))];
	round_trip(v, ROWS, COLS);
	/* Every counter UINT64_MAX: the largest form. */
	for (i = 0; i < ROWS * COLS; i++)
		v[i] = UINT64_MAX;
	assert_int_equal(round_trip(v, ROWS, COLS), PACKED_MAX(ROWS, COLS));
	/* Fewer columns than a byte has bits. */
	round_trip(v, 3, 5);
}

static void test_refused(void **state)
{
	uint64_t v[ROWS * COLS];
	/* 2 rows x 3 cols: each case must be refused and leave v zero. */
	static const struct {
		const char *what;
		uint8_t b[16];
		size_t n;
	} bad[] = {
		{"short: a row missing", {0x01, 0x05}, 2},
		{"a mask bit beyond the columns", {0x08, 0x00}, 2},
		{"a counter cut short", {0x01, 0x85}, 2},
		{"a zero counter with its bit", {0x01, 0x00, 0x00}, 3},
		{"an overlong counter", {0x01, 0x85, 0x00, 0x00}, 4},
		{"a trailing byte", {0x00, 0x00, 0x00}, 3},
		{"beyond 64 bits",
		 {0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00},
		 12},
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(v, 0xab, sizeof(v));
		if (packed_get(v, 2, 3, bad[i].b, bad[i].n) != -EINVAL)
			fail_msg("accepted: %s", bad[i].what);
		for (unsigned int k = 0; k < 6; k++)
			assert_int_equal(v[k], 0);
	}
	/* And one that is such a table: row 0 has counter 1 = 5, row 1 nothing. */
	uint8_t ok[] = {0x02, 0x05, 0x00};

	assert_int_equal(packed_get(v, 2, 3, ok, sizeof(ok)), 0);
	assert_int_equal(v[1], 5);
	assert_int_equal(v[0] + v[2] + v[3] + v[4] + v[5], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
