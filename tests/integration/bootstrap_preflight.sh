#!/bin/bash
# The quick start (./bootstrap, scripts/demo.sh, tests/run.sh) says in one line what the
# machine refuses and stops before building anything: as a user with the packages missing or
# present, as root without a container's capabilities, as root in a user namespace. With full
# root, scripts/preflight.sh passes silently and leaves no namespace behind; where the kernel
# refuses its BPF program behind the capability bits (a seccomp filter, as strace injects
# it here), preflight says so in the kernel's words. Packages are "missing" through a stub
# dpkg-query: nothing here installs or removes any.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
command -v setpriv >/dev/null || t_skip "setpriv (util-linux) not installed"
getent group nogroup >/dev/null || t_skip "no group 'nogroup'"
BPF_TRY=$TOP/build/tests/tools/bpf_try
[ -x "$BPF_TRY" ] || t_fail "$BPF_TRY not built (make check builds tests/tools/*)"

# A copy of the source tree as a release tarball has it (no build/, no .git), owned by nobody.
tree=$T_TMP/tree
mkdir -p "$tree" "$T_TMP/bin" "$T_TMP/logs-user" "$T_TMP/logs-caps"
chown nobody:nogroup "$T_TMP/logs-user"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
chown -R nobody:nogroup "$tree"
chmod 755 "$T_TMP"
# dpkg-query -W -f='${Status}' PKG: installed unless PKG is in STUB_MISSING.
cat >"$T_TMP/bin/dpkg-query" <<'EOF'
#!/bin/sh
for pkg; do :; done
case " ${STUB_MISSING:-} " in *" $pkg "*) exit 1 ;; esac
printf 'install ok installed'
EOF
chmod 755 "$T_TMP/bin/dpkg-query"
stub=(env "PATH=$T_TMP/bin:$PATH")
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
no_caps=(setpriv --bounding-set -sys_admin,-net_admin,-bpf,-perfmon)

# says RC WHAT CMD...: CMD exits RC with exactly one line of output (stdout and stderr); the
# line is left in $said.
says() {
	local want=$1 what=$2 rc=0
	shift 2
	(cd "$tree" && "$@") >"$T_TMP/out" 2>&1 || rc=$?
	sed 's/^/#   | /' "$T_TMP/out"
	t_eq "$rc" "$want" "$what: exit status"
	t_eq "$(wc -l <"$T_TMP/out")" 1 "$what: lines said"
	said=$(cat "$T_TMP/out")
}
contains() { # TEXT WHAT: $said contains TEXT
	[[ $said == *"$1"* ]] || t_fail "$2: '$said' lacks '$1'"
	echo "ok: $2"
}
no_leftovers() {
	t_eq "$(ip netns list | grep -c '^rtltune-preflight-' || true)" 0 "preflight namespaces left ($1)"
	[ ! -e "$tree/build" ] || t_fail "$1: something was built"
}

# Full root: nothing to say.
out=$(scripts/preflight.sh --bpf-try "$BPF_TRY") || t_fail "preflight refused full root: $out"
t_eq "$out" "" "preflight's output as full root"
no_leftovers "full root"

# Full root, every bpf() call refused with EPERM (what a seccomp filter does): preflight's
# own program is refused, and the line gives each hook's attempt in the kernel's words.
if command -v strace >/dev/null; then
	says 1 "bpf() refused, preflight" strace -f -qq -o /dev/null -e trace=bpf \
		-e inject=bpf:error=EPERM scripts/preflight.sh --bpf-try "$BPF_TRY"
	t_eq "$said" "this system refuses BPF (a tracing program on net_dev_start_xmit: tp_btf load: Operation not permitted; raw_tp load: Operation not permitted)" \
		"bpf() refused: preflight's line"
	no_leftovers "bpf() refused"
else
	t_unchecked "bpf() refused behind the capability bits (strace not installed)"
fi

# The package list: --missing names exactly the missing ones, in the list's order.
t_eq "$(STUB_MISSING="jq make" "${stub[@]}" bash scripts/deps.sh --missing demo | paste -s -d ' ')" \
	"make jq" "deps.sh --missing demo, make and jq missing"
t_eq "$(STUB_MISSING="valgrind" "${stub[@]}" bash scripts/deps.sh --missing build | wc -l)" 0 \
	"deps.sh --missing build, only a test package missing"
says 2 "deps.sh with an unknown group" bash scripts/deps.sh frob
contains "usage: scripts/deps.sh" "deps.sh names its usage"
says 2 "bootstrap with no target" sh ./bootstrap
contains "usage: sh ./bootstrap demo|check|build|deps" "bootstrap names its usage"

# A user, packages missing: what root is needed for, and the command to run.
says 2 "user, bootstrap demo, 2 packages missing" \
	env STUB_MISSING="make iperf3" "${stub[@]}" "${as_nobody[@]}" sh ./bootstrap demo
contains "needs root to install 2 Debian packages with apt-get (make, iperf3," "names the packages"
contains "the demo needs root for network namespaces and BPF: run sudo sh ./bootstrap demo" \
	"says what the demo needs root for"
