// SPDX-License-Identifier: GPL-2.0-only
/* Changes made outside rtltune: noticed, counted, and left alone (outside.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "history.h"
#include "log.h"
#include "loop.h"
#include "outside.h"
#include "rtltune/actuate.h"
#include "rtltune/chipdb.h"
#include "rtltune/ethnl.h"

static struct ethnl_monitor *mon;
static struct ev_io mon_io;

/* Drain the monitor: each notification about an interface asks for its re-read. */
static void mon_readable(struct ev_io *io, uint32_t events)
{
	struct ethnl_event ev;
	struct rterr err = {0};
	struct iface *ifc;
	int r;

	while ((r = ethnl_monitor_read(mon, &ev, &err)) != 0) {
		if (r == -ENOBUFS) {
			/* Notifications were lost: any managed interface may have changed. */
			dlog(LOG_WARNING, NULL,
			     "ethtool notifications lost: re-reading every "
			     "managed interface");
			for (ifc = iface_first(); ifc; ifc = ifc->next)
				ifc->knob_dirty = true;
			continue;
		}
		if (r < 0) {
			if (r == -EBADMSG)
				continue;
			break; /* EAGAIN and the like: nothing more now */
		}
		ifc = ev.ifindex ? iface_by_index(ev.ifindex) : NULL;
		if (ifc && ifc->m)
			ifc->knob_dirty = true;
	}
}

int outside_start(struct rterr *err)
{
	struct ethnl *en = nic_io_ethnl(actuator_io(rtd.act));
	int r;

	if (!en) {
		dlog(LOG_NOTICE, NULL,
		     "no ethtool netlink family (%s): changes of rings, coalescing, channels and "
		     "pause made outside rtltune are noticed at the next sample only",
		     nic_io_fallback_reason(actuator_io(rtd.act)));
		return 0;
	}
	r = ethnl_monitor_open(en, &mon, err);
	if (r < 0)
		return r;
	mon_io.fd = ethnl_monitor_fd(mon);
	mon_io.cb = mon_readable;
	return loop_add(&mon_io, EPOLLIN);
}

void outside_stop(void)
{
	if (mon_io.registered)
		loop_del(&mon_io);
	ethnl_monitor_close(mon);
	mon = NULL;
}

/* Compare a fresh snapshot with what rtltuned last knew, then make it the known state. */
static void recheck(struct iface *ifc)
{
	struct rterr err;
	struct nic nic;
	char a[24], b[24];
	bool reset = false;
	int k;

	if (iface_snapshot(ifc, &nic, &err) < 0)
		return; /* gone meanwhile: the DELLINK event removes it */
	/* A sweep pausing the tuner here changes the interface on purpose, through the
	 * journal: its steps are nobody's manual change. */
	for (k = 0; ifc->m && !ifc->m->tune.paused && k < KNOB__COUNT; k++) {
		int64_t was = iface_knob(ifc, k), now = nic.val[k];

		/* A knob that just became readable (or unreadable) is no one's change. */
		if (was == LINK_UNSET || now == LINK_UNSET || was == now)
			continue;
		/* r8169 8168 rewrites its coalescing at every open and reset: the driver's,
		 * not an admin's, and the profile goes on again. */
		if ((ifc->m->quirks & CHIP_Q_COALESCE_RESET_BY_DRIVER) &&
		    knob_desc((enum knob_id)k)->backend == KNOB_B_ETHNL &&
		    knob_desc((enum knob_id)k)->ethnl_group == ETHNL_COALESCE) {
			dlog(LOG_NOTICE, ifc->name,
			     "%s reset by the driver: %s -> %s (coalesce-reset-by-driver): "
			     "applying "
			     "the profile again",
			     knob_name((enum knob_id)k),
			     knob_value_str((enum knob_id)k, was, a, sizeof(a)),
			     knob_value_str((enum knob_id)k, now, b, sizeof(b)));
			reset = true;
			continue;
		}
		iface_count_external(ifc, (enum knob_id)k);
		history_external(ifc, (enum knob_id)k, was, now);
		if (!iface_manual(ifc, k))
			dlog(LOG_NOTICE, ifc->name,
			     "%s changed outside rtltune: %s -> %s (left alone until `rtltune "
			     "autotune on %s` or `rtltune apply`)",
			     knob_name((enum knob_id)k),
			     knob_value_str((enum knob_id)k, was, a, sizeof(a)),
			     knob_value_str((enum knob_id)k, now, b, sizeof(b)), ifc->name);
		else
			dlog(LOG_INFO, ifc->name, "%s changed outside rtltune again: %s -> %s",
			     knob_name((enum knob_id)k),
			     knob_value_str((enum knob_id)k, was, a, sizeof(a)),
			     knob_value_str((enum knob_id)k, now, b, sizeof(b)));
		iface_set_manual(ifc, k, true);
	}
	iface_update(ifc, &nic);
	if (reset)
		iface_reset_by_driver(ifc);
}

void outside_sample(struct iface *ifc, const struct link_info *li, bool settled)
{
	struct link_info own;
	struct rterr err;
	int k;

	if (!ifc->m)
		return;
	/* What the monitor holds first: the tuner acts on this sample right after, and its
	 * read-back becomes the known state. A change made outside before now whose
	 * notification still waited in the socket would be taken as rtltuned's own (and never
	 * seen as outside) if the socket were read only after that (report_svg's `ethtool -K`
	 * was, now and then). With nothing to act on this read (settled: 1000 idle pods'
	 * 63 reads a sample), a notification about it waits for the loop, which marks it
	 * for a re-read at its next sample: one receive less per read. */
	if (mon && !settled)
		mon_readable(&mon_io, EPOLLIN);
	/* The sizes no notification announces: one RTM_GETLINK by ifindex (the sampler's,
	 * when it made one for the counters: with 1000 pods each is 1% of a core). */
	if (!li && !ifc->knob_dirty && iface_read_link(ifc, &own, NULL, NULL, &err) == 0)
		li = &own;
	if (li && !ifc->knob_dirty)
		for (k = 0; k < KNOB_FIRST_ETHNL && !ifc->knob_dirty; k++)
			if (knob_desc((enum knob_id)k)->backend == KNOB_B_LINK &&
			    li->knob[k] != iface_knob(ifc, k))
				ifc->knob_dirty = true;
	if (ifc->knob_dirty)
		recheck(ifc);
}

void outside_adopt(struct iface *ifc)
{
	struct rterr err;
	struct nic nic;

	if (ifc->m && rtd.act && iface_snapshot(ifc, &nic, &err) == 0)
		iface_update(ifc, &nic);
}

void outside_clear(struct iface *ifc, const bool *which)
{
	int k;

	for (k = 0; ifc->m && k < KNOB__COUNT; k++)
		if (iface_manual(ifc, k) && (!which || which[k])) {
			iface_set_manual(ifc, k, false);
			dlog(LOG_INFO, ifc->name, "%s taken back: rtltune manages it again",
			     knob_name((enum knob_id)k));
		}
}
