#!/bin/bash
# The SIOCETHTOOL fallback for rings, coalescing, channels and pause (lib/netdev/ethtool_groups.c)
# against the ethtool netlink path and ethtool(8). In a private namespace: a 4-queue veth
# pair, a tap and a multi_queue tap read by both paths value by value and checked against
# ethtool -g/-c/-l/-a; channels (veth) and coalesce rx-frames (tap) set through the ioctl
# and read back by netlink and ethtool; only the fields asked for change, a set that
# changes nothing writes nothing, refusals have the netlink path's texts; the device is
# followed by ifindex across a rename and reported gone once deleted. Then the host's NIC
# (eth0, virtio_net; RTLTUNE_TEST_NIC names another) read-only through both paths.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/ethnl-lib.sh"

en_netns ioctlgrp
ip -n "$ns" tuntap add dev tap1 mode tap multi_queue
tap=$(inns cat /sys/class/net/tap0/ifindex)

# ---- one device through the ioctl against ethtool(8) -------------------------------------
# What the ioctl path must say for a field ethtool prints: n/a is absent (null), on/off
# are 1/0; a coalesce field netlink leaves out is 0 by ioctl (it reports all 22); a row
# the ioctl struct has no field for is null whatever ethtool says.
unmapped=(rings.rx_buf_len rings.cqe_size rings.tx_push rings.rx_push rings.tx_push_buf_len
	rings.tcp_data_split rings.hds_thresh coalesce.cqe_mode_rx coalesce.cqe_mode_tx
	coalesce.tx_aggr_max_bytes coalesce.tx_aggr_max_frames coalesce.tx_aggr_time_usecs)
expect() {
	local v u
	for u in "${unmapped[@]}"; do [ "$u" = "$1.$2" ] && { echo null; return; }; done
	case $3 in n/a) v=null ;; on) v=1 ;; off) v=0 ;; *) v=$3 ;; esac
	[ "$1" = coalesce ] && [ "$v" = null ] && v=0
	echo "$v"
}
# check DEV GROUP SECTION KEY ETHTOOL_VALUE
check() {
	local g=$2
	[ "$3" = max ] && g=${2}_max
	# ethtool prints no maximum for a ring row without one (rx_buf_len ...): only values.
	if [ "$3" = max ] && [ "$(expect "$2" "$4" x)" = null ]; then
		t_eq "$(en_value "$io" "$g" "$4")" null "$1 ioctl $g $4"
	else
		t_eq "$(en_value "$io" "$g" "$4")" "$(expect "$2" "$4" "$5")" "$1 ioctl $g $4"
	fi
	n=$((n + 1))
}
# vs_ethtool RUN DEV: RUN is inns or env (the host's namespace). Per group: the ethtool
# option, and how many fields it must print (coalesce: its 22 and CQE mode RX/TX).
vs_ethtool() {
	local run=$1 dev=$2 out spec g opt cmp min
	io=$($run "$DUMP" --ioctl "$dev") || t_fail "ethnl_dump --ioctl $dev"
	for spec in "rings -g ge 8" "coalesce -c ge 24" "channels -l eq 8" "pause -a eq 3"; do
		read -r g opt cmp min <<<"$spec"
		if out=$($run ethtool "$opt" "$dev" 2>&1); then
			n=0
			ethtool_each "$g" "$out" check "$dev" "$g"
			"t_$cmp" "$n" "$min" "$dev $g fields compared"
		else
			echo "$out" | grep -q "Operation not supported" || t_fail "ethtool on $dev: $out"
			en_unsupported "$io" "$g" "$dev"
		fi
	done
}
# compare_groups RUN DEV [ROWS]: netlink and ioctl agree on every row of every group the
# device has (ROWS of them; without ROWS, at least the 4 channel rows).
compare_groups() {
	local res last
	res=$($1 "$DUMP" --compare-groups "$2") || t_fail "netlink and ioctl differ on $2: $res"
	echo "$res"
	last=$(echo "$res" | tail -n 1)
	if [ -n "${3:-}" ]; then
		t_eq "$last" "$2: $3 values compared, 0 differences" "$2: ioctl = netlink"
	else
		[[ $last =~ ^$2:\ ([0-9]+)\ values\ compared,\ 0\ differences$ ]] ||
			t_fail "$2: $last"
		t_ge "${BASH_REMATCH[1]}" 4 "$2: values compared, ioctl = netlink"
	fi
}

t_log "reads: ioctl against netlink and ethtool"
compare_groups inns v0 4 # channels only: veth has no rings, coalescing or pause
compare_groups inns v1 4
compare_groups inns tap0 31 # channels (combined 0 of 1) and the 27 coalesce rows
compare_groups inns tap1 31
for dev in v0 tap0 tap1; do vs_ethtool inns "$dev"; done
t_eq "$(inns "$DUMP" --ioctl tap1 | jq -c '.[0] | [.channels.combined, .channels_max.combined]')" \
	"[0,256]" "multi_queue tap: combined 0 of 256 (no queue attached)"

