// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host-wide knobs (docs/knobs-stack.md "Host-wide knobs"): their rows and values as a
 * profile writes them, the files as the kernel prints them, the host's snapshot and why
 * one is unknown (a directory standing in for /proc/sys: the real one is never written
 * here), the profile's and the plans' scope, the journal's host record (docs/journal.md
 * "The host"), and an apply of the host killed midway, rolled back by actuate_orphan().
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtltune/actuate.h"
#include "rtltune/hostknob.h"
#include "rtltune/journal.h"
#include "rtltune/knob.h"
#include "rtltune/plan.h"
#include "rtltune/profile.h"

struct fx {
	char dir[64];	/* the test's own directory */
	char proc[96];	/* DIR/proc: stands in for /proc/sys */
	char state[96]; /* DIR/state: the journal */
	char conf[96];	/* DIR/p.conf */
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* DIR/proc/net/core with the three files (the values of a fresh kernel), or none. */
static void make_proc(const struct fx *fx, bool files)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/net", fx->proc);
	mkdir(fx->proc, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/net/core", fx->proc);
	mkdir(path, 0755);
	if (!files)
		return;
	snprintf(path, sizeof(path), "%s/net/core/netdev_max_backlog", fx->proc);
	put(path, "1000\n");
	snprintf(path, sizeof(path), "%s/net/core/netdev_budget", fx->proc);
	put(path, "300\n");
	snprintf(path, sizeof(path), "%s/net/core/netdev_budget_usecs", fx->proc);
	put(path, "8000\n");
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/rtltune-hostknob-XXXXXX");
	if (!mkdtemp(fx->dir)) {
		free(fx);
		return -1;
	}
	snprintf(fx->proc, sizeof(fx->proc), "%s/proc", fx->dir);
	snprintf(fx->state, sizeof(fx->state), "%s/state", fx->dir);
	snprintf(fx->conf, sizeof(fx->conf), "%s/p.conf", fx->dir);
	unsetenv("RTLTUNE_TEST_FAULT");
	unsetenv("RTLTUNE_TEST_DELAY");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[128];

	/* Only the test's own directory under /tmp. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	if (strncmp(fx->dir, "/tmp/rtltune-hostknob-", 22) == 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", fx->dir);
	free(fx);
	return 0;
}

/* ---- rows and values ----------------------------------------------------------------- */

static void test_rows(void **state)
{
	static const char *const names[] = {"net.core.netdev_max_backlog", "net.core.netdev_budget",
					    "net.core.netdev_budget_usecs"};
	char path[128];
	size_t i;

	(void)state;
	assert_int_equal(KNOB_HOST_COUNT, 3);
	for (i = 0; i < 3; i++) {
		int k = knob_from_name(names[i]);

		assert_int_equal(k, KNOB_FIRST_HOST + (int)i);
		assert_true(knob_is_host((enum knob_id)k));
		assert_int_equal(knob_desc((enum knob_id)k)->backend, KNOB_B_SYSCTL);
		assert_int_equal(knob_desc((enum knob_id)k)->min, 0);
		assert_int_equal(knob_desc((enum knob_id)k)->max, INT32_MAX);
		assert_non_null(strstr(knob_names_list(), names[i]));
	}
	assert_false(knob_is_host(KNOB_XPS_CPUS));
	assert_false(knob_is_host(KNOB_MTU));
	host_knob_path("/proc/sys", KNOB_NETDEV_BUDGET_USECS, path, sizeof(path));
	assert_string_equal(path, "/proc/sys/net/core/netdev_budget_usecs");
}

static void test_value_parse(void **state)
{
	struct knob_value v;
	char why[256];

	(void)state;
	assert_int_equal(knob_value_parse(KNOB_NETDEV_MAX_BACKLOG, "4096", &v, why, sizeof(why)),
			 0);
	assert_int_equal(v.kind, KV_NUMBER);
	assert_int_equal(v.num, 4096);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_MAX_BACKLOG, "4K", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 4096);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "0", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 0);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "2147483647", &v, why, sizeof(why)),
			 0);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "keep", &v, why, sizeof(why)), 0);
	assert_int_equal(v.kind, KV_KEEP);
	/* Beyond an int, negative, words, "max": refused, saying what is expected. */
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "2147483648", &v, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "net.core.netdev_budget expects a number up to 2147483647 "
				 "(optional K or M suffix), or keep, got '2147483648'");
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "2048M", &v, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET_USECS, "-1", &v, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why,
			    "net.core.netdev_budget_usecs -1 is out of range (0 to 2147483647)");
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "lots", &v, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_BUDGET, "12 ", &v, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(knob_value_parse(KNOB_NETDEV_MAX_BACKLOG, "max", &v, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "net.core.netdev_max_backlog expects a number up to 2147483647 "
				 "(optional K or M suffix) or keep: a host-wide value has no "
				 "'max'");
	/* The journal holds what the rows take. */
	assert_true(knob_value_valid(KNOB_NETDEV_BUDGET, 0));
	assert_true(knob_value_valid(KNOB_NETDEV_BUDGET, INT32_MAX));
	assert_false(knob_value_valid(KNOB_NETDEV_BUDGET, (int64_t)INT32_MAX + 1));
	assert_false(knob_value_valid(KNOB_NETDEV_BUDGET, -5));
}

