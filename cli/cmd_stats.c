// SPDX-License-Identifier: GPL-2.0-only
/* rtltune stats [IFACE] [--watch SECONDS]: counters and rates from the daemon. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "term.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	interrupted = 1;
}

static int64_t num(json_object *o, const char *key, bool *have)
{
	json_object *v;

	*have = json_object_object_get_ex(o, key, &v) && !json_object_is_type(v, json_type_null);
	return *have ? json_object_get_int64(v) : 0;
}

static double rate(json_object *o, const char *key)
{
	json_object *rates = json_object_object_get(o, "rates"), *v;

	return rates && json_object_object_get_ex(rates, key, &v) ? json_object_get_double(v) : 0;
}

/* Human units in 1000s for bytes and packets, as ip -s -h does. */
static const char *human(double v, char *buf, size_t len)
{
	static const char *const units[] = {"", "k", "M", "G", "T"};
	unsigned int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", v, units[u]);
	return buf;
}

static void line(json_object *o, const char *label, const char *pk, const char *bk)
{
	char a[16], b[16], c[16], d[16];
	bool hp, hb;
	int64_t p = num(o, pk, &hp), by = num(o, bk, &hb);

	if (!hp && !hb)
		return;
	printf("    %-3s %10s packets %8s/s   %10sB %8sB/s\n", label,
	       human((double)p, a, sizeof(a)), human(rate(o, pk), b, sizeof(b)),
	       human((double)by, c, sizeof(c)), human(rate(o, bk), d, sizeof(d)));
}

static void hist_line(json_object *o, const char *key, const char *label, const char *unit)
{
	json_object *h = json_object_object_get(o, key);
	int64_t count, sum;

	if (!h || json_object_is_type(h, json_type_null))
		return;
	count = json_object_get_int64(json_object_object_get(h, "count"));
	sum = json_object_get_int64(json_object_object_get(h, "sum"));
	printf("    %-22s %12" PRId64 "   avg %" PRId64 " %s\n", label, count,
	       count ? sum / count : 0, unit);
}

static void render_stats(json_object *doc)
{
	json_object *ifaces = json_object_object_get(doc, "interfaces");
	size_t i, n = json_object_array_length(ifaces);

	if (!n)
		printf("no managed interfaces (see rtltune status)\n");
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(ifaces, i);
		json_object *drops = json_object_object_get(o, "drops");
		bool h1, h2, h3;
		int64_t busy = num(o, "tx_busy", &h1), to = num(o, "tx_timeouts", &h2),
			rt = num(o, "tcp_retransmits", &h3);

		printf("%s (%s, %s)\n", json_object_get_string(json_object_object_get(o, "ifname")),
		       json_object_get_string(json_object_object_get(o, "driver")) ?: "-",
		       json_object_get_string(json_object_object_get(o, "source")));
		line(o, "tx", "tx_packets", "tx_bytes");
		line(o, "rx", "rx_packets", "rx_bytes");
		if (h1 || h2 || h3)
			printf("    tx busy %" PRId64 ", tx timeouts %" PRId64
			       ", tcp retransmits %" PRId64 "\n",
			       busy, to, rt);
		hist_line(o, "tx_skb_bytes", "tx skbs", "bytes");
		hist_line(o, "tx_gso_size_bytes", "tx gso skbs (gso_size)", "bytes");
		hist_line(o, "tx_gso_segments", "tx gso segments", "per skb");
		hist_line(o, "rx_frame_bytes", "rx frames (driver)", "bytes");
		hist_line(o, "rx_skb_bytes", "rx skbs (after GRO)", "bytes");
		if (drops && json_object_object_length(drops)) {
			bool first = true;

			printf("    drops:");
			json_object_object_foreach(drops, reason, cnt)
			{
				printf("%s %s %" PRId64, first ? "" : ",", reason,
				       json_object_get_int64(cnt));
				first = false;
			}
			printf("\n");
		}
	}
}

struct stats_opts {
	double watch;
};

static const struct cli_option stats_options[] = {
	CLI_SECONDS(struct stats_opts, watch, "watch", 'w', "SECONDS", 0.1, 86400,
		    "repeat every SECONDS until Ctrl-C"),
	CLI_OPTIONS_END,
};

static int cmd_stats(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct stats_opts *o = ctx->opts;
	const char *iface = argc > 1 ? argv[1] : NULL;
	struct ctl_conn *conn = NULL;
	struct rterr err = {0};
	json_object *req, *result;
	double watch = o->watch;
	int r, code = EXIT_OK;
	req = control_request_new("stats");
	if (iface)
		json_object_object_add(req, "iface", json_object_new_string(iface));
	r = ctl_open(ctx->socket_path, &conn, &err);
	if (r < 0) {
		json_object_put(req);
		return cli_fail(ctx, &err);
	}
	signal(SIGINT, on_sigint);
	do {
		r = ctl_request(conn, req, &result, &err);
		if (r < 0) {
			code = cli_fail(ctx, &err);
			break;
		}
		if (watch && !ctx->json)
			cli_term_raw("\033[H\033[2J"); /* clear, as watch(1) does */
		cli_emit(ctx, result, render_stats, EXIT_OK);
		if (watch) {
			struct timespec ts = {
				.tv_sec = (time_t)watch,
				.tv_nsec = (long)((watch - (double)(time_t)watch) * 1e9)};

			nanosleep(&ts, NULL);
		}
	} while (watch && !interrupted);
	json_object_put(req);
	ctl_close(conn);
	return code;
}

CLI_COMMAND(stats, .name = "stats", .args = "[IFACE]",
	    .help = "counters, rates and histogram summaries from the daemon",
	    .example = "stats eth0 --watch 2", .options = stats_options,
	    .opts_size = sizeof(struct stats_opts), .run = cmd_stats);
