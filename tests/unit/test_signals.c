// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU signals' parsers on text captured from this kernel by
 * tests/fuzz/capture_signals.sh (tests/unit/fixtures/signals, MANIFEST): /proc/net/softnet_stat
 * as 6.18 prints it (15 columns) and cut to the layouts of older kernels (13, 11, 10, 9
 * columns: lib/sampler/softnet.c), /proc/stat's per-CPU softirq time and /proc/PID/stat's
 * CPU time (lib/sampler/cpustat.c), then malformed text each parser must refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/cpustat.h"
#include "rtltune/softnet.h"
#include "tree.h"

#define FIXTURES "tests/unit/fixtures/signals"
/* A literal and its length. */
#define T(s) s, strlen(s)

struct text {
	char *s;
	size_t len;
};

static struct text load(const char *name)
{
	char rel[256];
	struct text t;

	snprintf(rel, sizeof(rel), FIXTURES "/%s", name);
	t.s = (char *)tree_read(rel, &t.len);
	if (!t.s)
		fail_msg("cannot read %s", rel);
	/* NUL-terminated for this file's own readings (the parsers get t.len). */
	t.s = realloc(t.s, t.len + 1);
	assert_non_null(t.s);
	t.s[t.len] = '\0';
	return t;
}

static int setup(void **state)
{
	(void)state;
	return find_tree(FIXTURES "/MANIFEST") == 0 ? 0 : -1;
}

/* Column col (0-based) of line row of a softnet_stat text, read here with strtoul. */
static uint32_t column(const struct text *t, unsigned int row, unsigned int col)
{
	char *copy = strdup(t->s), *line, *save, *tok;
	unsigned int r = 0, c;
	uint32_t v = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), r++) {
		if (r != row)
			continue;
		tok = strtok(line, " ");
		for (c = 0; c < col && tok; c++)
			tok = strtok(NULL, " ");
		assert_non_null(tok);
		v = (uint32_t)strtoul(tok, NULL, 16);
	}
	free(copy);
	return v;
}

static void test_softnet_618(void **state)
{
	struct text t = load("softnet_stat");
	struct softnet_cpu c[8];
	unsigned int n, i;
	bool named;

	(void)state;
	assert_int_equal(softnet_parse(t.s, t.len, c, 8, &n, &named), 0);
	assert_int_equal(n, 2); /* the capture's two CPUs */
	assert_true(named);
	for (i = 0; i < n; i++) {
		assert_int_equal(c[i].cpu, i);
		assert_int_equal(c[i].have, (1u << SOFTNET_COUNTER_COUNT) - 1);
		assert_int_equal(c[i].v[SOFTNET_PROCESSED], column(&t, i, 0));
		assert_int_equal(c[i].v[SOFTNET_DROPPED], column(&t, i, 1));
		assert_int_equal(c[i].v[SOFTNET_TIME_SQUEEZE], column(&t, i, 2));
		assert_int_equal(c[i].v[SOFTNET_RECEIVED_RPS], column(&t, i, 9));
		assert_int_equal(c[i].v[SOFTNET_FLOW_LIMIT], column(&t, i, 10));
		assert_int_equal(c[i].backlog_len, column(&t, i, 11));
		assert_true(c[i].v[SOFTNET_PROCESSED] > 0);
	}
	/* Too small a table. */
	assert_int_equal(softnet_parse(t.s, t.len, c, 1, &n, &named), -E2BIG);
	free(t.s);
}

