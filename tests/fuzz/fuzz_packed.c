// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rows of small counters packed for keeping (lib/base/packed.c) on any bytes, as the
 * sampler's window (8 slots of 8 counters) and, from the input's first byte, any other
 * shape up to 8 x 8. packed_get() returns 0 or -EINVAL, and leaves the table zero when it
 * refuses; what it takes is the one form packed_put() writes for those numbers (its
 * output is the input again), or a table of zero rows, which packed_put() writes as
 * nothing. Seeds: windows of a trickle, of bulk traffic and of UINT64_MAX everywhere.
 */
#include "fuzz.h"
#include "rtltune/packed.h"

#define ROWS 8
#define COLS 8

static void check(const uint8_t *data, size_t size, unsigned int rows, unsigned int cols)
{
	uint64_t v[ROWS * COLS];
	uint8_t out[PACKED_MAX(ROWS, COLS)];
	unsigned int i;
	size_t n;
	int r = packed_get(v, rows, cols, data, size);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0) {
		for (i = 0; i < rows * cols; i++)
			FUZZ_CHECK(v[i] == 0);
		return;
	}
	n = packed_put(out, v, rows, cols);
	FUZZ_CHECK(n <= PACKED_MAX(rows, cols));
	if (n) {
		FUZZ_CHECK(n == size && memcmp(out, data, n) == 0);
	} else {
		FUZZ_CHECK(size == rows);
		for (i = 0; i < size; i++)
			FUZZ_CHECK(data[i] == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, ROWS, COLS);
	if (size)
		check(data + 1, size - 1, 1 + (data[0] >> 3 & 7), 1 + (data[0] & 7));
	return 0;
}
