#!/bin/bash
# lib/ethnl writes, in a private namespace: channels on a 4-queue veth (against ethtool -l),
# coalesce rx-frames on a tap (against ethtool -c, including tun's cap at 64), features on
# veth including ones the kernel keeps off ("off [requested on]", fixed, never-changed)
# against ethtool -k, the kernel's extack text for out-of-range and unsupported values,
# and the monitor group reporting changes made by ethtool(8). Everything is put back and
# checked to be as it was.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/ethnl-lib.sh"

en_netns ethnl
v0=$(inns cat /sys/class/net/v0/ifindex)
tap=$(inns cat /sys/class/net/tap0/ifindex)
feature() { t_feature "$ns" v0 "$1"; }
k_line() { inns ethtool -k v0 | sed -n "s/^[ \t]*$1: //p"; }

k_before=$(inns ethtool -k v0)
c_before=$(inns ethtool -c tap0)

t_log "channels"
t_eq "$(lval max RX)/$(lval cur RX)/$(lval max TX)/$(lval cur TX)" 4/4/4/4 "ethtool -l v0 at start"
run_set 0 v0 channels rx=2 tx=3
t_eq "$(echo "$out" | tr '\n' ' ')" "rx 2 tx 3 " "read back by ethnl_get"
t_eq "$(lval cur RX)/$(lval cur TX)" 2/3 "ethtool -l v0 after rx=2 tx=3"
js=$(inns "$DUMP" v0)
t_eq "$(echo "$js" | jq -c '.[0].channels, .[0].channels_max' | tr '\n' ' ')" \
	'{"rx":2,"tx":3,"other":null,"combined":null} {"rx":4,"tx":4,"other":null,"combined":null} ' \
	"ethnl_dump channels and maxima"
run_set 3 v0 channels rx=8
t_eq "$errout" "ethnl_set: set channels rx 8 (kernel: requested channel count exceeds maximum): Invalid argument" \
	"out-of-range channel count: the kernel's extack text"
run_set 3 v0 channels rx=4 tx=9
t_eq "$errout" "ethnl_set: set channels rx 4 tx 9 (kernel: requested channel count exceeds maximum, at tx): Invalid argument" \
	"the attribute the kernel's offset points at"
t_eq "$(lval cur RX)/$(lval cur TX)" 2/3 "a refused request changes nothing"
run_set 0 v0 channels rx=4 tx=4
t_eq "$(lval cur RX)/$(lval cur TX)" 4/4 "channels restored"

t_log "coalesce"
t_eq "$(rx_frames)" 0 "ethtool -c tap0 rx-frames at start"
run_set 0 tap0 coalesce rx_frames=32
t_eq "$out" "rx_frames 32" "read back"
t_eq "$(rx_frames)" 32 "ethtool -c tap0 rx-frames"
# tun keeps at most NAPI_POLL_WEIGHT frames: the value read back is the kernel's.
run_set 0 tap0 coalesce rx_frames=100
t_eq "$out" "rx_frames 64" "tun caps rx-frames: read back"
t_eq "$(rx_frames)" 64 "tun caps rx-frames: ethtool -c"
run_set 3 tap0 coalesce rx_usecs=10
t_eq "$errout" "ethnl_set: set coalesce rx_usecs 10 (kernel: cannot modify an unsupported parameter): Invalid argument" \
	"unsupported coalesce parameter: the kernel's text"
run_set 0 tap0 coalesce rx_frames=0
[ "$(inns ethtool -c tap0)" = "$c_before" ] || t_fail "ethtool -c tap0 differs from the start"
echo "ok: ethtool -c tap0 as at start"

t_log "unsupported groups, bad values"
js=$(inns "$DUMP" v0)
for g in rings coalesce pause; do en_unsupported "$js" $g veth; done
run_set 3 v0 rings rx=256
t_eq "$errout" "ethnl_set: set rings rx 256: Operation not supported" "rings SET on veth"
run_set 2 v0 pause autoneg=2
t_eq "$errout" "ethnl_set: pause_autoneg: 2 out of range (0..1)" "bool out of range, not sent"
run_set 2 eth0 channels rx=1 # the tool itself: no such device in the namespace

t_log "features"
t_eq "$(feature tx-checksum-ip-generic)/$(feature tx-tcp-segmentation)" on/on "ethtool -k v0 at start"
run_set 0 v0 features off tx-checksum-ip-generic
echo "$out" | grep -qx "changed tx-tcp-segmentation off" || t_fail "TSO not reported as going: $out"
t_eq "$(feature tx-checksum-ip-generic)/$(feature tx-tcp-segmentation)" off/off \
	"TX checksumming off takes TSO with it"
# TSO without TX checksumming: the kernel keeps it off, netlink says so (the ioctl's WISH).
run_set 1 v0 features on tx-tcp-segmentation tx-tcp6-segmentation
t_eq "$(echo "$out" | tr '\n' '|')" \
	"tx-tcp-segmentation off [requested on] kept|tx-tcp6-segmentation off [requested on] kept|result wish|" \
	"requested on, kept off"
t_eq "$(k_line tx-tcp-segmentation)" "off [requested on]" "ethtool -k agrees"
t_eq "$(k_line tx-tcp6-segmentation)" "off [requested on]" "ethtool -k agrees (IPv6)"
# A fixed feature (not in hw_features) is sent and left alone; a never-changed one is
# not sent at all (it would make the kernel refuse the request).
run_set 1 v0 features on tx-gso-robust
t_eq "$(echo "$out" | tr '\n' '|')" "tx-gso-robust off [fixed] kept|result unsupported|" "fixed feature"
run_set 1 v0 features on vlan-challenged
t_eq "$(echo "$out" | tr '\n' '|')" "vlan-challenged off [fixed] kept|result unsupported|" "never-changed feature"
run_set 0 v0 features on no-such-feature
t_eq "$(echo "$out" | tr '\n' '|')" "no-such-feature absent|result ok|" "unknown names ignored, like the ioctl path"
# netlink and ioctl see the same bits, requested-on state included.
for dev in v0 v1 tap0; do
	res=$(inns "$DUMP" --compare-ioctl "$dev") || t_fail "$dev: $res"
	t_eq "$res" "$dev: 64 features compared, 0 differences" "features by netlink = by ioctl"
done
run_set 0 v0 features on tx-checksum-ip-generic
t_eq "$(feature tx-tcp-segmentation)" on "TSO back once TX checksumming is (it was wanted)"
[ "$(inns ethtool -k v0)" = "$k_before" ] || t_fail "ethtool -k v0 differs from the start"
echo "ok: ethtool -k v0 as at start"

t_log "monitor"
en_monitor 3
inns ethtool -L v0 rx 3
inns ethtool -C tap0 rx-frames 8
inns ethtool -K v0 gro on
events=()
for i in 1 2 3; do
	read -r -t 10 -u 3 line || t_fail "monitor: event $i missing (got ${events[*]})"
	events+=("$line")
done
t_eq "$(echo "${events[0]}" | jq -c '[.what, .ifindex, .ifname, .values.rx, .values.tx]')" \
	"[\"channels\",$v0,\"v0\",3,4]" "ethtool -L seen with the new value"
t_eq "$(echo "${events[1]}" | jq -c '[.what, .ifindex, .values.rx_frames]')" \
	"[\"coalesce\",$tap,8]" "ethtool -C seen with the new value"
t_eq "$(echo "${events[2]}" | jq -c '[.what, .ifindex]')" "[\"features\",$v0]" "ethtool -K seen"
en_monitor_done
