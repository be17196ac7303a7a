// SPDX-License-Identifier: GPL-2.0-only
/* Test-only fault and delay injection (testhook.h, docs/journal.md "Test hooks"). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtltune/testhook.h"

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{"EIO", EIO},
	{"ENOSPC", ENOSPC},
	{"EROFS", EROFS},
	{"EDQUOT", EDQUOT},
	{"EACCES", EACCES},
	{"EPERM", EPERM},
	{"ENOMEM", ENOMEM},
	{"EBUSY", EBUSY},
	{"EINVAL", EINVAL},
	{"ENODEV", ENODEV},
	{"EPROTONOSUPPORT", EPROTONOSUPPORT},
};

/* Find "point" or "point=ARG" in a comma-separated list; *arg gets ARG or NULL. */
static bool hook_find(const char *list, const char *point, char *arg, size_t arglen)
{
	size_t plen = strlen(point);
	const char *p = list;

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) >= plen && !strncmp(p, point, plen) &&
		    (p + plen == end || p[plen] == '=')) {
			arg[0] = '\0';
			if (p[plen] == '=') {
				size_t n = end - (p + plen + 1);

				if (n >= arglen)
					n = arglen - 1;
				memcpy(arg, p + plen + 1, n);
				arg[n] = '\0';
			}
			return true;
		}
		p = *end ? end + 1 : NULL;
	}
	return false;
}

bool test_hook_armed(const char *point)
{
	const char *delay = getenv("RTLTUNE_TEST_DELAY");
	const char *fault = getenv("RTLTUNE_TEST_FAULT");
	char arg[32];

	return (delay && hook_find(delay, point, arg, sizeof(arg))) ||
	       (fault && hook_find(fault, point, arg, sizeof(arg)));
}

int test_hook(const char *point)
{
	const char *delay = getenv("RTLTUNE_TEST_DELAY");
	const char *fault = getenv("RTLTUNE_TEST_FAULT");
	char arg[32];
	size_t i;

	if (delay && hook_find(delay, point, arg, sizeof(arg)))
		sleep_ms(strtol(arg, NULL, 10));
	if (!fault || !hook_find(fault, point, arg, sizeof(arg)))
		return 0;
	if (!arg[0])
		return -EIO;
	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (!strcmp(arg, errno_names[i].name))
			return -errno_names[i].err;
	return atoi(arg) > 0 ? -atoi(arg) : -EIO;
}
