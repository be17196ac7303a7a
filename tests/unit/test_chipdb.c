// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chip database: every Realtek family matched from a fake sysfs tree plus a drvinfo record,
 * most specific entry wins, kernel limits beat the table when lower, every malformed file
 * names its file:line, /etc-style hiding by file name.
 */
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
#include "rtltune/nic.h"


static const char *path_in(const char *fmt, const char *rel)
{
	static char buf[32][PATH_MAX];
	static unsigned int next;
	char *b = buf[next++ % 32];

	snprintf(b, PATH_MAX, fmt, tree, rel);
	return b;
}

static const char *fixture(const char *rel)
{
	return path_in("%s/tests/unit/fixtures/chips/%s", rel);
}


static struct chipdb *load_dirs(const char *d0, const char *d1)
{
	const char *dirs[3] = {d0, d1, NULL};
	struct rterr err = {0};
	struct chipdb *db = NULL;
	int r = chipdb_load_dirs(dirs, &db, &err);

	if (r < 0)
		fail_msg("loading %s: %s", d0, err.msg);
	assert_non_null(db);
	return db;
}

static struct chipdb *shipped(void)
{
	return load_dirs(path_in("%s/%s", "chips"), NULL);
}

/* A snapshot as nic_from_link() would build it: drvinfo record + PCI ids from fake sysfs. */
static void fake_nic(struct nic *nic, const char *ifname, const char *driver, const char *fw)
{
	memset(nic, 0, sizeof(*nic));
	snprintf(nic->link.ifname, sizeof(nic->link.ifname), "%s", ifname);
	nic->link.knob[KNOB_MTU] = nic->link.min_mtu = nic->link.max_mtu = LINK_UNSET;
	nic->link.tso_max_size = nic->link.tso_max_segs = LINK_UNSET;
	nic->link.knob[KNOB_GSO_MAX_SIZE] = nic->link.knob[KNOB_GRO_MAX_SIZE] = LINK_UNSET;
	nic->have_drvinfo = driver != NULL;
	snprintf(nic->drv.driver, sizeof(nic->drv.driver), "%s", driver ? driver : "");
	snprintf(nic->drv.firmware, sizeof(nic->drv.firmware), "%s", fw ? fw : "");
	assert_int_equal(pci_ident_read(fixture("sysfs"), ifname, &nic->pci), 0);
}

struct family_case {
	const char *ifname;
	const char *firmware; /* as ethtool -i shows it: file name or the version inside */
	const char *expect;
	int64_t max_mtu;
	int64_t tso_max_size;
	int score;
};

