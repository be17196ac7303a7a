// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune log [--follow] [--lines N]: the daemon's event log, through its control socket.
 * rtltune log --journal [--follow] [--lines N]: the journal's decision log (every change
 * and tuner decision any rtltune made, kept across restarts), read from the state dir
 * without a daemon.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/journal.h"

static void print_entry(json_object *e)
{
	double t = json_object_get_double(json_object_object_get(e, "time"));
	json_object *iface = json_object_object_get(e, "iface");
	time_t secs = (time_t)t;
	struct tm tm;
	char when[32];

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s %-7s %s%s%s\n", when, json_object_get_string(json_object_object_get(e, "level")),
	       iface ? json_object_get_string(iface) : "", iface ? ": " : "",
	       json_object_get_string(json_object_object_get(e, "message")));
}

static void render_log(json_object *doc)
{
	json_object *entries = json_object_object_get(doc, "entries");
	size_t i, n = json_object_array_length(entries);

	for (i = 0; i < n; i++)
		print_entry(json_object_array_get_idx(entries, i));
}

/* ---- the journal's decision log ---------------------------------------------------- */

static json_object *event_json(const struct journal_event *ev)
{
	json_object *o = json_object_new_object();
	enum knob_id k = (enum knob_id)ev->knob;
	bool known = ev->knob >= 0 && ev->knob < KNOB__COUNT;

	json_object_object_add(o, "time", json_object_new_double((double)ev->ts_us / 1e6));
	json_object_object_add(o, "actor", json_object_new_string(ev->actor));
	json_object_object_add(o, "pid", json_object_new_int((int)ev->pid));
	json_object_object_add(o, "iface", cli_json_str(ev->ifname));
	json_object_object_add(o, "knob", known ? json_object_new_string(knob_name(k)) : NULL);
	json_object_object_add(o, "old",
			       known && ev->old_value != JOURNAL_NO_VALUE
				       ? knob_value_json(k, ev->old_value)
				       : NULL);
	json_object_object_add(o, "new",
			       known && ev->new_value != JOURNAL_NO_VALUE
				       ? knob_value_json(k, ev->new_value)
				       : NULL);
	json_object_object_add(o, "outcome", json_object_new_string(ev->outcome));
	json_object_object_add(o, "reason", cli_json_str(ev->reason));
	return o;
}

static void print_event(json_object *e)
{
	double t = json_object_get_double(json_object_object_get(e, "time"));
	json_object *knob = json_object_object_get(e, "knob"),
		    *why = json_object_object_get(e, "reason");
	char when[32], a[32], b[32];
	time_t secs = (time_t)t;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s %-6s %s", when, json_object_get_string(json_object_object_get(e, "actor")),
	       cli_text_value(json_object_object_get(e, "iface"), a, sizeof(a)));
	if (knob)
		printf(" %s %s -> %s", json_object_get_string(knob),
		       cli_text_value(json_object_object_get(e, "old"), a, sizeof(a)),
		       cli_text_value(json_object_object_get(e, "new"), b, sizeof(b)));
	printf(" %s%s%s\n", json_object_get_string(json_object_object_get(e, "outcome")),
	       why ? ": " : "", why ? json_object_get_string(why) : "");
}

static void render_journal(json_object *doc)
{
	json_object *entries = json_object_object_get(doc, "entries");
	size_t i;

	for (i = 0; i < json_object_array_length(entries); i++)
		print_event(json_object_array_get_idx(entries, i));
}

/* The last `keep` records (0: all) into an array. */
struct collect {
	json_object *arr;
	long keep;
};

static int collect_cb(const struct journal_event *ev, void *arg)
{
	struct collect *c = arg;

	json_object_array_add(c->arr, event_json(ev));
	if (c->keep && (long)json_object_array_length(c->arr) > c->keep)
		json_object_array_del_idx(c->arr, 0, 1);
	return 0;
}

static int stream_cb(const struct journal_event *ev, void *arg)
{
	struct cli_ctx *ctx = arg;
	json_object *o = event_json(ev);

	if (ctx->json)
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	else
		print_event(o);
	json_object_put(o);
	fflush(stdout);
	return 0;
}