/* The files as proc_dointvec prints them. */
static void test_file_parse(void **state)
{
	int64_t v = -7;

	(void)state;
	assert_int_equal(host_knob_parse("1000\n", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(host_knob_parse("0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(host_knob_parse("2147483647", &v), 0);
	assert_int_equal(v, INT32_MAX);
	assert_int_equal(host_knob_parse("-1\n", &v), HOST_ERR_NEGATIVE);
	assert_int_equal(host_knob_parse("", &v), -EINVAL);
	assert_int_equal(host_knob_parse("\n", &v), -EINVAL);
	assert_int_equal(host_knob_parse("12 34\n", &v), -EINVAL);
	assert_int_equal(host_knob_parse("1000\n\n", &v), -EINVAL);
	assert_int_equal(host_knob_parse("2147483648\n", &v), -EINVAL);
	assert_int_equal(host_knob_parse(" 5\n", &v), -EINVAL);
	assert_int_equal(host_knob_parse("0x10\n", &v), -EINVAL);
}

/* ---- the snapshot and the namespace check --------------------------------------------- */

static void test_snapshot(void **state)
{
	struct fx *fx = *state;
	char why[400], path[160];
	struct nic host;
	int k;

	/* No /proc/sys at all (a chroot without /proc). */
	host_snapshot(fx->proc, &host);
	assert_true(host.host);
	assert_string_equal(host.link.ifname, "host");
	assert_int_equal(host.link.ifindex, 0);
	assert_int_equal(host.val[KNOB_NETDEV_BUDGET], LINK_UNSET);
	assert_int_equal(host.host_err[KNOB_NETDEV_BUDGET - KNOB_FIRST_HOST], HOST_ERR_NO_PROC);
	assert_int_equal(host_scope(fx->proc, why, sizeof(why)), HOST_ERR_NO_PROC);
	assert_non_null(strstr(why, "(is /proc mounted?)"));
	assert_string_equal(host_why(&host, KNOB_NETDEV_BUDGET, why, sizeof(why)),
			    "net.core.netdev_budget unknown: no /proc/sys/net/core here (is /proc "
			    "mounted?)");

	/* net/core without them: another network namespace. */
	make_proc(fx, false);
	host_snapshot(fx->proc, &host);
	assert_int_equal(host.host_err[0], HOST_ERR_NETNS);
	assert_int_equal(host_scope(fx->proc, why, sizeof(why)), HOST_ERR_NETNS);
	assert_string_equal(host_why(&host, KNOB_NETDEV_MAX_BACKLOG, why, sizeof(why)),
			    "net.core.netdev_max_backlog is host-wide: only an rtltune in the "
			    "initial network namespace changes it (this one runs in another, "
			    "where /proc/sys/net/core has no netdev_max_backlog)");

	/* The initial namespace: every value, nothing else. */
	make_proc(fx, true);
	host_snapshot(fx->proc, &host);
	assert_int_equal(host_scope(fx->proc, why, sizeof(why)), 0);
	assert_int_equal(host.val[KNOB_NETDEV_MAX_BACKLOG], 1000);
	assert_int_equal(host.val[KNOB_NETDEV_BUDGET], 300);
	assert_int_equal(host.val[KNOB_NETDEV_BUDGET_USECS], 8000);
	for (k = 0; k < KNOB_FIRST_HOST; k++)
		assert_int_equal(host.val[k], LINK_UNSET);

	/* A negative value: left alone, with why. */
	snprintf(path, sizeof(path), "%s/net/core/netdev_budget", fx->proc);
	put(path, "-3\n");
	host_snapshot(fx->proc, &host);
	assert_int_equal(host.val[KNOB_NETDEV_BUDGET], LINK_UNSET);
	assert_string_equal(host_why(&host, KNOB_NETDEV_BUDGET, why, sizeof(why)),
			    "net.core.netdev_budget left alone: it holds a negative value, which "
			    "the journal cannot keep");
}

/* This process's own /proc/sys: the test runs in the initial namespace or in another, and
 * the two checks agree (read only). */
static void test_real_proc(void **state)
{
	struct nic host;
	char why[400];
	int scope;

	(void)state;
	scope = host_scope(HOST_PROC_SYS, why, sizeof(why));
	host_snapshot(HOST_PROC_SYS, &host);
	if (scope == 0) {
		assert_true(host.val[KNOB_NETDEV_MAX_BACKLOG] >= 0);
	} else {
		assert_int_equal(scope, HOST_ERR_NETNS);
		assert_int_equal(host.val[KNOB_NETDEV_MAX_BACKLOG], LINK_UNSET);
	}
}

/* ---- profiles and plans --------------------------------------------------------------- */

static int load(struct fx *fx, const char *text, struct profile **p, struct rterr *err)
{
	put(fx->conf, text);
	return profile_load(fx->conf, p, err);
}

static void test_profile_scope(void **state)
{
	struct fx *fx = *state;
	struct rterr err = {0};
	struct profile *p = NULL;
	char want[300];

	assert_int_equal(load(fx, "[knobs]\n# t\nmtu = 1400\n", &p, &err), 0);
	assert_false(profile_sets_host(p));
	profile_free(p);
	assert_int_equal(load(fx, "[knobs]\n# t\nnet.core.netdev_budget = keep\n", &p, &err), 0);
	assert_false(profile_sets_host(p));
	profile_free(p);
	assert_int_equal(load(fx, "[knobs]\n# t\nnet.core.netdev_budget = 600\n", &p, &err), 0);
	assert_true(profile_sets_host(p));
	profile_free(p);
	/* One host, one value: not per driver or chip. */
	assert_int_equal(load(fx,
			      "[knobs]\nmtu = 1400\n[driver:veth]\nnet.core.netdev_budget = 600\n",
			      &p, &err),
			 -EINVAL);
	assert_null(p);
	snprintf(want, sizeof(want),
		 "%s:4: net.core.netdev_budget is host-wide: set it in [knobs], not in "
		 "[driver:veth]",
		 fx->conf);
	assert_string_equal(err.msg, want);
	assert_int_equal(load(fx, "[knobs]\nnet.core.netdev_max_backlog = max\n", &p, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "p.conf:2: net.core.netdev_max_backlog expects"));
}

/* A device snapshot as rtltune reads one (knobs of its own, none of the host's). */
static void device(struct nic *nic)
{
	int k;

	memset(nic, 0, sizeof(*nic));
	snprintf(nic->link.ifname, sizeof(nic->link.ifname), "host"); /* a device so named */
	nic->link.ifindex = 7;
	for (k = 0; k < KNOB__COUNT; k++)
		nic->val[k] = LINK_UNSET;
	nic_max_clear(nic);
	nic->val[KNOB_MTU] = 1500;
	nic->link.min_mtu = 68;
	nic->link.max_mtu = 9000;
	nic->n_napi = -1;
}

static void test_plans(void **state)
{
	struct fx *fx = *state;
	struct rterr err = {0};
	struct profile *p = NULL;
	int64_t targets[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {false};
	struct plan *plan = calloc(1, sizeof(*plan));
	struct nic host, dev;

	assert_non_null(plan);
	make_proc(fx, true);
	assert_int_equal(load(fx,
			      "[knobs]\n# a\nmtu = 1400\n# b\nnet.core.netdev_max_backlog = 4K\n"
			      "# c\nnet.core.netdev_budget = 300\n",
			      &p, &err),
			 0);
	/* The host's plan: the host-wide knobs only. */
	host_snapshot(fx->proc, &host);
	assert_int_equal(plan_profile(p, &host, NULL, plan, &err), 0);
	assert_true(plan->host);
	assert_string_equal(plan->ifname, "host");
	assert_int_equal(plan->n_changes, 1);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].action, PLAN_CHANGE);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].cur, 1000);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].target, 4096);
	assert_int_equal(plan->items[KNOB_NETDEV_BUDGET].action, PLAN_SAME);
	assert_int_equal(plan->items[KNOB_MTU].action, PLAN_KEEP);
	assert_non_null(strstr(plan_src(plan, KNOB_NETDEV_MAX_BACKLOG), "p.conf:5"));
	/* A device's plan (even one called "host"): its own knobs only. */
	device(&dev);
	assert_int_equal(plan_profile(p, &dev, NULL, plan, &err), 0);
	assert_false(plan->host);
	assert_int_equal(plan->n_changes, 1);
	assert_int_equal(plan->items[KNOB_MTU].action, PLAN_CHANGE);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].action, PLAN_KEEP);
	/* Outside the initial namespace the host's are skipped with why, not refused. */
	make_proc(fx, true);
	host_snapshot(fx->proc, &host);
	host.val[KNOB_NETDEV_MAX_BACKLOG] = LINK_UNSET;
	host.host_err[0] = HOST_ERR_NETNS;
	assert_int_equal(plan_profile(p, &host, NULL, plan, &err), 0);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].action, PLAN_SKIP);
	assert_non_null(strstr(plan_note(plan, KNOB_NETDEV_MAX_BACKLOG),
			       "only an rtltune in the initial network namespace changes it"));
	/* An explicit target of the other kind: skipped, saying so (a sweep refuses it). */
	which[KNOB_NETDEV_BUDGET] = true;
	targets[KNOB_NETDEV_BUDGET] = 600;
	assert_int_equal(plan_values(&dev, NULL, targets, which, "sweep", plan, &err), 0);
	assert_int_equal(plan->items[KNOB_NETDEV_BUDGET].action, PLAN_SKIP);
	assert_string_equal(plan_note(plan, KNOB_NETDEV_BUDGET),
			    "net.core.netdev_budget is host-wide, not a knob of host (a profile's "
			    "[knobs] sets it once for the host)");
	which[KNOB_NETDEV_BUDGET] = false;
	which[KNOB_MTU] = true;
	targets[KNOB_MTU] = 1400;
	host_snapshot(fx->proc, &host);
	assert_int_equal(plan_values(&host, NULL, targets, which, "x", plan, &err), 0);
	assert_int_equal(plan->items[KNOB_MTU].action, PLAN_SKIP);
	profile_free(p);
	free(plan);
}

