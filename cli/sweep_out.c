// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune sweep's presentation: the document of a run (sweep_doc()), the table drawn from
 * it, and the chart (lib/svg/svg_chart.c svg_render_xy(): each step's median, its spread as a
 * bar, the original and the best value marked).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/svg.h"
#include "rtltune/sweep.h"
#include "sweep.h"

static const char *dir_name(enum knob_dir d)
{
	return d == KNOB_DIR_TX ? "tx" : d == KNOB_DIR_RX ? "rx" : "both";
}

/* A measured number with at most `decimals` digits after the point, printed that way
 * (json-c would print the binary double's 17 digits). The CLI runs in the C locale. */
static json_object *num_d(double v, int decimals)
{
	char buf[64];
	size_t n;

	if (!isfinite(v))
		return NULL;
	n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	while (n > 1 && strchr(buf, '.') && (buf[n - 1] == '0' || buf[n - 1] == '.'))
		buf[--n] = '\0';
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, sizeof(buf), "0");
	return json_object_new_double_s(v, buf);
}

static json_object *num(double v)
{
	return num_d(v, 3);
}

static json_object *summary_json(const struct sweep_summary *m)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "median", num(m->median));
	json_object_object_add(o, "min", num(m->min));
	json_object_object_add(o, "max", num(m->max));
	json_object_object_add(o, "q1", num(m->q1));
	json_object_object_add(o, "q3", num(m->q3));
	json_object_object_add(o, "mean", num(m->mean));
	return o;
}

static double per_s(uint64_t v, double secs)
{
	return secs > 0 ? (double)v / secs : 0;
}

/* The throughput a knob is judged by, bit/s: its direction's (tx + rx for both). */
static double throughput(const struct sweep_sample *x, enum knob_dir d)
{
	uint64_t b = d == KNOB_DIR_TX	? x->tx_bytes
		     : d == KNOB_DIR_RX ? x->rx_bytes
					: x->tx_bytes + x->rx_bytes;

	return per_s(b, x->secs) * 8;
}

static json_object *mean_size(const struct rtl_hist *h)
{
	uint64_t n = hist_count(h);

	return n ? num((double)h->sum / (double)n) : NULL;
}

static json_object *step_json(const struct sweep_run *r, const struct sweep_step *st,
			      struct sweep_summary *thr)
{
	enum knob_dir d = knob_desc(r->knob)->dir;
	double t[SWEEP_MAX_SAMPLES], tx[SWEEP_MAX_SAMPLES], rx[SWEEP_MAX_SAMPLES];
	double cpu[SWEEP_MAX_SAMPLES];
	uint64_t segs = 0, rtx = 0, drops = 0, busy = 0;
	struct sweep_summary m;
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	unsigned int i, n_cpu = 0;

