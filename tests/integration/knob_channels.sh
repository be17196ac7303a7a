#!/bin/bash
# Channels through the ethtool netlink family (issue 13): a veth created with 4 queues each
# way takes ethtool -L rx/tx. A profile sets channels_rx 2 and channels_tx = max; apply,
# verify and restore are checked against `ethtool -l`; max is the device's own maximum;
# a number above it is refused before anything changes, naming the maximum; a failure the
# kernel reports comes with its extack text; show --json has the values, maxima and the
# path used; the same with the ethtool family forced missing (RTLTUNE_TEST_FAULT=
# ethnl_open=EOPNOTSUPP): the ioctl path.
. "$(dirname "$0")/../lib.sh"
command -v ethtool >/dev/null || t_skip "ethtool not installed"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" c0 "$nsb" c1 numtxqueues 4 numrxqueues 4
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
cat >"$RTLTUNE_PROFILE_PATH/chan.conf" <<'EOF'
[knobs]
# two RX queues
channels_rx = 2
# every TX queue the veth has
channels_tx = max
EOF
printf '[knobs]\n# more than the veth has\nchannels_rx = 9\n' >"$RTLTUNE_PROFILE_PATH/toomany.conf"
# ethtool_l FIELD: a "Current hardware settings" value of ethtool -l.
ethtool_l() { t_in "$ns" ethtool -l c0 | awk -v f="$1:" '/^Current/ { c = 1 } c && $1 == f { print $2 }'; }
t_in "$ns" ethtool -L c0 rx 3 tx 3
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "3 3" "channels before (ethtool -l)"

t_log "show --json: values, maxima, the path"
t_eq "$(t_rtl "$ns" --json show c0 | jq -c '.[0] | [.channels_rx, .channels_rx_max, .channels_tx, .channels_tx_max, .channels_combined, .ethtool_path]')" \
	'[3,4,3,4,null,"netlink"]' "show --json channels"

t_log "apply, verify, restore"
out=$(t_rtl "$ns" apply chan c0)
echo "$out"
t_eq "$(grep -c -- '->' <<<"$out")" 2 "two changes"
grep -q '^c0 channels_rx 3 -> 2$' <<<"$out" || t_fail "no channels_rx line: $out"
grep -q '^c0 channels_tx 3 -> 4$' <<<"$out" || t_fail "no channels_tx line (max = 4): $out"
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "2 4" "channels after apply (ethtool -l)"
t_rtl "$ns" verify chan c0 >/dev/null
echo "ok: verify"
t_in "$ns" ethtool -L c0 rx 1
set +e
out=$(t_rtl "$ns" verify chan c0)
rc=$?
set -e
t_eq "$rc" 1 "verify after ethtool -L by hand"
grep -q 'channels_rx is 1, profile wants 2' <<<"$out" || t_fail "verify message: $out"
t_rtl "$ns" apply chan c0 >/dev/null
out=$(t_rtl "$ns" restore c0)
echo "$out"
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "3 3" "restored to the journaled originals (ethtool -l)"

t_log "above the device's maximum: refused before any change"
set +e
out=$(t_rtl "$ns" apply toomany c0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "channels_rx 9 refused"
grep -q 'toomany.conf:3: c0: channels_rx 9 exceeds .* 4 (device' <<<"$out" || t_fail "refusal: $out"
t_eq "$(ethtool_l RX)" 3 "unchanged after the refusal"

t_log "the kernel's own refusal, with its extack text: rx 0 and tx 0 together"
printf '[knobs]\n# no queue at all\nchannels_rx = 0\nchannels_tx = 0\n' >"$RTLTUNE_PROFILE_PATH/none.conf"
set +e
out=$(t_rtl "$ns" apply none c0 2>&1)
rc=$?
set -e
t_eq "$rc" 3 "the kernel refused rx 0 tx 0"
grep -qi 'kernel:' <<<"$out" || t_fail "no extack text in: $out"
echo "ok: $(head -c 200 <<<"$out")"
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "3 3" "nothing changed"

t_log "the ioctl path (no ethtool netlink family)"
export RTLTUNE_TEST_FAULT=ethnl_open=EOPNOTSUPP
t_eq "$(t_rtl "$ns" --json show c0 | jq -r '.[0].ethtool_path')" ioctl "path without the family"
got=$(t_rtl "$ns" --json show c0 | jq -c '.[0] | [.channels_rx, .channels_tx]')
if [ "$got" = '[null,null]' ]; then
	t_fail "the ioctl path reads no channels"
fi
t_eq "$got" '[3,3]' "channels through the ioctl"
t_rtl "$ns" apply chan c0 >/dev/null
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "2 4" "applied through the ioctl"
t_rtl "$ns" restore c0 >/dev/null
t_eq "$(ethtool_l RX) $(ethtool_l TX)" "3 3" "restored through the ioctl"
