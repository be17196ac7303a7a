/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PACKED_H
#define RTLTUNE_PACKED_H

#include <stddef.h>
#include <stdint.h>

/*
 * Rows of small counters packed for keeping (lib/base/packed.c): a table of `rows` rows of
 * `cols` (at most 8) uint64_t, mostly zeros, as bytes. Each row is one byte whose bit c
 * says counter c is not zero, then those counters as LEB128 (7 bits a byte, low first).
 * A zero row costs one byte, a counter under 128 one more: the sampler's window of an
 * interface that sees a trickle is some 20 bytes, not 512 (daemon/stats.c).
 */

/* The most bytes packed_put() writes for rows x cols. */
#define PACKED_MAX(rows, cols) ((size_t)(rows) * (1 + (size_t)(cols) * 10))

/* Pack v (rows x cols, row-major) into out (at least PACKED_MAX(rows, cols) bytes): the
 * length written, 0 when every counter is zero. */
size_t packed_put(uint8_t *out, const uint64_t *v, unsigned int rows, unsigned int cols);
/* Unpack what packed_put() wrote into v (rows x cols): 0, or -EINVAL when in is not such
 * a table (short, a mask bit beyond cols, an overlong or trailing byte); v is then zero. */
int packed_get(uint64_t *v, unsigned int rows, unsigned int cols, const uint8_t *in, size_t len);

#endif
