// SPDX-License-Identifier: GPL-2.0-only
/* RPS and XPS: the per-queue sysfs files, one value for every queue of a kind (queues.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/cpus.h"
#include "rtltune/queues.h"

static const struct {
	const char *name;
	const char *prefix; /* the queue directories: "rx-", "tx-" */
	bool mask;	    /* a CPU mask (else a number) */
} files[QUEUE_FILE_COUNT] = {
	[QUEUE_RPS_CPUS] = {"rps_cpus", "rx-", true},
	[QUEUE_RPS_FLOW_CNT] = {"rps_flow_cnt", "rx-", false},
	[QUEUE_XPS_CPUS] = {"xps_cpus", "tx-", true},
};

const char *queue_file_name(enum queue_file f)
{
	return (unsigned int)f < QUEUE_FILE_COUNT ? files[f].name : "?";
}

/* Each queue's file path in turn: 1 and path filled, 0 at the end, -errno. */
struct queue_iter {
	DIR *d;
	char dir[512];
};

static int iter_open(struct queue_iter *it, const char *sysfs_root, const char *ifname)
{
	if (strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -EINVAL;
	snprintf(it->dir, sizeof(it->dir), "%s/class/net/%s/queues", sysfs_root, ifname);
	it->d = opendir(it->dir);
	return it->d ? 0 : -errno;
}

static int iter_next(struct queue_iter *it, enum queue_file f, char *path, size_t len)
{
	struct dirent *e;
	size_t plen = strlen(files[f].prefix);

	while ((e = readdir(it->d)))
		if (strncmp(e->d_name, files[f].prefix, plen) == 0) {
			snprintf(path, len, "%s/%s/%s", it->dir, e->d_name, files[f].name);
			return 1;
		}
	return 0;
}

static int read_one(const char *path, enum queue_file f, int64_t *v)
{
	char buf[512], *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	if (files[f].mask)
		return cpus_parse_kernel(buf, v);
	errno = 0;
	*v = (int64_t)strtoull(buf, &end, 10);
	return errno || end == buf || (*end && *end != '\n') ? -EINVAL : 0;
}

int queue_read(const char *sysfs_root, const char *ifname, enum queue_file f, int64_t *value)
{
	struct queue_iter it;
	char path[768];
	int64_t v, first = -1;
	int r;

	r = iter_open(&it, sysfs_root, ifname);
	if (r < 0)
		return r;
	while ((r = iter_next(&it, f, path, sizeof(path))) > 0) {
		r = read_one(path, f, &v);
		if (r < 0)
			break;
		if (first >= 0 && v != first) {
			r = -ENOTUNIQ;
			break;
		}
		first = v;
	}
	closedir(it.d);
	if (r < 0)
		return r;
	if (first < 0)
		return -ENOENT;
	*value = first;
	return 0;
}

int queue_write(const char *sysfs_root, const char *ifname, enum queue_file f, int64_t value,
		struct rterr *err)
{
	struct queue_iter it;
	char path[768], text[32];
	int r, n = 0;

	/* bitmap_parse() takes the hex mask without 0x; the flow count is decimal. */
	snprintf(text, sizeof(text), files[f].mask ? "%" PRIx64 "\n" : "%" PRId64 "\n", value);
	r = iter_open(&it, sysfs_root, ifname);
	if (r < 0)
		return rterr_sys(err, -r, "%s: set %s: %s/class/net/%s/queues", ifname,
				 files[f].name, sysfs_root, ifname);
	while ((r = iter_next(&it, f, path, sizeof(path))) > 0) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		ssize_t w;

		if (fd < 0) {
			r = -errno;
			break;
		}
		w = write(fd, text, strlen(text));
		r = w < 0 ? -errno : 0;
		close(fd);
		if (r < 0)
			break;
		n++;
	}
	closedir(it.d);
	if (r < 0)
		return rterr_sys(err, -r, "%s: set %s %s: %s", ifname, files[f].name, text, path);
	if (!n)
		return rterr_sys(err, ENOENT, "%s: no %s queue has %s", ifname, files[f].prefix,
				 files[f].name);
	return 0;
}
