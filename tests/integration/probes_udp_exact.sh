#!/bin/bash
# Acceptance (issue 4): in a silent namespace pair (no IPv6, static neighbours, so no ARP
# or ND), N UDP datagrams of known sizes give exactly N TX packets on the sender's veth and
# N RX frames on the receiver's, each in the right length bucket, bytes to the byte; the
# ones sent to a closed port are drops with reason NO_SOCKET on the receiver. Run once with
# the tp_btf programs and once with the raw_tp fallback.
. "$(dirname "$0")/../lib.sh"

t_quiet_pair 10.77

# UDP payloads; with 14 (Ethernet) + 20 (IPv4) + 8 (UDP) bytes of headers the frames are
# 42, 43, 64, 65, 128, 129, 1024, 1025, 1514 bytes: both sides of several bucket bounds.
PAYLOADS=(0 1 22 23 86 87 982 983 1472)
CLOSED=3      # datagrams of CLOSED_LEN bytes to a closed port: each one a NO_SOCKET drop
CLOSED_LEN=100
N=$((${#PAYLOADS[@]} + CLOSED))

# Expected histogram of frame sizes, computed here independently of lib/probes/hist.c: the bucket
# of v is the smallest power of two >= v.
expected_hist() {
	python3 -c '
import json, sys
sizes = [int(a) + 42 for a in sys.argv[1:]]
b = {}
for v in sizes:
    le = 1
    while le < v:
        le *= 2
    b[le] = b.get(le, 0) + 1
lo, hi = min(b), max(b)
bk, le = [], lo
while le <= hi:
    bk.append([le, b.get(le, 0)]); le *= 2
print(json.dumps({"buckets": bk, "sum": sum(sizes), "count": len(sizes)}, sort_keys=True, separators=(",", ":")))
' "$@"
}
closed_payloads=()
for ((i = 0; i < CLOSED; i++)); do closed_payloads+=("$CLOSED_LEN"); done
want=$(expected_hist "${PAYLOADS[@]}" "${closed_payloads[@]}")
want_bytes=$(echo "$want" | jq .sum)

# start_trace NS IFACE NAME: rtltune trace in the background until SIGINT; waits (bounded)
# for its "Tracing" line, i.e. until every probe is attached and the interface selected.
start_trace() {
	# Not through t_rtl: $! must be rtltune itself (ip netns exec execs it), not a subshell.
	ip netns exec "$1" "$RTLTUNE" trace "$2" --json >"$T_TMP/$3.json" 2>"$T_TMP/$3.err" &
	eval "pid_$3=$!"
	t_defer "kill -9 $! 2>/dev/null || true"
	for ((i = 0; i < 200; i++)); do
		grep -q '^Tracing' "$T_TMP/$3.err" && return 0
		kill -0 "$!" 2>/dev/null || break
		sleep 0.05
	done
	cat "$T_TMP/$3.err" >&2
	t_fail "trace $2 did not start"
}
stop_trace() {
	local pid
	pid=$(eval "echo \$pid_$1")
	kill -INT "$pid"
	wait "$pid" || t_fail "trace $1 exited with $?: $(cat "$T_TMP/$1.err")"
}

run_round() { # HOOK: tp_btf or raw_tp
	local hook=$1 r
	[ "$hook" = raw_tp ] && export RTLTUNE_PROBE_HOOK=raw_tp || unset RTLTUNE_PROBE_HOOK
	# The receiver counts what it got and exits; the test waits for it (no sleeps).
	t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.77.0.2", 5001))
s.settimeout(10)
open(sys.argv[1], "w").close()
for _ in range(int(sys.argv[2])):
    s.recv(65535)
' "$T_TMP/ready.$hook" "${#PAYLOADS[@]}" &
	local rx=$!
	for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/ready.$hook" ] && break; sleep 0.05; done

	start_trace "$A" va "a_$hook"
	start_trace "$B" vb "b_$hook"
	t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in sys.argv[3:]:
    s.sendto(b"x" * int(n), ("10.77.0.2", 5001))
# A connected socket learns of the ICMP port unreachable: one drop has happened at B.
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.connect(("10.77.0.2", 5002))
c.settimeout(5)
for _ in range(int(sys.argv[1])):
    c.send(b"y" * int(sys.argv[2]))
    try:
        c.recv(1)
    except ConnectionRefusedError:
        continue
    sys.exit("no ICMP port unreachable")
' "$CLOSED" "$CLOSED_LEN" "${PAYLOADS[@]}"
	wait "$rx" || t_fail "receiver did not get ${#PAYLOADS[@]} datagrams"
	stop_trace "a_$hook"
	stop_trace "b_$hook"

	local a=$T_TMP/a_$hook.json b=$T_TMP/b_$hook.json
	t_eq "$(jq -r '[.probes[] | select(.name != "xdp") | .hook] | unique | join(",")' "$a")" "$hook" "$hook: hook of every probe"
	t_eq "$(jq '.interfaces | length' "$a")" 1 "$hook: one interface traced"
	t_eq "$(jq -r '.interfaces[0].ifname' "$a")" va "$hook: interface"
	t_eq "$(jq '.interfaces[0].tx_packets' "$a")" "$N" "$hook: TX packets on va"
	t_eq "$(jq '.interfaces[0].tx_bytes' "$a")" "$want_bytes" "$hook: TX bytes on va"
	t_eq "$(jq -cS '.interfaces[0].tx_skb_bytes' "$a")" "$want" "$hook: TX skb length histogram on va"
	t_eq "$(jq '.interfaces[0].tx_gso_packets' "$a")" 0 "$hook: no GSO skbs"
	t_eq "$(jq '.interfaces[0].tx_busy' "$a")" 0 "$hook: no driver refusals"
	t_eq "$(jq '.interfaces[0].rx_packets' "$b")" "$N" "$hook: RX frames on vb"
	t_eq "$(jq '.interfaces[0].rx_bytes' "$b")" "$want_bytes" "$hook: RX bytes on vb"
	t_eq "$(jq -cS '.interfaces[0].rx_frame_bytes' "$b")" "$want" "$hook: RX frame histogram on vb"
	# No NAPI, no GRO on a default veth: after-GRO skbs are the frames themselves.
	t_eq "$(jq -cS '.interfaces[0].rx_skb_bytes' "$b")" "$want" "$hook: RX after-GRO histogram on vb"
	t_eq "$(jq -c '.interfaces[0].drops' "$b")" "{\"NO_SOCKET\":$CLOSED}" "$hook: drops by reason on vb"
	t_eq "$(jq '.interfaces[0].tx_packets' "$b")" "$CLOSED" "$hook: TX on vb (the ICMP errors)"
	t_eq "$(jq '.interfaces[0].rx_packets' "$a")" "$CLOSED" "$hook: RX on va (the ICMP errors)"
}

run_round tp_btf
run_round raw_tp