/* Every r8169 family docs/kernel.md lists (F28, F29), as userspace sees it. */
static const struct family_case families[] = {
	{"r8168b", "", "rtl8168b", 4074, 32000, 7},
	{"r8168c", "", "rtl8168c", 6122, 64000, 7},
	{"r8168cp", "", "rtl8168c", 6122, 64000, 7},
	{"r8169s", "", "rtl8169s", 7146, 32000, 3},
	{"r8169sc", "", "rtl8169sc", 7146, 32000, 3},
	/* rev 0x03 like an 8168c: the firmware (chosen from the XID) must win. */
	{"r8168d", "rtl_nic/rtl8168d-1.fw", "rtl8168d", 9194, 64000, 9},
	{"r8168e", "rtl_nic/rtl8168e-2.fw", "rtl8168e", 9194, 64000, 9},
	{"r8168evl", "rtl8168e-3_0.0.4 03/27/12", "rtl8168evl", 9194, 64000, 9},
	{"r8168f", "rtl8168f-1_0.0.5 06/18/12", "rtl8168f", 9194, 64000, 9},
	{"r8411", "rtl8411-1_0.0.3 11/13/12", "rtl8411", 9194, 64000, 9},
	{"r8168g", "rtl8168g-2_0.0.1 02/06/13", "rtl8168g", 9194, 64000, 9},
	{"r8168gu", "rtl8168g-3_0.0.1 04/23/13", "rtl8168g", 9194, 64000, 9},
	{"r8411b", "rtl8411-2_0.0.1 07/08/13", "rtl8411b", 9194, 64000, 9},
	{"r8168h", "rtl8168h-2_0.0.2 02/26/15", "rtl8168h", 9194, 64000, 9},
	{"r8168m", "rtl_nic/rtl8168h-2.fw", "rtl8168h", 9194, 64000, 9},
	{"r8168fp", "rtl8168fp-3_0.0.1 11/16/19", "rtl8168fp", 9194, 64000, 9},
	/* 8168ep loads no firmware: the 10ec:8168 family entry. */
	{"r8168ep", "", "rtl8168", 9194, 64000, 3},
	{"r8125a", "rtl8125a-3_0.0.1 10/22/19", "rtl8125a", 16362, 64000, 9},
	{"r8125b", "rtl8125b-2_0.0.2 07/13/20", "rtl8125b", 16362, 64000, 9},
	{"r8125d", "rtl_nic/rtl8125d-1.fw", "rtl8125d", 16362, 64000, 9},
	{"r8125k", "rtl_nic/rtl8125k-1.fw", "rtl8125k", 16362, 64000, 9},
	{"r8125bp", "rtl8125bp-2_0.0.1 04/11/24", "rtl8125bp", 16362, 64000, 9},
	/* Firmware not loaded yet (interface never up): the PCI id still gives the family. */
	{"r8125nofw", "", "rtl8125", 16362, 64000, 3},
	{"r8126a", "rtl8126a-3_0.0.1 11/29/23", "rtl8126a", 16362, 64000, 3},
	{"r8127a", "rtl_nic/rtl8127a-1.fw", "rtl8127a", 16362, 64000, 3},
	{"r8136", "rtl_nic/rtl8106e-2.fw", "rtl8136", 1500, LINK_UNSET, 3},
	/* A device id the table does not know: the driver-only fallback. */
	{"r2600", "", "r8169", 16362, 64000, 1},
};

static void test_realtek_families(void **state)
{
	struct chipdb *db = shipped();
	const struct chip_entry *e;
	struct chip_why why;
	struct nic nic;
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family_case *c = &families[i];

		fake_nic(&nic, c->ifname, "r8169", c->firmware);
		assert_true(nic.pci.present);
		e = chipdb_match_nic(db, &nic, &why);
		if (!e || strcmp(e->id, c->expect) != 0)
			fail_msg("%s (fw '%s'): matched %s, expected %s; why: %s", c->ifname,
				 c->firmware, e ? e->id : "nothing", c->expect, why.text);
		assert_int_equal(chip_limit(e, CHIP_LIMIT_MAX_MTU), c->max_mtu);
		assert_int_equal(chip_limit(e, CHIP_LIMIT_TSO_MAX_SIZE), c->tso_max_size);
		assert_int_equal(why.score, c->score);
		assert_int_equal(e->big_tcp, 0);
		assert_non_null(strstr(why.text, c->expect));
	}
	chipdb_free(db);
}

