#!/bin/bash
# The tuner's time-squeeze rule on real traffic (issue 27; tests/host-lib.sh: a UDP flood
# through a veth pair without NAPI, 47 frames per send into the receiving CPU's backlog).
# A NET_RX run polls at most netdev_budget packets: below 47 every burst leaves work when
# the budget runs out, one time_squeeze per send (21000 per million frames at 2..32), and
# from 64 none (measured here, 2026-12-07). From a host netdev_budget of 8 the tuner
# raises netdev_budget and netdev_budget_usecs together (doubling, from at least 64; more
# steps within the one trial while the squeezes do not fall) and keeps them when the
# squeezes fall; restore puts both back.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/host-lib.sh"

hl_setup 10.98
START=8
echo $START >"$HL_D/netdev_budget"
usecs=$(cat "$HL_D/netdev_budget_usecs")
hl_flood_start
hl_measure 2
t_log "before: $HL_SQUEEZES time squeezes in $HL_FRAMES frames ($HL_SQUEEZE_PPM per million) at netdev_budget $START"
t_ge "$HL_SQUEEZE_PPM" 1000 "squeezes before (per million frames)"
t_eq "$HL_DROPPED" 0 "backlog drops before (the host's backlog holds a burst)"

hl_daemon
hl_settle net.core.netdev_budget HL_SQUEEZE_PPM 100
value=$(cat "$HL_D/netdev_budget")
t_log "after $((SECONDS - HL_STARTED)) s: netdev_budget $value, netdev_budget_usecs $(cat "$HL_D/netdev_budget_usecs"); $HL_SQUEEZES squeezes in $HL_FRAMES frames"
t_ge "$value" 64 "netdev_budget raised past a burst"
t_eq "$(hl_decisions | grep -c '^trial ' || true)" 1 "trials"
hl_decisions | grep '^trial ' | grep -q "time-squeeze: time squeezes .*netdev_budget_usecs $((2 * usecs))" ||
	t_fail "the trial does not name its rule, the squeezes and both values"
t_ge "$(cat "$HL_D/netdev_budget_usecs")" $((2 * usecs)) "netdev_budget_usecs raised with it"

hl_flood_stop
hl_restore
t_eq "$(cat "$HL_D/netdev_budget")" $START "netdev_budget after rtltune restore"
t_eq "$(cat "$HL_D/netdev_budget_usecs")" "$usecs" "netdev_budget_usecs after rtltune restore"
d_stop