	for (i = 0; i < st->n; i++) {
		const struct sweep_sample *x = &st->s[i];

		t[i] = throughput(x, d);
		tx[i] = per_s(x->tx_bytes, x->secs) * 8;
		rx[i] = per_s(x->rx_bytes, x->secs) * 8;
		if (x->tx_bytes + x->rx_bytes)
			cpu[n_cpu++] = (double)x->cpu_ns / (double)(x->tx_bytes + x->rx_bytes);
		segs += x->tx_segs;
		rtx += x->retrans_segs;
		drops += x->drops;
		busy += x->tx_busy;
		json_object_array_add(a, num(t[i]));
	}
	json_object_object_add(o, "value", knob_value_json(r->knob, st->value));
	json_object_object_add(o, "original", json_object_new_boolean(st->original));
	json_object_object_add(o, "samples", json_object_new_int((int)st->n));
	sweep_summarize(t, st->n, thr);
	json_object_object_add(o, "throughput_bits_per_s", summary_json(thr));
	json_object_object_add(o, "throughput_samples", a);
	sweep_summarize(tx, st->n, &m);
	json_object_object_add(o, "tx_bits_per_s", summary_json(&m));
	sweep_summarize(rx, st->n, &m);
	json_object_object_add(o, "rx_bits_per_s", summary_json(&m));
	sweep_summarize(cpu, n_cpu, &m);
	json_object_object_add(o, "cpu_ns_per_byte", n_cpu ? num(m.median) : NULL);
	json_object_object_add(o, "tx_segments", json_object_new_uint64(segs));
	json_object_object_add(o, "tcp_retransmit_segments", json_object_new_uint64(rtx));
	json_object_object_add(o, "retransmit_ratio",
			       segs ? num_d((double)rtx / (double)segs, 9) : NULL);
	json_object_object_add(o, "drops", json_object_new_uint64(drops));
	json_object_object_add(o, "tx_busy", json_object_new_uint64(busy));
	json_object_object_add(o, "tx_skb_mean_bytes", mean_size(&st->tx_skb_bytes));
	json_object_object_add(o, "rx_skb_mean_bytes", mean_size(&st->rx_skb_bytes));
	json_object_object_add(o, "tx_skb_bytes", hist_to_json(&st->tx_skb_bytes));
	json_object_object_add(o, "rx_skb_bytes", hist_to_json(&st->rx_skb_bytes));
	return o;
}

json_object *sweep_doc(const struct sweep_run *r)
{
	json_object *o = json_object_new_object(), *steps = json_object_new_array();
	struct sweep_summary thr[SWEEP_MAX_STEPS];
	unsigned int i;
	int best;

	json_object_object_add(o, "ifname", json_object_new_string(r->ifname));
	json_object_object_add(o, "knob", json_object_new_string(knob_name(r->knob)));
	json_object_object_add(o, "unit", cli_json_str(knob_desc(r->knob)->unit));
	json_object_object_add(o, "direction",
			       json_object_new_string(dir_name(knob_desc(r->knob)->dir)));
	json_object_object_add(o, "seconds", num(r->seconds));
	json_object_object_add(o, "settle_seconds", num(r->settle_seconds));
	json_object_object_add(o, "sample_seconds", num(r->sample_seconds));
	json_object_object_add(o, "original", knob_value_json(r->knob, r->original));
	for (i = 0; i < r->n_steps && i < SWEEP_MAX_STEPS; i++)
		json_object_array_add(steps, step_json(r, &r->steps[i], &thr[i]));
	best = sweep_best(thr, r->n_steps < SWEEP_MAX_STEPS ? r->n_steps : SWEEP_MAX_STEPS);
	json_object_object_add(o, "best",
			       best >= 0 ? knob_value_json(r->knob, r->steps[best].value) : NULL);
	json_object_object_add(o, "best_gain",
			       best >= 0 && r->n_steps && thr[0].median > 0
				       ? num(thr[best].median / thr[0].median - 1)
				       : NULL);
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "daemon", cli_json_str(r->daemon));
	json_object_object_add(o, "restored", json_object_new_boolean(r->restored));
	json_object_object_add(o, "restore_error", cli_json_str(r->restore_error));
	json_object_object_add(o, "interrupted", cli_json_str(r->interrupted));
	json_object_object_add(o, "note", cli_json_str(r->note));
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static double dget(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_double(v) : NAN;
}

/* A bit/s figure in the table's unit. */
static void mbit(char *buf, size_t len, double bits)
{
	if (isfinite(bits))
		snprintf(buf, len, "%.1f", bits / 1e6);
	else
		snprintf(buf, len, "-");
}

