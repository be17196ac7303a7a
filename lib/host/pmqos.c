// SPDX-License-Identifier: GPL-2.0-only
/* CPU latency PM QoS requests through /dev/cpu_dma_latency (include/rtltune/pmqos.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/pmqos.h"

int pmqos_parse_us(const char *text, int32_t *us)
{
	unsigned long long n;
	char *end;

	/* strtoull() would take "-1", " 5" and "+5": digits only. */
	if (!(*text >= '0' && *text <= '9'))
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	if (strcmp(end, "us") == 0)
		end += 2;
	if (*end || n > PMQOS_MAX_US)
		return -EINVAL;
	*us = (int32_t)n;
	return 0;
}

int pmqos_parse_setting(const char *text, struct pmqos_setting *out)
{
	int32_t us;

	if (strcmp(text, "auto") == 0) {
		*out = (struct pmqos_setting){.mode = PMQOS_AUTO};
		return 0;
	}
	if (strcmp(text, "off") == 0) {
		*out = (struct pmqos_setting){.mode = PMQOS_OFF};
		return 0;
	}
	if (pmqos_parse_us(text, &us) < 0)
		return -EINVAL;
	*out = (struct pmqos_setting){.mode = PMQOS_FIXED, .us = us};
	return 0;
}

const char *pmqos_setting_text(const struct pmqos_setting *s, char *buf, size_t len)
{
	if (s->mode == PMQOS_FIXED)
		snprintf(buf, len, "%d", (int)s->us);
	else
		snprintf(buf, len, "%s", s->mode == PMQOS_OFF ? "off" : "auto");
	return buf;
}

int32_t pmqos_wanted(const struct pmqos_setting *s, int32_t chip_us)
{
	switch (s->mode) {
	case PMQOS_OFF:
		return -1;
	case PMQOS_FIXED:
		return s->us;
	default:
		return chip_us >= 0 ? chip_us : PMQOS_DEFAULT_US;
	}
}

int32_t pmqos_lowest(int32_t a, int32_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int pmqos_hold(const char *path, int32_t us, int *fd, struct rterr *err)
{
	int f = *fd;
	ssize_t w;

	if (f < 0) {
		/* Read-write: the kernel answers reads only on a file that holds a request. */
		f = open(path, O_RDWR | O_CLOEXEC);
		if (f < 0)
			return rterr_sys(err, errno, "open %s", path);
	}
	/* The binary form: exactly sizeof(s32) bytes (anything else is read as hex text). */
	w = write(f, &us, sizeof(us));
	if (w != (ssize_t)sizeof(us)) {
		int e = w < 0 ? errno : EIO;

		if (*fd < 0)
			close(f);
		return rterr_sys(err, e, "write %d us to %s", (int)us, path);
	}
	*fd = f;
	return 0;
}

int pmqos_target(int fd, int32_t *out, struct rterr *err)
{
	int32_t v;
	ssize_t r;

	/* pread: the file position moves past the value and a second read() gets EOF. */
	r = pread(fd, &v, sizeof(v), 0);
	if (r != (ssize_t)sizeof(v))
		return rterr_sys(err, r < 0 ? errno : EIO, "read cpu_dma_latency");
	*out = v;
	return 0;
}

void pmqos_release(int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
}
