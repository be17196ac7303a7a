#!/bin/bash
# The sample outputs in README.md, from real runs of today's build.
#   scripts/readme-samples.sh --write [README]   run the commands, rewrite the marked blocks
#   scripts/readme-samples.sh --check [README]   run them, exit 1 (with a diff) when a block
#                                                differs from what the commands print now
#   scripts/readme-samples.sh --print            run them, print every block
#   scripts/readme-samples.sh --compare FILE [README]  compare the blocks of FILE (what
#                                                --print printed) with README's; no root
# A block in README.md is the text between `<!-- sample NAME -->` and `<!-- /sample -->`: an
# indented code block of one or more `$ command` lines, each followed by what it printed.
# Needs root and a build (make): everything runs in three network namespaces made here and
# removed on exit: A holds va and rtltuned (the shipped rtltuned.conf with `profile =
# throughput` and `interfaces = va`), B the far ends and an iperf3 server, C holds vc0,
# which no daemon manages (the one-shot commands). One bulk TCP transfer of 2 seconds runs
# from va after the daemon's status and log and before its counters are read.
#
# What a block shows is what the command printed, with two kinds of rewriting, both here:
# - paths: the run's temporary directory and the tree are shown as the installed paths
#   (/etc/rtltune/rtltuned.conf, /run/rtltune/control.sock, /usr/share/rtltune/...);
# - for --check only, normalise() on both sides: what differs from run to run (pids,
#   the namespaces' names (rtlsampPID-X: a veth's peer in show), uptimes, ifindexes, MAC
#   addresses, dates and times; in the blocks of counters, every
#   number and histogram bar; in status, the host's softnet counters) is replaced by a
#   placeholder before comparing.
set -eu -o pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
RTLTUNE=${RTLTUNE:-$TOP/build/rtltune}
RTLTUNED=${RTLTUNED:-$TOP/build/rtltuned}
mode=${1:-}
readme=${2:-$TOP/README.md}
usage() { echo "usage: scripts/readme-samples.sh --write|--check|--print [README] | --compare FILE [README]" >&2; exit 2; }
case $mode in
--write | --check | --print) ;;
--compare) [ $# -ge 2 ] || usage; readme=${3:-$TOP/README.md} ;;
*) usage ;;
esac

# The names of the blocks in FILE, in order.
block_names() { sed -n 's/^<!-- sample \([a-z0-9-]*\) -->$/\1/p' "$1"; }

# block FILE NAME: the text of block NAME, unindented, without blank lines at its ends.
block() {
	awk -v name="$2" '$0 == "<!-- sample " name " -->" { on = 1; next }
		on && $0 == "<!-- /sample -->" { exit } on' "$1" |
		sed -e 's/^    //' | sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'
}

# normalise NAME: what legitimately differs between two runs, replaced (header comment).
normalise() {
	sed -E -e 's/pid [0-9]+/pid N/g; s/up [0-9]+[a-z]+( [0-9]+[a-z]+)*/up T/g' \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}/DATE/g' \
		-e 's/ifindex [0-9]+/ifindex N/g; s/([0-9a-f]{2}:){5}[0-9a-f]{2}/MAC/g' \
		-e 's/rtlsamp[0-9]+-/rtlsampN-/g' |
		case $1 in
		stats | hist | metrics)
			# Counters: every number and bar; drops are listed only when there were some
			# (per interface, and in the last column of the per-CPU table).
			sed -E -e '/^ *drops: /d; s/^([0-9]+ .*[0-9]%) .*$/\1 D/' \
				-e 's/[0-9][0-9.]*[kMGT]?/N/g; s/\|[* ]*\|/|B|/g; s/ +/ /g' | uniq ;;
		status)
			# The host's counters since boot; drops per CPU only when there were some.
			sed -E -e 's/^(  softnet: ).*/\1S/; /^  cpu drops: /d' ;;
		*) cat ;;
		esac
}

