/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_PMQOS_H
#define RTLTUNED_PMQOS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "iface.h"

/*
 * The one owner of rtltuned's CPU latency PM QoS request (lib/host/pmqos.c): while a managed
 * interface's chip has the shallow-idle quirk, one request is held on /dev/cpu_dma_latency
 * at the lowest latency those interfaces ask for (cpu_dma_latency in rtltuned.conf, else
 * the chip's cpu_dma_latency_us, else PMQOS_DEFAULT_US); it is dropped when the last of
 * them goes or stops being managed, with cpu_dma_latency = off, and at stop. A device that
 * is missing or refused (a sandbox) is logged once and shown in status, never fatal.
 * RTLTUNE_PM_QOS_DEVICE moves the device (tests).
 */

/* Interface table observer: the set of managed shallow-idle interfaces changed maybe. */
void pmqos_iface_event(struct iface *ifc, const struct iface_change *c);
/* Evaluate again: after every sample, only when a chip id changed since (a refresh can
 * change one with no interface event), and with retry after a reload (new chips, a new
 * cpu_dma_latency), which also tries again a request the kernel refused. */
void pmqos_update(bool retry);
/* Drop the request for good (the daemon stops). */
void pmqos_stop(void);
/* For status ("pm_qos"). */
json_object *pmqos_status_json(void);
/* For /metrics: whether a request is held, and its value in microseconds. */
bool pmqos_held(int32_t *us);

#endif
