// SPDX-License-Identifier: GPL-2.0-only
/* Profiles: parsing, include flattening, precedence, lookup, errors, the built-ins. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tree.h"

#include "rtltune/chipdb.h"
#include "rtltune/profile.h"


static const char *fixture(const char *rel)
{
	/* A ring: a test may hold a few results while building a message from more. */
	static char buf[64][PATH_MAX];
	static unsigned int next;
	char *b = buf[next++ % 64];

	snprintf(b, PATH_MAX, "%s/tests/unit/fixtures/profiles/%s", tree, rel);
	return b;
}


/* Load name_or_path with the directory list dirs (fixture-relative, NULL-terminated). */
static struct profile *load_ok(const char *name_or_path, const char *d0, const char *d1)
{
	const char *dirs[3] = {d0 ? strdup(d0) : NULL, d1 ? strdup(d1) : NULL, NULL};
	struct rterr err = {0};
	struct profile *p = NULL;
	int r = profile_load_dirs(name_or_path, dirs, &p, &err);

	if (r)
		fail_msg("loading %s: %s", name_or_path, err.msg);
	assert_non_null(p);
	assert_int_equal(err.kind, RTERR_NONE);
	free((char *)dirs[0]);
	free((char *)dirs[1]);
	return p;
}

static void assert_setting(const struct profile_setting *s, enum knob_value_kind kind, int64_t num,
			   const char *file_rel, unsigned int line)
{
	assert_int_equal(s->value.kind, kind);
	if (kind == KV_NUMBER)
		assert_int_equal(s->value.num, num);
	if (!file_rel) {
		assert_null(s->file);
		assert_int_equal(s->line, 0);
		return;
	}
	assert_non_null(s->file);
	assert_string_equal(s->file, fixture(file_rel));
	assert_int_equal(s->line, line);
}

static void test_parse_values_and_comments(void **state)
{
	struct profile *p = load_ok(fixture("ok/basic.conf"), NULL, NULL);
	const struct profile_section *g = &p->sections[0], *d, *c;

	assert_string_equal(p->name, "basic");
	assert_string_equal(p->description, "Basic fixture");
	assert_int_equal(p->n_files, 1);
	assert_int_equal(p->n_sections, 3);
	assert_int_equal(g->scope, PROFILE_SCOPE_GENERIC);
	assert_string_equal(g->name, "knobs");

	assert_setting(&g->knobs[KNOB_MTU], KV_NUMBER, 9000, "ok/basic.conf", 6);
	assert_setting(&g->knobs[KNOB_TSO], KV_NUMBER, 1, "ok/basic.conf", 7);
	assert_setting(&g->knobs[KNOB_GSO], KV_NUMBER, 0, "ok/basic.conf", 9);
	assert_setting(&g->knobs[KNOB_GRO_MAX_SIZE], KV_NUMBER, 65536, "ok/basic.conf", 10);
	assert_setting(&g->knobs[KNOB_GSO_MAX_SIZE], KV_MAX, 0, "ok/basic.conf", 11);
	assert_setting(&g->knobs[KNOB_GRO], KV_KEEP, 0, "ok/basic.conf", 12);
	assert_setting(&g->knobs[KNOB_GSO_MAX_SEGS], KV_NUMBER, 1048576, "ok/basic.conf", 13);
	assert_setting(&g->knobs[KNOB_GSO_IPV4_MAX_SIZE], KV_UNSET, 0, NULL, 0);

	/* The comment on the line, else the one directly above, else none. */
	assert_string_equal(g->knobs[KNOB_TSO].why, "inline why");
	assert_string_equal(g->knobs[KNOB_GSO].why, "why above gso");
	assert_null(g->knobs[KNOB_MTU].why);
	assert_null(g->knobs[KNOB_GRO_MAX_SIZE].why);

	d = profile_find_section(p, PROFILE_SCOPE_DRIVER, "r8169");
	c = profile_find_section(p, PROFILE_SCOPE_CHIP, "rtl8126a");
	assert_ptr_equal(d, &p->sections[1]);
	assert_ptr_equal(c, &p->sections[2]);
	assert_string_equal(d->name, "driver:r8169");
	assert_string_equal(c->match, "rtl8126a");
	assert_setting(&d->knobs[KNOB_GSO_MAX_SIZE], KV_NUMBER, 64000, "ok/basic.conf", 18);
	/* A comment of several lines is kept whole, its lines joined. */
	assert_string_equal(d->knobs[KNOB_GSO_MAX_SIZE].why, "a why of two lines is one why");
	assert_string_equal(d->knobs[KNOB_GSO_MAX_SIZE].section, "driver:r8169");
	assert_int_equal(d->knobs[KNOB_GSO_MAX_SIZE].scope, PROFILE_SCOPE_DRIVER);
	assert_setting(&c->knobs[KNOB_TSO], KV_NUMBER, 0, "ok/basic.conf", 21);
	assert_setting(&d->knobs[KNOB_TSO], KV_UNSET, 0, NULL, 0);
	assert_null(profile_find_section(p, PROFILE_SCOPE_DRIVER, "fec"));
	assert_null(profile_find_section(p, PROFILE_SCOPE_CHIP, NULL));
	profile_free(p);
}

