#!/bin/bash
# The autotuner against a grid search, in one run on one veth pair (issue 6). Bulk TCP
# from namespace A to B with iperf3.
#  1. Grid: every gso_max_size from 16K to 512K x TSO on/off, each measured as the median
#     of RUNS iperf3 runs of SECS seconds; the best setting and its throughput.
#  2. Tuner: back to gso_max_size 16384 with TSO on, rtltuned with its default settings
#     (1 s samples, 8 + 2 + 8 sample windows) tunes under two staggered loops of 1-second
#     iperf3 runs (new connections all the time: a socket keeps the gso_max_size it
#     connected with). Time to the last kept change, time to settle (no trial in progress,
#     the next raise at the limit or backing off), both from autotune on.
#  3. At LIMIT seconds (60) the setting reached is measured like the grid's.
#  4. Long-lived (issues 12, 26): back to 16384, a fresh rtltuned, and ONE iperf3 connection
#     of LL_LIMIT s (30) with autotune on from its start: its throughput over its last 5 s
#     (the tuner's changes reach an established connection only through the route
#     invalidation, docs/stack.md); LL_RUNS (3) runs, the median judged. Each run is paired
#     with a reference measured the same way right after it: one connection of LL_LIMIT s
#     at the grid's best setting, rtltuned running with autotune off, its last 5 s. One long
#     connection does not run at the rate of the grid's fresh 2 s ones (here 0.78-0.93 of
#     them at the same setting, rtltuned observing), so the tuner's connection is judged against the
#     same kind of flow at the best setting (the issue's own retry measured its grid on the
#     same flow too); the ratio to the fresh grid's best is printed beside it.
# Prints the figures and the ratio reached / grid best, judged against the target (issue 6:
# >= 0.9 within 60 s, and for one long-lived connection within 30 s; exit 1 when missed, or
# when a figure is missing); for context also the grid's own figure for the
# setting the tuner chose / grid best (one measurement phase, so the drift of a shared
# machine between the phases drops out). Knobs: RUNS (5), SECS (2), LIMIT (60), LL_LIMIT (30), LL_RUNS (3), SAMPLE (rtltuned
# sample_interval, 1s). For a closer look at the long-lived row alone (not a judged run):
# LL_ONLY=1 skips parts 1-3 and takes the best setting from LL_BEST ("65536 on").
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
RUNS=${RUNS:-5}
SECS=${SECS:-2}
LIMIT=${LIMIT:-60}
LL_LIMIT=${LL_LIMIT:-30}
LL_RUNS=${LL_RUNS:-3}
SAMPLE=${SAMPLE:-1s}
TARGET=0.9
[ -x "$RTLTUNED" ] || { echo "bench-tuner: build first (make)" >&2; exit 2; }
for tool in iperf3 jq ethtool; do
	command -v $tool >/dev/null || { echo "bench-tuner: $tool not installed (scripts/deps.sh)" >&2; exit 2; }
done

A=rtbtA$$ B=rtbtB$$ DST=10.78.0.2
tmp=$(mktemp -d)
loops=() pid=
cleanup() {
	set +e
	for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	for ns in $A $B; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add $A
ip netns add $B
ip -n $A link set lo up
ip -n $B link set lo up
ip link add bt0 netns $A type veth peer name bt1 netns $B
ip -n $A addr add 10.78.0.1/24 dev bt0
ip -n $B addr add $DST/24 dev bt1
ip -n $A link set bt0 up
ip -n $B link set bt1 up
for port in 5201 5202; do ip netns exec $B iperf3 -s -B $DST -p $port -D; done
sleep 0.3

set_knobs() { # GSO TSO(on|off)
	ip -n $A link set bt0 gso_max_size "$1"
	ip netns exec $A ethtool -K bt0 tso "$2"
}
# mbps: median of RUNS runs (Mbit/s, integer).
mbps() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		ip netns exec $A iperf3 -c $DST -p 5201 -t "$SECS" -J | jq '.end.sum_received.bits_per_second / 1e6 | floor'
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# ratio A B: A / B to two places; nothing (no figure) unless both are numbers and B > 0.
ratio() {
	is_number "$1" && is_number "$2" || return 0
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b }'
}
secs() { [ -n "$1" ] && printf '%.1f s' "$1" || printf '%s' "$2"; }

LL_ONLY=${LL_ONLY:-}
if [ -n "$LL_ONLY" ]; then
	read -r best_gso best_tso <<<"${LL_BEST:-65536 on}"
	best=0
	printf '[daemon]\nsample_interval = %s\n' "$SAMPLE" >"$tmp/rtltuned.conf"
	export RTLTUNE_SOCKET=$tmp/control.sock
