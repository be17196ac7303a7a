#!/bin/bash
# One rtltuned tunes the pods' side of a node (issue 28, docs/namespaces.md). A "node"
# namespace (the daemon runs there) has a bridge br0 with an uplink veth up0 to an "out"
# namespace and one veth vpN to each of four pod namespaces (eth0 there); everything at
# gso_max_size 16384, long-lived iperf3 connections pod to pod and pod to outside.
#  1. Opt-in: without `namespaces` no pod-side interface is touched (ip -d -j link).
#  2. With `namespaces = ID-pod*`, the profile raising gso_max_size reaches the uplink, the
#     bridge, the node's veths and the pods' eth0 (NETNS/IFACE in status, stats, /metrics
#     with a netns label, promtool clean); the established pod connections' skbs grow
#     (mean TX skb of the pods' eth0, from their link counters: a veth counts skbs) and
#     their throughput rises.
#  3. `rtltune restore` puts every device in every namespace back exactly.
#  4. A pod namespace deleted while managed: one log line, its records ended, no loop;
#     recreated under the same name: a new interface (a new netns cookie).
#  5. SIGKILL mid-operation across namespaces (a pause before the pods' change): the next
#     start rolls back, restore exact.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/pods-lib.sh"

pods_node 10.98.0
# every_state: each device of every namespace the test made, as ip/ethtool/rtnetlink say.
every_state() {
	local d p
	for d in up0 vp1 vp2 vp3 vp4 br0; do echo "$d $(t_link_state "$NODE" "$d")"; done
	for p in "${PODS[@]}"; do echo "$p/eth0 $(t_link_state "$p" eth0)"; done
	echo "uo0 $(t_link_state "$OUT" uo0)"
}
before=$(every_state)

PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 65536\ngso_ipv4_max_size = 65536\n' >"$PROFILES/big.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
# The CLI in the daemon's namespace: apply and restore go through the daemon.
cli() { ip netns exec "$NODE" env RTLTUNE_SOCKET="$D_SOCK" RTLTUNE_PROFILE_PATH="$PROFILES" "$RTLTUNE" "$@"; }
CONF=$T_TMP/rtltuned.conf
conf() { # conf [NAMESPACES]: the daemon's configuration
	{
		printf 'interfaces = up0, vp*, br0, */eth0\nprofile = big\nprobes = off\n'
		printf 'sample_interval = 200ms\nautotune = no\n'
		if [ -n "${1:-}" ]; then printf 'namespaces = %s\n' "$1"; fi
	} >"$CONF"
}

t_log "1. without namespaces, no pod-side interface is touched"
conf
d_start "$NODE" --config "$CONF"
for ((i = 0; i < 100; i++)); do
	[ "$(t_ip_attr "$NODE" vp4 gso_max_size)" = 65536 ] && break
	sleep 0.05
done
t_eq "$(t_ip_attr "$NODE" vp4 gso_max_size)" 65536 "the node's veth vp4 raised"
for p in "${PODS[@]}"; do
	t_eq "$(t_ip_attr "$p" eth0 gso_max_size)" 16384 "$p/eth0 untouched"
done
t_eq "$(d_rtl --json status | jq '[.interfaces[] | select(.netns != null)] | length')" 0 \
	"pods' interfaces in status"
cli restore >/dev/null
d_stop
t_eq "$(every_state)" "$before" "every device back after restore"


t_log "2. with namespaces: the pods' eth0 too, under established connections"
t_iperf3_servers "${PODS[1]}" 10.98.0.2 5201
t_iperf3_servers "$OUT" 10.98.0.100 5202
pods_flow "${PODS[0]}" 10.98.0.2 5201
pods_flow "${PODS[2]}" 10.98.0.100 5202
read -r mb1 mean1 mb3 mean3 <<<"$(pods_window)"
echo "# at 16384: pod1->pod2 $mb1 Mbit/s, mean skb $mean1 B; pod3->out $mb3 Mbit/s, mean skb $mean3 B"
t_le "$mean1" 16384 "pod1's mean TX skb at 16384"
t_le "$mean3" 16384 "pod3's mean TX skb at 16384"

conf "$T_ID-pod*"
d_start "$NODE" --config "$CONF"
for ((i = 0; i < 200; i++)); do
	n=0
	for p in "${PODS[@]}"; do [ "$(t_ip_attr "$p" eth0 gso_max_size)" = 65536 ] && n=$((n + 1)); done
	[ "$n" = 4 ] && [ "$(t_ip_attr "$NODE" br0 gso_max_size)" = 65536 ] && break
	sleep 0.05
