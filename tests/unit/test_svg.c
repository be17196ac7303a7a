// SPDX-License-Identifier: GPL-2.0-only
/* lib/svg: ticks, SI prefixes, numbers, escaping, determinism, the elements of known charts. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/svg.h"

/* cmocka 1.1 has no assert_double_equal: say both values when they differ. */
#define assert_double_equal(a, b, eps) near_or_fail((a), (b), (eps), #a, __FILE__, __LINE__)
static void near_or_fail(double a, double b, double eps, const char *what, const char *file,
			 int line)
{
	if (fabs(a - b) <= eps)
		return;
	print_error("%s = %.12g, expected %.12g\n", what, a, b);
	_fail(file, line);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle);

	for (const char *p = strstr(hay, needle); p; p = strstr(p + l, needle))
		n++;
	return n;
}

static void test_nice_ticks(void **state)
{
	static const struct {
		double min, max;
		int target;
		double lo, hi, step;
		int n, decimals;
	} cases[] = {
		{0, 2.47, 6, 0, 2.5, 0.5, 6, 1},
		{1000, 1600, 8, 1000, 1600, 100, 7, 0},
		{1003, 1597, 8, 1000, 1600, 100, 7, 0},
		{0, 9.7, 5, 0, 10, 2, 6, 0},
		{-3, 7, 6, -4, 8, 2, 7, 0},
		{0.001, 0.008, 8, 0.001, 0.008, 0.001, 8, 3},
		{0, 65536, 5, 0, 80000, 20000, 5, 0},
		{5, 5, 5, 4.4, 5.6, 0.2, 7, 1}, /* widened +-10%, then rounded out */
		{0, 0, 5, -1, 1, 0.5, 5, 1},
	};
	struct svg_ticks t;
	struct rterr err = {0};
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
			svg_nice_ticks(cases[i].min, cases[i].max, cases[i].target, &t, &err), 0);
		assert_double_equal(t.step, cases[i].step, 1e-12);
		assert_double_equal(t.lo, cases[i].lo, 1e-9);
		assert_double_equal(t.hi, cases[i].hi, 1e-9);
		assert_int_equal(t.n, cases[i].n);
		assert_int_equal(t.decimals, cases[i].decimals);
		for (k = 0; k < t.n; k++) {
			double m = t.v[k] / t.step; /* every tick a multiple of a 1/2/5 step */

			assert_double_equal(m, round(m), 1e-9);
		}
		assert_true(t.v[0] <= cases[i].min && t.v[t.n - 1] >= cases[i].max);
	}
	/* The step itself is 1, 2 or 5 times a power of ten for any range. */
	for (double span = 0.0003; span < 1e12; span *= 3.7) {
		double mant;

		assert_int_equal(svg_nice_ticks(0, span, 7, &t, &err), 0);
		mant = t.step / pow(10, floor(log10(t.step) + 1e-12));
		assert_true(fabs(mant - 1) < 1e-9 || fabs(mant - 2) < 1e-9 ||
			    fabs(mant - 5) < 1e-9);
		assert_true(t.n >= 2 && t.n <= SVG_MAX_TICKS);
	}
	assert_int_equal(svg_nice_ticks(NAN, 1, 5, &t, &err), -EINVAL);
	assert_int_equal(svg_nice_ticks(2, 1, 5, &t, &err), -EINVAL);
	assert_int_equal(svg_nice_ticks(0, INFINITY, 5, &t, &err), -EINVAL);
}

static void test_si_prefix(void **state)
{
	double d;

	(void)state;
	assert_string_equal(svg_si_prefix(2.47e9, &d), "G");
	assert_double_equal(d, 1e9, 0);
	assert_string_equal(svg_si_prefix(999e6, &d), "M");
	assert_string_equal(svg_si_prefix(999.9e6, &d), "G"); /* would print as 1000 M */
	assert_string_equal(svg_si_prefix(1500, &d), "k");
	assert_string_equal(svg_si_prefix(12, &d), "");
	assert_double_equal(d, 1, 0);
	assert_string_equal(svg_si_prefix(0.008, &d), "m");
	assert_string_equal(svg_si_prefix(3e-6, &d), "\xc2\xb5");
	assert_string_equal(svg_si_prefix(0, &d), "");
	assert_string_equal(svg_si_prefix(-4e12, &d), "T");
}

