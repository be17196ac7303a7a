// SPDX-License-Identifier: GPL-2.0-only
/* /metrics rendering (text format 0.0.4) and the node_exporter textfile. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "bpf.h"
#include "iface.h"
#include "metrics.h"
#include "pmqos.h"
#include "rtltune/hostknob.h"
#include "rtltune/link.h"
#include "rtltune/nic.h"
#include "rtltune/paths.h"
#include "sampler.h"
#include "signals.h"
#include "trust.h"
#include "tune_act.h"

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 65536;
	char *grown;

	while (cap < b->len + need + 1)
		cap *= 2;
	if (cap == b->cap)
		return;
	grown = realloc(b->p, cap);
	if (!grown) {
		b->oom = true;
		return;
	}
	b->p = grown;
	b->cap = cap;
}

static void sb_mem(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_mem(b, s, strlen(s));
}

/* Hand-rolled: a full scrape prints thousands of integers. */
static void sb_u64(struct sbuf *b, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_mem(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

static void sb_i64(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sb_mem(b, "-", 1);
		sb_u64(b, (uint64_t)(-(v + 1)) + 1);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

static void sb_double(struct sbuf *b, double v)
{
	char tmp[40];
	int n = snprintf(tmp, sizeof(tmp), "%.9g", v);

	sb_mem(b, tmp, (size_t)n);
}

/* Label values escape backslash, double quote and newline (format 0.0.4). */
static void sb_label(struct sbuf *b, const char *s)
{
	size_t plain;

	/* Interface names almost never need escaping: copy runs, not characters. */
	while (*s) {
		plain = strcspn(s, "\\\"\n");
		sb_mem(b, s, plain);
		s += plain;
		if (!*s)
			break;
		sb_mem(b, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
		s++;
	}
}

/* HELP text escapes backslash and newline only. */
static void sb_help(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			sb_mem(b, "\\\\", 2);
		else if (*s == '\n')
			sb_mem(b, "\\n", 2);
		else
			sb_mem(b, s, 1);
	}
}

static void family(struct sbuf *b, const char *name, const char *type, const char *help)
{
	sb_str(b, "# HELP ");
	sb_str(b, name);
	sb_mem(b, " ", 1);
	sb_help(b, help);
	sb_str(b, "\n# TYPE ");
	sb_str(b, name);
	sb_mem(b, " ", 1);
	sb_str(b, type);
	sb_mem(b, "\n", 1);
}

/* name{device="X"[,k="v"]} */
/* The namespace of the interface whose series are being rendered (a pod's: its `netns`
 * label, after `device`), NULL for the daemon's own. */
static const char *series_netns;

static void series(struct sbuf *b, const char *name, const char *suffix, const char *device,
		   const char *k1, const char *v1, const char *k2, const char *v2)
{
	bool first = true;

	sb_str(b, name);
	if (suffix)
		sb_str(b, suffix);
	if (device || k1) {
		sb_mem(b, "{", 1);
		if (device) {
			sb_str(b, "device=\"");
			sb_label(b, device);
			sb_mem(b, "\"", 1);
			first = false;
			if (series_netns) {
				sb_str(b, ",netns=\"");
				sb_label(b, series_netns);
				sb_mem(b, "\"", 1);
			}
		}
		if (k1 && v1) {
			if (!first)
				sb_mem(b, ",", 1);
			sb_str(b, k1);
			sb_str(b, "=\"");
			sb_label(b, v1);
			sb_mem(b, "\"", 1);
		}
		if (k2 && v2) {
			sb_mem(b, ",", 1);
			sb_str(b, k2);
			sb_str(b, "=\"");
			sb_label(b, v2);
			sb_mem(b, "\"", 1);
		}
		sb_mem(b, "}", 1);
	}
	sb_mem(b, " ", 1);
}

/* Bucket labels, formatted once: a full scrape prints thousands of them. */
static char le_text[HIST_BUCKETS][24];

static void render_hist(struct sbuf *b, const char *name, const char *device,
			const struct rtl_hist *h)
{
	uint64_t cum = 0;
	unsigned int i;

	if (!le_text[0][0])
		for (i = 0; i < HIST_BUCKETS; i++)
			snprintf(le_text[i], sizeof(le_text[i]), "%" PRIu64, hist_bucket_le(i));
	for (i = 0; i < HIST_BUCKETS; i++) {
		cum += h->buckets[i];
		series(b, name, "_bucket", device, "le", le_text[i], NULL, NULL);
		sb_u64(b, cum);
		sb_mem(b, "\n", 1);
	}
	series(b, name, "_bucket", device, "le", "+Inf", NULL, NULL);
	sb_u64(b, cum);
	sb_mem(b, "\n", 1);
	series(b, name, "_sum", device, NULL, NULL, NULL, NULL);
	sb_u64(b, h->sum);
	sb_mem(b, "\n", 1);
	series(b, name, "_count", device, NULL, NULL, NULL, NULL);
	sb_u64(b, cum);
	sb_mem(b, "\n", 1);
}

/*
 * Rendering is resumable: the text is a sequence of sections (one metric family each, or
 * the fixed head and tail), and a section with one part per interface can stop between two
 * interfaces. A step renders about `slice` bytes, so the HTTP server can build the next
 * text between requests instead of stalling them for the whole 500 KiB.
 */
enum sec_kind {
	SEC_BUILD,
	SEC_INFO,
	SEC_COUNTER,
	SEC_DROPS,
	SEC_HIST,
	SEC_KNOB,
	SEC_DECISIONS,
	SEC_EXTERNAL,
	SEC_DRIFT,
	SEC_QSTATS,
	SEC_QUEUE,
	SEC_NAPI,
	SEC_HOST,
	SEC_TAIL
};

#define SEC_COUNTER0   2
#define SEC_DROPS_IDX  (SEC_COUNTER0 + SC__COUNT)
#define SEC_HIST0      (SEC_DROPS_IDX + 1)
#define SEC_KNOB_IDX   (SEC_HIST0 + SH__COUNT)
#define SEC_DECIDE_IDX (SEC_KNOB_IDX + 1)
#define SEC_EXTERN_IDX (SEC_DECIDE_IDX + 1)
#define SEC_DRIFT_IDX  (SEC_EXTERN_IDX + 1)
#define SEC_QSTATS0    (SEC_DRIFT_IDX + 1)
#define SEC_QUEUE0     (SEC_QSTATS0 + QSTAT_COUNT)
#define SEC_NAPI_IDX   (SEC_QUEUE0 + QSTAT_COUNT)
#define SEC_HOST_IDX   (SEC_NAPI_IDX + 1)
#define SEC_TAIL_IDX   (SEC_HOST_IDX + 1)
#define SEC__COUNT     (SEC_TAIL_IDX + 1)

struct metrics_job {
	struct sbuf b;
	unsigned int sec, i, n;
	bool in_section; /* the section's head is out: its interfaces come next */
	char name[96];
	char help[320];
	struct iface *list[]; /* managed interfaces with a sample, by ifindex */
};

static enum sec_kind sec_kind(unsigned int sec, unsigned int *sub)
{
	*sub = 0;
	if (sec == 0)
		return SEC_BUILD;
	if (sec == 1)
		return SEC_INFO;
	if (sec < SEC_DROPS_IDX) {
		*sub = sec - SEC_COUNTER0;
		return SEC_COUNTER;
	}
	if (sec == SEC_DROPS_IDX)
		return SEC_DROPS;
	if (sec < SEC_KNOB_IDX) {
		*sub = sec - SEC_HIST0;
		return SEC_HIST;
	}
	if (sec == SEC_KNOB_IDX)
		return SEC_KNOB;
	if (sec == SEC_DECIDE_IDX)
		return SEC_DECISIONS;
	if (sec == SEC_EXTERN_IDX)
		return SEC_EXTERNAL;
	if (sec == SEC_DRIFT_IDX)
		return SEC_DRIFT;
	if (sec < SEC_QUEUE0) {
		*sub = sec - SEC_QSTATS0;
		return SEC_QSTATS;
	}
	if (sec < SEC_NAPI_IDX) {
		*sub = sec - SEC_QUEUE0;
		return SEC_QUEUE;
	}
	if (sec == SEC_NAPI_IDX)
		return SEC_NAPI;
	if (sec == SEC_HOST_IDX)
		return SEC_HOST;
	return SEC_TAIL;
}

static bool iface_has(const struct iface *ifc, enum sec_kind kind, unsigned int sub)
{
	const struct iface_signals *sg = signals_of(ifc);
	unsigned int k, o;

	switch (kind) {
	case SEC_QSTATS:
		return sg && sg->have_qstats && ((sg->qstats.have >> sub) & 1);
	case SEC_QUEUE:
		for (k = 0; sg && sg->have_qstats && k < sg->n_queues; k++)
			if ((sg->queues[k].have >> sub) & 1)
				return true;
		return false;
	case SEC_NAPI:
		return sg && sg->n_napis > 0;
	case SEC_COUNTER:
		return ifc->m->stats.have_counter[sub];
	case SEC_DROPS:
		return ifc->m->stats.n_drops > 0;
	case SEC_HIST:
		return ifc->m->stats.have_hist;
	case SEC_DECISIONS:
		for (k = 0; k < KNOB__COUNT; k++)
			for (o = 0; o < OUTCOME__COUNT; o++)
				if (iface_decisions(ifc, k, o))
					return true;
		return false;
	case SEC_EXTERNAL:
		for (k = 0; k < KNOB__COUNT; k++)
			if (iface_external(ifc, k))
				return true;
		return false;
	case SEC_DRIFT:
		for (k = 0; ifc->m->want && k < KNOB__COUNT; k++)
			if (ifc->m->want->wanted[k])
				return true;
		return false;
	default:
		return true;
	}
}

/*
 * The host's families, per CPU (label cpu, no device): the same in every namespace, so
 * an rtltuned in any namespace shows them (docs/signals.md).
 */
static void render_host(struct sbuf *b)
{
	static const char *const softnet_help[SOFTNET_COUNTER_COUNT] = {
		[SOFTNET_PROCESSED] = "Packets the CPU received into the stack (softnet_stat "
				      "processed: every receive path).",
		[SOFTNET_DROPPED] = "Packets dropped because the CPU's backlog was full "
				    "(softnet_stat dropped: netdev_max_backlog), counted on the "
				    "CPU whose backlog it was.",
		[SOFTNET_TIME_SQUEEZE] = "Times the receive softirq stopped with work left, its "
					 "budget or time used up (softnet_stat time_squeeze: "
					 "netdev_budget, netdev_budget_usecs).",
		[SOFTNET_RECEIVED_RPS] = "Times another CPU woke this one to process its backlog "
					 "(softnet_stat received_rps: RPS/RFS).",
		[SOFTNET_FLOW_LIMIT] = "Packets dropped by the flow limit (softnet_stat "
				       "flow_limit_count; 0 without CONFIG_NET_FLOW_LIMIT).",
	};
	char name[64], cpu[16];
	unsigned int k, i, d;
	bool any;

	for (k = 0; k < SOFTNET_COUNTER_COUNT; k++) {
		for (i = 0, any = false; i < signals_cpu_count() && !any; i++)
			any = (signals_cpu(i)->have >> k) & 1;
		if (!any)
			continue;
		snprintf(name, sizeof(name), "rtltune_softnet_%s_total", softnet_counter_name(k));
		family(b, name, "counter", softnet_help[k]);
		for (i = 0; i < signals_cpu_count(); i++) {
			const struct cpu_signals *c = signals_cpu(i);

			if (!((c->have >> k) & 1))
				continue;
			snprintf(cpu, sizeof(cpu), "%u", c->cpu);
			series(b, name, NULL, NULL, "cpu", cpu, NULL, NULL);
			sb_u64(b, c->total[k]);
			sb_mem(b, "\n", 1);
		}
	}
	for (i = 0, any = false; i < signals_cpu_count() && !any; i++)
		any = signals_cpu(i)->have_softirq;
	if (any) {
		family(b, "rtltune_softirq_seconds_total", "counter",
		       "Time the CPU spent in softirqs, all of them (/proc/stat softirq; "
		       "ksoftirqd's and threaded NAPI's time is the threads' own).");
		for (i = 0; i < signals_cpu_count(); i++) {
			const struct cpu_signals *c = signals_cpu(i);

			if (!c->have_softirq)
				continue;
			snprintf(cpu, sizeof(cpu), "%u", c->cpu);
			series(b, "rtltune_softirq_seconds_total", NULL, NULL, "cpu", cpu, NULL,
			       NULL);
			sb_double(b, (double)c->softirq_ns / 1e9);
			sb_mem(b, "\n", 1);
		}
	}
	for (i = 0, any = false; i < signals_cpu_count() && !any; i++)
		any = signals_cpu(i)->n_drops > 0;
	if (any) {
		family(b, "rtltune_cpu_drops_total", "counter",
		       "Packets of the managed interfaces dropped, by the CPU that dropped them "
		       "and kernel skb_drop_reason (the probes' drops per CPU).");
		for (i = 0; i < signals_cpu_count(); i++) {
			const struct cpu_signals *c = signals_cpu(i);

			snprintf(cpu, sizeof(cpu), "%u", c->cpu);
			for (d = 0; d < c->n_drops; d++) {
				series(b, "rtltune_cpu_drops_total", NULL, NULL, "cpu", cpu,
				       "reason", c->drops[d].reason);
				sb_u64(b, c->drops[d].total);
				sb_mem(b, "\n", 1);
			}
		}
	}
}

static void render_tail(struct sbuf *b)
{
	unsigned int f, i;
	int32_t us = 0;
	bool held;

	if (bpf_probe_count()) {
		static const char *const fams[] = {"rtltune_probe_attached",
						   "rtltune_probe_runs_total",
						   "rtltune_probe_run_seconds_total"};
		static const char *const types[] = {"gauge", "counter", "counter"};
		static const char *const helps[] = {
			"1 when the probe is attached, 0 when missing (see rtltune status).",
			"Times the probe's BPF program ran (kernel BPF run-time stats).",
			"Time spent in the probe's BPF program (kernel BPF run-time stats).",
		};

		for (f = 0; f < 3; f++) {
			family(b, fams[f], types[f], helps[f]);
			for (i = 0; i < bpf_probe_count(); i++) {
				const char *probe;
				bool attached;
				uint64_t runs, ns;

				if (!bpf_probe_info(i, &probe, &attached, &runs, &ns))
					continue;
				series(b, fams[f], NULL, NULL, "probe", probe, NULL, NULL);
				if (f == 0)
					sb_u64(b, attached);
				else if (f == 1)
					sb_u64(b, runs);
				else
					sb_double(b, (double)ns / 1e9);
				sb_mem(b, "\n", 1);
			}
		}
	}

	family(b, "rtltune_journal_ok", "gauge",
	       "1 while rtltuned trusts its state journal, 0 when it refuses it (torn, garbage, a "
	       "wrong record count: rtltune status says which line and what to do) and changes "
	       "nothing.");
	sb_str(b, trust_ok() ? "rtltune_journal_ok 1\n" : "rtltune_journal_ok 0\n");

	family(b, "rtltune_samples_total", "counter", "Sampler runs since rtltuned started.");
	sb_str(b, "rtltune_samples_total ");
	sb_u64(b, sampler_samples());
	sb_mem(b, "\n", 1);

	/* The value only while held: a latency of 0 is a real request, so no sentinel. */
	held = pmqos_held(&us);
	family(b, "rtltune_pm_qos_held", "gauge",
	       "1 while rtltuned holds a cpu_dma_latency PM QoS request for a shallow-idle chip, "
	       "0 when not (none managed, cpu_dma_latency = off, or refused: see rtltune "
	       "status).");
	sb_str(b, held ? "rtltune_pm_qos_held 1\n" : "rtltune_pm_qos_held 0\n");
	if (held) {
		family(b, "rtltune_pm_qos_cpu_dma_latency_seconds", "gauge",
		       "CPU wake-up latency rtltuned's PM QoS request allows (cpu_dma_latency).");
		sb_str(b, "rtltune_pm_qos_cpu_dma_latency_seconds ");
		sb_double(b, (double)us / 1e6);
		sb_mem(b, "\n", 1);
	}
}

/* The host-wide knobs, read now: no device label (none is theirs). Outside the initial
 * network namespace the kernel has none to read, and there are no such series. */
static void host_knobs(struct sbuf *b)
{
	struct nic host;
	int k;

	host_snapshot(host_proc_sys(), &host);
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		if (host.val[k] == LINK_UNSET)
			continue;
		series(b, "rtltune_knob_value", NULL, NULL, "knob", knob_name((enum knob_id)k),
		       NULL, NULL);
		sb_i64(b, host.val[k]);
		sb_mem(b, "\n", 1);
	}
}

static bool host_decided(void)
{
	int k, o;

	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++)
		for (o = 0; o < OUTCOME__COUNT; o++)
			if (tune_host_decisions((enum knob_id)k, (enum decision_outcome)o))
				return true;
	return false;
}

/* The tuner's decisions on the host-wide knobs: no device label, as their values. */
static void host_decisions(struct sbuf *b)
{
	int k, o;

	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++)
		for (o = 0; o < OUTCOME__COUNT; o++) {
			uint32_t n = tune_host_decisions((enum knob_id)k, (enum decision_outcome)o);

			if (!n)
				continue;
			series(b, "rtltune_tuning_decisions_total", NULL, NULL, "knob",
			       knob_name((enum knob_id)k), "outcome",
			       decision_outcome_name((enum decision_outcome)o));
			sb_u64(b, n);
			sb_mem(b, "\n", 1);
		}
}