/* Files written on Windows: a byte order mark and CRLF line ends. */
static void test_bom_crlf(void **state)
{
	struct profile *p = load_ok(fixture("ok/bom.conf"), NULL, NULL);

	assert_setting(&p->sections[0].knobs[KNOB_TSO], KV_NUMBER, 0, "ok/bom.conf", 2);
	profile_free(p);
}

static void test_value_str(void **state)
{
	struct knob_value v = {KV_NUMBER, 1};
	char buf[32];

	assert_string_equal(profile_value_str(KNOB_TSO, &v, buf, sizeof(buf)), "on");
	v.num = 0;
	assert_string_equal(profile_value_str(KNOB_GRO, &v, buf, sizeof(buf)), "off");
	v.num = 65536;
	assert_string_equal(profile_value_str(KNOB_GSO_MAX_SIZE, &v, buf, sizeof(buf)), "65536");
	v.kind = KV_MAX;
	assert_string_equal(profile_value_str(KNOB_GSO_MAX_SIZE, &v, buf, sizeof(buf)), "max");
	v.kind = KV_UNSET;
	assert_string_equal(profile_value_str(KNOB_MTU, &v, buf, sizeof(buf)), "keep");
}

static void test_include_by_name_and_path(void **state)
{
	struct profile *p = load_ok(fixture("ok/grandchild.conf"), fixture("ok"), NULL);
	const struct profile_section *g = &p->sections[0], *d;

	/* grandchild -> sub/../child.conf (path, relative to grandchild) -> parent (name). */
	assert_int_equal(p->n_files, 3);
	assert_string_equal(p->files[0].path, fixture("ok/grandchild.conf"));
	assert_null(p->files[0].included_from);
	assert_string_equal(p->files[1].name, "child");
	assert_string_equal(p->files[1].path, fixture("ok/sub/../child.conf"));
	assert_string_equal(p->files[2].name, "parent");
	assert_string_equal(p->files[2].path, fixture("ok/parent.conf"));
	assert_string_equal(p->description, "Grandchild");

	assert_setting(&g->knobs[KNOB_TSO], KV_NUMBER, 1, "ok/parent.conf", 4);
	assert_setting(&g->knobs[KNOB_GSO], KV_NUMBER, 0, "ok/sub/../child.conf", 2);
	assert_setting(&g->knobs[KNOB_GRO], KV_NUMBER, 0, "ok/grandchild.conf", 5);
	/* The include line sits below child's [knobs]: parent still lays down first. */
	d = profile_find_section(p, PROFILE_SCOPE_DRIVER, "r8169");
	assert_non_null(d);
	assert_setting(&d->knobs[KNOB_GSO_MAX_SIZE], KV_NUMBER, 32000, "ok/parent.conf", 8);
	assert_setting(&d->knobs[KNOB_GRO], KV_NUMBER, 0, "ok/sub/../child.conf", 6);
	profile_free(p);

	/* child by name inherits parent's description; a path include from a subdirectory. */
	p = load_ok("child", fixture("ok"), NULL);
	assert_string_equal(p->description, "Parent");
	char from[PATH_MAX];
	snprintf(from, sizeof(from), "%s:4", fixture("ok/child.conf"));
	assert_string_equal(p->files[1].included_from, from);
	profile_free(p);
	p = load_ok(fixture("ok/sub/nested.conf"), fixture("ok"), NULL);
	assert_string_equal(p->files[1].path, fixture("ok/sub/../parent.conf"));
	assert_setting(&p->sections[0].knobs[KNOB_TSO], KV_NUMBER, 1, "ok/sub/../parent.conf", 4);
	profile_free(p);
}

