#!/bin/bash
# The SIOCETHTOOL fallback for rings, coalescing, channels and pause (lib/ethtool_groups.c)
# against the ethtool netlink path and ethtool(8). In a private namespace: a 4-queue veth
# pair, a tap and a multi_queue tap read by both paths value by value and checked against
# ethtool -g/-c/-l/-a; channels (veth) and coalesce rx-frames (tap) set through the ioctl
# and read back by netlink and ethtool; only the fields asked for change, a set that
# changes nothing writes nothing, refusals have the netlink path's texts; the device is
# followed by ifindex across a rename and reported gone once deleted. Then the host's NIC
# (eth0, virtio_net; RTLTUNE_TEST_NIC names another) read-only through both paths.
. "$(dirname "$0")/../lib.sh"

SET=$TOP/build/tests/tools/ethnl_set
DUMP=$TOP/build/tests/tools/ethnl_dump
[ -x "$SET" ] && [ -x "$DUMP" ] || t_fail "ethnl test tools not built (make \$(TOOL_BINS))"
command -v ethtool >/dev/null || t_skip "ethtool(8) not installed"

ns=$(t_netns ioctlgrp)
ip -n "$ns" link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1 \
	numtxqueues 4 numrxqueues 4
ip -n "$ns" link set v0 up
ip -n "$ns" link set v1 up
ip -n "$ns" tuntap add dev tap0 mode tap
ip -n "$ns" tuntap add dev tap1 mode tap multi_queue
inns() { ip netns exec "$ns" "$@"; }
tap=$(inns cat /sys/class/net/tap0/ifindex)

