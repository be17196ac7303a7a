/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PROBES_H
#define RTLTUNE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/hist.h"

/*
 * The BPF probes (bpf/rtltune.bpf.c): what the stack hands each driver and receives from
 * it, counted per interface in per-CPU maps and summed here. docs/probes.md describes
 * every hook, how RX is counted once, and how histograms are sampled at high event rates.
 *
 * Lifecycle: probes_open() loads and attaches every probe the kernel has (each on its own:
 * a missing tracepoint disables that probe only, see probes_status()), probes_select()
 * chooses the interfaces to count (nothing is counted per interface until selected),
 * probes_read() sums a selected interface's counters, probes_close() detaches everything.
 * All attachments are BPF links owned by the process: they also go when it dies.
 * Not thread-safe; one struct probes per thread of use.
 */

/* One per tracepoint (plus the optional XDP program). The name is the tracepoint's. */
enum probe_id {
	PROBE_NET_DEV_START_XMIT,   /* TX skb sizes, GSO */
	PROBE_NET_DEV_XMIT_TIMEOUT, /* TX watchdog */
	PROBE_NETIF_RECEIVE_SKB,    /* RX after GRO, and the frames rebuilt */
	PROBE_NAPI_POLL,	    /* budget exhaustion */
	PROBE_KFREE_SKB,	    /* drops by reason */
	PROBE_TCP_RETRANSMIT_SKB,   /* retransmits */
	PROBE_XDP,		    /* optional: RX frame sizes at the driver */
	PROBE_COUNT
};

/* The probes rtltuned never loads (probes_opts.off): napi_poll's counts are rtltune
 * trace's alone, no metric or tuner rule reads them, and its program would run on every
 * NAPI poll of the host. */
#define PROBES_DAEMON_OFF (1u << PROBE_NAPI_POLL)

enum probe_hook {
	PROBE_HOOK_NONE,
	PROBE_HOOK_TP_BTF,	/* BTF-typed tracepoint (preferred) */
	PROBE_HOOK_RAW_TP,	/* raw tracepoint (fallback) */
	PROBE_HOOK_XDP_NATIVE,	/* XDP in the driver */
	PROBE_HOOK_XDP_GENERIC, /* XDP in the stack (skb mode) */
};

enum probe_state {
	PROBE_OFF,	/* not asked for (XDP without probes_opts.xdp) */
	PROBE_ATTACHED, /* counting */
	PROBE_MISSING,	/* asked for but unavailable: reason says why */
};

struct probe_status {
	const char *name; /* "net_dev_start_xmit", ..., "xdp": the metrics label {probe} */
	enum probe_state state;
	enum probe_hook hook; /* the hook in use when attached */
	char reason[256];     /* why missing (tried hooks and the kernel's answer), else "" */
};

/* Kernel BPF run-time stats of the program in use (zero unless stats are on). */
struct probe_cost {
	uint64_t run_count;
	uint64_t run_time_ns;
	uint64_t recursion_misses; /* events skipped because a BPF program was already running */
};

/* Interfaces that can be selected at once (besides the host slot). */
#define PROBES_DEFAULT_MAX_IFACES 256
#define PROBES_MAX_IFACES	  4096
/* Distinct drop reasons reported per interface (the rest are summed into drops only). */
#define PROBES_MAX_DROP_REASONS 64
/* probes_select(p, PROBES_HOST_IFINDEX) selects the host slot: events with no device. */
#define PROBES_HOST_IFINDEX 0

struct probes_opts {
	unsigned int max_ifaces; /* 0: PROBES_DEFAULT_MAX_IFACES; maps are sized by it */
	bool xdp;		 /* load the XDP program and attach it to each selected iface */
	bool run_stats;		 /* turn BPF run-time stats on while open (BPF_ENABLE_STATS) */
	bool exact;		 /* every event into its histogram bucket: no sampling */
	/* 1u << enum probe_id for each tracepoint probe the caller never reads: not loaded,
	 * state "off". Every probe is a program the kernel runs on every event of its hook
	 * on every interface, selected or not, so one that nobody reads is pure cost. The
	 * XDP bit is ignored: xdp above decides that one. */
	uint32_t off;
};
_Static_assert(PROBE_COUNT <= 32, "probes_opts.off has a bit per probe");

struct probe_drop {
	uint32_t reason; /* enum skb_drop_reason value (subsystem in the upper 16 bits) */
	uint64_t count;
};

/* The histogram families, for probe_counters.sampling[]. */
enum probe_hist {
	PROBE_HIST_TX_SKB_BYTES,
	PROBE_HIST_TX_GSO_SIZE_BYTES,
	PROBE_HIST_TX_GSO_SEGMENTS,
	PROBE_HIST_RX_FRAME_BYTES,
	PROBE_HIST_RX_SKB_BYTES,
	PROBE_HIST_RX_XDP_FRAME_BYTES,
	PROBE_HIST_COUNT
};

