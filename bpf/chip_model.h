/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Map layouts shared by bpf/chip_model.bpf.c and tests/tools/chipmodel.c: test-only models
 * of NIC behaviour seen in the field reports (docs/chipmodels.md), run on the tc ingress
 * hook of the receiving veth. __u32/__u64 come from vmlinux.h in BPF and <linux/types.h>
 * in user space.
 */
#ifndef RTLTUNE_CHIP_MODEL_H
#define RTLTUNE_CHIP_MODEL_H

/* Names the tool looks for on the tc hook (BPF object names are cut at 15 characters). */
#define CHIPMODEL_PROG_NAME  "rtl_chipmodel"
#define CHIPMODEL_CFG_NAME   "rtl_cm_cfg"
#define CHIPMODEL_RING_NAME  "rtl_cm_ring"
#define CHIPMODEL_STATS_NAME "rtl_cm_stats"

/* Largest per-knob costs the tool accepts, and the most one skb may spin: a 64K GSO skb
 * at 1500 MTU is 45 frames, so 100 us per frame is 4.5 ms; the cap keeps a mistyped knob
 * from holding a CPU in softirq for seconds. */
#define CHIPMODEL_MAX_COST_NS	  100000u
#define CHIPMODEL_MAX_SKB_SPIN_NS 20000000ull

/* Value of rtl_cm_cfg[0]: read on every packet, so a change applies to the next one.
 * Every model is off when its size knob is 0; `enabled` switches them all at once. */
struct chipmodel_cfg {
	__u32 enabled;
	/* 1. Per-frame cost (CPU-bound receiver): each wire frame spins the receiving CPU
	 *    this long. A GSO skb counts as gso_segs frames. */
	__u32 frame_ns;
	/* 2. Per-burst cost (TX DMA burst): a frame of IP length L costs
	 *    1 + (L - burst_offset - 1) / burst_bytes bursts (1 when L <= burst_offset), each
	 *    burst_ns: the step lands at L = k * burst_bytes + burst_offset + 1. */
	__u32 burst_bytes;
	__u32 burst_offset;
	__u32 burst_ns;
	/* 3. Burst losses (RX ring overrun): a ring of ring_frames frames, drained at one
	 *    frame per drain_ns. The frames of an skb that find the ring full are lost: a
	 *    GSO skb keeps the ones that fit (its head), a single frame is lost whole. */
	__u32 ring_frames;
	__u32 drain_ns;
	/* 5. Per-skb cost (a NIC's per-send cost: descriptor, doorbell, completion, a
	 *    hypervisor's exit): each skb spins the receiving CPU this long, whatever its
	 *    size. Fewer, larger skbs gain: the MANA BIG TCP case. */
	__u32 skb_ns;
	/* 4. TSO retransmit storm: a GSO skb (a TSO super-packet the sender's NIC would have
	 *    cut) is lost when bpf_get_prandom_u32() < tso_drop_threshold, i.e. with
	 *    probability threshold / 2^32 (2^32 loses them all); other skbs never are. */
	__u64 tso_drop_threshold;
};

/* Value of rtl_cm_ring[0]: the ring's backlog, shared by every CPU. */
struct chipmodel_ring {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 backlog_ns; /* frames in the ring times drain_ns, as of last_ns */
	__u64 last_ns;
};

/* Value of the per-CPU rtl_cm_stats[0]. "frames" are wire frames: gso_segs of a GSO skb. */
struct chipmodel_stats {
	__u64 skbs;	     /* every skb at ingress */
	__u64 frames;	     /* wire frames they stand for */
	__u64 gso_skbs;	     /* skbs with gso_segs > 1 */
	__u64 bytes;	     /* skb->len: MAC header included */
	__u64 tso_drop_skbs; /* model 4 losses */
	__u64 tso_drop_frames;
	__u64 ring_drop_skbs;	/* model 3: skbs lost whole */
	__u64 ring_cut_skbs;	/* model 3: GSO skbs that kept only their head */
	__u64 ring_drop_frames; /* model 3: frames lost, whole or cut */
	__u64 ring_max_frames;	/* highest ring occupancy seen after an accepted skb */
	__u64 cost_frames;	/* frames charged the per-frame cost */
	__u64 cost_bursts;	/* bursts charged the per-burst cost */
	__u64 cost_ns;		/* CPU time asked for, frame, burst and skb costs together */
	__u64 spun_ns;		/* CPU time actually spun */
	__u64 spin_capped;	/* skbs whose cost hit CHIPMODEL_MAX_SKB_SPIN_NS */
	__u64 cost_skbs;	/* skbs charged the per-skb cost */
};

#endif
