#!/bin/bash
# Live A/A for the tuner (issue 26): trials of a change the traffic cannot use, on one
# long-lived IPv4 connection, counted until AA_TRIALS (20) have a verdict; none may be kept
# but by chance (target: at most 1 in 20).
#
# The change that changes nothing: an IPv4 socket takes its GSO size from the device's
# gso_ipv4_max_size, and above 64K the kernel no longer mirrors gso_max_size into it
# (net/core/dev.c netif_set_gso_max_size(); docs/tuning.md "The IPv4 twin"). With the twin
# pinned at 65536 (`pin = gso_ipv4_max_size`), gso-at-cap sees the connection's skbs at the
# 64K cap and raises gso_max_size alone to 131072: IPv4 skbs stay at 64K, the throughput is
# the connection's own noise. Backoff is 1 s so that trials follow each other; every other
# setting is rtltuned's default (1 s samples, switchback, false_keep 5%).
#
# Prints every verdict and how the trials ended: by the check that a raise reached the
# traffic ("did not reach the traffic") or by the switchback test; the figure judged is the
# number kept. Knobs: AA_TRIALS (20), AA_LIMIT (seconds, 600: the bound on the wait).
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
AA_TRIALS=${AA_TRIALS:-20}
AA_LIMIT=${AA_LIMIT:-600}
TARGET=1
[ -x "$RTLTUNED" ] || { echo "bench-tuner-aa: build first (make)" >&2; exit 2; }
for tool in iperf3 jq; do
	command -v $tool >/dev/null || { echo "bench-tuner-aa: $tool not installed (scripts/deps.sh)" >&2; exit 2; }
done

A=rtbaA$$ B=rtbaB$$ DST=10.79.0.2
tmp=$(mktemp -d)
pid= flow=
cleanup() {
	set +e
	[ -n "$flow" ] && kill "$flow" 2>/dev/null
	bench_stop "$pid"
	for ns in $A $B; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
	done
	bench_netns_del $A $B
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add $A
ip netns add $B
ip -n $A link set lo up
ip -n $B link set lo up
ip link add ba0 netns $A type veth peer name ba1 netns $B
ip -n $A addr add 10.79.0.1/24 dev ba0
ip -n $B addr add $DST/24 dev ba1
# Both 65536 on a new veth (GSO_LEGACY_MAX_SIZE; iproute2 6.1 cannot set the IPv4 one).
ip -n $A link set ba0 gso_max_size 65536 up
ip -n $B link set ba1 up
ip netns exec $B iperf3 -s -B $DST -p 5201 -D
for ((i = 0; i < 100; i++)); do
	ip netns exec $B ss -Hltn "sport = :5201" | grep -q . && break
	sleep 0.05
done

printf '[daemon]\npin = gso_ipv4_max_size\n[tuner]\nbackoff_initial = 1s\nbackoff_max = 1s\nmax_trials = 4096\n' \
	>"$tmp/rtltuned.conf"
export RTLTUNE_SOCKET=$tmp/control.sock
ip netns exec $A iperf3 -c $DST -p 5201 -t "$AA_LIMIT" >/dev/null 2>&1 &
flow=$!
ip netns exec $A "$RTLTUNED" --foreground --config "$tmp/rtltuned.conf" --socket "$RTLTUNE_SOCKET" \
	--state-dir "$tmp/state" --metrics off --interfaces ba0 >"$tmp/rtltuned.log" 2>&1 &
pid=$!
for ((i = 0; i < 100; i++)); do "$RTLTUNE" status >/dev/null 2>&1 && break; sleep 0.05; done

verdicts() {
	"$RTLTUNE" --json log --lines 4096 | jq -r '.entries[] | .message |
		select(test("^tuner (kept|rolled_back|abandoned) gso_max_size "))'
}
start=$(date +%s)
n=0
while :; do
	n=$(verdicts | grep -c . || true)
	[ "$n" -ge "$AA_TRIALS" ] && break
	kill -0 "$pid" 2>/dev/null || { echo "bench-tuner-aa: rtltuned exited:"; tail -5 "$tmp/rtltuned.log"; break; }
	kill -0 "$flow" 2>/dev/null || { echo "bench-tuner-aa: the connection ended"; break; }
	if [ $(($(date +%s) - start)) -ge "$AA_LIMIT" ]; then
		echo "bench-tuner-aa: $n of $AA_TRIALS verdicts within $AA_LIMIT s"
		break
	fi
	sleep 0.5
done
elapsed=$(($(date +%s) - start))
v=$(verdicts | head -n "$AA_TRIALS")
ipv4=$("$RTLTUNE" -n $A --json show ba0 | jq '.[0].gso_ipv4_max_size')
echo "A/A: one IPv4 connection, gso_ipv4_max_size pinned at 65536 ($ipv4 at the end), gso_max_size raised alone:"
sed 's/^/  /; s/\(.\{200\}\).*/\1.../' <<<"$v"
kept=$(grep -c '^tuner kept ' <<<"$v" || true)
unused=$(grep -c 'did not reach the traffic' <<<"$v" || true)
got=$(grep -c . <<<"$v" || true)
echo "  $got verdicts in $elapsed s: $kept kept; $unused ended because the raise did not reach the traffic, $((got - kept - unused)) by the switchback test or a guard"
figure=
[ "$got" -ge "$AA_TRIALS" ] && figure=$kept
ok=$(judge "$figure" '<=' $TARGET)
echo "  target: at most $TARGET kept of $AA_TRIALS: $ok"
summary "tuner A/A: no-gain trials kept, live (of $got; $unused ended as unused)" "${figure:--}" "<= $TARGET of $AA_TRIALS" "$ok"
[ "$ok" = met ]
