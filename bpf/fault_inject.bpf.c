// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only fault injector (tests/tools/faultinj.c loads it): a tc clsact egress program
 * that drops a fraction of large GSO skbs, emulating a TSO engine that mangles big bursts
 * (the i.MX6 fec and RTL8126 field reports: retransmits with TSO on). A dropped GSO skb
 * loses every segment it would have become, so TCP sees a burst loss and retransmits;
 * with gso_max_size below min_len no skb qualifies and the loss stops, which is the
 * cause-and-effect the tuner must find.
 *
 * The skb is stolen, not shot: TC_ACT_SHOT returns NET_XMIT_DROP to the sender, and TCP
 * then keeps the skb queued and sends it again without counting a retransmit (a local
 * congestion signal, tcp_enter_cwr). TC_ACT_STOLEN reports success and frees it, so the
 * data is lost silently, as on a wire behind a broken TSO engine: the receiver SACKs the
 * hole and the sender retransmits.
 *
 * It runs before software GSO (validate_xmit_skb segments after the qdisc layer), so
 * on veth turning TSO off does not make the emulated fault go away; gso_max_size does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "fault_inject.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_OK     0
#define TC_ACT_STOLEN 4

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct faultinj_cfg);
} rtl_fi_cfg SEC(".maps");

/* Per-CPU: no shared cache line on the packet path; the tool sums the CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct faultinj_stats);
} rtl_fi_stats SEC(".maps");

SEC("tc")
int rtl_faultinj(struct __sk_buff *skb)
{
	struct faultinj_stats *st;
	struct faultinj_cfg *cfg;
	__u32 zero = 0, segs;

	cfg = bpf_map_lookup_elem(&rtl_fi_cfg, &zero);
	st = bpf_map_lookup_elem(&rtl_fi_stats, &zero);
	if (!cfg || !st)
		return TC_ACT_OK;
	st->seen++;
	segs = skb->gso_segs;
	if (segs > 1)
		st->gso++;
	if (!cfg->enabled || skb->len <= cfg->min_len || (cfg->gso_only && segs <= 1))
		return TC_ACT_OK;
	st->eligible++;
	if ((__u64)bpf_get_prandom_u32() >= cfg->threshold)
		return TC_ACT_OK;
	st->dropped++;
	st->dropped_segs += segs > 1 ? segs : 1;
	st->dropped_bytes += skb->len;
	return TC_ACT_STOLEN;
}
