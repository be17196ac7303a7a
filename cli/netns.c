// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune -n NETNS: run the command in a named network namespace the way `ip -n NETNS` and
 * `ip netns exec NETNS` do (iproute2's netns_switch()), so the three agree on what a
 * command sees: the namespace's links, a /sys that describes them (sysfs shows the
 * namespace of whoever mounts it: interface directories, device links, queues), and the
 * files of /etc/netns/NETNS/ in place of their namesakes in /etc. The mounts are made in a
 * mount namespace of this process's own: nothing outside it sees them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/paths.h"

#define NETNS_RUN_DIR "/run/netns"
#define NETNS_ETC_DIR "/etc/netns"

/* /etc/netns/NETNS/FILE over /etc/FILE, for each FILE there; what fails is reported. */
static void bind_etc(const char *name, void (*warn)(const char *msg))
{
	char dir[PATH_MAX], from[PATH_MAX + 256], to[PATH_MAX], msg[2 * PATH_MAX + 512];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", NETNS_ETC_DIR, name);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, e->d_name);
		snprintf(to, sizeof(to), "/etc/%s", e->d_name);
		if (mount(from, to, "none", MS_BIND, NULL) < 0) {
			snprintf(msg, sizeof(msg), "-n %s: bind %s over %s: %s", name, from, to,
				 strerror(errno));
			warn(msg);
		}
	}
	closedir(d);
}

int cli_netns_enter(const char *name, void (*warn)(const char *msg), struct rterr *err)
{
	unsigned long flags = 0;
	char path[PATH_MAX];
	struct statvfs st;
	int fd;

	/* A name as `ip netns add` takes it: one path component. */
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= NAME_MAX)
		return rterr_input(err, "-n: '%s' is not a network namespace name (as in %s/)",
				   name, NETNS_RUN_DIR);
	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return rterr_input(err,
				   "-n: no network namespace '%s' (no %s; ip netns list shows "
				   "them)",
				   name, path);
	if (fd < 0)
		return rterr_sys(err, errno, "-n: cannot open %s", path);
	if (setns(fd, CLONE_NEWNET) < 0) {
		rterr_sys(err, errno, "-n: entering network namespace %s", name);
		close(fd);
		return -err->errnum;
	}
	close(fd);
	/* The data directories of a binary run from its source tree are found through
	 * /proc/self/exe, which a chroot reads wrongly from a new mount namespace. */
	paths_pin_exe();
	if (unshare(CLONE_NEWNS) < 0)
		return rterr_sys(err, errno, "-n %s: a mount namespace for its /sys", name);
	/* Nothing mounted from here on propagates back to the namespace we came from. */
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL) < 0)
		return rterr_sys(err, errno, "-n %s: making / a slave mount", name);
	/* No sysfs mounted, or one that cannot go: overlay it (read-only stays read-only). */
	if (umount2("/sys", MNT_DETACH) < 0 && statvfs("/sys", &st) == 0 && (st.f_flag & ST_RDONLY))
		flags = MS_RDONLY;
	if (mount(name, "/sys", "sysfs", flags, NULL) < 0)
		return rterr_sys(err, errno, "-n %s: mounting the namespace's /sys", name);
	bind_etc(name, warn);
	return 0;
}