else
echo "grid: gso_max_size x TSO, median of $RUNS iperf3 runs of $SECS s each (Mbit/s)"
printf '  %-12s %10s %10s\n' gso_max_size "TSO on" "TSO off"
best=0 best_set=
declare -A grid
for gso in 16384 32768 65536 131072 262144 524280; do
	for tso in on off; do
		set_knobs $gso $tso
		grid[$gso.$tso]=$(mbps)
		if [ "${grid[$gso.$tso]}" -gt "$best" ]; then
			best=${grid[$gso.$tso]}
			best_set="gso_max_size $gso, TSO $tso"
			best_gso=$gso best_tso=$tso
		fi
	done
	printf '  %-12s %10s %10s\n' $gso "${grid[$gso.on]}" "${grid[$gso.off]}"
done
echo "  best: $best Mbit/s ($best_set)"

set_knobs 16384 on
printf '[daemon]\nsample_interval = %s\n' "$SAMPLE" >"$tmp/rtltuned.conf"
export RTLTUNE_SOCKET=$tmp/control.sock
ip netns exec $A "$RTLTUNED" --foreground --config "$tmp/rtltuned.conf" --socket "$RTLTUNE_SOCKET" \
	--state-dir "$tmp/state" --metrics 127.0.0.1:9775 --interfaces bt0 --no-autotune \
	>"$tmp/rtltuned.log" 2>&1 &
pid=$!
for ((i = 0; i < 100; i++)); do "$RTLTUNE" status >/dev/null 2>&1 && break; sleep 0.05; done
for port in 5201 5202; do
	(while :; do ip netns exec $A iperf3 -c $DST -p $port -t 1 >/dev/null 2>&1 || sleep 0.1; done) &
	loops+=($!)
	sleep 0.5
done
# The tuner's window fills while autotune is off; the clock starts when it may act.
sleep 2
t0=$(date +%s.%N)
"$RTLTUNE" autotune on bt0 >/dev/null
settled=
while :; do
	now=$(date +%s.%N)
	el=$(awk -v a="$now" -v b="$t0" 'BEGIN { print a - b }')
	awk -v e="$el" -v l="$LIMIT" 'BEGIN { exit !(e >= l) }' && break
	if [ -z "$settled" ] && [ "$("$RTLTUNE" --json status bt0 | jq -c .interfaces[0].tuner.trial)" = null ]; then
		case $("$RTLTUNE" --json recommend bt0 | jq -r '.interfaces[0].tuner.candidates[] |
			select(.rule == "gso-at-cap") | .status') in
		backoff | at_limit) settled=$el ;;
		esac
	fi
	sleep 0.5
done
"$RTLTUNE" autotune off bt0 >/dev/null # nothing further during the measurement
for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done
loops=()
sleep 1.2 # the last 1-second runs end
last_kept=$("$RTLTUNE" --json log --lines 512 | jq -r --argjson t0 "$t0" '[.entries[] |
	select(.message | test("^tuner kept ")) | .time - $t0] | max // empty')
echo
echo "tuner (rtltuned defaults, $SAMPLE samples), from gso_max_size 16384, TSO on:"
"$RTLTUNE" --json log --lines 512 | jq -r --argjson t0 "$t0" '.entries[] |
	select(.message | test("^tuner ")) |
	"  \(.time - $t0 | . * 10 | round / 10 | tostring | .[0:6]) s  \(.message | sub("^tuner "; "") | .[0:150])"'
gso=$(ip -n $A -d -j link show bt0 | jq .[0].gso_max_size)
tso=$(ip netns exec $A ethtool -k bt0 | awk '$1 == "tcp-segmentation-offload:" { print $2 }')
reached=$(mbps)
echo "  last kept change: $(secs "$last_kept" none); settled: $(secs "$settled" "not within $LIMIT s")"
echo "  reached at $LIMIT s: gso_max_size $gso, TSO $tso: $reached Mbit/s"
r_now=$(ratio "$reached" "$best")
g=${grid[$gso.$tso]:-0}
r_grid=$(ratio "$g" "$best")
echo "  ratio reached / grid best: ${r_now:--} (the grid measured $g Mbit/s at this setting: ${r_grid:--} of its best)"
ok=$(judge "$r_now" '>=' $TARGET)
echo "  target >= $TARGET of the grid's best within $LIMIT s: $ok"
summary "tuner: reached at $LIMIT s / grid best (${best:--} Mbit/s)" "${r_now:--}" ">= $TARGET" "$ok"
summary "  time to the last kept change; to settle" "$(secs "$last_kept" none); $(secs "$settled" "not within $LIMIT s")" \
	"-" "information"

