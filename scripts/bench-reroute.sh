#!/bin/bash
# What making established connections take a size change costs (issue 12, docs/stack.md
# "Cost"): rtltune invalidates the netns's cached routes after each change of a stacked
# size, and each socket then looks its route up once, at its next transmit.
#  1. Per socket: NSOCK (1000) established loopback connections, a 1-byte send on each
#     before and after route_invalidate(), median over ROUNDS (30); IPv4 and IPv6.
#  2. The invalidation call itself with few routes and with ROUTES (10000) IPv6 routes
#     (the IPv6 side walks every fib6 node: O(routes), the IPv4 side is one counter).
# Targets: the extra time per socket < 5 us (one route lookup is about 1 us), the call
# with few routes < 1 ms. Exit 1 when missed, and when the tool gave no figure (it failed).
# REROUTE_COST names another tool (`REROUTE_COST=false` shows a failing one is MISSED).
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
TOOL=${REROUTE_COST:-$PWD/build/tests/tools/reroute_cost}
NSOCK=${NSOCK:-1000}
ROUNDS=${ROUNDS:-30}
ROUTES=${ROUTES:-10000}
command -v "$TOOL" >/dev/null || { echo "bench-reroute: $TOOL not built (make bench builds it)" >&2; exit 2; }
ns=rtlrr$$
cleanup() { ip netns del $ns 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add $ns
ip -n $ns link set lo up
ip -n $ns link add rr0 type veth peer name rr1
ip -n $ns link set rr0 up && ip -n $ns link set rr1 up

# run FAMILY NSOCK ROUNDS: the tool's JSON, or nothing when it fails (its message on stderr):
# a missing figure, which judge() counts as missed.
run() { ip netns exec $ns "$TOOL" "$@" || echo "bench-reroute: $TOOL $* failed (exit $?)" >&2; }
verdicts=()
echo "route invalidation: $NSOCK established connections, median of $ROUNDS rounds"
printf '  %-6s %14s %18s %16s  %s\n' family "call (us)" "extra/socket (ns)" "control (ns)" target
for fam in 4 6; do
	read -r call extra ctl how <<<"$(run $fam "$NSOCK" "$ROUNDS" |
		jq -r '"\(.invalidate_us) \(.per_socket_extra_ns) \(.control_ns) \(.how)"')"
	m1=$(judge "$extra" '<' 5000)
	m2=$(judge "$call" '<' 1000)
	verdicts+=("$m1" "$m2")
	printf '  IPv%-3s %14s %18s %16s  extra < 5000 ns: %s; call < 1000 us: %s\n' \
		$fam "${call:--}" "${extra:--}" "${ctl:--}" "$m1" "$m2"
	summary "route invalidation, IPv$fam: extra per socket; the call" \
		"${extra:--} ns; ${call:--} us" "< 5000 ns; < 1000 us" "$(all_met "$m1" "$m2")"
done
h=${how%%:*}
echo "  how: ${h:--}"
ok=$(all_met "${verdicts[@]}")
for i in $(seq 1 "$ROUTES"); do
	printf 'route add fd99:%x:%x::/48 dev rr0\n' $((i / 65536)) $((i % 65536))
done | ip -n $ns -batch -
n6=$(ip -n $ns -6 route show | wc -l)
call=$(run 6 10 "$ROUNDS" | jq -r .invalidate_us)
echo "  with $n6 IPv6 routes: call ${call:--} us (the fib6 walk; no target: O(routes), docs/stack.md)"
summary "  the call with $n6 IPv6 routes" "${call:--} us" "-" "information"
echo "  targets: $ok"
[ "$ok" = met ]