static void expect_resolved(const struct profile *p, const char *drv, const char *chip, int64_t gso,
			    int64_t gro, const char *gso_section)
{
	struct profile_setting out[KNOB__COUNT];

	profile_resolve(p, drv, chip, out);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.num, gso);
	assert_int_equal(out[KNOB_GRO_MAX_SIZE].value.num, gro);
	assert_string_equal(out[KNOB_GSO_MAX_SIZE].section, gso_section);
	assert_int_equal(out[KNOB_MTU].value.num, 1100);
	assert_int_equal(out[KNOB_TSO].value.kind, KV_UNSET);
}

static void test_precedence(void **state)
{
	struct profile *p = load_ok("prec_top", fixture("ok"), NULL);
	struct profile_setting out[KNOB__COUNT];

	/* Includer beats included at the same level. */
	expect_resolved(p, NULL, NULL, 1100, 1100, "knobs");
	expect_resolved(p, "", "", 1100, 1100, "knobs");
	expect_resolved(p, "nomatch", "nomatch", 1100, 1100, "knobs");
	/* Driver beats generic even when the driver value comes from the included file. */
	expect_resolved(p, "drv", NULL, 2000, 2100, "driver:drv");
	/* Chip beats driver and generic, wherever each was set. */
	expect_resolved(p, "drv", "chp", 3000, 2100, "chip:chp");
	expect_resolved(p, NULL, "chp", 3000, 1100, "chip:chp");
	expect_resolved(p, "drv", "other", 3100, 2100, "chip:other");

	profile_resolve(p, "drv", "chp", out);
	assert_setting(&out[KNOB_GSO_MAX_SIZE], KV_NUMBER, 3000, "ok/prec_base.conf", 9);
	assert_setting(&out[KNOB_GRO_MAX_SIZE], KV_NUMBER, 2100, "ok/prec_top.conf", 8);
	assert_setting(&out[KNOB_MTU], KV_NUMBER, 1100, "ok/prec_top.conf", 6);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].scope, PROFILE_SCOPE_CHIP);

	/* One flattened section per (scope, match): generic, driver, then chips in order. */
	assert_int_equal(p->n_sections, 4);
	assert_string_equal(p->sections[1].name, "driver:drv");
	assert_string_equal(p->sections[2].name, "chip:chp");
	assert_string_equal(p->sections[3].name, "chip:other");
	profile_free(p);
}

