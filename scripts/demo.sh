#!/bin/bash
# `make demo`: a veth testbed in two network namespaces, real traffic, rtltune at work.
# Everything it creates is removed on exit, also on Ctrl-C or failure.
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (network namespaces, BPF): sudo make demo" >&2; exit 2; }
RTLTUNE=$PWD/build/rtltune
A=rtldemo-tx B=rtldemo-rx
state=$(mktemp -d /tmp/rtltune-demo.XXXXXX)
export RTLTUNE_STATE_DIR=$state/state
cleanup() {
	ip netns pids $A 2>/dev/null | xargs -r kill 2>/dev/null || :
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null || :
	ip netns del $A 2>/dev/null || :
	ip netns del $B 2>/dev/null || :
	rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

cleanup
ip netns add $A
ip netns add $B
ip link add demo0 netns $A type veth peer name demo1 netns $B
ip -n $A addr add 10.77.0.1/24 dev demo0
ip -n $B addr add 10.77.0.2/24 dev demo1
ip -n $A link set demo0 up
ip -n $B link set demo1 up
ip -n $A link set lo up
ip -n $B link set lo up
# A poor starting point: small GSO packets, as on a host tuned for a slow i.MX6 fec.
ip -n $A link set demo0 gso_max_size 16384

step "What the sender's NIC is, and what it could be set to"
run ip netns exec $A "$RTLTUNE" show demo0
step "Which chip database entry it matched, and why"
run ip netns exec $A "$RTLTUNE" chips demo0

step "The built-in throughput profile, resolved"
run ip netns exec $A "$RTLTUNE" profile show throughput
step "What applying it would change (dry run)"
run ip netns exec $A "$RTLTUNE" apply throughput demo0 --dry-run

iperf() {
	ip netns exec $B iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
	sleep 0.3
	ip netns exec $A iperf3 -c 10.77.0.2 -p 5201 -t "${1:-3}" -J |
		jq -r '"\(.end.sum_received.bits_per_second / 1e9 | . * 100 | floor / 100) Gbit/s, \(.end.sum_sent.retransmits) retransmits"'
}
step "Traffic before (iperf3, 3 s)"
before=$(iperf 3)
echo "before: $before"

step "Apply it, verify it"
run ip netns exec $A "$RTLTUNE" apply throughput demo0
run ip netns exec $A "$RTLTUNE" verify throughput demo0

step "Traffic after (iperf3, 3 s)"
after=$(iperf 3)
echo "before: $before"
echo "after:  $after"

step "Back to the original settings from the journal"
run ip netns exec $A "$RTLTUNE" restore demo0
run ip netns exec $A "$RTLTUNE" verify throughput demo0 || echo "(exit 1: restore put back what the profile had changed)"
