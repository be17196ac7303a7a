// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two charts (include/rtltune/svg.h): layout, axes, legend, series, marks, events.
 * Coordinates are written with one decimal; every label is placed by its estimated width
 * (svg_text_width) so that legend items, mark labels and event labels never overlap: an
 * event label that finds no free lane is left out (its marker keeps a tooltip) and the
 * chart says how many were.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svg_priv.h"

#define FONT	    12.0
#define FONT_SMALL  10.0
#define FONT_TITLE  16.0
#define LANE_H	    15.0
#define TICK_LEN    5.0
#define MARGIN_L    78.0
#define MARGIN_R    24.0
#define MARGIN_R_Y2 78.0
#define MARGIN_B    56.0
#define LEGEND_ROW  18.0
#define TITLE_BASE  26.0
#define MAX_MARKS   16

static const char *const palette[SVG_MAX_SERIES] = {"#1f77b4", "#d62728", "#2ca02c",
						    "#9467bd", "#8c564b", "#e377c2"};

static const struct {
	const char *name, *color, *dash;
} event_style[SVG_EV__COUNT] = {
	[SVG_EV_TRIAL] = {"trial", "#e67e00", "5,3"},
	[SVG_EV_KEPT] = {"kept", "#2ca02c", NULL},
	[SVG_EV_ROLLED_BACK] = {"rolled back", "#d62728", NULL},
	[SVG_EV_EXTERNAL] = {"external change", "#6b6b6b", "2,2"},
	[SVG_EV_ABANDONED] = {"abandoned", "#bcbd22", "6,3"},
	[SVG_EV_APPLIED] = {"applied", "#17a2b8", NULL},
	[SVG_EV_RESTORED] = {"restore", "#8c564b", "8,3,2,3"},
	[SVG_EV_SWEEP] = {"sweep", "#9467bd", "3,3"},
	[SVG_EV_OTHER] = {"other", "#b0b0b0", "1,3"},
};

const char *svg_event_kind_name(enum svg_event_kind kind)
{
	return kind >= 0 && kind < SVG_EV__COUNT ? event_style[kind].name : "other";
}

/* The style row an event is drawn with: a kind outside the enum is drawn as "other". */
static int event_kind(const struct svg_event *e)
{
	return e->kind >= 0 && e->kind < SVG_EV__COUNT ? (int)e->kind : SVG_EV_OTHER;
}

/* The plot area in pixels: x0..x1 left to right, y0 (top) .. y1 (bottom). */
struct frame {
	double x0, x1, y0, y1;
};

/* One axis: data range in scaled units (value / div), its ticks and title. */
struct scale {
	double lo, hi, div;
	const char *prefix;
	bool time_abs; /* ticks are Unix times, labelled in UTC */
	int n, decimals;
	double v[SVG_MAX_TICKS];
	char title[200];
};

struct range {
	double min, max;
	bool any;
};

static void range_add(struct range *r, double v)
{
	if (!isfinite(v))
		return;
	if (!r->any || v < r->min)
		r->min = v;
	if (!r->any || v > r->max)
		r->max = v;
	r->any = true;
}

/* The ticks that fall inside the axis' lo..hi (rounding aside), and their decimals. */
static void scale_take_ticks(struct scale *s, const struct svg_ticks *t)
{
	for (int i = 0; i < t->n; i++)
		if (t->v[i] >= s->lo - t->step * 1e-6 && t->v[i] <= s->hi + t->step * 1e-6)
			s->v[s->n++] = t->v[i];
	s->decimals = t->decimals;
}

/* A value axis: SI prefix, nice ticks rounded out to cover the data (or the fixed range). */
static int scale_values(struct scale *s, const struct svg_axis *a, struct range r, int target,
			struct rterr *err)
{
	struct svg_ticks t;
	int rc;

