#!/bin/bash
# Test runner for `make check`: every cmocka unit binary given on the command line, then
# every tests/integration/*.sh (each in its own process, with a time limit). Ends with the
# summary line "N passed, N failed, N skipped". Exit status 1 when anything failed.
# Run a subset: TESTS='show_*' tests/run.sh; several patterns: TESTS='show_* ethnl_*'
# Under CI=true (CI services set it, and .ci/run) nothing may be skipped: a test that skips
# (exit 77), a unit test with a skipped case, the integration tests a refusing machine
# would skip, and a selection that runs nothing each fail the run, named with the reason.
# Elsewhere a skip stays a skip.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0 failed=()
ci=false
[ "${CI:-}" = true ] && ci=true
build=${BUILD:-build}
logdir=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
# read, unlike an unquoted expansion, leaves the globs unexpanded against the cwd.
read -r -a patterns <<<"${TESTS:-*}"
selected() {
	local p
	# shellcheck disable=SC2053
	for p in "${patterns[@]}"; do [[ $1 == $p ]] && return 0; done
	return 1
}

# skipped NAME REASON: a skip; under CI=true a failure that says it was one.
skipped() {
	if $ci; then
		fail=$((fail + 1))
		failed+=("$1")
		printf 'FAIL  %-40s skipped, and CI=true allows no skip: %s\n' "$1" "${2#skipped: }"
	else
		skip=$((skip + 1))
		printf 'SKIP  %-40s %s\n' "$1" "$2"
	fi
}

run_one() { # name, command...
	local name=$1 rc start cases why
	shift
	start=$(date +%s.%N)
	local log="$logdir/${name//\//_}.log"
	"$@" >"$log" 2>&1
	rc=$?
	local secs
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo 0)")
	# cmocka reports a skipped case ("[  SKIPPED ] NAME") and still exits 0; a test that
	# skips says why on a "skipped: " line (tests/lib.sh t_skip, the unit tests alike).
	cases=$(sed -n 's/^\[  SKIPPED \] \([^ ]*\)$/\1/p' "$log" | sort -u | paste -sd ' ')
	why=$(sed -n 's/^skipped: //p' "$log" | tail -n 1)
	case $rc in
	0)
		if [ -z "$cases" ]; then
			pass=$((pass + 1))
			printf 'PASS  %-40s %6ss\n' "$name" "$secs"
		elif $ci; then
			skipped "$name" "case $cases: ${why:-no reason given} (log $log)"
		else
			pass=$((pass + 1))
			printf 'PASS  %-40s %6ss (case %s skipped: %s)\n' "$name" "$secs" "$cases" \
				"${why:-no reason given}"
		fi
		;;
	77) skipped "$name" "$(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   # One write: a test in the other lane (below) prints between lines otherwise.
	   printf 'FAIL  %-40s (exit %d, log %s)\n%s\n' "$name" "$rc" "$log" \
		"$(sed -e 's/^/      | /' "$log" | tail -n 25)" ;;
	esac
}

for bin in "$@"; do
	name=unit/$(basename "$bin")
	selected "$(basename "$bin")" || continue
	run_one "$name" "$bin"
done

# Integration tests need root, network namespaces and BPF. Where the machine refuses them
# (no root, a container without the capabilities) each test is listed as skipped with the
# one-line reason scripts/preflight.sh gives, rather than failing one by one. BPF is tried
# with a program of preflight's own (tests/tools/bpf_try), never with the product: a broken
# `rtltune trace` must fail its tests, not pass for a machine that refuses BPF.
integration=()
for t in tests/integration/*.sh; do
	[ -e "$t" ] || continue
	selected "$(basename "$t" .sh)" && integration+=("$t")
done
refused=
if [ ${#integration[@]} -gt 0 ]; then
	preflight=(scripts/preflight.sh)
	bpf_try=$build/tests/tools/bpf_try
	if [ -x "$bpf_try" ]; then
		preflight+=(--bpf-try "$bpf_try")
	elif $ci; then
		preflight=(echo "BPF not tried: $bpf_try not built (make check builds it)")
	else
		echo "integration tests: BPF not tried for real ($bpf_try not built; make check builds it)"
	fi
	refused=$("${preflight[@]}") || true
	# The details (errno text, capabilities) once; each test's line says what, not why.
	why=$refused
	while [[ $refused == "this system refuses"*\(*\)* ]]; do
		refused=$(sed 's/ *([^()]*)//g' <<<"$refused")
	done
	[ "$why" = "$refused" ] || echo "integration tests: $why"
fi

run_integration() { # test files, one after the other
	local t
	for t in "$@"; do
		if [ -n "$refused" ]; then
			skipped "integration/$(basename "$t" .sh)" "$refused"
			continue
		fi
		run_one "integration/$(basename "$t" .sh)" \
			timeout --kill-after=10 "${TEST_TIMEOUT:-300}" bash "$t"
	done
}

# Two lanes. A test whose head says "# t-lane: beside" mostly waits (a boot, a daemon's
# events, file checks: no traffic it measures, no timing it judges) and runs in a second
# lane beside the others, which run one at a time as before. Tests are independent by
# construction (tests/lib.sh: their own namespaces, state directory and sockets; the
# probes count by namespace and ifindex). "# t-lane: beside-first" starts that lane (the
# longest wait, so that the lane ends before the other). TEST_LANES=1: one lane.
main=() beside=()
for t in "${integration[@]}"; do
	lane=$(head -n 20 "$t" | sed -n 's/^# t-lane: \(beside\(-first\)\{0,1\}\)$/\1/p')
	[ "${TEST_LANES:-2}" != 1 ] || lane=
	if [ "$lane" = beside-first ]; then
		beside=("$t" ${beside[@]+"${beside[@]}"})
	elif [ "$lane" = beside ]; then
		beside+=("$t")
	else
		main+=("$t")
	fi
done
lane_out=
if [ ${#beside[@]} -gt 0 ] && [ ${#main[@]} -gt 0 ]; then
	lane_out=$(mktemp /tmp/rtltune-lane.XXXXXX)
	(
		pass=0 fail=0 skip=0 failed=()
		run_integration "${beside[@]}"
		echo "$pass $fail $skip ${failed[*]}" >"$lane_out"
	) &
	lane_pid=$!
	run_integration "${main[@]}"
	wait "$lane_pid"
	read -r lp lf ls lfailed <"$lane_out" || { lp=0 lf=1 ls=0 lfailed="(the beside lane)"; }
	rm -f "$lane_out"
	pass=$((pass + lp)) fail=$((fail + lf)) skip=$((skip + ls))
	# shellcheck disable=SC2206
	[ -z "$lfailed" ] || failed+=($lfailed)
else
	run_integration "${beside[@]}" "${main[@]}"
fi

if $ci && [ $((pass + fail + skip)) -eq 0 ]; then
	fail=1
	failed+=("(none)")
	echo "FAIL  no test ran (TESTS='${TESTS:-*}'), and CI=true wants some"
fi
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
