#!/bin/bash
# Acceptance (issue 5): 50 concurrent CLI clients, wrk on /metrics and 200 veth
# create/delete at once, three rounds: rtltuned stays alive and answers, every veth gets
# its profile and leaves nothing behind, and its open fds and RSS return to their level
# after the first round.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v wrk >/dev/null || t_skip "wrk not installed"

NS=$(t_netns d)
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 32768\n' >"$PROFILES/stress.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
printf '[daemon]\nsample_interval = 200ms\nprofile = stress\n' >"$T_TMP/rtltuned.conf"
ip link add st0 netns "$NS" type veth peer name st1 netns "$NS"
d_start "$NS" --config "$T_TMP/rtltuned.conf" --interfaces 'st*'

# One round: 50 CLI clients, two log followers, wrk on /metrics and 200 veths (100 pairs)
# created and deleted in batches, all at once; then check what is left. Each client makes
# 10 pairs of requests (1000 CLI runs a round): they last about as long as the churn.
# With 20 pairs each, the 2000 CLI processes held both CPUs and stretched the churn from
# 10 s to 22 s a round (the whole test from 33 s to 95 s).
client() {
	local k
	for ((k = 0; k < 10; k++)); do
		d_rtl --json status >/dev/null || return 1
		d_rtl --json stats st0 >/dev/null || return 1
	done
}
# 100 pairs in two batches of 50: each batch is created, given the profile by the daemon
# (its hotplug path, under the same load), then deleted.
applied() {
	grep -c "st[xy]$1-[0-9]*: gso_max_size 65536 -> 32768" "$T_TMP/follow1.log" || true
}
# churn ROUND: twice, 50 veth pairs (100 interfaces) added, the profile awaited on all of
# them (bounded by progress: 10 s without one more applied, 60 s in all), then deleted.
churn() {
	local round=$1 r i n last idle
	for ((r = 0; r < 2; r++)); do
		for ((i = 0; i < 50; i++)); do
			echo "link add stx$round$r-$i type veth peer name sty$round$r-$i"
		done | ip -n "$NS" -batch -
		last=-1 idle=0
		for ((i = 0; i < 1200 && idle < 200; i++)); do
			n=$(applied "$round$r")
			[ "$n" -ge 100 ] && break
			if [ "$n" -gt "$last" ]; then last=$n idle=0; else idle=$((idle + 1)); fi
			sleep 0.05
		done
		for ((i = 0; i < 50; i++)); do echo "link del stx$round$r-$i"; done |
			ip -n "$NS" -batch -
	done
}
round() {
	local round=$1 pids=() p c i n failed reqs churn_pid f1 f2 start=$SECONDS
	echo "# round $round"
	# Followers for the whole round, killed at its end: their fds must go too.
	# (Not through the d_rtl function: $! must be rtltune itself, not a subshell.)
	RTLTUNE_SOCKET=$D_SOCK "$RTLTUNE" log --follow >"$T_TMP/follow1.log" 2>&1 &
	f1=$!
	RTLTUNE_SOCKET=$D_SOCK "$RTLTUNE" --json log --follow >"$T_TMP/follow2.log" 2>&1 &
	f2=$!
	t_defer "kill $f1 $f2 2>/dev/null || true"
	for ((c = 0; c < 50; c++)); do
		client &
		pids+=($!)
	done
	churn "$round" &
	churn_pid=$!
	ip netns exec "$NS" wrk -t2 -c16 -d6s --latency "http://127.0.0.1:$D_PORT/metrics" \
		>"$T_TMP/wrk.txt"
	wait "$churn_pid" || t_fail "veth churn failed"
	echo "# round $round: churn done after $((SECONDS - start)) s"
	failed=0
	for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
	echo "# round $round: clients done after $((SECONDS - start)) s"
	t_eq "$failed" 0 "CLI clients that failed"
	kill -0 "$D_PID" || t_fail "rtltuned died under load"
	echo "ok: rtltuned alive"
	reqs=$(awk '/requests in/ { print $1 }' "$T_TMP/wrk.txt")
	t_ge "$reqs" 100 "wrk /metrics requests served"
	grep -q 'Non-2xx' "$T_TMP/wrk.txt" && t_fail "wrk saw non-2xx answers: $(cat "$T_TMP/wrk.txt")"
	grep -q 'Socket errors' "$T_TMP/wrk.txt" &&
		t_fail "wrk saw socket errors: $(cat "$T_TMP/wrk.txt")"
	echo "ok: wrk: $(grep -E 'Requests/sec|99%' "$T_TMP/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
	# The followers may still be reading the burst: wait (bounded) before stopping them.
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c 'new interface' "$T_TMP/follow1.log")" -ge 200 ] && break
		sleep 0.05
	done
	kill "$f1" "$f2"
	wait "$f1" "$f2" 2>/dev/null || true
	t_ge "$(grep -c 'new interface' "$T_TMP/follow1.log")" 200 "follower saw every new veth"
	t_eq "$(applied "$round[01]")" 200 "churned veths that got the profile before deletion"
	for ((i = 0; i < 200; i++)); do
		n=$(d_rtl --json status | jq '[.interfaces[] | select(.ifname | startswith("s"))] | length')
		[ "$n" = 2 ] && break
		sleep 0.05
	done
	t_eq "$n" 2 "interfaces left (st0, st1)"
	d_wait_samples 3
	if grep -Eq '^iface st[xy]' "$D_STATE/journal"; then
		t_fail "journal keeps originals of removed veths: $(grep -c '^iface' "$D_STATE/journal")"
	fi
	echo "ok: no journal entries of removed veths"
}

# One line per mapping: address range, Rss in KiB, path ("[anon]" when it has none).
maps() {
	awk '/^[0-9a-f]+-/ { m = $1; p = ($6 == "" ? "[anon]" : $6) } /^Rss:/ { print m, $2, p }' \
		"/proc/$D_PID/smaps"
}

# Round 0 warms up every path (code pages, buffers, the allocator's free lists, the metrics
# text at full size); the baseline is taken after it. Rounds 1 and 2 must not grow it: a
# leak of even a few hundred bytes per veth, client or request shows over two rounds.
round 0
fds0=$(d_fds)
rss0=$(d_rss_kib)
maps >"$T_TMP/maps0"
echo "# baseline: $fds0 fds, $rss0 KiB RSS"
round 1
round 2

fds1=$(d_fds)
rss1=$(d_rss_kib)
echo "# after: $fds1 fds, $rss1 KiB RSS"
if [ "$fds1" != "$fds0" ]; then
	ls -l "/proc/$D_PID/fd" >&2
	ip netns exec "$NS" ss -tanpe >&2
	ss -xpe | grep "pid=$D_PID" >&2
fi
t_eq "$fds1" "$fds0" "open fds back to the starting level"
# RSS: the freed interface records, client buffers and responses go back to the kernel
# (malloc_trim after removals); allow 1 MiB for the allocator's fragmentation.
if [ "$rss1" -gt $((rss0 + 1024)) ]; then
	maps >"$T_TMP/maps1"
	echo "# mappings whose RSS changed (KiB before, after):" >&2
	join -a 1 -a 2 -e 0 -o 0,1.2,2.2,1.3,2.3 <(sort "$T_TMP/maps0") <(sort "$T_TMP/maps1") |
		awk '$2 != $3 { print $1, $2, $3, ($4 == "0" ? $5 : $4) }' >&2
fi
t_le "$rss1" $((rss0 + 1024)) "RSS back to the starting level (KiB)"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
