#!/bin/bash
# rtltuned under load: 64 veth interfaces with traffic in every histogram, /metrics under
# wrk (latency p50/p99, requests/s), the daemon's RSS, its CPU while idle-sampling at 1 s,
# and the unit's `systemd-analyze security --offline=yes` exposure. Targets (issue 5):
# RSS <= 16 MiB, idle CPU <= 1% of a core, /metrics p99 <= 10 ms. Exit 1 when one is missed.
# wrk asks for gzip as Prometheus does (Accept-Encoding: gzip); the uncompressed figures
# follow for comparison. Knobs: N (interfaces, 64), WRK_SECONDS (10), WRK_CONNECTIONS (4),
# IDLE_SECONDS (30).
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
N=${N:-64}
WRK_SECONDS=${WRK_SECONDS:-10}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-4}
IDLE_SECONDS=${IDLE_SECONDS:-30}
PORT=9775
[ -x "$RTLTUNED" ] || { echo "bench-daemon: build first (make)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench-daemon: wrk not installed (scripts/deps.sh)" >&2; exit 2; }

ns=rtdbench$$
tmp=$(mktemp -d)
pid=
cleanup() {
	bench_stop "$pid"
	bench_netns_del $ns ${ns}p
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add $ns
ip netns add ${ns}p
ip -n $ns link set lo up
for i in $(seq 0 $((N - 1))); do
	echo "link add b$i netns $ns type veth peer name p$i netns ${ns}p"
done | ip -batch -
for i in $(seq 0 $((N - 1))); do
	echo "addr add 10.$((90 + i / 250)).$((i % 250)).1/24 dev b$i"
	echo "link set b$i up"
done | ip -n $ns -batch -
for i in $(seq 0 $((N - 1))); do
	echo "addr add 10.$((90 + i / 250)).$((i % 250)).2/24 dev p$i"
	echo "link set p$i up"
done | ip -n ${ns}p -batch -

# The load generator must not take the CPU of the server it measures: with a 2-thread wrk
# and the daemon sharing 2 cores, three busy threads take turns and the p99 is the
# scheduler's time slice (2.2-2.9 ms here with the daemon's sampling switched off, i.e.
# whatever the daemon does). So the daemon runs on one CPU and one wrk thread on another
# (with sampling off that gives p99 ~300 us: four connections queueing for one thread).
PIN_DAEMON=(env)
PIN_WRK=(env)
WRK_THREADS=2
# Two of the CPUs this script may use (a cpuset may exclude CPU 0).
read -r cpu_a cpu_b < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
if [ -n "${cpu_b:-}" ] && command -v taskset >/dev/null; then
	PIN_DAEMON=(taskset -c "$cpu_a")
	PIN_WRK=(taskset -c "$cpu_b")
	WRK_THREADS=1
fi
export RTLTUNE_STATE_DIR=$tmp/state RTLTUNE_SOCKET=$tmp/control.sock
# A config of the bench's own (not /etc/rtltune's): the quiet run below differs only in it.
printf '[daemon]\nsample_interval = 1s\n' >"$tmp/rtltuned.conf"
# start_daemon LOG: rtltuned on that config, pinned, its pid in $pid; waits (bounded, 5 s)
# until it answers.
start_daemon() {
	ip netns exec $ns "${PIN_DAEMON[@]}" "$RTLTUNED" --foreground --config "$tmp/rtltuned.conf" \
		--socket "$tmp/control.sock" --state-dir "$tmp/state" \
		--metrics "127.0.0.1:$PORT" --interfaces 'b*' >"$1" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do "$RTLTUNE" status >/dev/null 2>&1 && break; sleep 0.05; done
	"$RTLTUNE" status >/dev/null || { cat "$1"; exit 1; }
}
start_daemon "$tmp/rtltuned.log"
source=$("$RTLTUNE" --json status | jq -r .daemon.source)

# Traffic of every size from 1 byte to a full frame, both ways, on every interface, so
# that each histogram has many non-empty buckets (UDP to a discard port: drops, too).
traffic() {
	ip netns exec $ns python3 - "$N" <<'EOF'
import socket, sys
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    dst = ("10.%d.%d.2" % (90 + i // 250, i % 250), 9)
    for size in (1, 2, 5, 10, 30, 60, 100, 200, 400, 700, 1000, 1400, 1472):
        for _ in range(3):
            s.sendto(b"x" * size, dst)
EOF
	sleep 2.2 # two samples at 1 s pick the traffic up
}
traffic

fetch() { # PATH [gzip]: the body as sent (gzip'ed when asked for), on stdout
	ip netns exec $ns python3 -c '
import sys, urllib.request
headers = {"Accept-Encoding": "gzip"} if len(sys.argv) > 3 else {}
url = "http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2])
sys.stdout.buffer.write(urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10).read())
' "$PORT" "$@"
}
fetch /metrics >"$tmp/metrics.txt"
series=$(grep -vc '^#' "$tmp/metrics.txt")
bytes=$(wc -c <"$tmp/metrics.txt")
nonempty=$(grep -c '_bucket{.*} [1-9]' "$tmp/metrics.txt" || true)

gz_bytes=$(fetch /metrics gzip | wc -c)
# load NAME [WRK-OPTION...]: wrk against /metrics, its report in $tmp/wrk-NAME.txt;
# prints "requests/s p50 p99" as wrk writes them.
load() {
	local out=$tmp/wrk-$1.txt
	shift
	ip netns exec $ns "${PIN_WRK[@]}" wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" \
		--latency "$@" "http://127.0.0.1:$PORT/metrics" >"$out"
	awk '/^Requests\/sec/ { r = $2 } $1 == "50%" { a = $2 } $1 == "99%" { b = $2 }
	     END { print r, a, b }' "$out"
}
out=$(load gzip -H 'Accept-Encoding: gzip')
read -r rps p50 p99 <<<"$out"
out=$(load plain)
read -r plain_rps plain_p50 plain_p99 <<<"$out"
to_ms() { # wrk prints 812.00us, 1.20ms, 2.01s
	case $1 in
	*us) echo "scale=3; ${1%us} / 1000" | bc ;;
	*ms) echo "${1%ms}" ;;
	*s) echo "scale=3; ${1%s} * 1000" | bc ;;
	esac
}
p99_ms=$(to_ms "$p99")
load_rss_kib=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status)