static void test_format_number(void **state)
{
	char b[64];

	(void)state;
	svg_format_number(2.5, 1, b, sizeof(b));
	assert_string_equal(b, "2.5");
	svg_format_number(-0.04, 1, b, sizeof(b));
	assert_string_equal(b, "0.0"); /* never "-0.0" */
	svg_format_number(-1.25, 2, b, sizeof(b));
	assert_string_equal(b, "-1.25");
	svg_format_number(1076, 0, b, sizeof(b));
	assert_string_equal(b, "1076");
	svg_format_number(0.001, 3, b, sizeof(b));
	assert_string_equal(b, "0.001");
	svg_format_number(NAN, 1, b, sizeof(b));
	assert_string_equal(b, "0");
	/* A locale with a decimal comma changes nothing (when the machine has one). */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		svg_format_number(2.5, 1, b, sizeof(b));
		assert_string_equal(b, "2.5");
		setlocale(LC_NUMERIC, "C");
	}
}

static void test_escape(void **state)
{
	char b[128];
	size_t n;

	(void)state;
	n = svg_escape("a<b>&\"c\"'d'", b, sizeof(b));
	assert_string_equal(b, "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
	assert_int_equal(n, strlen(b));
	svg_escape("tab\tok, bell\x07 no, \xff bad, \xc3\xa9 ok, \xed\xa0\x80 surrogate", b,
		   sizeof(b));
	assert_string_equal(b, "tab\tok, bell? no, ? bad, \xc3\xa9 ok, ??? surrogate");
	svg_escape("\xc2\xb5s", b, sizeof(b));
	assert_string_equal(b, "\xc2\xb5s");
	/* Truncation keeps whole entities and reports the full length. */
	n = svg_escape("x&y", b, 4);
	assert_string_equal(b, "x");
	assert_int_equal(n, 7);
	assert_int_equal(svg_escape(NULL, b, sizeof(b)), 0);
	assert_string_equal(b, "");
}

static struct svg_point sweep_pts[4] = {
	{1000, 3.0e9, true, 2.9e9, 3.1e9},
	{1072, 3.3e9, true, 3.2e9, 3.4e9},
	{1080, 1.8e9, true, 1.7e9, 1.9e9},
	{1600, 2.6e9, true, 2.5e9, 2.7e9},
};

static struct svg_xy_chart sweep_chart(struct svg_series *s, struct svg_mark *m)
{
	*s = (struct svg_series){.name = "throughput & more", .points = sweep_pts, .n = 4};
	m[0] = (struct svg_mark){1600, 2.6e9, "current 1600"};
	m[1] = (struct svg_mark){1072, 3.3e9, "best 1072"};
	return (struct svg_xy_chart){
		.title = "sweep <va> mtu",
		.x = {.label = "MTU", .unit = "bytes"},
		.y = {.label = "throughput", .unit = "bit/s", .si = true, .from_zero = true},
		.series = s,
		.n_series = 1,
		.marks = m,
		.n_marks = 2,
		.spread_note = "bars: min..max",
	};
}

static void test_xy_elements(void **state)
{
	struct svg_series s;
	struct svg_mark m[2];
	struct svg_xy_chart c = sweep_chart(&s, m);
	struct rterr err = {0};
	char *svg = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(svg_render_xy(&c, &svg, &len, &err), 0);
	assert_int_equal(len, strlen(svg));
	assert_true(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"", 36) == 0);
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
	assert_non_null(strstr(svg, "<title>sweep &lt;va&gt; mtu</title>"));
	assert_non_null(strstr(svg, ">MTU (bytes)</text>"));
	assert_non_null(strstr(svg, ">throughput (Gbit/s)</text>"));
	assert_non_null(strstr(svg, ">throughput &amp; more</text>")); /* legend */
	assert_non_null(strstr(svg, ">bars: min..max</text>"));
	assert_non_null(strstr(svg, ">current 1600</text>"));
	assert_non_null(strstr(svg, ">best 1072</text>"));
	/* y ticks 0, 0.5, ... 4.0 Gbit/s (headroom for the mark at 3.3); x every 100 bytes */
	assert_non_null(strstr(svg, ">4.0</text>"));
	assert_non_null(strstr(svg, ">0.0</text>"));
	assert_non_null(strstr(svg, ">1000</text>"));
	assert_non_null(strstr(svg, ">1600</text>"));
	assert_int_equal(count(svg, "<polyline"), 1);
	assert_int_equal(count(svg, "r=\"3\" fill=\"#1f77b4\""), 4 + 1); /* points + legend */
	assert_int_equal(count(svg, "r=\"7\""), 2);			 /* marks */
	assert_int_equal(count(svg, "</svg>"), 1);
	/* The point at 1072 / 3.3 Gbit/s: x and y from the layout (plot 78..776 x 68..424). */
	assert_non_null(strstr(svg, "<circle cx=\"161.8\" cy=\"130.3\" r=\"3\""));
	free(svg);
}

