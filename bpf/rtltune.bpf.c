// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune probes: what the stack hands each driver and what each driver delivers, counted
 * per selected interface in per-CPU maps (user space sums the CPUs; no per-packet events).
 * One program runs per skb handed to a driver (net_dev_start_xmit) and one per skb
 * entering the stack after GRO (netif_receive_skb), which also rebuilds the frames the
 * driver delivered from the skb's gso_size; counts and byte sums take every event,
 * histogram buckets a sample whose rate follows the event rate (sample()). Driver
 * refusals are not counted here: the kernel counts them (qdisc requeues, tx_dropped),
 * lib/probes/probes_kernel.c reads those.
 *
 * Every hook exists twice: tp_btf (typed arguments the verifier lets us dereference with
 * plain loads, the cheap path) and raw_tp (raw u64 arguments read with
 * bpf_probe_read_kernel, for kernels where tp_btf is refused). lib/probes/probes.c loads one of
 * the two per hook. Both share the handlers below; the `btf` argument is a compile-time
 * constant in each wrapper, so each variant carries only its own kind of access.
 * docs/probes.md says what each hook counts and how the RX frames are rebuilt.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "rtltune_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Argument shapes that differ between kernels; lib/probes/probes.c sets them from kernel BTF. */
const volatile bool kfree_skb_has_reason = true;   /* reason arg since 5.17 */
const volatile bool tcp_retransmit_has_err = true; /* err arg since 6.13 */
/* rtltune trace --exact: every event into its bucket, whatever the rate. */
const volatile bool exact_histograms = false;
/* Test hook (RTLTUNE_PROBE_EMPTY, the bench's floor): programs attached, bodies skipped,
 * so what remains is what the kernel's dispatch of a tracepoint program costs. */
const volatile bool empty_bodies = false;

/* (netns inode, ifindex) -> slot: only selected interfaces are counted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 257); /* resized by the loader: max_ifaces + host */
	__type(key, struct rtl_iface_key);
	__type(value, __u32);
} iface_slot SEC(".maps");

/* XDP sees only an ifindex: interfaces carrying our XDP program map here as (0, ifindex). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 257);
	__type(key, struct rtl_iface_key);
	__type(value, __u32);
} xdp_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 257);
	__type(key, __u32);
	__type(value, struct rtl_slot_stats);
} slot_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096); /* resized by the loader: slots x 16 */
	__type(key, struct rtl_drop_key);
	__type(value, __u64);
} drop_reasons SEC(".maps");

/* Read one field: a direct (BTF) load in tp_btf programs, a probe read in raw_tp ones. */
#define RD(btf, ptr, field) ((btf) ? (ptr)->field : BPF_CORE_READ(ptr, field))

/* Since 6.2: turns skb->head + skb->end into a typed pointer the verifier lets us load
 * from directly (a probe read costs ~45 ns per call on the test VMs, a load ~1 ns). */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * The filter is a hash lookup (~30 ns); most events hit the same few interfaces, so each
 * program keeps a small per-CPU memo of (netns, ifindex) -> slot, negative answers
 * included. User space bumps filter_gen after changing the filter, which retires every
 * memo entry. Each program has its own memo row: BPF never runs a tracing program nested
 * in itself on one CPU, so no other writer can tear an entry mid-update.
 */
__u32 filter_gen;

#define SLOT_NONE	 0xffffffffU
#define MEMO_WAYS	 16
#define MEMO_GEN_INVALID 0xffffffffU

struct slot_memo_entry {
	__u32 netns;
	__u32 ifindex;
	__u32 gen;
	__u32 slot;
};

/* The device of the last hit: most events of a program come from the device before. */
struct slot_memo_last {
	__u64 dev; /* struct net_device * */
	__u32 ifindex;
	__u32 gen;
	__u32 slot;
	__u32 pad;
};

/*
 * Memo rows: one per program (the tp_btf and raw_tp variants of a hook never coexist).
 * The rows an skb meets on its way (out of one device, up the stack at the next, the
 * poll) come first: their `last` entries sit side by side at the start of the CPU's memo,
 * two cache lines for the three (per-CPU values are only 8-byte aligned), where a
 * row each cost a line of its own (rtltuned leaves napi_poll off; trace runs it). Between two
 * 64 KiB skbs the copies evict the programs' lines; each line fewer is a miss fewer.
 */
