#!/bin/bash
# How long rtltuned's event loop can stall under load: the evidence for the unit's
# WatchdogSec= (docs/daemon.md "systemd"). The daemon pings the watchdog from its loop every
# WATCHDOG_USEC/2 (here 100 ms); a ping later than that is a loop that was busy. Under the
# worst this machine can give it at once, for SECONDS (default 60):
#   - veth churn: 50 pairs created in one batch, each given the profile by the daemon
#     (hotplug applies, journaled with fsync), deleted, again;
#   - a SIGHUP every 0.5 s (a full reload: config, profiles, chips, reselection);
#   - `rtltune apply` from the CLI in a loop on one of the daemon's interfaces, so the two
#     contend for the journal lock;
#   - wrk on /metrics (gzip, 4 connections) and a CLI status/stats loop.
# Prints the gaps between pings (median, p99, max) and the longest stall (max gap - 100 ms).
# Needs root, iproute2, wrk, python3. Usage: scripts/loop-stall.sh [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
rtltune=${RTLTUNE:-$top/build/rtltune}
rtltuned=${RTLTUNED:-$top/build/rtltuned}
for tool in "$rtltune" "$rtltuned"; do [ -x "$tool" ] || { echo "loop-stall: $tool not built" >&2; exit 2; }; done
command -v wrk >/dev/null || { echo "loop-stall: wrk missing (scripts/deps.sh)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/rtltune-stall.XXXXXX)
ns=rtstall$$
pids=()
cleanup() {
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add st0 type veth peer name st1
ip -n "$ns" link set st0 up
ip -n "$ns" link set st1 up
mkdir -p "$tmp/profiles" "$tmp/state"
printf '[profile]\n[knobs]\ngso_max_size = 32768\ngro = on\n' >"$tmp/profiles/stall.conf"
printf '[profile]\n[knobs]\ngso_max_size = 16384\n' >"$tmp/profiles/cli.conf"
printf '[daemon]\ninterfaces = st*\nprofile = stall\n' >"$tmp/rtltuned.conf"

python3 - "$tmp/notify.sock" "$tmp/notify.log" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "w", buffering=1) as out:
    while True:
        msg = s.recv(4096).decode()
        if "WATCHDOG=1" in msg:
            out.write("%.6f\n" % time.monotonic())
        if "STOPPING=1" in msg:
            break
EOF
pids+=($!)
for ((i = 0; i < 100; i++)); do [ -S "$tmp/notify.sock" ] && break; sleep 0.05; done
[ -S "$tmp/notify.sock" ] || { echo "loop-stall: notify listener did not bind" >&2; exit 1; }

export RTLTUNE_PROFILE_PATH=$tmp/profiles RTLTUNE_STATE_DIR=$tmp/state
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=200000 ip netns exec "$ns" "$rtltuned" \
	--foreground --config "$tmp/rtltuned.conf" --socket "$tmp/control.sock" \
	>"$tmp/rtltuned.log" 2>&1 &
daemon=$!
pids+=("$daemon")
for ((i = 0; i < 100; i++)); do
	RTLTUNE_SOCKET=$tmp/control.sock "$rtltune" status >/dev/null 2>&1 && break
	sleep 0.05
done
RTLTUNE_SOCKET=$tmp/control.sock "$rtltune" status >/dev/null || { cat "$tmp/rtltuned.log" >&2; exit 1; }
start=$(date +%s)
until_end() { [ $(($(date +%s) - start)) -lt "$secs" ]; }

(while until_end; do
	for ((i = 0; i < 50; i++)); do echo "link add stx$i type veth peer name sty$i"; done |
		ip -n "$ns" -batch - 2>/dev/null || true
	sleep 2
	for ((i = 0; i < 50; i++)); do echo "link del stx$i"; done | ip -n "$ns" -batch - 2>/dev/null || true
done) &
pids+=($!)
(while until_end; do kill -HUP "$daemon"; sleep 0.5; done) &
pids+=($!)
(while until_end; do
	ip netns exec "$ns" "$rtltune" apply cli st1 >/dev/null 2>&1 || true
	ip netns exec "$ns" "$rtltune" restore st1 >/dev/null 2>&1 || true
done) &
pids+=($!)
(while until_end; do
	RTLTUNE_SOCKET=$tmp/control.sock "$rtltune" --json status >/dev/null 2>&1 || true
	RTLTUNE_SOCKET=$tmp/control.sock "$rtltune" --json stats >/dev/null 2>&1 || true
done) &
pids+=($!)
ip netns exec "$ns" wrk -t1 -c4 -d"${secs}s" -H 'Accept-Encoding: gzip' \
	http://127.0.0.1:9775/metrics >"$tmp/wrk.log" 2>&1 || true
while until_end; do sleep 1; done
kill -0 "$daemon" || { tail -n 20 "$tmp/rtltuned.log" >&2; echo "loop-stall: rtltuned died" >&2; exit 1; }
applied=$(grep -c 'gso_max_size 65536 -> 32768' "$tmp/rtltuned.log" || true)
reloads=$(grep -c '^rtltuned: reloaded' "$tmp/rtltuned.log" || true)
echo "load: $secs s, $applied hotplug applies, $reloads reloads, wrk: $(awk '/Requests\/sec/ { print $2 }' "$tmp/wrk.log") req/s"
awk 'NR > 1 { g = ($1 - prev) * 1000; print g } { prev = $1 }' "$tmp/notify.log" | sort -n |
	awk '{ v[NR] = $1 } END {
		if (NR < 10) { print "loop-stall: only " NR " gaps"; exit 1 }
		printf "watchdog pings: %d gaps, median %.1f ms, p99 %.1f ms, max %.1f ms\n",
			NR, v[int(NR / 2) + 1], v[int(NR * 0.99)], v[NR]
		printf "longest loop stall: %.0f ms (max gap - 100 ms)\n", v[NR] - 100
	}'