static void test_realtek_quirks(void **state)
{
	struct chipdb *db = shipped();

	/* Jumbo forces TSO off on chips newer than 8169sc; not on the 8169 parts themselves. */
	assert_true(chip_has_quirk(chipdb_find(db, "rtl8125b"), CHIP_Q_JUMBO_DISABLES_TSO));
	assert_false(chip_has_quirk(chipdb_find(db, "rtl8169s"), CHIP_Q_JUMBO_DISABLES_TSO));
	assert_true(chip_has_quirk(chipdb_find(db, "rtl8168evl"), CHIP_Q_TSO_DROPS_OPTIONS));
	assert_false(chip_has_quirk(chipdb_find(db, "rtl8168h"), CHIP_Q_TSO_DROPS_OPTIONS));
	/* TSO on by default only from 8168h, not on 8125A. */
	assert_true(chip_has_quirk(chipdb_find(db, "rtl8168g"), CHIP_Q_TSO_OFF_BY_DEFAULT));
	assert_false(chip_has_quirk(chipdb_find(db, "rtl8168h"), CHIP_Q_TSO_OFF_BY_DEFAULT));
	assert_true(chip_has_quirk(chipdb_find(db, "rtl8125a"), CHIP_Q_TSO_OFF_BY_DEFAULT));
	assert_false(chip_has_quirk(chipdb_find(db, "rtl8125b"), CHIP_Q_TSO_OFF_BY_DEFAULT));
	assert_true(chip_has_quirk(chipdb_find(db, "rtl8126a"), CHIP_Q_TSO_RETRANSMIT_STORM));
	assert_true(chip_has_quirk(chipdb_find(db, "r8169"), CHIP_Q_NO_NATIVE_XDP));
	assert_false(chip_has_quirk(NULL, CHIP_Q_NO_NATIVE_XDP));
	chipdb_free(db);
}

static void test_most_specific_wins(void **state)
{
	struct chipdb *db = shipped();
	const struct chip_entry *e;
	struct chip_why why;
	struct nic nic;

	fake_nic(&nic, "r8125b", "r8169", "rtl8125b-2_0.0.2 07/13/20");
	e = chipdb_match_nic(db, &nic, &why);
	assert_string_equal(e->id, "rtl8125b");
	assert_int_equal(why.fields, CHIP_F_DRIVER | CHIP_F_FIRMWARE);
	/* The more general entries that also matched, best first. */
	assert_int_equal(why.n_candidates, 3);
	assert_int_equal(why.n_lost, 2);
	assert_string_equal(why.lost[0]->id, "rtl8125");
	assert_int_equal(why.lost[0]->score, 3);
	assert_string_equal(why.lost[1]->id, "r8169");
	assert_int_equal(why.lost[1]->score, 1);
	assert_non_null(strstr(why.text, "beat rtl8125 (score 3), r8169 (score 1)"));

	/* The firmware glob must match: an 8125BP string does not make an 8125B. */
	fake_nic(&nic, "r8125bp", "r8169", "rtl8125bp-2_0.0.1 04/11/24");
	assert_string_equal(chipdb_match_nic(db, &nic, NULL)->id, "rtl8125bp");

	/* Same PCI id under another driver matches nothing Realtek. */
	fake_nic(&nic, "r8125b", "r8125", "rtl8125b-2");
	e = chipdb_match_nic(db, &nic, &why);
	assert_null(e);
	assert_non_null(
		strstr(why.text, "no entry matches driver 'r8125', pci 10ec:8125 rev 0x05"));

	/* No drvinfo and no PCI: nothing to match on. */
	fake_nic(&nic, "nosuch", NULL, NULL);
	assert_null(chipdb_match_nic(db, &nic, &why));
	assert_non_null(strstr(why.text, "no driver"));

	/* A virtio device directory is not PCI: matched by driver alone. */
	fake_nic(&nic, "virt0", "virtio_net", "");
	assert_false(nic.pci.present);
	assert_string_equal(chipdb_match_nic(db, &nic, NULL)->id, "virtio_net");

	/* mana: the PCI id entry beats the driver-only one; another device id gets the latter. */
	fake_nic(&nic, "mana0", "mana", "");
	assert_string_equal(chipdb_match_nic(db, &nic, NULL)->id, "mana");
	fake_nic(&nic, "mana1", "mana", "");
	assert_string_equal(chipdb_match_nic(db, &nic, NULL)->id, "mana-other");
	chipdb_free(db);
}

static void test_tie_first_loaded_wins(void **state)
{
	struct chipdb *db = load_dirs(fixture("tie"), NULL);
	const struct chip_entry *e;
	struct chip_why why;
	struct nic nic;

	fake_nic(&nic, "r8125b", "r8169", "");
	e = chipdb_match_nic(db, &nic, &why);
	assert_string_equal(e->id, "tie-first");
	assert_string_equal(why.lost[0]->id, "tie-second");
	assert_string_equal(why.lost[1]->id, "generic");
	assert_non_null(strstr(why.text, "tie-second (score 3, loaded later)"));
	chipdb_free(db);
}

