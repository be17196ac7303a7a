// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune report IFACE --svg FILE [--since DURATION]: a timeline of the interface from
 * rtltuned's history (docs/report.md): throughput both ways and the retransmit rate over
 * time, with every decision of the journal's log (trial, kept, rolled back, ...) and every
 * change made outside rtltune marked and labelled. Drawn by lib/svg_chart.c
 * (svg_render_timeline): one self-contained SVG file.
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/svg.h"

static int usage(struct cli_ctx *ctx, const char *what)
{
	return cli_usage_error(ctx,
			       "report: %s (usage: rtltune report IFACE --svg FILE [--since "
			       "DURATION]; DURATION like 90s, 30m, 1h, 2d)",
			       what);
}

/* "90s", "30m", "1h", "2d", or plain seconds. */
static int parse_duration(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	if (!*end || strcmp(end, "s") == 0)
		*out = v;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		*out = v * 60;
	else if (strcmp(end, "h") == 0)
		*out = v * 3600;
	else if (strcmp(end, "d") == 0)
		*out = v * 86400;
	else
		return -1;
	return *out <= 86400.0 * 366 ? 0 : -1;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static enum svg_event_kind kind_of(const char *outcome)
{
	if (strcmp(outcome, "trial") == 0 || strcmp(outcome, "step") == 0)
		return SVG_EV_TRIAL;
	if (strcmp(outcome, "kept") == 0)
		return SVG_EV_KEPT;
	if (strcmp(outcome, "rolled_back") == 0 || strcmp(outcome, "failed") == 0)
		return SVG_EV_ROLLED_BACK;
	if (strcmp(outcome, "external") == 0)
		return SVG_EV_EXTERNAL;
	return SVG_EV_OTHER;
}

/* "kept gso_max_size 16384 -> 32768", "rolled back ...", "external: mtu 1500 -> 9000". */
static void event_label(json_object *e, char *buf, size_t len)
{
	const char *outcome = json_object_get_string(get(e, "outcome"));
	char a[32], b[32], what[32];
	size_t i;

	snprintf(what, sizeof(what), "%s", outcome);
	for (i = 0; what[i]; i++)
		if (what[i] == '_')
			what[i] = ' ';
	snprintf(buf, len, "%s%s %s %s -> %s", what, strcmp(outcome, "external") == 0 ? ":" : "",
		 json_object_get_string(get(e, "knob")),
		 cli_text_value(get(e, "old"), a, sizeof(a)),
		 cli_text_value(get(e, "new"), b, sizeof(b)));
}

/* The IPv4 twin the kernel moved along with a size (a record of its own in the log): one
 * marker with the size's. */
static bool twin_of(json_object *a, json_object *b)
{
	int ka, kb;

	if (!a)
		return false;
	ka = knob_from_name(json_object_get_string(get(a, "knob")));
	kb = knob_from_name(json_object_get_string(get(b, "knob")));
	return ka >= 0 && kb >= 0 && knob_desc((enum knob_id)ka)->twin == kb &&
	       strcmp(json_object_get_string(get(a, "outcome")),
		      json_object_get_string(get(b, "outcome"))) == 0 &&
	       fabs(json_object_get_double(get(a, "time")) -
		    json_object_get_double(get(b, "time"))) < 1;
}

/* Consecutive records of one sweep (one per step) are one marker: "sweep mtu (76 steps)". */
static bool same_sweep(json_object *a, json_object *b)
{
	return a && strcmp(json_object_get_string(get(a, "outcome")), "sweep") == 0 &&
	       strcmp(json_object_get_string(get(b, "outcome")), "sweep") == 0 &&
	       strcmp(json_object_get_string(get(a, "knob")),
		      json_object_get_string(get(b, "knob"))) == 0;
}

static int write_chart(json_object *doc, const char *path, struct rterr *err)
{
	json_object *rows = get(doc, "samples"), *events = get(doc, "events");
	size_t n = json_object_array_length(rows), ne = json_object_array_length(events);
	struct svg_point *tx = calloc(n + 1, sizeof(*tx)), *rx = calloc(n + 1, sizeof(*rx));
	struct svg_point *rt = calloc(n + 1, sizeof(*rt));
	struct svg_event *ev = calloc(ne + 1, sizeof(*ev));
	char(*labels)[96] = calloc(ne + 1, sizeof(*labels));
	char title[128];
	size_t i, n_ev = 0, steps = 0;
	json_object *prev = NULL;
	char *svg = NULL;
	size_t len = 0;
	int r;

	if (!tx || !rx || !rt || !ev || !labels) {
		r = rterr_sys(err, ENOMEM, "chart");
		goto out;
	}
	/* Rows: time, seconds, tx B/s, rx B/s, tx pkt/s, rx pkt/s, tx segs/s, rtx segs/s, ... */
	for (i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(rows, i);
		double t = json_object_get_double(json_object_array_get_idx(row, 0));
		double segs = json_object_get_double(json_object_array_get_idx(row, 6));
		double rtx = json_object_get_double(json_object_array_get_idx(row, 7));

		tx[i] = (struct svg_point){
			t, json_object_get_double(json_object_array_get_idx(row, 2)) * 8, 0, 0, 0};
		rx[i] = (struct svg_point){
			t, json_object_get_double(json_object_array_get_idx(row, 3)) * 8, 0, 0, 0};
		/* No segments sent: no rate (a gap), not 0%. */
		rt[i] = (struct svg_point){t, segs > 0 ? rtx / segs * 100 : NAN, 0, 0, 0};
	}
	for (i = 0; i < ne; i++) {
		json_object *e = json_object_array_get_idx(events, i);

		if (twin_of(prev, e))
			continue;
		if (same_sweep(prev, e)) {
			steps++;
			snprintf(labels[n_ev - 1], sizeof(labels[0]), "sweep %s (%zu changes)",
				 json_object_get_string(get(e, "knob")), steps);
			continue;
		}
		steps = 1;
		prev = e;
		event_label(e, labels[n_ev], sizeof(labels[0]));
		ev[n_ev] = (struct svg_event){json_object_get_double(get(e, "time")),
					      kind_of(json_object_get_string(get(e, "outcome"))),
					      labels[n_ev]};
		n_ev++;
	}
	snprintf(title, sizeof(title), "rtltune report %s",
		 json_object_get_string(get(doc, "ifname")));
	{
		struct svg_series s[3] = {
			{.name = "tx throughput", .points = tx, .n = n},
			{.name = "rx throughput", .points = rx, .n = n},
			{.name = "retransmits (% of segments sent)",
			 .points = rt,
			 .n = n,
			 .y2 = true},
		};
		struct svg_timeline c = {
			.title = title,
			.absolute = true,
			.y = {.label = "throughput",
			      .unit = "bit/s",
			      .si = true,
			      .from_zero = true},
			.y2 = {.label = "retransmits", .unit = "%", .from_zero = true},
			.series = s,
			.n_series = 3,
			.events = ev,
			.n_events = n_ev,
		};

		r = svg_render_timeline(&c, &svg, &len, err);
	}
	if (r == 0)
		r = svg_write_file(path, svg, len, err);
out:
	free(svg);
	free(tx);
	free(rx);
	free(rt);
	free(ev);
	free(labels);
	return r;
}

static void render_report(json_object *doc)
{
	json_object *rows = get(doc, "samples"), *events = get(doc, "events"), *e;
	size_t n = json_object_array_length(rows), i;
	char when[2][32];

	for (i = 0; i < 2 && n; i++) {
		json_object *row = json_object_array_get_idx(rows, i ? n - 1 : 0);
		time_t t = (time_t)json_object_get_double(json_object_array_get_idx(row, 0));
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(when[i], sizeof(when[i]), "%Y-%m-%d %H:%M:%S", &tm);
	}
	printf("%s: %zu samples", json_object_get_string(get(doc, "ifname")), n);
	if (n)
		printf(" from %s to %s UTC", when[0], when[1]);
	printf(", %zu events\n", json_object_array_length(events));
	for (i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i);
		time_t t = (time_t)json_object_get_double(get(ev, "time"));
		char label[128], at[32];
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(at, sizeof(at), "%H:%M:%S", &tm);
		event_label(ev, label, sizeof(label));
		printf("  %s  %s\n", at, label);
	}
	if ((e = get(doc, "svg")))
		printf("chart: %s\n", json_object_get_string(e));
}