done
for d in up0 vp1 vp2 vp3 vp4 br0; do t_eq "$(t_ip_attr "$NODE" "$d" gso_max_size)" 65536 "node's $d"; done
for p in "${PODS[@]}"; do
	t_eq "$(t_ip_attr "$p" eth0 gso_max_size)" 65536 "$p/eth0"
	t_eq "$(t_nl_attr "$p" eth0 gso_ipv4_max_size)" 65536 "$p/eth0 gso_ipv4_max_size"
done
t_eq "$(t_ip_attr "$OUT" uo0 gso_max_size)" 16384 "the outside namespace (not selected) untouched"
status=$(d_rtl --json status)
t_eq "$(echo "$status" | jq -r --arg p "${PODS[0]}" '.interfaces[] | select(.ifname == "\($p)/eth0") | "\(.managed) \(.netns) \(.ifindex)"')" \
	"true ${PODS[0]} $(ip -n "${PODS[0]}" -j link show dev eth0 | jq .[0].ifindex)" "status: NETNS/IFACE, managed, its netns and own ifindex"
d_rtl status | grep -q "${PODS[0]}/eth0 " || t_fail "status text lacks ${PODS[0]}/eth0"
echo "ok: status text names ${PODS[0]}/eth0"
d_wait_samples 2
stats=$(d_rtl --json stats | jq -c --arg p "${PODS[0]}/eth0" '.interfaces[] | select(.ifname == $p)')
t_eq "$(echo "$stats" | jq -r '"\(.netns) \(.source)"')" "${PODS[0]} netlink" "stats: ${PODS[0]}/eth0 by its link counters"
t_ge "$(echo "$stats" | jq '.tx_bytes')" 1000000 "stats: ${PODS[0]}/eth0's bytes sent"
metrics=$(d_http /metrics)
echo "$metrics" | grep -q "^rtltune_knob_value{device=\"${PODS[0]}/eth0\",netns=\"${PODS[0]}\",knob=\"gso_max_size\"} 65536$" ||
	t_fail "/metrics: no knob_value of ${PODS[0]}/eth0 with its netns label"
echo "ok: /metrics labels ${PODS[0]}/eth0 with netns"
if command -v promtool >/dev/null; then
	rc=0
	out=$(echo "$metrics" | promtool check metrics 2>&1) || rc=$?
	t_eq "$rc $out" "0 " "promtool check metrics (exit code, output)"
else
	t_unchecked "promtool not installed: the exposition with netns labels not checked by it"
fi

read -r mb1b mean1b mb3b mean3b <<<"$(pods_window)"
echo "# at 65536: pod1->pod2 $mb1b Mbit/s, mean skb $mean1b B; pod3->out $mb3b Mbit/s, mean skb $mean3b B"
echo "# throughput: pod to pod x$(awk -v a="$mb1" -v b="$mb1b" 'BEGIN { printf "%.2f", b / a }'), pod to outside x$(awk -v a="$mb3" -v b="$mb3b" 'BEGIN { printf "%.2f", b / a }')"
# The established connections took the new size: skbs above the old cap on average.
t_ge "$mean1b" 24576 "pod1's mean TX skb after the raise"
t_ge "$mean3b" 24576 "pod3's mean TX skb after the raise"
# A clear direction, not the 2x target: two shared CPUs carry sender, bridge and receiver.
t_ge "$((mb1b * 10))" "$((mb1 * 13))" "pod to pod throughput x1.3"
t_ge "$((mb3b * 10))" "$((mb3 * 13))" "pod to outside throughput x1.3"

t_log "3. restore puts every device of every namespace back"
cli restore >/dev/null
t_eq "$(every_state)" "$before" "every device back after restore"
grep -q '^iface eth0 ' "$D_STATE/journal" && t_fail "pods' originals still journaled after restore"
echo "ok: no pod record left"

t_log "4. a pod namespace deleted while managed, then recreated under the same name"
cli apply big >/dev/null
t_eq "$(t_ip_attr "${PODS[3]}" eth0 gso_max_size)" 65536 "pod4/eth0 raised again"
cookie=$(d_rtl --json status | jq -r --arg p "${PODS[3]}/eth0" '.interfaces[] | select(.ifname == $p) | .netns_cookie')
grep -q "^iface eth0 .* netns=$cookie " "$D_STATE/journal" || t_fail "no record of pod4's eth0 (cookie $cookie)"
ip netns del "${PODS[3]}"
for ((i = 0; i < 100; i++)); do
	grep -q "netns ${PODS[3]} deleted" "$D_LOG" && break
	sleep 0.05