static void test_kernel_limits_win_when_lower(void **state)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	struct chipdb *db = shipped();
	const struct chip_entry *e;
	struct nic nic;

	fake_nic(&nic, "r8125b", "r8169", "rtl8125b-2_0.0.2 07/13/20");
	e = chipdb_match_nic(db, &nic, NULL);

	/* A pre-6.15 kernel reports 9194: lower than the table's 16362, the kernel wins. */
	nic.link.max_mtu = 9194;
	nic.link.tso_max_size = 64000;
	nic.link.tso_max_segs = 64;
	chip_effective_limits(e, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].value, 9194);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].source, CHIP_SRC_KERNEL);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].table, 16362);
	/* Equal: the kernel's figure is the one reported. */
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SIZE].value, 64000);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SIZE].source, CHIP_SRC_KERNEL);

	/* The kernel claims more than the chip can do safely: the table wins. */
	nic.link.max_mtu = 65535;
	nic.link.tso_max_size = 65536;
	chip_effective_limits(e, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].value, 16362);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].source, CHIP_SRC_TABLE);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SIZE].value, 64000);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SIZE].source, CHIP_SRC_TABLE);
	/* gso_max_size: capped by the table's tso_max_size (the entry declares no gso). */
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].value, 64000);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].source, CHIP_SRC_TABLE);
	/* GRO is software: the kernel's 524280 once it reports tso_max_size. */
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].value, 524280);
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].source, CHIP_SRC_KERNEL);

	/* An old kernel reports no tso_max_size: the table alone. */
	nic.link.tso_max_size = LINK_UNSET;
	nic.link.tso_max_segs = LINK_UNSET;
	chip_effective_limits(e, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SEGS].value, 64);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SEGS].source, CHIP_SRC_TABLE);
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].value, LINK_UNSET);
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].source, CHIP_SRC_NONE);

	/* No entry: the kernel alone; max_mtu 0 (no ceiling, like lo) is unknown. */
	nic.link.max_mtu = 0;
	nic.link.tso_max_size = 524280;
	chip_effective_limits(NULL, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].value, LINK_UNSET);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].value, 524280);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].source, CHIP_SRC_KERNEL);
	chipdb_free(db);
}

static void test_limits_big_tcp_and_hints(void **state)
{
	struct chipdb *db = load_dirs(fixture("limits"), NULL);
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const struct chip_entry *e;
	struct knob_value v;
	struct nic nic;

	fake_nic(&nic, "virt0", NULL, NULL);
	nic.link.tso_max_size = 524280;
	nic.link.tso_max_segs = 65535;
	nic.link.max_mtu = 9000;

	/* big_tcp = no caps gso_max_size at 64K even below a bigger tso_max_size. */
	e = chipdb_find(db, "nobig");
	chip_effective_limits(e, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SIZE].value, 262144);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].value, 65536);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].source, CHIP_SRC_TABLE);

	e = chipdb_find(db, "small");
	chip_effective_limits(e, &nic, eff);
	assert_int_equal(eff[CHIP_LIMIT_MAX_MTU].value, 4000);
	assert_int_equal(eff[CHIP_LIMIT_GSO_MAX_SIZE].value, 16384);
	assert_int_equal(eff[CHIP_LIMIT_TSO_MAX_SEGS].value, 24);
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].value, 65536);
	assert_int_equal(eff[CHIP_LIMIT_GRO_MAX_SIZE].source, CHIP_SRC_TABLE);

	e = chipdb_find(db, "hints");
	assert_int_equal(e->n_hints, 4);
	assert_int_equal(chip_hint(e, "throughput", KNOB_GSO_MAX_SIZE, &v), 0);
	assert_int_equal(v.kind, KV_NUMBER);
	assert_int_equal(v.num, 16384);
	assert_int_equal(chip_hint(e, "throughput", KNOB_TSO, &v), 0);
	assert_int_equal(v.kind, KV_NUMBER);
	assert_int_equal(v.num, 0);
	assert_int_equal(chip_hint(e, "latency", KNOB_GSO_MAX_SIZE, &v), 0);
	assert_int_equal(v.kind, KV_MAX);
	assert_int_equal(chip_hint(e, "powersave", KNOB_MTU, &v), 0);
	assert_int_equal(v.kind, KV_KEEP);
	assert_int_equal(chip_hint(e, "latency", KNOB_TSO, &v), -ENOENT);
	assert_int_equal(chip_hint(NULL, "latency", KNOB_TSO, &v), -ENOENT);

	/* 0 is a real request (only the shallowest state); undeclared is -1, not 0. */
	e = chipdb_find(db, "shallow");
	assert_true(chip_has_quirk(e, CHIP_Q_SHALLOW_IDLE));
	assert_int_equal(e->cpu_dma_latency_us, 0);
	e = chipdb_find(db, "shallow-default");
	assert_true(chip_has_quirk(e, CHIP_Q_SHALLOW_IDLE));
	assert_int_equal(e->cpu_dma_latency_us, -1);
	assert_int_equal(chipdb_find(db, "small")->cpu_dma_latency_us, -1);
	chipdb_free(db);
}

