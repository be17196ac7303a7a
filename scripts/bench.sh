#!/bin/bash
# `make bench`: every benchmark, figures and ratios measured side by side in one run.
# Each part is a standalone script; BENCH='apply probes' runs a subset. Each part appends
# "figure|measured|target|verdict" rows to $BENCH_SUMMARY (verdicts from judge() in
# scripts/bench-lib.sh); they are printed together at the end, one table for the whole run.
# The run exits 1 when a verdict is missed, and a part cannot pass without one: a part that
# fails, names no such script or gives no row is a MISSED row of its own.
set -u
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (network namespaces, BPF)" >&2; exit 2; }
parts=${BENCH:-apply probes hostwide napi daemon flat pods reroute tuner tuner-aa}
BENCH_SUMMARY=$(mktemp /tmp/rtltune-bench-summary.XXXXXX)
export BENCH_SUMMARY
trap 'rm -f "$BENCH_SUMMARY"' EXIT
for p in $parts; do
	s=scripts/bench-$p.sh
	if [ ! -x "$s" ]; then
		echo "== $p: no $s"
		summary "$p: no such bench ($s)" "-" "-" "MISSED (no figure)"
		continue
	fi
	echo "== $p"
	before=$(wc -l <"$BENCH_SUMMARY")
	prc=0
	"$s" || prc=$?
	rows=$(tail -n +"$((before + 1))" "$BENCH_SUMMARY")
	if [ -z "$rows" ]; then
		summary "$p: no figures (exit $prc)" "-" "-" "MISSED (no figure)"
	elif [ "$prc" -ne 0 ] && ! awk -F'|' '$4 ~ /^MISSED/ { found = 1 } END { exit !found }' <<<"$rows"; then
		summary "$p: exit $prc after its rows" "-" "exit 0" "MISSED"
	fi
	echo
done
echo "== summary"
awk -F'|' '{ printf "  %-56s %-26s %-18s %s\n", $1, $2, $3, $4 }' \
	<(echo "figure|measured|target|verdict") "$BENCH_SUMMARY"
judged=$(awk -F'|' '$4 !~ /^information/' "$BENCH_SUMMARY" | grep -c . || true)
missed=$(awk -F'|' '$4 ~ /^MISSED/' "$BENCH_SUMMARY" | grep -c . || true)
if [ "$missed" -gt 0 ]; then
	echo "bench: $missed of $judged verdicts missed"
	exit 1
fi
echo "bench: all $judged verdicts met"
