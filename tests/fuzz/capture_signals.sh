#!/bin/bash
# Capture the text files the per-CPU signals are parsed from (lib/sampler/softnet.c,
# lib/sampler/cpustat.c) as this kernel prints them, into the unit tests' fixtures
# (tests/unit/fixtures/signals/) and the seeds of fuzz_softnet and fuzz_cpustat:
#   softnet_stat   /proc/net/softnet_stat
#   stat           /proc/stat
#   napi_thread    /proc/PID/stat of a threaded NAPI's kthread (napi/va-N), from a veth
#                  pair with GRO on in a network namespace made and removed here
#   odd_name       /proc/PID/stat of a process named "a) b (c" (parentheses and spaces)
# and the layouts older kernels printed, made from the 6.18 capture by keeping the first
# 13, 11, 10 and 9 columns (net/core/net-procfs.c: 5.10 .. 6.3, 3.11 .. 5.9, 2.6.35 ..
# 3.10, 2.6.23 .. 2.6.34). MANIFEST lists them. Needs root; only reads host files.
set -euo pipefail
cd "$(dirname "$0")/../.."
fix=tests/unit/fixtures/signals
mkdir -p "$fix" tests/fuzz/corpus/softnet tests/fuzz/corpus/cpustat
ns=rtltune-capsig$$
trap 'ip netns del "$ns" 2>/dev/null || true' EXIT

cat /proc/net/softnet_stat >"$fix/softnet_stat"
cat /proc/stat >"$fix/stat"
for n in 13 11 10 9; do
	cut -d' ' -f1-$n "$fix/softnet_stat" >"$fix/softnet_stat.$n"
done

ip netns add "$ns"
ip -n "$ns" link add va type veth peer name vb
ip -n "$ns" link set va up
ip -n "$ns" link set vb up
ip netns exec "$ns" ethtool -K va gro on >/dev/null
ip netns exec "$ns" sh -c 'echo 1 > /sys/class/net/va/threaded'
pid=
for _ in $(seq 100); do
	pid=$(pgrep -x 'napi/va-[0-9]*' | head -n 1) && [ -n "$pid" ] && break
	sleep 0.05
done
[ -n "$pid" ] || { echo "capture_signals: no napi/va-N kthread" >&2; exit 1; }
cat "/proc/$pid/stat" >"$fix/napi_thread"
python3 -c '
import ctypes, sys
ctypes.CDLL(None).prctl(15, b"a) b (c", 0, 0, 0)
sys.stdout.write(open("/proc/self/stat").read())
' >"$fix/odd_name"

cp "$fix"/softnet_stat* tests/fuzz/corpus/softnet/
cp "$fix/stat" "$fix/napi_thread" "$fix/odd_name" tests/fuzz/corpus/cpustat/
{
	echo "Captured by tests/fuzz/capture_signals.sh on Linux $(uname -r), $(nproc) CPUs"
	echo "softnet_stat: /proc/net/softnet_stat ($(head -n1 "$fix/softnet_stat" | wc -w) columns)"
	for n in 13 11 10 9; do
		echo "softnet_stat.$n: its first $n columns (the layout of older kernels)"
	done
	echo "stat: /proc/stat"
	echo "napi_thread: /proc/$pid/stat of $(cat /proc/$pid/comm) (threaded NAPI of a veth)"
	echo "odd_name: /proc/PID/stat of a process named 'a) b (c'"
} >"$fix/MANIFEST"
cat "$fix/MANIFEST"
