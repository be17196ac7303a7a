#!/bin/bash
# rtltuned on a node of many pods (issue 28, docs/namespaces.md "Measured"). A "node"
# namespace (the daemon runs there, never in the host's) and PODS pod namespaces
# (/run/netns/rtlpod-PID-NNN), each with one veth: eth0 in the pod, its peer vpNNN in the
# node. The daemon manages every pod's eth0 (`namespaces = rtlpod-PID-*`,
# `interfaces = */eth0`). Side by side in one run, same configuration:
#  1. 0 pods: the daemon's idle CPU and memory (the baseline);
#  2. PODS pods, once the daemon lists every pod's eth0 in `status --json` and, by its own
#     account, the pods are idle: "idle CPU" is the daemon's CPU with pods that carry no
#     traffic. A pod's IPv6 start-up (router solicitations, MLD reports: ~10-15 s after its
#     link comes up; IPv6 stays on in the pods) moves its counters, so the bench waits
#     (bounded: IDLE_WAIT seconds) until `stats --json` gives every pod's eth0 `idle`
#     (docs/daemon.md "Every sample"), or at most IDLE_BUSY not, and says how long that took
#     and how many were idle (on timeout, how many were not). Then idle CPU over
#     IDLE_SECONDS at the default 1 s sampling (/proc/PID/task/*/schedstat: nanoseconds on
#     a CPU), RSS and anonymous memory, per pod = (RSS with PODS - RSS with 0) / PODS;
#  3. churn, two rounds: pod namespaces with their veth created and deleted at CHURN_RATE/s
#     for CHURN_SECONDS (each lives 1 s) while the daemon runs: each pod's eth0 managed
#     while it lived (its namespace's end lets one interface go); then the daemon alive, no
#     error loop (warnings and errors in its log at most 2 per churned namespace, none once
#     the churn is over), none of the churned pods left in `status --json`, its descriptors
#     back to before, and no leak: RSS after the second round within 1 MiB of the higher
#     of before the churn and after the first (the first may leave the heap at a
#     high-water mark, or below it; a leak grows every round).
# Targets (issue 28): idle CPU <= 0.5% of a core, RSS <= 16 MiB, per pod <= 1 KiB.
# PODS_PROBES=on runs the daemon with its probes (the default run has `probes = off`) and
# says how many interfaces they count (slots) and what their maps take in the kernel.
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
RTLTUNED=$PWD/build/rtltuned
N=${PODS:-1000}
IDLE_SECONDS=${IDLE_SECONDS:-30}
IDLE_WAIT=${IDLE_WAIT:-90}
IDLE_BUSY=${IDLE_BUSY:-0}
CHURN_RATE=${CHURN_RATE:-50}
CHURN_SECONDS=${CHURN_SECONDS:-20}
PROBES=${PODS_PROBES:-off}
[ -x "$RTLTUNED" ] || { echo "bench-pods: build first (make)" >&2; exit 2; }
node=rtlnode-$$
pfx=rtlpod-$$
tmp=$(mktemp -d)
pid=
# Every namespace of this run: the node's (its veths, and with them their peers, go with
# it) and each pod's name.
cleanup() {
	bench_stop "$pid"
	bench_netns_del "$node"
	ls /run/netns 2>/dev/null | grep "^$pfx-" | sed 's/^/netns del /' | ip -force -batch - 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/rtltuned.conf" <<EOF
interfaces = */eth0
namespaces = $pfx-*
probes = $PROBES
tune_host = no
EOF
ip netns add "$node"
ip -n "$node" link set lo up

# pods_add N: N pod namespaces, each with its veth (eth0 there, vpNNN in the node), up.
pods_add() {
	local i n=$1
	for ((i = 0; i < n; i++)); do printf 'netns add %s-%03d\n' "$pfx" "$i"; done | ip -batch -
	for ((i = 0; i < n; i++)); do
		printf 'link add eth0 netns %s-%03d up type veth peer name vp%03d netns %s\n' "$pfx" "$i" "$i" "$node"
	done | ip -batch -
	for ((i = 0; i < n; i++)); do printf 'link set vp%03d up\n' "$i"; done | ip -n "$node" -batch -
}

rtl() { RTLTUNE_SOCKET=$tmp/s "$RTLTUNE" "$@"; }
# pods_listed [PREFIX]: how many interfaces of namespaces named PREFIX* (default: every
# pod's) `status --json` lists; nothing when it gives no table (a timeout, an error).
pods_listed() {
	rtl --json status 2>/dev/null |
		jq --arg p "${1:-$pfx-}" 'if .interfaces then [.interfaces[] | select(.netns != null and (.netns | startswith($p)))] | length else empty end'
}
cpu_ns() { cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%.0f\n", t }'; }
mem() { awk -v k="$1:" '$1 == k { print $2 }' /proc/"$pid"/status; }
# pods_idle: how many pods' interfaces `stats --json` gives idle, a space, how many it
# gives; nothing when it gives no table.
pods_idle() {
	rtl --json stats 2>/dev/null |
		jq -r --arg p "$pfx-" 'if .interfaces then [.interfaces[] | select(.netns != null and (.netns | startswith($p)))] | "\([.[] | select(.idle)] | length) \(length)" else empty end'
}
fds() { ls /proc/"$pid"/fd | wc -l; }
samples() { rtl --json status | jq .daemon.samples; }
# wait_samples K: until the sampler ran K more times (bounded: 5 s each).
wait_samples() {
	local want i
	want=$(($(samples) + $1))
	for ((i = 0; i < $1 * 100; i++)); do
		[ "$(samples)" -ge "$want" ] && return 0
		sleep 0.05
	done
	echo "bench-pods: the sampler did not run $1 more times" >&2
	return 1
}

# start: the daemon in the node namespace (levelled log lines: <N>message, as under
# systemd), answering on its socket (bounded).
start() {
	local i
	rm -rf "$tmp/state"
	ip netns exec "$node" env JOURNAL_STREAM=bench "$RTLTUNED" --foreground --socket "$tmp/s" \
		--state-dir "$tmp/state" --config "$tmp/rtltuned.conf" >"$tmp/log.$1" 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		rtl status >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "bench-pods: rtltuned did not answer (waited 10 s):" >&2
	cat "$tmp/log.$1" >&2
	exit 1
}
# idle SECONDS: "cpu_pct" of the daemon over SECONDS (a measurement's length).
idle() {
	local t0 t1 s0 s1
	t0=$(cpu_ns) s0=$(date +%s%N)
	sleep "$1"
	t1=$(cpu_ns) s1=$(date +%s%N)
	echo "scale=4; ($t1 - $t0) * 100 / ($s1 - $s0)" | bc
}
mib() { is_number "${1:-}" && echo "$(($1 / 1024)).$((($1 % 1024) * 10 / 1024)) MiB" || echo "-"; }

echo "1. baseline: 0 pods"
start 0
wait_samples 2
c0=$(idle 10)
r0=$(mem VmRSS) a0=$(mem RssAnon)
bench_stop "$pid"
pid=
echo "   CPU ${c0}% of a core, RSS $(mib "$r0") (anonymous $(mib "$a0"))"

echo "2. $N pods"
t0=$(date +%s%N)
pods_add "$N"
t1=$(date +%s%N)
echo "   $N pod namespaces with their veths made in $(((t1 - t0) / 1000000)) ms"
start "$N"
settle=
for ((i = 0; i < 1200; i++)); do
	[ "$(pods_listed)" = "$N" ] && { settle=$((($(date +%s%N) - t1) / 1000000)); break; }
	sleep 0.1
done
listed=$(pods_listed)
[ -n "$settle" ] || echo "bench-pods: the daemon lists $listed of $N pods' interfaces after 120 s" >&2
wait_samples 2 || true
# Until the pods are idle by the daemon's account (bounded).
t2=$(date +%s%N) quiet= nidle=- nst=-
for ((i = 0; i < IDLE_WAIT * 2; i++)); do
	read -r nidle nst <<<"$(pods_idle)" || true
	is_number "${nidle:-}" && is_number "${nst:-}" && ((nst >= N && nst - nidle <= IDLE_BUSY)) &&
		{ quiet=$((($(date +%s%N) - t2) / 1000000)); break; }
	sleep 0.5
done
if [ -n "$quiet" ]; then
	echo "   pods idle by the daemon's account ${quiet} ms after listed: ${nidle} of ${nst} interfaces idle (at most $IDLE_BUSY not)"
else
	echo "   bench-pods: waited ${IDLE_WAIT} s for every pod's eth0 idle (at most $IDLE_BUSY not): ${nidle:--} of ${nst:--} idle; measuring anyway" >&2
	echo "   pods NOT idle after ${IDLE_WAIT} s: ${nidle:--} of ${nst:--} interfaces idle"
fi
cN=$(idle "$IDLE_SECONDS")
read -r nidle2 nst2 <<<"$(pods_idle)" || true
rN=$(mem VmRSS) aN=$(mem RssAnon) fN=$(fds) hN=$(mem RssFile)
sample_us=$(rtl --json status | jq '.daemon.sample_cost_seconds * 1000000 | round')
per= pera=
is_number "$rN" && is_number "$r0" && per=$(((rN - r0) * 1024 / N))
is_number "$aN" && is_number "$a0" && pera=$(((aN - a0) * 1024 / N))
echo "   listed $listed of $N pods' eth0 ${settle:+${settle} ms after start}; idle ${IDLE_SECONDS} s:" \
	"CPU ${cN}% of a core, RSS $(mib "$rN") (anonymous $(mib "$aN")), $fN descriptors, sample ${sample_us} us;" \
	"${nidle2:--} of ${nst2:--} idle at its end"
echo "   per pod: ${per:--} bytes RSS (${pera:--} anonymous)"
if [ "$PROBES" = on ]; then
	# The maps' kernel memory: memlock of each BPF map the daemon holds (fdinfo).
	maps_kib=0
	for f in /proc/"$pid"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = anon_inode:bpf-map ] || continue
		maps_kib=$((maps_kib + $(awk '/^memlock:/ { print $2 }' "/proc/$pid/fdinfo/${f##*/}") / 1024))
	done
	echo "   probes: $(rtl --json stats | jq '[.interfaces[] | select(.source == "bpf")] | length') of" \
		"$listed pods' eth0 counted by them; maps ${maps_kib} KiB of kernel memory"
	grep 'slots' "$tmp/log.$N" | sed 's/^/   log: /'
fi

total=$((CHURN_RATE * CHURN_SECONDS))
log=$tmp/log.$N
# Paced against the clock (a rate, not a wait for an event): namespace i of round R
# (rtlpod-PID-rRcIIII, its node side vRcIIII) is made at i/RATE s and deleted RATE
# namespaces later (1 s). One `ip -batch` does it all.
churn() {
	local r=$1 i start due now
	start=${EPOCHREALTIME/./}
	for ((i = 0; i < total + CHURN_RATE; i++)); do
		if ((i < total)); then
			printf 'netns add %s-r%dc%04d\n' "$pfx" "$r" "$i"
			printf 'link add eth0 netns %s-r%dc%04d up type veth peer name v%dc%04d netns %s\n' \
				"$pfx" "$r" "$i" "$r" "$i" "$node"
		fi
		((i >= CHURN_RATE)) && printf 'netns del %s-r%dc%04d\n' "$pfx" "$r" "$((i - CHURN_RATE))"
		due=$((start + (i + 1) * 1000000 / CHURN_RATE))
		now=${EPOCHREALTIME/./}
		if ((due > now)); then sleep "$(printf '0.%06d' $((due - now)))"; fi
	done
}
# churn_round R: one round of churn and its checks, into cC managed left gone warn after
# rC fC aC hC.
churn_round() {
	local r=$1 i lines0 lines1 lines2 t0 s0 s1 crc=0
	echo "3.$r churn: $CHURN_RATE pod namespaces/s created and deleted for $CHURN_SECONDS s"
	lines0=$(wc -l <"$log")
	t0=$(cpu_ns) s0=$(date +%s%N)
	churn "$r" | ip -force -batch - 2>"$tmp/churn.err" || crc=$?
	s1=$(date +%s%N)
	cC=$(echo "scale=2; ($(cpu_ns) - $t0) * 100 / ($s1 - $s0)" | bc)
	echo "   $total made and deleted in $(((s1 - s0) / 1000000)) ms (ip: exit $crc, $(grep -c . "$tmp/churn.err" || true) errors); daemon CPU ${cC}% of a core meanwhile"
	gone=
	for ((i = 0; i < 300; i++)); do
		[ "$(pods_listed "$pfx-r$r")" = 0 ] && { gone=$((($(date +%s%N) - s1) / 1000000)); break; }
		sleep 0.1
	done
	left=$(pods_listed "$pfx-r$r")
	# The kernel ends a namespace after its name goes (cleanup_net(), a work item): wait
	# until the node has none of the round's veths left, then a few samples to settle.
	for ((i = 0; i < 600; i++)); do
		[ "$(ip -n "$node" -o link show | grep -c " v${r}c[0-9]" || true)" = 0 ] && break
		sleep 0.1
	done
	wait_samples 3 || true
	lines1=$(wc -l <"$log")
	wait_samples 5 || true
	lines2=$(wc -l <"$log")
	alive=0
	kill -0 "$pid" 2>/dev/null && alive=1
	rC=$(mem VmRSS) fC=$(fds) aC=$(mem RssAnon) hC=$(mem RssFile)
	warn=$(tail -n +"$((lines0 + 1))" "$log" | grep -c '^<[0-4]>' || true)
	# Each churned pod's eth0 was managed while it lived: its namespace's end let one go.
	managed=$(tail -n +"$((lines0 + 1))" "$log" |
		grep -c "netns $pfx-r${r}c[0-9]* deleted: 1 interface no longer managed" || true)
	after=$((lines2 - lines1))
	echo "   churned pods managed while they lived: $managed of $total"
	echo "   daemon alive: $alive; churned pods still listed: ${left:--} (none ${gone:+${gone} ms after the churn})"
	echo "   log: $((lines1 - lines0)) lines during the churn, $warn warnings or errors; $after lines in 5 samples after"
	# The kinds of line (numbers and the run's names made N), most frequent first.
	tail -n +"$((lines0 + 1))" "$log" | sed "s/$pfx-r[0-9]*c[0-9]*/POD/g; s/[0-9]\{1,\}/N/g" |
		sort | uniq -c | sort -rn | head -6 | sed 's/^/     /'
	echo "   after: RSS $(mib "$rC") (anonymous $(mib "$aC"), file $(mib "$hC")), $fC descriptors"
}

# Two rounds: the first may leave the heap at a high-water mark (the 50 pods alive at once,
# freed in the middle of it), or below where it was (glibc gives back the heap's freed top);
# a leak grows with every namespace, so the second round's growth above the highest RSS
# before it (before the churn or after round 1) is the leak check.
churn_round 1
c1=$cC m1=$managed l1=$left w1=$warn x1=$after r1=$rC f1=$fC al1=$alive
churn_round 2
grow1= grow=
is_number "$r1" && is_number "$rN" && grow1=$((r1 - rN))
is_number "$rC" && is_number "$r1" && is_number "$rN" && grow=$((rC - (r1 > rN ? r1 : rN)))
echo "   RSS $(mib "$rN") before, $(mib "$r1") after round 1 (${grow1:--} KiB), $(mib "$rC") after round 2 (${grow:--} KiB above the higher of those);" \
	"descriptors $fN before, $f1 and $fC after"
managed=$((${m1:-0} + ${managed:-0}))
left=$(( ${l1:-1} + ${left:-1} ))
warn=$((${w1:-0} + ${warn:-0}))
after=$((${x1:-1} + ${after:-1}))
alive=$(( ${al1:-0} * ${alive:-0} ))
[ "$f1" = "$fC" ] || fC="$f1/$fC"
total=$((2 * total))

v_cpu=$(judge "$cN" '<=' 0.5)
v_rss=$(judge "$rN" '<=' 16384)
v_per=$(judge "$per" '<=' 1024)
v_listed=$(judge "$listed" '==' "$N")
v_alive=$(judge "$alive" '==' 1)
v_managed=$(judge "$managed" '==' "$total")
v_warn=$(judge "$warn" '<=' $((2 * total)))
v_after=$(judge "$after" '==' 0)
v_left=$(judge "$left" '==' 0)
v_grow=$(judge "$grow" '<=' 1024)
v_fds=$(judge "$fC" '==' "$fN")
echo "  target: $N pods at <= 0.5% idle CPU: $v_cpu"
echo "  target: $N pods at <= 16 MiB RSS: $v_rss"
echo "  target: <= 1 KiB per pod: $v_per"
echo "  target: every pod's eth0 listed: $v_listed"
echo "  target: churn: every churned pod's eth0 managed: $v_managed"
echo "  target: churn: alive, <= 2 warnings per namespace, none after: $(all_met "$v_alive" "$v_warn" "$v_after")"
echo "  target: churn: none left listed, RSS of round 2 <= +1 MiB, descriptors as before: $(all_met "$v_left" "$v_grow" "$v_fds")"
summary "rtltuned, $N pod namespaces: idle CPU (pods idle), RSS" "${cN}%, $(mib "$rN")" "<= 0.5%, <= 16 MiB" \
	"$(all_met "$v_cpu" "$v_rss" "$v_listed")"
summary "  per pod (RSS; anonymous ${pera:--} B)" "${per:--} bytes" "<= 1024 bytes" "$v_per"
summary "  churn $CHURN_RATE/s, 2 rounds: pods managed; warnings; lines after" "${managed:--}/$total; ${warn:--}; ${after:--}" \
	"$total; <= $((2 * total)); 0" "$(all_met "$v_managed" "$v_alive" "$v_warn" "$v_after")"
summary "  churn: RSS growth round 1 (info), 2; fds; left" "${grow1:--}, ${grow:--} KiB; $fN->${fC:--}; ${left:--}" "2: <= 1024 KiB; same; 0" \
	"$(all_met "$v_left" "$v_grow" "$v_fds")"
[ "$(all_met "$v_cpu" "$v_rss" "$v_per" "$v_listed" "$v_managed" "$v_alive" "$v_warn" "$v_after" "$v_left" "$v_grow" "$v_fds")" = met ]
