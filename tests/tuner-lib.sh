#!/bin/bash
# Helpers for the autotuner's acceptance tests (tests/integration/tuner_*.sh, issue 6).
# Source after tests/lib.sh and tests/daemon-lib.sh. The testbed: namespace A sends bulk
# TCP over the veth pair ta -> tb to an iperf3 server in namespace B; rtltuned runs in A and
# manages ta only. Throughput is what iperf3 reports (JSON), retransmits what the sender's
# namespace counts in /proc/net/snmp: neither comes from the daemon under test.
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
command -v jq >/dev/null || t_skip "jq not installed"

TN_A='' TN_B=''
# The managed interface the helpers below ask the daemon about (the chip model scenarios
# use va of tests/chipmodel-lib.sh).
TN_IF=${TN_IF:-ta}
TN_LOOPS=()
TN_DST=10.89.0.2

# tn_setup [OPTION...]: the namespaces, the veth pair (no IPv6 chatter; OPTIONs for both
# ends, as t_veth_pair takes them), iperf3 servers on ports 5201 and 5202 listening.
tn_setup() {
	TN_A=$(t_netns a)
	TN_B=$(t_netns b)
	t_veth_pair "$TN_A" ta "$TN_B" tb "$@"
	t_silence "$TN_A" ta
	t_silence "$TN_B" tb
	ip -n "$TN_A" addr add 10.89.0.1/24 dev ta
	ip -n "$TN_B" addr add $TN_DST/24 dev tb
	t_iperf3_servers "$TN_B" $TN_DST 5201 5202
}

# tn_conf FILE [TUNER-LINES...]: the daemon's configuration. 500 ms samples halve the
# tuner's windows in time (8 + 2 + 8 samples: 9 s per trial) while keeping their size, so
# the criterion judges as many samples as with the 1 s default.
tn_conf() {
	local f=$1 l
	shift
	{
		printf '[daemon]\nsample_interval = 500ms\n[tuner]\n'
		for l in "$@"; do echo "$l"; done
	} >"$f"
}

# tn_loop_start [IPERF-ARGS...]: bulk TCP from A to B in the background: two loops of
# 1-second iperf3 runs, staggered by half a second so that one's gaps (connection setup,
# teardown) fall into the other's transfer. New connections all the time, the traffic of
# web and RPC servers (tuner_longlived covers connections that stay open: the actuator
# re-routes them after a change, docs/stack.md).
tn_loop_start() {
	local args="$*" port
	for port in 5201 5202; do
		# shellcheck disable=SC2086
		(while :; do ip netns exec "$TN_A" iperf3 -c $TN_DST -p $port -t 1 $args >/dev/null 2>&1 || sleep 0.1; done) &
		TN_LOOPS+=($!)
		sleep 0.5
	done
	t_defer "tn_loop_stop"
}

# The iperf3 runs in flight finish within their second; a server takes one client at a
# time, so tn_loop_stop waits until they are done.
tn_loop_stop() {
	t_stop_loops "$TN_A" '^iperf3 -c ' "${TN_LOOPS[@]}"
	TN_LOOPS=()
}

# tn_mbps_median RUNS SECONDS [IPERF-ARGS...]: median throughput (Mbit/s, integer) of RUNS
# separate iperf3 runs, as the receiver counted it. One run proves nothing on a shared
# machine (the fec thread's 10-second runs disagreed wildly); the median of several does.
tn_mbps_median() {
	local runs=$1 secs=$2 i v=()
	shift 2
	for ((i = 0; i < runs; i++)); do
		v+=("$(t_in "$TN_A" iperf3 -c $TN_DST -t "$secs" -J "$@" |
			jq '.end.sum_received.bits_per_second / 1e6 | floor')")
	done
	printf '%s\n' "${v[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
	echo "# runs (Mbit/s): ${v[*]}" >&2
}

# tn_retrans SECONDS: what A sent over the next SECONDS (traffic must be running):
# TN_RETRANS retransmitted segments of TN_SEGS, TN_PPM per million; TN_DSACK of them
# reported twice by the receiver (spurious: veth reorders, docs/tuning.md) and TN_LOSS_PPM
# the others per million, the ones that were lost.
tn_retrans() {
	local b a d0 d1
	[ -n "$(t_tcp_dsack "$TN_A")" ] || t_skip "the kernel has no TCPDSACKRecvSegs"
	read -ra b <<<"$(t_tcp_counts "$TN_A")"
	d0=$(t_tcp_dsack "$TN_A")
	sleep "$1"
	read -ra a <<<"$(t_tcp_counts "$TN_A")"
	d1=$(t_tcp_dsack "$TN_A")
	TN_RETRANS=$((a[0] - b[0]))
	TN_SEGS=$((a[1] - b[1]))
	TN_DSACK=$((d1 - d0))
	TN_PPM=$((TN_RETRANS * 1000000 / (TN_SEGS > 0 ? TN_SEGS : 1)))
	# A DSACK comes a round trip after its retransmit: one may fall in the next window.
	TN_LOSS_PPM=$(((TN_RETRANS > TN_DSACK ? TN_RETRANS - TN_DSACK : 0) * 1000000 /
		(TN_SEGS > 0 ? TN_SEGS : 1)))
}