static void test_deterministic(void **state)
{
	struct svg_series s;
	struct svg_mark m[2];
	struct svg_xy_chart c = sweep_chart(&s, m);
	struct svg_point pts[3] = {{0, 1e9, 0, 0, 0}, {60, NAN, 0, 0, 0}, {120, 2e9, 0, 0, 0}};
	struct svg_point rt[3] = {{0, 0.1, 0, 0, 0}, {60, 3, 0, 0, 0}, {120, 0.2, 0, 0, 0}};
	struct svg_series ts[2] = {{.name = "throughput", .points = pts, .n = 3},
				   {.name = "retransmits", .points = rt, .n = 3, .y2 = true}};
	struct svg_event ev[1] = {{60, SVG_EV_KEPT, "kept"}};
	struct svg_timeline tl = {.title = "t",
				  .y = {.label = "throughput", .unit = "bit/s", .si = true},
				  .y2 = {.label = "retransmits", .unit = "%"},
				  .series = ts,
				  .n_series = 2,
				  .events = ev,
				  .n_events = 1};
	struct rterr err = {0};
	char *a = NULL, *b = NULL;
	size_t la, lb;

	(void)state;
	assert_int_equal(svg_render_xy(&c, &a, &la, &err), 0);
	assert_int_equal(svg_render_xy(&c, &b, &lb, &err), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	assert_int_equal(svg_render_timeline(&tl, &a, &la, &err), 0);
	assert_int_equal(svg_render_timeline(&tl, &b, &lb, &err), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	/* The NaN breaks the throughput line: two polylines for it, one for retransmits... but
	 * a one-point piece is still a polyline, so 2 + 1. */
	assert_int_equal(count(a, "<polyline"), 3);
	free(a);
	free(b);
}

static void test_timeline_elements(void **state)
{
	struct svg_point thr[5], rtx[5];
	struct svg_series s[2] = {{.name = "throughput", .points = thr, .n = 5},
				  {.name = "retransmits", .points = rtx, .n = 5, .y2 = true}};
	struct svg_event ev[5] = {
		{100, SVG_EV_TRIAL, "trial mtu 9000"},
		{101, SVG_EV_KEPT, "kept <mtu>"}, /* 1 s later: same spot, a second lane */
		{200, SVG_EV_ROLLED_BACK, "rolled back tso"},
		{300, SVG_EV_EXTERNAL, "external gro"},
		{350, (enum svg_event_kind)42, "odd kind"},
	};
	struct svg_timeline c = {
		.title = "report va",
		.y = {.label = "throughput", .unit = "bit/s", .si = true, .from_zero = true},
		.y2 = {.label = "retransmits", .unit = "%", .from_zero = true},
		.series = s,
		.n_series = 2,
		.events = ev,
		.n_events = 5,
	};
	struct rterr err = {0};
	char *svg = NULL;
	size_t len, i;

	(void)state;
	for (i = 0; i < 5; i++) {
		thr[i] = (struct svg_point){(double)i * 100, 2e9 + (double)i * 1e8, 0, 0, 0};
		rtx[i] = (struct svg_point){(double)i * 100, (double)i, 0, 0, 0};
	}
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	assert_non_null(strstr(svg, ">time (min)</text>"));
	assert_non_null(strstr(svg, ">throughput (Gbit/s)</text>"));
	assert_non_null(strstr(svg, ">retransmits (%)</text>"));
	assert_non_null(strstr(svg, "class=\"y2-axis\""));
	assert_non_null(strstr(svg, ">kept &lt;mtu&gt;</text>"));
	assert_non_null(strstr(svg, "<title>rolled back at 3.3: rolled back tso</title>"));
	assert_non_null(strstr(svg, "<title>other at 5.8: odd kind</title>"));
	assert_int_equal(count(svg, "<g class=\"event\">"), 5);
	for (i = 0; i < SVG_EV__COUNT; i++) { /* the kinds present in the legend, once */
		bool present = i <= SVG_EV_EXTERNAL || i == SVG_EV_OTHER;
		char want[64];

		snprintf(want, sizeof(want), ">%s</text>",
			 svg_event_kind_name((enum svg_event_kind)i));
		assert_int_equal(count(svg, want), present ? 1 : 0);
	}
	assert_null(strstr(svg, "left out"));
	free(svg);

	/* Absolute time: UTC labels and the date on the axis. */
	for (i = 0; i < 5; i++) {
		thr[i].x += 1764583200; /* 2025-12-01 10:00:00 UTC */
		rtx[i].x += 1764583200;
	}
	for (i = 0; i < 5; i++)
		ev[i].t += 1764583200;
	c.absolute = true;
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	assert_non_null(strstr(svg, ">time (UTC, 2025-12-01)</text>"));
	assert_non_null(strstr(svg, ">10:05</text>"));
	free(svg);
}

/* The text of every <text> element inside the first <g class="CLASS">, joined by '|'. */
static void group_texts(const char *svg, const char *cls, char *out, size_t len)
{
	char open[64];
	const char *p, *end;
	size_t used = 0;

	out[0] = '\0';
	snprintf(open, sizeof(open), "<g class=\"%s\">", cls);
	p = strstr(svg, open);
	assert_non_null(p);
	end = strstr(p, "</g>");
	assert_non_null(end);
	while ((p = strstr(p, "<text")) && p < end) {
		const char *a = strchr(p, '>') + 1, *z = strstr(a, "</text>");

		used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? "|" : "",
					 (int)(z - a), a);
		p = z;
	}
}

/* A rate axis (from_zero) starts at 0 whatever the data: all zero (no retransmits) gives
 * 0 .. 1, not -1 .. 1; no value at all (no segments sent) draws the same empty axis
 * instead of failing the chart; data above 0 starts at 0 too. */
static void test_rate_axis(void **state)
{
	struct svg_point thr[4], rtx[4];
	struct svg_series s[2] = {{.name = "throughput", .points = thr, .n = 4},
				  {.name = "retransmits", .points = rtx, .n = 4, .y2 = true}};
	struct svg_timeline c = {
		.title = "rate axis",
		.y = {.label = "throughput", .unit = "bit/s", .si = true, .from_zero = true},
		.y2 = {.label = "retransmits", .unit = "%", .from_zero = true},
		.series = s,
		.n_series = 2,
	};
	struct rterr err = {0};
	char *svg = NULL, ticks[512];
	size_t len, i;

	(void)state;
	for (i = 0; i < 4; i++) {
		thr[i] = (struct svg_point){(double)i, 1e9, 0, 0, 0};
		rtx[i] = (struct svg_point){(double)i, 0, 0, 0, 0};
	}
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	group_texts(svg, "y2-axis", ticks, sizeof(ticks));
	assert_string_equal(ticks, "0.0|0.2|0.4|0.6|0.8|1.0|retransmits (%)");
	free(svg);

	for (i = 0; i < 4; i++)
		rtx[i].y = NAN;
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	group_texts(svg, "y2-axis", ticks, sizeof(ticks));
	assert_string_equal(ticks, "0.0|0.2|0.4|0.6|0.8|1.0|retransmits (%)");
	assert_int_equal(count(svg, "<polyline"), 1); /* throughput only */
	free(svg);

	for (i = 0; i < 4; i++)
		rtx[i].y = 0.3 + 0.1 * (double)i;
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	group_texts(svg, "y2-axis", ticks, sizeof(ticks));
	assert_true(strncmp(ticks, "0.0|", 4) == 0);
	assert_null(strstr(ticks, "-"));
	free(svg);
}

/* Events before the first sample (a CLI apply, then the daemon started) and after the last:
 * the axis reaches them with 2% to spare (no marker on a y axis), the stretches without
 * samples are shaded and say so, and the changes of one operation come as one marker. */
static void test_events_outside_samples(void **state)
{
	struct svg_point thr[3] = {{100, 1e9, 0, 0, 0}, {150, 2e9, 0, 0, 0}, {200, 2e9, 0, 0, 0}};
	struct svg_series s = {.name = "throughput", .points = thr, .n = 3};
	struct svg_event ev[2] = {{0, SVG_EV_APPLIED, "applied gro, gso_max_size",
				   "applied gro off -> on; gso_max_size 65536 -> 524280"},
				  {250, SVG_EV_RESTORED, "restore gro on -> off", NULL}};
	struct svg_timeline c = {
		.title = "before",
		.y = {.label = "throughput", .unit = "bit/s", .si = true, .from_zero = true},
		.series = &s,
		.n_series = 1,
		.events = ev,
		.n_events = 2,
	};
	struct rterr err = {0};
	char *svg = NULL;
	const char *p;
	size_t len;
	double x;

	(void)state;
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	/* Plot 78 .. 776 px over -5 .. 255 s: the first marker at 78 + 5/260 * 698 = 91.4. */
	p = strstr(svg, "<title>applied at ");
	assert_non_null(p);
	p = strstr(p, "<line x1=\"");
	assert_non_null(p);
	x = strtod(p + strlen("<line x1=\""), NULL);
	assert_double_equal(x, 91.4, 0.05);
	assert_int_equal(count(svg, "<g class=\"no-samples\">"), 2);
	assert_int_equal(count(svg, ">no samples</text>"), 2);
	/* The band before: from the plot's edge to the first sample (100 s: 359.9 px). */
	assert_non_null(strstr(svg, "<rect x=\"78.0\" y=\""));
	assert_non_null(strstr(svg, "width=\"281.9\""));
	/* The tooltip carries the values, the label the names; each kind in the legend. */
	assert_non_null(
		strstr(svg, ": applied gro off -&gt; on; gso_max_size 65536 -&gt; 524280</title>"));
	assert_non_null(strstr(svg, ">applied gro, gso_max_size</text>"));
	assert_non_null(strstr(svg, ">restore gro on -&gt; off</text>"));
	assert_int_equal(count(svg, ">applied</text>"), 1);
	assert_int_equal(count(svg, ">restore</text>"), 1);
	assert_null(strstr(svg, ">other</text>"));
	free(svg);

	/* Every event inside the samples' span: no band, no padding. */
	ev[0].t = 120;
	ev[1].t = 180;
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	assert_null(strstr(svg, "no-samples"));
	free(svg);
}

static void test_crowded_events(void **state)
{
	struct svg_point p[2] = {{0, 1, 0, 0, 0}, {100, 2, 0, 0, 0}};
	struct svg_series s = {.name = "x", .points = p, .n = 2};
	struct svg_event ev[40];
	struct svg_timeline c = {.title = "crowd",
				 .y = {.label = "y"},
				 .series = &s,
				 .n_series = 1,
				 .events = ev,
				 .n_events = 40};
	struct rterr err = {0};
	char *svg = NULL, want[96];
	size_t len, i, labelled;

	(void)state;
	for (i = 0; i < 40; i++)
		ev[i] = (struct svg_event){50 + (double)i * 0.1, SVG_EV_TRIAL,
					   "trial gso_max_size"};
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	labelled = count(svg, ">trial gso_max_size</text>");
	assert_int_equal(labelled, SVG_EVENT_LANES);
	snprintf(want, sizeof(want), "%zu event labels left out where markers crowd</text>",
		 (size_t)40 - labelled);
	assert_non_null(strstr(svg, want));
	assert_int_equal(count(svg, "<title>trial at "), 40); /* every marker keeps a tooltip */
	/* The chart is shipped as a static image too: no hint at hovering. */
	assert_null(strstr(svg, "hover"));
	free(svg);
	c.unlabelled_hint = "rtltune report lists every event";
	assert_int_equal(svg_render_timeline(&c, &svg, &len, &err), 0);
	snprintf(want, sizeof(want),
		 "%zu event labels left out where markers crowd: rtltune report lists every "
		 "event</text>",
		 (size_t)40 - labelled);
	assert_non_null(strstr(svg, want));
	free(svg);
}

static void test_bad_input(void **state)
{
	struct svg_point p[1] = {{NAN, NAN, 0, 0, 0}};
	struct svg_series s = {.name = "x", .points = p, .n = 1};
	struct svg_xy_chart c = {.title = "t", .series = &s, .n_series = 1};
	struct svg_timeline tl = {.title = "t", .series = &s, .n_series = 1};
	struct rterr err = {0};
	char *svg = (char *)"untouched";

	(void)state;
	assert_int_equal(svg_render_xy(&c, &svg, NULL, &err), -EINVAL);
	assert_null(svg);
	assert_int_equal(err.kind, RTERR_INPUT);
	assert_non_null(strstr(err.msg, "no finite value"));
	assert_int_equal(svg_render_timeline(&tl, &svg, NULL, &err), -EINVAL);
	c.n_series = 0;
	assert_int_equal(svg_render_xy(&c, &svg, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "expected 1 to"));
	p[0] = (struct svg_point){1, 1, 0, 0, 0};
	c.n_series = 1;
	c.width = 100;
	assert_int_equal(svg_render_xy(&c, &svg, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "size 100x480"));
	c.width = 0;
	assert_int_equal(svg_render_xy(&c, &svg, NULL, &err), 0); /* one point: ranges widened */
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks),
		cmocka_unit_test(test_si_prefix),
		cmocka_unit_test(test_format_number),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_xy_elements),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_timeline_elements),
		cmocka_unit_test(test_rate_axis),
		cmocka_unit_test(test_events_outside_samples),
		cmocka_unit_test(test_crowded_events),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
