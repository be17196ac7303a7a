// SPDX-License-Identifier: GPL-2.0-only
/* rtltune log [--follow] [--lines N]: the daemon's event log. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ctl.h"

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

static int cmd_log(struct cli_ctx *ctx, int argc, char **argv)
{
	struct ctl_conn *conn = NULL;
	struct rterr err = {0};
	json_object *req, *result, *ev;
	bool follow = false;
	long lines = 0;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--follow") == 0 || strcmp(argv[i], "-f") == 0) {
			follow = true;
		} else if ((strcmp(argv[i], "--lines") == 0 || strcmp(argv[i], "-n") == 0) &&
			   i + 1 < argc) {
			char *end;

			lines = strtol(argv[++i], &end, 10);
			if (*end || lines < 1)
				return cli_usage_error(ctx,
						       "log: --lines: expected a positive number, "
						       "got '%s'",
						       argv[i]);
		} else {
			return cli_usage_error(ctx, "usage: rtltune log [--follow] [--lines N]");
		}
	}
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

CLI_COMMAND(log, .name = "log", .usage = "log [--follow] [--lines N]",
	    .help = "the daemon's log: hotplug, applies, probes, reloads", .run = cmd_log);
