// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune report IFACE --svg FILE [--since DURATION]: a timeline of the interface from
 * rtltuned's history (docs/report.md): throughput both ways and the retransmit rate over
 * time, with every decision of the journal's log (trial, kept, rolled back, ...) and every
 * change made outside rtltune marked and labelled. Drawn by lib/svg/svg_chart.c
 * (svg_render_timeline): one self-contained SVG file.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/svg.h"

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

/* A restore is logged as "applied" with the reason "restore" (lib/actuate/actuate.c). */
static bool is_restore(json_object *e)
{
	const char *reason = json_object_get_string(get(e, "reason"));

	return strcmp(json_object_get_string(get(e, "outcome")), "applied") == 0 && reason &&
	       strcmp(reason, "restore") == 0;
}

static enum svg_event_kind kind_of(json_object *e)
{
	const char *outcome = json_object_get_string(get(e, "outcome"));

	if (strcmp(outcome, "trial") == 0 || strcmp(outcome, "step") == 0)
		return SVG_EV_TRIAL;
	if (strcmp(outcome, "kept") == 0)
		return SVG_EV_KEPT;
	if (strcmp(outcome, "rolled_back") == 0 || strcmp(outcome, "failed") == 0)
		return SVG_EV_ROLLED_BACK;
	if (strcmp(outcome, "external") == 0)
		return SVG_EV_EXTERNAL;
	if (strcmp(outcome, "abandoned") == 0)
		return SVG_EV_ABANDONED;
	if (is_restore(e))
		return SVG_EV_RESTORED;
	if (strcmp(outcome, "applied") == 0)
		return SVG_EV_APPLIED;
	if (strcmp(outcome, "sweep") == 0)
		return SVG_EV_SWEEP;
	return SVG_EV_OTHER;
}

/* The word a label starts with: "restore" for a restore, else the outcome, '_' as ' '. */
static void event_verb(json_object *e, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s",
		 is_restore(e) ? "restore" : json_object_get_string(get(e, "outcome")));
	for (i = 0; buf[i]; i++)
		if (buf[i] == '_')
			buf[i] = ' ';
}

/* "kept gso_max_size 16384 -> 32768", "rolled back ...", "restore gro on -> off",
 * "external: mtu 1500 -> 9000". */
