// SPDX-License-Identifier: GPL-2.0-only
/* Kernel CPU time from /proc/stat and /proc/PID/stat (include/rtltune/cpustat.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/cpustat.h"

static uint64_t ns_per_tick(void)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? 1000000000ULL / (uint64_t)hz : 0;
}

int cpustat_kernel_ns(uint64_t *out)
{
	struct cpustat_total t;
	int r = cpustat_total_ns(&t);

	if (r == 0)
		*out = t.kernel;
	return r;
}

/* A decimal number at *p (before end) that fits 64 bits; *p moves past it. */
static int decimal(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -EBADMSG;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* The n-th (0-based) space-separated decimal of [p, end); -EBADMSG if there is none. */
static int field(const char *p, const char *end, unsigned int nth, uint64_t *out)
{
	unsigned int i;
	uint64_t v;

	for (i = 0;; i++) {
		if (p == end || *p != ' ')
			return -EBADMSG;
		while (p < end && *p == ' ')
			p++;
		if (decimal(&p, end, &v) < 0)
			return -EBADMSG;
		if (i == nth) {
			*out = v;
			return 0;
		}
	}
}

/* a + b into *sum unless it overflows. */
static bool add_ok(uint64_t a, uint64_t b, uint64_t *sum)
{
	if (a > UINT64_MAX - b)
		return false;
	*sum = a + b;
	return true;
}

int cpustat_parse_total(const char *text, size_t len, struct cpustat_total *out)
{
	const char *p = text, *end = text + len;
	bool seen = false;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		uint64_t v[7], k;
		unsigned int i;

		if (!eol)
			eol = end;
		p = eol + 1;
		if (eol - q < 4 || memcmp(q, "cpu", 3) != 0)
			continue;
		if (q[3] >= '0' && q[3] <= '9') {
			out->cpus++;
			continue;
		}
		if (q[3] != ' ' || seen)
			continue;
		/* "cpu  user nice system idle iowait irq softirq ...": the aggregate. */
		for (i = 0; i < 7; i++)
			if (field(q + 3, eol, i, &v[i]) < 0)
				return -EBADMSG;
		if (!add_ok(v[2], v[5], &k) || !add_ok(k, v[6], &out->kernel) ||
		    !add_ok(v[3], v[4], &out->idle))
			return -EBADMSG;
		seen = true;
	}
	return seen ? 0 : -EBADMSG;
}

int cpustat_parse_softirq(const char *text, size_t len, struct cpu_softirq *out, unsigned int max,
			  unsigned int *n)
{
	const char *p = text, *end = text + len;
	unsigned int rows = 0;

	*n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		uint64_t cpu, ticks;

		if (!eol)
			eol = end;
		q = p;
		p = eol + 1;
		/* "cpuN ...": the aggregate line "cpu  ..." and every other line skipped. */
		if (eol - q < 4 || memcmp(q, "cpu", 3) != 0 || q[3] < '0' || q[3] > '9')
			continue;
		q += 3;
		/* user nice system idle iowait irq softirq: softirq is the seventh. */
		if (decimal(&q, eol, &cpu) < 0 || cpu > CPUSTAT_MAX_CPU ||
		    field(q, eol, 6, &ticks) < 0)
			return -EBADMSG;
		if (rows && cpu <= out[rows - 1].cpu)
			return -EBADMSG;
		if (rows == max)
			return -E2BIG;
		out[rows].cpu = (unsigned int)cpu;
		out[rows].ticks = ticks;
		rows++;
	}
	*n = rows;
	return 0;
}

/* The whole of a /proc file into a buffer that grows; its length, or -errno. */
static ssize_t slurp(const char *path, char **buf, size_t *cap)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (!*buf || len == *cap) {
			size_t want = *buf ? 2 * *cap : 4096;
			char *grown = realloc(*buf, want);

			if (!grown) {
				close(fd);
				return -ENOMEM;
			}
			*buf = grown;
			*cap = want;
		}
		got = read(fd, *buf + len, *cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	return (ssize_t)len;
}

int cpustat_softirq_ns(struct cpu_softirq *out, unsigned int max, unsigned int *n)
{
	/* Kept between calls: /proc/stat of a large host is tens of KiB, read every sample. */
	static char *buf;
	static size_t cap;
	uint64_t tick = ns_per_tick();
	ssize_t len;
	unsigned int i;
	int r;

	*n = 0;
	if (!tick)
		return -EINVAL;
	len = slurp("/proc/stat", &buf, &cap);
	if (len < 0)
		return (int)len;
	r = cpustat_parse_softirq(buf, (size_t)len, out, max, n);
	for (i = 0; r == 0 && i < *n; i++)
		out[i].ticks *= tick;
	return r;
}

int cpustat_parse_task(const char *text, size_t len, uint64_t *ticks)
{
	const char *end = text + len, *p = NULL, *q;
	uint64_t utime, stime;
	unsigned int tok;

	/* The name may hold ')' and spaces: the fields start after the last ')'. */
	for (q = text; q < end; q++)
		if (*q == ')')
			p = q + 1;
	if (!p)
		return -EBADMSG;
	/* " S ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime":
	 * utime comes after 11 words, the state the first. Some words before it may be negative
	 * (tty_nr, tpgid): they are skipped as words, only utime and stime are read. */
	for (tok = 0; tok < 11; tok++) {
		if (p == end || *p != ' ' || ++p == end || *p == ' ')
			return -EBADMSG;
		while (p < end && *p != ' ')
			p++;
	}
	if (field(p, end, 0, &utime) < 0 || field(p, end, 1, &stime) < 0 ||
	    utime > UINT64_MAX - stime)
		return -EBADMSG;
	*ticks = utime + stime;
	return 0;
}

int cpustat_task_ns(int pid, uint64_t *ns)
{
	char path[32], text[1024];
	uint64_t tick = ns_per_tick(), ticks;
	ssize_t got;
	int fd, r;

	if (!tick)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, text, sizeof(text));
	r = got < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	r = cpustat_parse_task(text, (size_t)got, &ticks);
	if (r == 0)
		*ns = ticks * tick;
	return r;
}

int cpustat_total_ns(struct cpustat_total *out)
{
	static char *buf;
	static size_t cap;
	uint64_t tick = ns_per_tick();
	ssize_t len;
	int r;

	if (!tick)
		return -EINVAL;
	len = slurp("/proc/stat", &buf, &cap);
	if (len < 0)
		return (int)len;
	r = cpustat_parse_total(buf, (size_t)len, out);
	if (r < 0)
		return r;
	if (out->kernel > UINT64_MAX / tick || out->idle > UINT64_MAX / tick)
		return -EBADMSG;
	out->kernel *= tick;
	out->idle *= tick;
	return 0;
}

bool cpustat_busy_ns(const struct cpustat_total *before, const struct cpustat_total *now,
		     uint64_t elapsed_ns, uint64_t *busy)
{
	uint64_t all, idle;

	if (!before->cpus || before->cpus != now->cpus || now->idle < before->idle ||
	    elapsed_ns > UINT64_MAX / now->cpus)
		return false;
	all = elapsed_ns * now->cpus;
	idle = now->idle - before->idle;
	*busy = all > idle ? all - idle : 0;
	return true;
}