/*
 * How a histogram's buckets were counted (docs/probes.md "Sampling"). Its count and sum
 * are exact whatever the rate. Its buckets are exact while samples == count; above the
 * sampling threshold they are an estimate that adds up to the exact count and never goes
 * down between two reads, with a standard error per bucket of at most
 * sqrt(4/3 * p * (1 - p) * count * max_gap) for a bucket holding a share p.
 */
struct probe_hist_sampling {
	uint64_t samples; /* events that went into a bucket */
	double max_gap;	  /* the largest mean gap between samples any CPU used; 1: exact */
};

/*
 * One interface's counters since it was selected, summed over CPUs. Byte sizes include
 * the link-layer header (skb->len at the driver, 14 bytes for Ethernet) and no FCS.
 * Derived families: tx_packets = hist_count(&tx_skb_bytes), tx_bytes = tx_skb_bytes.sum,
 * rx_packets = hist_count(&rx_frame_bytes), rx_bytes = rx_frame_bytes.sum,
 * GSO skbs = hist_count(&tx_gso_segments): exact at any rate (each histogram's buckets
 * add up to its exact count, see struct probe_hist_sampling).
 */
struct probe_counters {
	struct rtl_hist tx_skb_bytes;	    /* every skb handed to the driver */
	struct rtl_hist tx_gso_size_bytes;  /* GSO skbs: gso_size (the MSS for TCP) */
	struct rtl_hist tx_gso_segments;    /* GSO skbs: gso_segs */
	uint64_t tx_gso_bytes;		    /* sum of skb lengths of GSO skbs */
	uint64_t tx_busy;		    /* refused by the device: the kernel's counters */
	uint64_t tx_timeouts;		    /* TX watchdog fired */
	struct rtl_hist rx_frame_bytes;	    /* frames as the driver delivered them */
	struct rtl_hist rx_skb_bytes;	    /* skbs after GRO (netif_receive_skb) */
	struct rtl_hist rx_xdp_frame_bytes; /* frames seen by the XDP program */
	uint64_t napi_polls;
	uint64_t napi_budget_exhausted; /* polls with work >= budget */
	uint64_t tcp_retransmits;	/* retransmitted skbs */
	uint64_t tcp_retransmit_segments;
	uint64_t drops; /* all drops (kfree_skb) */
	unsigned int n_drop_reasons;
	struct probe_drop drop_reasons[PROBES_MAX_DROP_REASONS]; /* by reason, ascending */
	struct probe_hist_sampling sampling[PROBE_HIST_COUNT];
};

struct probes;

/*
 * Open, load and attach. Each probe tries tp_btf, then raw_tp; one the kernel lacks (no
 * btf_trace_<name> in kernel BTF and no tracefs event) or refuses is marked missing with
 * the reason, and the others still count. Fails (rterr_sys) only when BPF cannot be used at
 * all (no kernel BTF, no privilege, map creation refused) or no probe could be attached.
 * Test hooks (environment): RTLTUNE_PROBE_DISABLE=name[,name...] looks those tracepoints up
 * under an impossible name so they take the "kernel lacks it" path;
 * RTLTUNE_PROBE_HOOK=raw_tp skips tp_btf; RTLTUNE_PROBE_EMPTY=1 attaches every program
 * with its body skipped (nothing is counted): what the kernel's dispatch alone costs, the
 * floor scripts/bench-probes.sh measures.
 */
int probes_open(struct probes **out, const struct probes_opts *opts, struct rterr *err);
/* Detach and free everything (and turn run-time stats back off). NULL is fine. */
void probes_close(struct probes *p);

const struct probe_status *probes_status(const struct probes *p, enum probe_id id);
const char *probe_tracepoint(enum probe_id id); /* "net_dev_start_xmit", ..., "xdp" */
const char *probe_hook_name(enum probe_hook hook);    /* "tp_btf", "raw_tp", "xdp", ... */
const char *probe_state_name(enum probe_state state); /* "off", "attached", "missing" */
/* Number of probes in PROBE_ATTACHED state. */
unsigned int probes_attached(const struct probes *p);

/*
 * Count interface ifindex of the calling thread's current network namespace (the filter
 * key is the namespace plus ifindex, so equal ifindexes in two namespaces never mix).
 * Returns the slot (> 0) that probes_read() and probes_unselect() take; selecting an
 * interface again returns its slot unchanged. ifindex PROBES_HOST_IFINDEX selects slot 0,
 * the host: drops without a device and retransmits of sockets without a route device, in
 * any namespace. Counters of a new slot start at zero. -ENOSPC when max_ifaces are in use.
 * With probes_opts.xdp the XDP program is attached here (native, else generic); a failure
 * there is recorded in probes_status(p, PROBE_XDP) and does not fail the call.
 * tx_busy is not counted by a program on every transmit: it is read from the kernel's own
 * counters of the device (the root qdisc's requeues, which NETDEV_TX_BUSY causes, plus the
 * device's tx_dropped), through an rtnetlink socket opened here in the caller's namespace.
 */
