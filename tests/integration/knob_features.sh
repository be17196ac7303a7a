#!/bin/bash
# Offload features by name (issue 13): feature.NAME knobs through the ethtool netlink
# family, on a veth, checked against `ethtool -k`:
#  - show --json has every feature as feature.NAME (and _requested), the fixed ones listed;
#  - apply, verify, restore of two features;
#  - one the kernel refuses: TSO asked on with TX checksumming off is kept off by the
#    kernel (netdev_fix_features: no TSO without a checksum feature), "off [requested on]":
#    the run fails, says so, and leaves every feature as it was;
#  - a fixed feature is skipped ("fixed by the driver"), a name the kernel does not have is
#    refused as a knob rtltune does not know, and tso together with
#    feature.tx-tcp-segmentation is refused, naming both lines.
. "$(dirname "$0")/../lib.sh"
command -v ethtool >/dev/null || t_skip "ethtool not installed"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" f0 "$nsb" f1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
cat >"$RTLTUNE_PROFILE_PATH/feat.conf" <<'EOF'
[knobs]
# fraglist GRO for forwarded UDP
feature.rx-gro-list = on
# GRO of forwarded UDP
feature.rx-udp-gro-forwarding = on
EOF
cat >"$RTLTUNE_PROFILE_PATH/wish.conf" <<'EOF'
[knobs]
# no TX checksumming...
feature.tx-checksum-ip-generic = off
# ...and TCP segmentation asked on: the kernel says no
feature.tx-tcp-segmentation = on
EOF
printf '[knobs]\n# veth cannot\nfeature.rx-gro-hw = on\n' >"$RTLTUNE_PROFILE_PATH/fixed.conf"
printf '[knobs]\n# a typo\nfeature.rx-gro-hv = on\n' >"$RTLTUNE_PROFILE_PATH/typo.conf"
printf '[knobs]\n# both\ntso = on\n# ways\nfeature.tx-tcp-segmentation = on\n' >"$RTLTUNE_PROFILE_PATH/twice.conf"
k() { t_feature "$ns" f0 "$1"; }
t_in "$ns" ethtool -K f0 tx-tcp-segmentation off
t_eq "$(k rx-gro-list) $(k rx-udp-gro-forwarding) $(k tx-tcp-segmentation) $(k tx-checksum-ip-generic)" \
	"off off off on" "features before (ethtool -k)"

t_log "show --json"
doc=$(t_rtl "$ns" --json show f0)
t_eq "$(jq '[.[0] | keys[] | select(startswith("feature.") and (endswith("_requested") | not))] | length' <<<"$doc")" \
	"$("$RTLTUNE" knobs --names | grep -c '^feature\.')" "every feature.NAME key"
t_eq "$(jq -c '.[0] | [."feature.rx-gro-list", ."feature.tx-checksum-ip-generic", ."feature.rx-gro-hw"]' <<<"$doc")" \
	'[false,true,false]' "values as ethtool -k shows them"
jq -e '.[0].fixed_features | index("feature.rx-gro-hw")' <<<"$doc" >/dev/null || t_fail "rx-gro-hw not listed as fixed"
echo "ok: fixed features listed"

t_log "apply, verify, restore"
out=$(t_rtl "$ns" apply feat f0)
echo "$out"
t_eq "$(grep -c -- '-> on$' <<<"$out")" 2 "two features turned on"
t_eq "$(k rx-gro-list) $(k rx-udp-gro-forwarding)" "on on" "after apply (ethtool -k)"
t_rtl "$ns" verify feat f0 >/dev/null
echo "ok: verify"
t_rtl "$ns" restore f0 >/dev/null
t_eq "$(k rx-gro-list) $(k rx-udp-gro-forwarding)" "off off" "restored (ethtool -k)"

t_log "a feature the kernel keeps off: the run fails and changes nothing"
set +e
out=$(t_rtl "$ns" apply wish f0 2>&1)
rc=$?
set -e
echo "$out"
t_eq "$rc" 3 "refused by the kernel"
grep -q 'feature.tx-tcp-segmentation not applied: the kernel kept 0 (requested 1), "off \[requested on\]"' <<<"$out" ||
	t_fail "the message does not say requested on"
t_eq "$(k tx-tcp-segmentation) $(k tx-checksum-ip-generic)" "off on" "both as before (ethtool -k)"

t_log "fixed, unknown, twice"
out=$(t_rtl "$ns" apply fixed f0)
t_eq "$out" "f0 feature.rx-gro-hw skipped: feature.rx-gro-hw is fixed by the driver" "a fixed feature is skipped"
set +e
out=$(t_rtl "$ns" apply typo f0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "an unknown feature name"
grep -q "typo.conf:3: unknown knob 'feature.rx-gro-hv'" <<<"$out" || t_fail "unknown-name message: $out"
set +e
out=$(t_rtl "$ns" apply twice f0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "tso and feature.tx-tcp-segmentation together"
grep -q 'twice.conf:5: f0: tso and feature.tx-tcp-segmentation (.*twice.conf:3) both set' <<<"$out" ||
	t_fail "overlap message: $out"
t_eq "$(k tx-tcp-segmentation)" off "nothing changed"
