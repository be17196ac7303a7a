#!/bin/bash
# t-lane: beside
# Messages that say what to do, and that cannot drive the terminal.
# - Control bytes from files and the kernel are escaped on the way to the terminal: a
#   profile value and a comment holding ESC and BEL, a C1 control, an interface name with
#   ESC; --json stays valid JSON with them (\u001b).
# - A refusal by the system names what is missing: CAP_NET_ADMIN (apply), CAP_BPF and
#   CAP_PERFMON (trace), write access to the state dir (apply as nobody).
# - log --lines: range-checked (4294967297 was taken as 1), the last N entries.
# - profile show: --chip of no chip refused; what the profile sets by default, --all for the
#   rest; aligned columns; a comment of several lines kept whole.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns err)
nsb=$(t_netns errb)
t_veth_pair "$ns" e0 "$nsb" e1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
ESC=$'\e' BEL=$'\a'

# run ARGS...: rtltune in ns; rc, and the output in $T_TMP/out, $T_TMP/err.
run() {
	rc=0
	t_rtl "$ns" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
}
no_raw() { # FILE WHAT: no ESC, BEL or C1 byte reached it
	! LC_ALL=C grep -q "[$ESC$BEL]" "$1" || t_fail "$2: a raw control byte: $(od -c "$1" | head -5)"
	! LC_ALL=C grep -q $'\xc2\x9b' "$1" || t_fail "$2: a raw U+009B"
	echo "ok: $2: no raw control bytes"
}

t_log "control bytes from a profile file"
printf '[knobs]\nmtu = 9%s[31mK%s\n' "$ESC" "$BEL" >"$RTLTUNE_PROFILE_PATH/badval.conf"
run profile show badval
t_eq "$rc" 2 "a value with ESC: exit"
t_eq "$(cat "$T_TMP/err")" "rtltune: $RTLTUNE_PROFILE_PATH/badval.conf:2: mtu expects a number up to 4294967295 (optional K or M suffix), max or keep, got '9\\x1b[31mK\\x07'" "the message, escaped"
no_raw "$T_TMP/err" "profile show badval"
run apply badval e0
no_raw "$T_TMP/err" "apply badval"
run --json apply badval e0
no_raw "$T_TMP/out" "apply badval --json"
t_eq "$(jq -r .error "$T_TMP/out" | od -An -c | tr -s ' ' | grep -c '033')" 1 "--json: ESC kept as \\u001b (jq decodes it)"

printf '[knobs]\n# why %s[2J%s here,\n# second line \xc2\x9b c1\ntxqueuelen = 2000\n' "$ESC" "$BEL" >"$RTLTUNE_PROFILE_PATH/badwhy.conf"
run profile show badwhy
t_eq "$rc" 0 "a comment with ESC: exit"
grep -qF 'why \x1b[2J\x07 here, second line \xc2\x9b c1' "$T_TMP/out" ||
	t_fail "profile show: comment not escaped or cut: $(cat "$T_TMP/out")"
no_raw "$T_TMP/out" "profile show badwhy"
run --json profile show badwhy
jq -e . "$T_TMP/out" >/dev/null || t_fail "--json profile show: not JSON"
grep -qF '\u001b[2J\u0007' "$T_TMP/out" || t_fail "--json: ESC not \\u001b"
grep -qF '\u009b' "$T_TMP/out" || t_fail "--json: U+009B not \\u009b"
no_raw "$T_TMP/out" "--json profile show badwhy"

t_log "control bytes from the kernel: an interface name with ESC"
ip -n "$ns" link add "x${ESC}[1my" type veth peer name ey
run show
grep -qF 'x\x1b[1my (ifindex' "$T_TMP/out" || t_fail "show: the name not escaped: $(grep -a ifindex "$T_TMP/out")"
no_raw "$T_TMP/out" "show"
ip -n "$ns" link del ey

t_log "what a refusal by the system needs"
printf '[knobs]\n# test\ngro = on\n# test\ntxqueuelen = 3000\n# test\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/three.conf"
before=$(t_link_state "$ns" e0)
rc=0
ip netns exec "$ns" setpriv --bounding-set=-net_admin "$RTLTUNE" apply three e0 >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 3 "apply without CAP_NET_ADMIN: exit"
grep -qF "Operation not permitted" "$T_TMP/err" || t_fail "apply: no errno text: $(cat "$T_TMP/err")"
grep -qF "(rtltune apply needs CAP_NET_ADMIN to change interfaces; this process lacks CAP_NET_ADMIN: run it as root)" "$T_TMP/err" ||
	t_fail "apply without CAP_NET_ADMIN: $(cat "$T_TMP/err")"
