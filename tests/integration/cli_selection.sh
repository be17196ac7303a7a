#!/bin/bash
# t-lane: beside
# What apply and verify work on when no IFACE is given, and when one is given twice.
# A namespace with veths only (no link backed by a device): apply and verify exit 4 with a
# message that names the rule that left nothing and the links it passed over; --allow-none
# makes it 0 (apply prints nothing, verify "all 0 interface(s) match"); the same through
# rtltuned. The same IFACE twice is applied, printed and journaled once. NETNS/IFACE points
# apply to -n NETNS; show shows it (docs/namespaces.md).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

ns=$(t_netns sel)
nsb=$(t_netns selb)
t_veth_pair "$ns" s0 "$nsb" s1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\n# test\ngro = on\n# test\ntxqueuelen = 4000\n' >"$RTLTUNE_PROFILE_PATH/two.conf"

# run ARGS...: rtltune in ns; sets rc, out, err.
run() {
	rc=0
	t_rtl "$ns" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	out=$(cat "$T_TMP/out")
	err=$(cat "$T_TMP/err")
}

t_log "no IFACE and no device-backed link: exit 4, saying why"
before=$(t_link_state "$ns" s0)
for cmd in apply verify; do
	run "$cmd" two
	t_eq "$rc" 4 "$cmd two: exit"
	t_eq "$out" "" "$cmd two: stdout"
	t_eq "$err" "rtltune: no interface selected: no IFACE given, and none of the 2 links here (lo, s0) is backed by a device: lo, veth, bridges and other virtual links are taken only by name (--allow-none makes this exit 0)" "$cmd two: message"
	run --json "$cmd" two
	t_eq "$rc" 4 "$cmd --json: exit"
	t_eq "$(jq -r .exit_code <<<"$out")" 4 "$cmd --json: exit_code"
	jq -e '.error | startswith("no interface selected: no IFACE given")' <<<"$out" >/dev/null ||
		t_fail "$cmd --json: error is $(jq .error <<<"$out")"
done
run apply two --allow-none
t_eq "$rc/$out/$err" "0//" "apply --allow-none: exit 0, nothing printed"
run verify two --allow-none
t_eq "$rc/$out" "0/two: all 0 interface(s) match" "verify --allow-none"
t_eq "$(t_link_state "$ns" s0)" "$before" "nothing changed"
t_eq "$(t_rtl "$ns" --json log --journal | jq '.entries | length')" 0 "journal log entries"

t_log "the same IFACE twice: applied and journaled once"
run apply two s0 s0
t_eq "$rc" 0 "apply two s0 s0: exit"
t_eq "$out" "s0 gro off -> on
s0 txqueuelen 1000 -> 4000" "apply two s0 s0: each change once"
t_eq "$(t_rtl "$ns" --json log --journal | jq '[.entries[] | select(.iface == "s0" and .knob == "txqueuelen")] | length')" 1 "txqueuelen records in the decision log"
t_eq "$(grep -c '^iface s0 ' "$RTLTUNE_STATE_DIR/journal")" 1 "journal entries for s0"
run verify two s0 s0
t_eq "$rc/$out" "0/two: all 1 interface(s) match" "verify two s0 s0: checked once"
run restore s0 s0
t_eq "$rc" 0 "restore s0 s0: exit"
t_eq "$out" "s0 gro on -> off
s0 txqueuelen 4000 -> 1000" "restore s0 s0: each once"
t_eq "$(t_link_state "$ns" s0)" "$before" "restored"

t_log "NETNS/IFACE points to -n"
run --json show "$nsb/s1"
t_eq "$rc $(echo "$out" | jq -r '.[0] | "\(.ifname) \(.netns)"')" "0 $nsb/s1 $nsb" "show NETNS/IFACE: exit, name, netns"
run apply two "$nsb/s1"
t_eq "$err" "rtltune: no such interface: $nsb/s1 (a name has no '/'; for s1 in network namespace $nsb: rtltune -n $nsb apply ... s1)" "apply NETNS/IFACE: message"

t_log "through rtltuned (in this namespace, managing nothing)"
d_start "$ns" --interfaces 'nomatch*' --no-autotune
rc=0
out=$(ip netns exec "$ns" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" apply two 2>&1) || rc=$?
t_eq "$rc" 4 "apply via rtltuned managing none: exit"
t_eq "$out" "rtltune: no interface selected: no IFACE given, and rtltuned manages none here (rtltune status lists them; --allow-none makes this exit 0)" "apply via rtltuned: message"
rc=0
out=$(ip netns exec "$ns" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" apply two --allow-none 2>&1) || rc=$?
t_eq "$rc/$out" "0/" "apply via rtltuned --allow-none"
rc=0
out=$(ip netns exec "$ns" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" apply two s0 s0 2>&1) || rc=$?
t_eq "$rc" 0 "apply two s0 s0 via rtltuned: exit"
t_eq "$(grep -c 'txqueuelen' <<<"$out")" 1 "apply two s0 s0 via rtltuned: txqueuelen changed once ($out)"
t_eq "$(t_rtl "$ns" --json log --journal | jq '[.entries[] | select(.iface == "s0" and .knob == "txqueuelen")] | length')" 3 "txqueuelen records: apply, restore, and one apply via rtltuned"
