#!/bin/bash
# t-lane: beside
# Issue 23: a journal that cannot be trusted (a wrong record count, a file cut short,
# garbage). Before: rtltuned logged nothing, skipped crash recovery (an apply killed
# mid-way stayed: MTU 1400, original 1500) and said "ready".
#
# CLI without the daemon: apply, restore and sweep exit 2 naming file:line and what to
# do, change nothing, leave the file byte for byte as it was; after the documented fix
# (correct the line, or move the file aside) they work again.
# rtltuned: one error in its log naming file:line and what to do, `status --json`
# journal {state untrusted, reason, file}, the text status, rtltune_journal_ok 0; it keeps
# counting and serving metrics; every change is refused with that reason (its start
# apply, apply and restore through the socket, the tuner, crash recovery); the file is
# untouched. After the fix, a reload trusts it again, rolls the killed apply back (MTU
# 1500) and applies the profile. A journal spoiled while it runs is caught by the next
# change the same way.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 1400\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/f1.conf"
printf '[knobs]\ngso_max_size = 16384\n' >"$RTLTUNE_PROFILE_PATH/f2.conf"
J=$RTLTUNE_STATE_DIR/journal
attr() { t_ip_attr "$ns" v0 "$1"; }
before=$(t_link_state "$ns" v0)
t_eq "$(attr mtu)" 1500 "v0's original MTU"

# A good journal to spoil: v0's originals (mtu 1500, gso_max_size 65536) after f1.
t_rtl "$ns" apply f1 v0 >/dev/null
t_eq "$(attr mtu)" 1400 "f1 applied"
cp "$J" "$T_TMP/good"
lines=$(wc -l <"$J")
records=$(awk '$1 == "end" { print $2 }' "$J")

# The three kinds, each with the line the refusal must name and what it must say.
spoil() {
	case $1 in
	count) # an edit by hand that left the count wrong
		sed "s/^end $records\$/end $((records + 1))/" "$T_TMP/good" >"$J"
		echo "$J:$lines: 'end' says $((records + 1)) records, the file holds $records" ;;
	cut) # cut short inside its third line
		local at
		at=$(($(head -n 2 "$T_TMP/good" | wc -c) + 5))
		head -c "$at" "$T_TMP/good" >"$J"
		echo "$J:3: last line has no newline: the file was cut short (torn write)" ;;
	garbage) # something else entirely (a zip file's first bytes)
		printf 'PK\003\004\024\000\010\000\010\000garbage\n' >"$J"
		echo "$J:1: NUL byte (torn or not a text file)" ;;
	esac
}
REMEDY='refusing to trust this journal, nothing changed. Correct that line or move the file aside (restore then forgets its originals), then try again; rtltuned checks again on reload'

# refused WHAT WHERE CMD...: exit 2, WHERE and the remedy on stderr, v0 unchanged, the
# journal byte for byte as it was, no temp file; --json says the same with exit_code 2.
refused() {
	local what=$1 where=$2 rc=0 was sum out
	shift 2
	was=$(t_link_state "$ns" v0)
	sum=$(sha256sum <"$J")
	"$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 2 "$what: exit code"
	grep -qF "$where; $REMEDY" "$T_TMP/err" || t_fail "$what: stderr: $(cat "$T_TMP/err")"
	t_eq "$(t_link_state "$ns" v0)" "$was" "$what: v0 unchanged"
	t_eq "$(sha256sum <"$J")" "$sum" "$what: journal untouched"
	[ ! -e "$J.tmp" ] || t_fail "$what: a journal.tmp was written"
	rc=0
	out=$("$1" "$2" --json "${@:3}" 2>/dev/null) || rc=$?
	t_eq "$rc" 2 "$what --json: exit code"
	t_eq "$(echo "$out" | jq -c '[.exit_code, .errno]')" '[2,74]' "$what --json: exit_code, errno (EBADMSG)"
	echo "$out" | jq -r .error | grep -qF "$where; $REMEDY" || t_fail "$what --json: error: $out"
	echo "ok: $what: $(head -c 150 "$T_TMP/err")..."
}

t_log "CLI without rtltuned"
for kind in count cut garbage; do
	where=$(spoil $kind)
	refused "apply ($kind)" "$where" t_rtl "$ns" apply f2 v0
	refused "restore ($kind)" "$where" t_rtl "$ns" restore v0
	refused "sweep ($kind)" "$where" t_rtl "$ns" sweep v0 gso_max_size 16384,32768 --seconds 0.2
	# Read-only commands need no journal.
	t_rtl "$ns" show v0 >/dev/null
	t_rtl "$ns" verify f1 v0 >/dev/null
