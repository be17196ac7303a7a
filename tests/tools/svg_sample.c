// SPDX-License-Identifier: GPL-2.0-only
/*
 * svg_sample: charts through lib/svg for the tests (tests/integration/svg_render.sh) and
 * for looking at them.
 *
 *	svg_sample demo DIR          fixed sample charts: DIR/xy.svg, xy-escape.svg,
 *	                             timeline.svg, timeline-abs.svg, timeline-crowded.svg,
 *	                             timeline-before.svg
 *	svg_sample sweep FILE OUT    an MTU sweep chart from FILE's "mtu gbit_s" lines (the
 *	                             chip model burst test's output), best step marked
 *
 * Exit: 0 ok, 2 usage or bad input, 3 the system refused (message says what).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/svg.h"

/* The axes of an MTU sweep, and the throughput axis of the timeline too. */
static const struct svg_axis mtu_axis = {.label = "MTU", .unit = "bytes"};
static const struct svg_axis throughput_axis = {
	.label = "throughput", .unit = "bit/s", .si = true, .from_zero = true};

static int emit(const char *path, int r, char *svg, size_t len, struct rterr *err)
{
	if (r == 0)
		r = svg_write_file(path, svg, len, err);
	free(svg);
	if (r < 0) {
		fprintf(stderr, "svg_sample: %s: %s\n", path, err->msg);
		return err->kind == RTERR_INPUT ? 2 : 3;
	}
	printf("wrote %s\n", path);
	return 0;
}

static int xy_demo(const char *dir)
{
	/* A sweep: five samples per step, quartile bars; the knee and the dip of a burst. */
	static struct svg_point pts[13];
	struct svg_mark marks[2];
	struct svg_series s = {.name = "TCP throughput, va -> vb", .points = pts, .n = 13};
	struct svg_xy_chart c = {
		.title = "rtltune sweep va mtu 1000:1576:48",
		.x = mtu_axis,
		.y = throughput_axis,
		.series = &s,
		.n_series = 1,
		.marks = marks,
		.n_marks = 2,
		.spread_note = "bars: quartiles of 5 samples",
	};
	struct rterr err = {0};
	char path[4096], *svg = NULL;
	size_t len = 0, i;
	int r;

	for (i = 0; i < 13; i++) {
		double mtu = 1000 + 48 * (double)i;
		double g =
			(mtu <= 1076 ? 3.3e9 * (mtu - 52) / 1024 : 1.8e9 * (mtu - 52) / 1024 / 1.0);

		pts[i] = (struct svg_point){mtu, g, true, g * 0.96, g * 1.03};
	}
	marks[0] = (struct svg_mark){1480, pts[10].y, "current 1480"};
	marks[1] = (struct svg_mark){1048, pts[1].y, "best 1048"};
	snprintf(path, sizeof(path), "%s/xy.svg", dir);
	r = svg_render_xy(&c, &svg, &len, &err);
	r = emit(path, r, svg, len, &err);
	if (r)
		return r;

	/* Text that must be escaped, a second series, marks on the same point. */
	static struct svg_point a[4] = {{0.001, 12, 0, 0, 0},
					{0.002, 30, 0, 0, 0},
					{0.004, 31, 0, 0, 0},
					{0.008, 28, 0, 0, 0}};
	static struct svg_point b2[4] = {{0.001, 5, 1, 4, 7},
					 {0.002, 9, 1, 6, 12},
					 {0.004, NAN, 0, 0, 0},
					 {0.008, 15, 1, 11, 16}};
	struct svg_series two[2] = {{.name = "<rx> & \"tx\"", .points = a, .n = 4},
				    {.name = "bytes 'in' flight", .points = b2, .n = 4}};
	struct svg_mark same[2] = {{0.004, 31, "current & best"}, {0.004, 31, "best <here>"}};
	struct svg_xy_chart e = {
		.title = "Escaping: <b>bold</b> & \"quotes\" 'apostrophes' \x01 and \xff bytes",
		.x = {.label = "interval", .unit = "s", .si = true},
		.y = {.label = "count", .unit = NULL, .from_zero = true},
		.series = two,
		.n_series = 2,
		.marks = same,
		.n_marks = 2,
	};
	snprintf(path, sizeof(path), "%s/xy-escape.svg", dir);
	svg = NULL;
	r = svg_render_xy(&e, &svg, &len, &err);
	return emit(path, r, svg, len, &err);
}