says 2 "user, bootstrap check, 5 packages missing" \
	env STUB_MISSING="make gcc clang llvm wrk" "${stub[@]}" "${as_nobody[@]}" sh ./bootstrap check
contains "install 5 Debian packages with apt-get (make, gcc, clang and 2 more," "counts the rest"
contains "run sudo sh ./bootstrap check" "gives the command"
no_leftovers "user, packages missing"

# A user, packages present: the demo needs root, said before any build.
says 2 "user, bootstrap demo, packages present" "${stub[@]}" "${as_nobody[@]}" sh ./bootstrap demo
t_eq "$said" "bootstrap: the demo needs root (network namespaces, veth links, BPF): run sudo sh ./bootstrap demo" \
	"user, bootstrap demo"
says 2 "user, scripts/demo.sh" "${as_nobody[@]}" scripts/demo.sh
contains "demo: needs root (network namespaces, veth links, BPF)" "demo.sh says it needs root"
no_leftovers "user, packages present"
mkdir "$tree/build"
says 2 "user, bootstrap check, build/ made by root" "${stub[@]}" "${as_nobody[@]}" sh ./bootstrap check
contains "$tree/build is not writable by nobody" "names the directory"
rmdir "$tree/build"
(cd "$tree" && TESTS=show_matches_ip TEST_LOGDIR=$T_TMP/logs-user "${as_nobody[@]}" env -u CI bash tests/run.sh) >"$T_TMP/run" 2>&1 ||
	t_fail "tests/run.sh as a user: $(cat "$T_TMP/run")"
t_eq "$(grep -c '^SKIP  integration/show_matches_ip  *needs root (network namespaces, veth links, BPF)$' "$T_TMP/run")" \
	1 "tests/run.sh as a user: the skip and its reason"
t_eq "$(tail -n 1 "$T_TMP/run")" "0 passed, 0 failed, 1 skipped" "tests/run.sh as a user: summary"

# Root without CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_BPF, CAP_PERFMON (a container's default).
says 1 "root without the capabilities, preflight" "${no_caps[@]}" scripts/preflight.sh --bpf-try "$BPF_TRY"
contains "this system refuses network namespaces (ip netns add: " "netns tried and refused"
contains "this process lacks CAP_SYS_ADMIN and CAP_NET_ADMIN" "names the namespace capabilities"
contains "BPF (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN; this process lacks CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)" \
	"names the BPF capabilities"
says 2 "root without the capabilities, bootstrap demo" "${stub[@]}" "${no_caps[@]}" sh ./bootstrap demo
contains "bootstrap: the demo cannot run here: this system refuses network namespaces (" "bootstrap says it"
says 2 "root without the capabilities, scripts/demo.sh" "${no_caps[@]}" scripts/demo.sh
contains "demo: this system refuses network namespaces (" "demo.sh says it"
no_leftovers "root without the capabilities"
(cd "$tree" && TESTS=show_matches_ip TEST_LOGDIR=$T_TMP/logs-caps "${no_caps[@]}" env -u CI bash tests/run.sh) >"$T_TMP/run" 2>&1 ||
	t_fail "tests/run.sh without the capabilities: $(cat "$T_TMP/run")"
t_eq "$(grep -c '^integration tests: this system refuses network namespaces (.*CAP_SYS_ADMIN' "$T_TMP/run")" 1 \
	"tests/run.sh without the capabilities: the reason, once"
t_eq "$(grep -c '^SKIP  integration/show_matches_ip  *this system refuses network namespaces and BPF$' "$T_TMP/run")" \
	1 "tests/run.sh without the capabilities: the skip"
t_eq "$(tail -n 1 "$T_TMP/run")" "0 passed, 0 failed, 1 skipped" "tests/run.sh without the capabilities: summary"

# Root without CAP_NET_ADMIN only: the namespace is made, the veth pair is refused.
says 1 "root without CAP_NET_ADMIN, preflight" setpriv --bounding-set -net_admin \
	scripts/preflight.sh --bpf-try "$BPF_TRY"
contains "this system refuses network namespaces (a veth pair in a namespace: " "the veth pair tried"
contains "; this process lacks CAP_NET_ADMIN)" "names CAP_NET_ADMIN"
[[ $said != *BPF* ]] || t_fail "root without CAP_NET_ADMIN: BPF is not refused there: $said"
no_leftovers "root without CAP_NET_ADMIN"

# Root in a user namespace (a rootless or unprivileged container): BPF is refused there.
# (t_userns: unshare -Urm, also from a chroot, where the kernel refuses it to the chrooted.)
if t_userns true; then
	says 1 "root in a user namespace, preflight" t_userns scripts/preflight.sh --bpf-try "$BPF_TRY"
	contains "BPF (this is a user namespace: BPF needs CAP_BPF in the initial one)" "says why BPF is refused"
	no_leftovers "root in a user namespace"
else
	t_unchecked "root in a user namespace (unshare -Urm refused here)"
fi
