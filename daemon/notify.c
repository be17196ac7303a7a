// SPDX-License-Identifier: GPL-2.0-only
/*
 * The service notification protocol (sd_notify(3)): readiness, watchdog pings from the
 * loop, a one-line STATUS=, reloading, stopping. The protocol is one datagram to the
 * AF_UNIX socket $NOTIFY_SOCKET names; systemd lists it as stable and as reimplementable
 * independently, so rtltuned speaks it itself rather than map libsystemd and the six
 * compression and crypto libraries it pulls in (1 MiB of the daemon's RSS) for two calls.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "applier.h"
#include "bpf.h"
#include "iface.h"
#include "notify.h"
#include "trust.h"

static struct ev_timer watchdog;
static char last_status[256];
static bool ready;
static int notify_fd = -1;
static bool failing; /* the last send failed (and was logged) */

/* One datagram to $NOTIFY_SOCKET: a path, or "@name" for the abstract namespace. Unset:
 * not run by a service manager, nothing to do. A failure is logged once until a send
 * works again (the watchdog pings at half its timeout), never fatal: a daemon must not
 * stop because its supervisor went away. */
static void notify_send(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t salen;
	size_t plen;

	if (!path || !*path)
		return;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path)) {
		dlog(LOG_DEBUG, NULL,
		     "NOTIFY_SOCKET=%s: not an AF_UNIX path or @name of at most %zu bytes: "
		     "not notifying",
		     path, sizeof(sa.sun_path) - 1);
		return;
	}
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	/* A path's length counts its terminating NUL, an abstract name's does not. */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] == '/'));
	if (notify_fd < 0)
		notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_fd < 0 ||
	    sendto(notify_fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen) < 0) {
		if (!failing)
			dlog(LOG_WARNING, NULL, "NOTIFY_SOCKET %s: %s", path, strerror(errno));
		failing = true;
		return;
	}
	failing = false;
}

/* $WATCHDOG_USEC when the service manager wants pings from this process ($WATCHDOG_PID,
 * when set, names it), else 0. */
static uint64_t watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec || !*usec)
		return 0;
	if (pid && *pid) {
		errno = 0;
		v = strtoull(pid, &end, 10);
		if (errno || *end || v != (unsigned long long)getpid())
			return 0;
	}
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno || *end || usec[0] == '-') {
		dlog(LOG_WARNING, NULL,
		     "WATCHDOG_USEC=%s: not a number of microseconds: no watchdog", usec);
		return 0;
	}
	return v;
}

static void watchdog_fire(struct ev_timer *t)
{
	/* Sent from the loop: a loop stuck in a callback stops the pings and systemd
	 * restarts us, which is the point. */
	notify_send("WATCHDOG=1");
}

static void status_line(char *buf, size_t len)
{
	unsigned int managed = 0, failed = applier_failed_count();
	struct iface *ifc;
	size_t n;

	for (ifc = iface_first(); ifc; ifc = ifc->next)
		managed += ifc->managed;
	n = (size_t)snprintf(buf, len, "%u of %u interfaces managed", managed, iface_count());
	if (rtd.cfg.profile[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", profile %s%s", rtd.cfg.profile,
				      rtd.profile ? "" : " (not loaded)");
	if (failed && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %u failed to apply", failed);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "; %s",
				      bpf_active() ? "BPF probes counting"
						   : "link counters only (no BPF)");
	if (!trust_ok() && n < len)
		snprintf(buf + n, len - n, "; journal untrusted, changing nothing");
}

void notify_status(void)
{
	char line[sizeof(last_status)], msg[sizeof(last_status) + 8];

	status_line(line, sizeof(line));
	if (!ready || strcmp(line, last_status) == 0)
		return;
	snprintf(last_status, sizeof(last_status), "%s", line);
	snprintf(msg, sizeof(msg), "STATUS=%s", line);
	notify_send(msg);
}

void notify_ready(void)
{
	char msg[sizeof(last_status) + 32];
	uint64_t usec;

	status_line(last_status, sizeof(last_status));
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", last_status);
	notify_send(msg);
	ready = true;
	usec = watchdog_usec();
	if (usec > 0) {
		watchdog.fire = watchdog_fire;
		/* Half the timeout, as sd_watchdog_enabled(3) recommends; the first ping now. */
		if (timer_start(&watchdog, usec / 2, 1) < 0)
			dlog(LOG_ERR, NULL, "cannot start the watchdog timer");
		else
			dlog(LOG_DEBUG, NULL, "watchdog: ping every %llu ms",
			     (unsigned long long)usec / 2000);
	}
}

void notify_reloading(void)
{
	notify_send("RELOADING=1");
}

void notify_reloaded(void)
{
	notify_send("READY=1");
	last_status[0] = '\0';
	notify_status();
}

void notify_stopping(void)
{
	notify_send("STOPPING=1\nSTATUS=stopping");
	timer_stop(&watchdog);
}
