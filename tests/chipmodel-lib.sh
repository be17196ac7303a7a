#!/bin/bash
# Chip models on a test's veth pair (docs/chipmodels.md). Source after lib.sh:
#	. "$(dirname "$0")/../lib.sh"; . "$TOP/tests/chipmodel-lib.sh"
#
# cm_pair makes the pair: sender CM_NSA/va (10.78.0.1), receiver CM_NSB/vb (10.78.0.2),
# no IPv6, neighbours fixed, GRO off on vb (the models read a GSO skb at vb as the sender's
# TSO burst, which GRO would fake). The models go on vb's tc ingress:
#	cm_frame_cost NS_PER_FRAME            1. CPU-bound receiver (0: off)
#	cm_burst_cost BURST_BYTES NS [OFFSET]  2. DMA bursts, steps at k*BURST+OFFSET (0: off)
#	cm_burst_loss RING_FRAMES DRAIN_NS     3. ring overrun by big bursts (0 0: off)
#	cm_tso_storm FRACTION                  4. TSO super-packets lost (0: off)
#	cm_skb_cost NS_PER_SKB                 5. per-skb cost, whatever the size (0: off)
#	cm_off / cm_on                         every model at once, sizes kept
#	cm_stat KEY                            one counter of `chipmodel stats`
# Measurements: cm_serve starts tcpstream's server on vb; cm_stream SECONDS runs one new
# connection and sets CM_GBIT (receiver's Gbit/s), CM_RETRANS, CM_SEGS, CM_PPM, CM_MSS, and
# CM_DSACK (retransmits the receiver got twice: spurious, docs/tuning.md) with CM_LOSS_PPM,
# the retransmits left per million segments (the ones that were lost).
# cm_mtu MTU sets both ends. cm_chip_dir SEED points RTLTUNE_CHIP_PATH at tests/chips/SEED.conf.

CHIPMODEL=${CHIPMODEL:-$TOP/build/tests/tools/chipmodel}
TCPSTREAM=${TCPSTREAM:-$TOP/build/tests/tools/tcpstream}
[ -x "$CHIPMODEL" ] || t_fail "$CHIPMODEL not built (make check builds tests/tools/*)"
[ -x "$TCPSTREAM" ] || t_fail "$TCPSTREAM not built (make check builds tests/tools/*)"
CM_ADDR_A=10.78.0.1
CM_ADDR_B=10.78.0.2
CM_PORT=5301
CM_ATTACHED=0

cm_pair() {
	CM_NSA=$(t_netns cma)
	CM_NSB=$(t_netns cmb)
	t_veth_pair "$CM_NSA" va "$CM_NSB" vb
	t_silence "$CM_NSA" va
	t_silence "$CM_NSB" vb
	ip -n "$CM_NSA" addr add $CM_ADDR_A/24 dev va
	ip -n "$CM_NSB" addr add $CM_ADDR_B/24 dev vb
	ip -n "$CM_NSA" neigh replace $CM_ADDR_B lladdr "$(t_ip_attr "$CM_NSB" vb address)" dev va nud permanent
	ip -n "$CM_NSB" neigh replace $CM_ADDR_A lladdr "$(t_ip_attr "$CM_NSA" va address)" dev vb nud permanent
	t_in "$CM_NSB" ethtool -K vb gro off
	[ "$(t_feature "$CM_NSB" vb generic-receive-offload)" == off ] ||
		t_fail "GRO still on at vb: the models would count GRO-merged skbs as TSO bursts"
}

# Attach on first use with every model off, then each helper sets only its own knobs.
cm_ensure() {
	[ "$CM_ATTACHED" -eq 1 ] && return 0
	t_in "$CM_NSB" "$CHIPMODEL" attach vb >/dev/null
	CM_ATTACHED=1
}
cm_set() { cm_ensure; t_in "$CM_NSB" "$CHIPMODEL" set vb "$@" >/dev/null; }
cm_frame_cost() { cm_set --frame-ns "$1"; }
cm_burst_cost() { cm_set --burst-bytes "$1" --burst-ns "$2" --burst-offset "${3:-52}"; }
cm_burst_loss() { cm_set --ring-frames "$1" --drain-ns "$2"; }
cm_tso_storm() { cm_set --tso-drop "$1"; }
cm_skb_cost() { cm_set --skb-ns "$1"; }
cm_off() { cm_set --off; }
cm_on() { cm_set --on; }
cm_detach() {
	[ "$CM_ATTACHED" -eq 1 ] || return 0
	t_in "$CM_NSB" "$CHIPMODEL" detach vb >/dev/null
	CM_ATTACHED=0
}
cm_stat() { t_in "$CM_NSB" "$CHIPMODEL" stats vb | awk -v k="$1" '$1 == k { print $2 }'; }

# Both ends: a larger MTU only reaches the wire when the receiver takes it too.
cm_mtu() {
	ip -n "$CM_NSA" link set dev va mtu "$1"
	ip -n "$CM_NSB" link set dev vb mtu "$1"
}

