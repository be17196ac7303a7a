// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plans of the ethtool group and feature knobs against a snapshot (no device): "max" from
 * the device's own maximum cut by the chip entry's max.KNOB, refusals naming the limit,
 * unsupported knobs skipped with the reason, the coalescing and queue quirks, pause at
 * jumbo MTU, tso together with feature.tx-tcp-segmentation; and max.KNOB's parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtltune/chipdb.h"
#include "rtltune/plan.h"
#include "rtltune/profile.h"

static char dir[] = "/tmp/rtltune-test-plan-ethtool.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[4][512];
	static unsigned int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, 512, "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* A managed NIC as nic_from_link() would read it: ring 512 of 4096, channels 4 of 8,
 * coalescing rx/tx usecs and adaptive, pause; no rx_mini (the driver does not report it). */
static void fake_nic(struct nic *n, const char *driver)
{
	int k;

	memset(n, 0, sizeof(*n));
	snprintf(n->link.ifname, sizeof(n->link.ifname), "eth9");
	n->link.ifindex = 9;
	n->link.min_mtu = 68;
	n->link.max_mtu = 9000;
	n->link.tso_max_size = 65536;
	n->link.tso_max_segs = 64;
	for (k = 0; k < KNOB__COUNT; k++)
		n->val[k] = LINK_UNSET;
	nic_max_clear(n);
	n->val[KNOB_MTU] = 1500;
	n->val[KNOB_TSO] = 1;
	n->val[KNOB_RING_RX] = 512;
	nic_set_max(n, KNOB_RING_RX, 4096);
	n->val[KNOB_RING_TX] = 512;
	nic_set_max(n, KNOB_RING_TX, 4096);
	n->val[KNOB_CHANNELS_COMBINED] = 4;
	nic_set_max(n, KNOB_CHANNELS_COMBINED, 8);
	n->val[KNOB_COALESCE_RX_USECS] = 50;
	n->val[KNOB_COALESCE_TX_USECS] = 50;
	n->val[KNOB_COALESCE_ADAPTIVE_RX] = 1;
	n->val[KNOB_COALESCE_ADAPTIVE_TX] = 1;
	n->val[KNOB_PAUSE_RX] = 0;
	n->val[KNOB_PAUSE_TX] = 0;
	n->val[KNOB_FEAT_TX_TCP_SEGMENTATION] = 1;
	n->val[KNOB_FEAT_RX_GRO_HW] = 0;
	n->have_drvinfo = true;
	snprintf(n->drv.driver, sizeof(n->drv.driver), "%s", driver);
}

/* Plan profile text for nic with the chip file text (NULL: no chip entry). */
static int plan_text(const char *profile, const char *chips, const struct nic *nic,
		     struct plan *plan, struct rterr *err)
{
	struct chipdb *db = chipdb_new();
	const struct chip_entry *chip = NULL;
	struct profile *p = NULL;
	int r;

	memset(err, 0, sizeof(*err));
	if (chips) {
		assert_int_equal(chipdb_load_file(db, write_file("c.conf", chips), err), 0);
		chip = chipdb_match_nic(db, nic, NULL);
		assert_non_null(chip);
	}
	r = profile_load(write_file("p.conf", profile), &p, err);
	assert_int_equal(r, 0);
	r = plan_profile(p, nic, chip, plan, err);
	profile_free(p);
	chipdb_free(db);
	return r;
}

static void test_max_device_and_chip(void **state)
{
	struct plan plan;
	struct rterr err;
	struct nic nic;

	fake_nic(&nic, "fakedrv");
	assert_int_equal(plan_text("[knobs]\n# a\nring_rx = max\n# b\nchannels_combined = max\n",
				   NULL, &nic, &plan, &err),
			 0);
	assert_int_equal(plan.items[KNOB_RING_RX].target, 4096);
	assert_non_null(strstr(plan_note(&plan, KNOB_RING_RX), "(device)"));
	assert_int_equal(plan.items[KNOB_CHANNELS_COMBINED].target, 8);
	/* The chip's max.KNOB cuts the device's. */
	assert_int_equal(plan_text("[knobs]\n# a\nring_rx = max\n",
				   "[x]\ndriver = fakedrv\nmax.ring_rx = 2048\n", &nic, &plan,
				   &err),
			 0);
	assert_int_equal(plan.items[KNOB_RING_RX].target, 2048);
	assert_non_null(strstr(plan_note(&plan, KNOB_RING_RX), "(chip)"));
	/* A number above either is refused, naming the limit. */
	assert_int_equal(plan_text("[knobs]\n# a\nring_rx = 3000\n",
				   "[x]\ndriver = fakedrv\nmax.ring_rx = 2048\n", &nic, &plan,
				   &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "ring_rx 3000 exceeds limit 2048 (chip x)"));
	assert_int_equal(plan_text("[knobs]\n# a\nring_tx = 5000\n", NULL, &nic, &plan, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "ring_tx 5000 exceeds limit 4096 (device)"));
	/* No maximum known for coalescing: max is skipped with a note. */
	assert_int_equal(
		plan_text("[knobs]\n# a\ncoalesce_rx_usecs = max\n", NULL, &nic, &plan, &err), 0);
	assert_int_equal(plan.items[KNOB_COALESCE_RX_USECS].action, PLAN_SKIP);
	assert_non_null(strstr(plan_note(&plan, KNOB_COALESCE_RX_USECS), "no limit known"));
}

