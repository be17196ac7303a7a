#!/bin/bash
# rtltuned flat in unmanaged interfaces (issue 14): the daemon managing one veth in a
# namespace that holds 10, then 1000, veths (up, addressless but one). Idle CPU over
# IDLE_SECONDS from /proc/PID/schedstat (nanoseconds on a CPU, not 10 ms ticks), RSS and
# anonymous memory, the full link dumps it made (1: the start; a healthy link monitor makes
# no other) and the cost of its last sample. Targets: with 1000, idle CPU <= 0.5% of a
# core and RSS <= 16 MiB; per unmanaged interface at most 512 bytes of anonymous memory.
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
IDLE_SECONDS=${IDLE_SECONDS:-20}
[ -x "$RTLTUNED" ] || { echo "bench-flat: build first (make)" >&2; exit 2; }
ns=rtflat$$
tmp=$(mktemp -d)
pid=
cleanup() {
	bench_stop "$pid"
	bench_netns_del $ns ${ns}p
	rm -rf "$tmp"
}
trap cleanup EXIT

# run N: start the daemon on a namespace of N veths, print "cpu_pct rss_kib anon_kib dumps
# sample_us interfaces".
run() {
	local n=$1 i t0 t1 s0 s1
	ip netns add $ns
	ip netns add ${ns}p
	ip -n $ns link set lo up
	for i in $(seq 0 $((n - 1))); do
		echo "link add b$i netns $ns type veth peer name p$i netns ${ns}p"
	done | ip -batch -
	for i in $(seq 0 $((n - 1))); do echo "link set b$i up"; done | ip -n $ns -batch -
	ip -n $ns addr add 10.93.0.1/24 dev b0
	rm -rf "$tmp/state"
	ip netns exec $ns "$RTLTUNED" --foreground --socket "$tmp/s" --state-dir "$tmp/state" \
		--interfaces b0 >"$tmp/log.$n" 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		RTLTUNE_SOCKET=$tmp/s "$RTLTUNE" status >/dev/null 2>&1 && break
		sleep 0.05
	done
	RTLTUNE_SOCKET=$tmp/s "$RTLTUNE" status >/dev/null ||
		{ echo "bench-flat: rtltuned did not answer (waited 10 s):" >&2; cat "$tmp/log.$n" >&2; exit 1; }
	# Until the table holds every link (the start dump is done before READY, but say so).
	t0=$(cut -d' ' -f1 /proc/$pid/schedstat)
	s0=$(date +%s%N)
	sleep "$IDLE_SECONDS"
	t1=$(cut -d' ' -f1 /proc/$pid/schedstat)
	s1=$(date +%s%N)
	RTLTUNE_SOCKET=$tmp/s "$RTLTUNE" --json status >"$tmp/status.json"
	echo "$(echo "scale=4; ($t1 - $t0) * 100 / ($s1 - $s0)" | bc)" \
		"$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status)" \
		"$(awk '/^RssAnon:/ { print $2 }' /proc/$pid/status)" \
		"$(jq .daemon.link_dumps "$tmp/status.json")" \
		"$(jq '.daemon.sample_cost_seconds * 1000000 | round' "$tmp/status.json")" \
		"$(jq '.interfaces | length' "$tmp/status.json")"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	ip netns del $ns
	ip netns del ${ns}p
}

read -r c10 r10 a10 d10 s10 n10 <<<"$(run 10)"
read -r c1k r1k a1k d1k s1k n1k <<<"$(run 1000)"
[ "$n10" = 11 ] && [ "$n1k" = 1001 ] ||
	{ echo "bench-flat: the daemon saw ${n10:-no} and ${n1k:-no} interfaces, not 11 and 1001" >&2; exit 1; }
per=
is_number "$a1k" && is_number "$a10" && per=$(((a1k - a10) * 1024 / 990))
# One verdict per target (judge: a missing figure is missed), then each printed; rc 1 when
# one is missed.
v_cpu=$(judge "$c1k" '<=' 0.5)
v_rss=$(judge "$r1k" '<=' 16384)
v_per=$(judge "$per" '<=' 512)
v_dumps=$(all_met "$(judge "$d1k" '==' 1)" "$(judge "$d10" '==' 1)")
rc=0
[ "$(all_met "$v_cpu" "$v_rss" "$v_per" "$v_dumps")" = met ] || rc=1
mib() { echo "$(($1 / 1024)).$((($1 % 1024) * 10 / 1024)) MiB"; }
echo "rtltuned managing one veth, idle ${IDLE_SECONDS} s at 1 s sampling:"
echo "   10 veths: CPU ${c10}% of a core, RSS $(mib "$r10") (anonymous $(mib "$a10")), link dumps $d10, sample ${s10} us"
echo " 1000 veths: CPU ${c1k}% of a core, RSS $(mib "$r1k") (anonymous $(mib "$a1k")), link dumps $d1k, sample ${s1k} us"
echo "  per unmanaged interface: $per bytes anonymous memory"
echo "  target: 1000 veths at <= 0.5% idle CPU: $v_cpu"
echo "  target: 1000 veths at <= 16 MiB RSS: $v_rss"
echo "  target: <= 512 bytes per unmanaged interface: $v_per"
echo "  target: no link dump after the first (healthy monitor): $v_dumps"
summary "rtltuned, 1000 unmanaged veths: idle CPU, RSS" "${c1k}%, $(mib "$r1k")" "<= 0.5%, <= 16 MiB" \
	"$(all_met "$v_cpu" "$v_rss")"
summary "  per unmanaged interface; link dumps after start" "${per:--} bytes; ${d1k:+$((d1k - 1))}" \
	"<= 512 bytes; 0" "$(all_met "$v_per" "$v_dumps")"
exit $rc