/* The family line(s) of a section; false when the section has no interface part. */
static bool section_head(struct metrics_job *j, enum sec_kind kind, unsigned int sub)
{
	struct sbuf *b = &j->b;

	switch (kind) {
	case SEC_BUILD:
		family(b, "rtltune_build_info", "gauge", "rtltuned version; always 1.");
		series(b, "rtltune_build_info", NULL, NULL, "version", RTLTUNE_VERSION, NULL, NULL);
		sb_str(b, "1\n");
		return false;
	case SEC_INFO:
		family(b, "rtltune_interface_info", "gauge",
		       "Interfaces rtltuned manages, with their driver and chip database entry; "
		       "always 1.");
		return true;
	case SEC_COUNTER:
		snprintf(j->name, sizeof(j->name), "rtltune_%s_total", stat_counter_name(sub));
		family(b, j->name, "counter", stat_counter_help(sub));
		return true;
	case SEC_DROPS:
		family(b, "rtltune_drops_total", "counter",
		       "Packets dropped, by reason (kernel skb_drop_reason name with the probes, "
		       "rx_dropped/tx_dropped link counters without).");
		return true;
	case SEC_HIST:
		snprintf(j->name, sizeof(j->name), "rtltune_%s", stat_hist_name(sub));
		family(b, j->name, "histogram", stat_hist_help(sub));
		return true;
	case SEC_KNOB:
		family(b, "rtltune_knob_value", "gauge",
		       "Current value of each knob (booleans 1/0; sizes in bytes); the host-wide "
		       "ones (net.core.*) without a device.");
		host_knobs(b);
		return true;
	case SEC_DECISIONS:
		family(b, "rtltune_tuning_decisions_total", "counter",
		       "Changes rtltuned made or tried, by knob and outcome; the host-wide ones "
		       "(net.core.*) without a device.");
		host_decisions(b);
		return true;
	case SEC_EXTERNAL:
		family(b, "rtltune_knob_external_changes_total", "counter",
		       "Changes of a managed knob made outside rtltune (left alone until autotune "
		       "on or rtltune apply).");
		return true;
	case SEC_DRIFT:
		family(b, "rtltune_knob_drift", "gauge",
		       "1 when the knob differs from what the configured profile sets it to, 0 "
		       "when it matches.");
		return true;
	case SEC_QSTATS:
		snprintf(j->name, sizeof(j->name), "rtltune_qstats_%s_total", qstat_key(sub));
		snprintf(j->help, sizeof(j->help),
			 "The driver's queue statistics (qstats-get "
			 "%s), the device's total: %s",
			 qstat_name(sub), qstat_help(sub));
		family(b, j->name, "counter", j->help);
		return true;
	case SEC_QUEUE:
		snprintf(j->name, sizeof(j->name), "rtltune_queue_%s_total", qstat_key(sub));
		snprintf(j->help, sizeof(j->help),
			 "The driver's queue statistics (qstats-get "
			 "%s) per queue, since the queue's last reconfiguration: %s",
			 qstat_name(sub), qstat_help(sub));
		family(b, j->name, "counter", j->help);
		return true;
	case SEC_NAPI:
		family(b, "rtltune_napi_thread_cpu_seconds_total", "counter",
		       "CPU time of a threaded NAPI's kthread (utime + stime), by NAPI id; a new "
		       "thread (threaded off and on) starts again at 0.");
		return true;
	case SEC_HOST:
		render_host(b);
		return false;
	case SEC_TAIL:
		render_tail(b);
		return false;
	}
	return false;
}