/* ---- the journal's host record -------------------------------------------------------- */

static struct journal *open_ok(const struct fx *fx)
{
	struct rterr err = {0};
	struct journal *j = NULL;
	int r = journal_open_timeout(fx->state, 2000, &j, &err);

	if (r)
		fail_msg("journal_open: %d %s", r, err.msg);
	return j;
}

static void test_journal_host(void **state)
{
	struct fx *fx = *state;
	struct journal_ident hid, dev, other;
	struct rterr err = {0};
	int64_t vals[KNOB__COUNT], got[KNOB__COUNT];
	bool which[KNOB__COUNT] = {false}, have[KNOB__COUNT];
	struct journal *j;
	char path[160], text[4096], *line;

	journal_ident_host(&hid);
	assert_true(journal_ident_is_host(&hid));
	assert_string_equal(hid.ifname, "host");
	assert_string_equal(hid.perm_addr, "");
	assert_true(hid.boot_id[0] != '\0');
	/* A device called "host" in the same netns and boot is another record. */
	dev = hid;
	dev.ifindex = 7;
	assert_false(journal_ident_same(&hid, &dev));

	j = open_ok(fx);
	memset(vals, 0, sizeof(vals));
	vals[KNOB_NETDEV_MAX_BACKLOG] = 1000;
	vals[KNOB_MTU] = 1500;
	which[KNOB_NETDEV_MAX_BACKLOG] = true;
	assert_int_equal(journal_record_originals(j, &hid, vals, which, &err), 0);
	which[KNOB_NETDEV_MAX_BACKLOG] = false;
	which[KNOB_MTU] = true;
	assert_int_equal(journal_record_originals(j, &dev, vals, which, &err), 0);
	/* The writer keeps the two apart. */
	assert_int_equal(journal_record_originals(j, &hid, vals, which, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "mtu is not a host-wide knob"));
	which[KNOB_MTU] = false;
	which[KNOB_NETDEV_BUDGET] = true;
	assert_int_equal(journal_record_originals(j, &dev, vals, which, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "net.core.netdev_budget is host-wide"));
	journal_close(j);

	/* On disk, and read back as written. */
	snprintf(path, sizeof(path), "%s/journal", fx->state);
	get(path, text, sizeof(text));
	line = strstr(text, "iface host ifindex=0 ");
	assert_non_null(line);
	assert_non_null(strstr(line, " perm=- "));
	assert_non_null(strstr(text, "\torig net.core.netdev_max_backlog 1000\n"));
	j = open_ok(fx);
	assert_int_equal(journal_get_originals(j, &hid, got, have, &err), 1);
	assert_true(have[KNOB_NETDEV_MAX_BACKLOG]);
	assert_int_equal(got[KNOB_NETDEV_MAX_BACKLOG], 1000);
	assert_false(have[KNOB_MTU]);
	assert_int_equal(journal_get_originals(j, &dev, got, have, &err), 1);
	assert_true(have[KNOB_MTU]);
	/* The host of another netns (or boot): nothing to restore, and no -ESTALE. */
	other = hid;
	other.netns_cookie = hid.netns_cookie + 1000;
	assert_int_equal(journal_get_originals(j, &other, got, have, &err), 0);
	/* A device named "host" that is not the recorded one: the usual -ESTALE, about the
	 * device's record, never the host's. */
	dev.ifindex = 8;
	assert_int_equal(journal_get_originals(j, &dev, got, have, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "ifindex 7"));
	journal_close(j);
}

