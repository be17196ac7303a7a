#!/bin/bash
# The probes count pods' interfaces (issue 28, docs/namespaces.md "The probes in pods").
# A "node" namespace (the daemon runs there, probes on) with a veth vp1, vp2 to each of two
# pod namespaces (eth0 there). vp1, pod1's eth0 and pod2's eth0 all have ifindex 2, each in
# its own namespace; everything at gso_max_size 16384.
#  1. A long-lived iperf3 connection from pod1 to the node: pod1/eth0's probe histogram of
#     TX skb sizes (stats --json, /metrics, stats, hist) has nothing above 16 KiB; after
#     `rtltune apply` raises pod1/eth0 to 65536 (the daemon invalidates its routes, the
#     connection takes the new size) it has; the node's vp1 (ifindex 2 too) does not.
#  2. Pod2 (ifindex 2 as well) sends 20 pings of 1042-byte frames meanwhile: exactly those
#     in its counts (probes, not link counters), none of pod1's traffic.
#  3. Pods come and go at 50/s (100 pods, 50 alive): every slot they took is freed (the
#     filter map holds the same entries after as before) and no descriptor stays.
#  4. Slots run out (RTLTUNE_PROBE_SLOTS=3, four interfaces): said once, the fourth counted
#     by its link counters (source netlink), and given the slot a deleted pod frees.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
command -v bpftool >/dev/null || t_skip "bpftool not installed"

NODE=$(t_netns node)
P1=$(t_netns pod1)
P2=$(t_netns pod2)
for ns in "$NODE" "$P1" "$P2"; do
	t_in "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
t_veth_pair "$NODE" vp1 "$P1" eth0 gso_max_size 16384
t_veth_pair "$NODE" vp2 "$P2" eth0 gso_max_size 16384
ip -n "$NODE" addr add 10.96.1.1/24 dev vp1
ip -n "$P1" addr add 10.96.1.2/24 dev eth0
ip -n "$NODE" addr add 10.96.2.1/24 dev vp2
ip -n "$P2" addr add 10.96.2.2/24 dev eth0
# Pod2's only packets are the test's pings: no ARP either.
mac() { ip -n "$1" -j link show dev "$2" | jq -r '.[0].address'; }
ip -n "$P2" neigh add 10.96.2.1 lladdr "$(mac "$NODE" vp2)" dev eth0 nud permanent
ip -n "$NODE" neigh add 10.96.2.2 lladdr "$(mac "$P2" eth0)" dev vp2 nud permanent
idx() { ip -n "$1" -j link show dev "$2" | jq .[0].ifindex; }
t_eq "$(idx "$NODE" vp1) $(idx "$P1" eth0) $(idx "$P2" eth0)" "2 2 2" \
	"vp1, pod1's eth0 and pod2's eth0 have the same ifindex"

PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 65536\ngso_ipv4_max_size = 65536\n' >"$PROFILES/big.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
cli() { ip netns exec "$NODE" env RTLTUNE_SOCKET="$D_SOCK" RTLTUNE_PROFILE_PATH="$PROFILES" "$RTLTUNE" "$@"; }
CONF=$T_TMP/rtltuned.conf
printf 'interfaces = vp*, */eth0\nnamespaces = %s-pod*\nprobes = on\ntune_host = no\n' "$T_ID" >"$CONF"
printf 'sample_interval = 200ms\nautotune = no\n' >>"$CONF"

# st IFACE: the interface's entry of stats --json.
st() { d_rtl --json stats | jq -c --arg i "$1" '.interfaces[] | select(.ifname == $i)'; }
# above16k IFACE: its TX skbs above 16 KiB, from the probes' histogram.
above16k() { st "$1" | jq '[.tx_skb_bytes.buckets[]? | select(.[0] > 16384) | .[1]] | add // 0'; }
# wait_bpf IFACE...: until each is counted by the probes (bounded).
wait_bpf() {
	local i n f
	for ((i = 0; i < 200; i++)); do
		n=0
		for f in "$@"; do [ "$(st "$f" | jq -r .source)" = bpf ] && n=$((n + 1)); done
		[ "$n" = $# ] && return 0
		sleep 0.05
	done
	t_fail "not counted by the probes within 10 s: $*"
}
# slot_entries: entries of the daemon's filter map (netns inode, ifindex) -> slot.
slot_entries() {
	local fd id
	for fd in /proc/"$D_PID"/fd/*; do
		[ "$(readlink "$fd")" = anon_inode:bpf-map ] || continue
		id=$(awk '/^map_id:/ { print $2 }' "/proc/$D_PID/fdinfo/${fd##*/}")
		if [ "$(bpftool -j map show id "$id" | jq -r .name)" = iface_slot ]; then
			bpftool -j map dump id "$id" | jq length
			return
		fi
	done
	t_fail "no iface_slot map among rtltuned's descriptors"
}

