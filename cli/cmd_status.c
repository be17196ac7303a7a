// SPDX-License-Identifier: GPL-2.0-only
/* rtltune status [IFACE]: the daemon's state and each interface's, through the socket. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/control_client.h"

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return "-";
	return json_object_get_string(v);
}

static void uptime(double s, char *buf, size_t len)
{
	long t = (long)s;

	if (t >= 86400)
		snprintf(buf, len, "%ldd %ldh", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		snprintf(buf, len, "%ldh %ldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm %lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

/* "pm qos: cpu_dma_latency held at 10 us for fec0", or why it is not. */
static void render_pm_qos(json_object *q)
{
	json_object *who = json_object_object_get(q, "for"), *sys;
	char names[256] = "";
	size_t i, off = 0;

	if (!q)
		return;
	for (i = 0; i < json_object_array_length(who) && off < sizeof(names); i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? ", " : "",
					json_object_get_string(json_object_array_get_idx(who, i)));
	printf("  pm qos:    ");
	if (json_object_get_boolean(json_object_object_get(q, "held"))) {
		printf("cpu_dma_latency held at %s us for %s", str(q, "cpu_dma_latency_us"), names);
		sys = json_object_object_get(q, "system_us");
		if (sys && json_object_get_int(sys) < json_object_get_int(json_object_object_get(
							      q, "cpu_dma_latency_us")))
			printf(" (system-wide %s us: another request is lower)",
			       str(q, "system_us"));
	} else if (strcmp(str(q, "error"), "-") != 0) {
		printf("not held: %s (wanted %s us for %s)", str(q, "error"), str(q, "wanted_us"),
		       names);
	} else if (strcmp(str(q, "setting"), "off") == 0) {
		printf("not held (cpu_dma_latency = off)%s%s", names[0] ? "; shallow-idle: " : "",
		       names);
	} else {
		printf("not held (no managed interface needs shallow idle)");
	}
	printf("\n");
}

/* A count in 1000s ("230.1M"), as rtltune stats prints them. */
static const char *human(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = {"", "k", "M", "G", "T"};
	double d = (double)v;
	unsigned int u = 0;

	while (d >= 1000 && u < 4) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", d, units[u]);
	return buf;
}

/* "  host:      net.core.netdev_max_backlog 64, ...; tuner baseline (8/8)": the host-wide
 * knobs where this daemon reads them, and its tuner on them; nothing elsewhere (the JSON's
 * host.tuner.why says why). */
static void render_host_tuning(json_object *h)
{
	json_object *knobs = json_object_object_get(h, "knobs");
	json_object *tuner = json_object_object_get(h, "tuner"), *trial;
	bool first = true;

	if (!knobs)
		return;
	json_object_object_foreach(knobs, name, val)
	{
		if (json_object_is_type(val, json_type_null))
			continue;
		printf("%s%s %" PRId64, first ? "  host:      " : ", ", name,
		       json_object_get_int64(val));
		first = false;
	}
	if (first)
		return;
	if (tuner && strcmp(str(tuner, "state"), "off") != 0) {
		trial = json_object_object_get(tuner, "trial");
		printf("; tuner %s", str(tuner, "state"));
		if (trial && !json_object_is_type(trial, json_type_null))
			printf(" (trial: %s)", str(trial, "reason"));
	} else if (tuner) {
		printf("; not tuned (%s)", str(tuner, "why"));
	}
	printf("\n");
}

/* "  softnet:   processed 230.1M, dropped 0, ...": the host's sums since boot, the busiest
 * CPU's softirq share (docs/signals.md); a flow limit that never dropped is left out. */
