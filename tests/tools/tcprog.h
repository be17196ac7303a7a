/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the test tools that leave a BPF program on a tc hook (faultinj, chipmodel):
 * attach at a fixed handle and priority, find it again in a later run by that handle, its
 * program name and its maps' names, detach only our own. No pins and no background
 * process: the tc filter holds the program and the program its maps, so it stays after the
 * tool exits and goes with the filter or the interface (a test's namespace being deleted).
 * /sys/fs/bpf would not do: `ip netns exec` mounts a fresh sysfs, hiding any bpffs below.
 * The clsact qdisc stays on detach: other filters may share it, an empty one costs nothing.
 *
 * Below the mechanism, the steps the tools' commands share, with their messages (tool.h)
 * and exit codes: a tool is described once (struct tcprog_tool) and its attach, set, stats
 * and detach commands call these.
 *
 * Static functions in a header because every C file in tests/tools is its own program.
 */
#ifndef RTLTUNE_TESTS_TCPROG_H
#define RTLTUNE_TESTS_TCPROG_H

#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tool.h"

#define TCPROG_MAX_MAPS 4

struct tcprog_hook {
	int ifindex;
	enum bpf_tc_attach_point point; /* BPF_TC_INGRESS or BPF_TC_EGRESS */
	__u32 handle, priority;
	const char *prog_name;
};

struct tcprog_found {
	int prog_fd;
	__u32 prog_id;
	int map_fd[TCPROG_MAX_MAPS]; /* in the order of the names asked for; -1 if absent */
};

static inline void tcprog_found_close(struct tcprog_found *f)
{
	int i;

	if (f->prog_fd >= 0)
		close(f->prog_fd);
	for (i = 0; i < TCPROG_MAX_MAPS; i++)
		if (f->map_fd[i] >= 0)
			close(f->map_fd[i]);
	f->prog_fd = -1;
	for (i = 0; i < TCPROG_MAX_MAPS; i++)
		f->map_fd[i] = -1;
}

/* Our program on the hook and its maps named map_names[0..n-1]; -ENOENT when the hook has
 * no filter at our handle, someone else's program sits there, or a map is missing. */
static inline int tcprog_find(const struct tcprog_hook *h, const char *const *map_names, int n_maps,
			      struct tcprog_found *f)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex, .attach_point = h->point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = h->handle, .priority = h->priority);
	struct bpf_prog_info info = {0};
	__u32 ids[16], len = sizeof(info), i;
	int r, k;

	f->prog_fd = -1;
	for (k = 0; k < TCPROG_MAX_MAPS; k++)
		f->map_fd[k] = -1;
	if (n_maps > TCPROG_MAX_MAPS)
		return -EINVAL;
	r = bpf_tc_query(&hook, &opts);
	if (r < 0)
		return r == -ENOENT || r == -EINVAL ? -ENOENT : r;
	f->prog_id = opts.prog_id;
	f->prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (f->prog_fd < 0)
		return -errno;
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(uintptr_t)ids;
	if (bpf_obj_get_info_by_fd(f->prog_fd, &info, &len) < 0)
		return -errno;
	if (strcmp(info.name, h->prog_name) != 0)
		return -ENOENT; /* someone else's filter at our handle: not ours to touch */
	for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_map_info mi = {0};
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]), kept = 0;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &mi, &mlen) == 0)
			for (k = 0; k < n_maps && !kept; k++)
				if (f->map_fd[k] < 0 && strcmp(mi.name, map_names[k]) == 0) {
					f->map_fd[k] = fd;
					kept = 1;
				}
		if (!kept)
			close(fd);
	}
	for (k = 0; k < n_maps; k++)
		if (f->map_fd[k] < 0)
			return -ENOENT;
	return 0;
}

/* Attach prog_fd at our handle, replacing an earlier copy of ours; *prog_id is set. */
static inline int tcprog_attach(const struct tcprog_hook *h, int prog_fd, __u32 *prog_id)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex, .attach_point = h->point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = h->handle, .priority = h->priority,
			    .flags = BPF_TC_F_REPLACE, .prog_fd = prog_fd);
	int r = bpf_tc_hook_create(&hook);

	if (r < 0 && r != -EEXIST)
		return r;
	r = bpf_tc_attach(&hook, &opts);
	if (r == 0 && prog_id)
		*prog_id = opts.prog_id;
	return r;
}

/* Detach our program; -ENOENT (and nothing removed) when the filter at our handle is not. */
static inline int tcprog_detach(const struct tcprog_hook *h)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = h->ifindex, .attach_point = h->point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = h->handle, .priority = h->priority);
	struct tcprog_found f;
	int r = tcprog_find(h, NULL, 0, &f);

	tcprog_found_close(&f);
	if (r < 0)
		return r;
	return bpf_tc_detach(&hook, &opts);
}

/*
 * Models belong on test veths only: the interface's driver must be "veth" and the tool
 * must run in a named network namespace (`ip netns add`, a bind mount under /run/netns),
 * as every test's is, so no model ever lands on the host's own NIC. (Comparing with
 * PID 1's namespace would be the direct test, but /proc/1/ns is unreadable without
 * CAP_SYS_PTRACE over init.) 0 when both hold; -EPERM with *why set otherwise.
 */