t_log "1. pod1's long-lived connection at 16384, then raised to 65536"
d_start "$NODE" --config "$CONF"
wait_bpf vp1 vp2 "$P1/eth0" "$P2/eth0"
t_eq "$(st "$P1/eth0" | jq -r '"\(.netns) \(.ifindex) \(.source)"')" "$P1 2 bpf" "stats: $P1/eth0 by the probes"
t_iperf3_servers "$NODE" 10.96.1.1 5201
t_in "$P1" iperf3 -c 10.96.1.1 -p 5201 -t 600 >"$T_TMP/flow.log" 2>&1 &
flow=$!
t_defer "kill $flow 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do
	[ "$(t_in "$P1" ss -Htn state established "( dport = :5201 )" | wc -l)" -ge 2 ] && break
	sleep 0.05
done
t_ge "$(t_in "$P1" ss -Htn state established "( dport = :5201 )" | wc -l)" 2 "iperf3 connected"

t_log "2. pod2 (ifindex 2 too) sends 20 pings meanwhile"
t_in "$P2" ping -q -c 20 -i 0.02 -s 1000 10.96.2.1 >/dev/null
# Until pod1 has sent plenty through the probes at 16384.
for ((i = 0; i < 200; i++)); do
	[ "$(st "$P1/eth0" | jq '.tx_gso_segments.count // 0')" -ge 2000 ] && break
	sleep 0.05
done
d_wait_samples 2
p1=$(st "$P1/eth0") p2=$(st "$P2/eth0") v1=$(st vp1)
echo "# $P1/eth0 at 16384: $(echo "$p1" | jq -c .tx_skb_bytes)"
t_ge "$(echo "$p1" | jq .tx_gso_segments.count)" 2000 "$P1/eth0: GSO skbs counted by the probes"
t_eq "$(above16k "$P1/eth0")" 0 "$P1/eth0: TX skbs above 16 KiB at gso_max_size 16384"
t_eq "$(echo "$p2" | jq -c '[.tx_packets, .rx_packets, .tx_bytes, .tx_skb_bytes.buckets]')" \
	"[20,20,20840,[[2048,20]]]" "$P2/eth0: its 20 pings of 1042 bytes and nothing of $P1's"
t_eq "$(echo "$p2" | jq '.tx_gso_segments.count')" 0 "$P2/eth0: no GSO skb"
t_eq "$(echo "$v1" | jq '.tx_gso_segments.count')" 0 "vp1 (the node's ifindex 2): no GSO skb sent (ACKs only)"
t_ge "$(echo "$v1" | jq '.rx_frame_bytes.count')" 10000 "vp1: pod1's segments received"
metrics=$(d_http /metrics)
# m FAMILY DEVICE NETNS LE: one bucket's cumulative count in /metrics.
m() { echo "$metrics" | awk -v s="$1_bucket{device=\"$2\",netns=\"$3\",le=\"$4\"}" '$1 == s { print $2 }'; }
le16=$(m rtltune_tx_skb_bytes "$P1/eth0" "$P1" 16384)
t_ge "${le16:-0}" 1 "/metrics: $P1/eth0's tx_skb_bytes buckets with its netns label"
t_eq "$(m rtltune_tx_skb_bytes "$P1/eth0" "$P1" +Inf)" "$le16" "/metrics: none of $P1/eth0's above 16 KiB"
t_eq "$(m rtltune_tx_skb_bytes "$P2/eth0" "$P2" +Inf)" 20 "/metrics: $P2/eth0's 20"
if command -v promtool >/dev/null; then
	rc=0
	out=$(echo "$metrics" | promtool check metrics 2>&1) || rc=$?
	t_eq "$rc $out" "0 " "promtool check metrics (exit code, output)"
else
	t_unchecked "promtool not installed: the exposition not checked by it"
fi
d_rtl stats "$P1/eth0" | grep -q "^$P1/eth0 (veth, bpf)" || t_fail "stats text: $P1/eth0 not by the probes"
d_rtl stats "$P1/eth0" | grep -q "tx skbs" || t_fail "stats text: no tx skbs histogram for $P1/eth0"
d_rtl hist "$P1/eth0" tx_gso_size_bytes >/dev/null || t_fail "hist $P1/eth0 tx_gso_size_bytes"
echo "ok: stats and hist show $P1/eth0's histograms"

cli apply big "$P1/eth0" >/dev/null
t_eq "$(t_ip_attr "$P1" eth0 gso_max_size)" 65536 "$P1/eth0 raised"
for ((i = 0; i < 200; i++)); do
	[ "$(above16k "$P1/eth0")" -ge 1000 ] && break
	sleep 0.05