struct bad_case {
	const char *file;
	unsigned int line;
	const char *message;
};

static const struct bad_case bad_files[] = {
	{"unknown-key.conf", 3, "unknown key 'speed' (expected one of: name, driver,"},
	{"bad-number.conf", 4, "max_mtu: expected a positive number"},
	{"unknown-quirk.conf", 4,
	 "unknown quirk 'frobnicate' (expected one of: jumbo-disables-tso"},
	{"duplicate-id.conf", 5, "duplicate chip id 'a' (first defined at "},
	{"duplicate-key.conf", 3, "duplicate key 'driver' (first on line 2)"},
	{"no-match.conf", 4, "[nothing] matches nothing: expected 'driver =' or 'pci ='"},
	{"bad-pci.conf", 3, "pci: expected vendor:device in hex like 10ec:8125, got '10ec-8125'"},
	{"bad-revision.conf", 4, "revision: expected PCI revisions in hex like 0x15"},
	{"revision-without-pci.conf", 1, "[a] has 'revision =' without 'pci ='"},
	{"outside-section.conf", 1, "'driver' outside a section: expected a [chip-id] line first"},
	{"bad-section.conf", 3, "expected ']' closing the section name"},
	{"bad-id.conf", 3, "bad chip id 'Foo Bar': expected lowercase letters"},
	{"bad-hint-knob.conf", 3,
	 "hint.throughput.speed: unknown knob 'speed' (expected one of: mtu"},
	{"bad-hint-value.conf", 3, "hint.throughput.mtu: mtu expects a number"},
	{"no-equals.conf", 2, "expected 'key = value', a [chip-id] header or a comment"},
	{"long-line.conf", 3, "line longer than"},
	{"gso-above-tso.conf", 4, "gso_max_size 65536 is above tso_max_size 64000"},
	{"bad-format.conf", 1, "format: this rtltune reads chip file format 1, got '2'"},
	{"bad-bool.conf", 3, "big_tcp: expected yes or no, got 'maybe'"},
	{"empty-last.conf", 3, "[empty] matches nothing"},
	{"bad-continuation.conf", 4, "indented line continues 'max_mtu'"},
	{"big-tcp-no.conf", 4, "gso_max_size 131072 contradicts big_tcp = no"},
	{"indented-section.conf", 3, "indented '['"},
	{"bad-latency.conf", 4,
	 "cpu_dma_latency_us: expected microseconds from 0 to 1000000, got '-5'"},
	{"latency-without-quirk.conf", 3,
	 "cpu_dma_latency_us without quirk shallow-idle: expected 'quirks = shallow-idle' in [a]"},
};

