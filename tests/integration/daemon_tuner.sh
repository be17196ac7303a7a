#!/bin/bash
# The autotuner inside rtltuned (docs/tuning.md): with TCP traffic pressing against a small
# gso_max_size it starts a trial, keeps it in flight in the journal until the verdict,
# records both decisions (log, journal, /metrics) and leaves the knob where the verdict
# says. A SIGKILL mid-trial is rolled back to the pre-trial value at the next start;
# `autotune off` mid-trial rolls back at once.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" ta "$B" tb
ip -n "$A" addr add 10.88.0.1/24 dev ta
ip -n "$B" addr add 10.88.0.2/24 dev tb
ip -n "$A" link set ta gso_max_size 16384
cat >"$T_TMP/rtltuned.conf" <<'CONF'
[daemon]
sample_interval = 200ms
[tuner]
baseline_samples = 4
settle_samples = 1
observe_samples = 4
CONF
# Parts 2 and 3 act in the middle of a trial: one of 20 observed samples (4 s) leaves
# the test room to act after it saw the trial applied, however slow the machine.
sed 's/^observe_samples = 4$/observe_samples = 20/' "$T_TMP/rtltuned.conf" >"$T_TMP/long-trial.conf"
# A server per part: iperf3 serves one test at a time, and a client killed mid-test
# leaves its server busy for a moment.
t_iperf3_servers "$B" 10.88.0.2 5201 5202 5203
traffic() { # PORT SECONDS, in the background; stop_traffic ends it
	t_in "$A" iperf3 -c 10.88.0.2 -p "$1" -t "$2" -P 2 >"$T_TMP/iperf.log" 2>&1 &
	TRAFFIC=$!
	t_defer "kill $TRAFFIC 2>/dev/null || true"
}
stop_traffic() {
	kill "$TRAFFIC" 2>/dev/null || true
	wait "$TRAFFIC" 2>/dev/null || true
}
wait_for() { # GREP-PATTERN FILE MAX-SECONDS
	local i
	for ((i = 0; i < $3 * 50; i++)); do
		grep -qE "$1" "$2" 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}
# wait_trial_applied WHAT: a trial from 16384 is on the device and in flight in the
# journal, now (not a line of an earlier run in the log), bounded at 10 s.
wait_trial_applied() {
	local i
	for ((i = 0; i < 500; i++)); do
		[ "$(t_ip_attr "$A" ta gso_max_size)" -gt 16384 ] &&
			grep -q '^inflight ta .*op=trial' "$D_STATE/journal" && return 0
		sleep 0.02
	done
	t_fail "$1: no trial applied and in flight within 10 s: $(tail -n 5 "$D_LOG")"
}

# 1. A trial and its verdict.
d_start "$A" --config "$T_TMP/rtltuned.conf" --interfaces ta
traffic 5201 10
wait_for 'ta: tuner trial gso_max_size 16384 -> ' "$D_LOG" 6 || t_fail "no trial started: $(cat "$D_LOG")"
echo "ok: trial started: $(grep -o 'tuner trial gso_max_size.*' "$D_LOG" | cut -c1-100)"
grep -q '^inflight ta .*op=trial' "$D_STATE/journal" ||
	wait_for '^inflight ta .*op=trial' "$D_STATE/journal" 1 || t_fail "trial not in flight in the journal"
echo "ok: trial in flight in the journal"
wait_for 'ta: tuner (kept|rolled_back) gso_max_size' "$D_LOG" 6 || t_fail "no verdict: $(cat "$D_LOG")"
verdict=$(grep -oE 'tuner (kept|rolled_back) gso_max_size [0-9]+ -> [0-9]+' "$D_LOG" | head -n 1)
echo "# verdict: $verdict"
case $verdict in
*kept*) want=$(echo "$verdict" | awk '{ print $NF }') ;;
*) want=16384 ;;
esac
# The first trial's in-flight record (its pre-value 16384) must end with the verdict. A
# kept raise makes its observed window the next baseline, so the next trial (from $want)
# may start one sample (200 ms) later: then the device holds that trial's value, and its
# own record (pre-value $want) is the one in flight.
first_in_flight() {
	awk '/^inflight ta / { b = 1; next } /^(inflight|iface|end) / { b = 0 }
	     b && $1 == "pre" && $2 == "gso_max_size" && $3 == 16384 { f = 1 } END { exit !f }' \
		"$D_STATE/journal"
}
for ((i = 0; i < 50; i++)); do first_in_flight || break; sleep 0.02; done
first_in_flight && t_fail "verdict given but the trial is still in flight"
echo "ok: in-flight record ended with the verdict"
# next_trial: the target of a trial from $want logged after the verdict, if any.
next_trial() {
	awk -v v="$verdict" -v w="$want" 'index($0, v) { s = 1; next }
	     s && match($0, "tuner trial gso_max_size " w " -> [0-9]+") {
		n = split(substr($0, RSTART, RLENGTH), f, " "); print f[n]; exit }' "$D_LOG"
}
value=$(t_ip_attr "$A" ta gso_max_size)
next=$(next_trial)
if [ "$value" != "$want" ] && [ -n "$next" ]; then
	echo "# the next trial, $want -> $next, already started"
	t_eq "$value" "$next" "gso_max_size in the next trial"
