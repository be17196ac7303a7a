#!/bin/bash
# t-lane: beside
# Privilege: every control command, sent straight over the socket, by root, by nobody
# in the socket's group (as primary and as supplementary group), and by a user outside
# it. Reads (hello, status, stats, hist, log, recommend, history) are answered for the
# group; changes (autotune, apply, apply --dry-run, restore, pause, resume) are refused with
# EPERM and change nothing (a refused pause leaves the tuner running; root's pauses it
# until the resume). Outside the group the socket file's mode keeps the user out, and if someone
# loosens that mode, rtltuned's own SO_PEERCRED check still turns the user away.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v setpriv >/dev/null || t_skip "setpriv (util-linux) not installed"
getent group nogroup >/dev/null || t_skip "no group 'nogroup'"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 4000\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/sec.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
printf '[daemon]\nsocket_group = nogroup\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
# Others need x on the way to the socket; the socket file itself is 0660 root:nogroup.
chmod 0711 "$T_TMP"
chmod 0755 "$T_TMP/run"
d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces v0
d_wait_samples 1
before=$(t_link_state "$ns" v0)

READS=('{"v":1,"cmd":"hello"}' '{"v":1,"cmd":"status"}' '{"v":1,"cmd":"stats","iface":"v0"}'
	'{"v":1,"cmd":"hist","iface":"v0","what":"tx_skb_bytes"}' '{"v":1,"cmd":"log"}'
	'{"v":1,"cmd":"recommend","iface":"v0"}' '{"v":1,"cmd":"history","iface":"v0"}')
CHANGES=('{"v":1,"cmd":"autotune","iface":"v0","on":false}'
	'{"v":1,"cmd":"apply","profile":"sec","ifaces":["v0"]}'
	'{"v":1,"cmd":"apply","profile":"sec","ifaces":["v0"],"dry_run":true}'
	'{"v":1,"cmd":"restore","ifaces":["v0"]}'
	'{"v":1,"cmd":"pause","iface":"v0","reason":"test"}' '{"v":1,"cmd":"resume","iface":"v0"}')
STATUS='{"v":1,"cmd":"status"}'
PAUSE='{"v":1,"cmd":"pause","iface":"v0","reason":"test"}'
RESUME='{"v":1,"cmd":"resume","iface":"v0"}'

# ask PREFIX... -- REQUEST...: one connection, one reply line per request, printed as
# "ok errno exit_code" (or "connect: ERRNO" / "closed"); a request "-" sends nothing. A
# status reply adds v0's tuner pause ("paused_by=WHO" or "paused_by=None"): a pause lasts
# as long as the connection of the client that asked.
ask() {
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	"${pre[@]}" /usr/bin/python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect: %s" % e.errno); sys.exit(0)
f = s.makefile("rw")
for req in sys.argv[2:]:
    try:
        if req != "-":  # "-": only read what rtltuned says unasked
            f.write(req + "\n"); f.flush()
        line = f.readline()
    except OSError:
        line = ""
    if not line:
        print("closed"); continue
    r = json.loads(line)
    out = "%s %s %s" % (r["ok"], r.get("errno", 0), r.get("exit_code", 0))
    if req != "-" and json.loads(req).get("cmd") == "status":
        v0 = [i for i in r["result"]["interfaces"] if i["ifname"] == "v0"][0]
        out += " paused_by=%s" % ((v0.get("tuner") or {}).get("paused_by"),)
    print(out)
' "$D_SOCK" "$@"
}
as_group_primary=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
as_group_supplementary=(setpriv --reuid=nobody --regid=12345 --groups=nogroup)
as_outsider=(setpriv --reuid=nobody --regid=12345 --clear-groups)
checked=0

for who in as_group_primary as_group_supplementary; do
	declare -n pre=$who
	mapfile -t got < <(ask "${pre[@]}" -- "${READS[@]}")
	for i in "${!READS[@]}"; do
		t_eq "${got[$i]% paused_by=None}" "True 0 0" "$who: $(echo "${READS[$i]}" | jq -r .cmd) answered"
		checked=$((checked + 1))
	done
	mapfile -t got < <(ask "${pre[@]}" -- "${CHANGES[@]}")
	for i in "${!CHANGES[@]}"; do
		t_eq "${got[$i]}" "False 1 3" "$who: ${CHANGES[$i]} refused (EPERM, exit 3)"
		checked=$((checked + 1))
	done
	# The refused pause, then status on the same connection: the tuner still runs.
	t_eq "$(ask "${pre[@]}" -- "$PAUSE" "$STATUS" | tr '\n' ' ')" "False 1 3 True 0 0 paused_by=None " \
		"$who: pause refused, the tuner not paused"
	unset -n pre
done
# Root's pause holds while its connection is open, and its resume ends it.
t_eq "$(ask env -- "$STATUS" "$PAUSE" "$STATUS" "$RESUME" "$STATUS" | sed 's/pid [0-9]*/pid N/' | tr '\n' ' ')" \
	"True 0 0 paused_by=None True 0 0 True 0 0 paused_by=test (uid 0, pid N) True 0 0 True 0 0 paused_by=None " \
	"root: status, pause, status, resume, status"
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 after the refused changes"
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "v0") | .autotune')" true \
	"autotune after the refused change"
grep -q 'refused apply from uid 65534' "$D_LOG" || t_fail "refusals are not logged"
echo "ok: refusals logged with the uid"

t_eq "$(ask "${as_outsider[@]}" -- '{"v":1,"cmd":"status"}')" "connect: 13" \
	"outside the group: the socket file refuses (EACCES)"
# Defence in depth: a loosened socket mode still does not let the outsider in.
chmod 0666 "$D_SOCK"
t_eq "$(ask "${as_outsider[@]}" -- - - | tr '\n' ' ')" "False 13 3 closed " \
	"outside the group with a 0666 socket: rtltuned refuses (EACCES) and closes"
chmod 0660 "$D_SOCK"
checked=$((checked + 2))

# Root may do everything; the changes really happen.
mapfile -t got < <(ask env -- "${READS[@]}" "${CHANGES[@]}")
for i in "${!got[@]}"; do
	t_eq "${got[$i]% paused_by=None}" "True 0 0" "root: request $((i + 1)) answered"
done
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 after root's apply then restore"

# The CLI run by nobody without the daemon (with a state dir of its own): reads work,
# changes are the kernel's to refuse (CAP_NET_ADMIN).
t_in "$ns" setpriv --reuid=nobody --regid=nogroup --clear-groups "$RTLTUNE" show v0 >/dev/null
echo "ok: nobody runs rtltune show"
mkdir -p "$T_TMP/nobody-state"
chown nobody "$T_TMP/nobody-state"
rc=0
out=$(t_in "$ns" setpriv --reuid=nobody --regid=nogroup --clear-groups env RTLTUNE_STATE_DIR="$T_TMP/nobody-state" \
	"$RTLTUNE" apply sec v0 2>&1) || rc=$?
t_eq "$rc" 3 "nobody's rtltune apply: exit code"
echo "# $out"
case $out in *"Operation not permitted"*) echo "ok: the kernel's EPERM is named" ;;
*) t_fail "nobody's apply: message does not name EPERM" ;; esac
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 after nobody's apply"
checked=$((checked + 2))
kill -0 "$D_PID" || t_fail "rtltuned died"
echo "security_control: $checked privilege checks"
