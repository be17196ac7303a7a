/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Map layouts shared by bpf/rtltune.bpf.c and lib/probes.c. Both sides include this
 * file; __u32/__u64 come from vmlinux.h in BPF and <linux/types.h> in user space.
 */
#ifndef RTLTUNE_ABI_H
#define RTLTUNE_ABI_H

/* Must match HIST_BUCKETS/HIST_LOG2_BUCKETS in include/rtltune/hist.h. */
#define RTL_HIST_BUCKETS      22
#define RTL_HIST_LOG2_BUCKETS 21

/* Slot 0 is the host (events without a device); selected interfaces use 1..max. */
#define RTL_SLOT_HOST 0

struct rtl_hist_raw {
	__u64 buckets[RTL_HIST_BUCKETS];
	__u64 sum;
};

/*
 * One slot's counters on one CPU (value of the per-CPU array slot_stats). Packet counts
 * are the histograms' bucket sums, so the hot path touches one bucket and one sum.
 */
struct rtl_slot_stats {
	struct rtl_hist_raw tx_skb_bytes;
	struct rtl_hist_raw tx_gso_size;
	struct rtl_hist_raw tx_gso_segs;
	__u64 tx_gso_bytes;
	__u64 tx_busy;
	__u64 tx_timeouts;
	struct rtl_hist_raw rx_frame_bytes;
	struct rtl_hist_raw rx_skb_bytes;
	struct rtl_hist_raw rx_xdp_frame_bytes;
	__u64 napi_polls;
	__u64 napi_budget_exhausted;
	__u64 tcp_retransmits;
	__u64 tcp_retransmit_segs;
	__u64 drops;
};

/* Key of the filter map (value: the slot). netns is the namespace's inode number. */
struct rtl_iface_key {
	__u32 netns;
	__u32 ifindex;
};

/* Key of the per-CPU drops map (value: __u64 count). */
struct rtl_drop_key {
	__u32 slot;
	__u32 reason;
};

/* Floor of log2 for v > 0, branch-free enough for the verifier (libbpf-tools' bits.h). */
static inline __u32 rtl_log2_u32(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

/*
 * Bucket of value v: the first whose upper bound le >= v. Bucket i < 21 has le = 2^i, so
 * for v >= 2 it is ceil(log2 v) = floor(log2(v - 1)) + 1; larger values share the last.
 */
static inline __u32 rtl_hist_index(__u64 v)
{
	__u32 i;

	if (v <= 1)
		return 0;
	if (v > (1ULL << (RTL_HIST_LOG2_BUCKETS - 1)))
		return RTL_HIST_BUCKETS - 1;
	i = rtl_log2_u32((__u32)(v - 1)) + 1;
	return i;
}

#endif