else
	t_eq "$value" "$want" "gso_max_size after the verdict"
fi
d_wait_samples 1
m=$(d_http /metrics)
# At least these: established connections take a kept raise at once (their routes are
# invalidated), so the next trial may already be under way.
t_ge "$(echo "$m" | awk '/^rtltune_tuning_decisions_total\{device="ta",knob="gso_max_size",outcome="trial"\}/ { print $2 }')" \
	1 "trials counted in /metrics"
t_ge "$(echo "$m" | awk '/^rtltune_tuning_decisions_total\{device="ta",knob="gso_max_size",outcome="(kept|rolled_back)"\}/ { s += $2 } END { print s + 0 }')" \
	1 "verdicts counted in /metrics"
t_eq "$(d_rtl --json recommend ta | jq -r '.interfaces[0].tuner | has("state") and has("candidates")')" \
	true "recommend carries the tuner's view"
# The NIC's receive-path rules say why they never apply to a veth (docs/tuning.md "Rules"):
# no NAPI with an IRQ to defer, no ring (nor qstats) to overrun.
d_rtl --json recommend ta >"$T_TMP/rec.json"
jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "napi-defer" or .rule == "ring-overruns") | "# " + .rule + ": " + .status + ": " + .reason' "$T_TMP/rec.json"
t_eq "$(jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "napi-defer") | .status' "$T_TMP/rec.json")" \
	not_allowed "napi-defer on a veth"
t_eq "$(jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "ring-overruns") | .status' "$T_TMP/rec.json")" \
	no_data "ring-overruns on a veth"
stop_traffic
d_stop >/dev/null || t_fail "unclean exit"

# 2. SIGKILL mid-trial: rolled back at the next start.
ip -n "$A" link set ta gso_max_size 16384
: >"$D_LOG"
d_start "$A" --config "$T_TMP/long-trial.conf" --interfaces ta
traffic 5202 10
# Kill once the trial is applied (journaled in flight, device changed), before a verdict.
wait_trial_applied "part 2"
kill -9 "$D_PID"
wait "$D_PID" 2>/dev/null || true
grep -qE 'ta: tuner (kept|rolled_back) gso_max_size 16384 ' "$D_LOG" &&
	t_fail "the trial ended before the SIGKILL: $(tail -n 3 "$D_LOG")"
trial_value=$(t_ip_attr "$A" ta gso_max_size)
t_ge "$trial_value" 32768 "trial value on the device after SIGKILL"
grep -q '^inflight ta .*op=trial' "$D_STATE/journal" || t_fail "no trial in flight after SIGKILL"
stop_traffic
d_start "$A" --config "$T_TMP/long-trial.conf" --interfaces ta
t_eq "$(t_ip_attr "$A" ta gso_max_size)" 16384 "pre-trial value back after the restart"
grep -q '^inflight' "$D_STATE/journal" && t_fail "in-flight record left after recovery"
grep -q 'ta: rolled back the trial that was in flight' "$D_LOG" || t_fail "recovery not logged"
echo "ok: interrupted trial rolled back and logged"

# 3. autotune off mid-trial: rolled back at once.
: >"$D_LOG"
traffic 5203 10
wait_trial_applied "part 3"
d_rtl autotune off ta >/dev/null
# The trial's verdict, had it come first, would precede the "autotune off" line.
awk '/ta: autotune off/ { exit } /ta: tuner (kept|rolled_back) gso_max_size 16384 / { v = 1; exit }
	END { exit !v }' "$D_LOG" && t_fail "the trial ended before autotune off: $(tail -n 3 "$D_LOG")"
t_eq "$(t_ip_attr "$A" ta gso_max_size)" 16384 "autotune off mid-trial: rolled back"
grep -q '^inflight' "$D_STATE/journal" && t_fail "in-flight record left after autotune off"
echo "ok: no trial in flight"
stop_traffic
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