done
echo "ok: show and verify work beside an untrusted journal"
# The documented fixes. A count corrected by hand: restore works, to the originals.
spoil count >/dev/null
sed -i "s/^end $((records + 1))\$/end $records/" "$J"
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(t_link_state "$ns" v0)" "$before" "restore after the count was corrected"
# A file moved aside: the journal starts afresh, the moved file is kept as it was.
spoil garbage >/dev/null
cp "$J" "$T_TMP/garbage"
mv "$J" "$J.bad"
t_rtl "$ns" apply f2 v0 >/dev/null
t_eq "$(attr gso_max_size)" 16384 "apply after the file was moved aside"
cmp -s "$J.bad" "$T_TMP/garbage" || t_fail "the file moved aside changed"
t_rtl "$ns" restore v0 >/dev/null
rm -f "$J.bad"
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 back at its originals"

t_log "rtltuned starting on a miscounted journal that holds an apply killed mid-way"
RTLTUNE_TEST_DELAY=apply_knob_2=20000 ip netns exec "$ns" "$RTLTUNE" apply f1 v0 >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < 200; i++)); do
	[ "$(attr mtu)" = 1400 ] && break
	sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
t_eq "$(attr mtu)" 1400 "MTU the killed apply left"
t_eq "$(attr gso_max_size)" 65536 "gso_max_size the killed apply did not reach"
grep -q "^inflight v0 .* op=apply actor=cli pid=$pid " "$J" || t_fail "no in-flight record: $(cat "$J")"
cp "$J" "$T_TMP/good"
lines=$(wc -l <"$J")
records=$(awk '$1 == "end" { print $2 }' "$J")
where=$(spoil count)
sum=$(sha256sum <"$J")
D_STATE=$RTLTUNE_STATE_DIR
D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
CONF=$T_TMP/rtltuned.conf
printf '[daemon]\nsample_interval = 200ms\nprofile = f2\n' >"$CONF"
d_start "$ns" --config "$CONF" --interfaces v0

# untrusted_shown WHERE: status (JSON and text), the metric, and v0 as the file left it.
untrusted_shown() {
	local where=$1 st
	st=$(d_rtl --json status)
	t_eq "$(echo "$st" | jq -r .journal.state)" untrusted "status: journal state"
	t_eq "$(echo "$st" | jq -r .journal.file)" "$J" "status: journal file"
	echo "$st" | jq -r .journal.reason | grep -qF "$where; $REMEDY" ||
		t_fail "status: journal reason: $(echo "$st" | jq .journal)"
	d_rtl status | grep -F "  journal:   UNTRUSTED, changing nothing: $where" >/dev/null ||
		t_fail "text status: $(d_rtl status | grep journal)"
	d_http /metrics >"$T_TMP/metrics"
	grep -q '^rtltune_journal_ok 0$' "$T_TMP/metrics" || t_fail "metric: $(grep journal "$T_TMP/metrics")"
	grep -q '^# TYPE rtltune_journal_ok gauge$' "$T_TMP/metrics" || t_fail "no TYPE line for rtltune_journal_ok"
	echo "ok: status, text status and rtltune_journal_ok 0 say so"
}
untrusted_shown "$where"
t_eq "$(grep -c 'refusing to trust this journal' "$D_LOG")" 1 "errors about the journal in the log"
grep -qxF "rtltuned: $where; $REMEDY" "$D_LOG" || t_fail "the log's error: $(grep journal "$D_LOG")"
grep -qxF "rtltuned: observing only until the journal is trusted: no profile application, restore, tuner trial or rollback (a trial in progress and what a crash left in flight stay as they are)" "$D_LOG" ||
	t_fail "the log does not say what is refused"
grep -q 'ready: .*; observing only: the journal is untrusted (rtltune status)$' "$D_LOG" ||
	t_fail "the ready line does not say it observes only: $(grep 'ready:' "$D_LOG")"
grep -q 'rolled back\|left nothing to roll back' "$D_LOG" && t_fail "rtltuned recovered from an untrusted journal"
t_eq "$(attr mtu)" 1400 "MTU left by the killed apply (no recovery from an untrusted journal)"
# Its start apply was refused, and says why.
for ((i = 0; i < 100; i++)); do
	err=$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "v0") | .applied.error // empty')
	[ -n "$err" ] && break
	sleep 0.05
