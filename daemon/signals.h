/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_SIGNALS_H
#define RTLTUNED_SIGNALS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "iface.h"
#include "rtltune/qstats.h"
#include "rtltune/softnet.h"

/*
 * The signals around the NIC (docs/signals.md), read once per sample: per CPU the
 * receive path's softnet_stat counters, softirq time and the probes' drops by reason;
 * per managed interface the driver's queue statistics (qstats-get) and the CPU time of
 * its threaded NAPIs' kthreads. Host-wide figures are the same in every network
 * namespace: they cover every namespace's traffic.
 */

/* One drop reason on one CPU: counted since the first sample (the probes' slots). */
struct cpu_drop {
	char reason[48];
	uint64_t total;
	uint64_t raw; /* the probes' sum at the last reading */
	double rate;
};

struct cpu_signals {
	unsigned int cpu;
	bool online;   /* in the last reading of softnet_stat */
	uint32_t have; /* bit per enum softnet_counter the kernel prints */
	uint32_t raw[SOFTNET_COUNTER_COUNT];
	uint64_t total[SOFTNET_COUNTER_COUNT]; /* the kernel's count, kept counting past 2^32 */
	double rate[SOFTNET_COUNTER_COUNT];
	bool have_softirq;
	uint64_t softirq_ns;  /* /proc/stat's softirq time of the CPU since boot */
	double softirq_share; /* of the last interval: seconds of softirq per second */
	struct cpu_drop *drops;
	unsigned int n_drops, drops_cap;
};

/* One threaded NAPI's kthread. */
struct napi_thread {
	uint32_t napi_id;
	int pid;
	uint64_t cpu_ns; /* utime + stime of the thread */
	double share;	 /* of the last interval: CPU seconds per second */
};

/* signals.c's part of a managed interface (iface_mgd.signals). */
struct iface_signals {
	bool have_qstats; /* the driver answers qstats-get */
	struct qstats qstats;
	double qstats_rate[QSTAT_COUNT];
	uint64_t qstats_us;    /* when qstats was read */
	struct qstats *queues; /* per queue, rx then tx, by number */
	unsigned int n_queues, queues_cap;
	struct napi_thread *napis; /* the threaded NAPIs, by id */
	unsigned int n_napis, napis_cap;
	uint32_t gen; /* the reading that last saw it in the qstats dump */
};

/* Read everything once (the sampler, after the probes' counters): now_us its time;
 * the netdev family's qstats and NAPIs only when a managed interface is in the daemon's
 * own namespace (own_managed), the one those dumps list. */
void signals_sample(uint64_t now_us, bool own_managed);
/* The CPUs seen so far, by number. */
unsigned int signals_cpu_count(void);
const struct cpu_signals *signals_cpu(unsigned int i);
/* Whether softnet_stat names its CPUs (5.10+), and why a signal is unavailable ("" if it
 * is there): "softnet", "softirq", "qstats", "napi". */
bool signals_cpu_named(void);
const char *signals_missing(const char *what);
/* A managed interface's part, NULL before its first sample. */
const struct iface_signals *signals_of(const struct iface *ifc);
/* Interface table observer: the part goes with the managed part. */
void signals_iface_event(struct iface *ifc, const struct iface_change *c);

/* `rtltune stats`: the per-CPU table; an interface's qstats and NAPI threads (into o). */
json_object *signals_cpus_json(void);
void signals_iface_json(const struct iface *ifc, json_object *o, json_object *rates);
/* `rtltune status`: the host's sums, and an interface's compact part (into o). */
json_object *signals_host_json(void);
void signals_iface_status_json(const struct iface *ifc, json_object *o);

#endif
