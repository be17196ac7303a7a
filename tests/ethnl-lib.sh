#!/bin/bash
# Helpers for the ethtool tests (tests/integration/ethnl_*.sh, ethtool_ioctl_groups.sh):
# the test tools, a namespace with the devices they write to, and ethtool(8)'s output read
# as fields to compare with tests/tools/ethnl_dump's JSON. Source after tests/lib.sh.

SET=$TOP/build/tests/tools/ethnl_set
DUMP=$TOP/build/tests/tools/ethnl_dump
[ -x "$SET" ] && [ -x "$DUMP" ] || t_fail "ethnl test tools not built (make \$(TOOL_BINS))"
command -v ethtool >/dev/null || t_skip "ethtool(8) not installed"

# en_netns NAME: sets ns to a new namespace holding a veth pair v0/v1 with 4 queues each
# way (channels to change) and a tap tap0 (coalescing to change), all up but the tap.
en_netns() {
	ns=$(t_netns "$1")
	t_veth_pair "$ns" v0 "$ns" v1 numtxqueues 4 numrxqueues 4
	ip -n "$ns" tuntap add dev tap0 mode tap
}
inns() { ip netns exec "$ns" "$@"; }

# run_set EXPECTED_RC ARGS...: ethnl_set's stdout in $out, stderr in $errout.
run_set() {
	local want=$1 rc=0
	shift
	out=$(inns "$SET" "$@" 2>"$T_TMP/err") || rc=$?
	errout=$(cat "$T_TMP/err")
	[ "$rc" -eq "$want" ] || t_fail "ethnl_set $*: exit $rc, expected $want ($errout)"
}
# ethtool -l v0 field: lval cur|max RX|TX
lval() { inns ethtool -l v0 | awk -v s="$1" -v k="$2:" '/^Pre-set/ { m = "max" } /^Current/ { m = "cur" }
	m == s && $1 == k { print $2 }'; }
rx_frames() { inns ethtool -c tap0 | awk '$1 == "rx-frames:" { print $2 }'; }

# en_monitor COUNT: `ethnl_dump --monitor COUNT 10` in ns, subscribed when this returns;
# its lines are read from fd 3. en_monitor_done waits for it to have printed them all.
en_monitor() {
	mkfifo "$T_TMP/mon"
	inns "$DUMP" --monitor "$1" 10 >"$T_TMP/mon" &
	mon_pid=$!
	t_defer "kill $mon_pid"
	exec 3<"$T_TMP/mon"
	read -r -t 10 -u 3 line || t_fail "monitor did not start"
	t_eq "$line" ready "monitor subscribed"
}
en_monitor_done() {
	wait "$mon_pid" || t_fail "monitor exited $?"
	exec 3<&-
}

# en_value JSON GROUP KEY: one value of ethnl_dump's first interface, "null" when absent.
en_value() {
	echo "$1" | jq -r --arg g "$2" --arg k "$3" '.[0][$g][$k] | if . == null then "null" else tostring end'
}

# en_unsupported JSON GROUP WHAT: ethnl_dump reported GROUP as one the driver lacks.
en_unsupported() {
	t_eq "$(echo "$1" | jq -r ".[0].$2")" null "$3 $2 unsupported"
	t_eq "$(echo "$1" | jq -r ".[0].errors.$2")" \
		"get $2 (not implemented by the driver): Operation not supported" "$3 $2 message"
}

# ethtool_view DEV: everything ethtool -g/-c/-l/-a/-k says of DEV, to compare before/after.
ethtool_view() { for o in -g -c -l -a -k; do ethtool "$o" "$1" 2>&1 || true; done; }

# ethtool_each GROUP OUTPUT FN [ARGS...]: runs FN ARGS... SECTION KEY VALUE, in this shell,
# for each field of OUTPUT, what ethtool -g, -c, -l or -a printed for GROUP (rings,
# coalesce, channels, pause): SECTION max (Pre-set maximums) or cur, KEY the row name of
# rtltune/ethnl.h, VALUE as ethtool prints it (n/a, on, off, numbers). A label this does
# not know fails the test.
ethtool_each() {
	local g=$1 out=$2 sec k v
	shift 2
	while IFS=$'\t' read -r sec k v; do
		[[ $k != \?* ]] || t_fail "ethtool prints '${k#\?}' for $g: not mapped by this test"
		"$@" "$sec" "$k" "$v"
	done < <(echo "$out" | ethtool_fields "$g")
}

# ethtool_fields GROUP: ethtool's output on stdin as ethtool_each's fields, one a line.
ethtool_fields() {
	local sec label v
	case $1 in
	rings | channels)
		awk '/^Pre-set maximums:/ { s = "max"; next } /^Current hardware settings:/ { s = "cur"; next }
		     s && /:/ { k = $0; sub(/:.*/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v); print s "\t" k "\t" v }' |
			while IFS=$'\t' read -r sec label v; do
				printf '%s\t%s\t%s\n' "$sec" "$(ethtool_key "$1" "$label")" "$v"
			done
		;;
	coalesce)
		# "Adaptive RX: off  TX: n/a" and "CQE mode RX: n/a  TX: n/a" hold two fields;
		# ethtool says rx-frame-low where the option (and our row) is rx-frames-low.
		awk '/^Adaptive RX:/ { print "cur\tadaptive_rx\t" $3; print "cur\tadaptive_tx\t" $5; next }
		     /^CQE mode RX:/ { print "cur\tcqe_mode_rx\t" $4; print "cur\tcqe_mode_tx\t" $6; next }
		     /^[a-z-]+: / { k = $1; sub(/:$/, "", k); gsub(/-/, "_", k); sub(/_frame_/, "_frames_", k)
				    print "cur\t" k "\t" $2 }'
		;;
	pause)
		awk '/^Autonegotiate:/ { print "cur\tautoneg\t" $2 } /^RX:/ { print "cur\trx\t" $2 }
		     /^TX:/ { print "cur\ttx\t" $2 }'
		;;
	esac
}

# ethtool_key GROUP LABEL: the row name for a label of ethtool -g or -l; ?LABEL if none.
ethtool_key() {
	case $1/$2 in
	rings/RX) echo rx ;; "rings/RX Mini") echo rx_mini ;; "rings/RX Jumbo") echo rx_jumbo ;;
	rings/TX) echo tx ;; "rings/RX Buf Len") echo rx_buf_len ;; "rings/CQE Size") echo cqe_size ;;
	"rings/TX Push") echo tx_push ;; "rings/RX Push") echo rx_push ;;
	"rings/TX push buff len") echo tx_push_buf_len ;; "rings/TCP data split") echo tcp_data_split ;;
	"rings/HDS thresh") echo hds_thresh ;;
	channels/RX | channels/TX | channels/Other | channels/Combined) echo "$2" | tr 'A-Z' 'a-z' ;;
	*) echo "?$2" ;;
	esac
}
