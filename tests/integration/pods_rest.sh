#!/bin/bash
# A pod at rest costs the daemon one plain socket in the pod (issue 28, docs/namespaces.md
# "How it reaches another namespace", docs/daemon.md "Every sample"). A node namespace and
# two pod namespaces without IPv6 (their only packets are the test's own), each pod's eth0
# a veth whose peer vpN is in the node; the daemon manages the pods' eth0 at 200 ms samples.
#  1. Idle: both pods' eth0 at rest ("at_rest" in `stats --json`), their counters the
#     kernel's, and the daemon holds one netlink socket in each pod (its sockets' inodes
#     against the pod's /proc/net/netlink): the plain rtnetlink socket it reads their
#     links by, not the rtnetlink and generic netlink sockets of its device work.
#  2. Traffic (ping from the node): seen, read every sample, still one socket in the pod
#     (traffic alone leaves the snapshot at rest: nothing acts on it).
#  3. A change made inside a pod (txqueuelen): seen and logged as an outside change (its
#     device sockets opened to read it); at rest again, one socket left.
#  4. A pod made while the daemon runs: at rest with one socket in it too.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NODE=$(t_netns node)
PODS=("$(t_netns pod1)" "$(t_netns pod2)" "$(t_netns pod3)")
# pod N: no IPv6 before its link comes up, eth0 NET.N, vpN in the node (NET.100 + N).
pod_add() {
	local p=${PODS[$1 - 1]}
	ip netns exec "$p" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	t_veth_pair "$NODE" "vp$1" "$p" eth0
	ip -n "$p" addr add "10.89.$1.1/24" dev eth0
	ip -n "$NODE" addr add "10.89.$1.2/24" dev "vp$1"
}
ip netns exec "$NODE" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
pod_add 1
pod_add 2

CONF=$T_TMP/rtltuned.conf
printf '[daemon]\nsample_interval = 200ms\ninterfaces = */eth0\nnamespaces = %s\nprobes = off\ntune_host = no\n' \
	"$T_ID-pod*" >"$CONF"
d_start "$NODE" --config "$CONF"

# st POD JQ: POD/eth0's entry of `stats --json`, through JQ.
st() { d_rtl --json stats | jq -c --arg n "$1/eth0" ".interfaces[] | select(.ifname == \$n) | $2"; }
# socks NS: how many of the daemon's sockets are netlink sockets of namespace NS (their
# inodes in its /proc/net/netlink).
socks() {
	local mine
	mine=$(ls -l "/proc/$D_PID/fd" | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$mine" ] || t_fail "no socket of the daemon found (pid $D_PID)"
	t_in "$1" awk 'NR > 1 { print $10 }' /proc/net/netlink | grep -cxF "$mine" || true
}
# wait_st POD KEY WANT: until POD/eth0's KEY in `stats --json` is WANT (bounded: 150
# samples).
wait_st() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(st "$1" ".$2")" = "$3" ] && return 0
		sleep 0.05
	done
	t_fail "$1/eth0 $2 is not $3 after 30 s: $(st "$1" '{idle, at_rest, rate_seconds}')"
}
wait_rest() { wait_st "$1" idle true && wait_st "$1" at_rest true; }
kernel() { ip -n "$1" -j -s link show dev eth0 | jq ".[0].stats64.$2.packets"; }

t_log "1. idle pods: at rest, counted exactly, one socket of the daemon in each"
for p in "${PODS[0]}" "${PODS[1]}"; do
	wait_rest "$p"
	t_eq "$(st "$p" .rx_packets) $(st "$p" .tx_packets)" "$(kernel "$p" rx) $(kernel "$p" tx)" \
		"$p/eth0: counters as the kernel counts"
	t_eq "$(socks "$p")" 1 "$p: one netlink socket of the daemon in it at rest"
done
t_ge "$(socks "$NODE")" 3 "the daemon's own netlink sockets are in the node (the count sees them)"

t_log "2. traffic: read every sample, still one socket in the pod"
ip netns exec "$NODE" ping -q -i 0.05 10.89.1.1 >/dev/null 2>&1 &
PING=$!
t_defer "kill $PING 2>/dev/null || true"
wait_st "${PODS[0]}" idle false
d_wait_samples 2
t_eq "$(st "${PODS[0]}" '.rates.rx_packets > 0 and .idle == false')" true \
	"with traffic: rates, not idle ($(st "${PODS[0]}" .rates.rx_packets)/s)"
t_eq "$(socks "${PODS[0]}")" 1 "${PODS[0]}: one netlink socket of the daemon in it with traffic"
kill "$PING"
wait "$PING" 2>/dev/null || true
wait_rest "${PODS[0]}"
t_eq "$(st "${PODS[0]}" .rx_packets)" "$(kernel "${PODS[0]}" rx)" "idle again: rx_packets exact"

t_log "3. a change inside a pod: read in it, then its sockets closed again"
ip -n "${PODS[1]}" link set eth0 txqueuelen 777
wait_st "${PODS[1]}" knob_value.txqueuelen 777
t_eq "$(st "${PODS[1]}" .knob_value.txqueuelen)" 777 "the change inside ${PODS[1]} seen"
grep -q "${PODS[1]}/eth0.*txqueuelen changed outside rtltune: 1000 -> 777" "$D_LOG" ||
	t_fail "the outside change is not logged: $(tail -n 5 "$D_LOG")"
echo "ok: the outside change logged"
wait_rest "${PODS[1]}"
for ((i = 0; i < 100; i++)); do
	[ "$(socks "${PODS[1]}")" = 1 ] && break
	sleep 0.05
done
t_eq "$(socks "${PODS[1]}")" 1 "${PODS[1]}: its device sockets closed again at rest"

t_log "4. a pod made while the daemon runs"
pod_add 3
wait_rest "${PODS[2]}"
t_eq "$(socks "${PODS[2]}")" 1 "${PODS[2]}: one netlink socket of the daemon in it at rest"
t_eq "$(grep -ciE 'warning|error' "$D_LOG" || true)" 0 "no warning or error in the log"
d_stop
