#!/bin/bash
# What rtltuned's probes cost the rest of the host, and what `probes = off` saves (issue 24,
# docs/probes.md "Host-wide cost"). The probes are tracepoint programs: the kernel runs them
# on every event of the hook in every network namespace, and the filter that drops the
# traffic of interfaces rtltuned does not manage runs inside them. So a daemon that manages
# one idle veth still runs its programs on every frame other namespaces send.
#
# Set-up: namespace D holds an idle veth pair; rtltuned runs in D managing one end of it
# (interfaces = da), with `probes = on` or `probes = off`. Namespaces A and B run iperf3
# over their own veth pair on the frames path (TSO/GSO off at the sender, GRO on at the
# receiver: one transmit event per frame, the worst case). Modes, in rotating order,
# RUNS times each: no daemon, the daemon with probes = off, the daemon with probes = on.
# Per run:
#  - the probes' share of the busy CPU (perf samples of every CPU, as bench-probes.sh counts
#    them: the tracepoint dispatch and our programs, over the samples not idle);
#  - with probes = on, the kernel's BPF run-time stats of every rtl_* program (bpftool prog
#    show: run_cnt, run_time_ns; the daemon, run as root, holds BPF_ENABLE_STATS and loads
#    the empty rtl_floor program on net_dev_start_xmit, whose ns per run is what the stats
#    and the call cost by themselves); the frames A sent (va's tx_packets). From these:
#    runs per second and per frame, ns per run (gross, and net of the empty program), BPF
#    time per frame sent;
#  - iperf3's throughput.
# Prints one line per figure (medians over the runs) and appends them to $BENCH_SUMMARY.
# Knobs: RUNS (5), SECS (6: seconds of traffic per run; perf samples the middle PERF_SECS=3).
set -euo pipefail
cd "$(dirname "$0")/.."
RTLTUNE=${RTLTUNE:-build/rtltune}
RTLTUNED=${RTLTUNED:-build/rtltuned}
RUNS=${RUNS:-5}
SECS=${SECS:-6}
PERF_SECS=${PERF_SECS:-3}
. scripts/bench-lib.sh
[ "$(id -u)" -eq 0 ] || { echo "bench-hostwide: needs root (network namespaces, BPF)" >&2; exit 2; }
for b in "$RTLTUNE" "$RTLTUNED"; do
	[ -x "$b" ] || { echo "bench-hostwide: $b not built (run make)" >&2; exit 2; }
done
for c in iperf3 jq ethtool bpftool perf; do
	command -v $c >/dev/null ||
		{ echo "bench-hostwide: $c not installed (scripts/deps.sh bench)" >&2; exit 2; }
done

