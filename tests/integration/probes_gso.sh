#!/bin/bash
# Acceptance (issue 4): TCP bulk over a veth pair. With gso_max_size 16384 on the sender no
# TX skb is longer than 16384 and the segment counts agree with the MSS; with 65536 most
# GSO skbs are longer than 32 KiB.
. "$(dirname "$0")/../lib.sh"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" va "$B" vb
ip -n "$A" addr add 10.78.0.1/24 dev va
ip -n "$B" addr add 10.78.0.2/24 dev vb
MTU=$(t_ip_attr "$A" va mtu)
# IPv4 20 + TCP 20 + timestamps 12: the MSS and the per-segment header TCP puts in each
# GSO skb (plus 14 bytes of Ethernet).
t_eq "$(t_in "$A" sysctl -n net.ipv4.tcp_timestamps)" 1 "TCP timestamps on (MSS = MTU - 52)"
MSS=$((MTU - 52))
HDR=$((14 + 52))

# trace_bulk GSO_MAX_SIZE OUT: count on va while iperf3 sends for 2 s.
trace_bulk() {
	local out=$T_TMP/$2 pid i
	ip -n "$A" link set dev va gso_max_size "$1"
	t_eq "$(t_ip_attr "$A" va gso_max_size)" "$1" "va gso_max_size"
	t_in "$B" iperf3 -s -1 -B 10.78.0.2 >/dev/null 2>&1 &
	t_defer "kill -9 $! 2>/dev/null || true"
	for ((i = 0; i < 100; i++)); do
		t_in "$B" ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.05
	done
	ip netns exec "$A" "$RTLTUNE" trace va --json >"$out.json" 2>"$out.err" &
	pid=$!
	t_defer "kill -9 $pid 2>/dev/null || true"
	for ((i = 0; i < 200; i++)); do
		grep -q '^Tracing' "$out.err" && break
		kill -0 "$pid" 2>/dev/null || t_fail "trace: $(cat "$out.err")"
		sleep 0.05
	done
	t_in "$A" iperf3 -c 10.78.0.2 -t 2 -J >"$out.iperf.json" || t_fail "iperf3 failed"
	kill -INT "$pid"
	wait "$pid" || t_fail "trace exited with $?"
	t_log "$1: $(jq -c '.interfaces[0] | {tx_packets, tx_gso_packets, tx_skb_bytes: .tx_skb_bytes.buckets, tx_gso_segments: .tx_gso_segments.buckets}' "$out.json")"
}

# check_mss OUT: every GSO skb carries gso_size = MSS, and the segment counts fit the
# payloads: for each skb (segs - 1) * MSS < payload <= segs * MSS, so summed over C skbs
# (S - C) * MSS < P <= S * MSS with P = GSO bytes - C * headers.
check_mss() {
	local f=$T_TMP/$1.json c s p
	c=$(jq '.interfaces[0].tx_gso_packets' "$f")
	s=$(jq '.interfaces[0].tx_gso_segments.sum' "$f")
	p=$(($(jq '.interfaces[0].tx_gso_bytes' "$f") - c * HDR))
	t_ge "$c" 1000 "$1: GSO skbs sent"
	t_eq "$(jq '.interfaces[0].tx_gso_size_bytes.sum' "$f")" $((c * MSS)) "$1: gso_size sum = GSO skbs x MSS $MSS"
	t_eq "$(jq '.interfaces[0].tx_gso_segments.count' "$f")" "$c" "$1: one gso_segs sample per GSO skb"
	t_le "$p" $((s * MSS)) "$1: payload <= segments x MSS"
	t_ge "$p" $(((s - c) * MSS + 1)) "$1: payload > (segments - skbs) x MSS"
}

trace_bulk 16384 small
check_mss small
f=$T_TMP/small.json
# skb->len at the driver includes every header, so "no longer than 16384 plus headers"
# holds with room to spare: nothing lands above the 16384 bucket.
t_le "$(jq '[.interfaces[0].tx_skb_bytes.buckets[] | select(.[1] > 0) | .[0]] | max' "$f")" 16384 "16K: largest TX skb bucket"
# 16384 bytes hold at most ceil(16384 / MSS) segments: nothing above the 16 bucket.
t_le "$(jq '[.interfaces[0].tx_gso_segments.buckets[] | select(.[1] > 0) | .[0]] | max' "$f")" 16 "16K: largest gso_segs bucket"

trace_bulk 65536 big
check_mss big
f=$T_TMP/big.json
c=$(jq '.interfaces[0].tx_gso_packets' "$f")
# Only GSO skbs can exceed the MTU, so skbs in buckets above 32768 are GSO skbs > 32 KiB.
over=$(jq '[.interfaces[0].tx_skb_bytes.buckets[] | select(.[0] > 32768) | .[1]] | add // 0' "$f")
t_ge $((over * 2)) $((c + 1)) "64K: GSO skbs > 32 KiB ($over of $c) are most"
t_le "$(jq '[.interfaces[0].tx_skb_bytes.buckets[] | select(.[1] > 0) | .[0]] | max' "$f")" 65536 "64K: largest TX skb bucket"
