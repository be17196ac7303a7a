// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune trace [IFACE...] [--seconds N] [--xdp] [--stats] [--exact]: attach the probes,
 * count for N seconds or until SIGINT/SIGTERM, detach, then print per-interface counters
 * and BCC-style histograms. No daemon needed. Histograms are sampled above the threshold
 * of docs/probes.md unless --exact; "sampling" in the JSON says which ones were. IFACE is a name in
 * the current network namespace, or NETNS/IFACE for one in a named namespace (ip netns); no IFACE
 * means every interface of the current namespace plus the host-wide counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/hist.h"
#include "rtltune/probes.h"

struct trace_iface {
	char ifname[IF_NAMESIZE];
	const char *netns; /* ip netns name, NULL for the current namespace */
	int ifindex;
	int slot;
};

struct trace {
	struct trace_iface *ifaces;
	unsigned int n;
	bool host;
	double seconds; /* <= 0: until a signal */
	struct probes_opts opts;
};

/* Run fn inside netns `name` (NULL: here) and come back; the caller's thread only. */
static int in_netns(const char *name, int (*fn)(struct trace_iface *, void *),
		    struct trace_iface *ti, void *arg, struct rterr *err)
{
	char path[PATH_MAX];
	int self, target, ret, back;

	if (!name)
		return fn(ti, arg);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return errno == ENOENT
			       ? rterr_input(err, "no network namespace %s (%s)", name, path)
			       : rterr_sys(err, errno, "%s", path);
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		ret = rterr_sys(err, errno, "/proc/thread-self/ns/net");
		close(target);
		return ret;
	}
	if (setns(target, CLONE_NEWNET) != 0) {
		ret = rterr_sys(err, errno, "entering network namespace %s", name);
		goto out;
	}
	ret = fn(ti, arg);
	back = setns(self, CLONE_NEWNET);
	if (back != 0 && !ret)
		ret = rterr_sys(err, errno, "returning from network namespace %s", name);
out:
	close(self);
	close(target);
	return ret;
}

static int resolve_one(struct trace_iface *ti, void *arg)
{
	struct rterr *err = arg;

	ti->ifindex = (int)if_nametoindex(ti->ifname);
	if (!ti->ifindex)
		return rterr_input(err, "no such interface: %s%s%s", ti->netns ?: "",
				   ti->netns ? "/" : "", ti->ifname);
	return 0;
}

struct select_arg {
	struct probes *probes;
	struct rterr *err;
};

static int select_one(struct trace_iface *ti, void *arg)
{
	struct select_arg *sa = arg;
	int slot = probes_select(sa->probes, ti->ifindex, sa->err);

	if (slot < 0)
		return slot;
	ti->slot = slot;
	return 0;
}

static void free_nameindex(struct if_nameindex *all)
{
	if (all)
		if_freenameindex(all);
}