enum memo_row {
	MEMO_TXSTART,
	MEMO_RXSKB,
	MEMO_NAPI,
	MEMO_TXTMO,
	MEMO_DROP,
	MEMO_RETRANS,
	MEMO_XDP,
	MEMO_ROWS
};

struct slot_memo {
	struct slot_memo_last last[MEMO_ROWS];
	struct slot_memo_entry e[MEMO_ROWS][MEMO_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot_memo);
} slot_memo SEC(".maps");

/* This CPU's memo: one array element, so the lookup is inlined to a per-CPU offset. */
static __always_inline struct slot_memo *cpu_memo(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&slot_memo, &zero);
}

/* The filter's slot for (netns, ifindex). Hit path: no helper call (the per-CPU array
 * lookups are inlined by the verifier). */
static __always_inline __u32 slot_of(__u32 row, void *filter, __u32 netns, __u32 ifindex)
{
	struct rtl_iface_key key = {.netns = netns, .ifindex = ifindex};
	/* Read the generation before the lookup: a filter change racing with us leaves an
	 * entry stamped with the old generation, which the next event will not trust. */
	__u32 gen = *(volatile __u32 *)&filter_gen, slot = SLOT_NONE, *found;
	struct slot_memo_entry *e;
	struct slot_memo *memo;

	memo = cpu_memo();
	if (!memo || row >= MEMO_ROWS)
		return SLOT_NONE;
	e = &memo->e[row][(netns ^ ifindex) & (MEMO_WAYS - 1)];
	if (e->gen == gen && e->netns == netns && e->ifindex == ifindex)
		return e->slot;
	found = bpf_map_lookup_elem(filter, &key);
	if (found)
		slot = *found;
	e->gen = MEMO_GEN_INVALID;
	e->netns = netns;
	e->ifindex = ifindex;
	e->slot = slot;
	e->gen = gen;
	return slot;
}

static __always_inline struct rtl_slot_stats *slot_stats_of(__u32 slot, __u32 *slotp)
{
	if (slot == SLOT_NONE)
		return NULL;
	if (slotp)
		*slotp = slot;
	return bpf_map_lookup_elem(&slot_stats, &slot);
}

/*
 * A per-CPU slot's stats for the device, or NULL when it is not selected. In front of the
 * memo sits the device of the program's last event, known by its address and ifindex:
 * then the namespace, a pointer chase into a line of struct net that the stack's fast path
 * does not touch, is not read at all. A device freed and another allocated at its address
 * with its ifindex in another namespace would pass for it until the next filter change;
 * the (netns inode, ifindex) key of the filter itself has the same exposure to reuse.
 */
static __always_inline struct rtl_slot_stats *dev_stats(__u32 row, const struct net_device *dev,
							bool btf, __u32 *slotp)
{
	__u32 gen = *(volatile __u32 *)&filter_gen, ifindex, netns, slot;
	struct slot_memo_last *last;
	struct slot_memo *memo;

	if (!dev)
		return NULL;
	ifindex = btf ? dev->ifindex : BPF_CORE_READ(dev, ifindex);
	memo = cpu_memo();
	if (!memo || row >= MEMO_ROWS)
		return NULL;
	last = &memo->last[row];
	if (last->dev == (__u64)dev && last->ifindex == ifindex && last->gen == gen)
		return slot_stats_of(last->slot, slotp);
	netns = btf ? dev->nd_net.net->ns.inum : BPF_CORE_READ(dev, nd_net.net, ns.inum);
	slot = slot_of(row, &iface_slot, netns, ifindex);
	last->gen = MEMO_GEN_INVALID;
	last->dev = (__u64)dev;
	last->ifindex = ifindex;
	last->slot = slot;
	last->gen = gen;
	return slot_stats_of(slot, slotp);
}

/* The device's slot, or the host slot (filter key (0, 0)) for events without a device. */
static __always_inline struct rtl_slot_stats *
dev_or_host_stats(__u32 row, const struct net_device *dev, bool btf, __u32 *slotp)
{
	if (dev)
		return dev_stats(row, dev, btf, slotp);
	return slot_stats_of(slot_of(row, &iface_slot, 0, 0), slotp);
}

