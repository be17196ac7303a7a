#!/bin/bash
# The tuner leaves spurious retransmits out of its fault rates (docs/tuning.md "Spurious
# retransmits are not loss"). `status` gives per interface tuner.retransmit_segments:
# `counted`, the segments TCP retransmitted through it, and `spurious`, those the
# namespace's DSACKs showed spurious, which the tuner's rates leave out.
#  1. Reordering, nothing lost: iperf3's client on CPU 0, its server on CPU 1. A veth
#     delivers through the backlog of the CPU that transmits, and the sender transmits
#     from CPU 0 (its writes) and from CPU 1 (where the ACKs that open its window are
#     processed), so segments overtake each other: TCP retransmits some and the receiver
#     DSACKs them. Asserted: the namespace DSACKed most of what it retransmitted (the
#     set-up did what it is for), and the daemon took at least 80% of what it counted
#     as spurious.
#  2. Loss, nothing reordered: both ends on CPU 1, the fault injector stealing 5% of the
#     skbs above 16 KiB at ta's egress. Asserted: the daemon counted at least 90% of the
#     segments stolen, and took at most a tenth of what it counted as spurious.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"

FAULTINJ=${FAULTINJ:-$TOP/build/tests/tools/faultinj}
[ -x "$FAULTINJ" ] || t_fail "$FAULTINJ not built (make check builds tests/tools/*)"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
[ "$(nproc)" -ge 2 ] || t_skip "one CPU: no second backlog to reorder through"

tn_setup
tn_conf "$T_TMP/rtltuned.conf"
d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail

# ns_dsack: the sender namespace's TCPDSACKRecvSegs, "" without it.
ns_dsack() { t_tcp_dsack "$TN_A"; }
[ -n "$(ns_dsack)" ] || t_skip "the kernel has no TCPDSACKRecvSegs: nothing to discount"
seg() { d_rtl --json status ta | jq -r ".interfaces[0].tuner.retransmit_segments.$1"; }
# flow CPUS: one 2 s bulk flow, client,server affinity CPUS; sets the namespace's
# retransmitted and DSACKed segments (NS_R, NS_D) and the daemon's counted and spurious
# ones (D_C, D_S) over it.
flow() {
	local c r0 d0 c0 s0
	d_wait_samples 2
	c=($(t_tcp_counts "$TN_A"))
	r0=${c[0]} d0=$(ns_dsack) c0=$(seg counted) s0=$(seg spurious)
	t_in "$TN_A" iperf3 -c $TN_DST -A "$1" -t 2 >/dev/null || t_fail "iperf3 -A $1 failed"
	# Two samples after the flow: the daemon has counted all of it.
	d_wait_samples 2
	c=($(t_tcp_counts "$TN_A"))
	NS_R=$((c[0] - r0)) NS_D=$(($(ns_dsack) - d0))
	D_C=$(($(seg counted) - c0)) D_S=$(($(seg spurious) - s0))
	t_log "iperf3 -A $1: namespace $NS_R segments retransmitted, $NS_D DSACKed;" \
		"rtltuned counted $D_C through ta, $D_S of them spurious"
}

# 1. Reordering: up to three flows until one retransmits enough to judge.
for try in 1 2 3; do
	flow 0,1
	[ "$NS_R" -ge 200 ] && break
done
[ "$NS_R" -ge 200 ] ||
	t_skip "no reordering across the CPUs here: $NS_R segments retransmitted in 3 flows"
t_ge $((10 * NS_D)) $((8 * NS_R)) \
	"10 x DSACKed vs 8 x retransmitted segments in the namespace (reordering, not loss)"
t_ge "$D_C" $((NS_R / 2)) "segments rtltuned counted through ta vs half the namespace's"
t_ge $((10 * D_S)) $((8 * D_C)) "10 x spurious vs 8 x counted (rtltuned left the reordering out)"

# 2. Loss on one CPU.
t_in "$TN_A" "$FAULTINJ" attach ta --fraction 0.05 --min-len 16384
t_defer "ip netns exec $TN_A $FAULTINJ detach ta 2>/dev/null"
stolen0=$(t_in "$TN_A" "$FAULTINJ" stats ta | awk '$1 == "dropped_segs" { print $2 }')
flow 1,1
stolen=$(($(t_in "$TN_A" "$FAULTINJ" stats ta | awk '$1 == "dropped_segs" { print $2 }') - stolen0))
t_log "injector: $stolen segments stolen"
t_ge "$stolen" 200 "segments stolen by the injector"
t_ge $((10 * D_C)) $((9 * stolen)) "10 x counted vs 9 x stolen segments"
t_le $((10 * D_S)) "$D_C" "10 x spurious vs counted (losses are not DSACKed)"
tn_done
