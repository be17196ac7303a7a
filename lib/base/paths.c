// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtltune/paths.h"

#ifndef RTLTUNE_DATADIR
#define RTLTUNE_DATADIR "/usr/share/rtltune"
#endif
#ifndef RTLTUNE_SYSCONFDIR
#define RTLTUNE_SYSCONFDIR "/etc/rtltune"
#endif

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int push(char ***dirs, size_t *n, const char *path)
{
	char **grown;
	size_t i;

	if (!is_dir(path))
		return 0;
	for (i = 0; i < *n; i++)
		if (strcmp((*dirs)[i], path) == 0)
			return 0;
	grown = realloc(*dirs, (*n + 2) * sizeof(*grown));
	if (!grown)
		return -1;
	*dirs = grown;
	grown[*n] = strdup(path);
	if (!grown[*n])
		return -1;
	grown[++*n] = NULL;
	return 0;
}

/* The running binary's path as paths_pin_exe() read it ("" before, or when unreadable). */
static char pinned_exe[PATH_MAX];
static bool exe_pinned;

void paths_pin_exe(void)
{
	ssize_t r = readlink("/proc/self/exe", pinned_exe, sizeof(pinned_exe) - 1);

	pinned_exe[r > 0 ? r : 0] = '\0';
	exe_pinned = true;
}

/* The source tree the running binary was built in, if it runs from TREE/build*. */
static int source_tree_dir(const char *subdir, char *out, size_t len)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t r;
	char *slash;

	if (exe_pinned) {
		r = (ssize_t)strlen(pinned_exe);
		memcpy(exe, pinned_exe, (size_t)r + 1);
	} else {
		r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (r > 0)
			exe[r] = '\0';
	}
	if (r <= 0)
		return -1;
	slash = strrchr(exe, '/'); /* strip program name */
	if (!slash)
		return -1;
	*slash = '\0';
	slash = strrchr(exe, '/'); /* strip build directory */
	if (!slash || strncmp(slash + 1, "build", 5) != 0)
		return -1;
	*slash = '\0';
	snprintf(probe, sizeof(probe), "%s/Makefile", exe);
	if (access(probe, F_OK) != 0)
		return -1;
	snprintf(out, len, "%s/%s", exe, subdir);
	return 0;
}

char **paths_search_dirs(const char *env_var, const char *subdir)
{
	char path[PATH_MAX], **dirs = calloc(1, sizeof(*dirs));
	const char *env = env_var ? getenv(env_var) : NULL;
	size_t n = 0;

	if (!dirs)
		return NULL;
	if (env && *env) {
		char *copy = strdup(env), *save = NULL, *tok;

		if (!copy)
			goto oom;
		for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			if (push(&dirs, &n, tok) < 0) {
				free(copy);
				goto oom;
			}
		}
		free(copy);
	}
	snprintf(path, sizeof(path), "%s/%s", RTLTUNE_SYSCONFDIR, subdir);
	if (push(&dirs, &n, path) < 0)
		goto oom;
	snprintf(path, sizeof(path), "%s/%s", RTLTUNE_DATADIR, subdir);
	if (push(&dirs, &n, path) < 0)
		goto oom;
	if (source_tree_dir(subdir, path, sizeof(path)) == 0 && push(&dirs, &n, path) < 0)
		goto oom;
	return dirs;
oom:
	paths_free(dirs);
	return NULL;
}

void paths_free(char **dirs)
{
	char **d;

	if (!dirs)
		return;
	for (d = dirs; *d; d++)
		free(*d);
	free(dirs);
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}