static void test_malformed_files(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		const struct bad_case *c = &bad_files[i];
		struct chipdb *db = chipdb_new();
		struct rterr err = {0};
		char want[PATH_MAX + 64], rel[128];
		const char *path;
		int r;

		snprintf(rel, sizeof(rel), "bad/%s", c->file);
		path = fixture(rel);
		r = chipdb_load_file(db, path, &err);
		snprintf(want, sizeof(want), "%s:%u: ", path, c->line);
		if (r != -EINVAL || err.kind != RTERR_INPUT ||
		    strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, c->message))
			fail_msg("%s: r=%d kind=%d msg '%s'; expected prefix '%s' and '%s'",
				 c->file, r, err.kind, err.msg, want, c->message);
		/* A failed file leaves nothing behind. */
		assert_int_equal(db->n, 0);
		chipdb_free(db);
	}
}

/* The whole load fails on one bad file: nothing partial reaches a caller. */
static void test_bad_file_fails_whole_load(void **state)
{
	const char *dirs[] = {fixture("bad"), NULL};
	struct rterr err = {0};
	struct chipdb *db = (struct chipdb *)1;

	assert_int_equal(chipdb_load_dirs(dirs, &db, &err), -EINVAL);
	assert_null(db);
	assert_int_equal(err.kind, RTERR_INPUT);
	/* Files load in name order: bad-bool.conf is the first. */
	assert_non_null(strstr(err.msg, "bad-bool.conf:3: "));
}

