#!/bin/bash
# `make bench`: every benchmark, figures and ratios measured side by side in one run.
# Each part is a standalone script; BENCH='apply probes' runs a subset. A part may append
# "figure|measured|target|verdict" rows to $BENCH_SUMMARY; they are printed together at
# the end, one table for the whole run.
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (network namespaces, BPF)" >&2; exit 2; }
parts=${BENCH:-apply probes hostwide daemon flat reroute tuner}
BENCH_SUMMARY=$(mktemp /tmp/rtltune-bench-summary.XXXXXX)
export BENCH_SUMMARY
trap 'rm -f "$BENCH_SUMMARY"' EXIT
rc=0
for p in $parts; do
	s=scripts/bench-$p.sh
	[ -x "$s" ] || { echo "== $p: (not present)"; continue; }
	echo "== $p"
	"$s" || rc=1
	echo
done
if [ -s "$BENCH_SUMMARY" ]; then
	echo "== summary"
	awk -F'|' '{ printf "  %-56s %-26s %-18s %s\n", $1, $2, $3, $4 }' \
		<(echo "figure|measured|target|verdict") "$BENCH_SUMMARY"
fi
exit $rc