t_log "channels set through the ioctl"
nl_channels() { inns "$DUMP" v0 | jq -c '.[0].channels'; }
t_eq "$(lval cur RX)/$(lval cur TX)" 4/4 "ethtool -l v0 at start"
run_set 0 --ioctl v0 channels rx=2 tx=3
t_eq "$(echo "$out" | tr '\n' ' ')" "rx 2 tx 3 " "read back by ioctl"
t_eq "$(nl_channels)" '{"rx":2,"tx":3,"other":null,"combined":null}' "read back by netlink"
t_eq "$(lval cur RX)/$(lval cur TX)" 2/3 "ethtool -l v0"
run_set 0 --ioctl v0 channels rx=1
t_eq "$(nl_channels)" '{"rx":1,"tx":3,"other":null,"combined":null}' "rx alone: tx kept at 3"
run_set 3 --ioctl v0 channels rx=8
t_eq "$errout" "ethnl_set: set channels rx 8: Invalid argument" "above the maximum: no extack by ioctl"
run_set 3 --ioctl v0 channels combined=1
t_eq "$errout" "ethnl_set: set channels combined 1: Invalid argument" "combined on veth (maximum 0)"
t_eq "$(lval cur RX)/$(lval cur TX)" 1/3 "refused sets change nothing"
run_set 0 --ioctl v0 channels rx=4 tx=4
t_eq "$(lval cur RX)/$(lval cur TX)" 4/4 "channels restored"

t_log "coalesce set through the ioctl"
nl_coalesce() { inns "$DUMP" tap0 | jq -c '.[0].coalesce | with_entries(select(.value != null))'; }
c_before=$(inns ethtool -c tap0)
t_eq "$(rx_frames)" 0 "ethtool -c tap0 rx-frames at start"
run_set 0 --ioctl tap0 coalesce rx_frames=32
t_eq "$(echo "$out" | awk '$2 != 0' | tr '\n' ' ')" "rx_frames 32 " "read back by ioctl: the other 21 fields 0"
t_eq "$(nl_coalesce)" '{"rx_frames":32}' "read back by netlink: tun reports rx_frames only"
t_eq "$(rx_frames)" 32 "ethtool -c tap0 rx-frames"
# tun keeps at most NAPI_POLL_WEIGHT frames: the value read back is the kernel's.
run_set 0 --ioctl tap0 coalesce rx_frames=100
t_eq "$(echo "$out" | awk '$1 == "rx_frames" { print $2 }')" 64 "tun caps rx-frames: ioctl"
t_eq "$(nl_coalesce)" '{"rx_frames":64}' "tun caps rx-frames: netlink"
t_eq "$(rx_frames)" 64 "tun caps rx-frames: ethtool -c"
# The kernel checks supported_coalesce_params for the ioctl too (netlink says EINVAL).
run_set 3 --ioctl tap0 coalesce rx_usecs=10
t_eq "$errout" "ethnl_set: set coalesce rx_usecs 10: Operation not supported" "unsupported field"
run_set 3 --ioctl tap0 coalesce cqe_mode_rx=1
t_eq "$errout" "ethnl_set: set coalesce cqe_mode_rx 1 (no such field in the ioctl: needs ethtool netlink): Operation not supported" \
	"a netlink-only attribute is refused, not dropped"
t_eq "$(rx_frames)" 64 "refused sets change nothing"

# tun's set_coalesce notifies even for an unchanged value, so the first notification
# after a no-op set and a real one must be the real one's.
en_monitor 1
run_set 0 --ioctl tap0 coalesce rx_frames=64
run_set 0 --ioctl tap0 coalesce rx_frames=8
read -r -t 10 -u 3 line || t_fail "no notification after the ioctl set"
t_eq "$(echo "$line" | jq -c '[.what, .ifindex, .values.rx_frames]')" "[\"coalesce\",$tap,8]" \
	"the first notification is the change (the no-op set wrote nothing)"
en_monitor_done
run_set 0 --ioctl tap0 coalesce rx_frames=0
[ "$(inns ethtool -c tap0)" = "$c_before" ] || t_fail "ethtool -c tap0 differs from the start"
echo "ok: ethtool -c tap0 as at start"

t_log "refusals: the netlink path's texts"
for args in "v0 rings rx=256" "v0 coalesce rx_frames=1" "v0 pause rx=1" "tap1 channels combined=1"; do
	# shellcheck disable=SC2086
	run_set 3 $args
	nl=$errout
	# shellcheck disable=SC2086
	run_set 3 --ioctl $args
	t_eq "$errout" "$nl" "ioctl refusal of $args"
done
t_eq "$errout" "ethnl_set: set channels combined 1: Operation not supported" "tun has no set_channels"
run_set 2 --ioctl v0 pause autoneg=2
t_eq "$errout" "ethnl_set: pause_autoneg: 2 out of range (0..1)" "bool out of range, nothing sent"

t_log "by ifindex: across a rename, and gone"
run_set 0 --ioctl tap0 coalesce rx_frames=16
ip -n "$ns" link set tap0 name tapx
t_eq "$(inns "$DUMP" --ioctl "$tap:tap0" | jq -c '.[0] | [.ifindex, .ifname, .coalesce.rx_frames]')" \
	"[$tap,\"tap0\",16]" "ifindex $tap read as renamed tapx"
ip -n "$ns" link del tapx
js=$(inns "$DUMP" --ioctl "$tap:tap0")
t_eq "$(echo "$js" | jq -r '.[0].errors.coalesce')" \
	"interface $tap (was tap0) disappeared (get coalesce): No such device" "a deleted device"

t_log "the host's NIC, read-only"
nic=${RTLTUNE_TEST_NIC:-eth0}
if [ -e "/sys/class/net/$nic/device" ]; then
	before=$(ethtool_view "$nic")
	compare_groups env "$nic"
	vs_ethtool env "$nic"
	[ "$(ethtool_view "$nic")" = "$before" ] || t_fail "ethtool's view of $nic changed during the test"
	echo "ok: ethtool -g/-c/-l/-a/-k of $nic unchanged by the test"
else
	echo "not checked: no NIC $nic here (set RTLTUNE_TEST_NIC)"
fi
