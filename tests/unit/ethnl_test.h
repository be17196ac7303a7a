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

#include "../../lib/ethnl_priv.h"

/* Capture-time facts (fixtures/ethnl/MANIFEST): ifindexes, NETDEV_FEATURE_COUNT of 6.18. */
#define ETH0_IFINDEX 4
#define V0_IFINDEX   3
#define TAP0_IFINDEX 4
#define FEATURE_BITS 64

static char tree[PATH_MAX] __attribute__((unused));

static inline int find_tree(void)
{
	const char *env = getenv("RTLTUNE_SRCDIR");
	ssize_t r;
	int up;

	if (env && *env) {
		snprintf(tree, sizeof(tree), "%s", env);
		return 0;
	}
	r = readlink("/proc/self/exe", tree, sizeof(tree) - 1);
	if (r <= 0)
		return -1;
	tree[r] = '\0';
	for (up = 0; up < 3; up++) {
		char *slash = strrchr(tree, '/');

		if (!slash)
			return -1;
		*slash = '\0';
	}
	return access(tree, R_OK);
}

struct blob {
	uint8_t *data;
	size_t len;
};

static inline struct blob load(const char *name)
{
	char path[PATH_MAX + 64];
	struct blob b = {0};
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ethnl/%s", tree, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b.data = malloc((size_t)n);
	assert_non_null(b.data);
	assert_int_equal(fread(b.data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b.len = (size_t)n;
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