static void event_label(json_object *e, char *buf, size_t len)
{
	char a[32], b[32], verb[32];

	event_verb(e, verb, sizeof(verb));
	snprintf(buf, len, "%s%s %s %s -> %s", verb,
		 strcmp(json_object_get_string(get(e, "outcome")), "external") == 0 ? ":" : "",
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
	       strcmp(json_object_get_string(get(b, "knob")),
		      json_object_get_string(get(b, "knob"))) == 0;
}

/* One operation's changes of several knobs (an apply of a profile, a restore): the same kind
 * by the same actor within a second. They are one marker, or they would stack at one spot. */
static bool same_operation(json_object *a, json_object *b)
{
	const char *xa, *xb;

	if (!a || kind_of(a) != kind_of(b) || kind_of(b) == SVG_EV_SWEEP ||
	    fabs(json_object_get_double(get(a, "time")) - json_object_get_double(get(b, "time"))) >=
		    1)
		return false;
	xa = json_object_get_string(get(a, "actor"));
	xb = json_object_get_string(get(b, "actor"));
	return (!xa && !xb) || (xa && xb && strcmp(xa, xb) == 0);
}

/* Append ", TEXT" (or TEXT to an empty buf), cut with "..." when it does not fit. */
static void append_item(char *buf, size_t len, const char *sep, const char *text)
{
	size_t used = strlen(buf);

	if (used + strlen(sep) + strlen(text) + 4 >= len) {
		if (used + 4 < len && (used < 3 || strcmp(buf + used - 3, "...") != 0))
			snprintf(buf + used, len - used, "...");
		return;
	}
	snprintf(buf + used, len - used, "%s%s", used ? sep : "", text);
}

/* A marker's label on the chart and its tooltip (the values of every change it stands for). */
struct marker_text {
	char label[96];
	char detail[480];
};

static int write_chart(json_object *doc, const char *path, struct rterr *err)
{
	json_object *rows = get(doc, "samples"), *events = get(doc, "events");
	size_t n = json_object_array_length(rows), ne = json_object_array_length(events);
	struct svg_point *tx = calloc(n + 1, sizeof(*tx)), *rx = calloc(n + 1, sizeof(*rx));
	struct svg_point *rt = calloc(n + 1, sizeof(*rt));
	struct svg_event *ev = calloc(ne + 1, sizeof(*ev));
	struct marker_text *text = calloc(ne + 1, sizeof(*text));
	char title[128];
	size_t i, n_ev = 0, steps = 0;
	json_object *prev = NULL, *head = NULL;
	char *svg = NULL;
	size_t len = 0;
	int r;

	if (!tx || !rx || !rt || !ev || !text) {
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
		struct marker_text *m = &text[n_ev ? n_ev - 1 : 0];
		char a[32], b[32], change[96], verb[32];

		if (twin_of(prev, e))
			continue;
		snprintf(change, sizeof(change), "%s %s -> %s",
			 json_object_get_string(get(e, "knob")),
			 cli_text_value(get(e, "old"), a, sizeof(a)),
			 cli_text_value(get(e, "new"), b, sizeof(b)));
		if (same_sweep(prev, e)) {
			steps++;
			snprintf(m->label, sizeof(m->label), "sweep %s (%zu changes)",
				 json_object_get_string(get(e, "knob")), steps);
			prev = e;
			continue;
		}
		if (same_operation(prev, e)) {
			/* "applied gro, gso_max_size, ..." on the chart; the values in the
			 * tooltip and in the text output. */
			if (!strchr(m->label, ',')) {
				event_verb(head, verb, sizeof(verb));
				snprintf(m->label, sizeof(m->label), "%s%s %s", verb,
					 kind_of(head) == SVG_EV_EXTERNAL ? ":" : "",
					 json_object_get_string(get(head, "knob")));
			}
			append_item(m->label, sizeof(m->label), ", ",
				    json_object_get_string(get(e, "knob")));
			append_item(m->detail, sizeof(m->detail), "; ", change);
			prev = e;
			continue;
		}
		steps = 1;
		prev = head = e;
		m = &text[n_ev];
		event_label(e, m->label, sizeof(m->label));
		snprintf(m->detail, sizeof(m->detail), "%s", m->label);
		ev[n_ev] = (struct svg_event){json_object_get_double(get(e, "time")), kind_of(e),
					      m->label, m->detail};
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
			.unlabelled_hint = "rtltune report lists every event",
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
	free(text);
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

/* --since: a duration up to a year (the option row's parser). */
static int since_option(const char *text, void *field, char *why, size_t len)
{
	if (parse_duration(text, field) == 0)
		return 0;
	snprintf(why, len, "is not a duration from 1s to 366d (like 90s, 30m, 1h, 2d)");
	return -1;
}

struct report_opts {
	const char *svg;
	double since;
};

static const struct cli_option report_options[] = {
	{.name = "svg",
	 .type = CLI_OPT_STRING,
	 .arg = "FILE",
	 .help = "the chart to write",
	 .offset = CLI_FIELD(struct report_opts, svg, const char *),
	 .required = true},
	CLI_PARSED(struct report_opts, since, double, "since", 0, "DURATION", since_option,
		   "how far back: 90s, 30m, 1h (the default), 2d"),
	CLI_OPTIONS_END,
};

static int cmd_report(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct report_opts *o = ctx->opts;
	json_object *req, *doc = NULL;
	struct rterr err = {0};
	const char *svg = o->svg;
	double since = o->since;

	/* Before asking the daemon: a path that cannot be written is known now. */
	if (svg_check_writable(svg, &err) < 0)
		return cli_fail(ctx, &err);
	req = control_request_new("history");
	json_object_object_add(req, "iface", json_object_new_string(argv[1]));
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

static const struct report_opts report_defaults = {.since = 3600};

CLI_COMMAND(report, .name = "report", .args = "IFACE",
	    .help = "timeline chart of throughput, retransmits and the tuner's decisions",
	    .details = "From rtltuned's history of IFACE (docs/report.md).",
	    .example = "report eth0 --svg eth0.svg --since 30m", .options = report_options,
	    .opts_size = sizeof(struct report_opts), .opts_init = &report_defaults,
	    .run = cmd_report);
