// SPDX-License-Identifier: GPL-2.0-only
/*
 * The knobs of the stack around the NIC (around.h): per NAPI and per queue set. A device
 * has one value of such a knob when all its NAPIs (or all its queues of the kind) agree;
 * rtltune sets them alike, so where they differ it leaves the knob alone rather than
 * journal one value and restore the others wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/around.h"
#include "rtltune/napi.h"
#include "rtltune/nic.h"
#include "rtltune/queues.h"

/* nic->napi_path */
enum { NAPI_PATH_NONE, NAPI_PATH_NETLINK, NAPI_PATH_SYSFS };

static int16_t *err_of(struct nic *nic, enum knob_id k)
{
	return &nic->around_err[k - KNOB_FIRST_AROUND];
}

static int sysfs_path(const char *root, const char *ifname, const char *file, char *path,
		      size_t len)
{
	if (strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -EINVAL;
	snprintf(path, len, "%s/class/net/%s/%s", root, ifname, file);
	return 0;
}

/* A per-device NAPI file (/sys/class/net/DEV/threaded, ...): one decimal number. */
static int napi_sysfs_read(const char *root, const char *ifname, enum napi_setting s, int64_t *v)
{
	char path[512], buf[64], *end;
	ssize_t n;
	int fd;

	if (!napi_sysfs_file(s))
		return -EOPNOTSUPP;
	if (sysfs_path(root, ifname, napi_sysfs_file(s), path, sizeof(path)) < 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	errno = 0;
	*v = (int64_t)strtoull(buf, &end, 10);
	return errno || end == buf ? -EINVAL : 0;
}

static int napi_sysfs_write(const char *root, const char *ifname, enum napi_setting s, int64_t v,
			    struct rterr *err)
{
	char path[512], text[32];
	ssize_t w;
	int fd;

	if (!napi_sysfs_file(s))
		return rterr_sys(err, EOPNOTSUPP, "%s: %s has no sysfs file (netlink only, 6.13)",
				 ifname, napi_setting_name(s));
	if (sysfs_path(root, ifname, napi_sysfs_file(s), path, sizeof(path)) < 0)
		return rterr_sys(err, EINVAL, "%s: not a device name", ifname);
	snprintf(text, sizeof(text), "%" PRId64 "\n", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return rterr_sys(err, errno, "%s: set %s: %s", ifname, napi_setting_name(s), path);
	w = write(fd, text, strlen(text));
	if (w < 0) {
		int e = errno;

		close(fd);
		/* A device without NAPI refuses "threaded" (net-sysfs.c modify_napi_threaded). */
		return rterr_sys(err, e, "%s: set %s %" PRId64 ": %s", ifname, napi_setting_name(s),
				 v, path);
	}
	close(fd);
	return 0;
}

/* The NAPI knobs' rows in enum napi_setting order. */
static enum knob_id napi_knob(enum napi_setting s)
{
	return (enum knob_id)(KNOB_NAPI_THREADED + s);
}

/* The value every NAPI has of s: 0 with *v, NAPI_ABSENT as -EOPNOTSUPP, -ENOTUNIQ. */
static int napi_common(const struct napi_info *list, unsigned int n, enum napi_setting s,
		       int64_t *v)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (list[i].set[s] == NAPI_ABSENT)
			return -EOPNOTSUPP;
		if (i && list[i].set[s] != list[0].set[s])
			return -ENOTUNIQ;
	}
	*v = list[0].set[s];
	return 0;
}

static void read_napi(const struct around_io *io, struct nic *nic)
{
	struct napi_nl *nl = io->napi;
	struct napi_info *list = NULL;
	unsigned int n = 0;
	struct rterr ignored;
	int s, r = -EOPNOTSUPP;

	nic->n_napi = -1;
	nic->napi_irq = -1;
	nic->napi_path = NAPI_PATH_NONE;
	if (napi_nl_has_get(nl)) {
		list = calloc(NAPI_MAX_PER_DEV, sizeof(*list));
		r = list ? napi_nl_list(nl, nic->link.ifindex, list, NAPI_MAX_PER_DEV, &n, &ignored)
			 : -ENOMEM;
		if (r == 0) {
			nic->n_napi = (int16_t)n;
			nic->napi_irq = napi_list_has_irq(list, n);
		}
	}
	for (s = 0; s < NAPI_SETTING_COUNT; s++) {
		enum knob_id k = napi_knob((enum napi_setting)s);
		int64_t v = LINK_UNSET;
		int e;

		if (r == 0 && n == 0) {
			e = -ENOENT; /* no NAPI: nothing to set */
		} else {
			e = r == 0 ? napi_common(list, n, (enum napi_setting)s, &v) : -EOPNOTSUPP;
			if (e == 0 && napi_nl_has_set(nl)) {
				nic->napi_path = NAPI_PATH_NETLINK;
			} else if (e == -EOPNOTSUPP || (e == 0 && !napi_nl_has_set(nl))) {
				/* The kernel reports it but cannot set it per NAPI, or does not
				 * report it at all: the per-device file, where there is one. */
				e = napi_sysfs_read(io->sysfs_root, nic->link.ifname,
						    (enum napi_setting)s, &v);
				if (e == 0 && nic->napi_path == NAPI_PATH_NONE)
					nic->napi_path = NAPI_PATH_SYSFS;
			}
		}
		/* Threaded busy polling (2, 6.18) is not a state on/off can restore. */
		if (e == 0 && k == KNOB_NAPI_THREADED && v > 1)
			e = -EDOM;
		*err_of(nic, k) = (int16_t)e;
		nic->val[k] = e == 0 ? v : LINK_UNSET;
	}
	free(list);
}

static void read_queues(const struct around_io *io, struct nic *nic)
{
	static const enum knob_id rows[QUEUE_FILE_COUNT] = {
		[QUEUE_RPS_CPUS] = KNOB_RPS_CPUS,
		[QUEUE_RPS_FLOW_CNT] = KNOB_RPS_FLOW_CNT,
		[QUEUE_XPS_CPUS] = KNOB_XPS_CPUS,
	};
	int f;

	for (f = 0; f < QUEUE_FILE_COUNT; f++) {
		int64_t v = LINK_UNSET;
		int e = queue_read(io->sysfs_root, nic->link.ifname, (enum queue_file)f, &v);

		*err_of(nic, rows[f]) = (int16_t)e;
		nic->val[rows[f]] = e == 0 ? v : LINK_UNSET;
	}
}

void around_unread(struct nic *nic)
{
	int k;

	nic->n_napi = -1;
	nic->napi_irq = -1;
	nic->napi_path = NAPI_PATH_NONE;
	for (k = KNOB_FIRST_AROUND; k < KNOB_FIRST_HOST; k++) {
		*err_of(nic, (enum knob_id)k) = -ENODATA;
		nic->val[k] = LINK_UNSET;
	}
}

void around_read(const struct around_io *io, struct nic *nic)
{
	read_napi(io, nic);
	read_queues(io, nic);
}

int around_set(const struct around_io *io, int ifindex, const char *ifname, enum knob_id k,
	       int64_t v, struct rterr *err)
{
	const struct knob_desc *d = knob_desc(k);
	struct napi_nl *nl = io->napi;
	struct napi_info *list;
	char now[IF_NAMESIZE];
	enum napi_setting s = (enum napi_setting)d->sub;
	unsigned int n = 0, i;
	int r = 0;

	/* sysfs goes by name: the device's name now, whatever the plan called it. */
	if (if_indextoname((unsigned int)ifindex, now))
		ifname = now;
	if (d->backend == KNOB_B_QUEUE)
		return queue_write(io->sysfs_root, ifname, (enum queue_file)d->sub, v, err);
	if (d->backend != KNOB_B_NAPI)
		return rterr_sys(err, EINVAL, "%s: %s is not a NAPI or queue knob", ifname,
				 d->name);
	if (!napi_nl_has_get(nl) || !napi_nl_has_set(nl))
		return napi_sysfs_write(io->sysfs_root, ifname, s, v, err);
	list = calloc(NAPI_MAX_PER_DEV, sizeof(*list));
	if (!list)
		return rterr_sys(err, ENOMEM, "%s: set %s", ifname, d->name);
	r = napi_nl_list(nl, ifindex, list, NAPI_MAX_PER_DEV, &n, err);
	if (r == 0 && n == 0)
		r = rterr_sys(err, ENOENT, "%s: set %s: the device has no NAPI instance", ifname,
			      d->name);
	/* The kernel reports the setting per NAPI exactly where napi-set takes it. */
	if (r == 0 && list[0].set[s] == NAPI_ABSENT)
		r = napi_sysfs_write(io->sysfs_root, ifname, s, v, err);
	else
		for (i = 0; r == 0 && i < n; i++)
			r = napi_nl_set(nl, (uint32_t)list[i].id, s, (uint64_t)v, err);
	free(list);
	if (r < 0)
		rterr_prefix(err, "%s: ", ifname);
	return r;
}

const char *around_why(const struct nic *nic, enum knob_id k, char *buf, size_t len)
{
	int e = nic->around_err[k - KNOB_FIRST_AROUND];
	const struct knob_desc *d = knob_desc(k);

	if (d->backend == KNOB_B_QUEUE && e == -ENOENT)
		snprintf(buf, len, "%s unsupported: the device has no queue with %s", d->name,
			 queue_file_name((enum queue_file)d->sub));
	else if (e == -ENOENT)
		snprintf(buf, len,
			 "%s unsupported: the device has no NAPI instance (a veth gets one with "
			 "GRO on or XDP attached)",
			 d->name);
	else if (e == -ENOTUNIQ)
		snprintf(buf, len,
			 "%s left alone: its %s differ (rtltune sets them all alike and could not "
			 "restore them exactly)",
			 d->name, d->backend == KNOB_B_NAPI ? "NAPIs" : "queues");
	else if (e == -EDOM)
		snprintf(buf, len, "%s left alone: the NAPI polls in busy-poll threaded mode",
			 d->name);
	else if (e == -ERANGE)
		snprintf(buf, len, "%s left alone: it holds a CPU above 62", d->name);
	else if (e == -EOPNOTSUPP)
		snprintf(buf, len,
			 "%s unsupported: this kernel has no way to set it (netdev napi-set, 6.13)",
			 d->name);
	else
		snprintf(buf, len, "%s unknown: reading it failed (%s)", d->name, strerror(-e));
	return buf;
}

const char *around_napi_path(const struct nic *nic)
{
	return nic->napi_path == NAPI_PATH_NETLINK ? "netlink"
	       : nic->napi_path == NAPI_PATH_SYSFS ? "sysfs"
						   : "none";
}
