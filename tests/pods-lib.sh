#!/bin/bash
# The node of the pod tests (issue 28, docs/namespaces.md): a "node" namespace with a
# bridge br0, an uplink veth up0 to an "out" namespace (uo0 there, NET.100) and one veth vpN
# to each of four pod namespaces (eth0 there, NET.N), every device at gso_max_size 16384.
# Source after tests/lib.sh; then `pods_node NET` (NET: three octets, e.g. 10.98.0) sets
# NODE, OUT and PODS (the four pods' namespaces, pod N at PODS[N - 1]).
#	pods_add N           pod N's veth pair (both ends at 16384), on the bridge, NET.N
#	pods_at16k           every device of every namespace back at gso_max_size 16384
#	pods_flow POD ADDR PORT
#	                     one long-lived iperf3 connection from POD (bounded: killed when
#	                     the test ends), returning once it is established
#	pods_window          "MBIT1 MEAN1 MBIT3 MEAN3": pod1's and pod3's eth0 over 2 s, Mbit/s
#	                     sent and the mean TX skb (a veth counts one packet per skb)
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"

PODS_NET=
pods_node() {
	local i
	PODS_NET=$1
	NODE=$(t_netns node)
	OUT=$(t_netns out)
	PODS=()
	for i in 1 2 3 4; do PODS+=("$(t_netns "pod$i")"); done
	ip -n "$NODE" link add br0 type bridge
	ip -n "$NODE" link set br0 up
	t_veth_pair "$NODE" up0 "$OUT" uo0
	ip -n "$NODE" link set up0 master br0
	ip -n "$OUT" addr add "$PODS_NET.100/24" dev uo0
	for i in 1 2 3 4; do pods_add "$i"; done
	pods_at16k
}

pods_add() {
	local p=${PODS[$1 - 1]}
	t_veth_pair "$NODE" "vp$1" "$p" eth0 gso_max_size 16384
	ip -n "$NODE" link set "vp$1" master br0
	ip -n "$p" addr add "$PODS_NET.$1/24" dev eth0
}

pods_at16k() {
	local d p
	for d in up0 vp1 vp2 vp3 vp4 br0; do ip -n "$NODE" link set "$d" gso_max_size 16384; done
	for p in "${PODS[@]}"; do ip -n "$p" link set eth0 gso_max_size 16384; done
	ip -n "$OUT" link set uo0 gso_max_size 16384
}

pods_flow() {
	local i
	t_in "$1" iperf3 -c "$2" -p "$3" -t 600 >"$T_TMP/flow-$3.log" 2>&1 &
	t_defer "kill $! 2>/dev/null || true"
	for ((i = 0; i < 100; i++)); do
		[ "$(t_in "$1" ss -Htn state established "( dport = :$3 )" | wc -l)" -ge 2 ] && return 0
		sleep 0.05
	done
	t_fail "no connection from $1 to $2:$3 within 5 s"
}

# "BYTES PACKETS NS" of the pod's eth0 now.
pods_tx() { echo "$(ip -n "$1" -s -j link show dev eth0 | jq -r '.[0].stats64.tx | "\(.bytes) \(.packets)"') $(date +%s%N)"; }

# Over 2 s: a measurement's length, not a wait for an event.
pods_window() {
	local a1 a3 b1 b3
	a1=$(pods_tx "${PODS[0]}") a3=$(pods_tx "${PODS[2]}")
	sleep 2
	b1=$(pods_tx "${PODS[0]}") b3=$(pods_tx "${PODS[2]}")
	awk -v a="$a1" -v b="$b1" -v c="$a3" -v d="$b3" 'BEGIN {
		split(a, x); split(b, y); split(c, u); split(d, v)
		printf "%d %d %d %d\n", (y[1] - x[1]) * 8000 / (y[3] - x[3]), (y[1] - x[1]) / (y[2] - x[2]),
			(v[1] - u[1]) * 8000 / (v[3] - u[3]), (v[1] - u[1]) / (v[2] - u[2]) }'
}
