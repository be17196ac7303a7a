#!/bin/bash
# t-lane: beside
# The CLI finds the daemon where the daemon's config puts it (issue 24, "The right
# diagnosis"): --socket, then RTLTUNE_SOCKET, then `socket =` in the daemon's config
# (--config FILE, RTLTUNE_CONFIG, or the file rtltuned reads by default), then the built-in
# default. When nothing answers, the message names each place looked at, why that one,
# and how to point the CLI elsewhere.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

ns=$(t_netns s)
conf=$T_TMP/rtltuned.conf
sock=$T_TMP/run/custom.sock
printf '[daemon]\nsocket = %s\nmetrics = off\n' "$sock" >"$conf"
# The daemon gets its socket from the config alone.
ip netns exec "$ns" "$RTLTUNED" --foreground --config "$conf" --state-dir "$D_STATE" \
	>>"$D_LOG" 2>&1 &
D_PID=$!
t_defer "kill -9 $D_PID 2>/dev/null || true"
unset RTLTUNE_SOCKET RTLTUNE_CONFIG
for ((i = 0; i < 100; i++)); do
	[ -S "$sock" ] && break
	kill -0 "$D_PID" 2>/dev/null || { cat "$D_LOG" >&2; t_fail "rtltuned exited at start"; }
	sleep 0.05
done
[ -S "$sock" ] || t_fail "rtltuned did not create $sock within 5 s"

t_log "found through the daemon's config"
t_eq "$(RTLTUNE_CONFIG=$conf "$RTLTUNE" --json status | jq -r .daemon.socket)" "$sock" \
	"status through RTLTUNE_CONFIG"
t_eq "$("$RTLTUNE" --config "$conf" --json status | jq -r .daemon.pid)" "$D_PID" \
	"status through --config (the daemon's pid)"
t_eq "$("$RTLTUNE" status --config="$conf" --json | jq -r .daemon.pid)" "$D_PID" \
	"--config=FILE after the command"

t_log "RTLTUNE_SOCKET wins over the config, --socket over both"
rc=0
out=$(RTLTUNE_SOCKET=$T_TMP/none.sock RTLTUNE_CONFIG=$conf "$RTLTUNE" status 2>&1) || rc=$?
t_eq "$rc" 3 "exit code when RTLTUNE_SOCKET names a dead socket"
t_eq "$(echo "$out" | sed -n 2p)" \
	"  looked at: --socket (not given); RTLTUNE_SOCKET=$T_TMP/none.sock (used: it wins over the daemon's config)" \
	"where it looked, RTLTUNE_SOCKET"
t_eq "$(RTLTUNE_SOCKET=$T_TMP/none.sock "$RTLTUNE" --socket "$sock" --json status |
	jq -r .daemon.pid)" "$D_PID" "--socket wins over RTLTUNE_SOCKET"

t_log "a config without socket =, and the daemon stopped: each place and why"
kill -TERM "$D_PID"
wait "$D_PID" || t_fail "rtltuned did not exit cleanly"
rc=0
out=$(RTLTUNE_CONFIG=$conf "$RTLTUNE" status 2>&1) || rc=$?
t_eq "$rc" 3 "exit code with nothing listening"
t_eq "$(echo "$out" | sed -n 1p)" \
	"rtltune: rtltuned is not running (connect $sock: No such file or directory)" "first line"
t_eq "$(echo "$out" | sed -n 2p)" \
	"  looked at: --socket (not given); RTLTUNE_SOCKET (not set); RTLTUNE_CONFIG=$conf: socket = $sock (used)" \
	"where it looked"
t_eq "$(echo "$out" | sed -n 3p)" \
	"  elsewhere: --socket PATH or RTLTUNE_SOCKET=PATH; the daemon's config: --config FILE or RTLTUNE_CONFIG=FILE" \
	"how to point it elsewhere"

# The built-in default is the host's own path: a daemon installed there would answer.
[ ! -e /run/rtltune/control.sock ] ||
	t_fail "/run/rtltune/control.sock exists on this host: cannot check the default's message"
printf '[daemon]\nmetrics = off\n' >"$conf"
rc=0
out=$("$RTLTUNE" --config "$conf" stats 2>&1) || rc=$?
t_eq "$rc" 3 "stats with nothing listening"
t_eq "$(echo "$out" | sed -n 2p)" \
	"  looked at: --socket (not given); RTLTUNE_SOCKET (not set); --config $conf (no socket = but the default); the built-in default /run/rtltune/control.sock (used)" \
	"a config without socket ="

printf '[daemon]\nsocket = relative.sock\n' >"$conf"
rc=0
out=$("$RTLTUNE" --config "$conf" --json status) || rc=$?
t_eq "$rc" 3 "exit code with a config the daemon would refuse"
t_eq "$(echo "$out" | jq -r .error | sed -n 2p)" \
	"  looked at: --socket (not given); RTLTUNE_SOCKET (not set); --config $conf (not used: $conf:2: socket: expected an absolute path, got 'relative.sock'); the built-in default /run/rtltune/control.sock (used)" \
	"a broken config is named with file:line, in the JSON error too"
