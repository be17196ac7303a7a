#!/bin/bash
# Acceptance (issue 4): a probe whose tracepoint is unavailable is reported missing while
# the others still count. RTLTUNE_PROBE_DISABLE makes the loader look net_dev_start_xmit
# up under a name no kernel has, the path a kernel without that tracepoint takes. With
# that probe gone va counts no TX skb, yet the frames vb received and its skbs after GRO
# (both from netif_receive_skb) count exactly.
. "$(dirname "$0")/../lib.sh"

t_quiet_pair 10.80

export RTLTUNE_PROBE_DISABLE=net_dev_start_xmit
pids=()
for side in "$A va" "$B vb"; do
	set -- $side
	ip netns exec "$1" "$RTLTUNE" trace "$2" --json >"$T_TMP/$2.json" 2>"$T_TMP/$2.err" &
	pids+=($!)
	t_defer "kill -9 $! 2>/dev/null || true"
done
for f in va vb; do
	for ((i = 0; i < 200; i++)); do
		grep -q '^Tracing' "$T_TMP/$f.err" && break
		sleep 0.05
	done
	grep -q '^Tracing' "$T_TMP/$f.err" || t_fail "trace $f: $(cat "$T_TMP/$f.err")"
done
N=5
LEN=200 # UDP payload: 242-byte frames
t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.80.0.2", 5001))
s.settimeout(10)
open(sys.argv[2], "w").close()
for _ in range(int(sys.argv[1])):
    s.recv(65535)
' "$N" "$T_TMP/ready" &
rx=$!
for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done
t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])):
    s.sendto(b"x" * int(sys.argv[2]), ("10.80.0.2", 5001))
' "$N" "$LEN"
wait "$rx" || t_fail "receiver did not get $N datagrams"
kill -INT "${pids[@]}"
for p in "${pids[@]}"; do wait "$p" || t_fail "trace exited with $?"; done

a=$T_TMP/va.json
b=$T_TMP/vb.json
for f in "$a" "$b"; do
	t_eq "$(jq -r '.probes[] | select(.name == "net_dev_start_xmit") | .state' "$f")" missing "net_dev_start_xmit state"
	t_eq "$(jq -r '.probes[] | select(.name == "net_dev_start_xmit") | .hook' "$f")" null "net_dev_start_xmit hook"
	jq -r '.probes[] | select(.name == "net_dev_start_xmit") | .reason' "$f" | grep -q 'no tracepoint net_dev_start_xmit__rtltune_unavailable.*RTLTUNE_PROBE_DISABLE' ||
		t_fail "reason: $(jq -r '.probes[] | select(.name == "net_dev_start_xmit") | .reason' "$f")"
	t_eq "$(jq '[.probes[] | select(.name != "net_dev_start_xmit" and .name != "xdp") | select(.state == "attached")] | length' "$f")" 5 "the 5 other tracepoint probes attached"
done
t_eq "$(jq '.interfaces[0].tx_packets' "$a")" 0 "TX packets on va (their only probe is missing)"
t_eq "$(jq '.interfaces[0].rx_packets' "$b")" "$N" "RX frames on vb"
t_eq "$(jq '.interfaces[0].rx_bytes' "$b")" $((N * (LEN + 42))) "RX bytes on vb"
t_eq "$(jq '.interfaces[0].rx_skb_bytes.count' "$b")" "$N" "after-GRO RX skbs on vb"
t_eq "$(jq '.interfaces[0].rx_skb_bytes.sum' "$b")" $((N * (LEN + 42))) "after-GRO RX bytes on vb"

# With every tracepoint made unavailable nothing can count: exit 3 with the reason.
export RTLTUNE_PROBE_DISABLE=net_dev_start_xmit,net_dev_xmit_timeout,netif_receive_skb,napi_poll,kfree_skb,tcp_retransmit_skb
set +e
t_rtl "$A" --json trace va --seconds 1 >"$T_TMP/none.json" 2>/dev/null
rc=$?
set -e
t_eq "$rc" 3 "exit code with no probe available"
jq -r .error "$T_TMP/none.json" | grep -q 'no BPF probe could be attached' || t_fail "error: $(cat "$T_TMP/none.json")"
echo "ok: $(jq -r .error "$T_TMP/none.json")"
