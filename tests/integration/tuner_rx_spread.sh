#!/bin/bash
# The tuner's rx-spread rule on real traffic (issue 27): receive work that holds one CPU in
# softirq while the other idles is moved by RPS, and the trial is judged by rx throughput
# per busy CPU second (the CPUs' busy time from /proc/stat's idle clock), not by
# throughput alone. The traffic is iperf3 (4 TCP streams) from CPU 0 through a veth
# without NAPI (GRO off on vb): every frame goes through CPU 0's backlog, so CPU 0 does
# the receive work (scripts/bench-napi.sh's setup). rtltuned in B manages vb with GRO pinned (the gro-off rule would
# give vb a NAPI). The test waits for the trial's verdict, whichever it is: on this
# 2-core VM moving the work costs about as much CPU as it adds throughput
# (scripts/bench-napi.sh), so either may be right; what must hold is that the verdict is
# the per-CPU one, the kernel has what the verdict says, and restore puts 0 back.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (the traffic's CPU and one to spread to)"
t_quiet_pair 10.97
# The sender segments in software (TSO and GSO off on va): vb receives MTU-sized frames
# one by one, receive work per frame, done on CPU 0 where the sender runs (a veth delivers
# in the sender's context) with the server pinned there too.
t_in "$A" ethtool -K va tso off gso off >/dev/null
t_in "$B" ethtool -K vb gro off >/dev/null
T_IPERF3_CPU=0 t_iperf3_servers "$B" 10.97.0.2 5201
# With RPS the frames queue to CPU 1's backlog, which at the default netdev_max_backlog of
# 1000 overflows now and then (CPU_BACKLOG drops: the trial's penalty guard rolls it back
# before its objective is judged, as it should). A deep backlog for this test (the host's
# value put back at exit) lets the objective decide.
BL=$(cat /proc/sys/net/core/netdev_max_backlog)
t_defer "echo $BL >/proc/sys/net/core/netdev_max_backlog"
echo 16384 >/proc/sys/net/core/netdev_max_backlog
rps() { t_in "$B" cat /sys/class/net/vb/queues/rx-0/rps_cpus | tr -d ',\n'; }
t_eq "$((16#$(rps)))" 0 "rps_cpus before"

(t_in "$A" taskset -c 0 iperf3 -c 10.97.0.2 -p 5201 -P 4 -t 600 >/dev/null 2>&1) &
LOAD=$!
t_defer "t_stop_loops $A iperf3 $LOAD"
# The sender's and the server's own copying on CPU 0 is system time: the receive softirq
# holds less of CPU 0 than the default 50% (spread_busy_share).
printf '[daemon]\nsample_interval = 500ms\npin = gro\n[tuner]\nspread_busy_share = 0.2\n' \
	>"$T_TMP/rtltuned.conf"
d_start "$B" --config "$T_TMP/rtltuned.conf" --interfaces vb
decisions() {
	d_rtl --json log --lines 512 | jq -r '.entries[] | select(.iface == "vb") |
		select(.message | test("^tuner (trial|step|kept|rolled_back|abandoned|failed) ")) |
		.message | sub("^tuner "; "")'
}
for ((i = 0; i < 360; i++)); do
	decisions | grep -Eq '^(kept|rolled_back|abandoned|failed) rps_cpus ' && break
	sleep 0.5
done
decisions | sed 's/^/# /'
if [ "$i" -eq 360 ]; then
	d_rtl --json recommend vb | jq -c '.' | sed 's/^/# /'
	t_fail "no verdict on an rps_cpus trial within 3 minutes"
fi
trial=$(decisions | grep '^trial ' | head -n 1)
case $trial in
"trial rps_cpus "*"rx-spread: receive work at "*"holds CPU 0 "*"try RPS to the other CPUs"*) ;;
*) t_fail "the first trial is not rx-spread's RPS from CPU 0: $trial" ;;
esac
verdict=$(decisions | grep -E '^(kept|rolled_back|abandoned|failed) rps_cpus ' | head -n 1)
case $verdict in
kept*"rx throughput per busy CPU +"*) want=nonzero ;;
rolled_back*" rose: "*) t_fail "rolled back by a guard, the objective not judged: $verdict" ;;
rolled_back*"rx throughput per busy CPU"*) want=0 ;;
*) t_fail "the verdict is not judged per busy CPU: $verdict" ;;
esac
t_log "verdict: $verdict"
# The verdict is logged as the kernel has it (a keep after the switch back to the trial's
# value, a rollback after the change back).
have=$((16#$(rps)))
if [ $want = 0 ]; then
	t_eq "$have" 0 "rps_cpus after the rollback"
else
	[ "$have" -ne 0 ] && [ $((have & 1)) -eq 0 ] ||
		t_fail "rps_cpus after the keep: $(rps), not the CPUs but CPU 0"
fi

t_stop_loops "$A" iperf3 "$LOAD"
t_in "$B" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" restore vb >/dev/null
t_eq "$((16#$(rps)))" 0 "rps_cpus after rtltune restore"
d_stop
