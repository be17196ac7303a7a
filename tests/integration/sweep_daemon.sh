#!/bin/bash
# A sweep while rtltuned manages the interface in the same namespace: the daemon pauses its
# tuner there for the sweep (status shows who holds the pause), no trial starts on it while
# the sweep runs although the tuner had one to try (gso_max_size 16384 under bulk TCP, the
# gso-at-cap rule), the sweep's changes are not taken for manual ones, and once the sweep
# ends the tuner tries that raise (so the pause, not an idle tuner, kept it out). Then a
# sweep killed mid-way: the daemon sees its connection go and rolls the sweep's operation
# back at once.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/sweep-lib.sh"

tn_setup
ip -n "$TN_A" link set ta gso_max_size 16384
# 250 ms samples, and 16 of them before a switchback trial: the tuner's first trial is due
# 4 s after traffic starts, and the sweep (1 s after it) holds the pause by then.
printf '[daemon]\nsample_interval = 250ms\n[tuner]\nswitch_baseline = 16\n' >"$T_TMP/rtltuned.conf"
d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail
sw() { RTLTUNE_SOCKET=$D_SOCK t_in "$TN_A" "$RTLTUNE" "$@"; }
tn_loop_start

# The daemon's log sequence before the sweep: everything after it is the sweep's time.
seq0=$(d_rtl --json log --lines 1 | jq '.entries[-1].seq // 0')
sw sweep ta gro off,on --seconds 2 --settle 0.3 >"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
for ((i = 0; i < 100; i++)); do
	by=$(tn_tuner paused_by)
	[ "$by" != null ] && break
	sleep 0.05
done
t_log "paused_by: $by"
[[ $by == *"rtltune sweep gro"* ]] || t_fail "the tuner was not paused for the sweep within 5 s"
timeout 30 tail --pid="$pid" -f /dev/null || t_fail "the sweep did not end within 30 s"
wait "$pid" || { cat "$T_TMP/out" "$T_TMP/err"; t_fail "sweep failed"; }
cat "$T_TMP/out"
grep -q 'rtltuned: paused' "$T_TMP/out" || t_fail "the sweep does not say the daemon paused"
t_eq "$(tn_tuner paused_by)" null "paused_by after the sweep"
log=$(d_rtl --json log --lines 512 | jq -r --argjson s "$seq0" '.entries[] | select(.seq > $s and .iface == "ta") | .message')
echo "$log" | sed 's/^/# /'
during=$(echo "$log" | sed -n '/^tuner paused by/,/^tuner resumed/p')
echo "$during" | grep -q '^tuner resumed' || t_fail "no pause .. resume in the daemon's log"
if echo "$during" | grep -q '^tuner trial '; then t_fail "a trial started during the sweep"; fi
echo "ok: no trial between the pause and the resume"
t_eq "$(d_rtl --json status ta | jq -c .interfaces[0].manual)" "[]" "knobs taken as manual"
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 16384 "gso_max_size untouched by the sweep"
# The tuner was only paused: its raise comes once the sweep is over.
trial=$(tn_wait_decision ' trial gso_max_size 16384 -> ' 25) || t_fail "no trial within 25 s after the sweep"
echo "ok: after the sweep: $(echo "$trial" | cut -c1-100)"

# Killed mid-sweep: the connection goes, the daemon rolls the sweep back itself.
tn_wait_decision ' (kept|rolled_back) gso_max_size ' 25 >/dev/null || t_fail "the trial did not end within 25 s"
gro=$(t_feature "$TN_A" ta generic-receive-offload)
want=$([ "$gro" = on ] && echo off || echo on)
# ip netns exec execs the command: $! is rtltune itself (a shell function would fork).
RTLTUNE_SOCKET=$D_SOCK ip netns exec "$TN_A" "$RTLTUNE" sweep ta gro "$want" --seconds 5 --settle 0.2 \
	>"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
for ((i = 0; i < 200; i++)); do
	[ "$(t_feature "$TN_A" ta generic-receive-offload)" = "$want" ] && break
	sleep 0.05
done
t_eq "$(t_feature "$TN_A" ta generic-receive-offload)" "$want" "gro at the sweep's step"
t_eq "$(cat /proc/$pid/comm)" rtltune "the process killed"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
for ((i = 0; i < 100; i++)); do
	[ "$(t_feature "$TN_A" ta generic-receive-offload)" = "$gro" ] && break
	sleep 0.05
done
t_eq "$(t_feature "$TN_A" ta generic-receive-offload)" "$gro" "gro once the killed sweep's connection went"
d_rtl --json log --lines 50 | jq -r '.entries[].message' | grep -q 'rolled back the sweep that was in flight' ||
	t_fail "the daemon did not log the rollback of the sweep"
t_eq "$(sw_inflight)" 0 "operations in flight"
t_eq "$(d_rtl --json status ta | jq -c .interfaces[0].manual)" "[]" "knobs taken as manual"
tn_done
