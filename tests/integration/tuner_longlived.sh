#!/bin/bash
# Acceptance (issue 12): long-lived connections take what the tuner finds. One IPv4 and one
# IPv6 connection (iperf3 -t 90 each, at the same time) start at gso_max_size 16384 with
# rtltuned's tuner on: gso_max_size is raised and kept, and each connection's own
# throughput over its last 5 s is at least 1.5x its first 2 s (a switchback trial starts
# 2 s into the flows, 4 samples of 500 ms, and the raises can be kept within the next 3 s:
# a 5 s "before" would already hold them). A socket copies the sizes
# when it gets its route; the actuator invalidates the routes after each change
# (docs/stack.md), so the same connections speed up. ta is taken for a chip with a 64K TSO
# limit (tests/chips/veth-64k.conf): the raise ends there after one trial (16K -> 64K), where veth's
# own limit let the tuner go on to 128K and 256K for 25 s more (64K already triples the
# rate; how far the tuner goes is tuner_raise's). The connections end 5 s after the tuner
# settled (tn_flows_until_settled), at the latest after their 90 s: 20-95 s.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"

SECS=90
A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" ta "$B" tb
ip -n "$A" addr add 10.89.0.1/24 dev ta
ip -n "$B" addr add 10.89.0.2/24 dev tb
ip -n "$A" -6 addr add fd89::1/64 dev ta nodad
ip -n "$B" -6 addr add fd89::2/64 dev tb nodad
ip -n "$A" link set ta gso_max_size 16384
t_eq "$(t_nl_attr "$A" ta gso_ipv4_max_size)" 16384 "gso_ipv4_max_size follows gso_max_size"
t_iperf3_servers "$B" "" 5201 5202
# A trial the criterion rejects on a loaded machine is tried again after 10 s, not the
# default 300 s: this tests that raises reach established connections, not the
# criterion's power (tuner_raise does that).
tn_conf "$T_TMP/rtltuned.conf" "backoff_initial = 10s"
t_chip_dir veth-64k
TN_A=$A
d_start "$A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail

# One connection each, for the whole run: per-second intervals.
ip netns exec "$A" iperf3 -c 10.89.0.2 -p 5201 -t $SECS -i 1 -J >"$T_TMP/v4.json" 2>&1 &
V4=$!
ip netns exec "$A" iperf3 -c fd89::2 -p 5202 -t $SECS -i 1 -J >"$T_TMP/v6.json" 2>&1 &
V6=$!
t_defer "kill $V4 $V6 2>/dev/null || true"
tn_flows_until_settled $((SECS - 15)) ta -- $V4 $V6
tn_flow_ok "$T_TMP/v4.json" "the IPv4 connection"
tn_flow_ok "$T_TMP/v6.json" "the IPv6 connection"
tn_decisions | cut -c1-200 | sed 's/^/# /'

read -r f4 l4 r4 <<<"$(tn_ratio "$T_TMP/v4.json" 2)"
read -r f6 l6 r6 <<<"$(tn_ratio "$T_TMP/v6.json" 2)"
echo "# IPv4 connection: first 2 s $f4 Gbit/s, last 5 s $l4 Gbit/s ($r4%)"
echo "# IPv6 connection: first 2 s $f6 Gbit/s, last 5 s $l6 Gbit/s ($r6%)"
final=$(t_ip_attr "$A" ta gso_max_size)
t_ge "$final" 32768 "gso_max_size raised from 16384"
t_ge "$(tn_decisions | grep -c ' kept gso_max_size ' || true)" 1 "raises kept"
t_ge "$(t_nl_attr "$A" ta gso_ipv4_max_size)" 32768 "gso_ipv4_max_size raised with it"
grep -q 'ta: IPv4 and IPv6 routes invalidated' "$D_LOG" || t_fail "no route invalidation logged"
echo "ok: the daemon invalidated the routes after its changes"
t_ge "$r4" 150 "IPv4 connection: last 5 s vs first 2 s (percent)"
t_ge "$r6" 150 "IPv6 connection: last 5 s vs first 2 s (percent)"
d_stop >/dev/null || t_fail "unclean exit"
tn_done
