#!/bin/bash
# t-lane: beside
# `rtltune show --json` agrees with ip(8) and ethtool(8) on a veth, for two settings.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1

feature() { t_feature "$ns" v0 "$1"; }
as_onoff() { case $1 in true) echo on ;; false) echo off ;; *) echo "$1" ;; esac; }

check_all() {
	local js key
	js=$(t_rtl "$ns" --json show v0)
	t_eq "$(echo "$js" | jq -r '.[0].ifname')" v0 "ifname"
	t_eq "$(echo "$js" | jq -r '.[0].driver')" veth "driver"
	t_eq "$(echo "$js" | jq -r '.[0].chip')" veth "chip"
	t_eq "$(echo "$js" | jq -r '.[0].ifindex')" "$(t_ip_attr "$ns" v0 ifindex)" "ifindex"
	for key in mtu min_mtu max_mtu gso_max_size gso_max_segs gro_max_size tso_max_size \
		tso_max_segs; do
		t_eq "$(echo "$js" | jq -r ".[0].$key")" "$(t_ip_attr "$ns" v0 "$key")" "$key"
	done
	# iproute2 6.1 does not print the IPv4 BIG TCP sizes: read rtnetlink directly.
	for key in gso_ipv4_max_size gro_ipv4_max_size; do
		t_eq "$(echo "$js" | jq -r ".[0].$key")" "$(t_nl_attr "$ns" v0 "$key")" "$key"
	done
	t_eq "$(as_onoff "$(echo "$js" | jq -r '.[0].tso')")" "$(feature tcp-segmentation-offload)" tso
	t_eq "$(as_onoff "$(echo "$js" | jq -r '.[0].gso')")" "$(feature generic-segmentation-offload)" gso
	t_eq "$(as_onoff "$(echo "$js" | jq -r '.[0].gro')")" "$(feature generic-receive-offload)" gro
	# Every SPEC key is present (null allowed), none missing.
	for key in ifname ifindex driver bus_info firmware pci_id chip operstate speed_mbps mtu \
		min_mtu max_mtu tso gso gro gso_max_size gso_max_segs gso_ipv4_max_size \
		gro_max_size gro_ipv4_max_size tso_max_size tso_max_segs; do
		t_eq "$(echo "$js" | jq -r ".[0] | has(\"$key\")")" true "key $key present"
	done
}

t_log "setting 1"
ip -n "$ns" link set v0 mtu 9000 gso_max_size 32768 gro_max_size 131072
t_in "$ns" ethtool -K v0 tso off gro on
check_all

t_log "setting 2"
ip -n "$ns" link set v0 mtu 1400 gso_max_size 16384 gro_max_size 65536
t_in "$ns" ethtool -K v0 tso on gro off
check_all

# Text mode prints the same values.
out=$(t_rtl "$ns" show v0)
echo "$out" | grep -Eq '^ +mtu +1400 ' || t_fail "text show lacks 'mtu 1400': $out"
echo "$out" | grep -Eq '^ +gso_max_size +16384 ' || t_fail "text show lacks gso_max_size 16384"
echo "ok: text view"

# Unknown interface: exit 2, exact message, nothing on stdout.
set +e
out=$(t_rtl "$ns" show nosuch0 2>"$T_TMP/err"); rc=$?
set -e
t_eq "$rc" 2 "exit code for unknown interface"
t_eq "$out" "" "no partial stdout for unknown interface"
grep -q 'no such interface: nosuch0' "$T_TMP/err" || t_fail "message: $(cat "$T_TMP/err")"
set +e
out=$(t_rtl "$ns" --json show nosuch0); rc=$?
set -e
t_eq "$rc" 2 "exit code for unknown interface (--json)"
t_eq "$(echo "$out" | jq -r .error)" "no such interface: nosuch0" "--json error document"
