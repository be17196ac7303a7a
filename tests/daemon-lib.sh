#!/bin/bash
# Helpers for the rtltuned integration tests (tests/integration/daemon_*.sh, metrics_*.sh).
# Source after tests/lib.sh. The daemon runs inside a namespace the test made, with its
# own socket, state directory and metrics port, so it never sees or touches the host.

[ -x "$RTLTUNED" ] || t_fail "$RTLTUNED not built (run make)"
D_SOCK=$T_TMP/run/control.sock
D_STATE=$T_TMP/state
D_LOG=$T_TMP/rtltuned.log
D_PORT=9775
D_PID=
D_NS=
mkdir -p "$T_TMP/run"

# d_start NS [rtltuned args...]: start the daemon in NS and wait (bounded) until it
# answers on its socket. Extra environment comes from D_ENV (an array of VAR=value).
d_start() {
	local ns=$1 i
	shift
	D_NS=$ns
	# The namespace has its own loopback, so the port is free by construction.
	env "${D_ENV[@]}" ip netns exec "$ns" "$RTLTUNED" --foreground --socket "$D_SOCK" \
		--state-dir "$D_STATE" --metrics "127.0.0.1:$D_PORT" "$@" >>"$D_LOG" 2>&1 &
	D_PID=$!
	t_defer "kill -9 $D_PID 2>/dev/null || true"
	for ((i = 0; i < 100; i++)); do
		d_rtl status >/dev/null 2>&1 && return 0
		kill -0 "$D_PID" 2>/dev/null || { cat "$D_LOG" >&2; t_fail "rtltuned exited at start"; }
		sleep 0.05
	done
	cat "$D_LOG" >&2
	t_fail "rtltuned did not answer on $D_SOCK within 5 s"
}

# d_running PID: the process runs (a zombie waiting for its parent's wait does not).
d_running() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${st%% *}" != Z ]
}

# d_stop: SIGTERM and wait; returns the daemon's exit code. Bounded by D_STOP_SECONDS
# (default 10, the shipped unit's TimeoutStopSec: systemd would SIGKILL it then).
d_stop() {
	local i
	kill -TERM "$D_PID"
	for ((i = 0; i < ${D_STOP_SECONDS:-10} * 50; i++)); do
		d_running "$D_PID" || break
		sleep 0.02
	done
	if d_running "$D_PID"; then
		kill -9 "$D_PID"
		tail -n 20 "$D_LOG" >&2
		t_fail "rtltuned still running ${D_STOP_SECONDS:-10} s after SIGTERM"
	fi
	wait "$D_PID"
}

# The CLI against this daemon's socket (the CLI itself may run anywhere).
d_rtl() { RTLTUNE_SOCKET=$D_SOCK "$RTLTUNE" "$@"; }

# GET a path of the metrics server from inside the namespace.
d_http() {
	ip netns exec "$D_NS" python3 -c '
import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2]), timeout=5).read().decode())
' "$D_PORT" "${1:-/metrics}"
}

# d_wait_samples N: wait until the sampler ran N more times (bounded, 10 s).
d_wait_samples() {
	local want have i
	want=$(($(d_rtl --json status | jq .daemon.samples) + $1))
	for ((i = 0; i < 200; i++)); do
		have=$(d_rtl --json status | jq .daemon.samples)
		[ "$have" -ge "$want" ] && return 0
		sleep 0.05
	done
	t_fail "sampler did not run $1 more times within 10 s"
}

# The daemon's open file descriptors and resident memory (KiB).
d_fds() { ls "/proc/$D_PID/fd" | wc -l; }
d_rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$D_PID/status"; }
