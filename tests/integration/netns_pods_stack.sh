#!/bin/bash
# Pods in the node's stack, in one operation (issue 28, docs/stack.md "Pods: the peer in
# another namespace"). A "node" namespace has a bridge br0 with an uplink veth up0 to an
# "out" namespace and one veth vpN to each of four pod namespaces (eth0 there); everything
# at gso_max_size 16384, long-lived iperf3 connections pod1 -> pod2 and pod3 -> outside.
# rtltuned's config (read by the CLI, no daemon running) opts pods 1-3 in by `namespaces`;
# pod4 is not.
#  1. One `rtltune -n NODE apply` of up0, br0 and the vpN raises them and the peers of vp1-3
#     (pod1-3's eth0) in one run: one process, every change logged before the first
#     invalidation, one invalidation per namespace (one "rerouted" record per pod, each
#     after the last change); pod4's eth0 stays at 16384.
#  2. The established connections' throughput rises (the ratio is printed).
#  3. `rtltune -n NODE restore` puts back every device of every namespace exactly
#     (ip -d -j link and ethtool/rtnetlink before and after).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/pods-lib.sh"

pods_node 10.97.0
# every_state: each device of every namespace, as ip -d -j link (without its state and the
# bridge's and ports' timers) and ethtool/rtnetlink report it.
every_state() {
	local d p
	for d in up0 vp1 vp2 vp3 vp4 br0; do
		echo "$d $(t_link_state "$NODE" "$d") $(ip -n "$NODE" -d -j link show dev "$d" | jq -c '.[0] | del(.operstate, .linkinfo.info_slave_data, .linkinfo.info_data)')"
	done
	for p in "${PODS[@]}"; do echo "$p/eth0 $(t_link_state "$p" eth0) $(ip -n "$p" -d -j link show dev eth0 | jq -c '.[0] | del(.operstate)')"; done
	echo "uo0 $(t_link_state "$OUT" uo0)"
}
before=$(every_state)

PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 65536\ngso_ipv4_max_size = 65536\n' >"$PROFILES/big.conf"
CONF=$T_TMP/rtltuned.conf
printf 'interfaces = up0, vp*, br0, */eth0\nnamespaces = %s, %s, %s\n' "${PODS[0]}" "${PODS[1]}" "${PODS[2]}" >"$CONF"
# The CLI in the node's namespace, with no daemon: it reads rtltuned's config for the pods.
cli() { RTLTUNE_CONFIG=$CONF RTLTUNE_SOCKET=$T_TMP/none.sock RTLTUNE_PROFILE_PATH=$PROFILES "$RTLTUNE" -n "$NODE" "$@"; }

t_iperf3_servers "${PODS[1]}" 10.97.0.2 5211
t_iperf3_servers "$OUT" 10.97.0.100 5212
pods_flow "${PODS[0]}" 10.97.0.2 5211
pods_flow "${PODS[2]}" 10.97.0.100 5212
read -r mb1 mean1 mb3 mean3 <<<"$(pods_window)"
echo "# at 16384: pod1->pod2 $mb1 Mbit/s, mean skb $mean1 B; pod3->out $mb3 Mbit/s, mean skb $mean3 B"
t_le "$mean1" 16384 "pod1's mean TX skb at 16384"

t_log "0. show: a veth's peer in a pod, and a pod's interface as NETNS/IFACE"
ifx=$(ip -n "${PODS[0]}" -j link show dev eth0 | jq '.[0].ifindex')
t_eq "$(cli --json show vp1 | jq -c '.[0].peer')" "{\"netns\":\"${PODS[0]}\",\"ifname\":\"eth0\",\"ifindex\":$ifx}" "show vp1: its peer"
cli show vp1 | grep -qx "    peer                 ${PODS[0]}/eth0 (ifindex $ifx)" || t_fail "show text lacks the peer line"
echo "ok: show text names the peer"
t_eq "$(cli --json show br0 | jq -c '.[0].peer')" null "show br0: no peer"
pod=$(cli --json show "${PODS[0]}/eth0" | jq -c '.[0]')
t_eq "$(echo "$pod" | jq -r '"\(.ifname) \(.netns) \(.ifindex) \(.gso_max_size) \(.peer.netns) \(.peer.ifname)"')" \
	"${PODS[0]}/eth0 ${PODS[0]} $ifx 16384 $NODE vp1" "show NETNS/IFACE: name, netns, its own ifindex, a knob, its peer on the node"