/* The older layouts: what each kernel printed, the counters it did not have absent. */
static void test_softnet_older(void **state)
{
	static const struct {
		const char *file;
		uint32_t have;
		bool named;
	} layouts[] = {
		{"softnet_stat.13", (1u << SOFTNET_COUNTER_COUNT) - 1, true},
		{"softnet_stat.11", (1u << SOFTNET_COUNTER_COUNT) - 1, false},
		{"softnet_stat.10", (1u << SOFTNET_FLOW_LIMIT) - 1, false},
		{"softnet_stat.9", (1u << SOFTNET_RECEIVED_RPS) - 1, false},
	};
	struct text full = load("softnet_stat");
	struct softnet_cpu ref[8], c[8];
	unsigned int n, m, i, k, l;
	bool named;

	(void)state;
	assert_int_equal(softnet_parse(full.s, full.len, ref, 8, &m, &named), 0);
	for (l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		struct text t = load(layouts[l].file);

		assert_int_equal(softnet_parse(t.s, t.len, c, 8, &n, &named), 0);
		assert_int_equal(n, m);
		assert_int_equal(named, layouts[l].named);
		for (i = 0; i < n; i++) {
			/* Without a CPU column the line's position stands for it. */
			assert_int_equal(c[i].cpu, i);
			assert_int_equal(c[i].have, layouts[l].have);
			assert_int_equal(c[i].backlog_len,
					 layouts[l].named ? ref[i].backlog_len : -1);
			for (k = 0; k < SOFTNET_COUNTER_COUNT; k++)
				assert_int_equal(c[i].v[k],
						 (layouts[l].have >> k) & 1 ? ref[i].v[k] : 0);
		}
		free(t.s);
	}
	free(full.s);
}

static void test_softnet_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		/* 8 columns: fewer than any kernel printed */
		"00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
		/* lines of two widths */
		"1 0 0 0 0 0 0 0 0 0\n2 0 0 0 0 0 0 0 0\n",
		/* not hexadecimal; 9 digits (over 32 bits); a sign */
		"1 0 0 0 0 0 0 0 x\n",
		"100000000 0 0 0 0 0 0 0 0\n",
		"-1 0 0 0 0 0 0 0 0\n",
		"0x1 0 0 0 0 0 0 0 0\n",
		/* CPU numbers (column 13) not ascending, or a repeat, or too large */
		"1 0 0 0 0 0 0 0 0 0 0 0 1\n1 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"1 0 0 0 0 0 0 0 0 0 0 0 1\n1 0 0 0 0 0 0 0 0 0 0 0 1\n",
		"1 0 0 0 0 0 0 0 0 0 0 0 10000\n",
		/* an empty line in the middle */
		"1 0 0 0 0 0 0 0 0\n\n1 0 0 0 0 0 0 0 0\n",
		"1 0 0 0 0 0 0 0 0\r\n",
	};
	struct softnet_cpu c[4];
	unsigned int n, i;
	bool named;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = softnet_parse(bad[i], strlen(bad[i]), c, 4, &n, &named);

		if (r != -EBADMSG)
			fail_msg("bad[%u] = %d, not -EBADMSG: %s", i, r, bad[i]);
		assert_int_equal(n, 0);
	}
	/* No final newline; CPUs with gaps (offline ones have no line); upper-case hex. */
	assert_int_equal(softnet_parse(T("A 0 0 0 0 0 0 0 0 0 0 0 2\nb 0 0 0 0 0 0 0 0 0 0 0 5"), c,
				       4, &n, &named),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].cpu, 2);
	assert_int_equal(c[0].v[SOFTNET_PROCESSED], 10);
	assert_int_equal(c[1].cpu, 5);
	assert_int_equal(c[1].v[SOFTNET_PROCESSED], 11);
	/* A future kernel's 16th column is ignored. */
	assert_int_equal(softnet_parse(T("1 2 3 0 0 0 0 0 0 4 5 6 7 8 9 ff\n"), c, 4, &n, &named),
			 0);
	assert_int_equal(c[0].cpu, 7);
	assert_int_equal(c[0].v[SOFTNET_RECEIVED_RPS], 4);
	/* The wrap of a 32-bit counter. */
	assert_int_equal(softnet_delta(5, 0xfffffffbu), 10);
	assert_string_equal(softnet_counter_name(SOFTNET_TIME_SQUEEZE), "time_squeeze");
}

static void test_softnet_read(void **state)
{
	struct softnet_cpu c[4];
	char path[PATH_MAX + 64];
	unsigned int n;
	bool named;

	(void)state;
	snprintf(path, sizeof(path), "%s/" FIXTURES "/softnet_stat.11", tree);
	assert_int_equal(softnet_read(path, c, 4, &n, &named), 0);
	assert_int_equal(n, 2);
	assert_false(named);
	assert_int_equal(softnet_read("/nonexistent/softnet_stat", c, 4, &n, &named), -ENOENT);
}

