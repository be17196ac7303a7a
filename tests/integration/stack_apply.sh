#!/bin/bash
# `rtltune apply` on a device stack (issue 12, docs/stack.md): v0 is a port of br0 (which
# holds the address, at gso_max_size 16384), w0 the lower of the macvlan mw0.
#  - show: uppers, lowers and the effective sizes, from one dump;
#  - apply throughput v0: v0 and br0 raised as one operation, verify exit 0, restore puts
#    both back byte for byte;
#  - a failure injected on the upper (RTLTUNE_TEST_FAULT=apply_upper) leaves both exactly
#    as they were, and says what it undid;
#  - another port of br0 (p0, gso_max_size 32768) that cannot take more stops br0 at 32768,
#    and the note names it;
#  - the macvlan upper: w0 and mw0 raised and restored the same way.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
t_veth_pair "$ns" w0 "$nsb" w1
ip -n "$ns" link add br0 type bridge
ip -n "$ns" link set v0 master br0
ip -n "$ns" link set br0 up
ip -n "$ns" addr add 10.94.0.1/24 dev br0
ip -n "$ns" link set br0 gso_max_size 16384
ip -n "$ns" link add mw0 link w0 type macvlan mode bridge
ip -n "$ns" link set mw0 up
export RTLTUNE_PROFILE_PATH=$TOP/profiles
state() { for d in "$@"; do t_link_state "$ns" "$d"; done; }
before=$(state v0 br0)

t_log "show"
doc=$(t_rtl "$ns" --json show v0)
t_eq "$(echo "$doc" | jq -r '.[0].uppers | join(",")')" br0 "v0's uppers"
t_eq "$(echo "$doc" | jq -r '.[0].effective_gso_max_size')" 16384 "v0's effective gso_max_size (br0's)"
t_eq "$(echo "$doc" | jq -r '.[0].effective_gro_max_size')" 65536 "v0's effective gro_max_size (its own: GRO runs in v0)"
t_eq "$(t_rtl "$ns" --json show br0 | jq -r '.[0].lowers | join(",")')" v0 "br0's lowers"
t_rtl "$ns" show v0 | grep -E '^    upper +br0 \(bridge\): gso_max_size 16384' >/dev/null || t_fail "show text lacks the upper"
echo "ok: show text names the upper"

t_log "a failure on the upper changes nothing"
set +e
out=$(RTLTUNE_TEST_FAULT=apply_upper t_rtl "$ns" apply throughput v0 2>&1)
rc=$?
set -e
echo "$out" | sed 's/^/# /'
t_eq "$rc" 3 "exit status with the upper failing"
echo "$out" | grep -q 'br0: set its sizes (test fault apply_upper).*undone: .*gso_max_size back to 65536' ||
	t_fail "the error does not say what failed and what was undone"
t_eq "$(state v0 br0)" "$before" "v0 and br0 after the failed apply"
t_eq "$(grep -c '^inflight' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "operations left in flight"

t_log "apply, verify, restore"
out=$(t_rtl "$ns" apply throughput v0)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '^br0 gso_max_size 16384 -> 524280 (upper of v0)$' || t_fail "br0 not raised with v0"
t_eq "$(t_ip_attr "$ns" br0 gso_max_size)" 524280 "br0's gso_max_size (ip)"
t_eq "$(t_nl_attr "$ns" br0 gso_ipv4_max_size)" 524280 "br0's gso_ipv4_max_size (rtnetlink)"
t_eq "$(t_ip_attr "$ns" v0 gso_max_size)" 524280 "v0's gso_max_size (ip)"
t_rtl "$ns" verify throughput v0
t_eq "$(t_rtl "$ns" --json show v0 | jq '.[0].effective_gso_max_size')" 524280 "effective gso_max_size after the apply"
t_rtl "$ns" restore v0 | sed 's/^/# /'
t_eq "$(state v0 br0)" "$before" "v0 and br0 after restore"

t_log "another port that cannot take the size stops the bridge there"
ip link add p0 netns "$ns" type veth peer name p1 netns "$nsb"
ip -n "$ns" link set p0 master br0
ip -n "$ns" link set p0 gso_max_size 32768
before2=$(state v0 br0 p0)
out=$(t_rtl "$ns" apply throughput v0)
echo "$out" | sed 's/^/# /'
t_eq "$(t_ip_attr "$ns" br0 gso_max_size)" 32768 "br0 raised only as far as its port p0 takes"
t_eq "$(t_ip_attr "$ns" p0 gso_max_size)" 32768 "p0 left alone"
echo "$out" | grep -q '^br0: note: gso_max_size raised to 32768 only: its port p0 has gso_max_size 32768$' ||
	t_fail "the note does not name the port that limits br0"
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(state v0 br0 p0)" "$before2" "v0, br0 and p0 after restore"

t_log "a macvlan upper"
before3=$(state w0 mw0)
out=$(t_rtl "$ns" apply throughput w0)
echo "$out" | sed 's/^/# /'
t_eq "$(t_ip_attr "$ns" mw0 gso_max_size)" 524280 "mw0 raised with its lower w0"
t_rtl "$ns" verify throughput w0
t_rtl "$ns" restore w0 >/dev/null
t_eq "$(state w0 mw0)" "$before3" "w0 and mw0 after restore"
