/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_SVG_H
#define RTLTUNE_SVG_H

/*
 * Charts as self-contained SVG 1.1 documents, drawn by rtltune itself (no plotting runtime):
 * an XY chart for `rtltune sweep --svg` (measured value against a knob, spread bars per
 * step, current and best marked) and a timeline for `rtltune report --svg` (throughput and
 * retransmit rate over time, one or two y axes, the tuner's decisions as labelled markers).
 *
 * Output is deterministic: the same input gives the same bytes, whatever the locale (no
 * printf of floating point: numbers are formatted with integer arithmetic), the time zone
 * (absolute times are UTC) or the clock. Text is XML-escaped; bytes that are not valid
 * UTF-8 or not allowed in XML 1.0 become '?'. Axis labels carry their unit, SI-prefixed
 * where the axis asks for it ("throughput (Gbit/s)").
 *
 * A y (or x) value that is NaN is a gap: the series' line breaks there and the point is
 * not drawn. A timeline's time axis spans the samples and the events; where events lie
 * outside the samples' span (changes made before the daemon sampled), that stretch is
 * shaded and labelled "no samples", and the axis is padded so no marker sits on a y axis.
 *
 * Errors: -EINVAL with rterr_input (nothing to draw, a bad size, a non-finite range),
 * -ENOMEM, or the errno of writing the file.
 */
#include <stdbool.h>
#include <stddef.h>

#include "rtltune/err.h"

#define SVG_MAX_TICKS	24
#define SVG_MAX_SERIES	6
#define SVG_DEFAULT_W	800
#define SVG_DEFAULT_H	480
#define SVG_EVENT_LANES 4 /* rows of event labels on a timeline before labels are left out */

/* Tick values at 1, 2 or 5 x 10^n covering [lo, hi]: v[0] <= min, v[n-1] >= max. */
struct svg_ticks {
	double lo, hi, step;
	int n;
	double v[SVG_MAX_TICKS];
	int decimals; /* digits after the point that tell the ticks apart */
};

/* About `target` ticks (2..SVG_MAX_TICKS-1) spanning min..max; min == max is widened. */
int svg_nice_ticks(double min, double max, int target, struct svg_ticks *out, struct rterr *err);

/* The SI prefix ("", "k", "M", "G", "T", "m", "µ") that puts max_abs in [1, 1000), and
 * the divisor that goes with it. 0 gives "" and 1. */
const char *svg_si_prefix(double max_abs, double *divisor);

/* Append `text` XML-escaped to out (NUL-terminated, truncated to len): the bytes written,
 * or the length it would have needed (as snprintf). */
size_t svg_escape(const char *text, char *out, size_t len);

/* `value` with `decimals` digits after the point, '.' always, "-0" never. */
size_t svg_format_number(double value, int decimals, char *out, size_t len);

struct svg_axis {
	const char *label; /* the quantity: "throughput" */
	const char *unit;  /* the base unit: "bit/s", "bytes", "%"; NULL or "" for none */
	bool si;	   /* scale by an SI prefix: 2.4e9 bit/s is 2.4 on a "Gbit/s" axis */
	bool from_zero;	   /* the range includes 0; a rate or count: with no value above 0
			    * (or none at all) the axis runs from 0 to 1, never below 0 */
	bool fixed;	   /* use min..max as given instead of the data's range */
	double min, max;
};

/* One measurement; with spread, lo..hi is drawn as a bar (min/max or quartiles). */
struct svg_point {
	double x, y;
	bool spread;
	double lo, hi;
};

struct svg_series {
	const char *name; /* legend text */
	const struct svg_point *points;
	size_t n;
	bool y2; /* timeline only: plotted against the second (right) y axis */
};

/* A marked point of an XY chart ("current", "best"): a ring and its label. */
struct svg_mark {
	double x, y;
	const char *label;
};

struct svg_xy_chart {
	const char *title;
	struct svg_axis x, y;
	const struct svg_series *series;
	size_t n_series; /* 1..SVG_MAX_SERIES */
	const struct svg_mark *marks;
	size_t n_marks;
	const char *spread_note; /* legend text for the bars: "bars: min..max of 5 samples" */
	int width, height;	 /* 0: SVG_DEFAULT_W x SVG_DEFAULT_H */
};

/* What a timeline marker stands for; each kind has its colour, dash and legend name. */
enum svg_event_kind {
	SVG_EV_TRIAL,	    /* "trial": the tuner tries a value */
	SVG_EV_KEPT,	    /* "kept" */
	SVG_EV_ROLLED_BACK, /* "rolled back" */
	SVG_EV_EXTERNAL,    /* "external change": made outside rtltune */
	SVG_EV_ABANDONED,   /* "abandoned": a trial ended without a verdict, left as found */
	SVG_EV_APPLIED,	    /* "applied": a profile or value applied (CLI or daemon) */
	SVG_EV_RESTORED,    /* "restore": back to the values from before rtltune */
	SVG_EV_SWEEP,	    /* "sweep": rtltune sweep's steps */
	SVG_EV_OTHER,	    /* "other": anything else */
	SVG_EV__COUNT
};

/* A vertical marker at time t (same clock as the series' x) with a short label; detail,
 * when set, is the marker's tooltip text instead of the label (a browser shows it). */
struct svg_event {
	double t;
	enum svg_event_kind kind;
	const char *label;
	const char *detail;
};

struct svg_timeline {
	const char *title;
	/* x values are seconds: Unix time when absolute (ticks at round UTC times, labelled
	 * HH:MM[:SS]), else seconds since any origin (labelled in s, min or h by the span). */
	bool absolute;
	struct svg_axis y, y2; /* y2 is drawn when a series has y2 set */
	const struct svg_series *series;
	size_t n_series; /* 1..SVG_MAX_SERIES */
	const struct svg_event *events;
	size_t n_events;
	/* Said after the count of event labels left out where markers crowd ("3 event labels
	 * left out where markers crowd: HINT"): where the reader finds them. NULL: nothing. */
	const char *unlabelled_hint;
	int width, height;
};

/* Render into a malloc'd NUL-terminated document (*svg, *len); the caller frees it. */
int svg_render_xy(const struct svg_xy_chart *chart, char **svg, size_t *len, struct rterr *err);
int svg_render_timeline(const struct svg_timeline *chart, char **svg, size_t *len,
			struct rterr *err);

/* Write a document to path atomically (temporary file in the same directory, rename). */
int svg_write_file(const char *path, const char *svg, size_t len, struct rterr *err);
/*
 * Whether svg_write_file() could write path now: its temporary file is created and removed
 * again. For commands that write a chart after a long run (sweep): a path that cannot be
 * written is refused (RTERR_INPUT, with the errno text) before the run, not after it.
 */
int svg_check_writable(const char *path, struct rterr *err);

const char *svg_event_kind_name(enum svg_event_kind kind);

#endif
