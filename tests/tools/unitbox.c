// SPDX-License-Identifier: GPL-2.0-only
/*
 * unitbox: run a command under the sandbox a systemd unit file asks for, for the parts
 * rtltuned's features depend on, where systemd itself cannot run it (no systemd as PID 1:
 * CI, containers). Read from the unit file, so the test follows the unit:
 *
 *   ProtectKernelTunables=yes     a private mount namespace with /proc/sys and /sys read-only
 *   CapabilityBoundingSet=        every other capability dropped from the bounding set
 *   AmbientCapabilities=          the ambient (and inheritable) set, with
 *   SecureBits=noroot-locked      so that root does not get every capability at exec
 *   NoNewPrivileges=yes           PR_SET_NO_NEW_PRIVS
 *   RestrictAddressFamilies=      a seccomp filter: socket(2) of another family fails with
 *                                 EAFNOSUPPORT, as systemd's does
 *
 *	unitbox UNIT-FILE -- COMMAND [ARGS...]
 *
 * Exit: COMMAND's (exec), 2 usage or an unknown setting value, 3 the system refused.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FAMILIES 16

struct unit {
	unsigned long long bounding, ambient;
	bool have_bounding, have_ambient, protect_tunables, no_new_privs, noroot;
	int families[MAX_FAMILIES];
	int n_families; /* -1: not restricted */
};

static int fail(int code, const char *fmt, const char *arg)
{
	fprintf(stderr, "unitbox: ");
	fprintf(stderr, fmt, arg);
	if (code == 3)
		fprintf(stderr, ": %s", strerror(errno));
	fputc('\n', stderr);
	return code;
}

static const struct {
	const char *name;
	int cap;
} caps[] = {
	{"CAP_CHOWN", CAP_CHOWN},
	{"CAP_NET_ADMIN", CAP_NET_ADMIN},
	{"CAP_NET_RAW", CAP_NET_RAW},
	{"CAP_SYS_ADMIN", CAP_SYS_ADMIN},
	{"CAP_BPF", 39 /* CAP_BPF */},
	{"CAP_PERFMON", 38 /* CAP_PERFMON */},
	{"CAP_NET_BIND_SERVICE", CAP_NET_BIND_SERVICE},
	{"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE},
};

static const struct {
	const char *name;
	int family;
} families[] = {
	{"AF_UNIX", AF_UNIX},	{"AF_NETLINK", AF_NETLINK}, {"AF_INET", AF_INET},
	{"AF_INET6", AF_INET6}, {"AF_PACKET", AF_PACKET},
};

static int cap_bits(char *list, unsigned long long *bits)
{
	char *save = NULL, *w;
	unsigned int i;

	*bits = 0;
	for (w = strtok_r(list, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]) && strcmp(caps[i].name, w); i++)
			;
		if (i == sizeof(caps) / sizeof(caps[0]))
			return fail(2, "unknown capability %s", w);
		*bits |= 1ULL << caps[i].cap;
	}
	return 0;
}

static int read_unit(const char *path, struct unit *u)
{
	char line[1024], *eq, *v, *save = NULL, *w;
	FILE *f = fopen(path, "re");
	unsigned int i;
	int r;

	memset(u, 0, sizeof(*u));
	u->n_families = -1;
	if (!f)
		return fail(3, "cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(line, "CapabilityBoundingSet")) {
			if ((r = cap_bits(v, &u->bounding)))
				return r;
			u->have_bounding = true;
		} else if (!strcmp(line, "AmbientCapabilities")) {
			if ((r = cap_bits(v, &u->ambient)))
				return r;
			u->have_ambient = true;
		} else if (!strcmp(line, "ProtectKernelTunables")) {
			u->protect_tunables = !strcmp(v, "yes") || !strcmp(v, "true");
		} else if (!strcmp(line, "NoNewPrivileges")) {
			u->no_new_privs = !strcmp(v, "yes") || !strcmp(v, "true");
		} else if (!strcmp(line, "SecureBits")) {
			u->noroot = strstr(v, "noroot") != NULL;
		} else if (!strcmp(line, "RestrictAddressFamilies")) {
			u->n_families = 0;
			for (w = strtok_r(v, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
				for (i = 0; i < sizeof(families) / sizeof(families[0]) &&
					    strcmp(families[i].name, w);
				     i++)
					;
				if (i == sizeof(families) / sizeof(families[0]) ||
				    u->n_families == MAX_FAMILIES)
					return fail(2, "unknown address family %s", w);
				u->families[u->n_families++] = families[i].family;
			}
		}
	}
	fclose(f);
	return 0;
}

/* ProtectKernelTunables=yes: what systemd does, a read-only bind of each. */
static int protect_tunables(void)
{
	static const char *const paths[] = {"/proc/sys", "/sys"};
	unsigned int i;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail(3, "%s", "private mount namespace");
	for (i = 0; i < 2; i++)
		if (mount(paths[i], paths[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
		    mount(NULL, paths[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
			return fail(3, "read-only %s", paths[i]);
	return 0;
}

static int set_caps(const struct unit *u)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	unsigned long long keep = u->have_bounding ? u->bounding : ~0ULL;
	int c;

	for (c = 0; c <= 63; c++)
		if (!(keep >> c & 1) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return fail(3, "%s", "dropping a bounding capability");
	if (u->noroot &&
	    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
		  0, 0, 0) < 0)
		return fail(3, "%s", "securebits noroot-locked");
	if (!u->have_ambient)
		return 0;
	if (syscall(SYS_capget, &h, d) < 0)
		return fail(3, "%s", "capget");
	d[0].inheritable = (uint32_t)u->ambient;
	d[1].inheritable = (uint32_t)(u->ambient >> 32);
	if (syscall(SYS_capset, &h, d) < 0)
		return fail(3, "%s", "capset (inheritable)");
	for (c = 0; c <= 63; c++)
		if ((u->ambient >> c & 1) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return fail(3, "%s", "raising an ambient capability");
	return 0;
}

/* socket(domain, ...): domain in the list, or EAFNOSUPPORT. */
static int restrict_families(const struct unit *u)
{
	struct sock_filter f[8 + MAX_FAMILIES];
	struct sock_fprog prog = {.filter = f};
	unsigned int n = 0;
	int i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, args[0]));
	for (i = 0; i < u->n_families; i++)
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned int)u->families[i],
						      (unsigned char)(u->n_families - i), 0);
	f[n++] = (struct sock_filter)BPF_STMT(
		BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA));
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return fail(3, "%s", "seccomp filter");
	return 0;
}

int main(int argc, char **argv)
{
	struct unit u;
	int r;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: unitbox UNIT-FILE -- COMMAND [ARGS...]\n");
		return 2;
	}
	if ((r = read_unit(argv[1], &u)))
		return r;
	if (u.protect_tunables && (r = protect_tunables()))
		return r;
	if ((r = set_caps(&u)))
		return r;
	/* The filter needs no_new_privs (or CAP_SYS_ADMIN, which the unit does not have). */
	if ((u.no_new_privs || u.n_families >= 0) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(3, "%s", "no_new_privs");
	if (u.n_families >= 0 && (r = restrict_families(&u)))
		return r;
	execvp(argv[3], argv + 3);
	return fail(3, "cannot run %s", argv[3]);
}
