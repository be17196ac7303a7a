#!/bin/bash
# Test runner for `make check`: every cmocka unit binary given on the command line, then
# every tests/integration/*.sh (each in its own process, with a time limit). Ends with the
# summary line "N passed, N failed, N skipped". Exit status 1 when anything failed.
# Run a subset: TESTS='show_*' tests/run.sh; several patterns: TESTS='show_* ethnl_*'
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0 failed=()
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

run_one() { # name, command...
	local name=$1 rc start
	shift
	start=$(date +%s.%N)
	local log="$logdir/${name//\//_}.log"
	"$@" >"$log" 2>&1
	rc=$?
	local secs
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo 0)")
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %6ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   printf 'FAIL  %-40s (exit %d, log %s)\n' "$name" "$rc" "$log"
	   sed -e 's/^/      | /' "$log" | tail -n 25 ;;
	esac
}

for bin in "$@"; do
	name=unit/$(basename "$bin")
	selected "$(basename "$bin")" || continue
	run_one "$name" "$bin"
done

# Integration tests need root, network namespaces and BPF. Where the machine refuses them
# (no root, a container without the capabilities) each test is listed as skipped with the
# one-line reason scripts/preflight.sh gives, rather than failing one by one.
refused=unchecked
for t in tests/integration/*.sh; do
	[ -e "$t" ] || continue
	base=$(basename "$t" .sh)
	selected "$base" || continue
	if [ "$refused" = unchecked ]; then
		preflight=(scripts/preflight.sh)
		[ -x "${RTLTUNE:-build/rtltune}" ] && preflight+=(--rtltune "${RTLTUNE:-build/rtltune}")
		refused=$("${preflight[@]}") || true
		# The details (errno text, capabilities) once; each test's line says what, not why.
		why=$refused
		while [[ $refused == "this system refuses"*\(*\)* ]]; do
			refused=$(sed 's/ *([^()]*)//g' <<<"$refused")
		done
		[ "$why" = "$refused" ] || echo "integration tests: $why"
	fi
	if [ -n "$refused" ]; then
		skip=$((skip + 1))
		printf 'SKIP  %-40s %s\n' "integration/$base" "$refused"
		continue
	fi
	run_one "integration/$base" timeout --kill-after=10 "${TEST_TIMEOUT:-300}" bash "$t"
done

[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