static void test_unsupported_skipped(void **state)
{
	struct plan plan;
	struct rterr err;
	struct nic nic;

	fake_nic(&nic, "fakedrv");
	nic.group_err[ETHNL_PAUSE] = -EOPNOTSUPP;
	nic.val[KNOB_PAUSE_RX] = nic.val[KNOB_PAUSE_TX] = LINK_UNSET;
	assert_int_equal(plan_text("[knobs]\n# a\nring_rx_mini = 64\n# b\npause_rx = on\n# c\n"
				   "ring_rx = 1024\n# d\nfeature.rx-gro-list = on\n",
				   NULL, &nic, &plan, &err),
			 0);
	assert_int_equal(plan.items[KNOB_RING_RX_MINI].action, PLAN_SKIP);
	assert_string_equal(plan_note(&plan, KNOB_RING_RX_MINI),
			    "ring_rx_mini unsupported: the driver does not report it");
	assert_int_equal(plan.items[KNOB_PAUSE_RX].action, PLAN_SKIP);
	assert_string_equal(plan_note(&plan, KNOB_PAUSE_RX),
			    "pause_rx unsupported: the driver has no pause settings");
	assert_int_equal(plan.items[KNOB_FEAT_RX_GRO_LIST].action, PLAN_SKIP);
	assert_non_null(strstr(plan_note(&plan, KNOB_FEAT_RX_GRO_LIST),
			       "the kernel has no feature rx-gro-list"));
	/* The rest still applies. */
	assert_int_equal(plan.items[KNOB_RING_RX].action, PLAN_CHANGE);
	assert_int_equal(plan.n_changes, 1);
}

static void test_coalesce_quirks(void **state)
{
	struct plan plan;
	struct rterr err;
	struct nic nic;

	fake_nic(&nic, "fakedrv");
	/* usecs-need-adaptive-off: usecs alone is refused, with adaptive off it plans. */
	assert_int_equal(plan_text("[knobs]\n# a\ncoalesce_rx_usecs = 8\n",
				   "[x]\ndriver = fakedrv\nquirks = usecs-need-adaptive-off\n",
				   &nic, &plan, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "coalesce_rx_usecs cannot change while "
					"coalesce_adaptive_rx stays on"));
	assert_non_null(strstr(err.msg, "set coalesce_adaptive_rx = off too"));
	assert_int_equal(plan_text("[knobs]\n# a\ncoalesce_rx_usecs = 8\n# b\n"
				   "coalesce_adaptive_rx = off\n",
				   "[x]\ndriver = fakedrv\nquirks = usecs-need-adaptive-off\n",
				   &nic, &plan, &err),
			 0);
	assert_int_equal(plan.n_changes, 2);
	/* tx-coalesce-follows-rx: tx-usecs other than 0 is refused; 0 plans. */
	assert_int_equal(plan_text("[knobs]\n# a\ncoalesce_tx_usecs = 100\n",
				   "[x]\ndriver = fakedrv\nquirks = tx-coalesce-follows-rx\n", &nic,
				   &plan, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "coalesce_rx_usecs moderates both"));
	assert_int_equal(plan_text("[knobs]\n# a\ncoalesce_tx_usecs = 0\n",
				   "[x]\ndriver = fakedrv\nquirks = tx-coalesce-follows-rx\n", &nic,
				   &plan, &err),
			 0);
	/* queue-change-resets-link: a ring change plans, with a warning. */
	assert_int_equal(plan_text("[knobs]\n# a\nring_rx = 1024\n",
				   "[x]\ndriver = fakedrv\nquirks = queue-change-resets-link\n",
				   &nic, &plan, &err),
			 0);
	assert_non_null(strstr(plan.warnings, "a ring or channel change rebuilds the queues"));
	assert_int_equal(plan_text("[knobs]\n# a\ncoalesce_rx_usecs = 10\n",
				   "[x]\ndriver = fakedrv\nquirks = queue-change-resets-link\n",
				   &nic, &plan, &err),
			 0);
	assert_null(strstr(plan.warnings, "rebuilds the queues"));
}