# compare FILE README: every block of FILE equals README's block of that name (normalised),
# and README has no block FILE lacks. Prints a diff per block that differs.
compare() {
	local bad=0 name
	for name in $(block_names "$1"); do
		if ! block_names "$2" | grep -qx "$name"; then
			echo "readme-samples: $2 has no block '$name'"
			bad=1
		elif ! diff -u --label "$2 ($name)" --label "today ($name)" \
			<(block "$2" "$name" | normalise "$name") <(block "$1" "$name" | normalise "$name"); then
			bad=1
		fi
	done
	for name in $(block_names "$2"); do
		block_names "$1" | grep -qx "$name" || { echo "readme-samples: $2 has a block '$name' that nothing generates"; bad=1; }
	done
	return $bad
}

if [ "$mode" = --compare ]; then
	[ -f "$2" ] && [ -f "$readme" ] || usage
	compare "$2" "$readme" && echo "readme-samples: the $(block_names "$2" | wc -l) sample blocks of $readme are what the commands print"
	exit
fi
[ "$(id -u)" -eq 0 ] || { echo "readme-samples: needs root (network namespaces, BPF)" >&2; exit 2; }
[ -x "$RTLTUNE" ] && [ -x "$RTLTUNED" ] || { echo "readme-samples: build first (make)" >&2; exit 2; }
for tool in iperf3 jq curl; do
	command -v $tool >/dev/null || { echo "readme-samples: $tool not installed" >&2; exit 2; }
done
[ "$mode" = --print ] || [ -f "$readme" ] || { echo "readme-samples: no $readme" >&2; exit 2; }

