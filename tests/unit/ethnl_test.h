/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TEST_ETHNL_H
#define RTLTUNE_TEST_ETHNL_H
/* Shared by test_ethnl.c and test_ethnl_malformed.c: the fixtures and value lookups. */
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

#include "../../lib/netdev/ethnl_priv.h"
#include "tree.h"

/* Capture-time facts (fixtures/ethnl/MANIFEST): ifindexes, NETDEV_FEATURE_COUNT of 6.18. */
#define ETH0_IFINDEX 4
#define V0_IFINDEX   3
#define TAP0_IFINDEX 4
#define FEATURE_BITS 64

/* The captured messages, in the tree (find_tree(ETHNL_FIXTURES) first). */
#define ETHNL_FIXTURES "tests/unit/fixtures/ethnl"

struct blob {
	uint8_t *data;
	size_t len;
};

static inline struct blob load(const char *name)
{
	char rel[256];
	struct blob b;

	snprintf(rel, sizeof(rel), ETHNL_FIXTURES "/%s", name);
	b.data = tree_read(rel, &b.len);
	assert_non_null(b.data);
	return b;
}

static inline int64_t val(const struct ethnl_values *v, enum ethnl_group g, const char *name)
{
	const struct ethnl_attr *a = ethnl_attr_find(g, name);

	assert_non_null(a);
	return v->val[a->attr];
}

static inline int64_t max_of(const struct ethnl_values *v, enum ethnl_group g, const char *name)
{
	const struct ethnl_attr *a = ethnl_attr_find(g, name);

	assert_non_null(a);
	return v->max[a->attr];
}

/* Every row not named in set[] must be absent (ethtool's "n/a"). */
static inline void assert_only(const struct ethnl_values *v, enum ethnl_group g,
			       const char *const *set)
{
	size_t i, n, k;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++) {
		bool listed = false;

		for (k = 0; set[k]; k++)
			listed |= strcmp(set[k], a[i].name) == 0;
		if (!listed && v->val[a[i].attr] != LINK_UNSET)
			fail_msg("%s %s: expected absent, got %lld", ethnl_group_name(g), a[i].name,
				 (long long)v->val[a[i].attr]);
	}
}

#endif
