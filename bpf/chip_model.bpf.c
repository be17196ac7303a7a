// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only chip models (tests/tools/chipmodel.c loads it; docs/chipmodels.md): a tc
 * clsact ingress program for the receiving veth of a test's pair that makes the veth
 * behave like the NICs of the field reports, so the tuner's scenario tests replay them:
 *
 *   1. per-frame cost: every wire frame spins the CPU a fixed time (r8169 jumbo on an
 *      Atom 330: the receiver is frame-bound, larger MTU means more throughput);
 *   2. per-burst cost: a frame costs one more DMA burst each time its size crosses
 *      k * burst + offset (the r8169 TX DMA burst dips at MTU = k * 1024 + 52);
 *   3. burst losses: a ring of N frames drained at a fixed rate loses the skbs that
 *      arrive when it cannot take all their frames (the i.MX6 fec collapse under big
 *      GSO bursts);
 *   4. TSO retransmit storm: a fraction of the TSO super-packets is lost, nothing else
 *      (the RTL8126 report);
 *   5. per-skb cost: every skb spins the CPU a fixed time whatever its size (a NIC's
 *      per-send cost: MANA, where BIG TCP's fewer, larger skbs gained).
 *
 * Why the receiver's ingress and not the sender's egress (where bpf/fault_inject.bpf.c
 * sits): veth hands the peer the sender's GSO skb intact when the sender's TSO is on, and
 * single frames when TSO is off (software GSO cuts them in validate_xmit_skb, after the
 * egress hook). So here gso_segs is the number of wire frames a real NIC would have put
 * on the wire, and an skb with gso_segs > 1 is exactly a TSO super-packet: turning TSO off
 * on the sender cures models 3 and 4 as it cures the real chips. This holds while GRO is
 * off on the receiving veth (its default): GRO would merge frames into GSO skbs again.
 * tc and not XDP: an XDP program on a veth turns GSO off on its peer.
 *
 * Losses are TC_ACT_STOLEN, not SHOT: the frames vanish as on the wire, without a drop
 * reason in kfree_skb that the tuner's probes would attribute to a device.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "chip_model.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_OK     0
#define TC_ACT_STOLEN 4
#define ETH_HLEN      14
#define ETH_P_IP      0x0800
#define ETH_P_IPV6    0x86DD
#define IPPROTO_TCP_  6
#define IPPROTO_UDP_  17

/* bpf_loop's ceiling is 1 << 23; one iteration (a ktime read) takes tens of ns, so this
 * outlasts CHIPMODEL_MAX_SKB_SPIN_NS and the deadline, not the count, ends the spin. */
#define SPIN_MAX_LOOPS (1u << 22)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct chipmodel_cfg);
} rtl_cm_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct chipmodel_ring);
} rtl_cm_ring SEC(".maps");

/* Per-CPU: no shared cache line on the packet path; the tool sums the CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct chipmodel_stats);
} rtl_cm_stats SEC(".maps");

static long spin_until(__u32 index, void *ctx)
{
	return bpf_ktime_get_ns() >= *(__u64 *)ctx ? 1 : 0;
}

/* IP plus transport header bytes of the first segment, 0 when not IPv4/IPv6 TCP/UDP;
 * *tcp says which of the two. */
static __u32 l3l4_header_len(struct __sk_buff *skb, bool *tcp)
{
	__u8 b, proto;
	__u32 l3;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, ETH_HLEN, &b, 1) < 0)
			return 0;
		l3 = (b & 0x0f) * 4;
		if (bpf_skb_load_bytes(skb, ETH_HLEN + 9, &proto, 1) < 0)
			return 0;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		l3 = 40; /* extension headers: not in the tests' traffic */
		if (bpf_skb_load_bytes(skb, ETH_HLEN + 6, &proto, 1) < 0)
			return 0;
	} else {
		return 0;
	}
	*tcp = proto == IPPROTO_TCP_;
	if (proto == IPPROTO_UDP_)
		return l3 + 8;
	if (proto != IPPROTO_TCP_ || bpf_skb_load_bytes(skb, ETH_HLEN + l3 + 12, &b, 1) < 0)
		return 0;
	return l3 + (b >> 4) * 4;
}

static __u32 bursts_of(const struct chipmodel_cfg *cfg, __u32 ip_len)
{
	if (ip_len <= cfg->burst_offset)
		return 1;
	return 1 + (ip_len - cfg->burst_offset - 1) / cfg->burst_bytes;
}

/* Bursts for every frame of the skb: full segments of gso_size payload, then the rest. */
static __u64 skb_bursts(struct __sk_buff *skb, const struct chipmodel_cfg *cfg, __u32 frames)
{
	__u32 ip_len = skb->len > ETH_HLEN ? skb->len - ETH_HLEN : 0, hdr, full, last;
	bool tcp = false;
	__u64 tail;

	if (frames <= 1 || !skb->gso_size)
		return bursts_of(cfg, ip_len);
	hdr = l3l4_header_len(skb, &tcp);
	full = hdr + skb->gso_size;
	tail = (__u64)(frames - 1) * skb->gso_size;
	last = ip_len > tail ? ip_len - (__u32)tail : hdr;
	return (__u64)(frames - 1) * bursts_of(cfg, full) + bursts_of(cfg, last);
}

/* Model 3: how many of the skb's frames the ring takes (all, some, or none), as of now. */
static __u32 ring_admit(const struct chipmodel_cfg *cfg, __u32 frames, __u64 now,
			struct chipmodel_stats *st)
{
	__u64 cap = (__u64)cfg->ring_frames * cfg->drain_ns, backlog, room;
	struct chipmodel_ring *ring;
	__u32 zero = 0, take;