tmp=$(mktemp -d /tmp/rtltune-samples.XXXXXX)
A=rtlsamp$$-a B=rtlsamp$$-b C=rtlsamp$$-c
DST=10.91.0.2
daemon=
cleanup() {
	set +e
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	for ns in $A $B $C; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp/etc" "$tmp/run" "$tmp/state" "$tmp/out"
for ns in $A $B $C; do
	ip netns add $ns
	ip -n $ns link set lo up
	ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add va netns $A type veth peer name vb netns $B
ip link add vc0 netns $C type veth peer name vc1 netns $B
ip -n $A addr add 10.91.0.1/24 dev va
ip -n $B addr add $DST/24 dev vb
for l in "$A va" "$B vb" "$C vc0" "$B vc1"; do
	# shellcheck disable=SC2086
	set -- $l
	ip -n "$1" link set "$2" up
done
ip netns exec $B iperf3 -s -B $DST -p 5201 -D -1 >/dev/null

# The daemon as the package runs it: the shipped config with a profile set.
sed 's/^;profile = none$/profile = throughput/; s/^;interfaces = .*/interfaces = va/' \
	etc/rtltuned.conf >"$tmp/etc/rtltuned.conf"
grep -qx 'profile = throughput' "$tmp/etc/rtltuned.conf" || { echo "readme-samples: etc/rtltuned.conf has no ';profile = none' line" >&2; exit 1; }
export RTLTUNE_SOCKET=$tmp/run/control.sock RTLTUNE_STATE_DIR=$tmp/state
ip netns exec $A "$RTLTUNED" --foreground --config "$tmp/etc/rtltuned.conf" \
	--socket "$RTLTUNE_SOCKET" --state-dir "$RTLTUNE_STATE_DIR" >"$tmp/rtltuned.log" 2>&1 &
daemon=$!
for ((i = 0; i < 100; i++)); do
	ip netns exec $A "$RTLTUNE" status >/dev/null 2>&1 && break
	kill -0 $daemon 2>/dev/null || { cat "$tmp/rtltuned.log" >&2; exit 1; }
	sleep 0.05
done
ip netns exec $A "$RTLTUNE" status >/dev/null || { cat "$tmp/rtltuned.log" >&2; echo "readme-samples: rtltuned did not answer within 5 s" >&2; exit 1; }
# The profile's changes are logged once the interface is applied.
applied() { ip netns exec $A "$RTLTUNE" --json status | jq -e '.interfaces[] | select(.ifname == "va") | .applied.ok' >/dev/null; }
for ((i = 0; i < 100; i++)); do applied && break; sleep 0.05; done
applied || { echo "readme-samples: rtltuned did not apply the profile to va within 5 s" >&2; exit 1; }

# Paths as installed (see the header).
paths() {
	sed -e "s|$tmp/etc/|/etc/rtltune/|g; s|$tmp/run/|/run/rtltune/|g; s|$tmp/state|/var/lib/rtltune|g" \
		-e "s|$TOP/profiles/|/usr/share/rtltune/profiles/|g; s|$TOP/chips/|/usr/share/rtltune/chips/|g"
}

# sample NAME NS 'COMMAND' ...: the commands, run one after the other in one shell in NS
# (rtltune from the build, as if installed), each shown as `$ COMMAND` with what it printed
# (stdout and stderr); `echo $?` shows the previous command's exit status.
sample() {
	local name=$1 ns=$2 env=()
	shift 2
	# In C there is no daemon: no socket, a journal of the CLI's own.
	[ "$ns" = "$C" ] && env=(-u RTLTUNE_SOCKET RTLTUNE_STATE_DIR="$tmp/cli-state")
	ip netns exec "$ns" env "${env[@]}" PATH="$TOP/build:$PATH" bash -c '
		rc=0
		for cmd in "$@"; do
			[ "$cmd" = "$1" ] || echo
			printf "\$ %s\n" "$cmd"
			(exit $rc)
			eval "$cmd" 2>&1
			rc=$?
		done' sample "$@" | paths >"$tmp/out/$name"
}
# The daemon's state and log before any traffic (the tuner has nothing to do yet), then the
# counters after the transfer; the one-shot commands on vc0.
# shellcheck disable=SC2016
sample status $A 'rtltune status'
sample log $A 'rtltune log --lines 12'
sample show $A 'rtltune show va'
ip netns exec $A iperf3 -c $DST -p 5201 -t 2 >/dev/null
sample stats $A 'rtltune stats va'
sample hist $A 'rtltune hist va tx_skb_bytes'
sample metrics $A "curl -s 127.0.0.1:9775/metrics | grep -E '^rtltune_(tx_packets|tcp_retrans|knob_value|tuning_dec)' | head"
sample dry-run $C 'rtltune apply throughput vc0 --dry-run'
sample verify-differs $C 'rtltune verify throughput vc0' 'echo $?'
sample apply $C 'rtltune apply throughput vc0'
sample verify-matches $C 'rtltune verify throughput vc0'
sample restore $C 'rtltune restore vc0'
order="status log show stats hist metrics dry-run verify-differs apply verify-matches restore"

for name in $order; do
	echo "<!-- sample $name -->"
	echo
	sed -e 's/^./    &/' "$tmp/out/$name"
	echo
	echo "<!-- /sample -->"
done >"$tmp/samples"
case $mode in
--print) cat "$tmp/samples" ;;
--check) compare "$tmp/samples" "$readme" && echo "readme-samples: the $(block_names "$tmp/samples" | wc -l) sample blocks of $readme are what the commands print" ;;
--write)
	# Each block's lines replaced in place; everything around the markers stays.
	awk -v dir="$tmp/out" '
		/^<!-- sample [a-z0-9-]+ -->$/ {
			print; name = $3; print ""
			while ((getline l < (dir "/" name)) > 0) print (l == "" ? "" : "    " l)
			close(dir "/" name); print ""; skip = 1; next }
		skip && $0 == "<!-- /sample -->" { skip = 0 }
		!skip' "$readme" >"$tmp/readme"
	compare "$tmp/samples" "$tmp/readme" >/dev/null || { compare "$tmp/samples" "$tmp/readme"; exit 1; }
	cat "$tmp/readme" >"$readme"
	echo "readme-samples: rewrote the $(block_names "$readme" | wc -l) sample blocks of $readme"
	;;
esac
