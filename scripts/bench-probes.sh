#!/bin/bash
# Probe cost (issue 4), standalone or from scripts/bench.sh:
#  1. throughput: iperf3 over a veth pair with the probes attached (rtltune trace on both
#     ends) vs detached, alternating on/off and off/on in PAIRS pairs; median of the
#     per-pair ratios. Two paths: veth defaults (TSO: few large skbs) and MTU-sized frames
#     (TSO/GSO off at the sender, GRO on at the receiver: one event per frame, the worst
#     case for per-event cost).
#  2. per-event cost of each program from the kernel's BPF run-time stats (trace --stats
#     holds BPF_ENABLE_STATS while it runs; stats cost time themselves, so these runs are
#     kept out of the throughput pairs).
#  3. memory charged for the maps and programs, for the traced set and for 256 interfaces.
# Targets, on the default (tso) path: median ratio >= 0.97, <= 50 ns per event on average
# above an empty program's cost. Exit 1 when one is missed.
# Knobs: PAIRS (15), SECS (2 s per iperf3 run), PATHS ("tso frames").
# Why 15 short pairs rather than 5 long ones: on a shared 2-core VM single veth runs swing
# +-25% (12-21 Gbit/s with nothing changed), far more than the effect measured (about 3%
# of a CPU by the per-event cost below). The median of many alternating pairs, with its
# 95% confidence interval from order statistics, says whether the target is met, missed,
# or not decidable on this machine; 5 pairs gave medians from 0.86 to 0.98 here.
set -euo pipefail
cd "$(dirname "$0")/.."
RTLTUNE=${RTLTUNE:-build/rtltune}
PAIRS=${PAIRS:-15}
SECS=${SECS:-2}
PATHS=${PATHS:-tso frames}
RATIO_TARGET=0.97
NS_TARGET=50
[ "$(id -u)" -eq 0 ] || { echo "bench-probes: needs root (network namespaces, BPF)" >&2; exit 2; }
[ -x "$RTLTUNE" ] || { echo "bench-probes: $RTLTUNE not built (run make)" >&2; exit 2; }
for c in iperf3 jq ethtool; do
	command -v $c >/dev/null || { echo "bench-probes: $c not installed (make deps)" >&2; exit 2; }
done

ID=rtlbench$$
A=$ID-a
B=$ID-b
TMP=$(mktemp -d /tmp/rtltune-bench.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	ip netns del "$A" 2>/dev/null || true
	ip netns del "$B" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$A"
ip netns add "$B"
ip link add va netns "$A" type veth peer name vb netns "$B"
ip -n "$A" addr add 10.99.0.1/24 dev va
ip -n "$B" addr add 10.99.0.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip netns exec "$B" iperf3 -s -B 10.99.0.2 >/dev/null 2>&1 &
PIDS+=($!)
for ((i = 0; i < 100; i++)); do
	ip netns exec "$B" ss -Hltn 'sport = :5201' | grep -q . && break
	sleep 0.05
done

set_path() {
	case $1 in
	tso)
		ip netns exec "$A" ethtool -K va tso on gso on
		ip netns exec "$B" ethtool -K vb gro off
		;;
	frames)
		ip netns exec "$A" ethtool -K va tso off gso off
		ip netns exec "$B" ethtool -K vb gro on
		;;
	esac
}

# iperf3 for SECS seconds; prints the received throughput in bit/s.
iperf() {
	ip netns exec "$A" iperf3 -c 10.99.0.2 -t "$SECS" -J >"$TMP/iperf.json"
	jq '.end.sum_received.bits_per_second' "$TMP/iperf.json"
}

# start_trace OUT [ARGS]: rtltune trace on both ends until SIGINT; waits until attached.
start_trace() {
	local out=$1 i
	shift
	"$RTLTUNE" trace "$A/va" "$B/vb" --json "$@" >"$out" 2>"$out.err" &
	TRACE=$!
	PIDS+=($TRACE)
	for ((i = 0; i < 200; i++)); do
		grep -qs '^Tracing' "$out.err" && return 0
		kill -0 "$TRACE" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench-probes: trace did not start: $(cat "$out.err")" >&2
	exit 2
}
stop_trace() {
	kill -INT "$TRACE"
	wait "$TRACE"
}

# The targets are judged on the default path; 'frames' (one event per frame, three probes
# per frame) is the worst case, reported for information.
judged() { [ "$1" = tso ]; }

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Distribution-free 95% confidence interval of the median: the order statistics at ranks
# n/2 -+ 0.98 sqrt(n) (normal approximation of the binomial), clamped to 1..n.
median_ci() {
	sort -g | awk '{v[NR] = $1} END {
		lo = int(NR / 2 - 0.98 * sqrt(NR)); hi = int(NR / 2 + 0.98 * sqrt(NR) + 1.999)
		if (lo < 1) lo = 1; if (hi > NR) hi = NR
		print v[lo], v[hi] }'
}

