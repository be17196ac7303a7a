// SPDX-License-Identifier: GPL-2.0-only
/* Another network namespace, entered for the work on its devices (netns.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rtltune/ethtool.h"
#include "rtltune/link.h"
#include "rtltune/netns.h"
#include "rtltune/nic.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* asm-generic value; 5.14+ */
#endif

/* A sysfs root under which nothing resolves (ENOTDIR): where no sysfs of the namespace
 * could be mounted, a device's name must not reach the host's sysfs entry of that name. */
#define NO_SYSFS "/dev/null/no-sysfs"

#define NETNS_NAME_MAX 64 /* with its NUL: longer names are cut */

struct netns {
	int fd;	   /* the namespace (nsfs) */
	int ctl;   /* its ioctl socket */
	int sysfs; /* its sysfs, a detached mount; -1 none */
	int rt;	   /* a plain rtnetlink socket made inside (link reads) */
	uint64_t cookie;
	struct nic_io *io; /* its device sockets, once asked for */
	char name[];	   /* allocated with it: a node opens one per pod */
};

static struct netns *cur_ns;
static int home_fd = -1, home_ctl = -1;

struct netns *netns_current(void)
{
	return cur_ns;
}

int netns_switch(struct netns *to, struct netns **prev, struct rterr *err)
{
	if (prev)
		*prev = cur_ns;
	if (to == cur_ns)
		return 0;
	if (home_fd < 0) {
		/* The first switch leaves the process's own namespace: keep the way back. */
		home_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (home_fd < 0)
			return rterr_sys(err, errno, "own network namespace");
	}
	/* The own ioctl socket, opened at home before leaving it. */
	if (!cur_ns && ethtool_ctl_fd() < 0)
		return rterr_sys(err, -ethtool_ctl_fd(), "socket");
	if (setns(to ? to->fd : home_fd, CLONE_NEWNET) < 0)
		return rterr_sys(err, errno, "enter network namespace %s", to ? to->name : "(own)");
	if (!cur_ns)
		home_ctl = ethtool_ctl_fd_use(to->ctl);
	else
		ethtool_ctl_fd_use(to ? to->ctl : home_ctl);
	cur_ns = to;
	return 0;
}

/* A sysfs of the current network namespace (sysfs tags its net class with the namespace of
 * whoever creates the superblock), attached nowhere: -errno where the kernel has no new
 * mount API (< 5.2) or refuses. */
static int sysfs_mount_here(void)
{
	int fs, m;

	fs = (int)syscall(SYS_fsopen, "sysfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		m = -errno;
		close(fs);
		return m;
	}
	m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (m < 0)
		m = -errno;
	close(fs);
	return m;
}

int netns_open(const char *name, const char *path, struct netns **out, struct rterr *err)
{
	size_t len = strnlen(name, NETNS_NAME_MAX - 1);
	struct netns *ns = calloc(1, sizeof(*ns) + len + 1), *prev;
	socklen_t olen = sizeof(ns->cookie);
	int r;

	*out = NULL;
	if (!ns)
		return rterr_sys(err, ENOMEM, "netns %s", name);
	memcpy(ns->name, name, len);
	ns->ctl = ns->sysfs = ns->rt = -1;
	ns->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0) {
		r = rterr_sys(err, errno, "netns %s: %s", name, path);
		goto fail;
	}
	if (ioctl(ns->fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		r = rterr_sys(err, EINVAL, "netns %s: %s is not a network namespace", name, path);
		goto fail;
	}
	r = netns_switch(ns, &prev, err);
	if (r < 0)
		goto fail;
	ns->ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r = ns->ctl < 0 ? -errno : 0;
	if (r == 0) {
		ns->rt = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		r = ns->rt < 0 ? -errno : 0;
	}
	if (r == 0 && getsockopt(ns->ctl, SOL_SOCKET, SO_NETNS_COOKIE, &ns->cookie, &olen) < 0)
		ns->cookie = 0;
	/* The ioctl socket swapped in was ns->ctl's -1: put the right one in place. */
	ethtool_ctl_fd_use(ns->ctl);
	netns_switch(prev, NULL, err);
	if (r < 0) {
		r = rterr_sys(err, -r, "netns %s: socket", name);
		goto fail;
	}
	*out = ns;
	return 0;
fail:
	netns_close(ns);
	return r;
}

void netns_close(struct netns *ns)
{
	if (!ns)
		return;
	if (cur_ns == ns)
		netns_switch(NULL, NULL, NULL);
	nic_io_close(ns->io);
	if (ns->sysfs >= 0)
		close(ns->sysfs);
	if (ns->ctl >= 0)
		close(ns->ctl);
	if (ns->rt >= 0)
		close(ns->rt);
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns);
}

const char *netns_name(const struct netns *ns)
{
	return ns->name;
}

uint64_t netns_cookie(const struct netns *ns)
{
	return ns->cookie;
}

int netns_fd(const struct netns *ns)
{
	return ns->fd;
}

int netns_rtnl_fd(const struct netns *ns)
{
	return ns->rt;
}

bool netns_io_is_open(const struct netns *ns)
{
	return ns->io != NULL;
}

void netns_io_close(struct netns *ns)
{
	if (!ns || !ns->io)
		return;
	nic_io_close(ns->io);
	ns->io = NULL;
	if (ns->sysfs >= 0)
		close(ns->sysfs);
	ns->sysfs = -1;
}

struct nic_io *netns_io(struct netns *ns, struct rterr *err)
{
	struct netns *prev;
	char root[64];
	int r;

	if (ns->io)
		return ns->io;
	if (netns_switch(ns, &prev, err) < 0)
		return NULL;
	ns->sysfs = sysfs_mount_here();
	if (ns->sysfs >= 0)
		snprintf(root, sizeof(root), "/proc/self/fd/%d", ns->sysfs);
	else
		snprintf(root, sizeof(root), "%s", NO_SYSFS);
	r = nic_io_open(root, &ns->io, err);
	netns_switch(prev, NULL, NULL);
	if (r < 0) {
		rterr_prefix(err, "netns %s: ", ns->name);
		ns->io = NULL;
	}
	return ns->io;
}

int netns_find_id(struct link_sock *ls, int nsid, char *const *dirs, unsigned int n_dirs,
		  char *name, size_t name_len, char *path, size_t path_len, struct rterr *err)
{
	unsigned int i;

	if (nsid < 0)
		return 0;
	for (i = 0; i < n_dirs; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char file[PATH_MAX];
			struct rterr e;
			int fd, id;

			if (de->d_name[0] == '.' || strlen(de->d_name) >= name_len)
				continue;
			snprintf(file, sizeof(file), "%s/%s", dirs[i], de->d_name);
			fd = open(file, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			/* Not a namespace (yet: ip netns add mounts it after making it): no id. */
			id = link_netns_id(ls, fd, &e);
			close(fd);
			if (id != nsid)
				continue;
			snprintf(name, name_len, "%s", de->d_name);
			snprintf(path, path_len, "%s", file);
			closedir(d);
			return 1;
		}
		if (d)
			closedir(d);
	}
	(void)err;
	return 0;
}