	memset(s, 0, sizeof(*s));
	if (a->fixed) {
		r.min = a->min;
		r.max = a->max;
		r.any = true;
	}
	if (!r.any && !a->from_zero)
		return rterr_input(err, "chart: no finite value to draw on axis '%s'",
				   a->label ? a->label : "");
	if (a->from_zero) {
		range_add(&r, 0);
		/* A rate with nothing to show (all 0, or no value at all) is 0 .. 1, not the
		 * -1 .. 1 that widening an empty range gives: 0 stays at the bottom. */
		if (r.min == 0 && r.max == 0)
			r.max = 1;
	}
	s->prefix = a->si ? svg_si_prefix(fmax(fabs(r.min), fabs(r.max)), &s->div) : "";
	if (!a->si)
		s->div = 1;
	rc = svg_nice_ticks(r.min / s->div, r.max / s->div, target, &t, err);
	if (rc < 0)
		return rc;
	if (a->fixed) {
		s->lo = r.min / s->div;
		s->hi = r.max / s->div;
		if (s->hi <= s->lo)
			return rterr_input(err, "chart: axis '%s': fixed range is empty",
					   a->label ? a->label : "");
	} else {
		s->lo = t.lo;
		s->hi = t.hi;
	}
	scale_take_ticks(s, &t);
	svg_axis_title(a, s->prefix, s->title, sizeof(s->title));
	return 0;
}

/* A time axis: the data's span exactly, ticks inside it. Relative seconds are shown in s,
 * min or h by the span; absolute ones at round UTC times (1 s .. 1 day steps). */
static int scale_time(struct scale *s, struct range r, bool absolute, double width_px,
		      struct rterr *err)
{
	static const double steps[] = {1,     2,     5,	    10,	   15,	   30,	  60,
				       120,   300,   600,   900,   1800,   3600,  7200,
				       10800, 21600, 43200, 86400, 172800, 604800};
	struct svg_ticks t;
	double span, step = 0, first;
	int target, rc;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!r.any)
		return rterr_input(err, "timeline: no finite time to draw");
	if (r.max <= r.min)
		r.max = r.min + 1;
	span = r.max - r.min;
	target = (int)(width_px / (absolute ? 80 : 64));
	if (target < 2)
		target = 2;
	s->prefix = "";
	if (absolute) {
		s->time_abs = true;
		s->div = 1;
		s->lo = r.min;
		s->hi = r.max;
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			step = steps[i];
			if (span / step <= target)
				break;
		}
		first = ceil(r.min / step) * step;
		for (double v = first; v <= r.max + 1e-6 && s->n < SVG_MAX_TICKS; v += step)
			s->v[s->n++] = v;
		snprintf(s->title, sizeof(s->title), "time (UTC)");
		if (s->n) {
			time_t t0 = (time_t)s->v[0];
			struct tm tm;
			char day[32];

			gmtime_r(&t0, &tm);
			strftime(day, sizeof(day), "%Y-%m-%d", &tm);
			snprintf(s->title, sizeof(s->title), "time (UTC, %s)", day);
		}
		s->decimals = step < 60 ? 1 : 0; /* reused as "show seconds" */
		return 0;
	}
	s->div = span <= 300 ? 1 : span <= 5 * 3600 ? 60 : 3600;
	s->lo = r.min / s->div;
	s->hi = r.max / s->div;
	rc = svg_nice_ticks(s->lo, s->hi, target, &t, err);
	if (rc < 0)
		return rc;
	scale_take_ticks(s, &t);
	snprintf(s->title, sizeof(s->title), "time (%s)",
		 s->div == 1	? "s"
		 : s->div == 60 ? "min"
				: "h");
	return 0;
}

static void tick_label(const struct scale *s, double v, char *out, size_t len)
{
	if (s->time_abs) {
		time_t t = (time_t)llround(v);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(out, len, s->decimals ? "%H:%M:%S" : "%H:%M", &tm);
		return;
	}
	svg_format_number(v, s->decimals, out, len);
}

static double px_x(const struct scale *s, const struct frame *f, double value)
{
	return f->x0 + (value / s->div - s->lo) / (s->hi - s->lo) * (f->x1 - f->x0);
}

static double px_y(const struct scale *s, const struct frame *f, double value)
{
	return f->y1 - (value / s->div - s->lo) / (s->hi - s->lo) * (f->y1 - f->y0);
}

/* ---- drawing pieces ------------------------------------------------------------------ */

static void doc_open(struct svg_buf *b, int w, int h, const char *title)
{
	sb_printf(b,
		  "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		  "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, "
		  "Arial, sans-serif\" font-size=\"12\">\n",
		  w, h, w, h);
	sb_raw(b, "<title>");
	sb_text(b, title);
	sb_raw(b, "</title>\n");
	sb_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
	sb_printf(b,
		  "<text class=\"title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		  "font-size=\"16\" font-weight=\"bold\">",
		  w / 2, (int)TITLE_BASE);
	sb_text(b, title);
	sb_raw(b, "</text>\n");
}