# tso/gso on|off on the sender (ethtool's tso covers tx-tcp6-segmentation too).
cm_sender_offload() { t_in "$CM_NSA" ethtool -K va tso "$1" gso "$2"; }

# cm_serve [--concurrent]: the server for cm_stream and cm_loop_start (--concurrent: for
# several loops at once).
cm_serve() {
	t_in "$CM_NSB" "$TCPSTREAM" serve $CM_ADDR_B $CM_PORT --pidfile "$T_TMP/tcpstream.pid" "$@"
	t_defer "kill \$(cat '$T_TMP/tcpstream.pid') 2>/dev/null"
}

# cm_stream SECONDS: one new connection (new MSS, new GSO limits) from va to vb.
cm_stream() {
	local out
	out=$(t_in "$CM_NSA" "$TCPSTREAM" send $CM_ADDR_B $CM_PORT --seconds "$1") ||
		t_fail "tcpstream send failed"
	CM_GBIT=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "gbit_s") print $(i + 1) }' <<<"$out")
	CM_RETRANS=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "retrans") print $(i + 1) }' <<<"$out")
	CM_SEGS=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "segs_out") print $(i + 1) }' <<<"$out")
	CM_PPM=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "retrans_ppm") print $(i + 1) }' <<<"$out")
	CM_MSS=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "mss") print $(i + 1) }' <<<"$out")
	CM_DSACK=$(awk '{ for (i = 1; i < NF; i += 2) if ($i == "dsack_dups") print $(i + 1) }' <<<"$out")
	cm_loss_ppm
}
# CM_LOSS_PPM from CM_RETRANS, CM_DSACK and CM_SEGS.
cm_loss_ppm() {
	CM_LOSS_PPM=$(((CM_RETRANS - CM_DSACK) * 1000000 / (CM_SEGS > 0 ? CM_SEGS : 1)))
}

# cm_loop_start SECONDS [N]: new connections from va to vb without pause, each SECONDS
# long, in N loops (default 1; more need cm_serve --concurrent) started SECONDS / N apart, in the background until the test
# ends (traffic for rtltune sweep and rtltuned to measure; an MTU reaches a connection at
# its handshake). cm_loop_stop ends them.
CM_LOOPS=()
cm_loop_start() {
	local i n=${2:-1}
	for ((i = 0; i < n; i++)); do
		(while :; do
			t_in "$CM_NSA" "$TCPSTREAM" send $CM_ADDR_B $CM_PORT --seconds "$1" >/dev/null 2>&1 || sleep 0.1
		done) &
		CM_LOOPS+=($!)
		[ $((i + 1)) -lt "$n" ] && sleep "$(awk -v s="$1" -v n="$n" 'BEGIN { print s / n }')"
	done
	t_defer cm_loop_stop
}
# The connection each loop had in flight ends within its SECONDS (a collapsed one may take
# longer): cm_loop_stop waits for it, bounded.
cm_loop_stop() {
	t_stop_loops "$CM_NSA" 'tcpstream send ' "${CM_LOOPS[@]}"
	CM_LOOPS=()
}

# cm_best SECONDS N: the best of N streams in CM_GBIT (noise on a shared machine only
# ever lowers a CPU-bound rate), the others' retransmits summed into CM_RETRANS/CM_SEGS
# (and CM_DSACK, CM_PPM, CM_LOSS_PPM over the sums).
cm_best() {
	local best=0 r=0 s=0 d=0 i
	for ((i = 0; i < $2; i++)); do
		cm_stream "$1"
		r=$((r + CM_RETRANS)) s=$((s + CM_SEGS)) d=$((d + CM_DSACK))
		best=$(awk -v a="$best" -v b="$CM_GBIT" 'BEGIN { print (b > a ? b : a) }')
	done
	CM_GBIT=$best CM_RETRANS=$r CM_SEGS=$s CM_DSACK=$d
	CM_PPM=$((r * 1000000 / (s > 0 ? s : 1)))
	cm_loss_ppm
}

# A ratio with 3 decimals: cm_ratio A B -> A/B; cm_ge_ratio A B MIN WHAT fails unless A/B >= MIN.
cm_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
cm_ge_ratio() {
	local q
	q=$(cm_ratio "$1" "$2")
	awk -v q="$q" -v m="$3" 'BEGIN { exit !(q >= m) }' || t_fail "$4: ratio $q < $3 ($1 / $2)"
	echo "ok: $4 (ratio $q >= $3)"
}
cm_le_ratio() {
	local q
	q=$(cm_ratio "$1" "$2")
	awk -v q="$q" -v m="$3" 'BEGIN { exit !(q <= m) }' || t_fail "$4: ratio $q > $3 ($1 / $2)"
	echo "ok: $4 (ratio $q <= $3)"
}

# cm_chip_dir SEED: t_chip_dir (tests/lib.sh) for a seed's test chip file.
cm_chip_dir() { t_chip_dir "$1"; }
