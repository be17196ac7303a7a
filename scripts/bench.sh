#!/bin/bash
# `make bench`: every benchmark, figures and ratios measured side by side in one run.
# Each part is a standalone script; BENCH='apply probes' runs a subset.
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (network namespaces, BPF)" >&2; exit 2; }
parts=${BENCH:-apply probes daemon flat reroute tuner}
rc=0
for p in $parts; do
	s=scripts/bench-$p.sh
	[ -x "$s" ] || { echo "== $p: (not present)"; continue; }
	echo "== $p"
	"$s" || rc=1
	echo
done
exit $rc
