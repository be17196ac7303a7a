// SPDX-License-Identifier: GPL-2.0-only
/*
 * The knob table (lib/base/knob.c) and what is derived from its rows: every row consistent,
 * the txqueuelen row as the proof of a one-row knob (parsing, the rtnetlink parse of a
 * captured RTM_NEWLINK, planning, "max" without a limit, the plan's JSON).
 */
#include <errno.h>
#include <limits.h>
#include <linux/if_link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "captured_link.h"

#include "rtltune/knob.h"
#include "rtltune/link.h"
#include "rtltune/plan.h"
#include "rtltune/ethnl.h"
#include "rtltune/profile.h"

static void test_rows_consistent(void **state)
{
	int k, j;

	for (k = 0; k < KNOB__COUNT; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		assert_non_null(d->name);
		assert_int_equal(knob_from_name(d->name), k);
		for (j = 0; j < k; j++)
			assert_string_not_equal(knob_name((enum knob_id)j), d->name);
		assert_non_null(d->help);
		assert_true(strlen(d->help) > 10);
		assert_non_null(d->unit);
		assert_true(d->min <= d->max);
		if (d->type == KNOB_T_BOOL) {
			assert_int_equal(d->max, 1);
			assert_string_equal(d->unit, "");
		} else if (d->type == KNOB_T_NUMBER) {
			assert_true(d->unit[0] != '\0');
		}
		if (d->backend == KNOB_B_LINK) {
			assert_true(d->ifla > 0);
			/* struct link_info carries the link knobs only. */
			assert_true(k < LINK_KNOBS);
		} else if (d->backend == KNOB_B_ETHNL) {
			/* The wire row of the same attribute names this knob back. */
			size_t n, i;
			const struct ethnl_attr *a = ethnl_attrs(d->ethnl_group, &n);

			assert_int_equal(knob_of_ethnl(d->ethnl_group, d->ethnl_attr), k);
			for (i = 0; i < n && a[i].knob != k; i++)
				;
			assert_true(i < n);
			assert_int_equal(a[i].attr, d->ethnl_attr);
			assert_int_equal(a[i].group, d->ethnl_group);
			assert_true(strncmp(d->name, ethnl_knob_prefix(d->ethnl_group),
					    strlen(ethnl_knob_prefix(d->ethnl_group))) == 0);
			assert_string_equal(d->name + strlen(ethnl_knob_prefix(d->ethnl_group)),
					    a[i].name);
			assert_false(knob_is_feature((enum knob_id)k));
		} else if (d->backend == KNOB_B_NAPI || d->backend == KNOB_B_QUEUE) {
			/* The stack around the NIC (test_around.c). */
			assert_true(k >= KNOB_FIRST_AROUND && k < KNOB_FIRST_HOST);
		} else if (d->backend == KNOB_B_SYSCTL) {
			/* Host-wide, the last rows (test_hostknob.c). */
			assert_true(knob_is_host((enum knob_id)k));
			assert_true(strncmp(d->name, "net.core.", 9) == 0);
		} else {
			assert_int_equal(d->backend, KNOB_B_FEATURES);
			assert_true(d->n_features > 0);
			assert_true(d->n_read > 0 && d->n_read <= d->n_features);
			/* feature.NAME knobs switch exactly that one feature. */
			if (knob_is_feature((enum knob_id)k)) {
				assert_int_equal(d->n_features, 1);
				assert_true(strncmp(d->name, "feature.", 8) == 0);
				assert_string_equal(d->name + 8,
						    knob_feature_name((enum knob_id)k));
			}
		}
		if (d->twin >= 0) {
			assert_true(d->twin < KNOB__COUNT && d->twin != k);
			assert_int_equal(knob_desc((enum knob_id)d->twin)->backend, d->backend);
		}
		/* A limit is named in refusals. */
		if (d->limit >= 0)
			assert_non_null(d->limit_name);
	}
	/* Apply order: the kernel resets the IPv4 twin when the plain size is set after it. */
	assert_true(KNOB_GSO_MAX_SIZE < KNOB_GSO_IPV4_MAX_SIZE);
	assert_true(KNOB_GRO_MAX_SIZE < KNOB_GRO_IPV4_MAX_SIZE);
}

