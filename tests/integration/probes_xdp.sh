#!/bin/bash
# The optional XDP probe (trace --xdp): on a veth it runs natively in the driver and sees
# each frame once, whole (Ethernet header included): its histogram equals the
# driver-delivered one. Attaching XDP turns on veth NAPI, so those frames now enter the
# stack through napi_gro_receive instead of netif_rx: still counted once.
. "$(dirname "$0")/../lib.sh"

t_quiet_pair 10.81

ip netns exec "$B" "$RTLTUNE" trace vb --xdp --json >"$T_TMP/vb.json" 2>"$T_TMP/vb.err" &
pid=$!
t_defer "kill -9 $pid 2>/dev/null || true"
for ((i = 0; i < 200; i++)); do
	grep -q '^Tracing' "$T_TMP/vb.err" && break
	kill -0 "$pid" 2>/dev/null || t_fail "trace: $(cat "$T_TMP/vb.err")"
	sleep 0.05
done
PAYLOADS=(0 22 23 982 983 1472) # frames 42, 64, 65, 1024, 1025, 1514 bytes
t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.81.0.2", 5001))
s.settimeout(10)
open(sys.argv[2], "w").close()
for _ in range(int(sys.argv[1])):
    s.recv(65535)
' "${#PAYLOADS[@]}" "$T_TMP/ready" &
rx=$!
for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done
t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in sys.argv[1:]:
    s.sendto(b"x" * int(n), ("10.81.0.2", 5001))
' "${PAYLOADS[@]}"
wait "$rx" || t_fail "receiver did not get ${#PAYLOADS[@]} datagrams"
kill -INT "$pid"
wait "$pid" || t_fail "trace exited with $?"

f=$T_TMP/vb.json
want='{"buckets":[[64,2],[128,1],[256,0],[512,0],[1024,1],[2048,2]],"count":6,"sum":3734}'
t_eq "$(jq -r '.probes[] | select(.name == "xdp") | .state' "$f")" attached "xdp probe state"
t_eq "$(jq -r '.probes[] | select(.name == "xdp") | .hook' "$f")" xdp "xdp attach mode (native on veth)"
t_eq "$(jq -cS '.interfaces[0].rx_xdp_frame_bytes' "$f")" "$want" "XDP frame histogram"
t_eq "$(jq -cS '.interfaces[0].rx_frame_bytes' "$f")" "$want" "driver-delivered frame histogram"
t_eq "$(jq -cS '.interfaces[0].rx_skb_bytes' "$f")" "$want" "after-GRO histogram (nothing to merge)"
