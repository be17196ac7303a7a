#!/bin/bash
# t-lane: beside
# Acceptance (issue 5): the control socket. Without a daemon the CLI says so and exits 3.
# With one: status/stats/log/hist/recommend answer; a non-root user in the socket's group
# (setpriv as nobody:nogroup) reads status but is refused apply, restore and autotune; a
# user outside the group cannot connect at all; malformed and oversized requests get an
# error reply, never a crash.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add rtd0 netns "$NS" type veth peer name rtd1 netns "$NS"

# No daemon yet.
rc=0
out=$(d_rtl status 2>&1) || rc=$?
t_eq "$rc" 3 "status exit code without a daemon"
t_eq "$(sed -n 1p <<<"$out")" "rtltune: rtltuned is not running (connect $D_SOCK: No such file or directory)" \
	"message without a daemon"
# Where it looked (d_rtl sets RTLTUNE_SOCKET) follows: cli_socket_lookup checks every case.
t_eq "$(sed -n 2p <<<"$out")" \
	"  looked at: --socket (not given); RTLTUNE_SOCKET=$D_SOCK (used: it wins over the daemon's config)" \
	"where it looked"
rc=0
out=$(d_rtl --json stats) || rc=$?
t_eq "$rc" 3 "stats --json exit code without a daemon"
t_eq "$(echo "$out" | jq -r .exit_code)" 3 "JSON error document's exit_code"

# The socket belongs to nogroup: nobody (in it) may read, changes stay root's.
cat >"$T_TMP/rtltuned.conf" <<EOF
# test config
[daemon]
socket_group = nogroup
sample_interval = 200ms
EOF
chmod 0711 "$T_TMP"
chmod 0755 "$T_TMP/run"
d_start "$NS" --config "$T_TMP/rtltuned.conf" --interfaces 'rtd*'

t_eq "$(stat -c '%a %G' "$D_SOCK")" "660 nogroup" "socket mode and group"
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.socket_group)" nogroup "status: socket_group"
t_eq "$(echo "$st" | jq -r '[.interfaces[] | select(.managed) | .ifname] | sort | join(",")')" \
	"rtd0,rtd1" "managed interfaces (virtual, named by glob)"
t_eq "$(echo "$st" | jq -r '.interfaces[] | select(.ifname == "lo") | .managed')" false \
	"lo is never managed"
t_eq "$(echo "$st" | jq -r .daemon.sample_interval_seconds)" 0.2 "sample_interval from config"

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
rc=0
as_nobody env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" status >/dev/null || rc=$?
t_eq "$rc" 0 "nobody:nogroup reads status"
rc=0
out=$(as_nobody env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" autotune off rtd0 2>&1) || rc=$?
t_eq "$rc" 3 "nobody's autotune is refused"
case $out in *"needs root"*"permission denied"*) echo "ok: refusal says why: $out" ;;
*) t_fail "refusal message: $out" ;; esac

# apply and restore straight through the protocol: the refusal is the daemon's, whatever
# the CLI does before asking.
ask_as_nobody() {
	as_nobody /usr/bin/python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
print(s.makefile().readline().strip())
' "$D_SOCK" "$1"
}
for req in '{"v":1,"cmd":"apply","profile":"throughput"}' '{"v":1,"cmd":"restore"}'; do
	rep=$(ask_as_nobody "$req")
	t_eq "$(echo "$rep" | jq -r '"\(.ok) \(.errno) \(.exit_code)"')" "false 1 3" \
		"nobody: $(echo "$req" | jq -r .cmd) refused (EPERM, exit 3)"
done
rep=$(ask_as_nobody '{"v":1,"cmd":"status"}')
t_eq "$(echo "$rep" | jq -r .ok)" true "nobody: status over the raw protocol"
# Outside the group the socket file itself keeps the user out.
rc=0
out=$(setpriv --reuid=nobody --regid=12345 --clear-groups env RTLTUNE_SOCKET="$D_SOCK" \
	"$RTLTUNE" status 2>&1) || rc=$?
t_eq "$rc" 3 "a user outside the socket's group cannot connect"
case $out in *"Permission denied"*) echo "ok: $out" ;; *) t_fail "message: $out" ;; esac

# Root may change: autotune off and back on.
t_eq "$(d_rtl --json autotune off rtd0 | jq -r .autotune)" false "root: autotune off"
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "rtd0") | .autotune')" \
	false "status shows autotune off"
t_eq "$(d_rtl --json autotune on rtd0 | jq -r .autotune)" true "root: autotune on"

# Bad input: an error reply each, the connection (and the daemon) carry on.
python3 - "$D_SOCK" <<'EOF' >"$T_TMP/bad.out"
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
def ask(line):
    f.write(line + "\n"); f.flush(); return json.loads(f.readline())
print(ask("not json")["exit_code"])
print(ask('{"v": 99, "cmd": "status"}')["exit_code"])
print(ask('{"v": 1, "cmd": "frobnicate"}')["exit_code"])
print(ask('{"v": 1, "cmd": "stats", "iface": "nosuch0"}')["exit_code"])
print(ask('{"v": 1, "cmd": "hist", "iface": "rtd0", "what": "nonsense"}')["exit_code"])
# One value per line: trailing data is refused, never half-read (the restore is not run).
print(ask('{"v": 1, "cmd": "restore"} junk')["exit_code"])
print(ask('{"v": 1, "cmd": "status"}{"v": 1, "cmd": "restore"}')["exit_code"])
print(ask('{"v": 1, "cmd": "status"}')["ok"])
# One line over the 64 KiB limit: an error, then the daemon closes this connection.
f.write("x" * 70000 + "\n"); f.flush()
print(json.loads(f.readline())["errno"])
# Closed with our unread bytes pending: EOF or ECONNRESET, both mean closed.
try:
    print("closed" if f.readline() == "" else "open")
except ConnectionResetError:
    print("closed")
EOF
t_eq "$(tr '\n' ' ' <"$T_TMP/bad.out")" "2 2 2 2 2 2 2 True 90 closed " \
	"bad requests: exit codes, trailing data refused, recovery, EMSGSIZE then close"
grep -q '"cmd": *"restore"\|restored' "$D_LOG" && t_fail "a refused request was acted on: $D_LOG"
rc=0
out=$(d_rtl hist rtd0 frame_sizes 2>&1) || rc=$?
t_eq "$rc" 2 "hist with an unknown WHAT"

# Reads: stats, hist, log, recommend.
d_wait_samples 1
s=$(d_rtl --json stats rtd0)
t_eq "$(echo "$s" | jq -r '.interfaces | length')" 1 "stats IFACE: one interface"
t_eq "$(echo "$s" | jq -r '.interfaces[0] | has("tx_packets") and has("tx_skb_bytes") and has("knob_value")')" \
	true "stats: SPEC families without prefix/suffix"
t_eq "$(echo "$s" | jq -r '.interfaces[0].knob_value.mtu')" 1500 "stats: knob_value.mtu"
d_rtl log | grep 'rtd0: new interface' >/dev/null || t_fail "log lacks the interface's arrival"
echo "ok: log shows the arrival"
t_eq "$(d_rtl --json recommend rtd0 | jq -r '.interfaces[0].ifname')" rtd0 "recommend IFACE"
rc=0
d_rtl --json stats nosuch0 >/dev/null || rc=$?
t_eq "$rc" 2 "stats of an unknown interface"
kill -0 "$D_PID" || t_fail "daemon died"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
[ ! -e "$D_SOCK" ] || t_fail "socket left behind"
echo "ok: socket removed on exit"
