#!/bin/bash
# t-lane: beside
# An apply follows its device by ifindex: the veth is renamed twice between knobs of one
# apply (paused there by RTLTUNE_TEST_DELAY), ethtool knobs included, and the apply still
# sets every knob, reports under the name it was given (noting the new one), journals one
# entry that `restore` under the last name empties, exactly. A device deleted between two
# knobs makes a clean exit 3 naming it, with no operation left in flight.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
# Knob order (enum): mtu, tso, gso, gro, gso_max_size (+ its IPv4 twin), gro_max_size.
cat >"$RTLTUNE_PROFILE_PATH/six.conf" <<'CONF'
[knobs]
mtu = 4000
tso = off
gso = off
gro = on
gso_max_size = 32768
gro_max_size = 131072
CONF
J=$RTLTUNE_STATE_DIR/journal
ifindex=$(t_ip_attr "$ns" v0 ifindex)
before=$(t_link_state "$ns" v0)
t_eq "$(t_feature "$ns" v0 generic-receive-offload)" off "veth GRO before (default off)"
t_eq "$(t_feature "$ns" v0 tcp-segmentation-offload)" on "veth TSO before"

# A veth can be renamed while up on this kernel (6.18); older ones refuse (EBUSY): then
# down, rename, up, which none of these knobs cares about.
rename() { # FROM TO
	ip -n "$ns" link set dev "$1" name "$2" 2>/dev/null ||
		ip -n "$ns" -batch - <<<"link set $1 down
link set $1 name $2
link set $2 up"
}
# wait_for WHAT CMD EXPECTED: poll (5 s at most) until CMD prints EXPECTED.
wait_for() {
	local what=$1 want=$3 got i
	for ((i = 0; i < 100; i++)); do
		got=$(eval "$2" 2>/dev/null || true)
		[ "$got" = "$want" ] && break
		sleep 0.05
	done
	t_eq "$got" "$want" "$what"
}

t_log "two renames in the middle of one apply"
# Pauses before knob 2 (tso, ethtool) and knob 4 (gro, ethtool): 3 s each, polled past.
RTLTUNE_TEST_DELAY=apply_knob_2=3000,apply_knob_4=3000 \
	ip netns exec "$ns" "$RTLTUNE" --json apply six v0 >"$T_TMP/out.json" 2>"$T_TMP/err" &
pid=$!
wait_for "mtu set before the first pause" "t_ip_attr $ns v0 mtu" 4000
rename v0 vtmp
wait_for "gso off (knob 3) set on the renamed device" "t_feature $ns vtmp generic-segmentation-offload" off
rename vtmp vnew
rc=0
wait $pid || rc=$?
cat "$T_TMP/err"
t_eq "$rc" 0 "exit code of the apply renamed twice midway"
t_eq "$(ip -n "$ns" -o link show | awk -F': ' -v i="$ifindex" '$1 == i { sub(/@.*/, "", $2); print $2 }')" vnew "the device's name now"
t_eq "$(jq -r '.interfaces[0].ifname' "$T_TMP/out.json")" v0 "report names the interface as asked"
jq -r '.interfaces[0].warnings' "$T_TMP/out.json" | grep -q 'renamed to vnew' ||
	t_fail "report does not note the rename: $(jq -c '.interfaces[0].warnings' "$T_TMP/out.json")"
t_eq "$(jq '[.interfaces[0].changes[] | select(.action == "change" and .applied and (.undone | not))] | length' "$T_TMP/out.json")" 6 "knobs reported applied"
t_eq "$(t_ip_attr "$ns" vnew mtu)" 4000 "mtu on vnew"
t_eq "$(t_feature "$ns" vnew tcp-segmentation-offload)" off "tso on vnew"
t_eq "$(t_feature "$ns" vnew tx-tcp6-segmentation)" off "tso (IPv6) on vnew"
t_eq "$(t_feature "$ns" vnew generic-segmentation-offload)" off "gso on vnew"
t_eq "$(t_feature "$ns" vnew generic-receive-offload)" on "gro on vnew"
t_eq "$(t_ip_attr "$ns" vnew gso_max_size)" 32768 "gso_max_size on vnew"
t_eq "$(t_nl_attr "$ns" vnew gso_ipv4_max_size)" 32768 "gso_ipv4_max_size on vnew"
t_eq "$(t_ip_attr "$ns" vnew gro_max_size)" 131072 "gro_max_size on vnew"
t_eq "$(t_rtl "$ns" verify six vnew >/dev/null && echo match)" match "verify six on vnew"
t_eq "$(grep -c '^iface' "$J")" 1 "journal entries (one device, one entry)"
t_eq "$(grep -c '^inflight' "$J" || true)" 0 "operations in flight after the apply"
# Matched by identity (ifindex, netns, boot for a veth); its name is informative only.
grep -q "^iface [^ ]* ifindex=$ifindex " "$J" || t_fail "journal entry is not the device's: $(grep '^iface' "$J")"

t_log "text output: the asked-for name, and the note"
t_rtl "$ns" restore vnew >/dev/null
t_eq "$(t_link_state "$ns" vnew)" "$before" "state after restore vnew"
RTLTUNE_TEST_DELAY=apply_knob_5=3000 ip netns exec "$ns" "$RTLTUNE" apply six vnew >"$T_TMP/out.txt" 2>&1 &
pid=$!
wait_for "gro on (knob 4) before the pause" "t_feature $ns vnew generic-receive-offload" on
rename vnew v2
rc=0
wait $pid || rc=$?
cat "$T_TMP/out.txt"
t_eq "$rc" 0 "exit code of the text apply renamed midway"
t_eq "$(grep -c '^vnew [a-z_0-9]* .* -> ' "$T_TMP/out.txt")" 6 "change lines under the asked-for name"
grep -q '^vnew: note: renamed to v2 during this run' "$T_TMP/out.txt" || t_fail "text output does not note the rename"

t_log "restore under the last name"
t_rtl "$ns" restore v2
t_eq "$(t_link_state "$ns" v2)" "$before" "every original back, exactly"
t_eq "$(grep -c '^iface' "$J" || true)" 0 "journal entries after restore"
t_eq "$(grep -c '^inflight' "$J" || true)" 0 "operations in flight after restore"

t_log "the device deleted between two knobs"
RTLTUNE_TEST_DELAY=apply_knob_2=3000 ip netns exec "$ns" "$RTLTUNE" apply six v2 >"$T_TMP/out.txt" 2>"$T_TMP/err" &
pid=$!
wait_for "mtu set before the pause" "t_ip_attr $ns v2 mtu" 4000
ip -n "$ns" link del v2
rc=0
wait $pid || rc=$?
cat "$T_TMP/out.txt" "$T_TMP/err"
t_eq "$rc" 3 "exit code when the device vanishes midway"
grep -q "interface $ifindex (was v2) disappeared" "$T_TMP/err" || t_fail "message does not name the vanished device"
grep -q "NOT undone\|rtltune restore" "$T_TMP/err" && t_fail "message asks to undo or restore a device that is gone"
t_eq "$(grep -c '^inflight' "$J" || true)" 0 "operations in flight after the device vanished"
echo "apply_rename_midway: renames=3 deleted=1"
