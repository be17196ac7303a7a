#!/bin/bash
# Acceptance (issue 5): 50 concurrent CLI clients, wrk on /metrics and 200 veth
# create/delete at once: rtltuned stays alive and answers, every veth got its profile and
# left nothing behind, and its open fds and RSS return to their starting level.
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

# Warm up every path once (buffers, caches, the metrics text), then take the baseline.
for ((i = 0; i < 3; i++)); do
	d_rtl --json status >/dev/null
	d_rtl --json stats >/dev/null
	d_http /metrics >/dev/null
done
d_wait_samples 2
fds0=$(d_fds)
rss0=$(d_rss_kib)
maps() { awk '/^[0-9a-f]+-/ { m = $1 " " $6 } /^Rss:/ { print m, $2 }' "/proc/$D_PID/smaps"; }
maps >"$T_TMP/maps0"
echo "# baseline: $fds0 fds, $rss0 KiB RSS"

# 1. 50 CLI clients, each 20 requests back to back (started below, with the rest).
client() {
	local k
	for ((k = 0; k < 20; k++)); do
		d_rtl --json status >/dev/null || return 1
		d_rtl --json stats st0 >/dev/null || return 1
	done
}
# 2. Two log followers for the whole run (killed at the end: their fds must go too).
# (Not through the d_rtl function: $! must be rtltune itself, not a subshell.)
RTLTUNE_SOCKET=$D_SOCK "$RTLTUNE" log --follow >"$T_TMP/follow1.log" 2>&1 &
F1=$!
RTLTUNE_SOCKET=$D_SOCK "$RTLTUNE" --json log --follow >"$T_TMP/follow2.log" 2>&1 &
F2=$!
t_defer "kill $F1 $F2 2>/dev/null || true"
# 3. 200 veths (100 pairs) created and deleted in batches while the rest runs.
churn() {
	local r i
	for ((r = 0; r < 2; r++)); do
		for ((i = 0; i < 50; i++)); do echo "link add stx$r-$i type veth peer name sty$r-$i"; done |
			ip -n "$NS" -batch -
		for ((i = 0; i < 50; i++)); do echo "link del stx$r-$i"; done | ip -n "$NS" -batch -
	done
}
pids=()
for ((c = 0; c < 50; c++)); do
	client &
	pids+=($!)
done
churn &
CHURN=$!
ip netns exec "$NS" wrk -t2 -c16 -d6s --latency "http://127.0.0.1:$D_PORT/metrics" >"$T_TMP/wrk.txt"
wait "$CHURN" || t_fail "veth churn failed"
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
t_eq "$failed" 0 "CLI clients that failed"
kill -0 "$D_PID" || t_fail "rtltuned died under load"
echo "ok: rtltuned alive"
reqs=$(awk '/requests in/ { print $1 }' "$T_TMP/wrk.txt")
t_ge "$reqs" 100 "wrk /metrics requests served"
grep -q 'Non-2xx' "$T_TMP/wrk.txt" && t_fail "wrk saw non-2xx answers: $(cat "$T_TMP/wrk.txt")"
grep -q 'Socket errors' "$T_TMP/wrk.txt" && t_fail "wrk saw socket errors: $(cat "$T_TMP/wrk.txt")"
echo "ok: wrk: $(grep -E 'Requests/sec|99%' "$T_TMP/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
# The followers may still be reading the burst: wait (bounded) before stopping them.
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c 'new interface' "$T_TMP/follow1.log")" -ge 200 ] && break
	sleep 0.05
done
kill "$F1" "$F2"
wait "$F1" "$F2" 2>/dev/null || true
t_ge "$(grep -c 'new interface' "$T_TMP/follow1.log")" 200 "follower saw every new veth"

# Every churned veth was seen, most got the profile before they went, none is left.
applied=$(grep -c 'st[xy][01]-[0-9]*: gso_max_size 65536 -> 32768' "$T_TMP/follow1.log" || true)
echo "# profile applied to $applied of 200 churned veths before they were deleted"
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
# (malloc_trim after removals); allow 1 MiB for allocator bookkeeping.
if [ "$rss1" -gt $((rss0 + 1024)) ]; then
	maps >"$T_TMP/maps1"
	echo "# mappings whose RSS changed (KiB before, after):" >&2
	join -j 1 <(awk '{ print $1 "|" $2, $3 }' "$T_TMP/maps0" | sort) \
		<(awk '{ print $1 "|" $2, $3 }' "$T_TMP/maps1" | sort) | awk '$2 != $3' >&2
fi
t_le "$rss1" $((rss0 + 1024)) "RSS back to the starting level (KiB)"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