static void test_softirq(void **state)
{
	struct text t = load("stat");
	struct cpu_softirq c[8];
	unsigned int n;

	(void)state;
	assert_int_equal(cpustat_parse_softirq(t.s, t.len, c, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].cpu, 0);
	assert_int_equal(c[1].cpu, 1);
	/* The seventh number of "cpu0 ..." and "cpu1 ...", and they add up to "cpu ...", but
	 * for the kernel's rounding: each line is its own nanoseconds-to-ticks conversion. */
	{
		unsigned long long v[7], all[7];
		char *p0 = strstr(t.s, "\ncpu0 "), *p1 = strstr(t.s, "\ncpu1 ");

		assert_int_equal(sscanf(p0, " cpu0 %llu %llu %llu %llu %llu %llu %llu", &v[0],
					&v[1], &v[2], &v[3], &v[4], &v[5], &v[6]),
				 7);
		assert_int_equal(c[0].ticks, v[6]);
		assert_int_equal(sscanf(p1, " cpu1 %llu %llu %llu %llu %llu %llu %llu", &v[0],
					&v[1], &v[2], &v[3], &v[4], &v[5], &v[6]),
				 7);
		assert_int_equal(c[1].ticks, v[6]);
		assert_int_equal(sscanf(t.s, "cpu %llu %llu %llu %llu %llu %llu %llu", &all[0],
					&all[1], &all[2], &all[3], &all[4], &all[5], &all[6]),
				 7);
		assert_true(all[6] >= c[0].ticks + c[1].ticks &&
			    all[6] <= c[0].ticks + c[1].ticks + n);
	}
	assert_int_equal(cpustat_parse_softirq(t.s, t.len, c, 1, &n), -E2BIG);
	free(t.s);
	/* Malformed cpuN lines; other lines do not matter. */
	assert_int_equal(cpustat_parse_softirq(T("cpu0 1 2 3 4 5 6\n"), c, 8, &n), -EBADMSG);
	assert_int_equal(cpustat_parse_softirq(T("cpu0 1 2 3 4 5 6 x\n"), c, 8, &n), -EBADMSG);
	assert_int_equal(
		cpustat_parse_softirq(T("cpu1 1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n"), c, 8, &n),
		-EBADMSG);
	assert_int_equal(
		cpustat_parse_softirq(T("cpu0 1 2 3 4 5 6 99999999999999999999\n"), c, 8, &n),
		-EBADMSG);
	assert_int_equal(cpustat_parse_softirq(T("cpu70000 1 2 3 4 5 6 7\n"), c, 8, &n), -EBADMSG);
	assert_int_equal(cpustat_parse_softirq(T("intr 5 6\ncpux 1\ncpu3 0 0 0 0 0 0 9"), c, 8, &n),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].cpu, 3);
	assert_int_equal(c[0].ticks, 9);
	/* Live: as many CPUs as softnet_stat has lines. */
	{
		struct softnet_cpu s[256];
		struct cpu_softirq live[256];
		unsigned int ns, nl;
		bool named;

		assert_int_equal(cpustat_softirq_ns(live, 256, &nl), 0);
		assert_int_equal(softnet_read(NULL, s, 256, &ns, &named), 0);
		assert_int_equal(nl, ns);
	}
}

/* The aggregate line: kernel = system + irq + softirq, idle = idle + iowait, the cpuN
 * lines counted; and the busy time between two readings from the idle clock. */
