#!/bin/bash
# apply / verify / --dry-run / restore on a veth, checked with ip, ethtool and rtnetlink.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
cat >"$RTLTUNE_PROFILE_PATH/acceptance.conf" <<'CONF'
[profile]
description = acceptance test: every knob away from the veth defaults
[knobs]
mtu = 9000
tso = off
gro = on
# veth: tso_max_size 524280, so BIG TCP sizes are allowed
gso_max_size = 131072
gso_ipv4_max_size = 98304
gro_max_size = 262144
gro_ipv4_max_size = 196608
CONF

before=$(t_link_state "$ns" v0)

t_log "dry run changes nothing"
out=$(t_rtl "$ns" apply acceptance v0 --dry-run)
echo "$out"
echo "$out" | grep -q '^v0 gso_max_size 65536 -> 131072' || t_fail "dry run plan lacks gso_max_size line"
echo "$out" | grep -q '^v0 mtu 1500 -> 9000' || t_fail "dry run plan lacks mtu line"
t_eq "$(t_link_state "$ns" v0)" "$before" "state after --dry-run"

t_log "apply"
out=$(t_rtl "$ns" apply acceptance v0)
echo "$out"
echo "$out" | grep -q '^v0 tso on -> off$' || t_fail "apply output lacks 'v0 tso on -> off'"
t_eq "$(t_ip_attr "$ns" v0 mtu)" 9000 "mtu (ip)"
t_eq "$(t_ip_attr "$ns" v0 gso_max_size)" 131072 "gso_max_size (ip)"
t_eq "$(t_ip_attr "$ns" v0 gro_max_size)" 262144 "gro_max_size (ip)"
t_eq "$(t_nl_attr "$ns" v0 gso_ipv4_max_size)" 98304 "gso_ipv4_max_size (rtnetlink)"
t_eq "$(t_nl_attr "$ns" v0 gro_ipv4_max_size)" 196608 "gro_ipv4_max_size (rtnetlink)"
t_eq "$(t_feature "$ns" v0 tx-tcp-segmentation)" off "tx-tcp-segmentation (ethtool)"
t_eq "$(t_feature "$ns" v0 tx-tcp6-segmentation)" off "tx-tcp6-segmentation (ethtool): TSO off means IPv6 too"
t_eq "$(t_feature "$ns" v0 generic-receive-offload)" on "gro (ethtool)"

t_log "verify matches, then finds a hand-made difference"
t_rtl "$ns" verify acceptance v0
ip -n "$ns" link set v0 gso_max_size 65536
set +e
out=$(t_rtl "$ns" verify acceptance v0); rc=$?
set -e
echo "$out"
t_eq "$rc" 1 "verify exit code after a hand change"
echo "$out" | grep -q '^v0 gso_max_size is 65536, profile wants 131072' || t_fail "verify does not name gso_max_size"
t_eq "$(echo "$out" | wc -l)" 2 "verify lists gso_max_size and its IPv4 twin the kernel moved with it"
t_eq "$(t_rtl "$ns" --json verify acceptance v0 | jq -r '.differences[0].knob')" gso_max_size "verify --json"

t_log "apply again is idempotent for what matches"
t_rtl "$ns" apply acceptance v0 >/dev/null
t_rtl "$ns" verify acceptance v0

t_log "restore brings back the exact originals"
t_rtl "$ns" restore v0
t_eq "$(t_link_state "$ns" v0)" "$before" "state after restore"
t_log "a second restore has nothing left to do"
t_eq "$(t_rtl "$ns" --json restore v0 | jq '.interfaces[0].changes | length')" 0 "second restore changes"