/* ` name="v"` for a coordinate or length in px, with one decimal. */
static void px_attr(struct svg_buf *b, const char *name, double v)
{
	sb_printf(b, " %s=\"", name);
	sb_num(b, v, 1);
	sb_raw(b, "\"");
}

/* A label at x, y; a vertical one (an axis title) reads bottom to top, turned about x, y. */
static void text_el(struct svg_buf *b, double x, double y, const char *anchor, double size,
		    const char *fill, bool vertical, const char *s)
{
	sb_raw(b, "<text");
	px_attr(b, "x", x);
	px_attr(b, "y", y);
	sb_printf(b, " text-anchor=\"%s\"", anchor);
	if (vertical) {
		sb_raw(b, " transform=\"rotate(-90 ");
		sb_num(b, x, 1);
		sb_raw(b, " ");
		sb_num(b, y, 1);
		sb_raw(b, ")\"");
	}
	if (size != FONT) {
		sb_raw(b, " font-size=\"");
		sb_num(b, size, 0);
		sb_raw(b, "\"");
	}
	if (fill)
		sb_printf(b, " fill=\"%s\"", fill);
	sb_raw(b, ">");
	sb_text(b, s);
	sb_raw(b, "</text>\n");
}

static void text_at(struct svg_buf *b, double x, double y, const char *anchor, double size,
		    const char *fill, const char *s)
{
	text_el(b, x, y, anchor, size, fill, false, s);
}

static void line(struct svg_buf *b, double x1, double y1, double x2, double y2, const char *stroke,
		 double width, const char *dash)
{
	sb_raw(b, "<line");
	px_attr(b, "x1", x1);
	px_attr(b, "y1", y1);
	px_attr(b, "x2", x2);
	px_attr(b, "y2", y2);
	sb_printf(b, " stroke=\"%s\"", stroke);
	px_attr(b, "stroke-width", width);
	if (dash)
		sb_printf(b, " stroke-dasharray=\"%s\"", dash);
	sb_raw(b, "/>\n");
}

/* White box behind a label so lines under it do not cut through the letters. */
static void label_box(struct svg_buf *b, double x, double y_base, double w, double size)
{
	sb_raw(b, "<rect");
	px_attr(b, "x", x - 2);
	px_attr(b, "y", y_base - size);
	px_attr(b, "width", w + 4);
	px_attr(b, "height", size + 4);
	sb_raw(b, " fill=\"#ffffff\" fill-opacity=\"0.9\"/>\n");
}

/* A series' point: a filled dot, in the chart and beside its name in the legend. */
static void dot(struct svg_buf *b, double x, double y, const char *color)
{
	sb_raw(b, "<circle");
	px_attr(b, "cx", x);
	px_attr(b, "cy", y);
	sb_printf(b, " r=\"3\" fill=\"%s\"/>\n", color);
}

/* A spread bar: a vertical line from y_a to y_b with a cap of 2 * half px at each end. */
static void spread_bar(struct svg_buf *b, double x, double y_a, double y_b, double half,
		       const char *color, double width)
{
	line(b, x, y_a, x, y_b, color, width, NULL);
	line(b, x - half, y_a, x + half, y_a, color, width, NULL);
	line(b, x - half, y_b, x + half, y_b, color, width, NULL);
}

/* Gridlines and tick labels of the bottom axis and a left or right one. */
static void x_axis(struct svg_buf *b, const struct scale *s, const struct frame *f, double grid_top)
{
	char lab[64];

	sb_raw(b, "<g class=\"x-axis\">\n");
	for (int i = 0; i < s->n; i++) {
		double x = f->x0 + (s->v[i] - s->lo) / (s->hi - s->lo) * (f->x1 - f->x0);

		line(b, x, grid_top, x, f->y1, "#e3e3e3", 1, NULL);
		line(b, x, f->y1, x, f->y1 + TICK_LEN, "#333333", 1, NULL);
		tick_label(s, s->v[i], lab, sizeof(lab));
		text_at(b, x, f->y1 + TICK_LEN + 13, "middle", FONT, NULL, lab);
	}
	line(b, f->x0, f->y1, f->x1, f->y1, "#333333", 1, NULL);
	text_at(b, (f->x0 + f->x1) / 2, f->y1 + 40, "middle", FONT, NULL, s->title);
	sb_raw(b, "</g>\n");
}

