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
#include "metrics.h"
#include "rtltune/link.h"
#include "rtltuned.h"

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

#define MAX_IFACES 4096
static struct iface *list[MAX_IFACES];

static unsigned int managed_sorted(void)
{
	unsigned int n = 0, i, j;
	struct iface *ifc;

	for (ifc = rtd.ifaces; ifc && n < MAX_IFACES; ifc = ifc->next)
		if (ifc->managed && ifc->stats.valid)
			list[n++] = ifc;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && list[j - 1]->ifindex > list[j]->ifindex; j--) {
			struct iface *t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	return n;
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

static void render(struct sbuf *b)
{
	unsigned int n = managed_sorted(), i, c, h, k, o, d;
	char name[96];
	bool any;

	b->len = 0;
	b->oom = false;
	sb_mem(b, "", 0);

	family(b, "rtltune_build_info", "gauge", "rtltuned version; always 1.");
	series(b, "rtltune_build_info", NULL, NULL, "version", RTLTUNE_VERSION, NULL, NULL);
	sb_str(b, "1\n");

	family(b, "rtltune_interface_info", "gauge",
	       "Interfaces rtltuned manages, with their driver and chip database entry; always 1.");
	for (i = 0; i < n; i++) {
		series(b, "rtltune_interface_info", NULL, list[i]->name, "driver", list[i]->driver,
		       "chip", list[i]->chip);
		sb_str(b, "1\n");
	}

	for (c = 0; c < SC__COUNT; c++) {
		any = false;
		for (i = 0; i < n && !any; i++)
			any = list[i]->stats.have_counter[c];
		if (!any)
			continue;
		snprintf(name, sizeof(name), "rtltune_%s_total", stat_counter_name(c));
		family(b, name, "counter", stat_counter_help(c));
		for (i = 0; i < n; i++) {
			if (!list[i]->stats.have_counter[c])
				continue;
			series(b, name, NULL, list[i]->name, NULL, NULL, NULL, NULL);
			sb_u64(b, list[i]->stats.counter[c]);
			sb_mem(b, "\n", 1);
		}
	}

	any = false;
	for (i = 0; i < n && !any; i++)
		any = list[i]->stats.n_drops > 0;
	if (any) {
		family(b, "rtltune_drops_total", "counter",
		       "Packets dropped, by reason (kernel skb_drop_reason name with the probes, "
		       "rx_dropped/tx_dropped link counters without).");
		for (i = 0; i < n; i++) {
			for (d = 0; d < list[i]->stats.n_drops; d++) {
				series(b, "rtltune_drops_total", NULL, list[i]->name, "reason",
				       list[i]->stats.drops[d].reason, NULL, NULL);
				sb_u64(b, list[i]->stats.drops[d].count);
				sb_mem(b, "\n", 1);
			}
		}
	}

	for (h = 0; h < SH__COUNT; h++) {
		any = false;
		for (i = 0; i < n && !any; i++)
			any = list[i]->stats.have_hist;
		if (!any)
			continue;
		snprintf(name, sizeof(name), "rtltune_%s", stat_hist_name(h));
		family(b, name, "histogram", stat_hist_help(h));
		for (i = 0; i < n; i++)
			if (list[i]->stats.have_hist)
				render_hist(b, name, list[i]->name, &list[i]->stats.hist[h]);
	}

	family(b, "rtltune_knob_value", "gauge",
	       "Current value of each knob (booleans 1/0; sizes in bytes).");
	for (i = 0; i < n; i++) {
		for (k = 0; k < KNOB__COUNT; k++) {
			if (list[i]->knob[k] == LINK_UNSET)
				continue;
			series(b, "rtltune_knob_value", NULL, list[i]->name, "knob",
			       knob_name((enum knob_id)k), NULL, NULL);
			sb_i64(b, list[i]->knob[k]);
			sb_mem(b, "\n", 1);
		}
	}

	any = false;
	for (i = 0; i < n && !any; i++)
		for (k = 0; k < KNOB__COUNT && !any; k++)
			for (o = 0; o < OUTCOME__COUNT && !any; o++)
				any = list[i]->decisions[k][o] > 0;
	if (any) {
		family(b, "rtltune_tuning_decisions_total", "counter",
		       "Changes rtltuned made or tried, by knob and outcome.");
		for (i = 0; i < n; i++)
			for (k = 0; k < KNOB__COUNT; k++)
				for (o = 0; o < OUTCOME__COUNT; o++) {
					if (!list[i]->decisions[k][o])
						continue;
					series(b, "rtltune_tuning_decisions_total", NULL,
					       list[i]->name, "knob", knob_name((enum knob_id)k),
					       "outcome", decision_outcome_name(o));
					sb_u64(b, list[i]->decisions[k][o]);
					sb_mem(b, "\n", 1);
				}
	}

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
		unsigned int f;

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

	family(b, "rtltune_samples_total", "counter", "Sampler runs since rtltuned started.");
	sb_str(b, "rtltune_samples_total ");
	sb_u64(b, rtd.samples);
	sb_mem(b, "\n", 1);
}

/* Sized by the last rendering: one allocation per scrape-worthy change, no regrowth. */
static size_t last_len;

char *metrics_render(size_t *len)
{
	struct sbuf b = {0};

	sb_grow(&b, last_len + last_len / 8);
	render(&b);
	if (b.oom) {
		dlog(LOG_ERR, NULL, "out of memory rendering /metrics");
		free(b.p);
		return NULL;
	}
	last_len = b.len;
	*len = b.len;
	return b.p;
}

void metrics_textfile_write(void)
{
	static uint64_t written_gen = UINT64_MAX;
	char tmp[PATH_MAX + 16], *t;
	size_t len, off = 0;
	int fd;

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
	while (off < len) {
		ssize_t w = write(fd, t + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			unlink(tmp);
			free(t);
			goto fail;
		}
		off += (size_t)w;
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