void sweep_render_text(json_object *doc)
{
	json_object *steps = get(doc, "steps"), *e;
	const char *knob = json_object_get_string(get(doc, "knob"));
	const char *dir = json_object_get_string(get(doc, "direction"));
	size_t i, n = json_object_array_length(steps);
	char a[32], b[32], c[32], d[32], v[32];

	printf("%s %s: %zu step%s after the original value, %.0f samples of %.2f s each, %.1f s "
	       "to settle\n",
	       json_object_get_string(get(doc, "ifname")), knob, n ? n - 1 : 0, n == 2 ? "" : "s",
	       dget(doc, "seconds") / dget(doc, "sample_seconds"), dget(doc, "sample_seconds"),
	       dget(doc, "settle_seconds"));
	printf("throughput: %s (what %s moves); rtltuned: %s\n",
	       strcmp(dir, "both") == 0 ? "tx + rx" : dir, knob,
	       json_object_get_string(get(doc, "daemon")));
	printf("%14s  %-36s %10s %10s %9s %9s %7s %9s %9s\n", knob,
	       "throughput Mbit/s: median [min..max]", "tx Mbit/s", "rx Mbit/s", "CPU ns/B",
	       "retrans%", "drops", "tx skb B", "rx skb B");
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		json_object *t = get(s, "throughput_bits_per_s");
		json_object *rr = get(s, "retransmit_ratio");
		char range[64], cpu[16], rtx[16], txs[16], rxs[16];

		mbit(a, sizeof(a), dget(t, "median"));
		mbit(b, sizeof(b), dget(t, "min"));
		mbit(c, sizeof(c), dget(t, "max"));
		snprintf(range, sizeof(range), "%10s [%s..%s]", a, b, c);
		mbit(a, sizeof(a), dget(get(s, "tx_bits_per_s"), "median"));
		mbit(d, sizeof(d), dget(get(s, "rx_bits_per_s"), "median"));
		snprintf(cpu, sizeof(cpu), "%s",
			 cli_text_value(get(s, "cpu_ns_per_byte"), b, sizeof(b)));
		if (rr)
			snprintf(rtx, sizeof(rtx), "%.3f", json_object_get_double(rr) * 100);
		else
			snprintf(rtx, sizeof(rtx), "-");
		snprintf(txs, sizeof(txs), "%.0f", dget(s, "tx_skb_mean_bytes"));
		snprintf(rxs, sizeof(rxs), "%.0f", dget(s, "rx_skb_mean_bytes"));
		printf("%12s %s  %-36s %10s %10s %9s %9s %7s %9s %9s\n",
		       cli_text_value(get(s, "value"), v, sizeof(v)),
		       json_object_get_boolean(get(s, "original")) ? "*" : " ", range, a, d, cpu,
		       rtx, json_object_get_string(get(s, "drops")),
		       get(s, "tx_skb_mean_bytes") ? txs : "-",
		       get(s, "rx_skb_mean_bytes") ? rxs : "-");
	}
	printf("(* the value before the sweep)\n");
	if (get(doc, "best") && n) {
		json_object *g = get(doc, "best_gain");

		printf("best: %s %s", knob, cli_text_value(get(doc, "best"), v, sizeof(v)));
		if (g)
			printf(" (%+.1f%% against the original %s)",
			       json_object_get_double(g) * 100,
			       cli_text_value(get(doc, "original"), a, sizeof(a)));
		printf("\n");
	}
	if ((e = get(doc, "note")))
		printf("note: %s\n", json_object_get_string(e));
	if (json_object_get_boolean(get(doc, "restored")))
		printf("%s is back at %s\n", knob,
		       cli_text_value(get(doc, "original"), v, sizeof(v)));
	if ((e = get(doc, "interrupted")))
		fprintf(stderr, "rtltune: interrupted by %s after %zu step(s)\n",
			json_object_get_string(e), n ? n - 1 : 0);
	if ((e = get(doc, "error")))
		fprintf(stderr, "rtltune: %s\n", json_object_get_string(e));
	if ((e = get(doc, "restore_error")))
		fprintf(stderr, "rtltune: putting %s back failed: %s (run 'rtltune restore %s')\n",
			knob, json_object_get_string(e),
			json_object_get_string(get(doc, "ifname")));
	if ((e = get(doc, "svg")))
		printf("chart: %s\n", json_object_get_string(e));
	if ((e = get(doc, "svg_error")))
		fprintf(stderr, "rtltune: chart: %s\n", json_object_get_string(e));
}