static void test_total(void **state)
{
	struct text t = load("stat");
	struct cpustat_total a, b;
	unsigned long long v[7];
	uint64_t busy = 7;

	(void)state;
	assert_int_equal(cpustat_parse_total(t.s, t.len, &a), 0);
	assert_int_equal(sscanf(t.s, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
				&v[3], &v[4], &v[5], &v[6]),
			 7);
	assert_int_equal(a.kernel, v[2] + v[5] + v[6]);
	assert_int_equal(a.idle, v[3] + v[4]);
	assert_int_equal(a.cpus, 2);
	free(t.s);
	assert_int_equal(cpustat_parse_total(T("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7\n"
					       "cpu1 0 0 0 0 0 0 0\ncpu3 0 0 0 0 0 0 0\n"),
					     &a),
			 0);
	assert_int_equal(a.kernel, 3 + 6 + 7);
	assert_int_equal(a.idle, 4 + 5);
	assert_int_equal(a.cpus, 3);
	/* No aggregate line, too few numbers, a sum past 64 bits. */
	assert_int_equal(cpustat_parse_total(T("cpu0 1 2 3 4 5 6 7\n"), &a), -EBADMSG);
	assert_int_equal(cpustat_parse_total(T("cpu  1 2 3 4 5 6\n"), &a), -EBADMSG);
	assert_int_equal(cpustat_parse_total(T("cpu  1 2 18446744073709551615 4 5 6 7\n"), &a),
			 -EBADMSG);
	assert_int_equal(cpustat_parse_total(T(""), &a), -EBADMSG);
	/* 2 CPUs over 1 s, 0.5 s idle between them: 1.5 CPU seconds busy. */
	a = (struct cpustat_total){.kernel = 0, .idle = 1000000000, .cpus = 2};
	b = (struct cpustat_total){.kernel = 0, .idle = 1500000000, .cpus = 2};
	assert_true(cpustat_busy_ns(&a, &b, 1000000000, &busy));
	assert_int_equal(busy, 1500000000);
	/* More idle than time (rounding of the ticks): 0, not negative. */
	b.idle = 3500000000;
	assert_true(cpustat_busy_ns(&a, &b, 1000000000, &busy));
	assert_int_equal(busy, 0);
	/* A CPU went offline, the idle clock went back, no earlier reading: not told. */
	busy = 7;
	b = (struct cpustat_total){.idle = 1500000000, .cpus = 1};
	assert_false(cpustat_busy_ns(&a, &b, 1000000000, &busy));
	b = (struct cpustat_total){.idle = 500000000, .cpus = 2};
	assert_false(cpustat_busy_ns(&a, &b, 1000000000, &busy));
	a.cpus = 0;
	assert_false(cpustat_busy_ns(&a, &b, 1000000000, &busy));
	assert_int_equal(busy, 7);
	/* Live: as many CPUs as the process may see at most, nanoseconds. */
	assert_int_equal(cpustat_total_ns(&a), 0);
	assert_true(a.cpus >= 1 && a.idle > 0);
}

static void test_task(void **state)
{
	struct text napi = load("napi_thread"), odd = load("odd_name");
	uint64_t ticks, ns;
	char *p;

	(void)state;
	/* The NAPI kthread had just started: utime and stime 0. */
	assert_int_equal(cpustat_parse_task(napi.s, napi.len, &ticks), 0);
	assert_int_equal(ticks, 0);
	/* "(a) b (c)": utime 4 + stime 0, the fields after the last ')'. */
	assert_int_equal(cpustat_parse_task(odd.s, odd.len, &ticks), 0);
	p = strrchr(odd.s, ')');
	{
		unsigned long long ut, st;

		assert_int_equal(sscanf(p + 1,
					" %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
					&ut, &st),
				 2);
		assert_int_equal(ticks, ut + st);
	}
	free(napi.s);
	free(odd.s);
	assert_int_equal(cpustat_parse_task(T("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12"), &ticks), 0);
	assert_int_equal(ticks, 23);
	/* No ')'; too few fields; a non-number; two spaces. */
	assert_int_equal(cpustat_parse_task(T("1 x S 1 2 3 4 5 6 7 8 9 10 11 12"), &ticks),
			 -EBADMSG);
	assert_int_equal(cpustat_parse_task(T("1 (x) S 1 2 3 4 5 6 7 8 9 10 11"), &ticks),
			 -EBADMSG);
	assert_int_equal(cpustat_parse_task(T("1 (x) S 1 2 3 4 5 6 7 8 9 10 x 12"), &ticks),
			 -EBADMSG);
	assert_int_equal(cpustat_parse_task(T("1 (x)  S 1 2 3 4 5 6 7 8 9 10 11 12"), &ticks),
			 -EBADMSG);
	/* Live: this process, and one that is gone. */
	assert_int_equal(cpustat_task_ns(getpid(), &ns), 0);
	assert_int_equal(cpustat_task_ns(0x7ffffffe, &ns), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softnet_618),	  cmocka_unit_test(test_softnet_older),
		cmocka_unit_test(test_softnet_malformed), cmocka_unit_test(test_softnet_read),
		cmocka_unit_test(test_softirq),		  cmocka_unit_test(test_task), cmocka_unit_test(test_total),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
