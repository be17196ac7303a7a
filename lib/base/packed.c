// SPDX-License-Identifier: GPL-2.0-only
/* Rows of small counters packed for keeping (include/rtltune/packed.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rtltune/packed.h"

size_t packed_put(uint8_t *out, const uint64_t *v, unsigned int rows, unsigned int cols)
{
	size_t n = 0;
	bool any = false;
	unsigned int r, c;

	for (r = 0; r < rows; r++) {
		const uint64_t *row = v + (size_t)r * cols;
		uint8_t mask = 0;

		for (c = 0; c < cols; c++)
			if (row[c])
				mask |= (uint8_t)(1u << c);
		out[n++] = mask;
		any |= mask != 0;
		for (c = 0; c < cols; c++) {
			uint64_t x = row[c];

			if (!x)
				continue;
			for (; x >= 0x80; x >>= 7)
				out[n++] = (uint8_t)(x | 0x80);
			out[n++] = (uint8_t)x;
		}
	}
	return any ? n : 0;
}

int packed_get(uint64_t *v, unsigned int rows, unsigned int cols, const uint8_t *in, size_t len)
{
	size_t n = 0;
	unsigned int r, c;

	memset(v, 0, (size_t)rows * cols * sizeof(*v));
	if (cols > 8)
		return -EINVAL;
	for (r = 0; r < rows; r++) {
		uint8_t mask;

		if (n == len)
			goto bad;
		mask = in[n++];
		if (cols < 8 && mask >> cols)
			goto bad;
		for (c = 0; c < cols; c++) {
			uint64_t x = 0;
			unsigned int shift = 0;
			uint8_t b;

			if (!(mask & (1u << c)))
				continue;
			do {
				/* The tenth byte holds the top bit only. */
				if (n == len || shift > 63 || (shift == 63 && in[n] > 1))
					goto bad;
				b = in[n++];
				x |= (uint64_t)(b & 0x7f) << shift;
				shift += 7;
			} while (b & 0x80);
			/* A zero never has a mask bit; an overlong form ends in a zero byte. */
			if (!x || (shift > 7 && b == 0))
				goto bad;
			v[(size_t)r * cols + c] = x;
		}
	}
	if (n != len)
		goto bad;
	return 0;
bad:
	memset(v, 0, (size_t)rows * cols * sizeof(*v));
	return -EINVAL;
}