# 4. One long-lived connection, LL_RUNS times: a fresh daemon (no history) each, the same
# start; the median of the runs is judged, every run printed.
"$RTLTUNE" autotune off bt0 >/dev/null 2>&1 || true
kill "$pid" && wait "$pid" 2>/dev/null
pid=
fi
echo
echo "long-lived: one connection from gso_max_size 16384, autotune on from its start, $LL_RUNS runs:"
lls=() llg=()
for ((run = 1; run <= LL_RUNS; run++)); do
	set_knobs 16384 on
	rm -rf "$tmp/state-ll"
	ip netns exec $A "$RTLTUNED" --foreground --config "$tmp/rtltuned.conf" --socket "$RTLTUNE_SOCKET" \
		--state-dir "$tmp/state-ll" --metrics 127.0.0.1:9775 --interfaces bt0 \
		>"$tmp/rtltuned-ll.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do "$RTLTUNE" status >/dev/null 2>&1 && break; sleep 0.05; done
	ll_t0=$(date +%s.%N)
	ip netns exec $A iperf3 -c $DST -p 5201 -t "$LL_LIMIT" -i 1 -J >"$tmp/ll.json"
	ll=$(jq -r --argjson l "$LL_LIMIT" '[.intervals[].sum.bits_per_second] as $v |
		($v[$l - 5:$l] | add / length / 1e6 | floor), ($v[0:5] | add / length / 1e6 | floor)' "$tmp/ll.json" | paste -sd' ')
	read -r ll_at ll_first <<<"$ll"
	ll_gso=$(ip -n $A -d -j link show bt0 | jq .[0].gso_max_size)
	"$RTLTUNE" --json log --lines 512 >"$tmp/ll-log.json"
	kept=$(jq -r '[.entries[] | select(.message | test("^tuner kept ")) |
		.message | capture("-> (?<v>[0-9]+)").v] | join(" ")' "$tmp/ll-log.json")
	kill "$pid" && wait "$pid" 2>/dev/null
	pid=
	# The reference: the same flow at the grid's best setting, the tuner off.
	set_knobs "$best_gso" "$best_tso"
	rm -rf "$tmp/state-ll"
	ip netns exec $A "$RTLTUNED" --foreground --config "$tmp/rtltuned.conf" --socket "$RTLTUNE_SOCKET" \
		--state-dir "$tmp/state-ll" --metrics 127.0.0.1:9775 --interfaces bt0 --no-autotune \
		>"$tmp/rtltuned-ref.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do "$RTLTUNE" status >/dev/null 2>&1 && break; sleep 0.05; done
	ip netns exec $A iperf3 -c $DST -p 5201 -t "$LL_LIMIT" -i 1 -J >"$tmp/ref.json"
	ref_at=$(jq -r --argjson l "$LL_LIMIT" '[.intervals[].sum.bits_per_second] as $v |
		$v[$l - 5:$l] | add / length / 1e6 | floor' "$tmp/ref.json")
	r=$(ratio "$ll_at" "$ref_at")
	rg=$(ratio "$ll_at" "$best")
	lls+=("${r:-0}")
	llg+=("${rg:-0}")
	echo "  run $run: first 5 s $ll_first Mbit/s; s $((LL_LIMIT - 5))-$LL_LIMIT: $ll_at Mbit/s (kept: ${kept:-none}; gso_max_size $ll_gso at the end); the same flow at the best setting: $ref_at Mbit/s: ${r:--} of it (${rg:--} of the fresh grid's best)"
	[ -n "$LL_ONLY" ] && echo "    per second (Gbit/s): $(jq -r '[.intervals[].sum.bits_per_second / 1e8 | round / 10] | join(" ")' "$tmp/ll.json")"
	if [ -n "$LL_ONLY" ] || [ "$(judge "$r" '>=' $TARGET)" != met ]; then
		jq -r --argjson t0 "$ll_t0" '.entries[] | select(.message | test("^tuner ")) |
			select(.message | test("^tuner step .*switchback pair") | not) |
			"    \(.time - $t0 | . * 10 | round / 10) s \(.message | .[0:300])"' <"$tmp/ll-log.json"
	fi
	kill "$pid" && wait "$pid" 2>/dev/null
	pid=
done
r_ll=$(printf '%s\n' "${lls[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
r_llg=$(printf '%s\n' "${llg[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
ok_ll=$(judge "$r_ll" '>=' $TARGET)
echo "  median of $LL_RUNS runs at $LL_LIMIT s / the same flow at the best setting: $r_ll (runs: ${lls[*]}); target >= $TARGET: $ok_ll"
echo "  (against the fresh grid's best: median $r_llg, runs: ${llg[*]})"
summary "  one long-lived connection at $LL_LIMIT s / one at the best setting (median of $LL_RUNS: ${lls[*]})" "${r_ll:--}" ">= $TARGET" "$ok_ll"
summary "    the same / the fresh grid's best (median of $LL_RUNS: ${llg[*]})" "${r_llg:--}" "-" "information"
[ -n "$LL_ONLY" ] && { [ "$ok_ll" = met ]; exit; }
[ "$ok" = met ] && [ "$ok_ll" = met ]
