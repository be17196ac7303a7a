#!/bin/bash
# `make demo`: rtltune on a veth testbed in two network namespaces. The sender starts from a
# poor setting (gso_max_size 16384, as on a host once tuned for a slow i.MX6 fec), real
# iperf3 traffic runs in a loop, and rtltuned tunes the link on its own: trials, verdicts
# with the numbers, the skb size histogram and the throughput before and after. Then a fault:
# a TSO engine that mangles bursts above 64K (tests/tools/faultinj), retransmits, and the
# tuner backing gso_max_size off to where they stop. Last, the one-shot side: a profile
# dry run and everything restored from the journal.
# About 1-2 minutes. Everything it creates is removed on exit, also on Ctrl-C or failure.
set -eu
cd "$(dirname "$0")/.."
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
# What the machine must allow, in one line when it does not (scripts/preflight.sh); with
# tests/tools/bpf_try built (make demo builds it), BPF is tried for real.
preflight=(scripts/preflight.sh)
[ -x build/tests/tools/bpf_try ] && preflight+=(--bpf-try build/tests/tools/bpf_try)
if ! refused=$("${preflight[@]}"); then
	case $refused in
	"needs root"*) echo "demo: $refused: run it with sudo, or as root" >&2 ;;
	*) echo "demo: $refused; run it on the host, or in a container started with --privileged" >&2 ;;
	esac
	exit 2
fi
for tool in iperf3 jq python3; do
	command -v $tool >/dev/null || { echo "demo: $tool not installed (scripts/deps.sh demo)" >&2; exit 2; }
done
[ -x "$RTLTUNED" ] && [ -x "$RTLTUNE" ] || { echo "demo: build first (make)" >&2; exit 2; }
A=rtldemo-tx B=rtldemo-rx
DST=10.77.0.2
state=$(mktemp -d /tmp/rtltune-demo.XXXXXX)
export RTLTUNE_STATE_DIR=$state/state RTLTUNE_SOCKET=$state/control.sock
loops=() follower=
cleanup() {
	set +e
	[ -n "$follower" ] && kill "$follower" 2>/dev/null
	for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done
	for ns in $A $B; do
		ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sleep 0.2
	for ns in $A $B; do
		ip netns pids $ns 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bold() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '\033[2m$ %s\033[0m\n' "${*#ip netns exec $A }"; "$@"; }
rtl() { run ip netns exec $A "$RTLTUNE" "$@"; }
q() { ip netns exec $A "$RTLTUNE" "$@"; } # quiet: not shown as a command

cleanup 2>/dev/null
mkdir -p "$state/runs"
# The fault injector is a test tool: built here when missing (`make check` builds it too).
FAULTINJ=$PWD/build/tests/tools/faultinj
[ -x "$FAULTINJ" ] || make -s build/tests/tools/faultinj >/dev/null 2>&1 || FAULTINJ=
ip netns add $A
ip netns add $B
ip -n $A link set lo up
ip -n $B link set lo up
ip link add demo0 netns $A type veth peer name demo1 netns $B
ip -n $A addr add 10.77.0.1/24 dev demo0
ip -n $B addr add $DST/24 dev demo1
ip -n $A link set demo0 up
ip -n $B link set demo1 up
ip netns exec $A sysctl -qw net.ipv6.conf.demo0.disable_ipv6=1
ip netns exec $B sysctl -qw net.ipv6.conf.demo1.disable_ipv6=1
ip -n $A link set demo0 gso_max_size 16384
for port in 5201 5202; do ip netns exec $B iperf3 -s -B $DST -p $port -D; done

bold "The testbed: namespace $A sends to $B over a veth pair, gso_max_size 16384"
rtl show demo0
rtl chips demo0 | head -n 3

# 500 ms samples instead of the default 1 s so the demo takes a minute, not two; the tuner's
# windows and criterion are the defaults (8 samples before a change, 8 after).
printf '[daemon]\nsample_interval = 500ms\n' >"$state/rtltuned.conf"
ip netns exec $A "$RTLTUNED" --foreground --config "$state/rtltuned.conf" --socket "$RTLTUNE_SOCKET" \
	--state-dir "$RTLTUNE_STATE_DIR" --metrics 127.0.0.1:9775 --interfaces demo0 --no-autotune \
	>"$state/rtltuned.log" 2>&1 &
for ((i = 0; i < 100; i++)); do q status >/dev/null 2>&1 && break; sleep 0.05; done
q status >/dev/null || { cat "$state/rtltuned.log"; exit 1; }