static int cmd_report(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{"svg", required_argument, NULL, 'g'},
		{"since", required_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	json_object *req, *doc = NULL;
	struct rterr err = {0};
	const char *svg = NULL;
	double since = 3600;
	int opt;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			svg = optarg;
			break;
		case 's':
			if (parse_duration(optarg, &since) < 0)
				return usage(ctx, "--since needs a duration");
			break;
		default:
			return usage(ctx, "unknown option");
		}
	}
	if (argc - optind != 1)
		return usage(ctx, "needs one IFACE");
	if (!svg)
		return usage(ctx, "needs --svg FILE");
	req = control_request_new("history");
	json_object_object_add(req, "iface", json_object_new_string(argv[optind]));
	json_object_object_add(req, "since", json_object_new_double((double)time(NULL) - since));
	if (ctl_call(ctx->socket_path, req, &doc, &err) < 0) {
		json_object_put(req);
		return cli_fail(ctx, &err);
	}
	json_object_put(req);
	if (write_chart(doc, svg, &err) < 0) {
		json_object_put(doc);
		return cli_fail(ctx, &err);
	}
	json_object_object_add(doc, "svg", json_object_new_string(svg));
	return cli_emit(ctx, doc, render_report, EXIT_OK);
}

CLI_COMMAND(report, .name = "report", .usage = "report IFACE --svg FILE [--since DURATION]",
	    .help = "timeline chart of throughput, retransmits and the tuner's decisions",
	    .run = cmd_report);
