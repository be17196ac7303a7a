#!/bin/bash
# Signals around the NIC (docs/signals.md, issue 27) on real traffic. A veth pair without
# NAPI (GRO off: vb receives through the per-CPU backlog) and rtltuned in the receiver's
# namespace managing vb. UDP floods from a sender pinned to CPU 0 to an address whose
# frames carry another host's MAC: vb drops every one in ip_rcv (OTHERHOST), exactly, and
# answers none (no ICMP coming back through the backlogs):
#  - softnet_stat: CPU 0's processed rises by at least the datagrams sent, in stats and
#    /metrics, and every CPU's counter lies between the kernel's own before and after it
#    (the file read here apart from lib/sampler/softnet.c);
#  - drops per CPU: every datagram is an OTHERHOST drop on CPU 0, per CPU and per device
#    alike; with RPS to CPU 1 (vb's rps_cpus, a knob of the test's device) the work, the
#    drops and received_rps move to CPU 1 (where the probes miss a few: at least 80%);
#  - the backlog: with RPS, bursts of 64 segments (GSO in software on the sender, whose
#    send buffer lets thousands wait: udp_flood -b) into a CPU 1 made slow per frame
#    (tests/tools/chipmodel --frame-ns on vb's tc ingress) overflow CPU 1's backlog at
#    the host's netdev_max_backlog, left as it is: the kernel counts each overflow on
#    CPU 1 (softnet dropped), the probes on CPU 0 (CPU_BACKLOG, where the skb was
#    freed), the same number;
#  - threaded NAPI: with GRO and threaded NAPI on vb, its kthread (napi-get's pid, by
#    tests/tools/napi_get.py) shows with its CPU time;
#  - qstats: veth has none, shown as absent (null, no line, no series), not zeros; the
#    host's eth0 has them, read only through tests/tools/qstats_get (lib/netdev/qstats.c)
#    and checked against an independent reader.
# promtool check metrics has no complaint.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v promtool >/dev/null || t_fail "promtool missing (scripts/deps.sh installs prometheus)"
[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (RPS from CPU 0 to CPU 1)"
FLOOD=$TOP/build/tests/tools/udp_flood
QSTATS=$TOP/build/tests/tools/qstats_get
CHIPMODEL=$TOP/build/tests/tools/chipmodel
for t in "$FLOOD" "$QSTATS" "$CHIPMODEL"; do [ -x "$t" ] || t_fail "$t not built (make the test tools)"; done

t_quiet_pair 10.93
d_start "$B" --interfaces vb
bpf=$(d_rtl --json status | jq -r .daemon.source)
[ "$bpf" = bpf ] || t_fail "the per-CPU drops need the probes: $(d_rtl --json status | jq -r .daemon.bpf_error)"
d_wait_samples 1

# The kernel's per-CPU counters, read here: "cpu processed dropped received_rps" lines.
kernel_softnet() {
	python3 -c '
for line in open("/proc/net/softnet_stat"):
    c = line.split()
    print(int(c[12], 16), int(c[0], 16), int(c[1], 16), int(c[9], 16))'
}
# col CPU N: column N of CPU's line of kernel_softnet output on stdin.
col() { awk -v c="$1" -v n="$2" '$1 == c { print $n }'; }
stats() { d_rtl --json stats vb; }
cpu_field() { # JSON CPU FIELD (jq path under the CPU's object)
	echo "$1" | jq -r --argjson c "$2" ".cpus[] | select(.cpu == \$c) | $3"
}
# 10.93.0.3 is on vb's link with a MAC that is not vb's: vb sees PACKET_OTHERHOST frames.
ip -n "$A" neigh add 10.93.0.3 lladdr 02:00:00:00:00:93 dev va nud permanent
flood() { # CPU COUNT [PAYLOAD [udp_flood option...]]: COUNT sends (of 100 bytes) to
	# 10.93.0.3, from CPU
	local cpu=$1 n=$2 size=${3:-100}
	shift $(($# < 3 ? $# : 3))
	t_in "$A" taskset -c "$cpu" "$FLOOD" "$@" 10.93.0.3 9 "$n" "$size" >/dev/null
}

t_log "softnet_stat and per-CPU drops: $((N = 20000)) datagrams from CPU 0"
s0=$(stats)
p0=$(cpu_field "$s0" 0 .softnet_processed)
drops0=$(cpu_field "$s0" 0 '.drops.OTHERHOST // 0')
flood 0 $N
d_wait_samples 2
s1=$(stats)
t_eq "$(echo "$s1" | jq '.cpus | length')" "$(nproc)" "a CPU entry per online CPU"
t_eq "$(echo "$s1" | jq .cpu_named)" true "6.18's softnet_stat names its CPUs"
t_ge $(($(cpu_field "$s1" 0 .softnet_processed) - p0)) $N "CPU 0 processed (stats)"
t_eq $(($(cpu_field "$s1" 0 '.drops.OTHERHOST') - drops0)) $N "CPU 0 OTHERHOST drops (stats)"
t_eq "$(echo "$s1" | jq '[.cpus[].drops.OTHERHOST // 0] | add')" \
	"$(echo "$s1" | jq '.interfaces[0].drops.OTHERHOST')" "per-CPU drops add up to the device's"
echo "$s1" | jq -e '.cpus[0] | (.softirq_seconds > 0) and (.rates.softirq_seconds >= 0) and
	(.rates.softnet_processed >= 0) and (.softnet_flow_limit >= 0)' >/dev/null ||
	t_fail "CPU 0 lacks its softirq time or rates: $(echo "$s1" | jq -c '.cpus[0]')"

t_log "RPS to CPU 1: the work, the drops and the wake-ups move there"
t_in "$B" sh -c 'echo 2 > /sys/class/net/vb/queues/rx-0/rps_cpus'
# count JSON: OTHERHOST drops on CPU 1, CPU_BACKLOG drops on CPU 0 (the enqueuer's).
drop_sum() {
	echo $(($(cpu_field "$1" 1 '.drops.OTHERHOST // 0') + $(cpu_field "$1" 0 '.drops.CPU_BACKLOG // 0')))
}
backlog_drops() { cpu_field "$1" 0 '.drops.CPU_BACKLOG // 0'; }
p1=$(cpu_field "$s1" 1 .softnet_processed)
r1=$(cpu_field "$s1" 1 .softnet_received_rps)
k1=$(kernel_softnet)
flood 0 $N
d_wait_samples 2
s2=$(stats)
k2=$(kernel_softnet)
t_ge $(($(cpu_field "$s2" 1 .softnet_processed) - p1)) $((N - ($(backlog_drops "$s2") - $(backlog_drops "$s1")))) \
	"CPU 1 processed with RPS (every datagram not dropped at its backlog)"
t_ge $(($(cpu_field "$s2" 1 .softnet_received_rps) - r1)) 1 "CPU 1 received_rps"
# The probes miss some of the drops on an RPS target CPU (up to 6% seen alone, 14% once
# with make check's other lane running; no recursion miss recorded: docs/signals.md), so
# the count there is bounded, not exact: none beyond the datagrams sent, at least 80% of
# them, none new on CPU 0 but CPU_BACKLOG.
got=$(($(drop_sum "$s2") - $(drop_sum "$s1")))
t_le "$got" $N "CPU 1 OTHERHOST + CPU 0 CPU_BACKLOG drops with RPS, at most every datagram"
t_ge "$got" $((N * 8 / 10)) "CPU 1 OTHERHOST + CPU 0 CPU_BACKLOG drops with RPS, 80% of them at least"
t_eq "$(cpu_field "$s2" 0 '.drops.OTHERHOST')" "$(cpu_field "$s1" 0 '.drops.OTHERHOST')" "no OTHERHOST drop on CPU 0 with RPS"
t_eq $(($(backlog_drops "$s2") - $(backlog_drops "$s1"))) \
	$(($(echo "$k2" | col 1 3) - $(echo "$k1" | col 1 3))) "CPU_BACKLOG drops (probes, CPU 0) = CPU 1's softnet dropped (kernel)"

t_log "the backlog overflows: bursts of 64 segments from CPU 0 into a slow CPU 1's backlog"
max_backlog=$(cat /proc/sys/net/core/netdev_max_backlog)
# Software segmentation on the sender: each send of 64000 bytes reaches vb as 64 frames;
# CPU 1 spends 5 us on each of them before the stack sees it (at most 200k frames/s). The
# skbs stay charged to the sender's socket until CPU 1 frees them: with the default send
# buffer (net.core.wmem_default) about 100 wait at a time, too few to fill a backlog of
# 1000, hence -b.
t_in "$A" ethtool -K va gso off tx-udp-segmentation off >/dev/null
t_in "$B" "$CHIPMODEL" attach vb --frame-ns 5000 >/dev/null
t_defer "ip netns exec $B $CHIPMODEL detach vb"
SENDS=500
for ((round = 1; round <= 3; round++)); do
	sa=$(stats)
	ka=$(kernel_softnet)
	flood 0 $SENDS 64000 -g 1000 -b 16777216 & f0=$!
	flood 0 $SENDS 64000 -g 1000 -b 16777216 & f1=$!
	wait $f0 $f1
	d_wait_samples 2
	sb=$(stats)
	kb=$(kernel_softnet)
	kdrop=$(($(echo "$kb" | col 1 3) - $(echo "$ka" | col 1 3)))
	[ "$kdrop" -gt 0 ] && break
done
t_log "netdev_max_backlog $max_backlog (the host's, left alone): $kdrop overflows in round $round"
t_ge "$kdrop" 1 "CPU 1's backlog overflowed (kernel softnet dropped)"
t_eq $(($(backlog_drops "$sb") - $(backlog_drops "$sa"))) "$kdrop" "CPU_BACKLOG drops on CPU 0 (probes) = CPU 1's softnet dropped (kernel)"
got=$(($(drop_sum "$sb") - $(drop_sum "$sa")))
t_le "$got" $((2 * SENDS * 64)) "segments dropped at the backlog or as OTHERHOST, at most every one"
t_ge "$got" $((2 * SENDS * 64 * 8 / 10)) "segments dropped at the backlog or as OTHERHOST, 80% at least"
t_eq $(($(cpu_field "$sb" 1 .softnet_dropped) - $(cpu_field "$sa" 1 .softnet_dropped))) "$kdrop" "CPU 1 softnet_dropped (stats)"
t_in "$B" "$CHIPMODEL" detach vb >/dev/null
t_in "$B" sh -c 'echo 0 > /sys/class/net/vb/queues/rx-0/rps_cpus'
t_in "$A" ethtool -K va gso on tx-udp-segmentation on >/dev/null

t_log "the counters against the kernel's, in /metrics"
k1=$(kernel_softnet)
d_wait_samples 1
d_http /metrics >"$T_TMP/metrics.txt"
k2=$(kernel_softnet)
for cpu in $(echo "$k1" | awk '{ print $1 }'); do
	m=$(sed -n "s/^rtltune_softnet_processed_total{cpu=\"$cpu\"} //p" "$T_TMP/metrics.txt")
	[ -n "$m" ] || t_fail "no rtltune_softnet_processed_total for CPU $cpu"
	lo=$(echo "$k1" | col "$cpu" 2) hi=$(echo "$k2" | col "$cpu" 2)
	[ "$m" -ge "$lo" ] && [ "$m" -le "$hi" ] ||
		t_fail "CPU $cpu processed $m not within the kernel's $lo .. $hi"
	grep -q "^rtltune_softirq_seconds_total{cpu=\"$cpu\"} " "$T_TMP/metrics.txt" ||
		t_fail "no softirq time for CPU $cpu"
done
echo "ok: /metrics softnet processed within the kernel's own, per CPU"
for f in softnet_dropped softnet_time_squeeze softnet_received_rps softnet_flow_limit; do
	t_eq "$(grep -c "^rtltune_${f}_total{cpu=" "$T_TMP/metrics.txt")" "$(nproc)" "rtltune_${f}_total series"
done
for series in 'cpu="1",reason="OTHERHOST"' 'cpu="0",reason="CPU_BACKLOG"'; do
	grep -q "^rtltune_cpu_drops_total{$series} " "$T_TMP/metrics.txt" ||
		t_fail "no rtltune_cpu_drops_total{$series}"
done

t_log "qstats: veth has none, shown as absent"
s=$(stats)
t_eq "$(echo "$s" | jq -c '.interfaces[0] | [.qstats, .qstats_queues, .rates.qstats]')" \
	'[null,[],null]' "stats --json vb: qstats absent"
t_eq "$(d_rtl --json status vb | jq -c '.interfaces[0].qstats')" null "status --json vb qstats"
d_rtl stats vb >"$T_TMP/stats.txt"
cat "$T_TMP/stats.txt"
grep -q 'qstats' "$T_TMP/stats.txt" && t_fail "stats text shows qstats for vb"
grep -qE '^rtltune_(qstats|queue)_' "$T_TMP/metrics.txt" && t_fail "/metrics has qstats series for vb"
echo "ok: no qstats line or series for vb"

t_log "qstats of the host's eth0, read only"
if [ ! -e /sys/class/net/eth0 ]; then
	t_unchecked "the host has no eth0"
else
	# The independent reader: the kernel's own answer decoded here (tests/fuzz/capture_qstats.py
	# does the same for the fixtures).
	ref() {
		python3 -c '
import importlib.util, socket, struct, sys
spec = importlib.util.spec_from_file_location("cap", sys.argv[1])
cap = importlib.util.module_from_spec(spec); spec.loader.exec_module(cap)
nl = cap.Genl(); fam = nl.family("netdev"); idx = socket.if_nametoindex("eth0")
for per_queue in (False, True):
    for msg in cap.dump(nl, fam, idx, per_queue):
        a = cap.attrs(msg[20:])
        name = "device" if cap.A_QUEUE_TYPE not in a else "%s-%d" % (
            ("rx", "tx")[struct.unpack("I", a[cap.A_QUEUE_TYPE])[0]],
            struct.unpack("I", a[cap.A_QUEUE_ID])[0])
        vals = ["%s=%d" % (cap.NAMES[t - 8], struct.unpack("I" if len(v) == 4 else "Q", v)[0])
                for t, v in sorted(a.items()) if 8 <= t < 8 + len(cap.NAMES)]
        print(" ".join([name] + vals))
' "$TOP/tests/fuzz/capture_qstats.py"
	}
	r1=$(ref)
	ours=$("$QSTATS" --queues eth0)
	r2=$(ref)
	echo "$ours"
	[ "$ours" != none ] || t_fail "eth0 answered no qstats"
	python3 - "$r1" "$ours" "$r2" <<'EOF' || t_fail "qstats_get disagrees with the kernel's answer"
import sys
def parse(text):
    out = {}
    for line in text.splitlines():
        w = line.split()
        out[w[0]] = {k: int(v) for k, v in (x.split("=") for x in w[1:])}
    return out
before, ours, after = (parse(t) for t in sys.argv[1:4])
assert set(before) == set(ours) == set(after), (sorted(before), sorted(ours))
for scope in ours:
    assert set(ours[scope]) == set(before[scope]), (scope, ours[scope], before[scope])
    for k, v in ours[scope].items():
        assert before[scope][k] <= v <= after[scope][k], (scope, k, before[scope][k], v, after[scope][k])
print("ok: %d replies, %d counters, each between the kernel's before and after" %
      (len(ours), sum(len(v) for v in ours.values())))
EOF
fi

t_log "threaded NAPI on vb: its kthread's CPU time"
# veth hands a peer's UDP to the NAPI only when the receiver forwards UDP GRO (or the
# sender has no TSO): veth_skb_is_eligible_for_gro() in drivers/net/veth.c.
t_in "$B" ethtool -K vb gro on rx-udp-gro-forwarding on >/dev/null
t_in "$B" sh -c 'echo 1 > /sys/class/net/vb/threaded'
napi=$(t_in "$B" python3 "$TOP/tests/tools/napi_get.py" vb)
id=$(echo "$napi" | sed -n 's/^id=\([0-9]*\) .*/\1/p')
pid=$(echo "$napi" | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
[ -n "$id" ] && [ -n "$pid" ] || t_fail "vb has no threaded NAPI: $napi"
for ((i = 0; i < 20; i++)); do
	flood 0 20000
	d_wait_samples 1
	secs=$(stats | jq --argjson id "$id" '.interfaces[0].napi_threads[] | select(.napi == $id) | .cpu_seconds')
	[ -n "$secs" ] && [ "$(echo "$secs > 0" | bc)" = 1 ] && break
done
t_eq "$(stats | jq -c --argjson id "$id" '.interfaces[0].napi_threads | map(select(.napi == $id) | .pid)')" \
	"[$pid]" "stats: the NAPI's thread and its pid (napi-get)"
[ "$(echo "$secs > 0" | bc)" = 1 ] || t_fail "the NAPI thread's CPU time stayed 0 after 20 floods"
kernel=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
t_le "$(echo "$secs * $(getconf CLK_TCK) / 1" | bc)" "$kernel" "thread CPU (ticks) within the kernel's utime + stime"
d_http /metrics >"$T_TMP/metrics2.txt"
grep -q "^rtltune_napi_thread_cpu_seconds_total{device=\"vb\",napi=\"$id\"} " "$T_TMP/metrics2.txt" ||
	t_fail "no rtltune_napi_thread_cpu_seconds_total for vb's NAPI $id"
d_rtl status | tee "$T_TMP/status.txt" | grep -E '^  softnet: +processed [0-9.]+[kMGT]?, dropped [0-9.]+[kMGT]?, time_squeeze [0-9.]+[kMGT]?, received_rps [0-9.]+[kMGT]?(, flow_limit [0-9.]+[kMGT]?)?; softirq max [0-9.]+% \(cpu[0-9]+\)$' >/dev/null ||
	t_fail "status has no softnet line: $(cat "$T_TMP/status.txt")"
grep -qE '^vb: 1 threaded NAPI at [0-9.]+% of a CPU$' "$T_TMP/status.txt" ||
	t_fail "status has no NAPI thread line for vb: $(cat "$T_TMP/status.txt")"
echo "ok: status shows the softnet line and vb's NAPI thread"

rc=0
out=$(promtool check metrics <"$T_TMP/metrics2.txt" 2>&1) || rc=$?
t_eq "$rc" 0 "promtool check metrics exit code"
t_eq "$out" "" "promtool check metrics output"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