done
d_wait_samples 5
t_eq "$(grep -c "netns ${PODS[3]} deleted: 1 interface no longer managed, 1 journal record ended" "$D_LOG")" 1 \
	"one log line for the deleted namespace"
t_eq "$(grep "${PODS[3]}" "$D_LOG" | grep -ciE 'error|fail|could not' || true)" 0 "no error about it"
t_eq "$(grep -c "^iface eth0 .* netns=$cookie " "$D_STATE/journal" || true)" 0 "its records ended"
t_eq "$(d_rtl --json status | jq --arg p "${PODS[3]}/eth0" '[.interfaces[] | select(.ifname == $p)] | length')" 0 \
	"gone from status"
lines=$(wc -l <"$D_LOG")
d_wait_samples 5
t_eq "$(tail -n +$((lines + 1)) "$D_LOG" | grep -c "${PODS[3]}" || true)" 0 "nothing more about it (no loop)"
ip netns add "${PODS[3]}"
ip -n "${PODS[3]}" link set lo up
pods_add 4
for ((i = 0; i < 200; i++)); do
	[ "$(t_ip_attr "${PODS[3]}" eth0 gso_max_size)" = 65536 ] && break
	sleep 0.05
done
t_eq "$(t_ip_attr "${PODS[3]}" eth0 gso_max_size)" 65536 "the recreated pod's eth0 gets the profile"
cookie2=$(d_rtl --json status | jq -r --arg p "${PODS[3]}/eth0" '.interfaces[] | select(.ifname == $p) | .netns_cookie')
[ -n "$cookie2" ] && [ "$cookie2" != null ] && [ "$cookie2" != "$cookie" ] ||
	t_fail "the recreated pod is not a new namespace to rtltuned ($cookie -> $cookie2)"
echo "ok: a new interface (netns cookie $cookie -> $cookie2)"
cli restore >/dev/null
for p in "${PODS[@]}"; do t_eq "$(t_ip_attr "$p" eth0 gso_max_size)" 16384 "$p/eth0 after restore"; done
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"

t_log "5. SIGKILL in the middle of a pod's change: the next start rolls it back, restore exact"
# Every device at the profile's value already (nothing to apply at start) but pod1's eth0,
# which an explicit apply then raises, paused after its first change.
for d in up0 vp1 vp2 vp3 vp4 br0; do ip -n "$NODE" link set "$d" gso_max_size 65536; done
for p in "${PODS[@]}"; do ip -n "$p" link set eth0 gso_max_size 65536; done
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES" RTLTUNE_TEST_DELAY=apply_knob_2=30000)
d_start "$NODE" --config "$CONF"
d_wait_samples 1
ip -n "${PODS[0]}" link set eth0 gso_max_size 16384 # its IPv4 twin follows (<= 64K)
d_wait_samples 2
before5=$(every_state)
cli apply big "${PODS[0]}/eth0" >/dev/null 2>&1 &
t_defer "kill $! 2>/dev/null || true"
for ((i = 0; i < 200; i++)); do
	[ "$(t_ip_attr "${PODS[0]}" eth0 gso_max_size)" = 65536 ] && break
	sleep 0.05
done
t_eq "$(t_ip_attr "${PODS[0]}" eth0 gso_max_size)" 65536 "pod1's first change made"
grep -q '^inflight' "$D_STATE/journal" || t_fail "no operation in flight"
kill -9 "$D_PID"
wait "$D_PID" 2>/dev/null || true
t_eq "$(t_ip_attr "${PODS[0]}" eth0 gso_max_size)" 65536 "left half done by the SIGKILL"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
d_start "$NODE" --config "$CONF"
for ((i = 0; i < 100; i++)); do
	grep -q "${PODS[0]}/eth0: rolled back the apply that was in flight" "$D_LOG" && break
	sleep 0.05
done
grep -q "${PODS[0]}/eth0: rolled back the apply that was in flight" "$D_LOG" ||
	t_fail "the interrupted apply on ${PODS[0]}/eth0 was not rolled back"
echo "ok: the interrupted apply on ${PODS[0]}/eth0 rolled back at start"
d_wait_samples 2
cli restore >/dev/null
t_eq "$(every_state)" "$before5" "every device as before the interrupted apply, after restore"
d_stop
grep -E "netns|${T_ID}-pod" "$D_LOG" | sed 's/^/# log: /' | awk 'NR <= 40' # all read: no SIGPIPE under pipefail
