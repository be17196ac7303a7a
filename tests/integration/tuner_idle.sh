#!/bin/bash
# Acceptance (issue 6): no traffic for 2 minutes, no change. The tuner's idle logic counts
# samples, not seconds (a sample below 125 kB/s or 100 packets/s empties the window; nothing
# else runs on a clock until a trial was rejected), so the test scales time, not samples:
# 160 samples at 100 ms in 16 s, where 2 minutes at the default 1 s interval are 120, and
# it fails with fewer than 120 (a loaded machine skips a tick now and then). A literal
# 120 s would add 100 s to `make check`; TUNER_IDLE_SECONDS=120 runs it (1200 samples).
#
# On an interface with something to gain (gso_max_size 16384, GRO off): no trial, no
# decision in `rtltune log` nor in the journal's log, none counted in /metrics, every knob
# as before, the tuner idle at every look. A ping twice a second keeps the interface alive
# and proves the daemon watched it (its packets are counted; they stay far below the idle
# thresholds). At the end, bulk traffic must draw a trial within 20 s: the tuner was live,
# and the quiet was its decision.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"

QUIET=${TUNER_IDLE_SECONDS:-16}
tn_setup
ip -n "$TN_A" link set ta gso_max_size 16384
tn_conf "$T_TMP/rtltuned.conf"
sed -i "s/^sample_interval = .*/sample_interval = 100ms/" "$T_TMP/rtltuned.conf"
knobs=$(t_link_state "$TN_A" ta)

d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail
t_in "$TN_A" ping -q -i 0.5 $TN_DST >/dev/null 2>&1 &
PING=$!
t_defer "kill $PING 2>/dev/null || true"
samples0=$(d_rtl --json status | jq .daemon.samples)
tx0=$(d_rtl --json stats ta | jq '.interfaces[0].tx_packets')
deadline=$((SECONDS + QUIET))
states=()
while [ $SECONDS -lt $deadline ]; do
	states+=("$(tn_tuner state | tr -d '"')")
	[ "$(tn_tuner trial)" = null ] || t_fail "a trial while idle: $(tn_tuner trial)"
	sleep 2
done
kill $PING
samples=$(($(d_rtl --json status | jq .daemon.samples) - samples0))
tx=$(($(d_rtl --json stats ta | jq '.interfaces[0].tx_packets') - tx0))
# A tick that finds the previous sample still running is skipped (daemon/sampler.c), so a
# loaded machine takes fewer than 10 a second: three quarters shows the sampler stayed live,
# and 16 s of them are the 120 samples of 2 minutes at the default interval.
t_ge "$samples" $((QUIET * 10 * 3 / 4)) "samples taken in $QUIET s at 100 ms"
t_ge "$tx" $((QUIET * 2 * 9 / 10)) "ping packets the daemon counted on ta"
t_eq "$(printf '%s\n' "${states[@]}" | sort -u | tr '\n' ' ')" "idle " "tuner states seen (${#states[@]} polls)"
t_eq "$(tn_decisions | wc -l)" 0 "tuner decisions in rtltune log"
t_eq "$(tail -n +2 "$D_STATE/log" 2>/dev/null | jq -r 'select(.actor == "daemon") | .outcome' | grep -cvE '^(applied|not_applied)$' || true)" \
	0 "tuner decisions in the journal's log"
t_eq "$(d_http /metrics | grep -E '^rtltune_tuning_decisions_total\{device="ta"' | awk '{ s += $2 } END { print s + 0 }')" \
	0 "decisions counted in /metrics"
t_eq "$(t_link_state "$TN_A" ta)" "$knobs" "every knob as before"
t_eq "$(d_rtl --json recommend ta | jq -r .interfaces[0].tuner.summary)" "nothing to try: no traffic" "recommend"

# The control: with traffic the same tuner starts a trial.
tn_loop_start
trial=$(tn_wait_decision ' trial ' 20) || t_fail "no trial within 20 s of traffic: the tuner was not live"
echo "ok: with traffic a trial follows: $(echo "$trial" | cut -c1-120)"
tn_loop_stop
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
tn_done
