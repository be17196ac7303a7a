#!/bin/bash
# Soak with the autotuner (docs/tuning.md): TCP traffic presses against a small
# gso_max_size so rtltuned keeps starting trials.
#  1. CLI applies race a trial (4 workers, until its verdict): each either applies or is
#     refused with exit 3 naming the daemon's trial in flight (EBUSY), never anything
#     else, and the journal never holds two operations for the device.
#  2. rtltuned is SIGKILLed 3 times (SOAK_TRIAL_KILLS; `make soak` 5), each kill aimed at
#     an event the test waits for: odd rounds the moment a trial's in-flight record is in the journal,
#     even rounds right after a verdict (between trials). Restarted, it rolls an orphaned
#     trial back at start, and `rtltune restore` then gives exactly the values from
#     before anything ran.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
KILLS=${SOAK_TRIAL_KILLS:-3}

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" ta "$B" tb
ip -n "$A" addr add 10.89.0.1/24 dev ta
ip -n "$B" addr add 10.89.0.2/24 dev tb
ip -n "$A" link set ta gso_max_size 16384
before=$(t_link_state "$A" ta)
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\ngro = on\ngro_max_size = 131072\n' >"$RTLTUNE_PROFILE_PATH/t1.conf"
printf '[knobs]\ngro = off\ngro_max_size = 65536\n' >"$RTLTUNE_PROFILE_PATH/t2.conf"
cat >"$T_TMP/rtltuned.conf" <<'CONF'
[daemon]
sample_interval = 200ms
[tuner]
baseline_samples = 4
settle_samples = 1
observe_samples = 4
CONF
printf '[daemon]\nsample_interval = 200ms\nautotune = no\n' >"$T_TMP/recover.conf"
t_in "$B" iperf3 -s -p 5202 >"$T_TMP/iperf-server.log" 2>&1 &
SERVER=$!
t_defer "kill $SERVER 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do t_in "$B" ss -Hltn | grep -q ':5202 ' && break; sleep 0.05; done
t_in "$A" iperf3 -c 10.89.0.2 -p 5202 -t 300 -P 2 >"$T_TMP/iperf.log" 2>&1 &
TRAFFIC=$!
t_defer "kill $TRAFFIC 2>/dev/null || true"
trials() { grep -c 'ta: tuner trial ' "$D_LOG" 2>/dev/null || true; }
wait_trial() { # until the count of started trials exceeds $1 (bounded, 15 s)
	local i
	for ((i = 0; i < 750; i++)); do
		[ "$(trials)" -gt "$1" ] && return 0
		sleep 0.02
	done
	return 1
}
verdicts() { grep -cE 'ta: tuner (kept|rolled_back|abandoned) ' "$D_LOG" 2>/dev/null || true; }
in_flight() { grep -q '^inflight ta ' "$D_STATE/journal" 2>/dev/null; }
knob_now() { # KNOB: ta's value as the journal writes it (on/off features as 1/0)
	local f
	case $1 in
	tso) f=tcp-segmentation-offload ;;
	gso) f=generic-segmentation-offload ;;
	gro) f=generic-receive-offload ;;
	*) t_ip_attr "$A" ta "$1"; return ;;
	esac
	[ "$(t_feature "$A" ta "$f")" = on ] && echo 1 || echo 0
}
wait_event() { # wait_event WHAT COMMAND...: until COMMAND succeeds (bounded, 15 s)
	local what=$1 i
	shift
	for ((i = 0; i < 1500; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	t_fail "round $r: no $what within 15 s: $(tail -n 3 "$D_LOG")"
}
verdict_after() { [ "$(verdicts)" -gt "$1" ] && ! in_flight; }

t_log "1. CLI applies while the tuner trials"
d_start "$A" --config "$T_TMP/rtltuned.conf" --interfaces ta
wait_trial 0 || t_fail "no trial started: $(tail -n 5 "$D_LOG")"
STOP=$T_TMP/stop
worker() {
	local n=0 rc
	while [ ! -e "$STOP" ]; do
		rc=0
		t_rtl "$A" apply "t$((RANDOM % 2 + 1))" ta >/dev/null 2>>"$T_TMP/apply.err" || rc=$?
		echo $rc >>"$T_TMP/apply.codes"
		n=$((n + 1))
	done
}
for w in 1 2 3 4; do worker & done
# Apply until the trial's verdict (bounded, 10 s), watching the journal meanwhile.
ops=0
for ((i = 0; i < 500; i++)); do
	n=$(grep -c '^inflight ta ' "$D_STATE/journal" 2>/dev/null || true)
	[ "$n" -gt "$ops" ] && ops=$n
	grep -qE 'ta: tuner (kept|rolled_back|abandoned) ' "$D_LOG" && break
	sleep 0.02
done
touch "$STOP"
wait $(jobs -p | grep -vx -e "$SERVER" -e "$TRAFFIC" -e "$D_PID") 2>/dev/null || true
echo "# CLI applies: $(wc -l <"$T_TMP/apply.codes") runs, exit codes: $(sort "$T_TMP/apply.codes" | uniq -c | tr -s ' ' | tr '\n' ';') during a trial and its verdict"
sed -E 's/pid [0-9]+/pid N/g; s/^/#   /' "$T_TMP/apply.err" | sort | uniq -c | sort -rn | head -3
t_eq "$(grep -Ecv '^[03]$' "$T_TMP/apply.codes" || true)" 0 "CLI applies with an exit code other than 0 or 3"
bad=$(grep -v -E 'in flight|busy|Device or resource busy|locked by' "$T_TMP/apply.err" | grep -c . || true)
t_eq "$bad" 0 "CLI applies refused for a reason other than the daemon's operation"
t_le "$ops" 1 "operations in flight for ta at once"
t_ge "$(grep -c '^3$' "$T_TMP/apply.codes" || true)" 1 "CLI applies turned away by the trial in flight"
kill -0 "$D_PID" || t_fail "rtltuned died"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "rtltuned clean exit"
t_rtl "$A" restore ta >/dev/null
t_eq "$(t_link_state "$A" ta)" "$before" "ta after the applies, the trials and restore"

t_log "2. SIGKILL of rtltuned in its trials and between them"
recovered=0 killed_in_flight=0 killed_between=0
for ((r = 1; r <= KILLS; r++)); do
	d_start "$A" --config "$T_TMP/rtltuned.conf" --interfaces ta
	n=$(trials)
	wait_trial "$n" || t_fail "round $r: no trial started"
	if ((r % 2)); then
		wait_event "in-flight record of the trial" in_flight
	else
		v=$(verdicts)
		wait_event "verdict with nothing in flight" verdict_after "$v"
	fi
	kill -9 "$D_PID"
	wait "$D_PID" 2>/dev/null || true
	# What the restart must do: put back the pre-trial value of a trial left in flight,
	# and touch nothing when the kill came between trials. The trial may be of any knob
	# (gso_max_size at its cap, or TSO off where the veth retransmits): the journal's
	# in-flight block names it.
	at_kill=$(t_link_state "$A" ta)
	read -r knob pre < <(awk '/^inflight ta / { f = 1; next } /^(iface|inflight|end)/ { f = 0 }
		f && $1 == "pre" { print $2, $3; exit }' "$D_STATE/journal" 2>/dev/null || true) || true
	# Restarted without autotune: it only recovers.
	d_start "$A" --config "$T_TMP/recover.conf" --interfaces ta
	grep -q '^inflight' "$D_STATE/journal" 2>/dev/null && t_fail "round $r: operation still in flight after the restart"
	if [ -n "${knob:-}" ]; then
		killed_in_flight=$((killed_in_flight + 1))
		t_eq "$(knob_now "$knob")" "$pre" "round $r: killed mid-trial of $knob: pre-trial value after the restart"
		recovered=$((recovered + 1))
	else
		killed_between=$((killed_between + 1))
		t_eq "$(t_link_state "$A" ta)" "$at_kill" "round $r: killed between trials: the restart changed nothing"
	fi
	d_stop >/dev/null || t_fail "round $r: unclean exit"
	t_rtl "$A" restore ta >/dev/null
	t_eq "$(t_link_state "$A" ta)" "$before" "round $r: ta after SIGKILL, restart and restore"
done
echo "# $KILLS kills: $killed_in_flight with a trial in flight, each rolled back by the restart alone; $killed_between between trials"
t_ge "$killed_in_flight" $(((KILLS + 1) / 2)) "kills that hit a trial in flight"
[ "$KILLS" -lt 2 ] || t_ge "$killed_between" 1 "kills between trials"
echo "soak_tuner: trial_kills=$KILLS restores_checked=$((KILLS + 1)) cli_applies=$(wc -l <"$T_TMP/apply.codes")"