static void render_host(json_object *h)
{
	json_object *sn = json_object_object_get(h, "softnet");
	json_object *busiest = json_object_object_get(h, "busiest_softirq");
	json_object *drops = json_object_object_get(h, "drops");
	json_object *miss = json_object_object_get(h, "missing");
	bool first = true;
	char num[16];

	if (!h)
		return;
	if (sn && json_object_object_length(sn)) {
		printf("  softnet:   ");
		json_object_object_foreach(sn, key, val)
		{
			if (json_object_is_type(val, json_type_null) ||
			    (!strcmp(key, "flow_limit") && !json_object_get_int64(val)))
				continue;
			printf("%s%s %s", first ? "" : ", ", key,
			       human((uint64_t)json_object_get_int64(val), num, sizeof(num)));
			first = false;
		}
		if (busiest && !json_object_is_type(busiest, json_type_null))
			printf("; softirq max %.1f%% (cpu%s)",
			       100 * json_object_get_double(
					     json_object_object_get(busiest, "share")),
			       str(busiest, "cpu"));
		printf("\n");
	}
	render_host_tuning(h);
	if (drops && json_object_object_length(drops)) {
		first = true;
		printf("  cpu drops:");
		json_object_object_foreach(drops, reason, cnt)
		{
			printf("%s %s %" PRId64, first ? "" : ",", reason,
			       json_object_get_int64(cnt));
			first = false;
		}
		printf(" (managed interfaces)\n");
	}
	if (!miss)
		return;
	json_object_object_foreach(miss, what, why)
	{
		printf("  no %s:%*s%s\n", what, (int)(8 - strlen(what)), "",
		       json_object_get_string(why));
	}
}