# run_set EXPECTED_RC ARGS...: ethnl_set's stdout in $out, stderr in $errout.
run_set() {
	local want=$1 rc=0
	shift
	out=$(inns "$SET" "$@" 2>"$T_TMP/err") || rc=$?
	errout=$(cat "$T_TMP/err")
	[ "$rc" -eq "$want" ] || t_fail "ethnl_set $*: exit $rc, expected $want ($errout)"
}

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
ours() { echo "$io" | jq -r --arg g "$1" --arg k "$2" '.[0][$g][$k] | if . == null then "null" else tostring end'; }
# "SECTION<TAB>LABEL<TAB>VALUE" of ethtool -g / -l (Pre-set maximums vs current).
sections() {
	awk '/^Pre-set maximums:/ { s = "max"; next } /^Current hardware settings:/ { s = "cur"; next }
	     s && /:/ { k = $0; sub(/:.*/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v); print s "\t" k "\t" v }'
}
ring_key() {
	case $1 in
	RX) echo rx ;; "RX Mini") echo rx_mini ;; "RX Jumbo") echo rx_jumbo ;; TX) echo tx ;;
	"RX Buf Len") echo rx_buf_len ;; "CQE Size") echo cqe_size ;; "TX Push") echo tx_push ;;
	"RX Push") echo rx_push ;; "TX push buff len") echo tx_push_buf_len ;;
	"TCP data split") echo tcp_data_split ;; "HDS thresh") echo hds_thresh ;;
	*) t_fail "ethtool -g prints '$1': not mapped by this test" ;;
	esac
}
# check DEV GROUP KEY SECTION ETHTOOL_VALUE
check() {
	local g=$2
	[ "$4" = max ] && g=${2}_max
	# ethtool prints no maximum for a ring row without one (rx_buf_len ...): only values.
	if [ "$4" = max ] && [ "$(expect "$2" "$3" x)" = null ]; then
		t_eq "$(ours "$g" "$3")" null "$1 ioctl $g $3"
	else
		t_eq "$(ours "$g" "$3")" "$(expect "$2" "$3" "$5")" "$1 ioctl $g $3"
	fi
	n=$((n + 1))
}
unsupported() { # DEV GROUP ETHTOOL_OUTPUT
	echo "$3" | grep -q "Operation not supported" || t_fail "ethtool on $1: $3"
	t_eq "$(echo "$io" | jq -r ".[0].$2")" null "$1 $2 unsupported, as ethtool says"
	t_eq "$(echo "$io" | jq -r ".[0].errors.$2")" \
		"get $2 (not implemented by the driver): Operation not supported" "$1 $2 message"
}
# vs_ethtool RUN DEV: RUN is inns or env (the host's namespace).
vs_ethtool() {
	local run=$1 dev=$2 out sec label k v
	io=$($run "$DUMP" --ioctl "$dev") || t_fail "ethnl_dump --ioctl $dev"
	if out=$($run ethtool -g "$dev" 2>&1); then
		n=0
		while IFS=$'\t' read -r sec label v; do
			check "$dev" rings "$(ring_key "$label")" "$sec" "$v"
		done < <(echo "$out" | sections)
		t_ge "$n" 8 "$dev ring fields compared"
	else
		unsupported "$dev" rings "$out"
	fi
	if out=$($run ethtool -c "$dev" 2>&1); then
		n=0
		# "Adaptive RX: off  TX: n/a" and "CQE mode RX: n/a  TX: n/a" hold two fields;
		# ethtool says rx-frame-low where the option (and our row) is rx-frames-low.
		while IFS=$'\t' read -r k v; do
			check "$dev" coalesce "$k" cur "$v"
		done < <(echo "$out" | awk '
			/^Adaptive RX:/ { print "adaptive_rx\t" $3; print "adaptive_tx\t" $5; next }
			/^CQE mode RX:/ { print "cqe_mode_rx\t" $4; print "cqe_mode_tx\t" $6; next }
			/^[a-z-]+: / { k = $1; sub(/:$/, "", k); gsub(/-/, "_", k); sub(/_frame_/, "_frames_", k)
				       print k "\t" $2 }')
		t_ge "$n" 24 "$dev coalesce fields compared (22 and CQE mode RX/TX)"
	else
		unsupported "$dev" coalesce "$out"
	fi
	if out=$($run ethtool -l "$dev" 2>&1); then
		n=0
		while IFS=$'\t' read -r sec label v; do
			case $label in RX | TX | Other | Combined) ;; *) t_fail "ethtool -l prints '$label'" ;; esac
			check "$dev" channels "$(echo "$label" | tr 'A-Z' 'a-z')" "$sec" "$v"
		done < <(echo "$out" | sections)
		t_eq "$n" 8 "$dev channel fields compared"
	else
		unsupported "$dev" channels "$out"
	fi
	if out=$($run ethtool -a "$dev" 2>&1); then
		n=0
		while IFS=$'\t' read -r k v; do
			check "$dev" pause "$k" cur "$v"
		done < <(echo "$out" | awk '/^Autonegotiate:/ { print "autoneg\t" $2 }
					    /^RX:/ { print "rx\t" $2 } /^TX:/ { print "tx\t" $2 }')
		t_eq "$n" 3 "$dev pause fields compared"
	else
		unsupported "$dev" pause "$out"
	fi
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
lval() { inns ethtool -l v0 | awk -v s="$1" -v k="$2:" '/^Pre-set/ { m = "max" } /^Current/ { m = "cur" }
	m == s && $1 == k { print $2 }'; }
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
rx_frames() { inns ethtool -c tap0 | awk '$1 == "rx-frames:" { print $2 }'; }
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
mkfifo "$T_TMP/mon"
inns "$DUMP" --monitor 1 10 >"$T_TMP/mon" &
mon_pid=$!
t_defer "kill $mon_pid"
exec 3<"$T_TMP/mon"
read -r -t 10 -u 3 line || t_fail "monitor did not start"
t_eq "$line" ready "monitor subscribed"
run_set 0 --ioctl tap0 coalesce rx_frames=64
run_set 0 --ioctl tap0 coalesce rx_frames=8
read -r -t 10 -u 3 line || t_fail "no notification after the ioctl set"
t_eq "$(echo "$line" | jq -c '[.what, .ifindex, .values.rx_frames]')" "[\"coalesce\",$tap,8]" \
	"the first notification is the change (the no-op set wrote nothing)"
wait "$mon_pid" || t_fail "monitor exited $?"
exec 3<&-
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
	snapshot() { for o in -g -c -l -a -k; do ethtool "$o" "$nic" 2>&1 || true; done; }
	before=$(snapshot)
	compare_groups env "$nic"
	vs_ethtool env "$nic"
	[ "$(snapshot)" = "$before" ] || t_fail "ethtool's view of $nic changed during the test"
	echo "ok: ethtool -g/-c/-l/-a/-k of $nic unchanged by the test"
else
	echo "not checked: no NIC $nic here (set RTLTUNE_TEST_NIC)"
fi
