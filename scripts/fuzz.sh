#!/bin/bash
# libFuzzer driver for the targets in tests/fuzz/ (docs/security.md "Fuzzing").
#   scripts/fuzz.sh run DIR [SECONDS]  fuzz each DIR/fuzz_NAME for SECONDS (default 60),
#                                      starting from tests/fuzz/corpus/NAME; a crash, leak,
#                                      timeout or OOM is copied to tests/fuzz/regressions/NAME/
#                                      and the run fails.
#   scripts/fuzz.sh replay DIR         run every seed and every regression input once
#                                      (make check); fails when any of them fails.
# New inputs the fuzzer finds go to build/fuzz/corpus/NAME, not into the source tree;
# its logs to build/fuzz/logs/.
# FUZZ_TARGETS='profile journal' limits either mode to those names.
set -u
cd "$(dirname "$0")/.."
mode=${1:?usage: fuzz.sh run|replay DIR [SECONDS]}
dir=${2:?usage: fuzz.sh run|replay DIR [SECONDS]}
secs=${3:-60}
work=build/fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
unset RTLTUNE_TEST_FAULT RTLTUNE_TEST_DELAY
failed=() total=0

targets=()
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] && [ "${bin%.d}" = "$bin" ] || continue
	name=${bin##*/fuzz_}
	if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
	targets+=("$name")
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no fuzz_* binaries in $dir (make fuzz-build)" >&2; exit 1; }

fstat() { # log key -> value of "stat::key: N"
	sed -n "s/^stat::$2: *//p" "$1" | tail -n 1
}

run_one() {
	local name=$1 bin=$dir/fuzz_$1 seeds=tests/fuzz/corpus/$1 reg=tests/fuzz/regressions/$1
	local corpus=$work/corpus/$name art=$work/artifacts/$name/ log=$work/logs/$name.log
	local dict=() rc execs f found=0
	mkdir -p "$corpus" "$art" "${log%/*}"
	rm -f "$art"*
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	[ -d "$seeds" ] || seeds=
	# -timeout: a parser taking 10 s on a 4 KiB input is a finding (a hang), like a crash.
	"$bin" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix="$art" \
		"$corpus" $seeds >"$log" 2>&1
	rc=$?
	for f in "$art"*; do
		[ -f "$f" ] || continue
		mkdir -p "$reg"
		cp "$f" "$reg/"
		found=$((found + 1))
		echo "fuzz: $name: finding kept as $reg/${f##*/}"
		# CI throws its tree away: the log carries the input to recreate the file.
		[ "$(stat -c %s "$f")" -le 16384 ] && echo "fuzz: base64 input: $(base64 -w0 "$f")"
	done
	execs=$(fstat "$log" number_of_executed_units)
	total=$((total + ${execs:-0}))
	printf 'fuzz  %-12s %9s execs in %ss (%s/s), corpus %s files, rc %d\n' "$name" \
		"${execs:-?}" "$secs" "$(fstat "$log" average_exec_per_sec)" \
		"$(find "$corpus" -type f | wc -l)" "$rc"
	if [ $rc -ne 0 ] || [ $found -gt 0 ]; then
		failed+=("$name")
		grep -E -m1 -A 25 '==[0-9]+==ERROR|runtime error:|fuzz: |ALARM|out-of-memory' "$log" |
			sed 's/^/      | /'
	fi
}

replay_one() {
	local name=$1 bin=$dir/fuzz_$1 log=$work/logs/$1.replay.log files rc
	mkdir -p "${log%/*}"
	mapfile -t files < <(find "tests/fuzz/corpus/$name" "tests/fuzz/regressions/$name" \
		-type f 2>/dev/null | sort)
	if [ ${#files[@]} -eq 0 ]; then
		echo "fuzz: $name: no seeds or regression inputs" >&2
		failed+=("$name")
		return
	fi
	"$bin" -timeout=10 -rss_limit_mb=2048 "${files[@]}" >"$log" 2>&1
	rc=$?
	total=$((total + ${#files[@]}))
	if [ $rc -eq 0 ]; then
		printf 'PASS  replay/%-28s %4d inputs\n' "$name" "${#files[@]}"
	else
		failed+=("$name")
		printf 'FAIL  replay/%-28s (exit %d, log %s)\n' "$name" "$rc" "$log"
		grep -E -B2 -m1 -A 25 '==[0-9]+==ERROR|runtime error:|fuzz: ' "$log" | sed 's/^/      | /'
	fi
}

for name in "${targets[@]}"; do
	case $mode in
	run) run_one "$name" ;;
	replay) replay_one "$name" ;;
	*) echo "fuzz: unknown mode $mode" >&2; exit 2 ;;
	esac
done
case $mode in
run) echo "fuzz: ${#targets[@]} targets, $total executions, ${#failed[@]} with findings ${failed[*]:-}" ;;
replay) echo "fuzz replay: ${#targets[@]} targets, $total inputs, ${#failed[@]} failed ${failed[*]:-}" ;;
esac
[ ${#failed[@]} -eq 0 ]
