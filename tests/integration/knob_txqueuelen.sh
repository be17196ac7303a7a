#!/bin/bash
# t-lane: beside
# txqueuelen, the knob added as one row of the knob table (docs/architecture.md "Adding a
# knob"), end to end: a profile sets it, apply changes it (checked with ip -j link), verify
# sees it and a hand-made difference, show and show --json print it, restore puts the
# journaled original back, a value out of range is refused naming file:line, and
# rtltuned's /metrics has its gauge.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" q0 "$nsb" q1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\n# a longer queue for the test\ntxqueuelen = 5000\n' >"$RTLTUNE_PROFILE_PATH/longq.conf"
printf '[knobs]\ntxqueuelen = 4294967296\n' >"$RTLTUNE_PROFILE_PATH/tooq.conf"
txqlen() { ip -n "$ns" -j link show dev q0 | jq -r '.[0].txqlen'; }
t_eq "$(txqlen)" 1000 "veth's txqueuelen before"

t_log "apply, checked with ip"
out=$(t_rtl "$ns" apply longq q0)
echo "$out"
t_eq "$out" "q0 txqueuelen 1000 -> 5000" "apply output"
t_eq "$(txqlen)" 5000 "txqlen (ip -j link)"
t_eq "$(awk '/^iface q0 / { f = 1; next } /^(iface|inflight|end)/ { f = 0 } f && $2 == "txqueuelen" { print $3 }' \
	"$RTLTUNE_STATE_DIR/journal")" 1000 "original journaled"

t_log "verify, show"
t_rtl "$ns" verify longq q0
ip -n "$ns" link set q0 txqueuelen 700
set +e
out=$(t_rtl "$ns" verify longq q0)
rc=$?
set -e
t_eq "$rc" 1 "verify after a hand change"
t_eq "$out" "q0 txqueuelen is 700, profile wants 5000 ($RTLTUNE_PROFILE_PATH/longq.conf:3)" "verify names the difference"
t_rtl "$ns" apply longq q0 >/dev/null
t_eq "$(t_rtl "$ns" --json show q0 | jq '.[0].txqueuelen')" 5000 "show --json"
t_rtl "$ns" show q0 | grep -E '^    txqueuelen +5000$' >/dev/null || t_fail "show text lacks 'txqueuelen 5000'"
echo "ok: show text"

t_log "a value out of range changes nothing"
set +e
out=$(t_rtl "$ns" apply tooq q0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "out-of-range txqueuelen refused"
echo "$out" | grep -q "tooq.conf:2: txqueuelen expects a number up to 4294967295" || t_fail "refusal: $out"
t_eq "$(txqlen)" 5000 "txqlen after the refusal"

t_log "restore"
t_eq "$(t_rtl "$ns" restore q0)" "q0 txqueuelen 5000 -> 1000" "restore output"
t_eq "$(txqlen)" 1000 "txqlen restored (ip -j link)"

t_log "the journal's decision log has both changes"
t_eq "$(t_rtl "$ns" --json log --journal | jq -r '.entries[] | select(.knob == "txqueuelen" and .outcome == "applied") | "\(.actor) \(.old) \(.new) \(.reason)"' | tail -n 2 | tr '\n' ';')" \
	"cli 700 5000 $RTLTUNE_PROFILE_PATH/longq.conf:3;cli 5000 1000 restore;" "rtltune log --journal"

t_log "rtltuned: the gauge, and restore through the daemon"
D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
d_start "$ns" --interfaces 'q0' --profile longq --no-autotune
for ((i = 0; i < 200; i++)); do
	[ "$(txqlen)" = 5000 ] && break
	sleep 0.05
done
t_eq "$(txqlen)" 5000 "the daemon applied the profile"
d_wait_samples 2
t_eq "$(d_http /metrics | grep '^rtltune_knob_value{device="q0",knob="txqueuelen"}' | cut -d' ' -f2)" 5000 "metric gauge"
t_eq "$(d_rtl --json status q0 | jq '.interfaces[0].knobs.txqueuelen')" 5000 "status knobs"
RTLTUNE_SOCKET=$D_SOCK t_rtl "$ns" restore q0 >/dev/null
t_eq "$(txqlen)" 1000 "restored through the daemon"
grep -q 'q0: restored (requested by uid 0)' "$D_LOG" || t_fail "the restore did not go through rtltuned"
d_stop
