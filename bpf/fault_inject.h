/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Map layouts shared by bpf/fault_inject.bpf.c and tests/tools/faultinj.c (a test-only
 * fault injector). __u32/__u64 come from vmlinux.h in BPF and <linux/types.h> in user space.
 */
#ifndef RTLTUNE_FAULT_INJECT_H
#define RTLTUNE_FAULT_INJECT_H

/* Names the tool looks for on the tc hook (BPF object names are cut at 15 characters). */
#define FAULTINJ_PROG_NAME  "rtl_faultinj"
#define FAULTINJ_CFG_NAME   "rtl_fi_cfg"
#define FAULTINJ_STATS_NAME "rtl_fi_stats"

/* Value of rtl_fi_cfg[0]: read on every packet, so a change applies at once. */
struct faultinj_cfg {
	__u32 enabled;
	__u32 min_len; /* only skbs with len > min_len (bytes at tc egress, MAC header included) */
	/* Drop when bpf_get_prandom_u32() < threshold: fraction * 2^32 (2^32 drops all). */
	__u64 threshold;
	__u32 gso_only; /* only GSO skbs (gso_segs > 1): what a TSO engine gets */
	__u32 pad;
};

/* Value of the per-CPU rtl_fi_stats[0]. */
struct faultinj_stats {
	__u64 seen;	    /* every skb at egress */
	__u64 gso;	    /* GSO skbs among them */
	__u64 eligible;	    /* matched size (and GSO) filters */
	__u64 dropped;	    /* dropped skbs */
	__u64 dropped_segs; /* wire segments those skbs would have become */
	__u64 dropped_bytes;
};

#endif
