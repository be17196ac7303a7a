#!/bin/bash
# Acceptance (issue 14): tx_busy comes from the kernel's own counters, not from a program
# on every transmit, and still counts every refusal. A veth whose peer is down refuses each
# skb it is handed (veth_xmit drops it: NET_XMIT_DROP, counted in the device's tx_dropped):
# N datagrams sent give N TX skbs at the driver and exactly N refusals, the same number the
# kernel's tx_dropped moved by; a working pair afterwards adds none.
. "$(dirname "$0")/../lib.sh"

t_quiet_pair 10.84

tx_dropped() { ip -n "$A" -s -j link show dev va | jq '.[0].stats64.tx.dropped'; }
send() { # N PAYLOAD: datagrams to B
	t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])):
    s.sendto(b"x" * int(sys.argv[2]), ("10.84.0.2", 5001))
' "$1" "$2"
}
trace() { # NAME: trace va until SIGINT, waits until attached
	ip netns exec "$A" "$RTLTUNE" trace va --json >"$T_TMP/$1.json" 2>"$T_TMP/$1.err" &
	pid=$!
	t_defer "kill -9 $pid 2>/dev/null || true"
	for ((i = 0; i < 200; i++)); do
		grep -q '^Tracing' "$T_TMP/$1.err" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	t_fail "trace did not start: $(cat "$T_TMP/$1.err")"
}
end_trace() { kill -INT "$pid"; wait "$pid" || t_fail "trace exited with $?"; }

N=37
# vb takes frames up to 1000 + 14 (+ 4 for a VLAN tag) bytes; 1200-byte datagrams leave va
# as 1242-byte frames, within va's MTU of 1500.
ip -n "$B" link set dev vb mtu 1000
before=$(tx_dropped)
trace big
send "$N" 1200
send 5 100 # these fit: not refused
end_trace
t_eq "$(jq '.interfaces[0].tx_packets' "$T_TMP/big.json")" $((N + 5)) "TX skbs handed to va's driver"
t_eq "$(jq '.interfaces[0].tx_busy' "$T_TMP/big.json")" "$N" "refusals counted"
t_eq $(($(tx_dropped) - before)) "$N" "the kernel's tx_dropped moved by as many"
t_eq "$(jq '[.probes[] | select(.name == "net_dev_xmit")] | length' "$T_TMP/big.json")" 0 \
	"no program on net_dev_xmit"

trace small
send "$N" 900
end_trace
t_eq "$(jq '.interfaces[0].tx_packets' "$T_TMP/small.json")" "$N" "TX skbs, frames that fit"
t_eq "$(jq '.interfaces[0].tx_busy' "$T_TMP/small.json")" 0 "no refusals"