# Bulk TCP: two loops of 1-second iperf3 runs, staggered. Connections come and go as in
# real traffic (web, RPC, backups), and each new one picks up the current gso_max_size.
loop() { # PORT: each run's JSON lands in runs/ as END-TIMESTAMP.PORT.json
	local f
	while :; do
		f=$state/runs/tmp.$1
		ip netns exec $A iperf3 -c $DST -p "$1" -t 1 -J >"$f" 2>/dev/null &&
			mv "$f" "$state/runs/$(date +%s.%N).$1.json" || sleep 0.1
	done
}
# median_gbps SINCE: the median of the runs that ended after SINCE (epoch seconds).
median_gbps() {
	local f
	for f in "$state"/runs/*.json; do
		[ "$(basename "$f" | cut -d. -f1)" -ge "$1" ] || continue
		jq '.end.sum_received.bits_per_second / 1e9' "$f"
	done | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f Gbit/s (median of %d runs)", v[int((NR + 1) / 2)], NR }'
}
bold "Bulk TCP, 1-second iperf3 runs in two loops; rtltuned watches, autotune off"
start_before=$(date +%s)
for port in 5201 5202; do
	loop $port &
	loops+=($!)
	sleep 0.5
done
sleep 8
before=$(median_gbps "$start_before")
echo "throughput: $before"
rtl hist demo0 tx_skb_bytes --window
rtl recommend demo0

bold "Autotune on: every change is a trial, judged against the 8 samples before it"
ip netns exec $A "$RTLTUNE" log --follow | grep --line-buffered ' tuner ' |
	sed -u -E 's/^[0-9-]+ ([0-9:]+) [a-z]+ +/\1 /; s/ tuner / /; s/(.{1,200}).*/\1/' &
follower=$!
rtl autotune on demo0
# settle RULE: until no trial is in progress and RULE is at its limit or backing off after a
# rejected trial (bounded: 90 s).
settle() {
	local started=$SECONDS
	while [ $((SECONDS - started)) -lt 90 ]; do
		sleep 1
		[ "$(q --json status demo0 | jq -c '.interfaces[0].tuner.trial')" = null ] || continue
		case $(q --json recommend demo0 | jq -r --arg r "$1" '.interfaces[0].tuner.candidates[] |
			select(.rule == $r) | .status') in
		backoff | at_limit | no_evidence) break ;;
		esac
	done
	sleep 0.3
	echo "(settled after $((SECONDS - started)) s at gso_max_size $(ip -n $A -d -j link show demo0 | jq .[0].gso_max_size))"
}
settle gso-at-cap

start_after=$(date +%s)
sleep 8
after=$(median_gbps "$start_after")
bold "After: the skb sizes the stack now hands the driver, and the throughput"
rtl hist demo0 tx_skb_bytes --window
echo "throughput before: $before"
echo "throughput after:  $after"
b=$(echo "$before" | awk '{ print $1 }')
a=$(echo "$after" | awk '{ print $1 }')
awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "                   %.1fx\n", a / b }'

bold "What the tuner would do next, and why (every rule)"
printf '\033[2m$ rtltune --json recommend demo0 | jq ...\033[0m\n'
q --json recommend demo0 | jq -r '.interfaces[0].tuner.candidates[] | [.rule, .status, .reason[0:150]] | @tsv' |
	awk -F'\t' '{ printf "  %-11s %-12s %s\n", $1, $2, $3 }'

if [ -n "$FAULTINJ" ]; then
	bold "A fault: the NIC's TSO engine mangles 5% of the bursts above 64K"
	retrans() { # SECONDS: retransmitted segments per segment sent by the sender meanwhile
		local b a
		read -ra b < <(ip netns exec $A awk '/^Tcp:/ && ++n == 2 { print $13, $12 }' /proc/net/snmp)
		sleep "$1"
		read -ra a < <(ip netns exec $A awk '/^Tcp:/ && ++n == 2 { print $13, $12 }' /proc/net/snmp)
		awk -v r=$((a[0] - b[0])) -v s=$((a[1] - b[1])) 'BEGIN { printf "%.3f%% of segments", s ? 100 * r / s : 0 }'
	}
	run ip netns exec $A "$FAULTINJ" attach demo0 --fraction 0.05 --min-len 65536
	t=$(date +%s)
	echo "retransmits: $(retrans 3)"
	echo "throughput: $(median_gbps "$t")"
	for ((i = 0; i < 60; i++)); do # until the tuner starts a fix (bounded: 30 s)
		[ "$(q --json status demo0 | jq -r '.interfaces[0].tuner.trial.rule // empty')" = gso-faults ] && break
		sleep 0.5
	done
	settle gso-faults
	echo "retransmits: $(retrans 3)"
	t=$(date +%s)
	sleep 4
	echo "throughput: $(median_gbps "$t")"
	ip netns exec $A "$FAULTINJ" detach demo0 >/dev/null
fi
kill $follower 2>/dev/null || true
follower=

# Charts are kept after the demo (the state directory is not).
charts=${DEMO_CHARTS:-/tmp/rtltune-demo-charts}
mkdir -p "$charts"
bold "A sweep: throughput against gso_max_size on the traffic that flows (the tuner paused meanwhile)"
rtl sweep demo0 gso_max_size 16K,32K,64K,128K --seconds 2 --settle 0.5 --svg "$charts/sweep.svg" || true
bold "The report: what rtltuned saw and did, as a timeline"
rtl report demo0 --since 10m --svg "$charts/report.svg" | tail -n 12 || true
echo "charts: $charts/sweep.svg $charts/report.svg (open them in a browser)"

bold "The decision counters in /metrics"
ip netns exec $A python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:9775/metrics").read().decode())' |
	grep '^rtltune_tuning_decisions_total{device="demo0"' || true

for p in "${loops[@]}"; do kill "$p" 2>/dev/null; done
loops=()
bold "One-shot, no tuner needed: profiles, apply (dry run), restore from the journal"
rtl profiles | head -n 6
rtl apply throughput demo0 --dry-run
rtl autotune off demo0 >/dev/null
rtl restore demo0
echo "gso_max_size is back at $(ip -n $A -d -j link show demo0 | jq .[0].gso_max_size)"