static void test_txqueuelen_row(void **state)
{
	const struct knob_desc *d = knob_desc(KNOB_TXQUEUELEN);
	struct knob_value v;
	char why[256];

	assert_string_equal(d->name, "txqueuelen");
	assert_int_equal(d->backend, KNOB_B_LINK);
	assert_int_equal(d->ifla, IFLA_TXQLEN);
	assert_int_equal(d->type, KNOB_T_NUMBER);
	assert_int_equal(d->min, 0);
	assert_int_equal(d->max, UINT32_MAX);
	assert_int_equal(d->limit, -1);
	assert_int_equal(d->legacy_max, LINK_UNSET);
	assert_int_equal(d->dir, KNOB_DIR_TX);
	assert_string_equal(d->unit, "packets");
	assert_true(strstr(knob_names_list(), ", txqueuelen") != NULL);

	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "5000", &v, why, sizeof(why)), 0);
	assert_int_equal(v.kind, KV_NUMBER);
	assert_int_equal(v.num, 5000);
	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "2K", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 2048);
	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "0", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 0);
	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "max", &v, why, sizeof(why)), 0);
	assert_int_equal(v.kind, KV_MAX);
	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "on", &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "txqueuelen expects a number up to 4294967295 (optional K or M "
				 "suffix), max or keep, got 'on'");
	assert_int_equal(knob_value_parse(KNOB_TXQUEUELEN, "4294967296", &v, why, sizeof(why)),
			 -EINVAL);
	assert_true(knob_value_valid(KNOB_TXQUEUELEN, 0));
	assert_true(knob_value_valid(KNOB_TXQUEUELEN, 4294967295LL));
	assert_false(knob_value_valid(KNOB_TXQUEUELEN, -1));
	assert_false(knob_value_valid(KNOB_TSO, 2));
}

static void test_link_parse_from_rows(void **state)
{
	struct link_info li;

	read_captured_link(&li);
	assert_string_equal(li.ifname, "v1");
	assert_string_equal(li.kind, "veth");
	assert_string_equal(li.slave_kind, "bridge");
	assert_int_equal(li.master, 4);
	assert_int_equal(li.knob[KNOB_TXQUEUELEN], 1000);
	assert_int_equal(li.knob[KNOB_MTU], 1500);
	assert_int_equal(li.knob[KNOB_GSO_MAX_SIZE], 65536);
	assert_int_equal(li.knob[KNOB_GSO_IPV4_MAX_SIZE], 65536);
	assert_int_equal(li.knob[KNOB_GRO_MAX_SIZE], 65536);
	assert_int_equal(li.knob[KNOB_GRO_IPV4_MAX_SIZE], 65536);
	assert_int_equal(li.knob[KNOB_GSO_MAX_SEGS], 65535);
	assert_int_equal(li.tso_max_size, 524280);
	assert_int_equal(li.min_mtu, 68);
	assert_int_equal(li.max_mtu, 65535);
	/* Feature knobs come from ethtool, never from rtnetlink. */
	assert_int_equal(li.knob[KNOB_TSO], LINK_UNSET);
	assert_int_equal(li.knob[KNOB_GRO], LINK_UNSET);
}

static void nic_of_captured(struct nic *nic)
{
	memset(nic, 0, sizeof(*nic));
	read_captured_link(&nic->link);
	link_knob_values(&nic->link, nic->val);
	nic->val[KNOB_TSO] = nic->val[KNOB_GSO] = 1;
	nic->val[KNOB_GRO] = 0;
}

static void test_txqueuelen_plans(void **state)
{
	int64_t targets[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {false};
	char dir[] = "/tmp/rtltune-test-knob.XXXXXX", path[PATH_MAX];
	struct profile *p = NULL;
	struct rterr err = {0};
	struct plan plan;
	struct nic nic;
	json_object *doc, *ch, *c;
	FILE *f;

	nic_of_captured(&nic);
	targets[KNOB_TXQUEUELEN] = 5000;
	which[KNOB_TXQUEUELEN] = true;
	assert_int_equal(plan_values(&nic, NULL, targets, which, "test", &plan, &err), 0);
	assert_int_equal(plan.n_changes, 1);
	assert_int_equal(plan.items[KNOB_TXQUEUELEN].action, PLAN_CHANGE);
	assert_int_equal(plan.items[KNOB_TXQUEUELEN].cur, 1000);
	assert_int_equal(plan.items[KNOB_TXQUEUELEN].target, 5000);
	doc = plan_json(&plan, false);
	ch = json_object_object_get(doc, "changes");
	assert_int_equal(json_object_array_length(ch), 1);
	c = json_object_array_get_idx(ch, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(c, "knob")),
			    "txqueuelen");
	assert_int_equal(json_object_get_int64(json_object_object_get(c, "old")), 1000);
	assert_int_equal(json_object_get_int64(json_object_object_get(c, "new")), 5000);
	json_object_put(doc);

	/* "max" with no limit anywhere (the kernel reports none): skipped, saying why. */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/q.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[knobs]\n# the test's reason\ntxqueuelen = max\n", f);
	fclose(f);
	assert_int_equal(profile_load(path, &p, &err), 0);
	assert_int_equal(plan_profile(p, &nic, NULL, &plan, &err), 0);
	assert_int_equal(plan.items[KNOB_TXQUEUELEN].action, PLAN_SKIP);
	assert_string_equal(plan_note(&plan, KNOB_TXQUEUELEN),
			    "max: no limit known for txqueuelen");
	assert_int_equal(plan.n_changes, 0);
	profile_free(p);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_consistent),
		cmocka_unit_test(test_txqueuelen_row),
		cmocka_unit_test(test_link_parse_from_rows),
		cmocka_unit_test(test_txqueuelen_plans),
	};

	if (find_tree(CAPTURED_LINK) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