/*
 * The sampled event (struct rtl_sampler): its weight, the block's rate check, the next
 * gap. A subprogram of its own, not inlined: it runs for one event in 2^shift, and out
 * of line the path every event takes stays short and in few cache lines. --exact comes
 * here for every event (the countdown stays at 1) and takes weight 1.
 */
static __noinline __u32 sample_hit(__u32 *countdown, struct rtl_sampler *s)
{
	int block_end;
	__u32 w;

	if (exact_histograms) {
		*countdown = 1;
		return 1;
	}
	w = rtl_sample_hit(s, &block_end);
	if (block_end)
		rtl_sample_block_end(s, bpf_ktime_get_ns(), bpf_get_prandom_u32());
	*countdown = rtl_sample_next(s);
	return w;
}

/* The weight of this event's bucket update, 0 when it is not sampled: an event that is
 * not sampled costs one decrement, in the slot's hot lines. */
static __always_inline __u32 sample(__u32 *countdown, struct rtl_sampler *s)
{
	if (*countdown > 1) {
		(*countdown)--;
		return 0;
	}
	return sample_hit(countdown, s);
}

/* A sampled event's bucket: out of line for the same reason as sample_hit(). */
static __noinline void bucket_add(struct rtl_family_buckets *b, __u64 v, __u32 w)
{
	__u64 i = rtl_hist_index(v);

	/* The verifier cannot follow the bit tricks in rtl_hist_index: bound i again, in a
	 * 64-bit register (a u32 gets zero-extended once for the test and once more for the
	 * index, and the verifier learns the bound on the first copy only). */
	barrier_var(i);
	if (i >= RTL_HIST_BUCKETS)
		i = RTL_HIST_BUCKETS - 1;
	b->buckets[i] += w;
	b->samples++;
}

/* One event of a family: its count and sum always, its bucket when sampled (weight w). */
static __always_inline void family_add(struct rtl_family_sum *f, struct rtl_family_buckets *b,
				       __u64 v, __u32 w)
{
	f->count++;
	f->sum += v;
	if (w)
		bucket_add(b, v, w);
}

/*
 * skb_shinfo(): the shared info sits at head + end (end is an offset on 64-bit); *headp
 * gets head. Typed for direct loads in tp_btf programs (RD() then reads it either way).
 */
static __always_inline struct skb_shared_info *shinfo_of(const struct sk_buff *skb, bool btf,
							 unsigned char **headp)
{
	unsigned char *head = RD(btf, skb, head);
	__u32 end = RD(btf, skb, end);

	*headp = head;
	if (btf)
		return bpf_rdonly_cast(head + end, bpf_core_type_id_kernel(struct skb_shared_info));
	return (struct skb_shared_info *)(head + end);
}

static __always_inline int on_start_xmit(const struct sk_buff *skb, const struct net_device *dev,
					 bool btf)
{
	struct skb_shared_info *shinfo;
	struct rtl_slot_stats *st;
	unsigned char *head;
	__u16 gso_size, gso_segs;
	__u32 len, w;

	if (empty_bodies)
		return 0;
	st = dev_stats(MEMO_TXSTART, dev, btf, NULL);
	if (!st)
		return 0;
	len = RD(btf, skb, len);
	/* read for every skb: the GSO count and sums are exact, like the packet count */
	shinfo = shinfo_of(skb, btf, &head);
	gso_size = RD(btf, shinfo, gso_size);
	gso_segs = gso_size ? RD(btf, shinfo, gso_segs) : 0;
	w = sample(&st->tx_countdown, &st->tx_sampler);
	family_add(&st->tx_skb_bytes, &st->tx_skb_bytes_b, len, w);
	if (!gso_size)
		return 0;
	family_add(&st->tx_gso_size, &st->tx_gso_size_b, gso_size, w);
	family_add(&st->tx_gso_segs, &st->tx_gso_segs_b, gso_segs, w);
	st->tx_gso_bytes += len;
	return 0;
}

static __always_inline int on_xmit_timeout(const struct net_device *dev, bool btf)
{
	struct rtl_slot_stats *st = dev_stats(MEMO_TXTMO, dev, btf, NULL);

	if (st)
		st->tx_timeouts++;
	return 0;
}

/* More frames than any GSO skb of a sane gso_size holds (512 KiB BIG TCP skbs of 536-byte
 * segments: 978), where the kernel gave no count of its own to check k against. */
#define RX_GSO_MAX_FRAMES 1024