t_eq "$(echo "$pod" | jq -c 'del(.ifname, .netns)')" \
	"$(RTLTUNE_CONFIG=$CONF "$RTLTUNE" -n "${PODS[0]}" --json show eth0 | jq -c '.[0] | del(.ifname, .netns)')" \
	"show NETNS/IFACE = -n NETNS show IFACE (but the name)"
set +e
err=$(cli show nosuchns/eth0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "show of an unknown NETNS/IFACE: exit status"
echo "$err" | grep -q "no network namespace 'nosuchns'" || t_fail "the error does not name the namespace: $err"

t_log "1. one apply on the node: uplink, bridge, ports and the opted-in pods' eth0"
out=$(cli apply big up0 br0 vp1 vp2 vp3 vp4)
echo "$out" | sed 's/^/# /'
for d in up0 vp1 vp2 vp3 vp4 br0; do t_eq "$(t_ip_attr "$NODE" "$d" gso_max_size)" 65536 "node's $d"; done
for p in "${PODS[@]:0:3}"; do
	t_eq "$(t_ip_attr "$p" eth0 gso_max_size)" 65536 "$p/eth0"
	t_eq "$(t_nl_attr "$p" eth0 gso_ipv4_max_size)" 65536 "$p/eth0 gso_ipv4_max_size"
done
t_eq "$(t_ip_attr "${PODS[3]}" eth0 gso_max_size)" 16384 "${PODS[3]}/eth0 (not in namespaces) untouched"
t_eq "$(t_ip_attr "$OUT" uo0 gso_max_size)" 16384 "the outside namespace untouched"
echo "$out" | grep -q "^${PODS[0]}/eth0 gso_max_size 16384 -> 65536 (peer of vp1)$" ||
	t_fail "the apply does not name ${PODS[0]}/eth0 as vp1's peer"
log=$(cli --json log --journal | jq -c '.entries[]')
# One run: one process wrote every record, and every pod's invalidation came after the last
# change of any device (actuate_run(): the routes once per namespace, after all changes).
t_eq "$(echo "$log" | jq -r '.pid' | sort -u | wc -l)" 1 "processes that wrote the log"
# The log names a device by its own name (a pod's eth0 as eth0): 6 nodes' devices, 3 pods'.
t_eq "$(echo "$log" | jq -r 'select(.outcome == "applied") | .iface' | sort -u | tr '\n' ' ')" \
	"br0 eth0 up0 vp1 vp2 vp3 vp4 " "devices changed in the run"
t_eq "$(echo "$log" | jq -r 'select(.outcome == "applied" and .iface == "eth0") | .iface' | wc -l)" 6 \
	"the pods' changes (3 pods, 2 knobs)"
t_eq "$(echo "$log" | jq -r 'select(.outcome == "rerouted" and .iface == "eth0") | .iface' | wc -l)" 3 \
	"invalidations in the pods (one per pod namespace)"
last_applied=$(echo "$log" | jq -s 'map(.outcome == "applied") | rindex(true)')
first_rerouted=$(echo "$log" | jq -s 'map(.outcome == "rerouted") | index(true)')
t_ge "$first_rerouted" "$((last_applied + 1))" "the first invalidation after the last change (record index)"
t_eq "$(grep -c '^inflight' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "operations left in flight"

t_log "2. the established connections take it"
read -r mb1b mean1b mb3b mean3b <<<"$(pods_window)"
echo "# at 65536: pod1->pod2 $mb1b Mbit/s, mean skb $mean1b B; pod3->out $mb3b Mbit/s, mean skb $mean3b B"
echo "# throughput: pod to pod x$(awk -v a="$mb1" -v b="$mb1b" 'BEGIN { printf "%.2f", b / a }'), pod to outside x$(awk -v a="$mb3" -v b="$mb3b" 'BEGIN { printf "%.2f", b / a }')"
t_ge "$mean1b" 16385 "pod1's mean TX skb after the apply (its connection took the size)"
t_ge "$mean3b" 16385 "pod3's mean TX skb after the apply"
t_ge "$((mb1b * 10))" "$((mb1 * 11))" "pod to pod throughput x1.1"

t_log "3. restore: every device of every namespace back exactly"
cli restore | sed 's/^/# /'
t_eq "$(every_state)" "$before" "every device after restore"
t_eq "$(grep -c 'orig ' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "originals left in the journal"
