/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_OUTSIDE_H
#define RTLTUNED_OUTSIDE_H

#include <stdbool.h>

#include "iface.h"
#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * Hands off what someone else changes (docs/daemon.md "Changes made outside rtltune").
 * Every change rtltuned makes ends with the interface's read-back as its last known
 * values (iface_update()); a managed knob later found at another value was changed by
 * someone else (ip, ethtool, NetworkManager, the driver). It is logged ("eth0
 * coalesce_rx_usecs changed outside rtltune: 50 -> 8"), counted
 * (rtltune_knob_external_changes_total), marked manual (status), and left alone: the tuner
 * never tries it (a trial of it ends without a rollback) and a profile reload skips it,
 * until `rtltune autotune on IFACE` or an explicit `rtltune apply` / `restore` takes it
 * back.
 *
 * How a change is noticed: rtnetlink link events (features, MTU, txqueuelen) and the
 * ethtool netlink monitor (rings, coalescing, channels, pause, features) mark the
 * interface for a re-read; gso_max_size, gso_ipv4_max_size, gro_max_size and gso_max_segs
 * change without any notification (do_setlink() raises none for them), so each sample
 * also reads every managed interface's link by ifindex (one RTM_GETLINK, without
 * the counters: RTEXT_FILTER_SKIP_STATS) and compares; notification-less, so per sample.
 * A notification carries no sender and also comes for rtltuned's own changes: it only
 * asks for the re-read, whose values are compared with the last known ones.
 */

/* The ethtool monitor socket on the event loop; a missing family only logs. */
int outside_start(struct rterr *err);
void outside_stop(void);

/* Per sample for a managed interface, before the tuner acts on the sample: take in the
 * notifications waiting, compare its link with the last known values, and re-read and
 * compare everything when that or a notification says so. li: its link as this sample
 * read it already (the counters' RTM_GETLINK), NULL to read it here. settled: nothing acts
 * on the interface with this read (an idle interface read after skipped samples: the
 * tuner is not fed it, sampler.c), so the notifications are left to the event loop, which
 * reads them before the next sample. */
void outside_sample(struct iface *ifc, const struct link_info *li, bool settled);

/* Read ifc now and take what it has as rtltuned's own last known values, nothing marked
 * manual: the end of a pause (a sweep put its values back itself, through the journal).
 * While the tuner is paused on an interface (tune_pause()) its changes are taken so at
 * every sample too. */
void outside_adopt(struct iface *ifc);

/* Take knobs back: every one (which NULL: autotune on) or those in which[] (an explicit
 * apply or restore set them). */
void outside_clear(struct iface *ifc, const bool *which);

#endif
