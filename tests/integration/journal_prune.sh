#!/bin/bash
# t-lane: beside
# Devices that are gone (docs/journal.md): `rtltune apply`/`restore` without rtltuned forget
# the journal's records of veths deleted from their netns, and only those. Four veths get a
# profile in netns a, one more in netns c (same state dir); an apply is SIGKILLed on one of
# a's; a copy of one record is moved to a fake previous boot. After three of a's veths are
# deleted: show/verify/--dry-run and a restore on a full state disk keep every record; the
# next apply keeps exactly the live veth, c's veth and the other boot's record, names the
# three in the log and in --json, and ends the orphaned in-flight record; restore is exact.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsc=$(t_netns c)
J=$RTLTUNE_STATE_DIR/journal
L=$RTLTUNE_STATE_DIR/log
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 9000\ngso_max_size = 32768\ngro = on\n' >"$RTLTUNE_PROFILE_PATH/prune.conf"
ifaces() { grep -c '^iface ' "$J" || true; }
forgotten() { grep -c '"outcome":"forgotten"' "$L" || true; }

for i in 0 1 2 3; do
	ip -n "$ns" link add "pa$i" type veth peer name "pb$i"
	ip -n "$ns" link set "pa$i" up
done
ip -n "$nsc" link add qa0 type veth peer name qb0
before=$(t_link_state "$ns" pa3)
before_c=$(t_link_state "$nsc" qa0)
t_rtl "$ns" apply prune pa0 pa1 pa2 pa3 >/dev/null
t_rtl "$nsc" apply prune qa0 >/dev/null
t_eq "$(ifaces)" 5 "journal entries after applying in netns a and c"
# A fresh netns numbers its links from the same start: c's veth has one of a's ifindexes,
# so only the netns tells the records apart.
idx_c=$(ip -n "$nsc" -j link show qa0 | jq '.[0].ifindex')
grep -q "^iface pa[0-3] ifindex=$idx_c " "$J" && t_log "qa0 shares ifindex $idx_c with one of netns a's veths"

t_log "an apply SIGKILLed mid-way on pa2 leaves its operation in flight"
ip -n "$ns" link set pa2 mtu 1500 gso_max_size 65536
RTLTUNE_TEST_DELAY=apply_knob_2=20000 ip netns exec "$ns" "$RTLTUNE" apply prune pa2 >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < 200; i++)); do
	grep -q '^inflight pa2 ' "$J" 2>/dev/null && break
	sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
t_eq "$(grep -c '^inflight pa2 ' "$J" || true)" 1 "in-flight record of the killed apply"

t_log "a record of pa1 from a fake previous boot (same ifindex and netns)"
python3 - "$J" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("iface pa1 "))
end = start + 1
while end < len(lines) and lines[end].startswith("\t"):
    end += 1
block = [re.sub(r"boot=\S+", "boot=00000000-1111-2222-3333-444444444444",
                lines[start].replace("iface pa1 ", "iface oldboot0 ", 1))] + lines[start + 1:end]
count = int(lines[-1].split()[1]) + len(block)
out = lines[:-1] + block + ["end %d" % count]
open(path + ".copy", "w").write("\n".join(out) + "\n")
PY
mv "$J.copy" "$J"
t_eq "$(ifaces)" 6 "journal entries with the other boot's"
t_rtl "$ns" show >/dev/null # the edited journal parses

for i in 0 1 2; do ip -n "$ns" link del "pa$i"; done
sum=$(md5sum <"$J")
log0=$(forgotten)

t_log "read-only commands keep the records of deleted veths"
t_rtl "$ns" show >/dev/null
t_rtl "$ns" --json show >/dev/null
t_rtl "$ns" verify prune pa3 >/dev/null
t_rtl "$ns" chips >/dev/null
t_rtl "$ns" apply prune pa3 --dry-run >/dev/null
t_eq "$(md5sum <"$J")" "$sum" "journal after show, verify, chips, apply --dry-run"

t_log "a full state disk: restore still works and keeps them"
rc=0
RTLTUNE_TEST_FAULT=journal_write=ENOSPC t_rtl "$ns" restore pa3 >/dev/null 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 0 "restore exit code on a full state disk"
t_eq "$(t_link_state "$ns" pa3)" "$before" "pa3 after restore on a full state disk"
t_eq "$(md5sum <"$J")" "$sum" "journal after restore on a full state disk"
t_eq "$(forgotten)" "$log0" "forgotten records logged while nothing was written"

t_log "apply on the remaining veth forgets the deleted ones"
out=$(t_rtl "$ns" --json apply prune pa3)
t_eq "$(echo "$out" | jq -c '[.forgotten[].ifname] | sort')" '["pa0","pa1","pa2"]' "forgotten in --json"
t_eq "$(echo "$out" | jq -r '.forgotten[] | select(.ifname == "pa2") | .inflight')" apply "pa2's in-flight operation in --json"
t_eq "$(echo "$out" | jq -r '.forgotten[] | select(.ifname == "pa0") | .originals.mtu')" 1500 "pa0's original mtu in --json"
t_eq "$(echo "$out" | jq -r '.interfaces[0].ifname')" pa3 "applied to"
t_eq "$(ifaces)" 3 "journal entries after the apply"
grep -q '^iface pa3 ' "$J" || t_fail "pa3's originals are gone"
grep -q '^iface qa0 ' "$J" || t_fail "netns c's entry is gone"
grep -q '^iface oldboot0 ' "$J" || t_fail "the other boot's entry is gone"
t_eq "$(grep -c '^inflight' "$J" || true)" 0 "in-flight records left"
for i in 0 1 2; do
	grep '"outcome":"forgotten"' "$L" | grep -q "\"iface\":\"pa$i\",\"knob\":\"mtu\",\"old\":1500" ||
		t_fail "the log does not keep pa$i's original mtu"
done
grep '"outcome":"forgotten"' "$L" | grep -q 'ifindex [0-9]* in this netns no longer exists' ||
	t_fail "the log does not say why"
grep '"outcome":"forgotten"' "$L" | grep '"iface":"pa2"' | grep -q 'the apply by cli (pid [0-9]*) interrupted on it ended with it' ||
	t_fail "the log does not name pa2's interrupted apply"
grep '"outcome":"forgotten"' "$L" | grep -Eq 'pa3|qa0|oldboot0' && t_fail "the log names a device that was kept"
t_log "$(($(forgotten) - log0)) forgotten records in the log"

t_log "nothing more to forget: the next apply writes nothing for it"
out=$(t_rtl "$ns" --json apply prune pa3)
t_eq "$(echo "$out" | jq 'has("forgotten")')" false "forgotten key without anything forgotten"

t_log "restore of the live ones is exact"
t_rtl "$ns" restore >/dev/null
t_eq "$(t_link_state "$ns" pa3)" "$before" "pa3 after restore"
t_rtl "$nsc" restore qa0 >/dev/null
t_eq "$(t_link_state "$nsc" qa0)" "$before_c" "qa0 (netns c) after restore"
t_eq "$(ifaces)" 1 "journal entries after both restores (the other boot's)"
grep -q '^iface oldboot0 ' "$J" || t_fail "the other boot's entry is gone"
echo "journal_prune: forgotten=3 kept_other_netns=1 kept_other_boot=1"
