/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_BPF_H
#define RTLTUNED_BPF_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iface.h"
#include "rtltune/probes.h"

/*
 * The BPF probes (lib/probes/probes.c) as the daemon runs them: opened once at start, one slot
 * per managed interface (they follow the interface table's events), pods' interfaces
 * included (selected in their namespace), read by the sampler.
 * Without BPF (no BTF, no privilege, no tracepoint) the daemon keeps running on rtnetlink
 * link counters and says which probe is missing.
 */
void bpf_start(void);
void bpf_stop(void);
/* Whether the probes run ("bpf" counting), and why not when they do not. */
bool bpf_active(void);
const char *bpf_error(void);
/* Interface table observer: a slot while managed. */
void bpf_iface_event(struct iface *ifc, const struct iface_change *c);
/* Whether the probes count the interface (it has a slot; a pod's too, in its namespace). */
bool bpf_counts(const struct iface *ifc);
/* Every counted interface's counters, in one pass (once per sample): ifc is the slot's
 * record in the table. */
typedef void (*bpf_counters_fn)(struct iface *ifc, const struct probe_counters *pc, void *arg);
void bpf_read_all(bpf_counters_fn fn, void *arg);
/* The last read's drops by CPU and reason, summed over the counted interfaces
 * (probes_cpu_drops()); false without probes. */
bool bpf_cpu_drops(const struct probe_cpu_drop **out, unsigned int *n);
/* The kernel's name of an skb_drop_reason ("NOT_SPECIFIED"). */
const char *bpf_drop_reason_name(uint32_t reason, char *buf, size_t len);
/* Refresh the probes' own run time and count (once per sample). */
void bpf_read_costs(void);
/* Probe list for status. */
json_object *bpf_status_json(void);
/* Probe i (0 .. bpf_probe_count() - 1) for /metrics; false for one not asked for. */
unsigned int bpf_probe_count(void);
bool bpf_probe_info(unsigned int i, const char **name, bool *attached, uint64_t *runs,
		    uint64_t *run_ns);

#endif