static void section_iface(struct metrics_job *j, enum sec_kind kind, unsigned int sub,
			  const struct iface *ifc)
{
	struct sbuf *b = &j->b;
	unsigned int d, k, o;

	if (!iface_has(ifc, kind, sub))
		return;
	series_netns = iface_netns_name(ifc);
	switch (kind) {
	case SEC_INFO:
		series(b, "rtltune_interface_info", NULL, ifc->name, "driver", ifc->driver, "chip",
		       ifc->chip);
		sb_str(b, "1\n");
		break;
	case SEC_COUNTER:
		series(b, j->name, NULL, ifc->name, NULL, NULL, NULL, NULL);
		sb_u64(b, ifc->m->stats.counter[sub]);
		sb_mem(b, "\n", 1);
		break;
	case SEC_DROPS:
		for (d = 0; d < ifc->m->stats.n_drops; d++) {
			series(b, "rtltune_drops_total", NULL, ifc->name, "reason",
			       ifc->m->stats.drops[d].reason, NULL, NULL);
			sb_u64(b, ifc->m->stats.drops[d].count);
			sb_mem(b, "\n", 1);
		}
		break;
	case SEC_HIST:
		render_hist(b, j->name, ifc->name, &ifc->m->stats.h->hist[sub]);
		break;
	case SEC_KNOB:
		for (k = 0; k < KNOB__COUNT; k++) {
			/* Unsupported knobs and features the driver fixes are no knobs here. */
			if (iface_knob(ifc, k) == LINK_UNSET || iface_snap_peek(ifc)->fixed[k])
				continue;
			series(b, "rtltune_knob_value", NULL, ifc->name, "knob",
			       knob_name((enum knob_id)k), NULL, NULL);
			sb_i64(b, iface_knob(ifc, k));
			sb_mem(b, "\n", 1);
		}
		break;
	case SEC_DECISIONS:
		for (k = 0; k < KNOB__COUNT; k++)
			for (o = 0; o < OUTCOME__COUNT; o++) {
				if (!iface_decisions(ifc, k, o))
					continue;
				series(b, "rtltune_tuning_decisions_total", NULL, ifc->name, "knob",
				       knob_name((enum knob_id)k), "outcome",
				       decision_outcome_name(o));
				sb_u64(b, iface_decisions(ifc, k, o));
				sb_mem(b, "\n", 1);
			}
		break;
	case SEC_EXTERNAL:
		for (k = 0; k < KNOB__COUNT; k++) {
			if (!iface_external(ifc, k))
				continue;
			series(b, "rtltune_knob_external_changes_total", NULL, ifc->name, "knob",
			       knob_name((enum knob_id)k), NULL, NULL);
			sb_u64(b, iface_external(ifc, k));
			sb_mem(b, "\n", 1);
		}
		break;
	case SEC_QSTATS:
		series(b, j->name, NULL, ifc->name, NULL, NULL, NULL, NULL);
		sb_u64(b, signals_of(ifc)->qstats.val[sub]);
		sb_mem(b, "\n", 1);
		break;
	case SEC_QUEUE:
		for (d = 0; d < signals_of(ifc)->n_queues; d++) {
			const struct qstats *q = &signals_of(ifc)->queues[d];
			char qid[16];

			if (!((q->have >> sub) & 1))
				continue;
			snprintf(qid, sizeof(qid), "%u", q->queue_id);
			series(b, j->name, NULL, ifc->name, "queue", qid, NULL, NULL);
			sb_u64(b, q->val[sub]);
			sb_mem(b, "\n", 1);
		}
		break;
	case SEC_NAPI:
		for (d = 0; d < signals_of(ifc)->n_napis; d++) {
			const struct napi_thread *t = &signals_of(ifc)->napis[d];
			char id[16];

			snprintf(id, sizeof(id), "%u", t->napi_id);
			series(b, "rtltune_napi_thread_cpu_seconds_total", NULL, ifc->name, "napi",
			       id, NULL, NULL);
			sb_double(b, (double)t->cpu_ns / 1e9);
			sb_mem(b, "\n", 1);
		}
		break;
	case SEC_DRIFT:
		for (k = 0; ifc->m->want && k < KNOB__COUNT; k++) {
			if (!ifc->m->want->wanted[k] || iface_knob(ifc, k) == LINK_UNSET)
				continue;
			series(b, "rtltune_knob_drift", NULL, ifc->name, "knob",
			       knob_name((enum knob_id)k), NULL, NULL);
			sb_u64(b, iface_knob(ifc, k) != ifc->m->want->want[k]);
			sb_mem(b, "\n", 1);
		}
		break;
	default:
		break;
	}
	series_netns = NULL;
}

