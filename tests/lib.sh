#!/bin/bash
# Helpers for integration tests. Source it first thing:  . "$(dirname "$0")/../lib.sh"
# Every namespace made through here is removed on exit, pass or fail.
set -eu -o pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RTLTUNE=${RTLTUNE:-$TOP/build/rtltune}
RTLTUNED=${RTLTUNED:-$TOP/build/rtltuned}
# Unique per test run so parallel runs and leftovers never collide.
T_ID=${T_ID:-rt$$}
T_NETNS=()
T_TMP=$(mktemp -d /tmp/rtltune-test.XXXXXX)
# Tests use their own profile/chip/state directories, never the host's.
export RTLTUNE_STATE_DIR=$T_TMP/state
T_CLEANUP=()

t_cleanup() {
	local rc=$? i
	# Cleanup must run to the end whatever a deferred command returns.
	set +e
	for ((i = ${#T_CLEANUP[@]} - 1; i >= 0; i--)); do eval "${T_CLEANUP[$i]}" 2>/dev/null; done
	# The file too: t_netns usually runs in $(...), whose T_NETNS+= the shell never sees.
	for ns in "${T_NETNS[@]}" $(cat "$T_TMP/netns" 2>/dev/null); do ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del "$ns" 2>/dev/null; done
	rm -rf "$T_TMP"
	exit $rc
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# t_procs NS REGEX: pids in NS whose command line matches REGEX (extended).
t_procs() {
	local p
	for p in $(ip netns pids "$1" 2>/dev/null); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -Eq "$2" && echo "$p"
	done
	return 0
}

# t_stop_loops NS REGEX PID...: kill the background loops PID..., then wait (bounded, 10 s)
# for the run each had in flight (processes in NS matching REGEX) to end, so that it does
# not share the next measurement; what is left then is killed.
t_stop_loops() {
	local ns=$1 re=$2 p i
	shift 2
	for p in "$@"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	for ((i = 0; i < 200; i++)); do
		[ -z "$(t_procs "$ns" "$re")" ] && return 0
		sleep 0.05
	done
	t_procs "$ns" "$re" | xargs -r kill 2>/dev/null || true
}

# Run a command at exit (LIFO), before namespaces are removed.
t_defer() { T_CLEANUP+=("$*"); }

t_skip() { echo "skipped: $*"; exit 77; }
# t_unchecked WHAT: a part of the test this machine cannot exercise, said as a comment; under
# CI=true, where nothing may be skipped (tests/run.sh), it fails the test.
t_unchecked() {
	[ "${CI:-}" != true ] || t_fail "not checked, and CI=true allows no skip: $*"
	echo "# not checked: $*"
}
t_fail() { echo "FAIL: $*" >&2; exit 1; }
t_log() { echo "# $*"; }

# t_eq ACTUAL EXPECTED WHAT
t_eq() { [ "$1" == "$2" ] || t_fail "$3: got '$1', expected '$2'"; echo "ok: $3 = $2"; }
# t_ge A B WHAT  (numbers)
t_ge() { [ "$1" -ge "$2" ] || t_fail "$3: $1 < $2"; echo "ok: $3 ($1 >= $2)"; }
t_le() { [ "$1" -le "$2" ] || t_fail "$3: $1 > $2"; echo "ok: $3 ($1 <= $2)"; }

# t_userns CMD...: CMD as root of a new user namespace (with its own mount namespace), in
# the current directory: unshare -Urm. A chrooted process may not make one (the kernel's
# create_user_ns() refuses with EPERM when current_chrooted()), as in a build chroot or
# fresh-debian.sh; there the namespace is made from the root of the nearest ancestor that is
# not chrooted (nsenter -r), and CMD is put back in this root (unshare --root, through an
# open descriptor of it): what an unchrooted machine does in one step.
t_userns() {
	if unshare -Urm true 2>/dev/null; then
		unshare -Urm "$@"
		return
	fi
	local me p r
	me=$(stat -c %d:%i /)
	p=$BASHPID
	while p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status") && [ "$p" -gt 1 ]; do
		r=$(stat -L -c %d:%i "/proc/$p/root" 2>/dev/null) || continue
		[ "$r" != "$me" ] && break
	done
	[ "$p" -gt 1 ] || { echo "t_userns: no user namespace here, and no unchrooted ancestor" >&2; return 1; }
	nsenter -t "$p" -r -w -- unshare -Urm --root=/proc/self/fd/3 --wd="$PWD" "$@" 3</
}

# t_netns NAME: create namespace "$T_ID-NAME" (with lo up); prints its name.
t_netns() {
	local ns="$T_ID-$1"
	ip netns add "$ns"
	T_NETNS+=("$ns")
	echo "$ns" >>"$T_TMP/netns"
	ip -n "$ns" link set lo up
	echo "$ns"
}

# t_veth_pair NS_A IF_A NS_B IF_B [OPTION...]: a veth pair with one end in each namespace
# (or both in one), both up; OPTIONs go to both ends (numtxqueues 4 numrxqueues 4).
# Variables T_NETNS must already hold the namespaces (made with t_netns in this shell).
t_veth_pair() {
	ip link add "$2" netns "$1" "${@:5}" type veth peer name "$4" netns "$3" "${@:5}"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

# t_silence NS IF: no IPv6 (no router/neighbour solicitations) so counts are exact.
t_silence() {
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
}

# t_quiet_pair NET: namespaces A and B (set here) joined by veth va (NET.0.1/24) and vb
# (NET.0.2/24), no IPv6 and permanent neighbours: the only packets are the test's own, so
# counts are exact. NET is the first two octets, e.g. 10.84.
t_quiet_pair() {
	local ns
	A=$(t_netns a)
	B=$(t_netns b)
	for ns in "$A" "$B"; do
		t_in "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	t_veth_pair "$A" va "$B" vb
	t_silence "$A" va
	t_silence "$B" vb
	ip -n "$A" addr add "$1.0.1/24" dev va
	ip -n "$B" addr add "$1.0.2/24" dev vb
	ip -n "$A" neigh add "$1.0.2" lladdr "$(ip -n "$B" -j link show dev vb | jq -r '.[0].address')" dev va nud permanent
	ip -n "$B" neigh add "$1.0.1" lladdr "$(ip -n "$A" -j link show dev va | jq -r '.[0].address')" dev vb nud permanent
}

# In-namespace helpers.
t_in() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
t_rtl() { local ns=$1; shift; ip netns exec "$ns" "$RTLTUNE" "$@"; }

# Read one attribute of a link as ip(8) reports it: t_ip_attr NS IF gso_max_size
t_ip_attr() { ip -n "$1" -d -j link show dev "$2" | jq -r ".[0].$3"; }

# t_iperf3_servers NS ADDR PORT...: an iperf3 server (a daemon) in NS on each PORT, bound
# to ADDR ("" for every address), listening when this returns; killed at exit. With
# T_IPERF3_CPU set, the servers run on that CPU only (iperf3 -A).
t_iperf3_servers() {
	local ns=$1 addr=$2 port pidfiles=() i n
	shift 2
	for port in "$@"; do
		pidfiles+=("$T_TMP/iperf3-$ns-$port.pid")
		t_in "$ns" iperf3 -s ${addr:+-B "$addr"} ${T_IPERF3_CPU:+-A "$T_IPERF3_CPU"} -p "$port" \
			-D --pidfile "${pidfiles[-1]}"
	done
	t_defer "kill \$(cat ${pidfiles[*]} 2>/dev/null) 2>/dev/null || true"
	for ((i = 0; i < 100; i++)); do
		n=0
		for port in "$@"; do
			[ -n "$(t_in "$ns" ss -Htln "sport = :$port")" ] && n=$((n + 1))
		done
		[ "$n" -eq $# ] && return 0
		sleep 0.05
	done
	t_fail "iperf3 in $ns not listening on $* within 5 s"
}

# t_tcp_counts NS: "RetransSegs OutSegs" of NS so far (/proc/net is the reader's netns).
t_tcp_counts() {
	t_in "$1" awk '/^Tcp:/ && ++n == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
		/^Tcp:/ && n == 2 { print $col["RetransSegs"], $col["OutSegs"] }' /proc/net/snmp
}

# t_tcp_dsack NS: NS's TCPDSACKRecvSegs so far (nstat's TcpExt line: segments the peers
# reported received twice, so retransmitted for nothing), "" when the kernel lacks it.
t_tcp_dsack() {
	t_in "$1" awk '$1 == "TcpExt:" && !col { for (i = 2; i <= NF; i++)
		if ($i == "TCPDSACKRecvSegs") col = i; next } $1 == "TcpExt:" && col { print $col; exit }' \
		/proc/net/netstat
}

[ "$(id -u)" -eq 0 ] || t_skip "needs root"
[ -x "$RTLTUNE" ] || t_fail "$RTLTUNE not built (run make)"

# Tests run the CLI as nobody too. A checkout under a private directory (/root/...) is not
# reachable for nobody: then run a copy laid out like a source tree (Makefile, build/,
# chips/, profiles/) so the binaries still find their data without installing.
if command -v setpriv >/dev/null &&
	! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$RTLTUNE" 2>/dev/null; then
	T_PUB=$(mktemp -d /tmp/rtltune-pub.XXXXXX)
	chmod 755 "$T_PUB"
	mkdir -m 755 "$T_PUB/build"
	cp "$RTLTUNE" "$T_PUB/build/rtltune"
	[ -x "$RTLTUNED" ] && cp "$RTLTUNED" "$T_PUB/build/rtltuned"
	cp -r "$TOP/chips" "$TOP/profiles" "$T_PUB/"
	touch "$T_PUB/Makefile"
	chmod -R a+rX "$T_PUB"
	RTLTUNE=$T_PUB/build/rtltune
	[ -x "$T_PUB/build/rtltuned" ] && RTLTUNED=$T_PUB/build/rtltuned
	t_defer "rm -rf '$T_PUB'"
fi

# t_chip_dir NAME: RTLTUNE_CHIP_PATH gets a directory holding tests/chips/NAME.conf as
# 00-test-NAME.conf. Its entry matches `driver = veth` like chips/virtual.conf's [veth]:
# equal scores, so the file loaded first wins (docs/chips.md "Ties"), and 00- sorts first.
t_chip_dir() {
	local dir=$T_TMP/chips-$1
	[ -f "$TOP/tests/chips/$1.conf" ] || t_fail "no test chip file tests/chips/$1.conf"
	mkdir -p "$dir"
	cp "$TOP/tests/chips/$1.conf" "$dir/00-test-$1.conf"
	# Readable for the CLI run as nobody too: T_TMP is mode 0700.
	chmod 0711 "$T_TMP"
	chmod -R a+rX "$dir"
	export RTLTUNE_CHIP_PATH=$dir
}

# Read a link attribute straight from rtnetlink (tests/tools/linkattr.py): the IPv4 BIG TCP
# sizes that iproute2 6.1 cannot print. t_nl_attr NS IF gso_ipv4_max_size
t_nl_attr() { ip netns exec "$1" python3 "$TOP/tests/tools/linkattr.py" "$2" "$3" | awk '{print $2}'; }
# ethtool -k's value of one feature line ("tcp-segmentation-offload", "tx-tcp6-segmentation").
t_feature() { ip netns exec "$1" ethtool -k "$2" | awk -v f="$3:" '$1 == f { print $2 }'; }

# Every setting rtltune can change on a link, as ip/ethtool/rtnetlink report it, one line:
# compare two of these to prove "exactly as before".
t_link_state() {
	local ns=$1 dev=$2
	{
		ip -n "$ns" -d -j link show dev "$dev" | jq -c '.[0] | {mtu, gso_max_size, gso_max_segs, gro_max_size}'
		ip netns exec "$ns" python3 "$TOP/tests/tools/linkattr.py" "$dev" gso_ipv4_max_size gro_ipv4_max_size
		ip netns exec "$ns" ethtool -k "$dev" | grep -E '^(\s+tx-tcp|tcp-seg|generic-)' | tr -s ' \t' ' '
	} | tr '\n' ' '
}
