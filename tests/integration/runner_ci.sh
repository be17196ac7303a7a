#!/bin/bash
# tests/run.sh cannot go green on skips under CI=true: on a copy of the runner with fake
# tests (one passes, one skips with exit 77) and a fake unit binary whose cmocka case
# skips, every skip is a failure naming the test and its reason, and so is every
# integration test when the machine refuses BPF (bpf() failing with EPERM through strace,
# as a seccomp filter would) or when preflight's BPF program is not built, and a selection
# that runs nothing. Without CI=true the same runs pass with the skips listed. Preflight
# never runs the product: with RTLTUNE pointing at a program that always fails, the
# integration tests still run.
. "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || t_skip "strace not installed"
BPF_TRY=$TOP/build/tests/tools/bpf_try
[ -x "$BPF_TRY" ] || t_fail "$BPF_TRY not built (make check builds tests/tools/*)"

tree=$T_TMP/tree
mkdir -p "$tree/tests/integration" "$tree/scripts" "$tree/build/tests/tools"
cp "$TOP/tests/run.sh" "$tree/tests/"
cp "$TOP/scripts/preflight.sh" "$tree/scripts/"
cp "$BPF_TRY" "$tree/build/tests/tools/"
printf '#!/bin/bash\necho "ok: nothing to do"\n' >"$tree/tests/integration/fake_pass.sh"
printf '#!/bin/bash\necho "skipped: no widget here"\nexit 77\n' >"$tree/tests/integration/fake_skip.sh"
# What a cmocka binary prints when a case calls skip(), exit status 0.
cat >"$tree/build/tests/test_fake" <<'EOF'
#!/bin/bash
echo '[==========] Running 2 test(s).'
echo '[ RUN      ] test_widget'
echo 'skipped: no widget device' >&2
echo '[  SKIPPED ] test_widget'
echo '[ RUN      ] test_other'
echo '[       OK ] test_other'
echo '[==========] 2 test(s) run.'
echo '[  PASSED  ] 1 test(s).' >&2
echo '[  SKIPPED ] 1 test(s), listed below:' >&2
echo '[  SKIPPED ] test_widget' >&2
EOF
chmod +x "$tree/build/tests/test_fake" "$tree/tests/integration/"*.sh

# run NAME [ENV...] [-- WRAPPER...]: the copied runner on the fakes; its output in $T_TMP/NAME,
# its exit status in $rc.
run() {
	local name=$1 envs=() wrap=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ "${1:-}" = -- ] && { shift; wrap=("$@"); }
	rc=0
	(cd "$tree" && "${wrap[@]}" env -u CI -u TESTS -u BUILD "${envs[@]}" TEST_LOGDIR="$T_TMP/logs-$name" \
		RTLTUNE=/bin/false bash tests/run.sh build/tests/test_fake) >"$T_TMP/$name" 2>&1 || rc=$?
	sed "s/^/#   $name | /" "$T_TMP/$name"
}
has() { # NAME LINE-REGEX WHAT: the run's output has exactly one line matching
	t_eq "$(grep -cE "$2" "$T_TMP/$1")" 1 "$1: $3"
}

# Outside CI: the skips are skips, the run passes.
run plain
t_eq "$rc" 0 "plain: exit status"
has plain '^PASS  integration/fake_pass ' "the passing test ran (RTLTUNE=/bin/false is not asked)"
has plain '^SKIP  integration/fake_skip  +skipped: no widget here$' "the skip and its reason"
has plain '^PASS  unit/test_fake .*\(case test_widget skipped: no widget device\)$' \
	"the unit binary passes, its skipped case named"
t_eq "$(tail -n 1 "$T_TMP/plain")" "2 passed, 0 failed, 1 skipped" "plain: summary"

# CI=true: each skip fails the run, named with its reason.
run ci CI=true
t_eq "$rc" 1 "ci: exit status"
has ci '^PASS  integration/fake_pass ' "the passing test still passes"
has ci '^FAIL  integration/fake_skip  +skipped, and CI=true allows no skip: no widget here$' \
	"the skipped test fails, with its reason"
has ci '^FAIL  unit/test_fake  +skipped, and CI=true allows no skip: case test_widget: no widget device ' \
	"the unit binary with a skipped case fails, with its reason"
has ci '^failed: unit/test_fake integration/fake_skip$' "the failures listed"
t_eq "$(tail -n 1 "$T_TMP/ci")" "1 passed, 2 failed, 0 skipped" "ci: summary"

# The machine refuses BPF behind the capability bits: preflight's own program is refused.
refuse_bpf=(strace -f -qq -o /dev/null -e trace=bpf -e inject=bpf:error=EPERM)
run refused TESTS='fake_*' -- "${refuse_bpf[@]}"
t_eq "$rc" 0 "refused: exit status"
has refused '^integration tests: this system refuses BPF \(a tracing program on net_dev_start_xmit: tp_btf load: Operation not permitted; raw_tp load: Operation not permitted\)$' \
	"the system's reason, once"
has refused '^SKIP  integration/fake_pass  +this system refuses BPF$' "the test is skipped"
t_eq "$(tail -n 1 "$T_TMP/refused")" "0 passed, 0 failed, 2 skipped" "refused: summary"
run ci-refused CI=true TESTS='fake_*' -- "${refuse_bpf[@]}"
t_eq "$rc" 1 "ci-refused: exit status"
has ci-refused '^FAIL  integration/fake_pass  +skipped, and CI=true allows no skip: this system refuses BPF$' \
	"the preflight refusal fails each test"
t_eq "$(tail -n 1 "$T_TMP/ci-refused")" "0 passed, 2 failed, 0 skipped" "ci-refused: summary"

# Preflight's program not built: BPF untried is no pass under CI.
mv "$tree/build/tests/tools/bpf_try" "$T_TMP/"
run untried TESTS=fake_pass
t_eq "$rc" 0 "untried: exit status"
has untried '^integration tests: BPF not tried for real \(build/tests/tools/bpf_try not built' "says so"
has untried '^PASS  integration/fake_pass ' "the test runs"
run ci-untried CI=true TESTS=fake_pass
t_eq "$rc" 1 "ci-untried: exit status"
has ci-untried '^FAIL  integration/fake_pass  +skipped, and CI=true allows no skip: BPF not tried: build/tests/tools/bpf_try not built' \
	"the test fails, saying why"
mv "$T_TMP/bpf_try" "$tree/build/tests/tools/"

# A selection that runs nothing.
run ci-none CI=true TESTS=no_such_test
t_eq "$rc" 1 "ci-none: exit status"
has ci-none "^FAIL  no test ran \(TESTS='no_such_test'\), and CI=true wants some$" "says so"
