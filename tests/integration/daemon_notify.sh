#!/bin/bash
# Acceptance (issue 5): with a real NOTIFY_SOCKET listener, rtltuned sends READY=1 only once
# its control socket answers (and the probes are attached), then WATCHDOG=1 at half of
# WATCHDOG_USEC from its loop, a STATUS= line, and STOPPING=1 on SIGTERM; then the same
# over an abstract socket name, with the watchdog meant for another process.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
NOTIFY=$T_TMP/notify.sock
NLOG=$T_TMP/notify.log
# Pings every 300 ms: the 300 ms of slack before systemd's deadline dwarf a late wakeup.
WATCHDOG_USEC=600000

# The listener logs every datagram with a monotonic time; at READY=1 it also tries the
# control socket at that very moment: READY must never come before the socket listens.
python3 - "$NOTIFY" "$NLOG" "$D_SOCK" <<'EOF' &
import json, os, socket, sys, time
path, log, ctl = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(30)
with open(log, "w", buffering=1) as out:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        rec = {"t": time.monotonic(), "msg": msg}
        if "READY=1" in msg:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                c.connect(ctl)
                c.sendall(b'{"v":1,"cmd":"status"}\n')
                reply = json.loads(c.makefile().readline())
                rec["ctl_ok"] = reply["ok"]
                rec["source"] = reply["result"]["daemon"]["source"]
            except OSError as e:
                rec["ctl_ok"] = False
                rec["ctl_error"] = str(e)
            c.close()
        out.write(json.dumps(rec) + "\n")
        if "STOPPING=1" in msg:
            break
EOF
LISTENER=$!
t_defer "kill $LISTENER 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do [ -S "$NOTIFY" ] && break; sleep 0.02; done
[ -S "$NOTIFY" ] || t_fail "listener did not bind $NOTIFY"

D_ENV=(NOTIFY_SOCKET="$NOTIFY" WATCHDOG_USEC=$WATCHDOG_USEC)
d_start "$NS"

# Wait (bounded, 10 s) for READY=1 and then for at least 9 watchdog pings (2.4 s).
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c 'WATCHDOG=1' "$NLOG" 2>/dev/null)" -ge 9 ] && break
	sleep 0.05
done
first=$(head -n 1 "$NLOG" | jq -r .msg)
case $first in
*READY=1*) echo "ok: the first message is READY=1" ;;
*) t_fail "first notify message is '$first', expected READY=1" ;;
esac
t_eq "$(head -n 1 "$NLOG" | jq -r .ctl_ok)" true "control socket answers at READY=1"
if [ "$(jq -r '.daemon.bpf_error // empty' <(d_rtl --json status))" = "" ]; then
	t_eq "$(head -n 1 "$NLOG" | jq -r .source)" bpf "probes attached at READY=1"
else
	t_unchecked "probes at READY=1: BPF unavailable ($(d_rtl --json status | jq -r .daemon.bpf_error))"
fi
grep -q 'STATUS=.*interfaces managed' "$NLOG" || t_fail "no STATUS= summary line"
echo "ok: STATUS= summary sent"

# What sd_watchdog_enabled(3) asks: a ping before every WATCHDOG_USEC runs out, else
# systemd kills the service; rtltuned pings at half of it, as recommended. The first ping
# is left out: it follows READY=1 at once, and the listener timestamps it only after its
# status call. Every gap must be under the timeout. The mean gap (first to last ping over
# their number: a late wakeup lengthens one gap and shortens the next) must be half the
# timeout within a quarter of it: all of it (0.75) or a ping every loop turn (0.25) fail.
pings=$(grep -c 'WATCHDOG=1' "$NLOG")
t_ge "$pings" 9 "watchdog pings received"
read -r max_ms mean_ms < <(jq -rs '[.[] | select(.msg | contains("WATCHDOG=1")) | .t] | .[1:] |
	[range(1; length) as $i | .[$i] - .[$i - 1]] as $g |
	"\($g | max * 1000 | floor) \(($g | add) / ($g | length) * 1000 | floor)"' "$NLOG")
t_le "$max_ms" $((WATCHDOG_USEC / 1000 - 1)) "longest gap between watchdog pings (ms): under WATCHDOG_USEC"
t_ge "$mean_ms" $((WATCHDOG_USEC / 4000)) "mean gap between watchdog pings (ms): a quarter of WATCHDOG_USEC at least"
t_le "$mean_ms" $((WATCHDOG_USEC * 3 / 4000)) "mean gap between watchdog pings (ms): three quarters of WATCHDOG_USEC at most"
ready_line=$(grep -n 'READY=1' "$NLOG" | head -n 1 | cut -d: -f1)
wd_line=$(grep -n 'WATCHDOG=1' "$NLOG" | head -n 1 | cut -d: -f1)
t_le "$ready_line" "$((wd_line - 1))" "READY=1 comes before the first WATCHDOG=1"

rc=0
d_stop || rc=$?
t_eq "$rc" 0 "exit code after SIGTERM"
for ((i = 0; i < 100; i++)); do grep -q STOPPING=1 "$NLOG" && break; sleep 0.02; done
grep -q 'STOPPING=1' "$NLOG" || t_fail "no STOPPING=1"
echo "ok: STOPPING=1 sent"

# The other address form, an abstract name ("@name", per network namespace: the listener
# joins the daemon's), and a watchdog meant for another process (WATCHDOG_PID names
# it): READY=1 and STOPPING=1 arrive, and no ping, whose first would follow READY at once.
ABSTRACT=rtltune-notify-$$
NLOG2=$T_TMP/notify-abstract.log
ip netns exec "$NS" python3 - "$ABSTRACT" "$NLOG2" <<'PY' &
import socket, sys
name, log = sys.argv[1:3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + name)
s.settimeout(30)
with open(log, "w", buffering=1) as out:
    out.write("BOUND\n")
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        out.write(msg.replace("\n", " ") + "\n")
        if "STOPPING=1" in msg:
            break
PY
LISTENER2=$!
t_defer "kill $LISTENER2 2>/dev/null || true"
for ((i = 0; i < 100; i++)); do grep -qs BOUND "$NLOG2" && break; sleep 0.02; done
grep -qs BOUND "$NLOG2" || t_fail "listener did not bind @$ABSTRACT"
D_ENV=(NOTIFY_SOCKET="@$ABSTRACT" WATCHDOG_USEC=$WATCHDOG_USEC WATCHDOG_PID=1)
d_start "$NS"
for ((i = 0; i < 100; i++)); do grep -q READY=1 "$NLOG2" && break; sleep 0.05; done
grep -q 'READY=1' "$NLOG2" || t_fail "no READY=1 on the abstract socket @$ABSTRACT"
echo "ok: READY=1 on an abstract NOTIFY_SOCKET"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "exit code after SIGTERM"
for ((i = 0; i < 100; i++)); do grep -q STOPPING=1 "$NLOG2" && break; sleep 0.02; done
grep -q 'STOPPING=1' "$NLOG2" || t_fail "no STOPPING=1 on the abstract socket"
t_eq "$(grep -c 'WATCHDOG=1' "$NLOG2")" 0 "watchdog pings with WATCHDOG_PID of another process"