static int parse_ifaces(struct trace *t, int argc, char **argv, struct rterr *err)
{
	struct if_nameindex *all = NULL, *it;
	unsigned int i;
	int ret;

	if (argc == 0) {
		all = if_nameindex();
		if (!all)
			return rterr_sys(err, errno, "listing interfaces");
		for (it = all; it->if_index; it++)
			argc++;
		t->host = true;
	}
	t->ifaces = calloc((size_t)argc + 1, sizeof(*t->ifaces));
	if (!t->ifaces) {
		free_nameindex(all);
		return rterr_sys(err, ENOMEM, "interfaces");
	}
	for (i = 0; i < (unsigned int)argc; i++) {
		struct trace_iface *ti = &t->ifaces[t->n];
		const char *arg = all ? all[i].if_name : argv[i];
		const char *slash = strchr(arg, '/');
		unsigned int j;

		if (slash) {
			ti->netns = strndup(arg, (size_t)(slash - arg));
			arg = slash + 1;
		}
		if (!*arg || strlen(arg) >= IF_NAMESIZE) {
			free_nameindex(all);
			return rterr_input(err, "bad interface name '%s'", argv[i]);
		}
		snprintf(ti->ifname, sizeof(ti->ifname), "%s", arg);
		ret = in_netns(ti->netns, resolve_one, ti, err, err);
		if (ret) {
			free_nameindex(all);
			return ret;
		}
		for (j = 0; j < t->n; j++)
			if (t->ifaces[j].ifindex == ti->ifindex &&
			    !strcmp(t->ifaces[j].netns ?: "", ti->netns ?: ""))
				break;
		if (j == t->n)
			t->n++; /* the same interface twice counts once */
	}
	free_nameindex(all);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Count until the time is up or SIGINT/SIGTERM arrives (blocked, so none is lost). */
static void wait_for_end(const sigset_t *sigs, double seconds)
{
	struct timespec ts;
	double end = now_s() + seconds, left;

	for (;;) {
		if (seconds <= 0) {
			if (sigwaitinfo(sigs, NULL) > 0)
				return;
			continue;
		}
		left = end - now_s();
		if (left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (sigtimedwait(sigs, NULL, &ts) > 0)
			return;
		if (errno != EAGAIN && errno != EINTR)
			return;
	}
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

static json_object *drops_json(const struct probes *p, const struct probe_counters *c)
{
	json_object *o = json_object_new_object();
	uint64_t listed = 0;
	unsigned int i;
	char name[64];

	for (i = 0; i < c->n_drop_reasons; i++) {
		probes_drop_reason_name(p, c->drop_reasons[i].reason, name, sizeof(name));
		add_u64(o, name, c->drop_reasons[i].count);
		listed += c->drop_reasons[i].count;
	}
	/* More distinct reasons than the reader keeps, or the reason map was full. */
	if (c->drops > listed)
		add_u64(o, "other", c->drops - listed);
	return o;
}

static const char *const hist_names[PROBE_HIST_COUNT] = {
	[PROBE_HIST_TX_SKB_BYTES] = "tx_skb_bytes",
	[PROBE_HIST_TX_GSO_SIZE_BYTES] = "tx_gso_size_bytes",
	[PROBE_HIST_TX_GSO_SEGMENTS] = "tx_gso_segments",
	[PROBE_HIST_RX_FRAME_BYTES] = "rx_frame_bytes",
	[PROBE_HIST_RX_SKB_BYTES] = "rx_skb_bytes",
	[PROBE_HIST_RX_XDP_FRAME_BYTES] = "rx_xdp_frame_bytes",
};

/*
 * Per histogram: the events that went into a bucket and the largest mean gap between
 * them. samples == count: exact; otherwise an estimate (docs/probes.md "Sampling").
 */
static json_object *sampling_json(const struct probe_counters *c, const struct rtl_hist *const *h,
				  bool xdp)
{
	json_object *o = json_object_new_object();
	unsigned int i;

	for (i = 0; i < PROBE_HIST_COUNT; i++) {
		json_object *f;

		if (i == PROBE_HIST_RX_XDP_FRAME_BYTES && !xdp)
			continue;
		f = json_object_new_object();
		add_u64(f, "samples", c->sampling[i].samples);
		json_object_object_add(f, "max_gap",
				       json_object_new_double(c->sampling[i].max_gap));
		json_object_object_add(
			f, "exact",
			json_object_new_boolean(c->sampling[i].samples == hist_count(h[i])));
		json_object_object_add(o, hist_names[i], f);
	}
	return o;
}

/* The SPEC's per-interface families, without the metric prefix and suffix. */
static void counters_json(json_object *o, const struct probes *p, const struct probe_counters *c,
			  bool xdp)
{
	add_u64(o, "tx_packets", hist_count(&c->tx_skb_bytes));
	add_u64(o, "tx_bytes", c->tx_skb_bytes.sum);
	add_u64(o, "tx_gso_packets", hist_count(&c->tx_gso_segments));
	add_u64(o, "tx_gso_bytes", c->tx_gso_bytes);
	json_object_object_add(o, "tx_skb_bytes", hist_to_json(&c->tx_skb_bytes));
	json_object_object_add(o, "tx_gso_size_bytes", hist_to_json(&c->tx_gso_size_bytes));
	json_object_object_add(o, "tx_gso_segments", hist_to_json(&c->tx_gso_segments));
	add_u64(o, "tx_busy", c->tx_busy);
	add_u64(o, "tx_timeouts", c->tx_timeouts);
	add_u64(o, "rx_packets", hist_count(&c->rx_frame_bytes));
	add_u64(o, "rx_bytes", c->rx_frame_bytes.sum);
	json_object_object_add(o, "rx_frame_bytes", hist_to_json(&c->rx_frame_bytes));
	json_object_object_add(o, "rx_skb_bytes", hist_to_json(&c->rx_skb_bytes));
	if (xdp)
		json_object_object_add(o, "rx_xdp_frame_bytes",
				       hist_to_json(&c->rx_xdp_frame_bytes));
	add_u64(o, "napi_polls", c->napi_polls);
	add_u64(o, "napi_budget_exhausted", c->napi_budget_exhausted);
	json_object_object_add(o, "drops", drops_json(p, c));
	add_u64(o, "tcp_retransmits", c->tcp_retransmits);
	add_u64(o, "tcp_retransmit_segments", c->tcp_retransmit_segments);
	{
		const struct rtl_hist *h[PROBE_HIST_COUNT] = {
			&c->tx_skb_bytes,   &c->tx_gso_size_bytes, &c->tx_gso_segments,
			&c->rx_frame_bytes, &c->rx_skb_bytes,	   &c->rx_xdp_frame_bytes,
		};

		json_object_object_add(o, "sampling", sampling_json(c, h, xdp));
	}
}

static json_object *ns_per_run(const struct probe_cost *c)
{
	if (!c->run_count)
		return NULL;
	return json_object_new_double(round((double)c->run_time_ns / (double)c->run_count * 10) /
				      10);
}

static void add_cost(json_object *o, const struct probe_cost *c)
{
	add_u64(o, "run_count", c->run_count);
	add_u64(o, "run_time_ns", c->run_time_ns);
	add_u64(o, "recursion_misses", c->recursion_misses);
	json_object_object_add(o, "ns_per_run", ns_per_run(c));
}

static json_object *probes_json(struct probes *p, bool stats)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_status *st = probes_status(p, i);
		json_object *o = json_object_new_object();
		struct probe_cost cost;

		json_object_object_add(o, "name", json_object_new_string(st->name));
		json_object_object_add(o, "state",
				       json_object_new_string(probe_state_name(st->state)));
		json_object_object_add(o, "hook",
				       st->hook == PROBE_HOOK_NONE
					       ? NULL
					       : json_object_new_string(probe_hook_name(st->hook)));
		json_object_object_add(o, "reason", cli_json_str(st->reason));
		if (stats && probes_cost(p, i, &cost, NULL) == 0 && st->state == PROBE_ATTACHED)
			add_cost(o, &cost);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* cli_text_kv()'s column is too narrow for napi_budget_exhausted. */
static void kv(const char *label, json_object *val)
{
	char buf[64];

	printf("    %-24s %s\n", label, cli_text_value(val, buf, sizeof(buf)));
}

static void render_hist(json_object *o, const char *family, const char *unit)
{
	json_object *smp = get(get(get(o, "sampling"), family), "exact");
	struct rtl_hist h;
	char *text;

	if (hist_from_json(get(o, family), &h) != 0 || !hist_count(&h))
		return;
	printf("  %s (count %" PRIu64 ", sum %" PRIu64 "%s)\n", family, hist_count(&h), h.sum,
	       smp && !json_object_get_boolean(smp) ? "; buckets estimated from a sample" : "");
	text = hist_render(&h, unit, 2);
	if (text)
		fputs(text, stdout);
	free(text);
}

static void render_counters(json_object *o)
{
	static const char *const scalars[] = {
		"tx_packets",	   "tx_bytes",
		"tx_gso_packets",  "tx_gso_bytes",
		"tx_busy",	   "tx_timeouts",
		"rx_packets",	   "rx_bytes",
		"napi_polls",	   "napi_budget_exhausted",
		"tcp_retransmits", "tcp_retransmit_segments",
	};
	json_object *drops = get(o, "drops");
	unsigned int i;

	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		kv(scalars[i], get(o, scalars[i]));
	printf("    %-24s", "drops");
	if (!drops || !json_object_object_length(drops))
		printf(" 0");
	json_object_object_foreach(drops, reason, n)
	{
		printf(" %s=%s", reason, json_object_get_string(n));
	}
	printf("\n");
	render_hist(o, "tx_skb_bytes", "bytes");
	render_hist(o, "tx_gso_size_bytes", "bytes");
	render_hist(o, "tx_gso_segments", "segments");
	render_hist(o, "rx_frame_bytes", "bytes");
	render_hist(o, "rx_skb_bytes", "bytes");
	render_hist(o, "rx_xdp_frame_bytes", "bytes");
}

static void render_trace(json_object *doc)
{
	json_object *ifaces = get(doc, "interfaces"), *probes = get(doc, "probes");
	json_object *host = get(doc, "host");
	size_t i;

	printf("Traced %.1f s\n", json_object_get_double(get(doc, "seconds")));
	for (i = 0; i < json_object_array_length(ifaces); i++) {
		json_object *o = json_object_array_get_idx(ifaces, i);
		json_object *ns = get(o, "netns");

		printf("\n%s%s%s (ifindex %d)\n", ns ? json_object_get_string(ns) : "",
		       ns ? "/" : "", json_object_get_string(get(o, "ifname")),
		       json_object_get_int(get(o, "ifindex")));
		render_counters(o);
	}
	if (host) {
		printf("\nhost (events without a device)\n");
		kv("napi_polls", get(host, "napi_polls"));
		kv("napi_budget_exhausted", get(host, "napi_budget_exhausted"));
		kv("tcp_retransmits", get(host, "tcp_retransmits"));
		printf("    %-24s", "drops");
		json_object_object_foreach(get(host, "drops"), reason, n)
		{
			printf(" %s=%s", reason, json_object_get_string(n));
		}
		printf("\n");
	}
	printf("\nProbes:\n");
	for (i = 0; i < json_object_array_length(probes); i++) {
		json_object *o = json_object_array_get_idx(probes, i);
		json_object *runs = get(o, "run_count"), *ns = get(o, "ns_per_run");
		char a[64];

		printf("    %-30s %-9s %-11s", json_object_get_string(get(o, "name")),
		       json_object_get_string(get(o, "state")),
		       cli_text_value(get(o, "hook"), a, sizeof(a)));
		if (runs)
			printf(" %12s runs %8s ns/run", json_object_get_string(runs),
			       cli_text_value(ns, a, sizeof(a)));
		if (get(o, "reason"))
			printf(" %s", json_object_get_string(get(o, "reason")));
		printf("\n");
	}
	if (get(doc, "stats_floor") && get(get(doc, "stats_floor"), "ns_per_run"))
		printf("    (an empty program costs %s ns/run here: stats and call overhead)\n",
		       json_object_get_string(get(get(doc, "stats_floor"), "ns_per_run")));
	printf("\nBPF memory: maps %s bytes, programs %s bytes\n",
	       json_object_get_string(get(doc, "map_memory_bytes")),
	       json_object_get_string(get(doc, "prog_memory_bytes")));
}

static void trace_free(struct trace *t)
{
	unsigned int i;

	for (i = 0; t->ifaces && i < t->n; i++)
		free((char *)t->ifaces[i].netns);
	free(t->ifaces);
}

static int collect(struct cli_ctx *ctx, struct trace *t, struct probes *p, double seconds,
		   json_object **out, struct rterr *err)
{
	json_object *doc = json_object_new_object(), *ifaces = json_object_new_array();
	struct probe_counters *c = malloc(sizeof(*c));
	uint64_t map_bytes = 0, prog_bytes = 0;
	unsigned int i;
	int ret = 0;

	if (!c) {
		json_object_put(doc);
		json_object_put(ifaces);
		return rterr_sys(err, ENOMEM, "counters");
	}
	json_object_object_add(doc, "seconds",
			       json_object_new_double(round(seconds * 1000) / 1000));
	for (i = 0; i < t->n && !ret; i++) {
		struct trace_iface *ti = &t->ifaces[i];
		json_object *row;

		ret = probes_read(p, ti->slot, c, err);
		if (ret)
			break;
		row = json_object_new_object();
		json_object_object_add(row, "ifname", json_object_new_string(ti->ifname));
		json_object_object_add(row, "netns", cli_json_str(ti->netns));
		json_object_object_add(row, "ifindex", json_object_new_int(ti->ifindex));
		counters_json(row, p, c, t->opts.xdp);
		json_object_array_add(ifaces, row);
	}
	json_object_object_add(doc, "interfaces", ifaces);
	if (!ret && t->host) {
		json_object *host = json_object_new_object();

		ret = probes_read(p, 0, c, err);
		if (!ret) {
			add_u64(host, "napi_polls", c->napi_polls);
			add_u64(host, "napi_budget_exhausted", c->napi_budget_exhausted);
			add_u64(host, "tcp_retransmits", c->tcp_retransmits);
			add_u64(host, "tcp_retransmit_segments", c->tcp_retransmit_segments);
			json_object_object_add(host, "drops", drops_json(p, c));
		}
		json_object_object_add(doc, "host", host);
	}
	if (!ret) {
		json_object_object_add(doc, "probes", probes_json(p, t->opts.run_stats));
		if (t->opts.run_stats) {
			/* An empty program's cost: the part of every ns_per_run that is the
			 * stats' and the call's, not the probe's. */
			struct probe_cost floor;
			json_object *o = json_object_new_object();

			if (probes_cost_floor(p, &floor, NULL) == 0)
				add_cost(o, &floor);
			json_object_object_add(doc, "stats_floor", o);
		}
		ret = probes_memory(p, &map_bytes, &prog_bytes, err);
		add_u64(doc, "map_memory_bytes", map_bytes);
		add_u64(doc, "prog_memory_bytes", prog_bytes);
	}
	free(c);
	if (ret) {
		json_object_put(doc);
		return ret;
	}
	*out = doc;
	(void)ctx;
	return 0;
}

struct trace_opts {
	double seconds;
	bool xdp, stats, exact;
	long long max_ifaces;
};

static const struct cli_option trace_options[] = {
	CLI_SECONDS(struct trace_opts, seconds, "seconds", 0, "N", 0.001, 86400.0 * 365,
		    "count for N seconds, not until Ctrl-C"),
	CLI_FLAG(struct trace_opts, xdp, "xdp", 0, "also count what XDP programs do"),
	CLI_FLAG(struct trace_opts, stats, "stats", 0, "the probes' own run time and count"),
	CLI_FLAG(struct trace_opts, exact, "exact", 0, "every skb in the histograms, unsampled"),
	CLI_INT(struct trace_opts, max_ifaces, "max-ifaces", 0, "N", 1, PROBES_MAX_IFACES,
		"size the maps for N interfaces (to see the memory of a larger set)"),
	CLI_OPTIONS_END,
};

static int cmd_trace(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct trace_opts *o = ctx->opts;
	struct rterr err = {0};
	struct trace t = {.seconds = o->seconds,
			  .opts = {.xdp = o->xdp, .run_stats = o->stats, .exact = o->exact}};
	struct probes *p = NULL;
	struct select_arg sa;
	json_object *doc = NULL;
	unsigned long max_ifaces = (unsigned long)o->max_ifaces;
	sigset_t sigs, old;
	double start;
	unsigned int i;
	int ret;

	ret = parse_ifaces(&t, argc - 1, argv + 1, &err);
	if (ret)
		goto fail;
	if (t.n > PROBES_MAX_IFACES) {
		ret = rterr_input(&err, "%u interfaces, at most %u can be traced at once", t.n,
				  PROBES_MAX_IFACES);
		goto fail;
	}
	/* Maps sized for what is traced, unless asked (to see the memory of a larger set). */
	t.opts.max_ifaces = max_ifaces > t.n ? (unsigned int)max_ifaces : t.n ? t.n : 1;

	/* Blocked before anything is attached: a Ctrl-C during setup still ends cleanly. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, &old);

	ret = probes_open(&p, &t.opts, &err);
	if (ret)
		goto fail;
	sa.probes = p;
	sa.err = &err;
	for (i = 0; i < t.n; i++) {
		ret = in_netns(t.ifaces[i].netns, select_one, &t.ifaces[i], &sa, &err);
		if (ret)
			goto fail;
	}
	if (t.host && probes_select(p, PROBES_HOST_IFINDEX, &err) < 0) {
		ret = -1;
		goto fail;
	}
	/* Tests wait for this line before sending traffic. */
	if (t.seconds > 0)
		fprintf(stderr,
			"Tracing %u interface%s for %g s (%u probes attached)... Hit Ctrl-C to "
			"end.\n",
			t.n, t.n == 1 ? "" : "s", t.seconds, probes_attached(p));
	else
		fprintf(stderr,
			"Tracing %u interface%s (%u probes attached)... Hit Ctrl-C to end.\n", t.n,
			t.n == 1 ? "" : "s", probes_attached(p));
	start = now_s();
	wait_for_end(&sigs, t.seconds);
	ret = collect(ctx, &t, p, now_s() - start, &doc, &err);
	probes_close(p);
	p = NULL;
	sigprocmask(SIG_SETMASK, &old, NULL);
	trace_free(&t);
	if (ret)
		return cli_fail(ctx, &err);
	return cli_emit(ctx, doc, render_trace, EXIT_OK);
fail:
	probes_close(p);
	trace_free(&t);
	return cli_fail(ctx, &err);
}
CLI_COMMAND(trace, .name = "trace", .args = "[IFACE...]",
	    .help = "attach the probes, count, print counters and histograms, detach",
	    .details =
		    "Without IFACE: every interface of the network namespace, and the host-wide\n"
		    "counters. IFACE may be NETNS/IFACE, an interface of network namespace\n"
		    "NETNS (/run/netns): the probes see every namespace, so one trace can\n"
		    "count interfaces of several (both ends of a veth pair). No daemon needed.",
	    .example = "trace eth0 --seconds 10", .options = trace_options,
	    .opts_size = sizeof(struct trace_opts), .needs = CLI_NEEDS_BPF, .run = cmd_trace);