static void y_axis(struct svg_buf *b, const struct scale *s, const struct frame *f, double top,
		   bool right, const char *color)
{
	double x = right ? f->x1 : f->x0, dir = right ? 1 : -1, ty, cx;
	char lab[64];

	sb_printf(b, "<g class=\"%s\">\n", right ? "y2-axis" : "y-axis");
	for (int i = 0; i < s->n; i++) {
		double y = f->y1 - (s->v[i] - s->lo) / (s->hi - s->lo) * (f->y1 - top);

		if (!right)
			line(b, f->x0, y, f->x1, y, "#e3e3e3", 1, NULL);
		line(b, x, y, x + dir * TICK_LEN, y, "#333333", 1, NULL);
		svg_format_number(s->v[i], s->decimals, lab, sizeof(lab));
		text_at(b, x + dir * (TICK_LEN + 3), y + 4, right ? "start" : "end", FONT, color,
			lab);
	}
	line(b, x, top, x, f->y1, "#333333", 1, NULL);
	/* The title runs along the axis, outside the tick labels. */
	ty = (top + f->y1) / 2;
	cx = right ? f->x1 + MARGIN_R_Y2 - 14 : 18;
	text_el(b, cx, ty, "middle", FONT, color, true, s->title);
	sb_raw(b, "</g>\n");
}

/* ---- the legend: items laid left to right, wrapping ------------------------------------ */

enum legend_swatch { SW_SERIES, SW_SPREAD, SW_EVENT };

struct legend {
	struct svg_buf *b;
	double x, x0, x_max, y;
	bool draw;
};

static void legend_item(struct legend *l, enum legend_swatch sw, const char *color,
			const char *dash, const char *text)
{
	double w = 26 + svg_text_width(text, FONT) + 18;

	if (l->x > l->x0 && l->x + w > l->x_max) {
		l->x = l->x0;
		l->y += LEGEND_ROW;
	}
	if (l->draw) {
		double cy = l->y - 4;

		if (sw == SW_SERIES) {
			line(l->b, l->x, cy, l->x + 20, cy, color, 2, NULL);
			dot(l->b, l->x + 10, cy, color);
		} else if (sw == SW_SPREAD) {
			spread_bar(l->b, l->x + 10, cy - 6, cy + 6, 4, color, 1.5);
		} else {
			line(l->b, l->x + 10, cy - 7, l->x + 10, cy + 7, color, 2, dash);
		}
		text_at(l->b, l->x + 26, l->y, "start", FONT, NULL, text);
	}
	l->x += w;
}

/* A chart's legend under the title: its series, then the spread bars (spread_note, XY) or
 * each event kind present (kinds, timeline). Laid out first without drawing, to learn where
 * the plot can start, then drawn the same way; returns the baseline of the last row. */
static double legend(struct svg_buf *b, double x_max, bool draw, const struct svg_series *series,
		     size_t n_series, const char *spread_note, const bool *kinds)
{
	struct legend l = {.b = b,
			   .x = MARGIN_L,
			   .x0 = MARGIN_L,
			   .x_max = x_max,
			   .y = TITLE_BASE + 22,
			   .draw = draw};
	size_t i;

	if (draw)
		sb_raw(b, "<g class=\"legend\">\n");
	for (i = 0; i < n_series; i++)
		legend_item(&l, SW_SERIES, palette[i], NULL, series[i].name ? series[i].name : "");
	if (spread_note)
		legend_item(&l, SW_SPREAD, "#555555", NULL, spread_note);
	for (i = 0; kinds && i < SVG_EV__COUNT; i++)
		if (kinds[i])
			legend_item(&l, SW_EVENT, event_style[i].color, event_style[i].dash,
				    event_style[i].name);
	if (draw)
		sb_raw(b, "</g>\n");
	return l.y;
}

/* ---- checks shared by both charts ------------------------------------------------------ */