static int journal_log(struct cli_ctx *ctx, bool follow, long lines)
{
	struct journal_log_cursor cur = {0};
	struct collect c = {json_object_new_array(), lines};
	struct rterr err = {0};
	json_object *doc;
	char buf[4096];
	int fd, r;

	r = journal_log_read(ctx->state_dir, &cur, collect_cb, &c, &err);
	if (r < 0) {
		json_object_put(c.arr);
		return cli_fail(ctx, &err);
	}
	doc = json_object_new_object();
	json_object_object_add(doc, "state_dir", json_object_new_string(ctx->state_dir));
	json_object_object_add(doc, "entries", c.arr);
	if (cur.skipped)
		json_object_object_add(doc, "skipped", json_object_new_int((int)cur.skipped));
	if (!follow)
		return cli_emit(ctx, doc, render_journal, EXIT_OK);
	/* Following: the backlog, then each record as it is appended (JSON lines with --json),
	 * woken by the kernel when the state dir's log changes, never by polling. */
	if (ctx->json) {
		size_t i;

		for (i = 0; i < json_object_array_length(c.arr); i++)
			printf("%s\n",
			       json_object_to_json_string_ext(json_object_array_get_idx(c.arr, i),
							      JSON_C_TO_STRING_PLAIN));
	} else {
		render_journal(doc);
	}
	json_object_put(doc);
	fflush(stdout);
	signal(SIGPIPE, SIG_DFL);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 ||
	    inotify_add_watch(fd, ctx->state_dir, IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0) {
		rterr_sys(&err, errno, "cannot watch %s", ctx->state_dir);
		return cli_fail(ctx, &err);
	}
	while (read(fd, buf, sizeof(buf)) > 0) {
		r = journal_log_read(ctx->state_dir, &cur, stream_cb, ctx, &err);
		if (r < 0)
			break;
	}
	close(fd);
	if (!err.msg[0])
		rterr_sys(&err, errno, "watching %s", ctx->state_dir);
	return cli_fail(ctx, &err);
}

/* The most entries --lines asks for: more than rtltuned's ring holds, and a count an int
 * carries to it. */
#define LOG_MAX_LINES 1000000

struct log_opts {
	bool journal, follow;
	long long lines;
};

static const struct cli_option log_options[] = {
	CLI_FLAG(struct log_opts, journal, "journal", 0,
		 "the journal's decision log from the state dir (no daemon needed)"),
	CLI_FLAG(struct log_opts, follow, "follow", 'f', "keep printing entries as they come"),
	CLI_INT(struct log_opts, lines, "lines", 'n', "N", 1, LOG_MAX_LINES,
		"only the last N entries"),
	CLI_OPTIONS_END,
};

static int cmd_log(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct log_opts *o = ctx->opts;
	struct ctl_conn *conn = NULL;
	struct rterr err = {0};
	json_object *req, *result, *ev;
	bool follow = o->follow, journal = o->journal;
	long lines = (long)o->lines;
	int r;
	if (journal)
		return journal_log(ctx, follow, lines);
	req = control_request_new("log");
	if (follow)
		json_object_object_add(req, "follow", json_object_new_boolean(1));
	if (lines)
		json_object_object_add(req, "max", json_object_new_int((int)lines));
	r = ctl_open(ctx->socket_path, &conn, &err);
	if (r == 0)
		r = ctl_request(conn, req, &result, &err);
	json_object_put(req);
	if (r < 0) {
		ctl_close(conn);
		return cli_fail(ctx, &err);
	}
	if (!follow) {
		ctl_close(conn);
		return cli_emit(ctx, result, render_log, EXIT_OK);
	}
	/* Following: the backlog, then one entry per line as it happens (with --json, one
	 * compact document per entry, so the stream is JSON lines). */
	if (ctx->json) {
		json_object *entries = json_object_object_get(result, "entries");
		size_t k;

		for (k = 0; k < json_object_array_length(entries); k++)
			printf("%s\n",
			       json_object_to_json_string_ext(json_object_array_get_idx(entries, k),
							      JSON_C_TO_STRING_PLAIN));
	} else {
		render_log(result);
	}
	json_object_put(result);
	fflush(stdout);
	signal(SIGPIPE, SIG_DFL);
	for (;;) {
		json_object *entry;

		r = ctl_recv(conn, &ev, -1, &err);
		if (r < 0)
			break;
		if (json_object_object_get_ex(ev, "entry", &entry)) {
			if (ctx->json)
				printf("%s\n", json_object_to_json_string_ext(
						       entry, JSON_C_TO_STRING_PLAIN));
			else
				print_entry(entry);
			fflush(stdout);
		}
		json_object_put(ev);
	}
	ctl_close(conn);
	/* The daemon went away (stopped, restarted): say so, like journalctl -f does not. */
	return cli_fail(ctx, &err);
}

CLI_COMMAND(log, .name = "log",
	    .help = "the daemon's log; --journal: every change and decision, from the state dir",
	    .example = "log --journal --lines 20", .options = log_options,
	    .opts_size = sizeof(struct log_opts), .run = cmd_log);