/*
 * The frames a received skb was built from, rebuilt from the skb: the count, *full the
 * size of each but the last, *last the last one's. GRO merges only segments of one flow
 * with identical headers, each of gso_size payload but the last (tcp_gro_receive() and
 * udp_gro_receive_segment() end a merge at the first shorter one), and a GSO skb a peer
 * hands over whole (a veth peer's TSO skb, LRO) was cut the same way. So each frame is the
 * headers up to the end of the transport header plus gso_size, the last what remains.
 */
static __always_inline __u32 rx_gso_frames(const struct sk_buff *skb, unsigned char *head,
					   __u32 start, __u32 frame, __u32 gso_size, __u32 gso_segs,
					   __u32 gso_type, bool btf, __u32 *full, __u32 *last)
{
	/* the gso_type bits are not an enum BTF can relocate; the bits used here have
	 * kept their values since 4.18 (SKB_GSO_UDP_L4) */
	const __u32 tunnel = SKB_GSO_GRE | SKB_GSO_GRE_CSUM | SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6 |
			     SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM;
	/* cut some other way than "headers + gso_size each" (ESP, GSO_PARTIAL's outer
	 * headers, SCTP chunks, UFO fragments): one frame */
	const __u32 other = SKB_GSO_ESP | SKB_GSO_PARTIAL | SKB_GSO_SCTP | SKB_GSO_UDP;
	struct tcphdr *tcph;
	__u32 th, l4, hdr, k, payload;
	__u8 doff = 0;

	if (gso_type & other)
		return 1;

	/* A tunnel's skb is cut by its inner transport header: the outer headers repeat in
	 * every frame all the same. */
	th = gso_type & tunnel ? RD(btf, skb, inner_transport_header)
			       : RD(btf, skb, transport_header);
	if (th == 0xffff || th <= start)
		return 1;
	if (gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
		if (btf) {
			tcph = bpf_rdonly_cast(head + th, bpf_core_type_id_kernel(struct tcphdr));
			l4 = (__u32)tcph->doff * 4;
		} else {
			/* doff, in 32-bit words: the high nibble of byte 12 */
			if (bpf_probe_read_kernel(&doff, 1, head + th + 12))
				return 1;
			l4 = (__u32)(doff >> 4) * 4;
		}
		if (l4 < 20)
			return 1; /* no TCP header */
	} else if (gso_type & SKB_GSO_UDP_L4) {
		l4 = 8;
	} else {
		return 1;
	}
	hdr = th - start + l4;
	if (hdr >= 512 || frame <= hdr)
		return 1;
	payload = frame - hdr;
	k = (payload + gso_size - 1) / gso_size;
	if (gso_segs && gso_segs != k) {
		/* The kernel's own count disagrees: a driver's LRO that sets gso_size to an
		 * average. Its count, of equal frames (the remainder in the last). */
		k = gso_segs;
		*full = hdr + payload / k;
		*last = frame - (k - 1) * (payload / k);
		return k;
	}
	if (!gso_segs && k > RX_GSO_MAX_FRAMES)
		return 1; /* gso_size from user space (virtio, tun: SKB_GSO_DODGY), not sane */
	*full = hdr + gso_size;
	*last = frame - (k - 1) * gso_size;
	return k;
}

struct rx_frames_walk {
	struct rtl_slot_stats *st;
	__u32 k;    /* frames in the skb */
	__u32 full; /* the size of each but the last */
	__u32 last; /* the last one's */
	__u32 pos;  /* the next sampled frame, 1..k; past k when the walk is done */
};

/* bpf_loop(): one sampled frame of the skb into its bucket, and the place of the next. */
static long rx_frames_step(__u64 i, void *arg)
{
	struct rx_frames_walk *w = arg;
	struct rtl_slot_stats *st = w->st;

	if (w->pos > w->k)
		return 1;
	bucket_add(&st->rx_frame_bytes_b, w->pos == w->k ? w->last : w->full,
		   sample_hit(&st->rx_frame_countdown, &st->rx_frame_sampler));
	w->pos += st->rx_frame_countdown;
	return 0;
}

/* The skb's frames that the countdown reaches: each sampled as if it had come alone. */
static __noinline void rx_frames_sampled(struct rtl_slot_stats *st, __u32 k, __u32 full, __u32 last)
{
	struct rx_frames_walk w = {
		.st = st,
		.k = k,
		.full = full,
		.last = last,
		.pos = st->rx_frame_countdown ? st->rx_frame_countdown : 1,
	};

	bpf_loop(k, rx_frames_step, &w, 0);
	st->rx_frame_countdown = w.pos > k ? w.pos - k : 1;
}