static int check_common(const char *what, const struct svg_series *series, size_t n_series, int *w,
			int *h, struct rterr *err)
{
	size_t i;

	if (!series || n_series == 0 || n_series > SVG_MAX_SERIES)
		return rterr_input(err, "%s: expected 1 to %d series, got %zu", what,
				   SVG_MAX_SERIES, series ? n_series : 0);
	for (i = 0; i < n_series; i++)
		if (series[i].n && !series[i].points)
			return rterr_input(err, "%s: series %zu has %zu points but no array", what,
					   i + 1, series[i].n);
	if (*w == 0)
		*w = SVG_DEFAULT_W;
	if (*h == 0)
		*h = SVG_DEFAULT_H;
	if (*w < 320 || *h < 240 || *w > 8000 || *h > 8000)
		return rterr_input(err, "%s: size %dx%d outside 320x240 .. 8000x8000", what, *w,
				   *h);
	return 0;
}

static void series_path(struct svg_buf *b, const struct svg_series *s, const struct scale *sx,
			const struct scale *sy, const struct frame *f, const char *color)
{
	bool open = false;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct svg_point *p = &s->points[i];

		if (!isfinite(p->x) || !isfinite(p->y)) {
			if (open)
				sb_raw(b, "\"/>\n");
			open = false;
			continue;
		}
		if (!open) {
			sb_printf(b,
				  "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
				  "stroke-linejoin=\"round\" points=\"",
				  color);
			open = true;
		} else {
			sb_raw(b, " ");
		}
		sb_num(b, px_x(sx, f, p->x), 1);
		sb_raw(b, ",");
		sb_num(b, px_y(sy, f, p->y), 1);
	}
	if (open)
		sb_raw(b, "\"/>\n");
}

static int finish(struct svg_buf *b, char **svg, size_t *len, struct rterr *err)
{
	sb_raw(b, "</svg>\n");
	if (b->oom) {
		free(b->p);
		return rterr_sys(err, ENOMEM, "chart");
	}
	*svg = b->p;
	if (len)
		*len = b->len;
	return 0;
}

/* ---- XY chart ------------------------------------------------------------------------- */

struct box {
	double x0, y0, x1, y1;
};