/* Sized by the last rendering: one allocation per scrape-worthy change, no regrowth. */
static size_t last_len;

struct metrics_job *metrics_job_new(void)
{
	struct metrics_job *j;
	struct iface *ifc;
	unsigned int n = 0, i, k;

	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->m && ifc->m->stats.valid)
			n++;
	j = calloc(1, sizeof(*j) + n * sizeof(j->list[0]));
	if (!j)
		return NULL;
	for (ifc = iface_first(); ifc && j->n < n; ifc = ifc->next)
		if (ifc->m && ifc->m->stats.valid)
			j->list[j->n++] = ifc;
	for (i = 1; i < j->n; i++)
		for (k = i; k > 0 && j->list[k - 1]->ifindex > j->list[k]->ifindex; k--) {
			struct iface *t = j->list[k];

			j->list[k] = j->list[k - 1];
			j->list[k - 1] = t;
		}
	sb_grow(&j->b, last_len + last_len / 8);
	sb_mem(&j->b, "", 0);
	if (j->b.oom) {
		metrics_job_free(j);
		return NULL;
	}
	return j;
}

void metrics_job_free(struct metrics_job *j)
{
	if (!j)
		return;
	free(j->b.p);
	free(j);
}

static void next_section(struct metrics_job *j)
{
	j->sec++;
	j->i = 0;
	j->in_section = false;
}