t_eq "$(t_link_state "$ns" e0)" "$before" "nothing changed"
rc=0
ip netns exec "$ns" setpriv --bounding-set=-bpf,-perfmon,-sys_admin "$RTLTUNE" trace e0 --seconds 0.1 >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 3 "trace without CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN: exit"
grep -qF "Operation not permitted (rtltune trace needs CAP_BPF and CAP_PERFMON to load its probes; this process lacks CAP_BPF and CAP_PERFMON: run it as root)" "$T_TMP/err" ||
	t_fail "trace: $(cat "$T_TMP/err")"
! grep -qF -- ": -1)" "$T_TMP/err" || t_fail "trace: libbpf's errno number left in: $(cat "$T_TMP/err")"
sd=$(mktemp -d /tmp/rtltune-sd.XXXXXX)
t_defer "rm -rf '$sd'"
chmod 755 "$sd"
rc=0
ip netns exec "$ns" setpriv --reuid=nobody --regid=nogroup --clear-groups env RTLTUNE_STATE_DIR="$sd" \
	RTLTUNE_PROFILE_PATH= "$RTLTUNE" apply balanced e0 >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 3 "apply as nobody: exit"
grep -qF "$sd/" "$T_TMP/err" && grep -qF ": Permission denied (rtltune apply keeps its journal in $sd: run it as root, or set RTLTUNE_STATE_DIR to a directory you may write)" "$T_TMP/err" ||
	t_fail "apply as nobody: $(cat "$T_TMP/err")"

t_log "log --lines"
run apply three e0
t_eq "$rc" 0 "apply three"
n=$(t_rtl "$ns" --json log --journal | jq '.entries | length')
t_ge "$n" 3 "decision log entries"
run log --journal --lines 4294967297
t_eq "$rc" 2 "--lines 4294967297: exit"
t_eq "$(cat "$T_TMP/err")" "rtltune: log: --lines 4294967297 is out of range (1 to 1000000); see rtltune log --help" "--lines 4294967297: message"
t_eq "$(t_rtl "$ns" --json log --journal --lines 1 | jq '.entries | length')" 1 "--lines 1"
t_eq "$(t_rtl "$ns" --json log --journal --lines 2 | jq -c '[.entries[].knob]')" \
	"$(t_rtl "$ns" --json log --journal | jq -c '[.entries[].knob][-2:]')" "--lines 2: the last two"
t_eq "$(t_rtl "$ns" --json log --journal --lines 1000000 | jq '.entries | length')" "$n" "--lines 1000000: all"
t_rtl "$ns" restore e0 >/dev/null

t_log "profile show"
chip=$("$RTLTUNE" --json chips | jq -r '.chips[0].id')
run profile show balanced --chip typo
t_eq "$rc" 2 "--chip typo: exit"
t_eq "$(cat "$T_TMP/err")" "rtltune: profile show: unknown chip 'typo' (rtltune chips lists the ids)" "--chip typo: message"
run profile show balanced --chip "$chip"
t_eq "$rc" 0 "--chip $chip: exit"
grep -q "^resolved for driver -, chip $chip:" "$T_TMP/out" || t_fail "--chip $chip: no resolution"

printf '[knobs]\n# the first line of why\n# and its second line\ntxqueuelen = 3000\n# one\ncoalesce_adaptive_rx = keep\n' >"$RTLTUNE_PROFILE_PATH/long.conf"
run profile show long
t_eq "$rc" 0 "profile show long"
cat "$T_TMP/out"
t_eq "$(grep -c '(not set)' "$T_TMP/out" || true)" 0 "default: no row of a knob not set"
hidden=$(sed -n 's/^    (\([0-9]*\) more knobs not set.*--all lists them)$/\1/p' "$T_TMP/out")
t_eq "$hidden" "$(($("$RTLTUNE" knobs --names | wc -l) - 2))" "default: the knobs not set, counted"
t_eq "$(grep -E '^    txqueuelen  ' "$T_TMP/out" | sed 's/  */ /g')" " txqueuelen 3000 long.conf:4 the first line of why and its second line" "a comment of two lines, whole"
# The column each row's value starts at: one for all, after the longest name and 2 blanks.
valcol() { awk '/^    [a-z]/ && $1 != "file" { match($0, /^    [^ ]+ +/); print RLENGTH }' "$T_TMP/out" | sort -u; }
t_eq "$(valcol)" $((4 + 20 + 2)) "values aligned after the longest name"
run profile show long --all
t_eq "$(grep -c '(not set)' "$T_TMP/out")" "$hidden" "--all: a row for each knob not set"
t_eq "$(valcol | wc -l)" 1 "--all: values aligned"