static bool boxes_overlap(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Mark labels: above the ring, else below, else further out, never over another label. */
static void draw_marks(struct svg_buf *b, const struct svg_xy_chart *c, const struct scale *sx,
		       const struct scale *sy, const struct frame *f)
{
	static const double offs[] = {-14, 24, -30, 40, -46, 56};
	struct box placed[MAX_MARKS];
	size_t i, n = c->n_marks < MAX_MARKS ? c->n_marks : MAX_MARKS, k;
	int np = 0;

	sb_raw(b, "<g class=\"marks\">\n");
	for (i = 0; i < n; i++) {
		const struct svg_mark *m = &c->marks[i];
		double x, y, w;
		struct box bx = {0};

		if (!isfinite(m->x) || !isfinite(m->y))
			continue;
		x = px_x(sx, f, m->x);
		y = px_y(sy, f, m->y);
		sb_raw(b, "<circle");
		px_attr(b, "cx", x);
		px_attr(b, "cy", y);
		sb_raw(b, " r=\"7\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n");
		if (!m->label || !*m->label)
			continue;
		w = svg_text_width(m->label, FONT);
		for (k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
			double lx = x - w / 2, ly = y + offs[k];
			int j;

			if (lx < f->x0 + 2)
				lx = f->x0 + 2;
			if (lx + w > f->x1 - 2)
				lx = f->x1 - 2 - w;
			bx = (struct box){lx - 2, ly - FONT, lx + w + 2, ly + 4};
			if (bx.y0 < f->y0 || bx.y1 > f->y1)
				continue;
			for (j = 0; j < np && !boxes_overlap(&bx, &placed[j]); j++)
				;
			if (j == np)
				break;
		}
		if (k == sizeof(offs) / sizeof(offs[0]))
			continue; /* nowhere free: the ring alone */
		placed[np++] = bx;
		label_box(b, bx.x0 + 2, bx.y1 - 4, bx.x1 - bx.x0 - 4, FONT);
		text_at(b, bx.x0 + 2, bx.y1 - 4, "start", FONT, "#000000", m->label);
	}
	sb_raw(b, "</g>\n");
}

int svg_render_xy(const struct svg_xy_chart *c, char **svg, size_t *len, struct rterr *err)
{
	struct range rx = {0}, ry = {0};
	struct svg_buf b = {0};
	struct scale sx, sy;
	struct frame f;
	const char *spread_note = NULL;
	int w = c->width, h = c->height, r, xt;
	double legend_y;
	size_t i, j;

	*svg = NULL;
	r = check_common("xy chart", c->series, c->n_series, &w, &h, err);
	if (r < 0)
		return r;
	for (i = 0; i < c->n_series; i++)
		for (j = 0; j < c->series[i].n; j++) {
			const struct svg_point *p = &c->series[i].points[j];

			if (!isfinite(p->x) || !isfinite(p->y))
				continue;
			range_add(&rx, p->x);
			range_add(&ry, p->y);
			if (p->spread) {
				range_add(&ry, p->lo);
				range_add(&ry, p->hi);
				spread_note = c->spread_note ? c->spread_note
							     : "bars: spread of the samples";
			}
		}
	for (i = 0; i < c->n_marks; i++) {
		range_add(&rx, c->marks[i].x);
		range_add(&ry, c->marks[i].y);
	}
	/* Headroom over the highest value, so a mark there has its label above it instead of
	 * over the data below. */
	if (c->n_marks && ry.any && ry.max > ry.min)
		range_add(&ry,
			  ry.max + (ry.max - (c->y.from_zero && ry.min > 0 ? 0 : ry.min)) * 0.08);
	/* The legend's height decides where the plot starts: lay it out without drawing. */
	legend_y = legend(&b, w - MARGIN_R, false, c->series, c->n_series, spread_note, NULL);
	f = (struct frame){MARGIN_L, w - MARGIN_R, legend_y + 20, h - MARGIN_B};
	xt = (int)((f.x1 - f.x0) / 70);
	r = scale_values(&sx, &c->x, rx, xt < 3 ? 3 : xt, err);
	if (r == 0)
		r = scale_values(&sy, &c->y, ry, (int)((f.y1 - f.y0) / 45), err);
	if (r < 0)
		return r;

	doc_open(&b, w, h, c->title ? c->title : "");
	y_axis(&b, &sy, &f, f.y0, false, NULL);
	x_axis(&b, &sx, &f, f.y0);
	legend(&b, w - MARGIN_R, true, c->series, c->n_series, spread_note, NULL);

	for (i = 0; i < c->n_series; i++) {
		const struct svg_series *s = &c->series[i];

		sb_printf(&b, "<g class=\"series\" id=\"series-%zu\">\n", i + 1);
		for (j = 0; j < s->n; j++) {
			const struct svg_point *p = &s->points[j];

			if (!p->spread || !isfinite(p->x) || !isfinite(p->lo) || !isfinite(p->hi))
				continue;
			spread_bar(&b, px_x(&sx, &f, p->x), px_y(&sy, &f, p->lo),
				   px_y(&sy, &f, p->hi), 3, palette[i], 1.2);
		}
		series_path(&b, s, &sx, &sy, &f, palette[i]);
		for (j = 0; j < s->n; j++) {
			const struct svg_point *p = &s->points[j];

			if (!isfinite(p->x) || !isfinite(p->y))
				continue;
			dot(&b, px_x(&sx, &f, p->x), px_y(&sy, &f, p->y), palette[i]);
		}
		sb_raw(&b, "</g>\n");
	}
	draw_marks(&b, c, &sx, &sy, &f);
	return finish(&b, svg, len, err);
}

/* ---- timeline --------------------------------------------------------------------------- */

struct placed_event {
	double x;
	int lane;  /* -1: no label */
	bool left; /* label to the left of the marker */
};

/* Greedy lanes: each label takes the first lane where it clears the previous label by 6 px,
 * to the right of its marker, or to the left when the right runs out of plot. */
static int place_events(const struct svg_timeline *c, const struct scale *sx, const struct frame *f,
			struct placed_event *pe, size_t *unlabelled)
{
	double lane_end[SVG_EVENT_LANES];
	size_t i, *order;
	int lanes = 0;

	*unlabelled = 0;
	for (i = 0; i < SVG_EVENT_LANES; i++)
		lane_end[i] = -1e9;
	order = calloc(c->n_events ? c->n_events : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	/* By time, then input order: stable and deterministic. */
	for (i = 0; i < c->n_events; i++) {
		size_t j = i;

		while (j > 0 && c->events[order[j - 1]].t > c->events[i].t) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (i = 0; i < c->n_events; i++) {
		struct placed_event *p = &pe[order[i]];
		const struct svg_event *e = &c->events[order[i]];
		double w = svg_text_width(e->label ? e->label : "", FONT_SMALL), x0;
		int l;

		p->x = px_x(sx, f, e->t);
		p->lane = -1;
		if (!e->label || !*e->label)
			continue;
		p->left = p->x + 3 + w > f->x1;
		x0 = p->left ? p->x - 3 - w : p->x + 3;
		for (l = 0; l < SVG_EVENT_LANES; l++)
			if (x0 >= lane_end[l] + 6)
				break;
		if (l == SVG_EVENT_LANES) {
			(*unlabelled)++;
			continue;
		}
		p->lane = l;
		lane_end[l] = x0 + w;
		if (l + 1 > lanes)
			lanes = l + 1;
	}
	free(order);
	return lanes;
}

/* The time range to draw: the samples' and the events'. Where events lie beyond the samples
 * (made before the daemon sampled, or after), the axis gets 2% of the span beyond them, so
 * their markers stand clear of the y axes; *data is the samples' own range. */
static struct range time_range(const struct svg_timeline *c, struct range *data)
{
	struct range r = *data;
	double pad;
	size_t i;

	for (i = 0; i < c->n_events; i++)
		range_add(&r, c->events[i].t);
	if (!data->any || !r.any)
		return r;
	pad = (r.max - r.min) * 0.02;
	if (r.min < data->min)
		r.min -= pad;
	if (r.max > data->max)
		r.max += pad;
	return r;
}

/* The stretches of the time axis without samples, shaded and labelled, so that markers
 * there read as changes made while nothing was sampled rather than piling up on the data. */
static void no_sample_bands(struct svg_buf *b, const struct scale *sx, const struct frame *f,
			    const struct range *data)
{
	double edge[2][2] = {{f->x0, px_x(sx, f, data->min)}, {px_x(sx, f, data->max), f->x1}};
	static const char label[] = "no samples";
	int i;

	if (!data->any)
		return;
	for (i = 0; i < 2; i++) {
		double x0 = edge[i][0], w = edge[i][1] - edge[i][0];

		if (w < 1)
			continue;
		sb_raw(b, "<g class=\"no-samples\"><title>no samples here: the changes marked were "
			  "made while nothing was sampled</title>\n<rect");
		px_attr(b, "x", x0);
		px_attr(b, "y", f->y0);
		px_attr(b, "width", w);
		px_attr(b, "height", f->y1 - f->y0);
		sb_raw(b, " fill=\"#000000\" fill-opacity=\"0.06\"/>\n");
		if (w >= svg_text_width(label, FONT_SMALL) + 6)
			text_at(b, x0 + w / 2, f->y1 - 6, "middle", FONT_SMALL, "#555555", label);
		sb_raw(b, "</g>\n");
	}
}

int svg_render_timeline(const struct svg_timeline *c, char **svg, size_t *len, struct rterr *err)
{
	struct range rx = {0}, rdata = {0}, ry = {0}, ry2 = {0};
	struct placed_event *pe = NULL;
	struct svg_buf b = {0};
	struct scale sx, sy, sy2;
	struct frame f, fd;
	bool have_y2 = false, kinds[SVG_EV__COUNT] = {0};
	int w = c->width, h = c->height, r, lanes;
	size_t i, j, unlabelled = 0;
	double right, legend_y;
	char note[320];

	*svg = NULL;
	r = check_common("timeline", c->series, c->n_series, &w, &h, err);
	if (r < 0)
		return r;
	if (c->n_events && !c->events)
		return rterr_input(err, "timeline: %zu events but no array", c->n_events);
	for (i = 0; i < c->n_series; i++) {
		have_y2 |= c->series[i].y2;
		for (j = 0; j < c->series[i].n; j++) {
			const struct svg_point *p = &c->series[i].points[j];

			if (!isfinite(p->x) || !isfinite(p->y))
				continue;
			range_add(&rdata, p->x);
			range_add(c->series[i].y2 ? &ry2 : &ry, p->y);
		}
	}
	for (i = 0; i < c->n_events; i++)
		kinds[event_kind(&c->events[i])] = true;
	rx = time_range(c, &rdata);
	right = w - (have_y2 ? MARGIN_R_Y2 : MARGIN_R);
	legend_y = legend(&b, right, false, c->series, c->n_series, NULL, kinds);
	f = (struct frame){MARGIN_L, right, legend_y + 16, h - MARGIN_B};
	r = scale_time(&sx, rx, c->absolute, f.x1 - f.x0, err);
	if (r < 0)
		return r;
	pe = calloc(c->n_events ? c->n_events : 1, sizeof(*pe));
	if (!pe)
		return rterr_sys(err, ENOMEM, "timeline");
	lanes = place_events(c, &sx, &f, pe, &unlabelled);
	if (lanes < 0) {
		free(pe);
		return rterr_sys(err, ENOMEM, "timeline");
	}
	if (unlabelled)
		f.y1 -= 14; /* room for the note under the x axis title */
	/* The data sit below the label lanes, so no label ever covers a line. */
	fd = f;
	fd.y0 = f.y0 + (lanes ? lanes * LANE_H + 6 : 0);
	r = scale_values(&sy, &c->y, ry, (int)((fd.y1 - fd.y0) / 45), err);
	if (r == 0 && have_y2)
		r = scale_values(&sy2, &c->y2, ry2, (int)((fd.y1 - fd.y0) / 45), err);
	if (r < 0) {
		free(pe);
		return r;
	}

	doc_open(&b, w, h, c->title ? c->title : "");
	y_axis(&b, &sy, &fd, fd.y0, false, have_y2 ? palette[0] : NULL);
	if (have_y2) {
		/* Colour each y axis like its first series, so the pairing reads at a glance. */
		const char *col = palette[0];

		for (i = 0; i < c->n_series; i++)
			if (c->series[i].y2) {
				col = palette[i];
				break;
			}
		y_axis(&b, &sy2, &fd, fd.y0, true, col);
	}
	x_axis(&b, &sx, &f, f.y0);
	legend(&b, right, true, c->series, c->n_series, NULL, kinds);
	no_sample_bands(&b, &sx, &f, &rdata);

	for (i = 0; i < c->n_series; i++) {
		sb_printf(&b, "<g class=\"series\" id=\"series-%zu\">\n", i + 1);
		series_path(&b, &c->series[i], &sx, c->series[i].y2 ? &sy2 : &sy, &fd, palette[i]);
		sb_raw(&b, "</g>\n");
	}

	/* Markers first, then every label over all of them: no line crosses a label. */
	sb_raw(&b, "<g class=\"events\">\n");
	for (i = 0; i < c->n_events; i++) {
		const struct svg_event *e = &c->events[i];
		int k = event_kind(e);
		char tl[64];

		sb_raw(&b, "<g class=\"event\">");
		/* A tooltip in a browser: kind, time and label, also for labels left out. */
		if (sx.time_abs)
			tick_label(&sx, e->t, tl, sizeof(tl));
		else
			svg_format_number(e->t / sx.div, sx.decimals + 1, tl, sizeof(tl));
		sb_raw(&b, "<title>");
		sb_text(&b, event_style[k].name);
		sb_raw(&b, " at ");
		sb_text(&b, tl);
		if (e->detail || (e->label && *e->label)) {
			sb_raw(&b, ": ");
			sb_text(&b, e->detail ? e->detail : e->label);
		}
		sb_raw(&b, "</title>\n");
		line(&b, pe[i].x, f.y0, pe[i].x, f.y1, event_style[k].color, 1.5,
		     event_style[k].dash);
		sb_raw(&b, "</g>\n");
	}
	sb_raw(&b, "</g>\n<g class=\"event-labels\">\n");
	for (i = 0; i < c->n_events; i++) {
		const struct svg_event *e = &c->events[i];
		int k = event_kind(e);
		double wl, ly, lx;

		if (pe[i].lane < 0)
			continue;
		wl = svg_text_width(e->label, FONT_SMALL);
		ly = f.y0 + (pe[i].lane + 1) * LANE_H - 3;
		lx = pe[i].left ? pe[i].x - 3 - wl : pe[i].x + 3;
		label_box(&b, lx, ly, wl, FONT_SMALL);
		text_at(&b, lx, ly, "start", FONT_SMALL, event_style[k].color, e->label);
	}
	sb_raw(&b, "</g>\n");
	if (unlabelled) {
		/* No "hover" here: the chart is also a static image, where nothing hovers. */
		snprintf(note, sizeof(note), "%zu event label%s left out where markers crowd%s%s",
			 unlabelled, unlabelled == 1 ? "" : "s", c->unlabelled_hint ? ": " : "",
			 c->unlabelled_hint ? c->unlabelled_hint : "");
		text_at(&b, f.x0, h - 8, "start", FONT_SMALL, "#555555", note);
	}
	free(pe);
	return finish(&b, svg, len, err);
}