# Idle: nothing but the 1 s sampler (and the link monitor) for IDLE_SECONDS. CPU time from
# /proc/PID/schedstat (nanoseconds on a CPU; the daemon has one thread), as bench-flat
# does: utime + stime come in 10 ms ticks, 9 +- 1 of them in 30 s at this load, so they
# read 0.27-0.33% for the same 0.28%.
t0=$(cut -d' ' -f1 /proc/$pid/schedstat)
s0=$(date +%s%N)
sleep "$IDLE_SECONDS"
t1=$(cut -d' ' -f1 /proc/$pid/schedstat)
s1=$(date +%s%N)
idle_pct=$(echo "scale=3; ($t1 - $t0) * 100 / ($s1 - $s0)" | bc)
# Steady state: after the load and the idle period (what the daemon holds for good).
rss_kib=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status)
hwm_kib=$(awk '/^VmHWM:/ { print $2 }' /proc/$pid/status)
anon_kib=$(awk '/^RssAnon:/ { print $2 }' /proc/$pid/status)
file_kib=$(awk '/^RssFile:/ { print $2 }' /proc/$pid/status)
samples=$("$RTLTUNE" --json status | jq .daemon.samples)
cost_ms=$("$RTLTUNE" --json status | jq '.daemon.sample_cost_seconds * 1000 | . * 1000 | round / 1000')

# The floor of the p99: the same serving with the sampler quiet, so /metrics is all the
# daemon does. A fresh daemon (fresh maps) takes the same traffic at 1 s samples, then is
# reloaded with sample_interval = 1h (SIGHUP restarts the sampler): it serves the same
# text, which no sample changes again. What this machine gives the p99 under the same wrk
# with none of the daemon's other work (issue 14's keep target came from a quieter day).
bench_stop "$pid"
start_daemon "$tmp/rtltuned-quiet.log"
traffic
printf '[daemon]\nsample_interval = 1h\n' >"$tmp/rtltuned.conf"
kill -HUP "$pid"
for ((i = 0; i < 100; i++)); do
	[ "$("$RTLTUNE" --json status | jq .daemon.sample_interval_seconds)" = 3600 ] && break
	sleep 0.05
done
[ "$("$RTLTUNE" --json status | jq .daemon.sample_interval_seconds)" = 3600 ] ||
	{ echo "bench-daemon: the reload to sample_interval = 1h did not take (waited 5 s)" >&2; exit 1; }