ID=rtlhw$$
A=$ID-a B=$ID-b D=$ID-d
TMP=$(mktemp -d /tmp/rtltune-hostwide.XXXXXX)
DAEMON=
IPERF_SRV=
cleanup() {
	bench_stop "$DAEMON"
	bench_stop "$IPERF_SRV"
	bench_netns_del "$A" "$B" "$D"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in "$A" "$B" "$D"; do
	ip netns add "$ns"
	ip -n "$ns" link set lo up
done
ip link add va netns "$A" type veth peer name vb netns "$B"
ip link add da netns "$D" type veth peer name db netns "$D"
ip -n "$A" addr add 10.98.0.1/24 dev va
ip -n "$B" addr add 10.98.0.2/24 dev vb
for l in "$A va" "$B vb" "$D da" "$D db"; do
	# shellcheck disable=SC2086
	set -- $l
	ip -n "$1" link set "$2" up
done
ip netns exec "$A" ethtool -K va tso off gso off
ip netns exec "$B" ethtool -K vb gro on
ip netns exec "$B" iperf3 -s -B 10.98.0.2 >/dev/null 2>&1 &
IPERF_SRV=$!
for ((i = 0; i < 100; i++)); do
	ip netns exec "$B" ss -Hltn 'sport = :5201' | grep -q . && break
	sleep 0.05
done

# start_daemon on|off: rtltuned in D managing da; waits until it answers.
start_daemon() {
	printf '[daemon]\ninterfaces = da\nprobes = %s\nmetrics = off\n' "$1" >"$TMP/rtltuned.conf"
	ip netns exec "$D" "$RTLTUNED" --foreground --config "$TMP/rtltuned.conf" \
		--socket "$TMP/ctl.sock" --state-dir "$TMP/state" >"$TMP/daemon.log" 2>&1 &
	DAEMON=$!
	for ((i = 0; i < 200; i++)); do
		RTLTUNE_SOCKET=$TMP/ctl.sock "$RTLTUNE" status >/dev/null 2>&1 && return 0
		kill -0 "$DAEMON" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench-hostwide: rtltuned did not start: $(cat "$TMP/daemon.log")" >&2
	exit 2
}
stop_daemon() {
	kill "$DAEMON"
	wait "$DAEMON" || true
	DAEMON=
}

# daemon_prog_ids PID: the ids of the BPF programs PID holds, comma-separated ("" for none
# or no PID).
daemon_prog_ids() {
	[ -n "$1" ] || return 0
	{ grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '{ print $2 }' |
		sort -un | paste -sd, -
}
# bpf_stats: "RUNS NS FLOOR_RUNS FLOOR_NS" summed over the programs the daemon holds (the
# prog_id of each of its BPF file descriptors: another rtltune on the host has its own).
bpf_stats() {
	local ids
	ids=$(daemon_prog_ids "$DAEMON")
	bpftool prog show -j | jq -r --arg ids "$ids" '
		($ids | split(",") | map(tonumber)) as $mine
		| [.[] | select(.id as $i | $mine | index($i))] as $p
		| [($p | map(select(.name != "rtl_floor") | .run_cnt // 0) | add // 0),
		   ($p | map(select(.name != "rtl_floor") | .run_time_ns // 0) | add // 0),
		   ($p | map(select(.name == "rtl_floor") | .run_cnt // 0) | add // 0),
		   ($p | map(select(.name == "rtl_floor") | .run_time_ns // 0) | add // 0)]
		| @tsv'
}
# Tracing programs on the host that are not this bench's daemon's (other rtltune runs): they
# add to every mode's share alike, and the report says how many there were.
foreign_progs() {
	local ids
	ids=$(daemon_prog_ids "${DAEMON:-}")
	bpftool prog show -j | jq --arg ids "$ids" '
		($ids | split(",") | map(select(. != "") | tonumber)) as $mine
		| [.[] | select(.type == "tracing" or .type == "raw_tracepoint")
		       | select(.id as $i | ($mine | index($i)) | not)] | length'
}
tx_packets() { ip -n "$A" -s -j link show dev va | jq '.[0].stats64.tx.packets'; }

# one_run MODE (none, off, on): appends to $TMP/MODE.* the run's figures.
one_run() {
	local mode=$1 ip s0 s1 f0 f1 t0 t1 busy probes
	[ "$mode" = none ] || start_daemon "$mode"
	ip netns exec "$A" iperf3 -c 10.98.0.2 -t "$SECS" -J >"$TMP/iperf.json" &
	ip=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(ip netns exec "$A" ss -Htn state established '( dport = :5201 )' | grep -c .)" -ge 2 ] &&
			break
		sleep 0.05
	done
	sleep 1
	foreign_progs >>"$TMP/foreign"
	s0=(0 0 0 0)
	[ "$mode" != on ] || read -r -a s0 < <(bpf_stats)
	f0=$(tx_packets)
	t0=$(date +%s.%N)
	perf record -q -a -F 2999 -o "$TMP/perf.data" -- sleep "$PERF_SECS" >"$TMP/perf.err" 2>&1 ||
		{ echo "bench-hostwide: perf record failed: $(cat "$TMP/perf.err")" >&2; exit 2; }
	t1=$(date +%s.%N)
	f1=$(tx_packets)
	s1=(0 0 0 0)
	[ "$mode" != on ] || read -r -a s1 < <(bpf_stats)
	foreign_progs >>"$TMP/foreign"
	wait "$ip"
	[ "$mode" = none ] || stop_daemon
	perf report -i "$TMP/perf.data" --sort sym --stdio -n >"$TMP/perf.txt" 2>"$TMP/perf.err" ||
		{ echo "bench-hostwide: perf report failed: $(cat "$TMP/perf.err")" >&2; exit 2; }
	read -r busy probes < <(bench_perf_share "$TMP/perf.txt")
	echo "$probes $busy" | awk '{ printf "%.2f\n", $1 / $2 * 100 }' >>"$TMP/$mode.share"
	jq '.end.sum_received.bits_per_second / 1e9 * 10 | round / 10' "$TMP/iperf.json" \
		>>"$TMP/$mode.gbit"
	[ "$mode" = on ] || return 0
	# Runs, ns and frames over the same window (perf's).
	awk -v r="$((s1[0] - s0[0]))" -v ns="$((s1[1] - s0[1]))" -v fr="$((s1[2] - s0[2]))" \
		-v fns="$((s1[3] - s0[3]))" -v frames="$((f1 - f0))" -v t0="$t0" -v t1="$t1" '
		BEGIN {
			if (r <= 0 || frames <= 0 || fr <= 0) { print "no runs or no frames" > "/dev/stderr"; exit 1 }
			floor = fns / fr
			printf "%.0f %.3f %.1f %.1f %.1f %.1f\n", r / (t1 - t0), r / frames, ns / r, \
				ns / r - floor, ns / frames, floor
		}' >>"$TMP/on.bpf"
}

for ((run = 0; run < RUNS; run++)); do
	case $((run % 3)) in
	0) order="none off on" ;;
	1) order="off on none" ;;
	2) order="on none off" ;;
	esac
	for m in $order; do one_run "$m"; done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$1" '{ print $c }' "$TMP/on.bpf" | median; }
echo "bench-hostwide: rtltuned manages one idle veth in its own namespace; another namespace"
echo "  sends MTU-sized frames over its own veth pair (frames path), $RUNS runs, medians:"
printf '  probes = on: programs run %s per second (%s per frame sent)\n' "$(col 1)" "$(col 2)"
printf '  probes = on: %s ns per run (%s ns net of the empty program, which costs %s ns here)\n' \
	"$(col 3)" "$(col 4)" "$(col 6)"
printf '  probes = on: %s ns of BPF time per frame another namespace sends\n' "$(col 5)"
for m in none off on; do
	printf '  %-13s probes'"'"' share of the busy CPU %s%%, iperf3 %s Gbit/s\n' \
		"$([ "$m" = none ] && echo "no daemon:" || echo "probes = $m:")" \
		"$(median <"$TMP/$m.share")" "$(median <"$TMP/$m.gbit")"
done
echo "  tracing programs of other processes loaded during the runs: $(sort -g "$TMP/foreign" |
	sed -n '1p;$p' | paste -sd- -) (they add to every mode's share alike)"
summary "host-wide: program runs per frame of another netns" "$(col 2)" "" ""
summary "host-wide: BPF ns per frame of another netns (probes = on)" "$(col 5)" "" ""
summary "host-wide: CPU share, probes = on / off / no daemon" \
	"$(median <"$TMP/on.share")% / $(median <"$TMP/off.share")% / $(median <"$TMP/none.share")%" \
	"off = no daemon" "$(awk -v a="$(median <"$TMP/off.share")" -v b="$(median <"$TMP/none.share")" \
		'BEGIN { print (a <= b + 0.05) ? "met" : "MISSED" }')"
