/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What lib/probes/probes.c (loader, filter), lib/probes/probes_read.c (readout) and
 * lib/probes/probes_kernel.c (the kernel's own refusal counters) share. Not an interface:
 * include/rtltune/probes.h is.
 */
#ifndef RTLTUNE_PROBES_PRIV_H
#define RTLTUNE_PROBES_PRIV_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "rtltune/hist.h"
#include "rtltune/probes.h"
#include "../../bpf/rtltune_abi.h"

struct btf;

/* Distinct (slot, reason) pairs kept: a link sees a handful of reasons, 16 is generous. */
#define DROP_REASONS_PER_SLOT 16
#define DROP_MAP_MIN_ENTRIES  256
/* Bytes of keys and values fetched per batch lookup of the drops map (a bound on the
 * scratch, whatever the number of CPUs). */
#define DROP_BATCH_BYTES 16384

/* A value of enum skb_drop_reason and its name's offset in probes.drop_name_text. */
struct drop_name {
	__u32 reason;
	__u32 name_off;
};

/* One (slot, reason) pair of the drops map, summed over CPUs. */
struct drop_entry {
	__u32 slot;
	__u32 reason;
	__u64 count;
};

/* The kernel's counters of refused transmissions of one device (lib/probes/probes_kernel.c). */
struct kernel_refusals {
	int sock;	/* index in probes.netns_socks, -1 for none (the host slot) */
	bool have;	/* a first reading was made */
	__u64 requeues; /* the last raw values read */
	__u64 tx_dropped;
	__u64 busy;	       /* refusals counted since the slot was selected */
	__u64 tx_packets_seen; /* TX packets at the last reading: read again only after more */
};

struct probe_slot {
	bool used;
	struct rtl_iface_key key;
	int xdp_link_fd; /* -1 when no XDP program is attached for this slot */
	struct kernel_refusals refusals;
	struct hist_estimator *est; /* [PROBE_HIST_COUNT], while selected */
};

/* One rtnetlink socket per network namespace that has selected interfaces. */
struct netns_sock {
	__u32 inum; /* the namespace's inode number, 0 for a free entry */
	int fd;
	unsigned int users;
};

struct probes {
	struct rtltune *skel;
	struct probe_status status[PROBE_COUNT];
	struct bpf_program *prog[PROBE_COUNT]; /* the variant in use, NULL when none */
	struct bpf_link *link[PROBE_COUNT];
	struct probe_slot *slots; /* [0] is the host */
	unsigned int nslots;	  /* max_ifaces + 1 */
	int ncpus;
	int stats_fd;
	bool xdp;
	bool want_floor;   /* load the empty calibration program (run-time stats only) */
	bool exact;	   /* probes_opts.exact: no sampling */
	bool empty_bodies; /* RTLTUNE_PROBE_EMPTY: the dispatch floor, nothing counted */
	struct bpf_link *floor_link;
	struct btf *vmlinux_btf; /* only while opening: 5 MiB that a daemon should not keep */
	void *percpu;		 /* ncpus values of struct rtl_slot_stats, scratch for reads */

	/* enum skb_drop_reason, ascending by value: names without the SKB_DROP_REASON_. */
	struct drop_name *drop_names;
	unsigned int n_drop_names;
	char *drop_name_text;

	/* The last walk of the drops map, by slot then reason. */
	struct drop_entry *drops;
	unsigned int n_drops, drops_cap;
	struct rtl_drop_key *batch_keys; /* scratch of one batch lookup */
	__u64 *batch_vals;
	__u32 batch_len;		 /* entries per batch lookup */
	bool batch_unsupported;		 /* kernel without batch ops on hash maps (before 5.6) */
	struct probe_counters *read_all; /* probes_read_all()'s scratch */
	/* The same walk by CPU and reason, summed over slots (probes_cpu_drops()). */
	struct probe_cpu_drop *cpu_drops;
	unsigned int n_cpu_drops, cpu_drops_cap;

	struct netns_sock *netns_socks;
	unsigned int n_netns_socks;
};

/* lib/probes/probes_table.c: tracepoint and program stem (rtl_<stem>_btf / rtl_<stem>_raw)
 * of each probe. */
struct probe_def {
	const char *tp;
	const char *stem;
};
extern const struct probe_def probe_defs[PROBE_COUNT];

/* lib/probes/probes_check.c: what the kernel offers each tracepoint. */
enum tracefs_answer { TRACEFS_UNKNOWN, TRACEFS_ABSENT, TRACEFS_PRESENT };
/* Is the tracepoint an event in tracefs (when tracefs is mounted at all)? format, when not
 * NULL, gets the path of its format file. */
enum tracefs_answer tracefs_has(const char *tp, char *format, size_t format_len);
/* Arguments of a tracepoint per kernel BTF: -1 when BTF does not have it. */
int btf_tp_args(const struct btf *btf, const char *tp);
/* Third argument present? (kfree_skb's reason, tcp_retransmit_skb's err.) BTF first (may be
 * NULL), then the tracefs format's field; false when neither tells. */
bool tp_has_third_arg(const struct btf *btf, const char *tp, const char *field);

/* lib/probes/probes_read.c */
void probes_read_slot_reset(struct probes *p, unsigned int slot);

/* lib/probes/probes_kernel.c: a slot's refusal counters, from its selection on. */
int kernel_refusals_select(struct probes *p, struct probe_slot *s, int ifindex, __u32 netns,
			   struct rterr *err);
void kernel_refusals_unselect(struct probes *p, struct probe_slot *s);
/* The refusals since selection; asks the kernel only when tx_packets moved since. */
__u64 kernel_refusals_read(struct probes *p, struct probe_slot *s, __u64 tx_packets);
void kernel_refusals_close(struct probes *p);

#endif