done
echo "# $P1/eth0 after the raise: $(st "$P1/eth0" | jq -c .tx_skb_bytes)"
t_ge "$(above16k "$P1/eth0")" 1000 "$P1/eth0: TX skbs above 16 KiB after the raise (the established connection)"
t_eq "$(above16k "$P2/eth0") $(above16k vp1)" "0 0" "none at $P2/eth0 and vp1 (ifindex 2 both)"
t_eq "$(st "$P2/eth0" | jq .tx_packets)" 20 "$P2/eth0 still at its 20"
metrics=$(d_http /metrics)
inf=$(m rtltune_tx_skb_bytes "$P1/eth0" "$P1" +Inf)
t_ge "$((inf - $(m rtltune_tx_skb_bytes "$P1/eth0" "$P1" 16384)))" 1000 "/metrics: $P1/eth0's above 16 KiB"
kill "$flow" 2>/dev/null || true

t_log "3. pods come and go at 50/s: their slots and descriptors freed"
slots0=$(slot_entries) fds0=$(d_fds)
t_eq "$slots0" 4 "filter entries: vp1, vp2 and the two pods' eth0"
start=$(date +%s%N)
for ((i = 0; i < 100; i++)); do
	ns=$T_ID-podc$i
	ip netns add "$ns"
	echo "$ns" >>"$T_TMP/netns"
	ip link add eth0 netns "$ns" up type veth peer name "vc$i" netns "$NODE"
	ip -n "$NODE" link set "vc$i" up
	if ((i >= 50)); then ip netns del "$T_ID-podc$((i - 50))"; fi
	# 50 a second at most (a rate, not a wait for an event); the commands take most of it
	while (($(date +%s%N) - start < (i + 1) * 20000000)); do sleep 0.005; done
done
echo "# churn: 100 pods in $((($(date +%s%N) - start) / 1000000)) ms, 50 alive at a time"
for ((i = 50; i < 100; i++)); do ip netns del "$T_ID-podc$i"; done
for ((i = 0; i < 200; i++)); do
	[ "$(d_rtl --json status | jq '[.interfaces[] | select(.ifname | test("podc"))] | length')" = 0 ] && break
	sleep 0.05
done
churned=$(grep -c "netns $T_ID-podc[0-9]* deleted: 1 interface no longer managed" "$D_LOG" || true)
echo "# churn: $churned of 100 pods managed while they lived"
t_ge "$churned" 90 "churned pods managed while they lived"
d_wait_samples 2
t_eq "$(slot_entries)" "$slots0" "filter entries after the churn"
t_eq "$(d_fds)" "$fds0" "descriptors after the churn"
t_eq "$(grep -ciE 'warn|error|slots in use' "$D_LOG" || true)" 0 "no warning, no slot exhaustion"
d_stop

t_log "4. slots run out: the fourth by its link counters, given the slot a pod frees"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES" RTLTUNE_PROBE_SLOTS=3)
lines=$(wc -l <"$D_LOG")
d_start "$NODE" --config "$CONF"
for ((i = 0; i < 200; i++)); do
	[ "$(d_rtl --json stats | jq '[.interfaces[] | select(.source == "bpf")] | length')" = 3 ] && break
	sleep 0.05
done
d_wait_samples 2
sources=$(d_rtl --json stats | jq -c '[.interfaces[] | .source] | sort')
t_eq "$sources" '["bpf","bpf","bpf","netlink"]' "three by the probes, one by its link counters"
left=$(d_rtl --json stats | jq -r '.interfaces[] | select(.source == "netlink") | .ifname')
t_ge "$(st "$left" | jq '.tx_packets // -1')" 0 "$left: link counters meanwhile"
t_eq "$(st "$left" | jq -c .tx_skb_bytes)" null "$left: no histograms meanwhile"
t_eq "$(tail -n +$((lines + 1)) "$D_LOG" | grep -c 'all 3 interface slots in use')" 1 "said once"
gone=$P1
[ "$left" = "$P1/eth0" ] && gone=$P2
ip netns del "$gone"
for ((i = 0; i < 200; i++)); do
	[ "$(st "$left" | jq -r .source)" = bpf ] && break
	sleep 0.05
done
t_eq "$(st "$left" | jq -r .source)" bpf "$left counted by the probes once $gone's slot freed"
grep -q "every managed interface has a slot again" "$D_LOG" || t_fail "no line saying the slots suffice again"
echo "ok: said when every interface has a slot again"
d_wait_samples 2
t_eq "$(st "$left" | jq -c '.tx_skb_bytes | type')" '"object"' "$left: histograms now"
d_stop
grep -E "probes|slot" "$D_LOG" | sed 's/^/# log: /' | head -20
