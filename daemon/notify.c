// SPDX-License-Identifier: GPL-2.0-only
/* sd_notify: readiness, watchdog pings from the loop, a one-line STATUS=, stopping. */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "loop.h"
#include "applier.h"
#include "bpf.h"
#include "iface.h"
#include "notify.h"

static struct ev_timer watchdog;
static char last_status[256];
static bool ready;

static void watchdog_fire(struct ev_timer *t)
{
	/* Sent from the loop: a loop stuck in a callback stops the pings and systemd
	 * restarts us, which is the point. */
	sd_notify(0, "WATCHDOG=1");
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
		snprintf(buf + n, len - n, "; %s",
			 bpf_active() ? "BPF probes counting" : "link counters only (no BPF)");
}

void notify_status(void)
{
	char line[sizeof(last_status)], msg[sizeof(last_status) + 8];

	status_line(line, sizeof(line));
	if (!ready || strcmp(line, last_status) == 0)
		return;
	snprintf(last_status, sizeof(last_status), "%s", line);
	snprintf(msg, sizeof(msg), "STATUS=%s", line);
	sd_notify(0, msg);
}

void notify_ready(void)
{
	uint64_t usec = 0;
	char msg[sizeof(last_status) + 32];
	int r;

	status_line(last_status, sizeof(last_status));
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", last_status);
	sd_notify(0, msg);
	ready = true;
	r = sd_watchdog_enabled(0, &usec);
	if (r > 0 && usec > 0) {
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
	sd_notify(0, "RELOADING=1");
}

void notify_reloaded(void)
{
	sd_notify(0, "READY=1");
	last_status[0] = '\0';
	notify_status();
}

void notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	timer_stop(&watchdog);
}
