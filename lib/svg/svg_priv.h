/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by lib/svg/svg.c (text, numbers, ticks, the document buffer) and lib/svg/svg_chart.c. */
#ifndef RTLTUNE_SVG_PRIV_H
#define RTLTUNE_SVG_PRIV_H

#include <stddef.h>

#include "rtltune/svg.h"

/* A growing document; oom sticks, so drawing code checks once at the end. */
struct svg_buf {
	char *p;
	size_t len, cap;
	int oom;
};

void sb_raw(struct svg_buf *b, const char *s);
/* printf for the SVG's fixed parts: only %s, %d and %c conversions are used with it. */
void sb_printf(struct svg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number with `decimals` digits, locale-independent (coordinates use 1). */
void sb_num(struct svg_buf *b, double v, int decimals);
/* Escaped text. */
void sb_text(struct svg_buf *b, const char *s);

/* Width of s in px at font size `px`: a generous estimate for sans-serif, so labels laid
 * out by it never touch (0.6 em per character; UTF-8 continuation bytes not counted). */
double svg_text_width(const char *s, double px);

/* "label (unit)" with the SI prefix in front of the unit, into out. */
void svg_axis_title(const struct svg_axis *a, const char *prefix, char *out, size_t len);

#endif
