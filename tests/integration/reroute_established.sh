#!/bin/bash
# Established connections take size changes (issue 12, docs/stack.md). A socket copies
# gso_max_size (gso_ipv4_max_size for IPv4) when it gets its route; the actuator
# invalidates the cached routes after every change of a stacked size, so the same
# connection's skbs follow at once: measured with the probes (`rtltune trace`, the TX skb
# sizes on ta) around each change.
#  1. rtltune apply, IPv4 and then IPv6: one long-lived connection at gso_max_size 16384;
#     after the apply raises it to 65536, most of its skbs are above 16 KiB; after
#     `rtltune restore` none are, and they are not cut into MSS-sized pieces (the software
#     segmentation a stale 64K socket would cause below a 16K device).
# rtltuned does the same under the shipped unit's sandbox (read-only /proc/sys, its
# capabilities and filters): tests/integration/systemd_boot.sh, under systemd itself.
. "$(dirname "$0")/../lib.sh"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" ta "$B" tb
ip -n "$A" addr add 10.93.0.1/24 dev ta
ip -n "$B" addr add 10.93.0.2/24 dev tb
ip -n "$A" -6 addr add fd93::1/64 dev ta nodad
ip -n "$B" -6 addr add fd93::2/64 dev tb nodad
ip -n "$A" link set ta gso_max_size 16384
before=$(t_link_state "$A" ta)
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\ngso_max_size = 65536\ngso_ipv4_max_size = 65536\n' >"$RTLTUNE_PROFILE_PATH/bigger.conf"
t_iperf3_servers "$B" "" 5201

# sizes: "PERCENT-ABOVE-16K MEAN-BYTES SKBS" of ta's TX skbs over 1 s (tens of thousands of
# skbs at the rates here: the share is settled well before; 2 s each took 9 s more).
sizes() {
	t_rtl "$A" --json trace ta --seconds 1 2>/dev/null | jq -r '.interfaces[0].tx_skb_bytes |
		([.buckets[] | select(.[0] > 16384) | .[1]] | add // 0) as $big |
		"\(if .count > 0 then ($big * 100 / .count | floor) else 0 end) \(if .count > 0 then (.sum / .count | floor) else 0 end) \(.count)"'
}
# flow ADDR SECONDS: one connection in the background (FLOW its pid), once it sends. The
# seconds are a bound, not a schedule: the flow outlives every measurement of it (traces
# take longer to attach on a loaded machine) and is killed when its checks are done.
flow() {
	t_in "$A" iperf3 -c "$1" -p 5201 -t "$2" >"$T_TMP/flow.log" 2>&1 &
	FLOW=$!
	t_defer "kill $FLOW 2>/dev/null || true"
	for ((i = 0; i < 100; i++)); do
		[ "$(t_in "$A" ss -Htn state established "( dport = :5201 )" | wc -l)" -ge 2 ] && return 0
		sleep 0.05
	done
	t_fail "no connection to $1 within 5 s"
}

# After a raise, the share of the connection's skbs above the old cap: 65-74% measured
# (how sender and receiver share the two CPUs sets the mix); a connection that kept its
# old route has none above it, so a quarter tells the two apart with room for the mix.
MIN_ABOVE=25
for dst in 10.93.0.2 fd93::2; do
	t_log "1. rtltune apply under one established connection to $dst"
	flow "$dst" 120
	read -r pct mean n <<<"$(sizes)"
	echo "# at 16384: $pct% of $n skbs above 16 KiB, mean $mean bytes"
	t_eq "$pct" 0 "skbs above 16 KiB before the change ($dst)"
	out=$(t_rtl "$A" apply bigger ta)
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q '^ta: IPv4 and IPv6 routes invalidated' || t_fail "apply does not say the routes were invalidated"
	read -r pct mean n <<<"$(sizes)"
	echo "# at 65536, same connection: $pct% of $n skbs above 16 KiB, mean $mean bytes"
	t_ge "$pct" "$MIN_ABOVE" "the established connection's skbs above 16 KiB after the raise ($dst, percent)"
	t_rtl "$A" restore ta >/dev/null
	read -r pct mean n <<<"$(sizes)"
	echo "# restored to 16384, same connection: $pct% of $n skbs above 16 KiB, mean $mean bytes"
	t_eq "$pct" 0 "skbs above 16 KiB after restore ($dst)"
	t_ge "$mean" 8192 "mean skb after restore: not segmented in software ($dst, bytes)"
	t_eq "$(t_link_state "$A" ta)" "$before" "ta after restore ($dst)"
	kill $FLOW 2>/dev/null || true
	wait $FLOW 2>/dev/null || true
done
grep -q '"outcome":"rerouted"' "$RTLTUNE_STATE_DIR/log" || t_fail "the decision log has no rerouted record"
echo "ok: the decision log records the invalidation"

t_log "1b. without XFRM_MSG_SETDEFAULT (older kernels): the NOP policy rules"
flow 10.93.0.2 120
out=$(RTLTUNE_TEST_FAULT=route_xfrm=EPROTONOSUPPORT t_rtl "$A" apply bigger ta)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '^ta: IPv4 and IPv6 routes invalidated (a NOP policy rule added and deleted)' ||
	t_fail "the fallback was not used"
read -r pct mean n <<<"$(sizes)"
echo "# after the fallback: $pct% of $n skbs above 16 KiB"
t_ge "$pct" "$MIN_ABOVE" "the established connection's skbs above 16 KiB after the fallback (percent)"
t_eq "$(ip -n "$A" rule show | grep -c 'proto 244' || true)" 0 "IPv4 rules left behind"
t_eq "$(ip -n "$A" -6 rule show | grep -c 'proto 244' || true)" 0 "IPv6 rules left behind"
t_rtl "$A" restore ta >/dev/null
kill $FLOW 2>/dev/null || true
wait $FLOW 2>/dev/null || true