int metrics_job_step(struct metrics_job *j, size_t slice)
{
	size_t stop = j->b.len + (slice < SIZE_MAX / 2 ? slice : SIZE_MAX / 2);
	enum sec_kind kind;
	unsigned int sub, i;
	bool any;

	while (j->sec < SEC__COUNT) {
		kind = sec_kind(j->sec, &sub);
		if (!j->in_section) {
			/* A family with no series at all is left out, its head too. */
			any = kind == SEC_BUILD || kind == SEC_INFO || kind == SEC_KNOB ||
			      kind == SEC_HOST || kind == SEC_TAIL ||
			      (kind == SEC_DECISIONS && host_decided());
			for (i = 0; i < j->n && !any; i++)
				any = iface_has(j->list[i], kind, sub);
			if (!any || !section_head(j, kind, sub)) {
				next_section(j);
				continue;
			}
			j->in_section = true;
		} else if (j->i < j->n) {
			section_iface(j, kind, sub, j->list[j->i++]);
		}
		if (j->i >= j->n)
			next_section(j);
		if (j->b.oom)
			return -ENOMEM;
		if (j->b.len >= stop)
			break;
	}
	if (j->b.oom)
		return -ENOMEM;
	return j->sec >= SEC__COUNT;
}

char *metrics_job_take(struct metrics_job *j, size_t *len)
{
	char *p = j->b.p;

	*len = j->b.len;
	last_len = j->b.len;
	j->b.p = NULL;
	metrics_job_free(j);
	return p;
}

