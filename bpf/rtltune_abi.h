/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Map layouts shared by bpf/rtltune.bpf.c and lib/probes/probes.c. Both sides include this
 * file; __u32/__u64 come from vmlinux.h in BPF and <linux/types.h> in user space.
 */
#ifndef RTLTUNE_ABI_H
#define RTLTUNE_ABI_H

/* Must match HIST_BUCKETS/HIST_LOG2_BUCKETS in include/rtltune/hist.h. */
#define RTL_HIST_BUCKETS      22
#define RTL_HIST_LOG2_BUCKETS 21

/* Slot 0 is the host (events without a device); selected interfaces use 1..max. */
#define RTL_SLOT_HOST 0

/*
 * A histogram family on one CPU is split in two. Its count and sum take every event and
 * are exact at any rate; its buckets take the sampled events only, each weighted by the
 * gap it stands for (rtl_sample_gap()). Below the sampling threshold every event is
 * sampled with weight 1 and the buckets are exact too; samples counts bucket updates.
 */
struct rtl_family_sum {
	__u64 count;
	__u64 sum;
};

struct rtl_family_buckets {
	__u64 samples;
	__u64 buckets[RTL_HIST_BUCKETS];
};

/*
 * Sampling of one family on one CPU (docs/probes.md "Sampling"). Every event takes the
 * family's countdown (in the hot lines of struct rtl_slot_stats, not here) one step; the
 * event that ends it is sampled and weighs gap, the events since the previous sample,
 * itself included. Gaps are drawn uniformly from [1, 2^(shift+1)]
 * (mean 2^shift + 1/2), so no periodic pattern in the traffic can line up with them.
 * Every RTL_SAMPLE_BLOCK samples (RTL_SAMPLE_BLOCK_EXACT while exact) the clock is read
 * once, the random state reseeded from the kernel's, and shift moved so that samples come
 * at RTL_SAMPLE_RATE_MIN..MAX per second; between blocks gaps come from an xorshift32 in
 * the state, so a sample costs no helper call.
 */
struct rtl_sampler {
	__u32 gap;	      /* weight of the next sample */
	__u32 samples;	      /* samples in the current block */
	__u16 shift;	      /* mean gap 2^shift + 1/2; 0: every event, exactly */
	__u16 max_shift;      /* the largest shift used since the slot was selected */
	__u64 block_start_ns; /* bpf_ktime_get_ns() when the block began */
	__u32 rng;	      /* xorshift32 state, reseeded from the kernel's at each block */
};

/*
 * One slot's counters on one CPU (value of the per-CPU array slot_stats). What every
 * event touches comes first, packed: each family's countdown to its next sample, its
 * count and sum, the polls; 120 bytes, two or three cache lines for all the hooks an skb
 * meets, where a sampler beside each family spread them over six. On the TSO path the
 * copies of the 64 KiB skbs between two events evict these lines, so every line fewer is
 * a miss fewer per event. The samplers' state and the buckets, which only sampled events
 * touch, and the rare counters come after.
 */
struct rtl_slot_stats {
	/* net_dev_start_xmit: every skb, and GSO skbs in the two gso families */
	__u32 tx_countdown; /* events until the next sample; 0 before the first event */
	__u32 rx_frame_countdown;
	struct rtl_family_sum tx_skb_bytes;
	struct rtl_family_sum tx_gso_size;
	struct rtl_family_sum tx_gso_segs;
	__u64 tx_gso_bytes;
	/* netif_receive_skb: the frames each skb was built from */
	struct rtl_family_sum rx_frame_bytes;
	/* netif_receive_skb: the skbs */
	__u32 rx_skb_countdown;
	__u32 rx_xdp_countdown;
	struct rtl_family_sum rx_skb_bytes;
	/* napi_poll */
	__u64 napi_polls;
	__u64 napi_budget_exhausted;
	/* XDP */
	struct rtl_family_sum rx_xdp_frame_bytes;
	/* what only sampled events touch */
	struct rtl_sampler tx_sampler;
	struct rtl_sampler rx_frame_sampler;
	struct rtl_sampler rx_skb_sampler;
	struct rtl_sampler rx_xdp_sampler;
	/* rare events: counted, never sampled */
	__u64 tx_timeouts;
	__u64 tcp_retransmits;
	__u64 tcp_retransmit_segs;
	__u64 drops;
	struct rtl_family_buckets tx_skb_bytes_b;
	struct rtl_family_buckets tx_gso_size_b;
	struct rtl_family_buckets tx_gso_segs_b;
	struct rtl_family_buckets rx_frame_bytes_b;
	struct rtl_family_buckets rx_skb_bytes_b;
	struct rtl_family_buckets rx_xdp_frame_bytes_b;
};