int probes_select(struct probes *p, int ifindex, struct rterr *err);
int probes_unselect(struct probes *p, int slot, struct rterr *err);
/* Sum a selected slot's counters over CPUs into *out. -ENOENT for a slot not selected. */
int probes_read(struct probes *p, int slot, struct probe_counters *out, struct rterr *err);
/*
 * Called by probes_read_all() once per selected slot, in slot order: ifindex as selected
 * (PROBES_HOST_IFINDEX for the host slot), c valid during the call only. A negative
 * return stops the walk and is what probes_read_all() returns.
 */
typedef int (*probes_read_fn)(int slot, int ifindex, const struct probe_counters *c, void *arg);
/*
 * probes_read() of every selected slot in one pass: the drop reasons of all slots come
 * from one walk of the drops map (batch lookups) instead of one walk per slot, which is
 * what a sampler of many interfaces wants. Counters are read slot after slot, so two
 * slots are not from the same instant (microseconds apart).
 */
int probes_read_all(struct probes *p, probes_read_fn fn, void *arg, struct rterr *err);

/* Drops of one reason on one CPU: the CPU that freed the skb (kfree_skb ran there). */
struct probe_cpu_drop {
	uint32_t cpu;
	uint32_t reason;
	uint64_t count;
};
/*
 * The drops of the last probes_read() or probes_read_all() by CPU and reason, summed over
 * the selected slots: *out (valid until the next read) holds *n entries by CPU, then
 * reason. The per-CPU drops map has the CPU dimension already (a value per CPU): this is
 * the same walk, not summed over CPUs. A slot unselected since takes its drops along.
 */
void probes_cpu_drops(const struct probes *p, const struct probe_cpu_drop **out, unsigned int *n);

/* Run-time stats of a probe's program (bpf_prog_info run_cnt, run_time_ns). */
int probes_cost(struct probes *p, enum probe_id id, struct probe_cost *out, struct rterr *err);
/*
 * With probes_opts.run_stats an empty program rides on net_dev_start_xmit: its ns per run
 * is what the stats and the call cost by themselves on this machine (about 15 ns on bare
 * metal, ~65 ns on the test VMs), to subtract from each probe's. -ENOENT without stats.
 */
int probes_cost_floor(struct probes *p, struct probe_cost *out, struct rterr *err);
/* Kernel memory charged for the maps and the programs (memlock of each fd). */
int probes_memory(struct probes *p, uint64_t *map_bytes, uint64_t *prog_bytes, struct rterr *err);
/*
 * The kernel's name of a drop reason ("NO_SOCKET", as tracefs prints it), from the
 * enum skb_drop_reason in kernel BTF (copied at probes_open(), which lets the BTF go);
 * "reason_N" for one it does not name. Returns buf.
 */
const char *probes_drop_reason_name(const struct probes *p, uint32_t reason, char *buf, size_t len);

/*
 * What the kernel offers each probe, without loading one (rtltune doctor): whether the
 * tracepoint is in kernel BTF (tp_btf can attach to it) and in tracefs (raw_tp can), and
 * whether it passes the optional argument its program reads. rtltuned says whether the
 * daemon loads that probe (PROBES_DAEMON_OFF, the optional XDP program: not).
 */
struct probe_support {
	const char *name; /* the tracepoint, or "xdp" */
	bool rtltuned;	  /* rtltuned loads it */
	bool btf;	  /* btf_trace_<name> in kernel BTF */
	int tracefs;	  /* 1 an event in tracefs, 0 not there, -1 tracefs not mounted */
	const char *arg;  /* the optional argument its program reads ("reason"), or NULL */
	bool has_arg;	  /* the kernel passes it */
};
/*
 * Fill out[] for every probe. Without kernel BTF: rterr_sys naming it, and out[] still
 * filled from tracefs.
 */
int probes_support(struct probe_support out[PROBE_COUNT], struct rterr *err);
/*
 * Load a program of hook's type (PROBE_HOOK_TP_BTF or PROBE_HOOK_RAW_TP) that does nothing,
 * attach it to tracepoint tp, detach it and unload it: whether this process may run the
 * probes' kind of program here (privilege, lockdown, seccomp, the kernel's support), which
 * capability bits alone do not show. The program is attached for the time of two system
 * calls and returns at once. 0, or -errno with the kernel's answer (EPERM: not permitted).
 */
int probes_try_hook(enum probe_hook hook, const char *tp, struct rterr *err);

#endif