static void test_duplicate_id_across_files(void **state)
{
	struct chipdb *db = chipdb_new();
	struct rterr err = {0};
	char want[PATH_MAX * 2];

	assert_int_equal(chipdb_load_file(db, fixture("tie/a.conf"), &err), 0);
	assert_int_equal(chipdb_load_file(db, fixture("tie/a.conf"), &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: duplicate chip id 'tie-first' (first defined at %s:2)",
		 fixture("tie/a.conf"), fixture("tie/a.conf"));
	assert_string_equal(err.msg, want);
	assert_int_equal(db->n, 2);
	chipdb_free(db);
}

static void test_override_by_file_name(void **state)
{
	struct chipdb *db = load_dirs(fixture("etc"), fixture("usr"));

	/* etc/realtek.conf hides usr/realtek.conf; usr/virtual.conf stays. Sorted by name. */
	assert_non_null(db->files);
	assert_string_equal(db->files[0], fixture("etc/realtek.conf"));
	assert_string_equal(db->files[1], fixture("usr/virtual.conf"));
	assert_null(db->files[2]);
	assert_int_equal(db->n, 2);
	assert_non_null(chipdb_find(db, "r8169-admin"));
	assert_null(chipdb_find(db, "r8169-shipped"));
	assert_non_null(chipdb_find(db, "veth-shipped"));
	assert_int_equal(chip_limit(chipdb_find(db, "r8169-admin"), CHIP_LIMIT_MAX_MTU), 9000);
	assert_int_equal(chipdb_find(db, "r8169-admin")->line, 4);
	chipdb_free(db);

	/* The other order: the shipped file is the one seen. */
	db = load_dirs(fixture("usr"), fixture("etc"));
	assert_non_null(chipdb_find(db, "r8169-shipped"));
	assert_null(chipdb_find(db, "r8169-admin"));
	chipdb_free(db);
}

static void test_default_path_env(void **state)
{
	char env[PATH_MAX * 2];
	struct rterr err = {0};
	struct chipdb *db;

	snprintf(env, sizeof(env), "%s:%s", fixture("etc"), fixture("usr"));
	setenv("RTLTUNE_CHIP_PATH", env, 1);
	assert_int_equal(chipdb_load_default(&db, &err), 0);
	assert_string_equal(db->files[0], fixture("etc/realtek.conf"));
	assert_non_null(chipdb_find(db, "r8169-admin"));
	assert_null(chipdb_find(db, "r8169-shipped"));
	chipdb_free(db);
	unsetenv("RTLTUNE_CHIP_PATH");
}

static void test_quirk_names(void **state)
{
	int i;

	for (i = 0; i < CHIP_QUIRK_COUNT; i++) {
		enum chip_quirk q = (enum chip_quirk)(1u << i);

		assert_int_equal(chip_quirk_from_name(chip_quirk_name(q)), (int)q);
		assert_true(strlen(chip_quirk_description(q)) > 10);
	}
	assert_int_equal(chip_quirk_from_name("frobnicate"), -1);
	assert_string_equal(chip_limit_name(CHIP_LIMIT_TSO_MAX_SEGS), "tso_max_segs");
	assert_string_equal(chip_limit_source_name(CHIP_SRC_TABLE), "chip");
}

/* Every shipped entry the issue asks for exists and the files load cleanly. */
static void test_shipped_entries(void **state)
{
	static const char *const ids[] = {
		"r8169",      "rtl8168b", "rtl8168c", "rtl8169s",   "rtl8168d",	 "rtl8168e",
		"rtl8168evl", "rtl8168f", "rtl8168g", "rtl8168h",   "rtl8411",	 "rtl8125a",
		"rtl8125b",   "rtl8125d", "rtl8126a", "rtl8127a",   "rtl8136",	 "mana",
		"hv_netvsc",  "fec",	  "veth",     "virtio_net", "igb",	 "igc",
		"e1000e",     "ixgbe",	  "i40e",     "ice",	    "mlx5_core", "bnxt_en",
		"ena",	      "gve",
	};
	struct chipdb *db = shipped();
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!chipdb_find(db, ids[i]))
			fail_msg("no shipped entry '%s'", ids[i]);
	assert_int_equal(chip_limit(chipdb_find(db, "rtl8127a"), CHIP_LIMIT_MAX_MTU), 16362);
	assert_int_equal(chip_limit(chipdb_find(db, "mana"), CHIP_LIMIT_TSO_MAX_SIZE), 524280);
	assert_int_equal(chip_limit(chipdb_find(db, "fec"), CHIP_LIMIT_TSO_MAX_SEGS), 100);
	assert_true(chip_has_quirk(chipdb_find(db, "fec"), CHIP_Q_TSO_IPV4_ONLY));
	assert_true(chip_has_quirk(chipdb_find(db, "fec"), CHIP_Q_MTU_CHANGE_NEEDS_LINK_DOWN));
	assert_true(chip_has_quirk(chipdb_find(db, "mana"), CHIP_Q_TUNE_WITH_MASTER));
	/* ERR006687: below the i.MX6 WAIT state's 50 us exit latency, above WFI's 1 us. */
	assert_true(chip_has_quirk(chipdb_find(db, "fec"), CHIP_Q_SHALLOW_IDLE));
	assert_int_equal(chipdb_find(db, "fec")->cpu_dma_latency_us, 10);
	assert_false(chip_has_quirk(chipdb_find(db, "veth"), CHIP_Q_SHALLOW_IDLE));
	chipdb_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realtek_families),
		cmocka_unit_test(test_realtek_quirks),
		cmocka_unit_test(test_most_specific_wins),
		cmocka_unit_test(test_tie_first_loaded_wins),
		cmocka_unit_test(test_kernel_limits_win_when_lower),
		cmocka_unit_test(test_limits_big_tcp_and_hints),
		cmocka_unit_test(test_malformed_files),
		cmocka_unit_test(test_bad_file_fails_whole_load),
		cmocka_unit_test(test_duplicate_id_across_files),
		cmocka_unit_test(test_override_by_file_name),
		cmocka_unit_test(test_default_path_env),
		cmocka_unit_test(test_quirk_names),
		cmocka_unit_test(test_shipped_entries),
	};

	if (find_tree("tests/unit/fixtures/chips/sysfs/class/net") < 0) {
		fprintf(stderr, "test_chipdb: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
