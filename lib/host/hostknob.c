// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host-wide knobs through their /proc/sys files (include/rtltune/hostknob.h,
 * docs/knobs-stack.md "Host-wide knobs").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtltune/hostknob.h"
#include "rtltune/nic.h"

const char *host_proc_sys(void)
{
	const char *env = getenv("RTLTUNE_PROC_SYS");

	return env && env[0] == '/' ? env : HOST_PROC_SYS;
}

void host_knob_path(const char *proc_sys, enum knob_id k, char *path, size_t len)
{
	size_t n = (size_t)snprintf(path, len, "%s/", proc_sys), i;
	const char *name = knob_name(k);

	/* sysctl(8)'s rule: net.core.netdev_budget is net/core/netdev_budget. */
	for (i = 0; name[i] && n + 1 < len; i++, n++)
		path[n] = name[i] == '.' ? '/' : name[i];
	if (n < len)
		path[n] = '\0';
}

/* The directory every namespace has (netns_core_table: somaxconn, ...): whether /proc/sys
 * is there at all. */
static bool have_net_core(const char *proc_sys)
{
	char dir[512];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/net/core", proc_sys);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int host_knob_parse(const char *text, int64_t *v)
{
	long long n;
	char *end;

	if (!((*text >= '0' && *text <= '9') || *text == '-'))
		return -EINVAL;
	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno || end == text || (*end && strcmp(end, "\n") != 0) || n > INT32_MAX ||
	    n < INT32_MIN)
		return -EINVAL;
	if (n < 0)
		return HOST_ERR_NEGATIVE;
	*v = n;
	return 0;
}

static int read_knob(const char *proc_sys, enum knob_id k, int64_t *v)
{
	char path[512], buf[64];
	ssize_t n;
	int fd, e;

	host_knob_path(proc_sys, k, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			return have_net_core(proc_sys) ? HOST_ERR_NETNS : HOST_ERR_NO_PROC;
		return -e;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return host_knob_parse(buf, v);
}

void host_snapshot(const char *proc_sys, struct nic *out)
{
	int k;

	memset(out, 0, sizeof(*out));
	snprintf(out->link.ifname, sizeof(out->link.ifname), "%s", KNOB_HOST_NAME);
	out->host = true;
	out->n_napi = -1;
	out->napi_irq = -1;
	out->speed_mbps = -1;
	out->ethtool_path = "none";
	for (k = 0; k < KNOB__COUNT; k++)
		out->val[k] = LINK_UNSET;
	nic_max_clear(out);
	for (k = 0; k < ETHNL_GROUP_COUNT; k++)
		out->group_err[k] = -ENODATA; /* not a device: nothing read */
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		int64_t v = LINK_UNSET;
		int e = read_knob(proc_sys, (enum knob_id)k, &v);

		out->host_err[k - KNOB_FIRST_HOST] = (int16_t)e;
		out->val[k] = e == 0 ? v : LINK_UNSET;
	}
}

int host_scope(const char *proc_sys, char *why, size_t len)
{
	char path[512];
	struct stat st;

	host_knob_path(proc_sys, KNOB_FIRST_HOST, path, sizeof(path));
	if (stat(path, &st) == 0)
		return 0;
	if (!have_net_core(proc_sys)) {
		snprintf(why, len,
			 "host-wide knobs unknown: no %s/net/core here (is /proc mounted?)",
			 proc_sys);
		return HOST_ERR_NO_PROC;
	}
	snprintf(why, len,
		 "host-wide: only an rtltune in the initial network namespace changes it (this "
		 "one runs in another, whose %s/net/core has no %s)",
		 proc_sys, strrchr(path, '/') + 1);
	return HOST_ERR_NETNS;
}

const char *host_why(const struct nic *host, enum knob_id k, char *buf, size_t len)
{
	int e = knob_is_host(k) ? host->host_err[k - KNOB_FIRST_HOST] : -EINVAL;
	char path[512];

	host_knob_path(host_proc_sys(), k, path, sizeof(path));
	if (e == HOST_ERR_NETNS) {
		snprintf(buf, len,
			 "%s is host-wide: only an rtltune in the initial network namespace "
			 "changes it (this one runs in another, where /proc/sys/net/core has no "
			 "%s)",
			 knob_name(k), strrchr(path, '/') + 1);
	} else if (e == HOST_ERR_NO_PROC) {
		snprintf(buf, len, "%s unknown: no /proc/sys/net/core here (is /proc mounted?)",
			 knob_name(k));
	} else if (e == HOST_ERR_NEGATIVE) {
		snprintf(buf, len,
			 "%s left alone: it holds a negative value, which the journal cannot keep",
			 knob_name(k));
	} else {
		snprintf(buf, len, "%s unknown: reading %s failed (%s)", knob_name(k), path,
			 strerror(e < 0 ? -e : EINVAL));
	}
	return buf;
}

int host_knob_write(const char *proc_sys, enum knob_id k, int64_t v, struct rterr *err)
{
	char path[512], text[32];
	ssize_t w;
	size_t len;
	int fd, e;

	if (!knob_is_host(k))
		return rterr_sys(err, EINVAL, "%s is not a host-wide knob", knob_name(k));
	host_knob_path(proc_sys, k, path, sizeof(path));
	len = (size_t)snprintf(text, sizeof(text), "%" PRId64 "\n", v);
	/* O_TRUNC as a shell's `>` opens it: nothing to procfs, a test's file gets the value
	 * alone. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && have_net_core(proc_sys))
			return rterr_sys(err, e, "set %s: host-wide, not in this network namespace",
					 knob_name(k));
		return rterr_sys(err, e, "set %s: %s", knob_name(k), path);
	}
	/* The handler takes the number whole or refuses it (EINVAL: out of its range). */
	w = write(fd, text, len);
	e = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	close(fd);
	if (e)
		return rterr_sys(err, e, "set %s %" PRId64 ": %s", knob_name(k), v, path);
	return 0;
}