static int by_x(const void *a, const void *b)
{
	const struct svg_point *p = a, *q = b;

	return p->x < q->x ? -1 : p->x > q->x;
}

static struct svg_point step_point(json_object *s)
{
	json_object *t = get(s, "throughput_bits_per_s");

	return (struct svg_point){json_object_get_double(get(s, "value")), dget(t, "median"), true,
				  dget(t, "min"), dget(t, "max")};
}

int sweep_write_svg(json_object *doc, const char *path, struct rterr *err)
{
	json_object *steps = get(doc, "steps");
	const char *knob = json_object_get_string(get(doc, "knob"));
	const char *dir = json_object_get_string(get(doc, "direction"));
	const char *unit = json_object_get_string(get(doc, "unit"));
	size_t i, n = json_object_array_length(steps), np = 0, n_series = 0, n_marks = 0;
	struct svg_point *pts = calloc(n + 1, sizeof(*pts)), orig = {NAN, NAN, 0, 0, 0};
	struct svg_point best = {NAN, NAN, 0, 0, 0};
	char title[160], name[96], note[96], cur[64], bl[64], xl[64], v[32];
	struct svg_series series[2];
	struct svg_mark marks[2];
	bool boolean;
	char *svg = NULL;
	size_t len = 0;
	int r;

	if (!pts)
		return rterr_sys(err, ENOMEM, "chart");
	boolean = json_object_is_type(get(doc, "original"), json_type_boolean);
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		struct svg_point p = step_point(s);

		if (!(p.y <= best.y))
			best = p;
		if (json_object_get_boolean(get(s, "original")))
			orig = p;
		else
			pts[np++] = p;
	}
	qsort(pts, np, sizeof(*pts), by_x);
	snprintf(name, sizeof(name), "%s throughput (median)",
		 strcmp(dir, "both") == 0 ? "tx + rx" : dir);
	if (np)
		series[n_series++] = (struct svg_series){.name = name, .points = pts, .n = np};
	/* The value before the sweep is a measurement of its own (no change made), drawn
	 * apart from the steps even where a step set the same value again. */
	if (isfinite(orig.x)) {
		snprintf(cur, sizeof(cur), "before the sweep: %s",
			 cli_text_value(get(doc, "original"), v, sizeof(v)));
		series[n_series++] =
			(struct svg_series){.name = "before the sweep", .points = &orig, .n = 1};
		marks[n_marks++] = (struct svg_mark){orig.x, orig.y, cur};
	}
	if (isfinite(best.x)) {
		snprintf(bl, sizeof(bl), "best: %s",
			 cli_text_value(get(doc, "best"), v, sizeof(v)));
		marks[n_marks++] = (struct svg_mark){best.x, best.y, bl};
	}
	snprintf(title, sizeof(title), "rtltune sweep %s %s",
		 json_object_get_string(get(doc, "ifname")), knob);
	snprintf(note, sizeof(note), "bars: min..max of %.0f samples of %.2f s",
		 dget(doc, "seconds") / dget(doc, "sample_seconds"), dget(doc, "sample_seconds"));
	snprintf(xl, sizeof(xl), "%s%s", knob, boolean ? " (0 off, 1 on)" : "");
	{
		struct svg_xy_chart c = {
			.title = title,
			.x = {.label = xl, .unit = boolean ? NULL : unit},
			.y = {.label = "throughput",
			      .unit = "bit/s",
			      .si = true,
			      .from_zero = true},
			.series = series,
			.n_series = n_series,
			.marks = marks,
			.n_marks = n_marks,
			.spread_note = note,
		};

		r = svg_render_xy(&c, &svg, &len, err);
	}
	if (r == 0)
		r = svg_write_file(path, svg, len, err);
	free(svg);
	free(pts);
	return r;
}