done
case $err in *"$where; $REMEDY"*) echo "ok: v0's start apply refused with the reason" ;;
*) t_fail "v0's applied.error: '$err'" ;; esac
t_eq "$(attr gso_max_size)" 65536 "f2 not applied by rtltuned"
# Observing goes on: samples, stats, knob gauges.
d_wait_samples 3
t_eq "$(d_rtl --json stats v0 | jq '.interfaces[0].knob_value.mtu')" 1400 "stats v0: mtu"
d_http /metrics | grep -q '^rtltune_knob_value{device="v0",knob="mtu"} 1400$' || t_fail "/metrics: no mtu gauge for v0"
echo "ok: rtltuned keeps sampling and serving metrics"
# Every change through the socket is refused with the reason; the CLI routes to it.
drtl() { RTLTUNE_SOCKET=$D_SOCK t_rtl "$@"; }
refused "apply through rtltuned" "$where" drtl "$ns" apply f2 v0
refused "restore through rtltuned" "$where" drtl "$ns" restore v0
drtl "$ns" apply --dry-run f2 v0 >/dev/null
echo "ok: apply --dry-run through rtltuned works (it changes nothing)"
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "v0") | .tuner.trial')" null "no tuner trial"
t_eq "$(sha256sum <"$J")" "$sum" "journal untouched by rtltuned"
t_eq "$(grep -c 'refusing to trust this journal' "$D_LOG")" 1 "errors about the journal in the log, after the refusals"

t_log "the fix: the count corrected, then a reload"
sed -i "s/^end $((records + 1))\$/end $records/" "$J"
reloads=$(d_rtl --json status | jq .daemon.reloads)
kill -HUP "$D_PID"
for ((i = 0; i < 200; i++)); do
	[ "$(d_rtl --json status | jq .daemon.reloads)" -gt "$reloads" ] && break
	sleep 0.05
done
t_eq "$(d_rtl --json status | jq -c .journal)" "{\"state\":\"ok\",\"reason\":null,\"file\":\"$J\"}" "status: journal after the fix"
grep -q "^rtltuned: journal $J trusted again: changes resume$" "$D_LOG" || t_fail "no 'trusted again' in the log"
grep -q "v0: rolled back the apply that was in flight when cli (pid $pid) stopped" "$D_LOG" ||
	t_fail "the killed apply was not rolled back: $(tail -5 "$D_LOG")"
t_eq "$(attr mtu)" 1500 "MTU after the recovery"
for ((i = 0; i < 100; i++)); do
	[ "$(attr gso_max_size)" = 16384 ] && break
	sleep 0.05
done
t_eq "$(attr gso_max_size)" 16384 "f2 applied after the fix"
d_http /metrics | grep -q '^rtltune_journal_ok 1$' || t_fail "rtltune_journal_ok is not 1 after the fix"
grep -q '^inflight ' "$J" && t_fail "an in-flight record is left: $(grep '^inflight' "$J")"
echo "ok: trusted again, the killed apply rolled back, the profile applied"

t_log "a journal spoiled while rtltuned runs: the next change finds it"
where=$(spoil garbage)
cp "$J" "$T_TMP/garbage"
refused "restore through rtltuned, journal spoiled while running" "$where" drtl "$ns" restore v0
untrusted_shown "$where"
t_eq "$(grep -c 'refusing to trust this journal' "$D_LOG")" 2 "errors about the journal in the log"
t_log "moved aside, then a reload"
mv "$J" "$J.bad"
kill -HUP "$D_PID"
for ((i = 0; i < 200; i++)); do
	[ "$(d_rtl --json status | jq -r .journal.state)" = ok ] && break
	sleep 0.05
done
t_eq "$(d_rtl --json status | jq -r .journal.state)" ok "status: journal after moving it aside"
cmp -s "$J.bad" "$T_TMP/garbage" || t_fail "the file moved aside changed"
# Changes resume on a fresh journal; the originals of the file moved aside are forgotten:
# restore returns to what was journaled since (f2's gso_max_size stays).
drtl "$ns" apply f1 v0 >/dev/null
t_eq "$(attr mtu)" 1400 "apply through rtltuned after the file was moved aside"
drtl "$ns" restore v0 >/dev/null
t_eq "$(attr mtu)" 1500 "restore through rtltuned: MTU"
t_eq "$(attr gso_max_size)" 16384 "restore through rtltuned: gso_max_size as journaled anew"
d_stop >/dev/null || true

t_log "rtltuned starting on a journal cut short"
where=$(spoil cut)
d_start "$ns" --config "$CONF" --interfaces v0
untrusted_shown "$where"
t_eq "$(grep -c "$J:3: last line has no newline" "$D_LOG")" 1 "the cut named in the log"
refused "apply through rtltuned, journal cut short" "$where" drtl "$ns" apply f1 v0
kill -0 "$D_PID" || t_fail "rtltuned died"
d_stop >/dev/null || true
echo "journal_untrusted: kinds=3 cli_refusals=9 daemon_refusals=5"
