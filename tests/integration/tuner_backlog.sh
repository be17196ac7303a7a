#!/bin/bash
# Acceptance (issue 27): the tuner's backlog-drops rule on real traffic (tests/host-lib.sh:
# a UDP flood through a veth pair without NAPI, 47 frames per send into the receiving
# CPU's backlog). From a host netdev_max_backlog of 32 a third of the frames are dropped
# (CPU_BACKLOG; softnet_stat's dropped column), at 64 none (measured here, 2026-12-07).
# rtltuned runs in the receiver's namespace, managing vb, with the host's knobs handed to
# it (host-lib.sh).
#
# Checks: the drop share is at least 1% before; the tuner raises netdev_max_backlog in at
# most three trials, one knob per trial, and keeps it; the drop share afterwards is at most
# 0.01% (softnet_stat over 3 s of flood); the decision log names the rule, the drops and
# the values; status and /metrics show the host's value and decision (promtool check
# metrics clean); `rtltune restore` puts 32 back (the host's journaled original). Before
# that, a daemon with autotune off: `recommend` advises the same raise, changing nothing.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/host-lib.sh"
command -v promtool >/dev/null || t_fail "promtool missing (scripts/deps.sh installs prometheus)"

hl_setup 10.97
START=32
echo $START >"$HL_D/netdev_max_backlog"
hl_flood_start
hl_measure 2
t_log "before: $HL_DROPPED of $HL_FRAMES frames dropped at the backlog ($HL_DROP_PPM per million) at netdev_max_backlog $START"
t_ge "$HL_FRAMES" 100000 "frames through the backlog in 2 s"
t_ge "$HL_DROP_PPM" 10000 "drop share before (per million, >= 1%)"

# Advice first, from a daemon that does not tune: recommend says what the rule would try.
D_ENV=(RTLTUNE_PROC_SYS="$HL_PS")
d_start "$B" --interfaces vb --no-autotune
d_wait_samples 2
advice=$(d_rtl recommend)
echo "$advice"
echo "$advice" | grep -Eq "^host net\.core\.netdev_max_backlog $START -> $((2 * START)): [0-9]+ packets/s dropped because a CPU's backlog was full" ||
	t_fail "recommend does not advise a deeper backlog"
t_eq "$(cat "$HL_D/netdev_max_backlog")" $START "netdev_max_backlog after recommend (advice only)"
d_stop

hl_daemon
hl_settle net.core.netdev_max_backlog HL_DROP_PPM 100
value=$(cat "$HL_D/netdev_max_backlog")
t_log "after $((SECONDS - HL_STARTED)) s: netdev_max_backlog $value; $HL_DROPPED of $HL_FRAMES frames dropped ($HL_DROP_PPM per million)"
t_le "$HL_DROP_PPM" 100 "drop share after (per million, <= 0.01%)"
t_ge "$value" $((2 * START)) "netdev_max_backlog raised"
t_le "$(hl_decisions | grep -c '^trial ' || true)" 3 "trials"
t_eq "$(hl_decisions | grep '^trial ' | grep -vc '^trial net.core.netdev_max_backlog ' || true)" 0 \
	"trials of another knob"
hl_decisions | grep '^trial ' | head -n 1 | grep -q 'backlog-drops: backlog drops' ||
	t_fail "the trial does not name its rule and the drops: $(hl_decisions | grep '^trial ' | head -n 1)"
t_eq "$(hl_decisions | grep '^kept ' | tail -n 1 | awk '{ print $5 }' | tr -d :)" "$value" \
	"the last kept value is the host's"
t_eq "$(d_rtl --json status | jq -r '.host.knobs["net.core.netdev_max_backlog"]')" "$value" \
	"status --json host knobs"
d_rtl status | grep -E "^  host: +net\.core\.netdev_max_backlog $value, " ||
	t_fail "status shows no host line with the backlog: $(d_rtl status)"
d_http /metrics >"$T_TMP/metrics"
grep -qx "rtltune_tuning_decisions_total{knob=\"net.core.netdev_max_backlog\",outcome=\"kept\"} 1" \
	"$T_TMP/metrics" || t_fail "no host decision in /metrics: $(grep decisions "$T_TMP/metrics")"
grep -qx "rtltune_knob_value{knob=\"net.core.netdev_max_backlog\"} $value" "$T_TMP/metrics" ||
	t_fail "no host backlog value in /metrics"
promtool check metrics <"$T_TMP/metrics" || t_fail "promtool check metrics complained"
echo "ok: status, /metrics (promtool clean)"

hl_flood_stop
out=$(hl_restore)
echo "$out"
echo "$out" | grep -qx "host net.core.netdev_max_backlog $value -> $START" ||
	t_fail "restore's output does not name the host's backlog: $out"
t_eq "$(cat "$HL_D/netdev_max_backlog")" $START "netdev_max_backlog after rtltune restore"
d_stop
t_eq "$(cat "$HL_D/netdev_max_backlog")" $START "netdev_max_backlog after the daemon stopped"