/*
 * Sampling thresholds. A CPU counts every event of a family into its bucket until a block
 * of RTL_SAMPLE_BLOCK_EXACT events comes faster than RTL_SAMPLE_RATE_MAX per second: any
 * burst shorter than that block, and any steady rate below that rate, stays exact.
 * Sampling keeps RTL_SAMPLE_RATE_MIN..MAX samples per second per CPU and family.
 */
#define RTL_SAMPLE_BLOCK_EXACT 4096
#define RTL_SAMPLE_BLOCK       512
#define RTL_SAMPLE_RATE_MAX    4096 /* samples per second */
#define RTL_SAMPLE_RATE_MIN    (RTL_SAMPLE_RATE_MAX / 4)
#define RTL_SAMPLE_MAX_SHIFT   16

/* Gap after a sample: uniform in [1, 2^(shift+1)] from a random rnd; 1 when exact. */
static inline __u32 rtl_sample_gap(__u32 shift, __u32 rnd)
{
	if (!shift)
		return 1;
	return (rnd & ((2U << shift) - 1)) + 1;
}

/*
 * The rate check at the end of a block of n samples that took dt_ns: a block shorter
 * than n samples at RTL_SAMPLE_RATE_MAX doubles the mean gap (as many times as it takes),
 * one longer than at RTL_SAMPLE_RATE_MIN halves it (as many times). The new shift.
 */
static inline __u32 rtl_sample_retune(__u32 shift, __u32 n, __u64 dt_ns)
{
	__u64 fast = (__u64)n * (1000000000ULL / RTL_SAMPLE_RATE_MAX);
	__u64 slow = (__u64)n * (1000000000ULL / RTL_SAMPLE_RATE_MIN);
	unsigned int i;

	for (i = 0; i < RTL_SAMPLE_MAX_SHIFT && dt_ns < fast && shift < RTL_SAMPLE_MAX_SHIFT; i++) {
		shift++;
		dt_ns <<= 1;
	}
	for (i = 0; i < RTL_SAMPLE_MAX_SHIFT && dt_ns >= slow && shift > 0; i++) {
		shift--;
		dt_ns >>= 1;
	}
	return shift;
}

/*
 * The three steps of a sampled event (the event that ends the countdown; the others only
 * decrement it), shared by the BPF programs and the unit tests, which bring the clock and
 * the seed: rtl_sample_hit() gives its weight and says whether a block ended (or the very
 * first event came), then rtl_sample_block_end() with the time and a fresh seed, then
 * rtl_sample_next().
 */
static inline __u32 rtl_sample_hit(struct rtl_sampler *s, int *block_end)
{
	__u32 block = s->shift ? RTL_SAMPLE_BLOCK : RTL_SAMPLE_BLOCK_EXACT;

	*block_end = ++s->samples >= block || !s->block_start_ns;
	return s->gap ? s->gap : 1;
}

static inline void rtl_sample_block_end(struct rtl_sampler *s, __u64 now_ns, __u32 seed)
{
	if (s->block_start_ns) {
		s->shift =
			(__u16)rtl_sample_retune(s->shift, s->samples, now_ns - s->block_start_ns);
		if (s->shift > s->max_shift)
			s->max_shift = s->shift;
	}
	s->block_start_ns = now_ns ? now_ns : 1;
	s->samples = 0;
	s->rng = seed ? seed : 0x9e3779b9; /* xorshift32 must not start at 0 */
}

/* The next gap, drawn; the caller sets the family's countdown to it. */
static inline __u32 rtl_sample_next(struct rtl_sampler *s)
{
	__u32 x = s->rng;

	if (s->shift) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		s->rng = x;
	}
	s->gap = rtl_sample_gap(s->shift, x);
	return s->gap;
}

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