/* A file from another hand: a host-wide knob in a device's block, ifindex 0 named else. */
static void test_journal_refusals(void **state)
{
	static const struct {
		const char *body, *why;
	} bad[] = {
		{"iface eth0 ifindex=2 netns=1 perm=- boot=- since=1\n"
		 "\torig net.core.netdev_budget 300\n",
		 ":4: net.core.netdev_budget in the block of a device: a host-wide knob belongs to "
		 "the host's"},
		{"iface host ifindex=0 netns=1 perm=- boot=- since=1\n\torig mtu 1500\n",
		 ":4: mtu in the block of the host: only host-wide knobs belong there"},
		{"iface eth0 ifindex=0 netns=1 perm=- boot=- since=1\n"
		 "\torig net.core.netdev_budget 300\n",
		 ":3: ifindex=0 is the host's record only"},
		{"iface host ifindex=0 netns=1 perm=52:54:00:12:34:56 boot=- since=1\n"
		 "\torig net.core.netdev_budget 300\n",
		 ":3: ifindex=0 is the host's record only"},
		{"inflight host ifindex=0 netns=1 perm=- boot=- since=1 op=apply actor=cli pid=1 "
		 "pidstart=1\n\tpre txqueuelen 1000\n",
		 ":4: txqueuelen in the block of the host"},
	};
	struct fx *fx = *state;
	struct rterr err = {0};
	struct journal *j = NULL;
	char path[160], text[1024];
	size_t i;

	mkdir(fx->state, 0750);
	snprintf(path, sizeof(path), "%s/journal", fx->state);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "rtltune-journal 1\n# x\n%send 2\n", bad[i].body);
		put(path, text);
		assert_int_equal(journal_open_timeout(fx->state, 2000, &j, &err), -EBADMSG);
		if (!strstr(err.msg, bad[i].why))
			fail_msg("case %zu: %s", i, err.msg);
	}
	/* The host's record as the writer makes it is taken. */
	put(path, "rtltune-journal 1\niface host ifindex=0 netns=1 perm=- boot=- since=1\n"
		  "\torig net.core.netdev_budget 300\nend 2\n");
	assert_int_equal(journal_open_timeout(fx->state, 2000, &j, &err), 0);
	journal_close(j);
}

