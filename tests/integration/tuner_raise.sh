#!/bin/bash
# Acceptance (issue 6): start at gso_max_size 16384 under bulk TCP; the tuner raises it,
# keeps it, and the throughput measured by iperf3 (median of 3 runs of 2 s, before the
# daemon starts and after the tuner settled) is at least 1.5x the starting one. Three: the
# ratio measured 1.8-4.0x, and one run of three a load spike slows moves no median.
#
# The effect is real on a plain veth pair (GRO off, the veth default; TSO on): the sender's
# stack builds skbs of gso_max_size and veth hands them to the peer whole, so the per-skb
# cost is paid 4x less often at 64K than at 16K. Measured on the 2-core development VM
# under other load: 16384 -> 65536 is 4.2-5.3 -> 9.7-16.4 Gbit/s (2-3x). Larger sizes gain
# little more there (the tuner's trials of them are judged like any).
#
# Timing: 500 ms samples with the default window sizes (8 baseline, 2 settle, 8 observed:
# 5 s per step once the first baseline is full). The backoff after a rejected trial is 30 s
# instead of 5 min, so that a real gain the criterion missed in the noise of a loaded
# machine is tried again within the test (the criterion itself is unchanged). About 70 s,
# up to 2 minutes with such a retry.
# Throughput on a shared 2-CPU VM swings by tens of percent between minutes (the seed's
# iperf runs disagreed wildly too): one fresh second attempt, from new namespaces and a new
# daemon, before calling the 1.5x figure missed. Both attempts must fail to fail the test.
. "$(dirname "$0")/../attempts.sh"
t_two_attempts TUNER_RAISE_ATTEMPT
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"

START=16384
tn_setup
ip -n "$TN_A" link set ta gso_max_size $START
tn_conf "$T_TMP/rtltuned.conf" "backoff_initial = 30s"

before=$(tn_mbps_median 3 2)
t_log "before: median $before Mbit/s at gso_max_size $START"

d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail
tn_loop_start
started=$SECONDS

trial=$(tn_wait_decision " trial gso_max_size $START -> " 30) || t_fail "no trial raising gso_max_size within 30 s"
echo "ok: trial within $((SECONDS - started)) s: $(echo "$trial" | cut -c1-150)"
echo "$trial" | grep -q 'gso-at-cap' || t_fail "the trial is not the gso-at-cap rule's"

# Settled: gso_max_size raised and kept (32K already doubles throughput here; whether the
# next step to 64K is kept depends on how noisy the shared machine is), no trial in
# progress, and the next raise at the chip's limit or backing off after a rejected trial.
# The acceptance figure is the throughput ratio measured below.
for ((i = 0; i < 240; i++)); do
	if [ "$(t_ip_attr "$TN_A" ta gso_max_size)" -gt "$START" ] && [ "$(tn_tuner trial)" = null ]; then
		case $(tn_candidate gso-at-cap) in backoff | at_limit) break ;; esac
	fi
	sleep 0.5
done
[ "$i" -lt 240 ] || t_fail "the tuner did not settle above $START within 2 minutes"
settled=$((SECONDS - started))
tn_loop_stop
value=$(t_ip_attr "$TN_A" ta gso_max_size)
last_kept=$(tn_decisions | grep ' kept gso_max_size ' | tail -n 1 | awk '{ print $6 }' | tr -d :)
t_eq "$value" "$last_kept" "gso_max_size is the last kept value"
t_ge "$value" $((2 * START)) "gso_max_size raised"
echo "# settled after $settled s at gso_max_size $value:"
tn_decisions | cut -c1-160 | sed 's/^/#   /'

n=$(tn_decisions | grep -c ' gso_max_size ')
after=$(tn_mbps_median 3 2)
t_log "after: median $after Mbit/s at gso_max_size $value"
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" "$value" "gso_max_size kept through the measurement"
t_eq "$(($(tn_decisions | grep -c ' gso_max_size ') - n))" 0 "gso_max_size decisions during the measurement"
t_ge $((10 * after)) $((15 * before)) "10 x after ($after Mbit/s) vs 15 x before ($before Mbit/s)"
echo "# throughput ratio after/before: $(echo "scale=2; $after / $before" | bc)"

m=$(d_http /metrics)
t_ge "$(echo "$m" | awk '/^rtltune_tuning_decisions_total\{device="ta",knob="gso_max_size",outcome="kept"\}/ { print $2 }')" \
	1 "kept decisions in /metrics"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" "$value" "kept value stays after the daemon stops"
tn_done
