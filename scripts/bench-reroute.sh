#!/bin/bash
# What making established connections take a size change costs (issue 12, docs/stack.md
# "Cost"): rtltune invalidates the netns's cached routes after each change of a stacked
# size, and each socket then looks its route up once, at its next transmit.
#  1. Per socket: NSOCK (1000) established loopback connections, a 1-byte send on each
#     before and after route_invalidate(), median over ROUNDS (30); IPv4 and IPv6.
#  2. The invalidation call itself with few routes and with ROUTES (10000) IPv6 routes
#     (the IPv6 side walks every fib6 node: O(routes), the IPv4 side is one counter).
# Targets: the extra time per socket < 5 us (one route lookup is about 1 us), the call
# with few routes < 1 ms. Exit 1 when missed.
set -eu
cd "$(dirname "$0")/.."
TOOL=$PWD/build/tests/tools/reroute_cost
NSOCK=${NSOCK:-1000}
ROUNDS=${ROUNDS:-30}
ROUTES=${ROUTES:-10000}
[ -x "$TOOL" ] || { echo "bench-reroute: build first (make)" >&2; exit 2; }
ns=rtlrr$$
cleanup() { ip netns del $ns 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add $ns
ip -n $ns link set lo up
ip -n $ns link add rr0 type veth peer name rr1
ip -n $ns link set rr0 up && ip -n $ns link set rr1 up

run() { ip netns exec $ns "$TOOL" "$@"; }
ok=met
judge() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t ? "met" : "MISSED") }'; }
echo "route invalidation: $NSOCK established connections, median of $ROUNDS rounds"
printf '  %-6s %14s %18s %16s  %s\n' family "call (us)" "extra/socket (ns)" "control (ns)" target
for fam in 4 6; do
	read -r call extra ctl how <<<"$(run $fam "$NSOCK" "$ROUNDS" |
		jq -r '"\(.invalidate_us) \(.per_socket_extra_ns) \(.control_ns) \(.how)"')"
	m1=$(judge "$extra" 5000)
	m2=$(judge "$call" 1000)
	[ "$m1" = met ] && [ "$m2" = met ] || ok=MISSED
	printf '  IPv%-3s %14s %18s %16s  extra < 5000 ns: %s; call < 1000 us: %s\n' \
		$fam "$call" "$extra" "$ctl" "$m1" "$m2"
done
echo "  how: ${how%%:*}"
for i in $(seq 1 "$ROUTES"); do
	printf 'route add fd99:%x:%x::/48 dev rr0\n' $((i / 65536)) $((i % 65536))
done | ip -n $ns -batch -
n6=$(ip -n $ns -6 route show | wc -l)
call=$(run 6 10 "$ROUNDS" | jq -r .invalidate_us)
echo "  with $n6 IPv6 routes: call $call us (the fib6 walk; no target: O(routes), docs/stack.md)"
echo "  targets: $ok"
[ "$ok" = met ]
