#!/bin/bash
# t-lane: beside
# Exposure: no shell-outs and the right owners and modes.
#  - No system/popen/exec*/posix_spawn/wordexp in lib/, cli/, daemon/ sources, none among
#    the binaries' imported symbols, and no execve at run time (strace) for show, apply,
#    restore, trace and a whole rtltuned run (start, hotplug apply, requests, SIGTERM).
#    fork() appears once: rtltuned's daemonising (no exec follows it).
#  - State: dir 0750, journal/log/lock 0640, all root, whatever the umask (000 included).
#  - Control socket 0660 root:socket_group, created 0600 and never briefly wider.
#  - Symlinks planted in the state dir (journal, journal.tmp, log, lock) are refused or
#    replaced, never written through: the file they point at stays as it was.
. "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || t_skip "strace not installed"

t_log "no shell-outs in the sources"
forbidden='(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|execveat|fexecve|posix_spawn|posix_spawnp|wordexp)'
# grep exits 1 for no hit, 2 for a file it could not read (a glob that matched nothing).
hits=$(cd "$TOP" && { grep -nwE "$forbidden\\s*\\(" lib/*/*.c lib/*/*.h cli/*.c daemon/*.c \
	include/rtltune/*.h cli/*.h daemon/*.h; [ $? -le 1 ]; }) || t_fail "grep of the sources failed"
[ -z "$hits" ] || echo "$hits"
t_eq "$(echo -n "$hits" | grep -c . || true)" 0 "calls of $forbidden in lib/ cli/ daemon/"
forks=$(cd "$TOP" && grep -nwE '(fork|vfork|clone)\s*\(' lib/*/*.c cli/*.c daemon/*.c | cut -d: -f1 | sort -u | tr '\n' ' ')
t_eq "$forks" "$( [ -d "$TOP/daemon" ] && echo 'daemon/main.c ' )" "files calling fork (only rtltuned's detach)"

t_log "no shell-outs among the binaries' imports"
for b in "$RTLTUNE" "$RTLTUNED"; do
	[ -x "$b" ] || continue
	imports=$(nm -D --undefined-only "$b" | awk '{ print $2 }' | sed 's/@.*//' |
		grep -xE 'system|popen|exec[lv]p?e?|execve(at)?|fexecve|posix_spawnp?|wordexp' | tr '\n' ' ' || true)
	t_eq "$imports" "" "exec-family imports of ${b##*/}"
done

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 4000\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/sf.conf"
before=$(t_link_state "$ns" v0)

t_log "no execve at run time"
execs() { # strace log -> execve/execveat calls after the first (strace's own exec of the program)
	grep -cE 'execve(at)?\(' "$1" | awk '{ print $1 - 1 }'
}
for cmd in "show" "apply sf v0" "restore v0" "trace v0 --seconds 1"; do
	# shellcheck disable=SC2086
	ip netns exec "$ns" strace -f -qq -e trace=execve,execveat -o "$T_TMP/strace" "$RTLTUNE" $cmd >/dev/null
	t_eq "$(execs "$T_TMP/strace")" 0 "execve calls of rtltune $cmd"
done
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 after apply + restore under strace"

t_log "state files: owners and modes under umask 000"
rm -rf "$RTLTUNE_STATE_DIR"
(umask 000 && t_rtl "$ns" apply sf v0 >/dev/null)
modes=$(cd "$RTLTUNE_STATE_DIR" && stat -c '%n %a %U:%G' . journal log lock | tr '\n' ';')
t_eq "$modes" ". 750 root:root;journal 640 root:root;log 640 root:root;lock 640 root:root;" \
	"state dir and files created under umask 000"
t_rtl "$ns" restore v0 >/dev/null

t_log "symlinks planted in the state dir"
victim=$T_TMP/victim
for name in journal.tmp log lock journal; do
	echo "precious $name" >"$victim"
	chmod 0604 "$victim"
	cp -a "$RTLTUNE_STATE_DIR/$name" "$T_TMP/saved" 2>/dev/null || rm -f "$T_TMP/saved"
	rm -f "$RTLTUNE_STATE_DIR/$name"
	ln -s "$victim" "$RTLTUNE_STATE_DIR/$name"
	rc=0
	out=$(t_rtl "$ns" apply sf v0 2>&1) || rc=$?
	t_eq "$(cat "$victim")" "precious $name" "file behind a planted $name symlink untouched"
	t_eq "$(stat -c '%a %U' "$victim")" "604 root" "its mode and owner untouched"
	echo "# planted $name: apply exit $rc${out:+: $(echo "$out" | tail -n 1)}"
	case $rc in 0 | 2 | 3) ;; *) t_fail "apply with a planted $name symlink: exit $rc" ;; esac
	t_rtl "$ns" restore v0 >/dev/null 2>&1 || true
	rm -f "$RTLTUNE_STATE_DIR/$name"
	[ -e "$T_TMP/saved" ] && mv "$T_TMP/saved" "$RTLTUNE_STATE_DIR/$name"
	t_rtl "$ns" restore v0 >/dev/null
	t_eq "$(t_link_state "$ns" v0)" "$before" "v0 restored after the $name symlink"
done

if [ -x "$RTLTUNED" ] && getent group nogroup >/dev/null; then
	. "$TOP/tests/daemon-lib.sh"
	t_log "rtltuned: socket mode, state files, no execve over a whole run"
	rm -rf "$D_STATE"
	D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
	printf '[daemon]\nsocket_group = nogroup\nsample_interval = 200ms\nprofile = sf\n' >"$T_TMP/rtltuned.conf"
	real=$RTLTUNED
	printf '#!/bin/sh\numask 000\nexec strace -f -qq -e trace=execve,execveat -o %s %s "$@"\n' \
		"$T_TMP/strace-d" "$real" >"$T_TMP/rtltuned-strace"
	chmod +x "$T_TMP/rtltuned-strace"
	RTLTUNED=$T_TMP/rtltuned-strace
	d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces 'v0,hp*' --no-autotune
	t_eq "$(stat -c '%a %U:%G %F' "$D_SOCK")" "660 root:nogroup socket" "control socket (daemon under umask 000)"
	ip -n "$ns" link add hp0 type veth peer name hp1
	for ((i = 0; i < 100; i++)); do
		[ "$(t_ip_attr "$ns" hp0 gso_max_size)" = 32768 ] && break
		sleep 0.05
	done
	t_eq "$(t_ip_attr "$ns" hp0 gso_max_size)" 32768 "rtltuned applied its profile to a new veth"
	d_rtl --json status >/dev/null
	d_rtl --json stats >/dev/null
	d_rtl --json recommend >/dev/null
	modes=$(cd "$D_STATE" && stat -c '%n %a %U:%G' . journal log lock | tr '\n' ';')
	t_eq "$modes" ". 750 root:root;journal 640 root:root;log 640 root:root;lock 640 root:root;" \
		"rtltuned's state dir and files under umask 000"
	# D_PID is strace: SIGTERM goes to rtltuned itself, strace ends with it.
	kill -TERM "$(pgrep -P "$D_PID")"
	rc=0
	wait "$D_PID" || rc=$?
	t_eq "$rc" 0 "rtltuned clean exit"
	RTLTUNED=$real
	t_eq "$(execs "$T_TMP/strace-d")" 0 "execve calls over the rtltuned run"
fi