static void render_status(json_object *doc)
{
	json_object *d = json_object_object_get(doc, "daemon");
	json_object *journal = json_object_object_get(doc, "journal");
	json_object *ifaces = json_object_object_get(doc, "interfaces");
	json_object *probes = json_object_object_get(d, "probes");
	size_t i, n = json_object_array_length(probes), attached = 0, off = 0;
	char up[32];
	bool first;

	for (i = 0; i < n; i++) {
		const char *state = str(json_object_array_get_idx(probes, i), "state");

		attached += strcmp(state, "attached") == 0;
		off += strcmp(state, "off") == 0;
	}
	uptime(json_object_get_double(json_object_object_get(d, "uptime_seconds")), up, sizeof(up));
	printf("rtltuned %s, pid %s, up %s\n", str(d, "version"), str(d, "pid"), up);
	printf("  profile:   %s%s\n", str(d, "profile"),
	       json_object_get_boolean(json_object_object_get(d, "profile_loaded")) ||
			       !strcmp(str(d, "profile"), "-")
		       ? ""
		       : " (not loaded: see rtltune log)");
	printf("  counting:  %s",
	       strcmp(str(d, "source"), "bpf") == 0 ? "BPF probes" : "link counters (netlink)");
	if (n)
		printf(", %zu of %zu probes attached", attached, n - off);
	if (off)
		printf(" (%zu off)", off);
	printf("\n");
	if (strcmp(str(d, "bpf_error"), "-") != 0)
		printf("  bpf:       %s\n", str(d, "bpf_error"));
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(probes, i);

		if (strcmp(str(p, "state"), "missing") == 0)
			printf("  missing:   %s: %s\n", str(p, "name"), str(p, "reason"));
	}
	printf("  config:    %s\n", str(d, "config"));
	printf("  socket:    %s (group %s)\n", str(d, "socket"), str(d, "socket_group"));
	printf("  metrics:   %s\n", str(d, "metrics"));
	render_pm_qos(json_object_object_get(d, "pm_qos"));
	if (strcmp(str(d, "last_reload_error"), "-") != 0)
		printf("  reload:    FAILED: %s\n", str(d, "last_reload_error"));
	/* Older daemons have no verdict to show. */
	if (journal && strcmp(str(journal, "state"), "ok") == 0)
		printf("  journal:   %s\n", str(journal, "file"));
	else if (journal)
		printf("  journal:   UNTRUSTED, changing nothing: %s\n", str(journal, "reason"));
	render_host(json_object_object_get(doc, "host"));

	n = json_object_array_length(ifaces);
	if (!n) {
		printf("\nno interfaces\n");
		return;
	}
	printf("\n%-16s %-8s %-10s %-14s %-8s %-9s %-12s %s\n", "INTERFACE", "STATE", "DRIVER",
	       "CHIP", "MANAGED", "AUTOTUNE", "TUNER", "APPLIED");
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(ifaces, i);
		json_object *ap = json_object_object_get(f, "applied");
		json_object *tuner = json_object_object_get(f, "tuner");
		bool managed = json_object_get_boolean(json_object_object_get(f, "managed"));
		json_object *upper = json_object_object_get(f, "upper_of");
		char applied[400], mgd[48];

		if (ap && !json_object_is_type(ap, json_type_null)) {
			bool ok = json_object_get_boolean(json_object_object_get(ap, "ok"));

			snprintf(applied, sizeof(applied), "%s: %s", str(ap, "profile"),
				 ok ? "ok" : str(ap, "error"));
		} else {
			snprintf(applied, sizeof(applied), "%s",
				 managed || upper ? "-" : str(f, "why"));
		}
		/* An upper is managed with the interfaces it carries (docs/stack.md). */
		if (upper)
			snprintf(mgd, sizeof(mgd), "upper of %s", json_object_get_string(upper));
		else
			snprintf(mgd, sizeof(mgd), "%s", managed ? "yes" : "no");
		printf("%-16s %-8s %-10s %-14s %-8s %-9s %-12s %s\n", str(f, "ifname"),
		       str(f, "operstate"), str(f, "driver"), str(f, "chip"), mgd,
		       json_object_get_boolean(json_object_object_get(f, "autotune")) ? "on"
										      : "off",
		       tuner && !json_object_is_type(tuner, json_type_null) ? str(tuner, "state")
									    : "-",
		       applied);
	}
	/* Knobs changed outside rtltune, which it leaves alone (docs/daemon.md). */
	for (i = 0, first = true; i < n; i++) {
		json_object *f = json_object_array_get_idx(ifaces, i);
		json_object *man = json_object_object_get(f, "manual");
		size_t k, m = man ? json_object_array_length(man) : 0;

		if (!m)
			continue;
		printf("%s%s: manual (changed outside rtltune, left alone until autotune on or "
		       "apply):",
		       first ? "\n" : "", str(f, "ifname"));
		first = false;
		for (k = 0; k < m; k++)
			printf("%s %s", k ? "," : "",
			       json_object_get_string(json_object_array_get_idx(man, k)));
		printf("\n");
	}
	/* The driver's queue counters that show trouble, and the threaded NAPIs' CPU. */
	for (i = 0, first = true; i < n; i++) {
		json_object *f = json_object_array_get_idx(ifaces, i);
		json_object *q = json_object_object_get(f, "qstats");
		int threads = json_object_get_int(json_object_object_get(f, "napi_threads"));
		bool any = false;

		if ((!q || json_object_is_type(q, json_type_null)) && !threads)
			continue;
		printf("%s%s:", first ? "\n" : "", str(f, "ifname"));
		first = false;
		if (q && !json_object_is_type(q, json_type_null)) {
			printf(" qstats");
			json_object_object_foreach(q, key, val)
			{
				printf("%s %s %" PRId64, any ? "," : "", key,
				       json_object_get_int64(val));
				any = true;
			}
			if (!any)
				printf(" (packets and bytes only)");
		}
		if (threads)
			printf("%s%d threaded NAPI%s at %.1f%% of a CPU",
			       q && !json_object_is_type(q, json_type_null) ? "; " : " ", threads,
			       threads > 1 ? "s" : "",
			       100 * json_object_get_double(
					     json_object_object_get(f, "napi_threads_cpu_share")));
		printf("\n");
	}
}

static int cmd_status(struct cli_ctx *ctx, int argc, char **argv)
{
	json_object *req, *result;
	struct rterr err = {0};
	int r;

	req = control_request_new("status");
	if (argc == 2)
		json_object_object_add(req, "iface", json_object_new_string(argv[1]));
	r = ctl_call(ctx->socket_path, req, &result, &err);
	json_object_put(req);
	if (r < 0)
		return cli_fail(ctx, &err);
	return cli_emit(ctx, result, render_status, EXIT_OK);
}

CLI_COMMAND(status, .name = "status", .args = "[IFACE]",
	    .help = "the daemon's state and its interfaces", .example = "status",
	    .run = cmd_status);