/*
 * netif_receive_skb fires once per skb entering the protocol stack, after GRO: the skb
 * itself into rx_skb_bytes, and the frames it came as into rx_frame_bytes: one program
 * per skb, where one on each of the five driver entry points (napi_gro_receive, ...,
 * netif_rx) ran once per frame, 2.3% of the CPU on the per-frame path (docs/probes.md).
 */
static __always_inline int on_rx_skb(const struct sk_buff *skb, bool btf)
{
	struct skb_shared_info *shinfo;
	struct rtl_slot_stats *st;
	unsigned char *head;
	__u32 frame, k = 1, full = 0, last, start, data;
	__u16 gso_size, mac;

	if (empty_bodies)
		return 0;
	st = dev_stats(MEMO_RXSKB, RD(btf, skb, dev), btf, NULL);
	if (!st)
		return 0;
	/* The frame as the driver handed it over: eth_type_trans() (or napi_frags_skb()) has
	 * pulled the link-layer header already, so it starts at the MAC header when one is
	 * recorded (at most 255 bytes before data), else at data. Same convention as TX,
	 * where skb->len starts at the MAC header. */
	shinfo = shinfo_of(skb, btf, &head);
	data = (__u32)(RD(btf, skb, data) - head);
	mac = RD(btf, skb, mac_header);
	start = mac != (__u16)~0U && mac < data && data - mac < 256 ? mac : data;
	frame = RD(btf, skb, len) + data - start;
	family_add(&st->rx_skb_bytes, &st->rx_skb_bytes_b, frame,
		   sample(&st->rx_skb_countdown, &st->rx_skb_sampler));
	last = frame;
	gso_size = RD(btf, shinfo, gso_size);
	if (gso_size)
		k = rx_gso_frames(skb, head, start, frame, gso_size, RD(btf, shinfo, gso_segs),
				  RD(btf, shinfo, gso_type), btf, &full, &last);
	st->rx_frame_bytes.count += k;
	st->rx_frame_bytes.sum += (__u64)(k - 1) * full + last;
	if (st->rx_frame_countdown > k) {
		st->rx_frame_countdown -= k;
		return 0;
	}
	rx_frames_sampled(st, k, full, last);
	return 0;
}

static __always_inline int on_napi_poll(const struct napi_struct *napi, int work, int budget,
					bool btf)
{
	/* The per-CPU backlog (netif_rx) has no device: it counts for the host. */
	struct rtl_slot_stats *st = dev_or_host_stats(MEMO_NAPI, RD(btf, napi, dev), btf, NULL);

	if (!st)
		return 0;
	st->napi_polls++;
	if (work >= budget)
		st->napi_budget_exhausted++;
	return 0;
}

static __always_inline int on_kfree_skb(const struct sk_buff *skb, __u32 reason, bool btf)
{
	struct rtl_drop_key key = {.reason = reason};
	struct rtl_slot_stats *st;
	__u64 one = 1, *cnt;

	st = dev_or_host_stats(MEMO_DROP, RD(btf, skb, dev), btf, &key.slot);
	if (!st)
		return 0;
	st->drops++;
	cnt = bpf_map_lookup_elem(&drop_reasons, &key);
	if (cnt)
		(*cnt)++;
	else
		bpf_map_update_elem(&drop_reasons, &key, &one, BPF_NOEXIST);
	return 0;
}

/*
 * The retransmitted skb sits in the write queue and rarely has skb->dev yet: take the
 * device from the socket's cached route, then skb->dev, else count it for the host.
 */
static __always_inline int on_tcp_retransmit(const struct sock *sk, const struct sk_buff *skb,
					     bool btf)
{
	const struct net_device *dev = NULL;
	struct dst_entry *dst;
	struct tcp_skb_cb *cb;
	struct rtl_slot_stats *st;

	dst = RD(btf, sk, sk_dst_cache);
	if (dst)
		dev = RD(btf, dst, dev);
	if (!dev)
		dev = RD(btf, skb, dev);
	st = dev_or_host_stats(MEMO_RETRANS, dev, btf, NULL);
	if (!st)
		return 0;
	st->tcp_retransmits++;
	/* tcp_skb_pcount(): the segment count TCP keeps in skb->cb. */
	cb = (struct tcp_skb_cb *)((void *)skb + bpf_core_field_offset(struct sk_buff, cb));
	st->tcp_retransmit_segs += BPF_CORE_READ(cb, tcp_gso_segs);
	return 0;
}

