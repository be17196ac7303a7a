#!/bin/bash
# The CLI's commands under valgrind memcheck: zero memory errors and zero definite or
# indirect leaks on every path, the error paths included (bad profile, injected kernel
# failure with undo, no daemon). Each command must still exit with its own code. (Each
# run costs about a second of CPU; the list is what covers distinct code, not every
# spelling of it, so the test fits the runner's time limit on a busy machine.)
. "$(dirname "$0")/../lib.sh"
command -v valgrind >/dev/null || t_skip "valgrind not installed"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 4000\ntso = off\ngro = on\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/four.conf"
printf '[knobs]\nmtu = 1400\nnosuch_knob = 1\n' >"$RTLTUNE_PROFILE_PATH/broken.conf"
VG_ERR=99 # valgrind's exit code on an error or leak: no rtltune command exits 99
# libbpf zeroes union bpf_attr only up to the last field a command uses, and valgrind's
# bpf() wrapper checks a few fields past that; bpf_map_get_next_key(fd, NULL, ...) asks for
# the first key, which valgrind takes for a NULL pointer. Both concern libbpf's own frames
# (fun:syscall called from libbpf), never rtltune's memory. Valgrind matches a Param name
# exactly, hence one entry per field.
for f in expected_attach_type prog_ifindex flags; do
	printf '{\n libbpf-attr-%s\n Memcheck:Param\n bpf(attr->%s)\n fun:syscall\n obj:*/libbpf.so*\n}\n' "$f" "$f"
	printf '{\n libbpf-attr-%s-named\n Memcheck:Param\n bpf(attr->%s)\n fun:syscall\n fun:bpf_*\n}\n' "$f" "$f"
done >"$T_TMP/libbpf.supp"
printf '{\n libbpf-first-key\n Memcheck:Param\n bpf(attr->key)\n fun:syscall\n fun:bpf_map_get_next_key\n}\n' >>"$T_TMP/libbpf.supp"
runs=0 errors=0

# vg EXPECTED_RC ARGS...: one rtltune command inside the namespace under memcheck.
vg() {
	local want=$1 rc=0 log
	shift
	runs=$((runs + 1))
	log=$T_TMP/vg.$runs.log
	ip netns exec "$ns" valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=$VG_ERR \
		--suppressions="$T_TMP/libbpf.supp" --log-file="$log" \
		"$RTLTUNE" "$@" >"$T_TMP/out" 2>&1 || rc=$?
	# valgrind warns about bpf() commands it does not model (no memory effect to track),
	# and about what it has no wrapper for: fsopen/fsconfig/fsmount (430-432: a veth's
	# peer in another namespace gets a sysfs of its own, lib/netdev/netns.c) and the nsfs
	# ioctls (0xb7NN: NS_GET_NSTYPE and the like). Those run as they would (valgrind
	# passes the ioctl through; the fs calls get ENOSYS, under valgrind only);
	# what remains in the log is memcheck's.
	sed -i -e '/WARNING: unhandled eBPF command/d' \
		-e '/WARNING: unhandled amd64-linux syscall: 43[012]$/,/bug_reports.html/d' \
		-e '/noted but unhandled ioctl 0xb7[0-9a-f][0-9a-f] /,/spurious value errors/d' \
		-e '/See README_MISSING_SYSCALL_OR_IOCTL/d' "$log"
	if [ $rc -eq $VG_ERR ] || [ -s "$log" ]; then
		errors=$((errors + 1))
		awk 'NR <= 60 { print "    " $0 }' "$log"
		t_fail "valgrind found errors or leaks in: rtltune $*"
	fi
	[ "$rc" -eq "$want" ] || { cat "$T_TMP/out"; t_fail "rtltune $*: exit $rc, expected $want"; }
	echo "ok: rtltune $* (exit $rc, no errors, no leaks)"
}

before=$(t_link_state "$ns" v0)
vg 0 show
vg 0 --json show
vg 0 chips
vg 0 chips v0
vg 0 profiles
vg 0 profile show throughput
vg 0 apply four v0 --dry-run
vg 0 --json apply throughput v0 --dry-run
t_eq "$(t_link_state "$ns" v0)" "$before" "dry runs changed nothing"
vg 0 apply four v0
vg 0 verify four v0
vg 1 verify powersave v0
vg 0 restore v0
t_eq "$(t_link_state "$ns" v0)" "$before" "state after apply + restore"
vg 0 restore v0

# Error paths: where a forgotten free() hides.
vg 2 apply broken v0
vg 2 show nosuch0
RTLTUNE_TEST_FAULT=apply_knob_3=EIO vg 3 apply four v0
t_eq "$(t_link_state "$ns" v0)" "$before" "state after the failed (undone) apply"
RTLTUNE_SOCKET=$T_TMP/no.sock vg 3 status

# The probes: load, attach, count one second, detach.
vg 0 trace v0 --seconds 1

# The daemon's clients: every read command parsing a real daemon's replies.
if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
	d_start "$nsb" --config "$T_TMP/rtltuned.conf" --interfaces 'v*' --no-autotune
	d_wait_samples 1
	export RTLTUNE_SOCKET=$D_SOCK
	vg 0 --json status
	vg 0 stats
	vg 0 hist v1 tx_skb_bytes
	vg 0 log
	vg 0 recommend
	unset RTLTUNE_SOCKET
fi

t_eq "$errors" 0 "commands with valgrind errors or leaks"
echo "valgrind: $runs commands, $errors with errors or leaks"