static int timeline_demo(const char *dir, bool absolute, bool crowded)
{
	enum { N = 241 };
	static struct svg_point thr[N], rtx[N];
	struct svg_event ev[40];
	struct svg_series s[2] = {
		{.name = "throughput", .points = thr, .n = N},
		{.name = "retransmits", .points = rtx, .n = N, .y2 = true},
	};
	struct svg_timeline c = {
		.title = crowded ? "rtltune report va --since 20m (crowded decisions)"
				 : "rtltune report va --since 20m",
		.absolute = absolute,
		.y = throughput_axis,
		.y2 = {.label = "retransmits", .unit = "%", .from_zero = true},
		.series = s,
		.n_series = 2,
		.events = ev,
	};
	double t0 = absolute ? 1764583200 : 0; /* 2025-12-01 10:00:00 UTC */
	struct rterr err = {0};
	char path[4096], *svg = NULL;
	size_t len = 0, n = 0, i;
	int r;

	for (i = 0; i < N; i++) {
		double t = (double)i * 5, g;

		g = t < 300 ? 2.0e9 : t < 420 ? 2.4e9 : t < 480 ? 0.6e9 : 2.45e9;
		g += 0.08e9 * sin((double)i * 0.7);
		thr[i] = (struct svg_point){t0 + t, i == 150 || i == 151 ? NAN : g, 0, 0, 0};
		rtx[i] = (struct svg_point){t0 + t, t >= 420 && t < 480 ? 4.5 : 0.05, 0, 0, 0};
	}
	ev[n++] = (struct svg_event){t0 + 240, SVG_EV_TRIAL, "trial: mtu 1500 -> 9000"};
	ev[n++] = (struct svg_event){t0 + 300, SVG_EV_KEPT, "kept mtu 9000 (+20%)"};
	ev[n++] = (struct svg_event){t0 + 420, SVG_EV_TRIAL, "trial: tso on"};
	ev[n++] = (struct svg_event){t0 + 480, SVG_EV_ROLLED_BACK,
				     "rolled back tso (retransmits 4.5%)"};
	ev[n++] = (struct svg_event){t0 + 900, SVG_EV_EXTERNAL, "external: gro off"};
	if (crowded)
		for (i = 0; i < 30; i++)
			ev[n++] = (struct svg_event){t0 + 600 + 8 * (double)i,
						     (enum svg_event_kind)(i % 4),
						     i % 2 ? "kept gso_max_size 32768" : "trial"};
	c.n_events = n;
	snprintf(path, sizeof(path), "%s/timeline%s.svg", dir,
		 crowded    ? "-crowded"
		 : absolute ? "-abs"
			    : "");
	r = svg_render_timeline(&c, &svg, &len, &err);
	return emit(path, r, svg, len, &err);
}

/* A profile applied with the CLI a minute before rtltuned started, no retransmits at all,
 * a restore after the last sample: the shaded stretches without samples, one marker per
 * operation, the rate axis from 0. */
static int before_demo(const char *dir)
{
	enum { N = 61 };
	static struct svg_point thr[N], rtx[N];
	struct svg_series s[2] = {
		{.name = "tx throughput", .points = thr, .n = N},
		{.name = "retransmits (% of segments sent)", .points = rtx, .n = N, .y2 = true},
	};
	double t0 = 1764583200; /* 2025-12-01 10:00:00 UTC */
	struct svg_event ev[3] = {
		{t0, SVG_EV_APPLIED, "applied gro, gso_max_size, gro_max_size",
		 "applied gro off -> on; gso_max_size 65536 -> 524280; gro_max_size 65536 -> "
		 "524280"},
		{t0 + 90, SVG_EV_EXTERNAL, "external: gro on -> off", NULL},
		{t0 + 185, SVG_EV_RESTORED, "restore gso_max_size, gro_max_size",
		 "restore gso_max_size 524280 -> 65536; gro_max_size 524280 -> 65536"},
	};
	struct svg_timeline c = {
		.title = "rtltune report va (changes before and after the samples)",
		.absolute = true,
		.y = throughput_axis,
		.y2 = {.label = "retransmits", .unit = "%", .from_zero = true},
		.series = s,
		.n_series = 2,
		.events = ev,
		.n_events = 3,
	};
	struct rterr err = {0};
	char path[4096], *svg = NULL;
	size_t len = 0, i;
	int r;

	for (i = 0; i < N; i++) {
		double t = 60 + (double)i * 2;

		thr[i] = (struct svg_point){t0 + t, 9.5e9 + 0.4e9 * sin((double)i * 0.5), 0, 0, 0};
		rtx[i] = (struct svg_point){t0 + t, 0, 0, 0, 0};
	}
	snprintf(path, sizeof(path), "%s/timeline-before.svg", dir);
	r = svg_render_timeline(&c, &svg, &len, &err);
	return emit(path, r, svg, len, &err);
}

static int sweep(const char *file, const char *out)
{
	struct svg_point pts[512];
	struct svg_mark best;
	struct svg_series s = {.name = "new connection, va -> vb (tcpstream)", .points = pts};
	struct svg_xy_chart c = {
		.title = "Throughput against MTU on the DMA burst model (1024-byte bursts)",
		.x = mtu_axis,
		.y = throughput_axis,
		.series = &s,
		.n_series = 1,
		.marks = &best,
		.n_marks = 1,
	};
	struct rterr err = {0};
	char *svg = NULL, lab[64];
	double mtu, gbit;
	size_t len = 0, n = 0, i, b = 0;
	FILE *f = fopen(file, "r");
	int r;

	if (!f) {
		fprintf(stderr, "svg_sample: %s: %s\n", file, strerror(errno));
		return 2;
	}
	while (n < 512 && fscanf(f, "%lf %lf", &mtu, &gbit) == 2)
		pts[n++] = (struct svg_point){mtu, gbit * 1e9, 0, 0, 0};
	fclose(f);
	if (!n) {
		fprintf(stderr, "svg_sample: %s: no \"mtu gbit_s\" lines\n", file);
		return 2;
	}
	for (i = 1; i < n; i++)
		if (pts[i].y > pts[b].y)
			b = i;
	snprintf(lab, sizeof(lab), "best %.0f", pts[b].x);
	best = (struct svg_mark){pts[b].x, pts[b].y, lab};
	s.n = n;
	r = svg_render_xy(&c, &svg, &len, &err);
	return emit(out, r, svg, len, &err);
}

int main(int argc, char **argv)
{
	int r;

	if (argc == 3 && strcmp(argv[1], "demo") == 0) {
		r = xy_demo(argv[2]);
		if (!r)
			r = timeline_demo(argv[2], false, false);
		if (!r)
			r = timeline_demo(argv[2], true, false);
		if (!r)
			r = timeline_demo(argv[2], false, true);
		if (!r)
			r = before_demo(argv[2]);
		return r;
	}
	if (argc == 4 && strcmp(argv[1], "sweep") == 0)
		return sweep(argv[2], argv[3]);
	fprintf(stderr, "usage: svg_sample demo DIR\n       svg_sample sweep FILE OUT.svg\n");
	return 2;
}