# tn_ratio FILE [FIRST]: "FIRST LAST PERCENT" of one connection (iperf3 -i 1 -J): its mean
# Gbit/s over the first FIRST s (5) and over the last 5 s, and the last over the first in
# percent.
tn_ratio() {
	jq -r --argjson f "${2:-5}" '[.intervals[].sum.bits_per_second] as $v | ($v | length) as $n |
		(($v[0:$f] | add) / $f) as $first | (($v[$n - 5:$n] | add) / 5) as $last |
		"\($first / 1e9 * 100 | floor / 100) \($last / 1e9 * 100 | floor / 100) \($last / $first * 100 | floor)"' "$1"
}

# The tuner's decisions so far, from `rtltune --json log`: one line each,
# "SECONDS-SINCE-EPOCH OUTCOME KNOB OLD -> NEW: REASON".
tn_decisions() {
	d_rtl --json log --lines 512 | jq -r --arg i "$TN_IF" '.entries[] | select(.iface == $i) |
		select(.message | test("^tuner (trial|step|kept|rolled_back|abandoned|failed) ")) |
		"\(.time | floor) \(.message | sub("^tuner "; ""))"'
}

# tn_wait_decision REGEX SECONDS: poll the log until a decision matches (bounded); prints it.
tn_wait_decision() {
	local re=$1 deadline=$((SECONDS + $2)) line
	while [ $SECONDS -le $deadline ]; do
		line=$(tn_decisions | grep -E -m1 "$re" || true)
		[ -n "$line" ] && { echo "$line"; return 0; }
		sleep 0.25
	done
	return 1
}

# tn_flows_until_settled MAX_SECONDS IFACE... -- PID...: long-lived iperf3 clients (PIDs,
# started with -t of at least MAX_SECONDS + 10 and -J, as `ip netns exec ... iperf3 &` so
# that a PID is iperf3 itself) run until the tuner settled on every IFACE: a gso_max_size
# raise kept there, no trial in progress, the next raise at the limit or backing off. Then
# 5 s more, the window the acceptance figures measure (tn_ratio), and SIGINT: iperf3 ends
# with the JSON of the intervals so far. Not settled within MAX_SECONDS: the flows run
# their -t.
# Returns once every client ended.
tn_flows_until_settled() {
	local max=$1 deadline ifs=() pids=() i p settled
	shift
	while [ "$1" != -- ]; do ifs+=("$1"); shift; done
	shift
	pids=("$@")
	deadline=$((SECONDS + max))
	while [ $SECONDS -le $deadline ]; do
		settled=1
		for i in "${ifs[@]}"; do
			[ "$(TN_IF=$i tn_tuner trial)" = null ] &&
				(TN_IF=$i tn_decisions | grep -q ' kept gso_max_size ') &&
				case $(TN_IF=$i tn_candidate gso-at-cap) in backoff | at_limit) true ;; *) false ;; esac ||
				{ settled=0; break; }
		done
		[ $settled = 1 ] && break
		sleep 0.5
	done
	if [ $settled = 1 ]; then
		echo "# tuner settled on ${ifs[*]} at ${SECONDS}s of the test: 5 s more, then the flows end"
		sleep 5
		kill -INT "${pids[@]}" 2>/dev/null || true
	else
		echo "# tuner not settled on ${ifs[*]} within $max s: the flows run their course"
	fi
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

# tn_flow_ok FILE WHAT: iperf3's JSON holds at least 10 intervals (tn_ratio's first and
# last windows do not overlap; a switchback tuner settles a long-lived flow within 10 s, and
# the flows end 5 s later) and no error but the interrupt that tn_flows_until_settled sends.
tn_flow_ok() {
	local n err
	n=$(jq '.intervals | length' "$1" 2>/dev/null) || t_fail "$2 failed: $(tail -c 300 "$1")"
	err=$(jq -r '.error // ""' "$1")
	case $err in "" | "interrupt - the client has terminated") ;; *) t_fail "$2 failed: $err" ;; esac
	t_ge "$n" 10 "$2: seconds of intervals"
}

# tn_tuner FIELD: a field of ta's tuner state in `rtltune status` (state, trial, ...).
tn_tuner() { d_rtl --json status "$TN_IF" | jq -c ".interfaces[0].tuner.$1"; }

# tn_candidate RULE: status of a rule in `rtltune recommend` ("ready", "backoff", ...).
tn_candidate() {
	d_rtl --json recommend "$TN_IF" | jq -r --arg r "$1" '.interfaces[0].tuner.candidates[] | select(.rule == $r) | .status'
}

# tn_dump: what a failing test shows about the daemon.
tn_dump() {
	echo "--- decisions:"
	tn_decisions || true
	echo "--- recommend:"
	d_rtl recommend "$TN_IF" || true
	echo "--- daemon log (tail):"
	tail -n 20 "$D_LOG"
}

# t_defer tn_dump_on_fail after d_start; tn_done as the test's last line.
tn_dump_on_fail() { [ "${TN_DONE:-}" = 1 ] || tn_dump; }
tn_done() { TN_DONE=1; }