/* The host's record is never a device gone from here. */
static void test_gone_keeps_host(void **state)
{
	struct journal_entry ents[2];
	struct journal_here here = {
		.netns_cookie = 1, .ifindexes = (const int[]){1}, .n_ifindexes = 1};
	bool ent_gone[2], op_gone[1];
	int k;

	(void)state;
	memset(ents, 0, sizeof(ents));
	journal_ident_host(&ents[0].id);
	ents[0].id.netns_cookie = 1;
	snprintf(here.boot_id, sizeof(here.boot_id), "%s", ents[0].id.boot_id);
	ents[0].have[KNOB_NETDEV_BUDGET] = true;
	ents[1] = ents[0];
	snprintf(ents[1].id.ifname, sizeof(ents[1].id.ifname), "veth9");
	ents[1].id.ifindex = 9;
	for (k = 0; k < KNOB__COUNT; k++)
		ents[1].have[k] = k == KNOB_MTU;
	assert_int_equal(journal_gone_select(ents, 2, NULL, 0, &here, ent_gone, op_gone), 1);
	assert_false(ent_gone[0]);
	assert_true(ent_gone[1]);
}

/* ---- an apply of the host killed midway ---------------------------------------------- */

static void test_orphan_rollback(void **state)
{
	struct fx *fx = *state;
	struct journal_ident hid;
	const struct journal_inflight *ops;
	struct journal_inflight op;
	struct actuator *a = NULL;
	struct rterr err = {0};
	int64_t pre[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {false};
	struct plan *plan = calloc(1, sizeof(*plan));
	struct journal *j;
	struct nic host;
	char path[160], buf[32];
	pid_t child;
	int status, n;

	assert_non_null(plan);
	make_proc(fx, true);
	journal_ident_host(&hid);
	/* A process begins the apply of the host (backlog 1000 -> 4096), changes the file, and
	 * dies before it ends the record. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct journal *cj = NULL;

		pre[KNOB_NETDEV_MAX_BACKLOG] = 1000;
		which[KNOB_NETDEV_MAX_BACKLOG] = true;
		if (journal_open_timeout(fx->state, 2000, &cj, &err) < 0 ||
		    journal_inflight_begin(cj, &hid, "apply", "cli", pre, which, &err) < 0)
			_exit(1);
		snprintf(path, sizeof(path), "%s/net/core/netdev_max_backlog", fx->proc);
		put(path, "4096\n");
		_exit(0); /* no journal_inflight_end(): killed */
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(WEXITSTATUS(status), 0);

	j = open_ok(fx);
	n = journal_inflight_list(j, &ops);
	assert_int_equal(n, 1);
	assert_true(ops[0].orphaned);
	assert_true(journal_ident_is_host(&ops[0].id));
	op = ops[0];
	assert_int_equal(actuator_new("/sys", &a, &err), 0);
	actuator_set_proc_sys(a, fx->proc);
	actuator_host_snapshot(a, &host);
	assert_int_equal(host.val[KNOB_NETDEV_MAX_BACKLOG], 4096);
	/* Rolled back through the actuator: the file, the record, the log. */
	assert_int_equal(actuate_orphan(a, j, &op, &host, plan, &err), ACT_ORPHAN_ROLLED_BACK);
	snprintf(path, sizeof(path), "%s/net/core/netdev_max_backlog", fx->proc);
	assert_string_equal(get(path, buf, sizeof(buf)), "1000\n");
	assert_true(plan->host);
	assert_int_equal(plan->items[KNOB_NETDEV_MAX_BACKLOG].after, 1000);
	assert_int_equal(journal_inflight_list(j, &ops), 0);
	journal_close(j);

	/* The originals stay (the apply journaled them): a restore puts back 1000, then the
	 * journal forgets them. */
	put(path, "2000\n");
	j = open_ok(fx);
	actuator_host_snapshot(a, &host);
	{
		struct plan *plans = calloc(PLAN_SET_MAX, sizeof(*plans));
		unsigned int np = 1;
		char note[256];
		int64_t got[KNOB__COUNT];
		bool have[KNOB__COUNT];

		assert_non_null(plans);
		assert_int_equal(actuate_restore(a, j, &host, NULL, "cli", plans, &np, note,
						 sizeof(note), &err),
				 1);
		assert_string_equal(get(path, buf, sizeof(buf)), "1000\n");
		assert_int_equal(journal_get_originals(j, &hid, got, have, &err), 0);
		free(plans);
	}
	journal_close(j);

	/* A refused write (the kernel's EINVAL, here a directory where the file was): the
	 * change fails with the errno, nothing is left changed, the record ends. */
	snprintf(path, sizeof(path), "%s/net/core/netdev_budget", fx->proc);
	unlink(path);
	mkdir(path, 0755);
	j = open_ok(fx);
	actuator_host_snapshot(a, &host);
	memset(which, 0, sizeof(which));
	which[KNOB_NETDEV_MAX_BACKLOG] = which[KNOB_NETDEV_BUDGET] = true;
	pre[KNOB_NETDEV_MAX_BACKLOG] = 3000;
	pre[KNOB_NETDEV_BUDGET] = 600;
	host.val[KNOB_NETDEV_BUDGET] = 300; /* as if readable */
	assert_int_equal(plan_values(&host, NULL, pre, which, "test", plan, &err), 0);
	assert_int_equal(plan->n_changes, 2);
	{
		struct act_opts o = {.op = "apply", .actor = "cli", .journal_originals = true};

		assert_true(actuate(a, j, plan, &o, &err) < 0);
	}
	assert_non_null(strstr(err.msg, "net.core.netdev_budget"));
	assert_non_null(strstr(err.msg, "undone: net.core.netdev_max_backlog back to 1000"));
	snprintf(path, sizeof(path), "%s/net/core/netdev_max_backlog", fx->proc);
	assert_string_equal(get(path, buf, sizeof(buf)), "1000\n");
	assert_int_equal(journal_inflight_list(j, &ops), 0);
	journal_close(j);
	actuator_free(a);
	free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_value_parse),
		cmocka_unit_test(test_file_parse),
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
		cmocka_unit_test(test_real_proc),
		cmocka_unit_test_setup_teardown(test_profile_scope, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_refusals, setup, teardown),
		cmocka_unit_test(test_gone_keeps_host),
		cmocka_unit_test_setup_teardown(test_orphan_rollback, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
