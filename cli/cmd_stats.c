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

/* The driver's queue statistics: the device's, then a line per queue; "-" never: a
 * device without them has no line at all. */
static void qstats_lines(json_object *o)
{
	json_object *q = json_object_object_get(o, "qstats");
	json_object *queues = json_object_object_get(o, "qstats_queues");
	json_object *rates = json_object_object_get(json_object_object_get(o, "rates"), "qstats");
	size_t i, n = queues ? json_object_array_length(queues) : 0;
	char a[16], b[16];
	int col;

	if (!q || json_object_is_type(q, json_type_null))
		return;
	printf("    qstats:");
	col = 11;
	json_object_object_foreach(q, key, val)
	{
		json_object *r = rates ? json_object_object_get(rates, key) : NULL;
		char item[96];
		int len;

		len = snprintf(item, sizeof(item), " %s %s", key,
			       human((double)json_object_get_int64(val), a, sizeof(a)));
		if (r)
			len += snprintf(item + len, sizeof(item) - (size_t)len, " (%s/s)",
					human(json_object_get_double(r), b, sizeof(b)));
		if (col + len > 96) {
			printf("\n           ");
			col = 11;
		}
		printf("%s", item);
		col += len;
	}
	printf("\n");
	for (i = 0; i < n; i++) {
		json_object *qq = json_object_array_get_idx(queues, i);

		printf("      %s-%" PRId64 ":",
		       json_object_get_string(json_object_object_get(qq, "type")),
		       json_object_get_int64(json_object_object_get(qq, "queue")));
		json_object_object_foreach(qq, qkey, qval)
		{
			if (!strcmp(qkey, "type") || !strcmp(qkey, "queue"))
				continue;
			printf(" %s %s", qkey,
			       human((double)json_object_get_int64(qval), a, sizeof(a)));
		}
		printf("\n");
	}
}

static void napi_lines(json_object *o)
{
	json_object *t = json_object_object_get(o, "napi_threads");
	size_t i, n = t ? json_object_array_length(t) : 0;

	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(t, i);

		printf("    napi %" PRId64 " thread (pid %" PRId64
		       "): %.1f%% of a CPU, %.2f s in all\n",
		       json_object_get_int64(json_object_object_get(x, "napi")),
		       json_object_get_int64(json_object_object_get(x, "pid")),
		       100 * json_object_get_double(json_object_object_get(x, "cpu_share")),
		       json_object_get_double(json_object_object_get(x, "cpu_seconds")));
	}
}

static double cpu_rate(json_object *c, const char *key)
{
	json_object *r = json_object_object_get(c, "rates"), *v;

	return r && json_object_object_get_ex(r, key, &v) && !json_object_is_type(v, json_type_null)
		       ? json_object_get_double(v)
		       : -1;
}

/* A rate, or "-" where the kernel has no such counter. */
static const char *rate_str(double v, char *buf, size_t len)
{
	if (v < 0)
		return "-";
	return human(v, buf, len);
}

/* Per CPU, host-wide: softnet_stat, softirq time, the probes' drops. */
static void cpu_table(json_object *doc)
{
	json_object *cpus = json_object_object_get(doc, "cpus");
	size_t i, n = cpus ? json_object_array_length(cpus) : 0;
	char a[16], b[16], c[16], d[16], e[16];

	if (!n)
		return;
	printf("\n%-4s %12s %10s %10s %10s %8s  %s\n", "CPU", "processed/s", "dropped/s",
	       "squeeze/s", "rps/s", "softirq", "drops (managed interfaces)");
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(cpus, i);
		json_object *drops = json_object_object_get(x, "drops");
		json_object *drate =
			json_object_object_get(json_object_object_get(x, "rates"), "drops");
		double si = cpu_rate(x, "softirq_seconds");
		bool first = true;

		printf("%-4" PRId64 " %12s %10s %10s %10s ",
		       json_object_get_int64(json_object_object_get(x, "cpu")),
		       rate_str(cpu_rate(x, "softnet_processed"), a, sizeof(a)),
		       rate_str(cpu_rate(x, "softnet_dropped"), b, sizeof(b)),
		       rate_str(cpu_rate(x, "softnet_time_squeeze"), c, sizeof(c)),
		       rate_str(cpu_rate(x, "softnet_received_rps"), d, sizeof(d)));
		if (si < 0)
			printf("%8s ", "-");
		else
			printf("%7.1f%% ", 100 * si);
		json_object_object_foreach(drops, reason, cnt)
		{
			json_object *r = drate ? json_object_object_get(drate, reason) : NULL;

			printf("%s %s %s", first ? "" : ",", reason,
			       human((double)json_object_get_int64(cnt), e, sizeof(e)));
			if (r)
				printf(" (%s/s)", human(json_object_get_double(r), e, sizeof(e)));
			first = false;
		}
		printf("%s\n", first ? " -" : "");
	}
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
		qstats_lines(o);
		napi_lines(o);
	}
	cpu_table(doc);
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
