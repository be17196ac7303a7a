#!/bin/bash
# README.md's sample outputs are what the commands print today: scripts/readme-samples.sh
# runs every sampled command (a daemon in a namespace, veth pairs, one bulk transfer) and
# compares each marked block with README's, after normalising what differs from run to run
# (pids, uptimes, ifindexes, MACs, dates; counters in the stats, hist and metrics blocks).
# The comparison must be able to fail: a README with one line of a block changed, one with a
# line removed, and one without a block are each refused, naming the block.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
command -v curl >/dev/null || t_skip "curl not installed"

RTLTUNE=$RTLTUNE RTLTUNED=$RTLTUNED scripts/readme-samples.sh --print >"$T_TMP/samples" ||
	t_fail "readme-samples.sh --print failed"
t_ge "$(grep -c '^<!-- sample ' "$T_TMP/samples")" 11 "sample blocks generated"
t_eq "$(grep -c '^<!-- sample ' README.md)" "$(grep -c '^<!-- sample ' "$T_TMP/samples")" "sample blocks in README.md"
scripts/readme-samples.sh --compare "$T_TMP/samples" README.md ||
	t_fail "README.md's samples drifted from what the commands print (-: README, +: today); regenerate: sudo scripts/readme-samples.sh --write"

# The check fails on drift. A value changed in the show block (not one normalised away):
sed '/^<!-- sample show -->$/,/^<!-- \/sample -->$/ s/^\( *mtu  *\)1500/\19000/' README.md >"$T_TMP/changed.md"
t_eq "$(diff README.md "$T_TMP/changed.md" | grep -c '^>')" 1 "lines changed in the drifted copy"
rc=0; scripts/readme-samples.sh --compare "$T_TMP/samples" "$T_TMP/changed.md" >"$T_TMP/out" || rc=$?
t_eq "$rc" 1 "check of a README with a changed value"
grep -q '^--- .*changed.md (show)$' "$T_TMP/out" || t_fail "the diff does not name the show block: $(cat "$T_TMP/out")"
# A line gone from the apply block (say, a line the code has started printing):
awk '/^<!-- sample apply -->$/ { a = 1 } a && /routes invalidated/ { a = 0; next } 1' README.md >"$T_TMP/short.md"
t_eq "$(diff README.md "$T_TMP/short.md" | grep -c '^<')" 1 "lines removed in the shortened copy"
rc=0; scripts/readme-samples.sh --compare "$T_TMP/samples" "$T_TMP/short.md" >"$T_TMP/out" || rc=$?
t_eq "$rc" 1 "check of a README missing a line"
grep -q '(apply)$' "$T_TMP/out" || t_fail "the diff does not name the apply block"
# A block gone:
sed '/^<!-- sample restore -->$/,/^<!-- \/sample -->$/d' README.md >"$T_TMP/noblock.md"
rc=0; scripts/readme-samples.sh --compare "$T_TMP/samples" "$T_TMP/noblock.md" >"$T_TMP/out" || rc=$?
t_eq "$rc" 1 "check of a README without the restore block"
grep -q "has no block 'restore'" "$T_TMP/out" || t_fail "the message does not name the missing block"
