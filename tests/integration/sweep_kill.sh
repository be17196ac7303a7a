#!/bin/bash
# A sweep killed with SIGKILL mid-way (its second step applied, the third not yet): the
# interface is left at a step's value with the sweep's operation in flight in the journal,
# and `rtltune restore` puts every setting back exactly as it was before the sweep (the
# journal's originals, adopting the orphaned operation). A sweep interrupted by SIGINT
# restores by itself.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/sweep-lib.sh"

tn_setup
ip -n "$TN_A" link set ta gso_max_size 16384
before=$(t_link_state "$TN_A" ta)
tn_loop_start

# ip netns exec execs the command: $! is rtltune itself (a shell function would fork).
ip netns exec "$TN_A" "$RTLTUNE" sweep ta gso_max_size 32K,64K,128K --seconds 2 --settle 0.2 \
	>"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
t_defer "kill -9 $pid 2>/dev/null || true"
# Wait for the second step's change (bounded), then kill while it measures.
v=$(sw_wait_value "$TN_A" ta gso_max_size 16384 15) || t_fail "the sweep changed nothing within 15 s"
t_eq "$v" 32768 "first step applied"
v=$(sw_wait_value "$TN_A" ta gso_max_size 32768 15) || t_fail "no second step within 15 s"
t_eq "$v" 65536 "second step applied"
t_eq "$(cat /proc/$pid/comm)" rtltune "the process killed"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 65536 "left at the step's value by SIGKILL"
t_eq "$(sw_inflight)" 1 "the sweep's operation in flight in the journal"
grep -q '^inflight ta .* op=sweep actor=cli' "$RTLTUNE_STATE_DIR/journal" || t_fail "no sweep record in flight"

t_rtl "$TN_A" restore ta
t_eq "$(t_link_state "$TN_A" ta)" "$before" "every setting after restore"
t_eq "$(sw_inflight)" 0 "operations in flight after restore"

# SIGINT: the sweep stops at once and puts the value back itself.
ip netns exec "$TN_A" "$RTLTUNE" sweep ta gso_max_size 32K,64K --seconds 2 --settle 0.2 \
	>"$T_TMP/out" 2>"$T_TMP/err" &
pid=$!
sw_wait_value "$TN_A" ta gso_max_size 16384 15 >/dev/null || t_fail "the second sweep changed nothing"
kill -INT "$pid"
rc=0
timeout 10 tail --pid="$pid" -f /dev/null || t_fail "sweep still running 10 s after SIGINT"
wait "$pid" || rc=$?
t_eq "$rc" 3 "exit code after SIGINT"
grep -q 'interrupted by SIGINT' "$T_TMP/err" || { cat "$T_TMP/err"; t_fail "no interrupted message"; }
grep -q '^gso_max_size is back at 16384$' "$T_TMP/out" || { cat "$T_TMP/out"; t_fail "no restore line"; }
t_eq "$(t_link_state "$TN_A" ta)" "$before" "every setting after SIGINT"
t_eq "$(sw_inflight)" 0 "operations in flight after SIGINT"
