/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TEST_TREE_H
#define RTLTUNE_TEST_TREE_H
/*
 * The source tree, for unit tests that read fixtures: RTLTUNE_SRCDIR, else three levels
 * above the binary (TREE/build/tests/test_NAME), so a test runs from anywhere.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tree[PATH_MAX];

/* Fill tree; then check that rel (a path in the tree) is readable. 0 or -1. */
static inline int find_tree(const char *rel)
{
	const char *env = getenv("RTLTUNE_SRCDIR");
	char probe[PATH_MAX + 256];
	ssize_t r;
	int up;

	if (env && *env) {
		snprintf(tree, sizeof(tree), "%s", env);
	} else {
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
	}
	snprintf(probe, sizeof(probe), "%s/%s", tree, rel);
	return access(probe, R_OK);
}

/* The bytes of rel (a path in the tree, after find_tree), malloc'd for the caller to free,
 * their count in *len; NULL when the file cannot be read or is empty. */
static inline unsigned char *tree_read(const char *rel, size_t *len)
{
	char path[PATH_MAX + 256];
	unsigned char *data = NULL;
	FILE *f;
	long n;

	*len = 0;
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0) {
		rewind(f);
		data = malloc((size_t)n);
		if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
			*len = (size_t)n;
		} else {
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	return data;
}

#endif