quiet_gz_bytes=$(fetch /metrics gzip | wc -c)
out=$(load quiet -H 'Accept-Encoding: gzip')
read -r quiet_rps quiet_p50 quiet_p99 <<<"$out"
quiet_p99_us=$(echo "$(to_ms "$quiet_p99") * 1000 / 1" | bc)

exposure=n/a
if command -v systemd-analyze >/dev/null; then
	sed -e "s#/usr/sbin/rtltuned#$RTLTUNED#" systemd/rtltuned.service >"$tmp/rtltuned.service"
	exposure=$(cd "$tmp" && systemd-analyze security --offline=yes ./rtltuned.service 2>/dev/null |
		awk '/Overall exposure level/ { print $(NF - 2), $(NF - 1) }')
fi

rc=0
# verdict VALUE TARGET (lower is better; judge: a missing figure is missed): sets v and rc,
# so not in $(...).
verdict() {
	v=$(judge "$1" '<=' "$2")
	if [ "$v" = met ]; then v=ok; else v="$v (target <= $2)"; rc=1; fi
}
verdict "$p99_ms" 10
v_p99=$v
verdict "$rss_kib" 16384
v_rss=$v
verdict "$idle_pct" 1
v_idle=$v
echo "interfaces:          $N (counting with $source)"
echo "/metrics:            $series series, $bytes bytes ($gz_bytes gzip'ed), $nonempty non-empty buckets"
echo "/metrics under wrk:  $rps req/s, p50 $p50, p99 $p99 (gzip, $WRK_CONNECTIONS connections, $WRK_THREADS wrk thread(s), ${WRK_SECONDS} s$([ "${PIN_DAEMON[0]}" = taskset ] && echo ", daemon on CPU $cpu_a, wrk on CPU $cpu_b"))  $v_p99"
echo "  uncompressed:      $plain_rps req/s, p50 $plain_p50, p99 $plain_p99"
echo "  sampler quiet:     $quiet_rps req/s, p50 $quiet_p50, p99 $quiet_p99 (gzip, $quiet_gz_bytes bytes against $gz_bytes; the floor: serving alone)"
echo "machine load:        $(cut -d' ' -f1-3 /proc/loadavg) (load average; $(nproc) CPUs)"
mib() { echo "$(($1 / 1024)).$((($1 % 1024) * 10 / 1024)) MiB"; }
echo "RSS:                 $(mib "$rss_kib") steady ($(mib "$anon_kib") anonymous, $(mib "$file_kib") shared libraries), $(mib "$load_rss_kib") right after wrk, peak $(mib "$hwm_kib")  $v_rss"
echo "idle CPU:            ${idle_pct}% of a core over ${IDLE_SECONDS} s at 1 s sampling ($samples samples, last one ${cost_ms} ms)  $v_idle"
echo "unit exposure:       $exposure (systemd-analyze security --offline=yes)"
# The table of `make bench`: issue 14 keeps these figures for 64 interfaces (this part's exit
# code uses issue 5's looser targets above; scripts/bench.sh fails on a missed row too);
# another N gets no verdict.
p99_us=
is_number "$p99_ms" && p99_us=$(echo "$p99_ms * 1000 / 1" | bc)
# keep VALUE OP TARGET: judge()'s verdict for 64 interfaces, none for another N.
keep() { if [ "$N" -eq 64 ]; then judge "$@"; else echo "information (N is not 64)"; fi; }
summary "rtltuned, $N managed veths: idle CPU" "${idle_pct}%" "<= 0.3% (keep)" \
	"$(keep "$idle_pct" '<=' 0.3)"
summary "  RSS, steady" "$(mib "$rss_kib")" "<= 9.5 MiB (keep)" "$(keep "$rss_kib" '<=' 9728)"
floor_note=
[ "$N" -eq 64 ] && [ "$(judge "$p99_us" '>' 216)" = met ] &&
	[ "$(judge "$quiet_p99_us" '>' 216)" = met ] && floor_note=" (the floor is above it here)"
summary "  /metrics p99 under wrk, gzip" "${p99_us:--} us" "<= 216 us (keep)" \
	"$(keep "$p99_us" '<=' 216)$floor_note"
summary "    the same, sampler quiet (the floor)" "${quiet_p99_us} us" "-" "information"
exit $rc