static void test_admin_beats_shipped(void **state)
{
	struct profile_summary *list = NULL;
	const char *dirs[3] = {NULL, NULL, NULL};
	struct rterr err = {0};
	struct profile *p;
	unsigned int n = 0;
	char env[2 * PATH_MAX + 2];

	/* The real lookup path: RTLTUNE_PROFILE_PATH lists admin before shipped. */
	snprintf(env, sizeof(env), "%s:%s", fixture("admin"), fixture("shipped"));
	setenv("RTLTUNE_PROFILE_PATH", env, 1);
	assert_int_equal(profile_load("shared", &p, &err), 0);
	assert_string_equal(p->path, fixture("admin/shared.conf"));
	assert_string_equal(p->description, "Admin shared");
	/* "include = shared" in the admin copy means the next shared.conf: the shipped one. */
	assert_int_equal(p->n_files, 2);
	assert_string_equal(p->files[1].path, fixture("shipped/shared.conf"));
	assert_setting(&p->sections[0].knobs[KNOB_TSO], KV_NUMBER, 0, "admin/shared.conf", 5);
	assert_setting(&p->sections[0].knobs[KNOB_GSO], KV_NUMBER, 1, "shipped/shared.conf", 5);
	profile_free(p);
	assert_int_equal(profile_load("only_shipped", &p, &err), 0);
	assert_string_equal(p->path, fixture("shipped/only_shipped.conf"));
	profile_free(p);

	assert_int_equal(profile_list(&list, &n, &err), 0);
	unsetenv("RTLTUNE_PROFILE_PATH");
	/* Other directories (/etc, /usr/share) may add entries: look for ours by path. */
	unsigned int i, seen = 0;
	for (i = 0; i < n; i++) {
		if (!strcmp(list[i].path, fixture("admin/shared.conf"))) {
			assert_false(list[i].shadowed);
			assert_string_equal(list[i].description, "Admin shared");
			assert_null(list[i].error);
			assert_true(i + 1 < n);
			assert_string_equal(list[i + 1].path, fixture("shipped/shared.conf"));
			assert_true(list[i + 1].shadowed);
			assert_string_equal(list[i + 1].shadowed_by, fixture("admin/shared.conf"));
			assert_string_equal(list[i + 1].description, "Shipped shared");
			seen++;
		}
		if (!strcmp(list[i].path, fixture("admin/only_admin.conf")) ||
		    !strcmp(list[i].path, fixture("shipped/only_shipped.conf"))) {
			assert_false(list[i].shadowed);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	profile_list_free(list, n);

	/* Exactly the two directories: sorted by name, in-use file before the shadowed one. */
	dirs[0] = fixture("admin");
	dirs[1] = fixture("shipped");
	assert_int_equal(profile_list_dirs(dirs, &list, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(list[0].name, "only_admin");
	assert_string_equal(list[1].name, "only_shipped");
	assert_string_equal(list[2].name, "shared");
	assert_false(list[2].shadowed);
	assert_string_equal(list[3].name, "shared");
	assert_true(list[3].shadowed);
	profile_list_free(list, n);
}

static void test_list_reports_broken_files(void **state)
{
	const char *dirs[2] = {fixture("bad"), NULL};
	struct profile_summary *list = NULL;
	struct rterr err = {0};
	unsigned int n = 0, i, broken = 0;
	char want[PATH_MAX + 64];

	assert_int_equal(profile_list_dirs(dirs, &list, &n, &err), 0);
	assert_int_equal(n, 18);
	for (i = 0; i < n; i++) {
		assert_non_null(list[i].error);
		broken++;
	}
	assert_int_equal(broken, 18);
	snprintf(want, sizeof(want), "%s:3: ", fixture("bad/malformed.conf"));
	assert_string_equal(list[6].name, "malformed");
	assert_memory_equal(list[6].error, want, strlen(want));
	profile_list_free(list, n);
}

/* Load a broken fixture: exit-2 kind, nothing returned, message exactly as given. */
static void expect_error(const char *name_or_path, const char *dir, const char *want)
{
	const char *dirs[2] = {dir, NULL};
	struct profile *p = (struct profile *)&p; /* must come back NULL */
	struct rterr err = {0};
	int r = profile_load_dirs(name_or_path, dirs, &p, &err);

	assert_int_equal(r, -EINVAL);
	assert_null(p);
	assert_int_equal(err.kind, RTERR_INPUT);
	assert_string_equal(err.msg, want);
}

#define BAD(rel) fixture("bad/" rel)

static void test_errors(void **state)
{
	char want[1024], bad[PATH_MAX];

	snprintf(bad, sizeof(bad), "%s", fixture("bad"));

	snprintf(want, sizeof(want),
		 "%s:4: unknown section [knbos]; expected [profile], [knobs], [driver:NAME] or "
		 "[chip:ID]",
		 BAD("unknown_section.conf"));
	expect_error("unknown_section", bad, want);
	snprintf(
		want, sizeof(want),
		"%s:3: unknown section [vendor:foo]; expected [profile], [knobs], [driver:NAME] or "
		"[chip:ID]",
		BAD("unknown_section_kind.conf"));
	expect_error("unknown_section_kind", bad, want);
	snprintf(
		want, sizeof(want),
		"%s:3: unknown knob 'gso_max_sz' in [knobs]; expected one of mtu, tso, gso, gro, "
		"gso_max_size, gso_ipv4_max_size, gro_max_size, gro_ipv4_max_size, gso_max_segs, "
		"txqueuelen, ring_*, coalesce_*, channels_*, pause_*, feature.NAME, napi_threaded, "
		"napi_defer_hard_irqs, gro_flush_timeout, irq_suspend_timeout, rps_cpus, "
		"rps_flow_cnt, xps_cpus, net.core.netdev_max_backlog, net.core.netdev_budget, "
		"net.core.netdev_budget_usecs (`rtltune knobs` lists them all)",
		BAD("unknown_knob.conf"));
	expect_error("unknown_knob", bad, want);
	snprintf(want, sizeof(want),
		 "%s:2: unknown key 'descripton' in [profile]; expected description or include",
		 BAD("unknown_profile_key.conf"));
	expect_error("unknown_profile_key", bad, want);
	snprintf(want, sizeof(want),
		 "%s:3: gso_max_size expects a number up to 4294967295 (optional K or M suffix), "
		 "max or keep, got 'lots'",
		 BAD("malformed.conf"));
	expect_error("malformed", bad, want);
	snprintf(want, sizeof(want), "%s:2: tso expects on, off, max or keep, got 'maybe'",
		 BAD("malformed_bool.conf"));
	expect_error(BAD("malformed_bool.conf"), bad, want);
	snprintf(want, sizeof(want), "%s:6: duplicate key 'tso' in [knobs] (first set at line 2)",
		 BAD("dup.conf"));
	expect_error("dup", bad, want);
	snprintf(want, sizeof(want),
		 "%s:3: duplicate key 'include' in [profile] (first set at line 2)",
		 BAD("dup_include.conf"));
	expect_error("dup_include", bad, want);
	snprintf(want, sizeof(want), "%s:4: include loop: %s -> %s -> %s", BAD("loop_b.conf"),
		 BAD("loop_a.conf"), BAD("loop_b.conf"), BAD("loop_a.conf"));
	expect_error("loop_a", bad, want);
	snprintf(want, sizeof(want),
		 "%s:2: include 'self': a profile including its own name extends the next "
		 "self.conf in the profile path, and there is none after %s",
		 BAD("self.conf"), BAD("self.conf"));
	expect_error("self", bad, want);
	snprintf(want, sizeof(want), "%s:3: include: unknown profile 'nosuch' (available: ",
		 BAD("missing_include.conf"));
	{
		const char *dirs[2] = {bad, NULL};
		struct profile *p = NULL;
		struct rterr err = {0};

		assert_int_equal(profile_load_dirs("missing_include", dirs, &p, &err), -EINVAL);
		assert_null(p);
		assert_int_equal(err.kind, RTERR_INPUT);
		assert_memory_equal(err.msg, want, strlen(want));
		assert_non_null(strstr(err.msg, "loop_a, loop_b, malformed"));
	}
	snprintf(want, sizeof(want), "%s:2: include 'sub/none.conf': %s: No such file or directory",
		 BAD("missing_include_path.conf"), BAD("sub/none.conf"));
	expect_error("missing_include_path", bad, want);
	/* An error inside an included file names that file's line. */
	snprintf(want, sizeof(want),
		 "%s:3: gso_max_size expects a number up to 4294967295 (optional K or M suffix), "
		 "max or keep, got 'lots'",
		 BAD("malformed.conf"));
	expect_error("bad_in_include", bad, want);
	snprintf(want, sizeof(want),
		 "%s:2: 'tso' outside a section; expected a [profile] or [knobs] header first",
		 BAD("outside.conf"));
	expect_error("outside", bad, want);
	snprintf(want, sizeof(want),
		 "%s:2: expected 'key = value', a [section] header or a comment, got 'tso on'",
		 BAD("syntax.conf"));
	expect_error("syntax", bad, want);
	snprintf(want, sizeof(want),
		 "%s:3: [chip:bad id]: expected a chip id of 1-47 letters, digits, '_', '.' or '-'",
		 BAD("bad_match.conf"));
	expect_error("bad_match", bad, want);
	snprintf(want, sizeof(want), "%s:1: section header '[knobs' lacks its ']'",
		 BAD("unclosed.conf"));
	expect_error("unclosed", bad, want);
}

static void test_unknown_profile(void **state)
{
	char want[1024];

	expect_error("nosuch", fixture("admin"),
		     "unknown profile 'nosuch' (available: only_admin, shared)");
	snprintf(want, sizeof(want), "cannot open profile %s: No such file or directory",
		 fixture("nodir/x.conf"));
	expect_error(fixture("nodir/x.conf"), fixture("admin"), want);
	expect_error("..", fixture("admin"), "invalid profile name '..'");
	snprintf(want, sizeof(want), "unknown profile 'x': no profiles in the profile path (%s)",
		 fixture(""));
	expect_error("x", fixture(""), want);
}

/* The shipped profiles: all load, MTU is never touched, every line says why. */
static void test_builtins(void **state)
{
	static const char *const names[] = {"balanced", "throughput", "latency", "powersave"};
	struct profile_setting out[KNOB__COUNT];
	char dir[PATH_MAX];
	unsigned int i, s, k;
	struct profile *p;

	snprintf(dir, sizeof(dir), "%s/profiles", tree);
	for (i = 0; i < 4; i++) {
		p = load_ok(names[i], dir, NULL);
		assert_non_null(p->description);
		for (s = 0; s < p->n_sections; s++) {
			const struct profile_section *sec = &p->sections[s];

			assert_int_equal(sec->knobs[KNOB_MTU].value.kind,
					 sec->scope == PROFILE_SCOPE_GENERIC ? KV_KEEP : KV_UNSET);
			for (k = 0; k < KNOB__COUNT; k++) {
				if (!sec->knobs[k].line)
					continue;
				if (!sec->knobs[k].why)
					fail_msg("%s:%u: no comment saying why", sec->knobs[k].file,
						 sec->knobs[k].line);
			}
		}
		/* Every knob of rtnetlink's is spelled out once the chain reaches balanced (the
		 * ethtool groups' and features only where a profile has a reason). */
		for (k = 0; k < KNOB_FIRST_ETHNL; k++)
			assert_int_not_equal(p->sections[0].knobs[k].value.kind, KV_UNSET);
		profile_resolve(p, "r8169", "rtl8126a", out);
		assert_int_equal(out[KNOB_TSO].value.kind, KV_NUMBER);
		assert_int_equal(out[KNOB_TSO].value.num, 0);
		assert_int_equal(out[KNOB_MTU].value.kind, KV_KEEP);
		/* r8169 has no BIG TCP, and its oldest chips stop at tso_max_size 32000. */
		assert_true(out[KNOB_GSO_MAX_SIZE].value.kind == KV_KEEP ||
			    out[KNOB_GSO_MAX_SIZE].value.kind == KV_MAX ||
			    (out[KNOB_GSO_MAX_SIZE].value.kind == KV_NUMBER &&
			     out[KNOB_GSO_MAX_SIZE].value.num <= 32000));
		profile_resolve(p, "fec", NULL, out);
		assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.num, 16384);
		assert_int_equal(out[KNOB_GSO_IPV4_MAX_SIZE].value.num, 16384);
		profile_resolve(p, "veth", NULL, out);
		assert_int_equal(out[KNOB_TSO].value.num, 1);
		assert_int_equal(out[KNOB_GRO].value.num, 1);
		profile_free(p);
	}
	p = load_ok("throughput", dir, NULL);
	profile_resolve(p, "mana", NULL, out);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.kind, KV_MAX);
	assert_int_equal(out[KNOB_GRO_MAX_SIZE].value.kind, KV_MAX);
	/* Old r8169 chips stop at 32000: a number would be refused there, max fits all. */
	profile_resolve(p, "r8169", NULL, out);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.kind, KV_MAX);
	assert_string_equal(out[KNOB_GSO_MAX_SIZE].section, "driver:r8169");
	assert_int_equal(out[KNOB_GSO_IPV4_MAX_SIZE].value.kind, KV_MAX);
	profile_free(p);
	p = load_ok("latency", dir, NULL);
	profile_resolve(p, "mana", NULL, out);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.num, 80 * 1024);
	profile_resolve(p, "ixgbe", NULL, out);
	assert_int_equal(out[KNOB_GSO_MAX_SIZE].value.kind, KV_KEEP);
	profile_free(p);
}

