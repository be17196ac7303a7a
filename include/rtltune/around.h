/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_AROUND_H
#define RTLTUNE_AROUND_H
/*
 * The knobs of the stack around the NIC (KNOB_B_NAPI, KNOB_B_QUEUE rows of the knob
 * table): read into a snapshot, written for the actuator, and why one cannot be set here.
 * The NAPI settings go through the netdev family (napi.h) where the kernel has napi-set
 * for them, else through the per-device sysfs files; the queue files through sysfs
 * (queues.h). docs/knobs-stack.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

struct nic;
struct napi_nl;

/* What reads and writes go through: the run's netdev family handle (NULL without one) and
 * the sysfs root (nic_io_napi(), nic_io_sysfs_root()). */
struct around_io {
	struct napi_nl *napi;
	const char *sysfs_root;
};

/* Fill nic's around-the-NIC knobs (val[], around_err[], n_napi) through io. */
void around_read(const struct around_io *io, struct nic *nic);
/* The same knobs as not read (around_err -ENODATA, LINK_UNSET): a snapshot that skips them. */
void around_unread(struct nic *nic);
/*
 * Set knob k (an around-the-NIC row) of the device ifindex to v: on every NAPI of it, or
 * on every queue of the kind. Only lib/actuate/actuate.c calls it (the one actuation path).
 */
int around_set(const struct around_io *io, int ifindex, const char *ifname, enum knob_id k,
	       int64_t v, struct rterr *err);
/* Why k reads as unknown on nic ("no NAPI instance: ..."), for a plan's skip note. */
const char *around_why(const struct nic *nic, enum knob_id k, char *buf, size_t len);
/* How the NAPI settings of nic were read: "netlink", "sysfs", or "none". */
const char *around_napi_path(const struct nic *nic);

#endif