static void test_pause_at_jumbo(void **state)
{
	struct plan plan;
	struct rterr err;
	struct nic nic;

	fake_nic(&nic, "fakedrv");
	assert_int_equal(plan_text("[knobs]\n# a\nmtu = 9000\n# b\npause_rx = on\n",
				   "[x]\ndriver = fakedrv\nquirks = jumbo-disables-pause\n", &nic,
				   &plan, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "pause_rx on is impossible with mtu 9000"));
	assert_int_equal(plan_text("[knobs]\n# a\nmtu = 9000\n",
				   "[x]\ndriver = fakedrv\nquirks = jumbo-disables-pause\n", &nic,
				   &plan, &err),
			 0);
	assert_non_null(strstr(plan.warnings, "MTU above 1500 stops pause frames"));
}

static void test_overlap_refused(void **state)
{
	struct plan plan;
	struct rterr err;
	struct nic nic;

	fake_nic(&nic, "fakedrv");
	assert_int_equal(
		plan_text("[knobs]\n# a\ntso = on\n# b\nfeature.tx-tcp-segmentation = off\n", NULL,
			  &nic, &plan, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "tso and feature.tx-tcp-segmentation"));
	assert_non_null(strstr(err.msg, "tso includes tx-tcp-segmentation"));
	/* A feature tso does not cover plans alongside it. */
	assert_int_equal(plan_text("[knobs]\n# a\ntso = on\n# b\nfeature.rx-gro-hw = off\n", NULL,
				   &nic, &plan, &err),
			 0);
}

static void test_max_knob_parse(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"[x]\ndriver = d\nmax.ring_rx = lots\n", "max.ring_rx: expected a number up to"},
		{"[x]\ndriver = d\nmax.tso = 1\n", "max.tso: max. applies to number knobs"},
		{"[x]\ndriver = d\nmax.mtu = 9000\n", "(mtu has max_mtu)"},
		{"[x]\ndriver = d\nmax.ring_nosuch = 1\n", "unknown knob 'ring_nosuch'"},
		{"[x]\ndriver = d\nmax.ring_rx = 1\nmax.ring_rx = 2\n",
		 "duplicate key 'max.ring_rx'"},
		{"[x]\ndriver = d\nmax.pause_rx = 1\n", "on/off values"},
		{"[x]\ndriver = d\nmax.ring_tcp_data_split = 300\n", "expected a number up to 255"},
	};
	struct chipdb *db;
	struct rterr err;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		db = chipdb_new();
		memset(&err, 0, sizeof(err));
		assert_int_equal(chipdb_load_file(db, write_file("bad.conf", bad[i].text), &err),
				 -EINVAL);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("%s: got '%s'", bad[i].text, err.msg);
		assert_int_equal(db->n, 0);
		chipdb_free(db);
	}
	db = chipdb_new();
	assert_int_equal(
		chipdb_load_file(db,
				 write_file("ok.conf", "[x]\ndriver = d\nmax.ring_rx = 4K\n"
						       "max.coalesce_rx_usecs = 0xfff\n"),
				 &err),
		0);
	assert_int_equal(chip_knob_max(&db->entries[0], KNOB_RING_RX), 4096);
	assert_int_equal(chip_knob_max(&db->entries[0], KNOB_COALESCE_RX_USECS), 4095);
	assert_int_equal(chip_knob_max(&db->entries[0], KNOB_RING_TX), LINK_UNSET);
	assert_int_equal(chip_knob_max(NULL, KNOB_RING_TX), LINK_UNSET);
	chipdb_free(db);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[600];
	const char *names[] = {"c.conf", "p.conf", "bad.conf", "ok.conf"};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_device_and_chip),
		cmocka_unit_test(test_unsupported_skipped),
		cmocka_unit_test(test_coalesce_quirks),
		cmocka_unit_test(test_pause_at_jumbo),
		cmocka_unit_test(test_overlap_refused),
		cmocka_unit_test(test_max_knob_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