static inline int tcprog_check_test_veth(const char *ifname, const char **why)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr = {0};
	struct stat self, st;
	char path[320];
	struct dirent *de;
	int fd, r, named = 0;
	DIR *d;

	if (stat("/proc/self/ns/net", &self) < 0) {
		*why = "cannot read /proc/self/ns/net";
		return -EPERM;
	}
	d = opendir("/run/netns");
	while (d && !named && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", de->d_name);
		named = stat(path, &st) == 0 && st.st_ino == self.st_ino &&
			st.st_dev == self.st_dev;
	}
	if (d)
		closedir(d);
	if (!named) {
		*why = "not in a named network namespace (ip netns add): test veths live in one";
		return -EPERM;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*why = "no socket for ETHTOOL_GDRVINFO";
		return -EPERM;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&di;
	r = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	if (r < 0 || strcmp(di.driver, "veth") != 0) {
		*why = r < 0 ? "no driver reported (ETHTOOL_GDRVINFO failed): not a veth"
			     : "driver is not veth";
		return -EPERM;
	}
	return 0;
}

/* Both programs drop with probability threshold / 2^32: bpf_get_prandom_u32() < threshold. */
static inline __u64 tcprog_threshold(double fraction)
{
	return (__u64)(fraction * 4294967296.0);
}

static inline double tcprog_fraction(__u64 threshold)
{
	return (double)threshold / 4294967296.0;
}

/* ---- the commands' common steps ------------------------------------------------------------ */

/* A tool's program: its hook (the ifindex is each command's), what messages call it, its
 * maps (the configuration first, one entry at key 0; the per-CPU counts last) and the
 * environment variable that lets libbpf's own messages through. */
struct tcprog_tool {
	struct tcprog_hook hook;
	const char *what;
	const char *const *maps;
	int n_maps;
	const char *verbose_env;
};

static const char *tcprog_verbose_env;

static inline int tcprog_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv(tcprog_verbose_env))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static inline void tcprog_quiet_libbpf(const struct tcprog_tool *t)
{
	tcprog_verbose_env = t->verbose_env;
	libbpf_set_print(tcprog_libbpf_print);
}

static inline struct tcprog_hook tcprog_hook_on(const struct tcprog_tool *t, int ifindex)
{
	struct tcprog_hook h = t->hook;

	h.ifindex = ifindex;
	return h;
}

/* Our program and its maps on ifname; else the exit code, having said why (f closed). */
static inline int tcprog_cmd_find(const struct tcprog_tool *t, const char *ifname, int ifindex,
				  struct tcprog_found *f)
{
	struct tcprog_hook h = tcprog_hook_on(t, ifindex);
	int r = tcprog_find(&h, t->maps, t->n_maps, f);

	if (r < 0) {
		tcprog_found_close(f);
		return fail(3, "%s: %s not attached: %s", ifname, t->what, strerror(-r));
	}
	return 0;
}

/* Configure a loaded program before it sees a packet, then attach it at our handle. The
 * filter keeps the program and its maps alive once the tool destroys its skeleton. */
static inline int tcprog_cmd_attach(const struct tcprog_tool *t, const char *ifname, int ifindex,
				    int cfg_fd, const void *cfg, int prog_fd, __u32 *prog_id)
{
	struct tcprog_hook h = tcprog_hook_on(t, ifindex);
	__u32 zero = 0;
	int r;

	if (bpf_map_update_elem(cfg_fd, &zero, cfg, BPF_ANY) < 0)
		return fail(3, "configure: %s", strerror(errno));
	r = tcprog_attach(&h, prog_fd, prog_id);
	if (r < 0)
		return fail(3, "%s: attach to tc %s: %s", ifname,
			    h.point == BPF_TC_INGRESS ? "ingress" : "egress", strerror(-r));
	return 0;
}

/* The configuration into cfg, and every CPU's counts: calloc'd, *ncpu entries of stat_size
 * bytes; the caller frees them and closes f. Else NULL with *code the exit code, having
 * said why, and nothing left open. */
static inline void *tcprog_cmd_read(const struct tcprog_tool *t, const char *ifname, int ifindex,
				    struct tcprog_found *f, void *cfg, size_t stat_size, int *ncpu,
				    int *code)
{
	__u32 zero = 0;
	void *percpu;

	*ncpu = libbpf_num_possible_cpus();
	if (*ncpu <= 0) {
		*code = fail(3, "possible CPUs: %s", strerror(-*ncpu));
		return NULL;
	}
	*code = tcprog_cmd_find(t, ifname, ifindex, f);
	if (*code)
		return NULL;
	percpu = calloc((size_t)*ncpu, stat_size);
	if (!percpu) {
		tcprog_found_close(f);
		*code = fail(3, "out of memory");
		return NULL;
	}
	if (bpf_map_lookup_elem(f->map_fd[0], &zero, cfg) < 0 ||
	    bpf_map_lookup_elem(f->map_fd[t->n_maps - 1], &zero, percpu) < 0) {
		*code = fail(3, "%s: read maps: %s", ifname, strerror(errno));
		free(percpu);
		tcprog_found_close(f);
		return NULL;
	}
	return percpu;
}

/* Only our own program: never remove a filter someone else put at this handle. */
static inline int tcprog_cmd_detach(const struct tcprog_tool *t, const char *ifname, int ifindex)
{
	struct tcprog_hook h = tcprog_hook_on(t, ifindex);
	int r = tcprog_detach(&h);

	if (r == -ENOENT)
		return fail(3, "%s: %s not attached: %s", ifname, t->what, strerror(-r));
	if (r < 0)
		return fail(3, "%s: detach: %s", ifname, strerror(-r));
	printf("detached %s\n", ifname);
	return 0;
}

#endif