/* One tp_btf and one raw_tp program per hook; NAME is the program name's stem. */
#define TP_PAIR(name, tp, proto, call)                                                             \
	SEC("tp_btf/" #tp)                                                                         \
	int BPF_PROG(rtl_##name##_btf, proto)                                                      \
	{                                                                                          \
		const bool btf = true;                                                             \
		return call;                                                                       \
	}                                                                                          \
	SEC("raw_tp/" #tp)                                                                         \
	int BPF_PROG(rtl_##name##_raw, proto)                                                      \
	{                                                                                          \
		const bool btf = false;                                                            \
		return call;                                                                       \
	}

#define ARGS(...) __VA_ARGS__

TP_PAIR(txstart, net_dev_start_xmit, ARGS(const struct sk_buff *skb, const struct net_device *dev),
	on_start_xmit(skb, dev, btf))
TP_PAIR(txtmo, net_dev_xmit_timeout, ARGS(struct net_device *dev, int queue_index),
	on_xmit_timeout(dev, btf))
TP_PAIR(rxskb, netif_receive_skb, ARGS(struct sk_buff *skb), on_rx_skb(skb, btf))
TP_PAIR(napi, napi_poll, ARGS(struct napi_struct *napi, int work, int budget),
	on_napi_poll(napi, work, budget, btf))

/*
 * kfree_skb and tcp_retransmit_skb grew an argument over time. Read ctx[2] only where the
 * kernel has it: the verifier rejects (tp_btf) or the attach refuses (raw_tp) a program
 * that touches an argument past the end, and the rodata flag makes the read dead code.
 */
static __always_inline int kfree_skb_ctx(__u64 *ctx, bool btf)
{
	__u32 reason = 0; /* SKB_DROP_REASON_NOT_SPECIFIED is 2; 0 = not reported */

	if (kfree_skb_has_reason)
		reason = (__u32)ctx[2];
	return on_kfree_skb((const struct sk_buff *)ctx[0], reason, btf);
}

SEC("tp_btf/kfree_skb")
int rtl_drop_btf(__u64 *ctx)
{
	return kfree_skb_ctx(ctx, true);
}

SEC("raw_tp/kfree_skb")
int rtl_drop_raw(__u64 *ctx)
{
	return kfree_skb_ctx(ctx, false);
}

static __always_inline int tcp_retransmit_ctx(__u64 *ctx, bool btf)
{
	/* Since 6.13 the hook also fires for failed attempts; only sent ones count. */
	if (tcp_retransmit_has_err && (int)ctx[2] != 0)
		return 0;
	return on_tcp_retransmit((const struct sock *)ctx[0], (const struct sk_buff *)ctx[1], btf);
}

SEC("tp_btf/tcp_retransmit_skb")
int rtl_retrans_btf(__u64 *ctx)
{
	return tcp_retransmit_ctx(ctx, true);
}

SEC("raw_tp/tcp_retransmit_skb")
int rtl_retrans_raw(__u64 *ctx)
{
	return tcp_retransmit_ctx(ctx, false);
}

/* Optional: frame sizes as the driver sees them, before any skb exists. */
SEC("xdp.frags")
int rtl_xdp(struct xdp_md *ctx)
{
	__u32 slot = slot_of(MEMO_XDP, &xdp_slot, 0, ctx->ingress_ifindex);
	struct rtl_slot_stats *st = slot_stats_of(slot, NULL);

	if (st)
		family_add(&st->rx_xdp_frame_bytes, &st->rx_xdp_frame_bytes_b,
			   bpf_xdp_get_buff_len(ctx),
			   sample(&st->rx_xdp_countdown, &st->rx_xdp_sampler));
	return XDP_PASS;
}

/* With run-time stats on, the cost of an empty program on the busiest hook: what the
 * stats themselves and the call add, to subtract from the others' ns per run. */
SEC("tp_btf/net_dev_start_xmit")
int rtl_floor(void *ctx)
{
	return 0;
}
