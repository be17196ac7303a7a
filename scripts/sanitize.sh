#!/bin/bash
# Run every cmocka unit binary of the sanitizer build (make sanitize: clang, ASan + UBSan,
# build/asan) and fail on the first report. Usage: scripts/sanitize.sh [BUILD_DIR]
# Each binary's output goes to BUILD_DIR/test-logs/NAME.log; a failure prints its tail.
# A skipped cmocka case is noted; under CI=true it fails the binary, as in tests/run.sh.
set -u
cd "$(dirname "$0")/.."
build=${1:-build/asan}
logdir=$build/test-logs
mkdir -p "$logdir"
# halt_on_error: any report fails the binary; detect_leaks: LeakSanitizer runs at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# The unit tests find their fixtures through the source tree, not the binary's location.
export RTLTUNE_SRCDIR=${RTLTUNE_SRCDIR:-$PWD}
pass=0 fail=0
for bin in "$build"/tests/test_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	log=$logdir/$name.log
	start=$(date +%s%N)
	"$bin" >"$log" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	cases=$(sed -n 's/^\[  SKIPPED \] \([^ ]*\)$/\1/p' "$log" | sort -u | paste -sd ' ')
	why=$(sed -n 's/^skipped: //p' "$log" | tail -n 1)
	# A sanitizer report with a zero exit (should not happen with halt_on_error) still fails.
	if [ $rc -eq 0 ] && ! grep -qE '^(==[0-9]+==ERROR|SUMMARY: (Address|Undefined|Leak)Sanitizer)|runtime error:' "$log"; then
		if [ -z "$cases" ]; then
			pass=$((pass + 1))
			printf 'PASS  asan/%-36s %6d ms\n' "$name" "$ms"
		elif [ "${CI:-}" = true ]; then
			fail=$((fail + 1))
			printf 'FAIL  asan/%-36s skipped, and CI=true allows no skip: case %s: %s\n' \
				"$name" "$cases" "${why:-no reason given}"
		else
			pass=$((pass + 1))
			printf 'PASS  asan/%-36s %6d ms (case %s skipped: %s)\n' "$name" "$ms" "$cases" \
				"${why:-no reason given}"
		fi
	else
		fail=$((fail + 1))
		printf 'FAIL  asan/%-36s (exit %d, log %s)\n' "$name" "$rc" "$log"
		grep -E -A 12 '==[0-9]+==ERROR|runtime error:' "$log" | head -n 40 | sed 's/^/      | /'
		tail -n 5 "$log" | sed 's/^/      | /'
	fi
done
echo "sanitize: $pass passed, $fail failed (ASan + UBSan + LeakSanitizer)"
[ $((pass + fail)) -gt 0 ] || { echo "sanitize: no unit binaries in $build/tests" >&2; exit 1; }
[ $fail -eq 0 ]