	ring = bpf_map_lookup_elem(&rtl_cm_ring, &zero);
	if (!ring)
		return frames;
	bpf_spin_lock(&ring->lock);
	backlog = ring->backlog_ns;
	if (now > ring->last_ns)
		backlog = now - ring->last_ns >= backlog ? 0 : backlog - (now - ring->last_ns);
	ring->last_ns = now;
	room = backlog < cap ? (cap - backlog) / cfg->drain_ns : 0;
	take = room < frames ? (__u32)room : frames;
	backlog += (__u64)take * cfg->drain_ns;
	ring->backlog_ns = backlog;
	bpf_spin_unlock(&ring->lock);
	if (backlog / cfg->drain_ns > st->ring_max_frames)
		st->ring_max_frames = backlog / cfg->drain_ns;
	return take;
}

/*
 * Keep the first `keep` frames of a GSO skb, as a ring that filled up midway through a
 * burst would: cut the payload after keep * gso_size bytes and fix the IP length (and the
 * IPv4 header checksum). The skb stops being GSO (bpf_skb_change_tail resets it), which
 * the receiving stack takes as one large frame. FIN and PSH belong to the lost last
 * segment, so they go too. The TCP checksum is left alone: a local sender hands veth
 * CHECKSUM_PARTIAL skbs, whose TCP checksum the receiver does not verify. 0 on success.
 */
static int keep_head_frames(struct __sk_buff *skb, __u32 keep)
{
	bool v4 = skb->protocol == bpf_htons(ETH_P_IP), tcp = false;
	__u32 hdr = l3l4_header_len(skb, &tcp), l3 = 40, new_len;
	__u16 old_tot, new_tot;
	__u8 b, flags;

	/* Only TCP: a cut UDP GSO skb would need its UDP length rewritten as well. */
	if (!hdr || !tcp || !skb->gso_size)
		return -1;
	new_len = ETH_HLEN + hdr + keep * skb->gso_size;
	if (new_len >= skb->len)
		return -1;
	if (v4) {
		if (bpf_skb_load_bytes(skb, ETH_HLEN, &b, 1) < 0)
			return -1;
		l3 = (b & 0x0f) * 4;
	}
	if (bpf_skb_change_tail(skb, new_len, 0) < 0)
		return -1;
	if (v4) {
		new_tot = bpf_htons((__u16)(new_len - ETH_HLEN));
		if (bpf_skb_load_bytes(skb, ETH_HLEN + 2, &old_tot, 2) < 0 ||
		    bpf_l3_csum_replace(skb, ETH_HLEN + 10, old_tot, new_tot, 2) < 0 ||
		    bpf_skb_store_bytes(skb, ETH_HLEN + 2, &new_tot, 2, 0) < 0)
			return -1;
	} else {
		new_tot = bpf_htons((__u16)(new_len - ETH_HLEN - 40)); /* payload length */
		if (bpf_skb_store_bytes(skb, ETH_HLEN + 4, &new_tot, 2, 0) < 0)
			return -1;
	}
	if (bpf_skb_load_bytes(skb, ETH_HLEN + l3 + 13, &flags, 1) < 0)
		return -1;
	flags &= (__u8)~0x09; /* FIN, PSH */
	return bpf_skb_store_bytes(skb, ETH_HLEN + l3 + 13, &flags, 1, 0) < 0 ? -1 : 0;
}

SEC("tc")
int rtl_chipmodel(struct __sk_buff *skb)
{
	struct chipmodel_stats *st;
	struct chipmodel_cfg *cfg;
	__u64 now, cost = 0, deadline, bursts;
	__u32 zero = 0, frames, keep;

	cfg = bpf_map_lookup_elem(&rtl_cm_cfg, &zero);
	st = bpf_map_lookup_elem(&rtl_cm_stats, &zero);
	if (!cfg || !st)
		return TC_ACT_OK;
	frames = skb->gso_segs > 1 ? skb->gso_segs : 1;
	st->skbs++;
	st->frames += frames;
	st->bytes += skb->len;
	if (frames > 1)
		st->gso_skbs++;
	if (!cfg->enabled)
		return TC_ACT_OK;

	if (frames > 1 && cfg->tso_drop_threshold &&
	    (__u64)bpf_get_prandom_u32() < cfg->tso_drop_threshold) {
		st->tso_drop_skbs++;
		st->tso_drop_frames += frames;
		return TC_ACT_STOLEN;
	}
	now = bpf_ktime_get_ns();
	if (cfg->ring_frames && cfg->drain_ns) {
		keep = ring_admit(cfg, frames, now, st);
		if (keep < frames) {
			st->ring_drop_frames += frames - keep;
			if (!keep || keep_head_frames(skb, keep) < 0) {
				st->ring_drop_skbs++;
				return TC_ACT_STOLEN;
			}
			st->ring_cut_skbs++;
			frames = keep;
		}
	}

	if (cfg->frame_ns) {
		cost += (__u64)frames * cfg->frame_ns;
		st->cost_frames += frames;
	}
	if (cfg->burst_bytes && cfg->burst_ns) {
		bursts = skb_bursts(skb, cfg, frames);
		cost += bursts * cfg->burst_ns;
		st->cost_bursts += bursts;
	}
	if (cfg->skb_ns) {
		cost += cfg->skb_ns;
		st->cost_skbs++;
	}
	if (!cost)
		return TC_ACT_OK;
	st->cost_ns += cost;
	if (cost > CHIPMODEL_MAX_SKB_SPIN_NS) {
		cost = CHIPMODEL_MAX_SKB_SPIN_NS;
		st->spin_capped++;
	}
	deadline = now + cost;
	bpf_loop(SPIN_MAX_LOOPS, spin_until, &deadline, 0);
	st->spun_ns += bpf_ktime_get_ns() - now;
	return TC_ACT_OK;
}
