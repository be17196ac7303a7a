/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ESCAPE_H
#define RTLTUNE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Text from files and from the kernel (a profile's comment, a value that did not parse, a
 * firmware version, an interface name) may hold bytes a terminal obeys: ESC starts a
 * control sequence, BEL rings, CR overwrites the line. Before such text reaches a terminal
 * these become visible escapes: every C0 control byte but newline and tab, DEL, and the C1
 * controls (U+0080..U+009F, C2 80..C2 9F in UTF-8; U+009B is a one-character CSI).
 *
 * Text escapes as \xHH (ESC -> "\x1b", U+009B -> "\xc2\x9b"); json escapes as \u00HH,
 * valid inside a JSON string (json-c escapes C0 itself but passes DEL and C1 through).
 */
#define ESCAPE_MAX_GROWTH 6 /* one byte becomes at most "\u00hh" */

/*
 * Escape src[0..n) into dst (room for ESCAPE_MAX_GROWTH * n bytes; not terminated).
 * *carry holds a trailing 0xC2 between calls on a stream (start it at false): the byte that
 * decides whether it begins a C1 control comes in the next call; when the stream ends,
 * escape_flush() writes it. Returns the bytes written to dst.
 */
size_t escape_controls(char *dst, const char *src, size_t n, bool json, bool *carry);
size_t escape_flush(char *dst, bool *carry);

#endif