char *metrics_render(size_t *len)
{
	struct metrics_job *j = metrics_job_new();
	int r;

	r = j ? metrics_job_step(j, SIZE_MAX) : -ENOMEM;
	if (r < 0) {
		dlog(LOG_ERR, NULL, "out of memory rendering /metrics");
		metrics_job_free(j);
		return NULL;
	}
	return metrics_job_take(j, len);
}

void metrics_textfile_write(void)
{
	static uint64_t written_gen = UINT64_MAX;
	char tmp[PATH_MAX + 16], *t;
	size_t len;
	int fd, e;

	if (!rtd.cfg.textfile[0] || written_gen == rtd.generation)
		return;
	t = metrics_render(&len);
	if (!t)
		return;
	/* node_exporter reads *.prom: the temporary name must not end in .prom. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", rtd.cfg.textfile);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(t);
		goto fail;
	}
	e = write_full(fd, t, len);
	if (e < 0) {
		close(fd);
		unlink(tmp);
		free(t);
		errno = -e; /* what the log says, not what close() or unlink() left */
		goto fail;
	}
	free(t);
	if (close(fd) < 0 || rename(tmp, rtd.cfg.textfile) < 0) {
		unlink(tmp);
		goto fail;
	}
	written_gen = rtd.generation;
	return;
fail:
	/* Once per failure streak: a full disk must not flood the log every second. */
	if (written_gen != 0)
		dlog(LOG_WARNING, NULL, "cannot write textfile %s: %s", rtd.cfg.textfile,
		     strerror(errno));
	written_gen = 0;
}
