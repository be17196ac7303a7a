#!/bin/bash
# Seed scenario: the i.MX6 fec (TCP collapsed under big GSO bursts until TSO went off or
# gso_max_size went to 16384; 10-second runs disagreed with each other). va is taken for that
# fec (tests/chips/fec-imx6.conf: needs-small-gso, judge-slowly); vb's RX ring holds 48
# frames drained at one per 1000 ns and loses the frames of a burst that finds it full
# (chip model 3): 64K and 32K GSO skbs (45 and 23 frames, back to back) collapse TCP (48%
# and 20% retransmits), 16K (12 frames) much less (2%), as on the seed's fec (32K did not
# cure it there either). rtltuned manages va under two staggered loops of 1 s connections and must end at a
# small gso_max_size (<= 16384) or with TSO off, judged over the long windows the quirk asks
# for (3 x 8 samples on each side instead of 8; samples of 250 ms, so that a window is 6 s:
# the collapse moves retransmits by 10x, far beyond a short sample's noise), and new
# connections must move >= 3x what they did before (best of 2 0.5 s connections each;
# here 0.02 -> 5 Gbit/s).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/chipmodel-lib.sh"

TN_IF=va RING=${CM_RING:-48} DRAIN_NS=${CM_DRAIN_NS:-1000}
cm_pair
cm_chip_dir fec-imx6
t_eq "$(t_rtl "$CM_NSA" --json chips va | jq -r .chip.id)" test-fec-imx6 "chip entry of va"
t_eq "$(t_ip_attr "$CM_NSA" va gso_max_size)" 65536 "va's gso_max_size before"
cm_serve --concurrent
cm_burst_loss "$RING" "$DRAIN_NS"
cm_best 0.5 2
before=$CM_GBIT before_ppm=$CM_PPM
t_log "before: $before Gbit/s, $before_ppm retransmits per million segments (gso_max_size 65536, TSO on)"
t_ge "$before_ppm" 10000 "retransmits per million with the ring losing big bursts"

printf '[daemon]\nsample_interval = 250ms\n' >"$T_TMP/rtltuned.conf"
cm_loop_start 1 2
d_start "$CM_NSA" --config "$T_TMP/rtltuned.conf" --interfaces va
t_defer tn_dump_on_fail
started=$SECONDS
trial=$(tn_wait_decision " trial (gso_max_size 65536 -> [0-9]+|tso on -> off)" 60) ||
	t_fail "no trial lowering gso_max_size or turning TSO off within 60 s"
echo "# $trial" | cut -c1-260
echo "$trial" | grep -qE ': (gso|tso)-faults: retransmits' || t_fail "the trial's reason does not name retransmits"
# Settled: a fix kept at a small size or TSO off. A fix that the fault fell from but not
# below the fault threshold is kept, and the next step is a trial of its own (64K -> 32K
# kept, then 32K -> 16K), each judged over the long windows.
deadline=$((SECONDS + 150))
while :; do
	kept=$(tn_decisions | grep -E ' kept (gso_max_size [0-9]+ -> (16384|8192)|tso on -> off)' | head -n 1 || true)
	[ -n "$kept" ] && break
	[ $SECONDS -le $deadline ] || t_fail "no fix to gso_max_size <= 16384 or TSO off kept within 150 s"
	sleep 0.5
done
echo "# $kept" | cut -c1-360
echo "ok: fix kept $((SECONDS - started)) s after the daemon started"
n=$(tn_decisions | grep -c ' kept ')
t_eq "$(tn_decisions | grep ' kept ' | grep -c 'over 24+24 samples')" "$n" "verdicts judged over 24+24 samples (judge-slowly)"
tn_decisions | cut -c1-200 | sed 's/^/#   /'
cm_loop_stop
# Measured without the daemon: a further trial (TSO off at 16K, say) ends with it, rolled
# back; what the tuner kept stays.
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"

gso=$(t_ip_attr "$CM_NSA" va gso_max_size) tso=$(t_feature "$CM_NSA" va tcp-segmentation-offload)
t_log "after: gso_max_size $gso, TSO $tso"
[ "$gso" -le 16384 ] || [ "$tso" = off ] || t_fail "neither a small gso_max_size ($gso) nor TSO off"
cm_best 0.5 2
after=$CM_GBIT
t_log "after: $after Gbit/s, $CM_PPM retransmits per million segments"
cm_ge_ratio "$after" "$before" 3 "new connections after vs before the tuner"
# A fifth: at 16K the ring still loses a burst now and then, 0.9-4.3% of the segments of two
# 0.5 s connections over the runs here (a tenth of before's, 2.9%, failed one CI run in ten);
# 32K keeps 20% and no fix 29%, so a fifth still fails on both.
t_le "$CM_PPM" $((before_ppm / 5)) "retransmits per million after vs a fifth of before's"
tn_done
