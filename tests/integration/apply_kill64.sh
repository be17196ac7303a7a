#!/bin/bash
# t-lane: beside
# SIGKILL of an apply of 64 interfaces at random points (issue 14): the run journals every
# originals and in-flight record in one write before the first change and ends them in
# one after the last (docs/journal.md "One write per run"), so wherever the kill lands,
# `rtltune restore` of all 64 brings back exactly what they had. Points: a random moment
# between knob changes (a short delay before each), inside the journal's write (before
# fsync, before rename, after the commit); the run's syscalls are counted once under strace
# (3 fsync and 2 renames, whatever the number of interfaces). APPLY_KILLS rounds (8).
. "$(dirname "$0")/../lib.sh"
KILLS=${APPLY_KILLS:-8}
N=64

ns=$(t_netns a)
nsb=$(t_netns b)
for ((i = 0; i < N; i++)); do
	echo "link add k$i netns $ns type veth peer name q$i netns $nsb"
done | ip -batch -
for ((i = 0; i < N; i++)); do echo "link set k$i up"; done | ip -n "$ns" -batch -
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\n# a\ntso = off\n# b\ngro = on\n# c\ngso_max_size = 32768\n# d\ngro_max_size = 131072\n' \
	>"$RTLTUNE_PROFILE_PATH/w1.conf"
ifs=$(seq -f 'k%g' 0 $((N - 1)))
# Every device's sizes (one ip call) and TSO (ethtool, independent of rtltune; one shell in
# the namespace for all 64: an `ip netns exec` each made this 4x slower, 18 s of the test).
state() {
	ip -n "$ns" -d -j link show type veth | jq -c '[.[] | {ifname, mtu, gso_max_size, gro_max_size}]'
	ip netns exec "$ns" sh -c 'i=0; while [ $i -lt $1 ]; do ethtool -k k$i; i=$((i + 1)); done' - "$N" |
		awk '$1 == "tcp-segmentation-offload:" { printf "%s", $2 } END { print "" }'
}
before=$(state)

t_log "one run's syscalls"
command -v strace >/dev/null || t_skip "strace not installed"
# shellcheck disable=SC2086
ip netns exec "$ns" strace -f -c -o "$T_TMP/strace" "$RTLTUNE" apply w1 $ifs >"$T_TMP/apply.out"
t_eq "$(grep -c -- '->' "$T_TMP/apply.out")" $((4 * N)) "changes made"
calls() { awk -v c="$1" '$NF == c { print $4 }' "$T_TMP/strace"; }
t_le "$(calls fsync)" 3 "fsync calls for $N interfaces"
t_le "$(calls rename)" 2 "rename calls"
echo "# socket() calls: $(calls socket)"
# shellcheck disable=SC2086
t_rtl "$ns" restore $ifs >/dev/null
[ "$(state)" = "$before" ] || t_fail "not restored after the counted run"
echo "ok: restored after the counted run"

points=(apply_knob apply_knob apply_knob journal_fsync journal_rename journal_committed)
killed=0 midway=0
for ((r = 1; r <= KILLS; r++)); do
	point=${points[RANDOM % ${#points[@]}]}
	ms=$((2 + RANDOM % 6))
	[ "$point" = apply_knob ] || ms=$((50 + RANDOM % 100))
	# shellcheck disable=SC2086
	RTLTUNE_TEST_DELAY="$point=$ms" ip netns exec "$ns" "$RTLTUNE" apply w1 $ifs >/dev/null 2>&1 &
	pid=$!
	# A random moment of the run: 4 * N knobs of ms each at apply_knob, or within the
	# journal writes' delays.
	span=$((3 * ms))
	[ "$point" = apply_knob ] && span=$((4 * N * ms))
	sleep "$(awk -v s="$span" -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 1000) / 1000 * s / 1000 }')"
	kill -9 $pid 2>/dev/null && killed=$((killed + 1))
	wait $pid 2>/dev/null || true
	[ "$(state)" != "$before" ] && midway=$((midway + 1))
	# shellcheck disable=SC2086
	if ! t_rtl "$ns" restore $ifs >"$T_TMP/restore.out" 2>&1; then
		tail -5 "$T_TMP/restore.out"
		t_fail "round $r ($point=$ms): restore failed"
	fi
	now=$(state)
	[ "$now" = "$before" ] || t_fail "round $r ($point=$ms): not restored exactly"
	echo "ok: round $r ($point=${ms}ms): restored exactly"
done
echo "# $KILLS rounds: $killed applies killed, $midway left some interface changed"
t_ge "$midway" 1 "rounds where the kill left interfaces changed"
t_eq "$(grep -c '^inflight' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "operations left in flight"