/* A [chip:ID] the chip database does not know would silently never match. */
static void test_builtin_chip_ids_exist(void **state)
{
	static const char *const names[] = {"balanced", "throughput", "latency", "powersave"};
	char dir[PATH_MAX], chips[PATH_MAX];
	const char *dirs[2] = {chips, NULL};
	struct rterr err = {0};
	struct chipdb *db = NULL;
	unsigned int i, s, seen = 0;

	snprintf(dir, sizeof(dir), "%s/profiles", tree);
	snprintf(chips, sizeof(chips), "%s/chips", tree);
	if (chipdb_load_dirs(dirs, &db, &err) < 0)
		fail_msg("chip database: %s", err.msg);
	for (i = 0; i < 4; i++) {
		struct profile *p = load_ok(names[i], dir, NULL);

		for (s = 0; s < p->n_sections; s++) {
			if (p->sections[s].scope != PROFILE_SCOPE_CHIP)
				continue;
			if (!chipdb_find(db, p->sections[s].match))
				fail_msg("%s: [%s]: no such chip database entry", names[i],
					 p->sections[s].name);
			seen++;
		}
		profile_free(p);
	}
	/* rtl8126a, through every profile's include chain. */
	assert_int_equal(seen, 4);
	chipdb_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_values_and_comments),
		cmocka_unit_test(test_bom_crlf),
		cmocka_unit_test(test_value_str),
		cmocka_unit_test(test_include_by_name_and_path),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_admin_beats_shipped),
		cmocka_unit_test(test_list_reports_broken_files),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_unknown_profile),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_builtin_chip_ids_exist),
	};

	if (find_tree("tests/unit/fixtures/profiles/ok/basic.conf") < 0) {
		fprintf(stderr, "test_profile: cannot find the source tree (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