rc=0
echo "probes: iperf3 over a veth pair, $PAIRS on/off pairs x ${SECS}s per path, alternating"
for path in $PATHS; do
	set_path "$path"
	echo
	echo "path '$path'$([ "$path" = tso ] && echo " (veth defaults: TSO, 64 KiB skbs; targets judged here)" ||
		echo " (TSO/GSO off, GRO on at the receiver: one event per frame; worst case, for information)")"
	printf '  %-4s %14s %14s %8s\n' pair "off Gbit/s" "on Gbit/s" ratio
	: >"$TMP/ratios"
	for ((k = 1; k <= PAIRS; k++)); do
		# Alternate the order so a drift in the shared machine's load does not favour one.
		order=$([ $((k % 2)) -eq 1 ] && echo "off on" || echo "on off")
		for mode in $order; do
			if [ "$mode" = on ]; then
				start_trace "$TMP/trace.json"
				on=$(iperf)
				stop_trace
			else
				off=$(iperf)
			fi
		done
		ratio=$(echo "$on $off" | awk '{printf "%.4f", $1 / $2}')
		echo "$ratio" >>"$TMP/ratios"
		printf '  %-4s %14.2f %14.2f %8.3f\n' "$k" "$(echo "$off" | awk '{print $1 / 1e9}')" \
			"$(echo "$on" | awk '{print $1 / 1e9}')" "$ratio"
	done
	med=$(median <"$TMP/ratios")
	read -r ci_lo ci_hi < <(median_ci <"$TMP/ratios")
	ok=$(echo "$med $RATIO_TARGET" | awk '{print ($1 >= $2) ? "met" : "MISSED"}')
	# Where the interval straddles the target, the machine's noise decides, not the probes.
	decided=$(echo "$ci_lo $ci_hi $RATIO_TARGET" |
		awk '{print ($1 <= $3 && $2 >= $3) ? "the interval holds the target: noise decides" : "decided"}')
	printf '  median ratio %.3f, 95%% CI [%.3f, %.3f] over %d pairs (target >= %s: %s; %s)\n' \
		"$med" "$ci_lo" "$ci_hi" "$PAIRS" "$RATIO_TARGET" "$ok" "$decided"
	judged "$path" || ok=met
	[ "$ok" = met ] || rc=1

	# Per-event cost, in a run of its own with run-time stats on.
	start_trace "$TMP/stats.json" --stats
	iperf >/dev/null
	stop_trace
	floor=$(jq '.stats_floor.ns_per_run // 0' "$TMP/stats.json")
	echo "  per-event cost (BPF run-time stats over one ${SECS}s run, both ends; 'net' subtracts"
	echo "  the $floor ns/run an empty program costs here: the stats' clock reads and the call):"
	printf '    %-30s %-7s %12s %9s %9s %7s\n' probe hook runs "ns/run" "net ns" misses
	jq -r --argjson floor "$floor" '.probes[] | select(.state == "attached") |
		[.name, .hook, .run_count, (.ns_per_run // "-"),
		 (if .ns_per_run then ((.ns_per_run - $floor) * 10 | round / 10) else "-" end),
		 .recursion_misses] | @tsv' "$TMP/stats.json" |
		while IFS=$'\t' read -r name hook runs ns net miss; do
			printf '    %-30s %-7s %12s %9s %9s %7s\n' "$name" "$hook" "$runs" "$ns" "$net" "$miss"
		done
	# The cost an event pays on average (weighted by how often each probe ran), over the
	# floor; the slowest busy probe for reference (rare probes run on cold caches).
	read -r events avg worst_name worst < <(jq -r --argjson floor "$floor" '
		[.probes[] | select(.run_count >= 1000)] as $p |
		($p | map(.run_count) | add) as $n |
		($p | map(.run_time_ns) | add) as $t |
		($p | max_by(.ns_per_run)) as $w |
		"\($n) \(($t / $n - $floor) * 10 | round / 10) \($w.name) \(($w.ns_per_run - $floor) * 10 | round / 10)"' \
		"$TMP/stats.json")
	ok=$(echo "$avg $NS_TARGET" | awk '{print ($1 <= $2) ? "met" : "MISSED"}')
	echo "    $events events: $avg ns net per event (target <= $NS_TARGET: $ok);" \
		"slowest probe with >= 1000 runs: $worst_name $worst ns net"
	judged "$path" || ok=met
	[ "$ok" = met ] || rc=1
done

echo
echo "memory charged (memlock of every map and program fd):"
jq -r '"  traced set (2 interfaces): maps \(.map_memory_bytes) bytes, programs \(.prog_memory_bytes) bytes"' "$TMP/stats.json"
"$RTLTUNE" trace "$A/va" --seconds 0.1 --max-ifaces 256 --json 2>/dev/null |
	jq -r '"  sized for 256 interfaces:  maps \(.map_memory_bytes) bytes, programs \(.prog_memory_bytes) bytes"'
echo "  ($(getconf _NPROCESSORS_CONF) CPUs: the per-CPU maps grow with the CPU count)"
exit $rc
