#!/bin/bash
# Acceptance (issue 5): SIGTERM exits 0 with the probes gone, the socket removed and settings
# left as they are (restored with restore_on_exit), before the unit's TimeoutStopSec would
# have systemd kill it; SIGHUP with a broken config or profile keeps the daemon running on
# the old state and logs the error with file:line; a good SIGHUP takes the new settings.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add rtd0 netns "$NS" type veth peer name rtd1 netns "$NS"
CONF=$T_TMP/rtltuned.conf
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
cp "$TOP/profiles/"*.conf "$PROFILES/"
# A profile of our own, so that breaking it breaks nothing else.
cat >"$PROFILES/testgso.conf" <<'EOF'
[profile]
description = test: a small GSO size
[knobs]
gso_max_size = 32768
EOF
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")

my_progs() { # the BPF program ids the daemon's process holds (fds of programs and links)
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -un |
		tr '\n' ' '
}

# --- SIGTERM: settings stay, probes go.
cat >"$CONF" <<'EOF'
[daemon]
profile = testgso
EOF
d_start "$NS" --config "$CONF" --interfaces 'rtd*'
for ((i = 0; i < 100; i++)); do
	[ "$(t_ip_attr "$NS" rtd0 gso_max_size)" = 32768 ] && break
	sleep 0.02
done
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 32768 "profile applied at start"
bpf=$(d_rtl --json status | jq -r .daemon.source)
progs=$(my_progs "$D_PID")
if [ "$bpf" = bpf ]; then
	[ -n "$progs" ] || t_fail "daemon holds no BPF programs although it counts with BPF"
	echo "ok: daemon holds BPF programs: $progs"
else
	t_unchecked "the BPF programs' release: the daemon counts with $bpf"
fi
# The bound is systemd's: TimeoutStopSec of the shipped unit, after which it would SIGKILL
# (and the exit would not be clean). d_stop fails past it; the time is for the log.
D_STOP_SECONDS=$(awk -F= '$1 == "TimeoutStopSec" && $2 ~ /^[0-9]+s?$/ { print $2 + 0 }' \
	"$TOP/systemd/rtltuned.service")
[ -n "$D_STOP_SECONDS" ] || t_fail "no TimeoutStopSec=SECONDS in systemd/rtltuned.service"
start=$(date +%s%N)
rc=0
d_stop || rc=$?
t_log "SIGTERM to exit: $((($(date +%s%N) - start) / 1000000)) ms (bound ${D_STOP_SECONDS} s)"
t_eq "$rc" 0 "exit code after SIGTERM"
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 32768 "settings left as they are"
for id in $progs; do
	for ((i = 0; i < 100; i++)); do
		bpftool prog show id "$id" >/dev/null 2>&1 || break
		sleep 0.01
	done
	bpftool prog show id "$id" >/dev/null 2>&1 && t_fail "BPF program $id still loaded"
done
echo "ok: the daemon's ${progs:+$(echo $progs | wc -w) }BPF programs are gone"
[ ! -e "$D_SOCK" ] || t_fail "socket left behind"

# --- restore_on_exit: the originals come back.
cat >"$CONF" <<'EOF'
[daemon]
profile = testgso
restore_on_exit = yes
EOF
ip -n "$NS" link set rtd0 gso_max_size 65536
ip -n "$NS" link set rtd1 gso_max_size 65536
rm -rf "$D_STATE"
d_start "$NS" --config "$CONF" --interfaces 'rtd*'
for ((i = 0; i < 100; i++)); do
	[ "$(t_ip_attr "$NS" rtd0 gso_max_size)" = 32768 ] && break
	sleep 0.02
done
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 32768 "profile applied at start"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "exit code after SIGTERM with restore_on_exit"
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 65536 "restore_on_exit put the original back"

# --- SIGHUP: broken config, broken profile, then a good config.
cat >"$CONF" <<'EOF'
[daemon]
sample_interval = 500ms
profile = testgso
EOF
d_start "$NS" --config "$CONF" --interfaces 'rtd*'
reload_and_wait() { # wait until the reload count or the reload error changed
	local before after i
	before=$(d_rtl --json status | jq -c '[.daemon.reloads, .daemon.last_reload_error]')
	kill -HUP "$D_PID"
	for ((i = 0; i < 100; i++)); do
		after=$(d_rtl --json status | jq -c '[.daemon.reloads, .daemon.last_reload_error]')
		[ "$after" != "$before" ] && return 0
		sleep 0.02
	done
	t_fail "SIGHUP not acted on within 2 s"
}
cat >"$CONF" <<'EOF'
[daemon]
profile = testgso
sample_interval = often
EOF
reload_and_wait
kill -0 "$D_PID" || t_fail "daemon died on a broken config"
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.sample_interval_seconds)" 0.5 "old config still in force"
t_eq "$(echo "$st" | jq -r .daemon.reloads)" 0 "no successful reload"
err=$(echo "$st" | jq -r .daemon.last_reload_error)
case $err in "$CONF:3: sample_interval:"*) echo "ok: error names file:line: $err" ;;
*) t_fail "reload error: $err" ;; esac
d_rtl log | grep -F "$CONF:3: sample_interval" >/dev/null || t_fail "rtltune log lacks the file:line error"
grep -qF "$CONF:3: sample_interval" "$D_LOG" || t_fail "stderr lacks the file:line error"
echo "ok: logged with file:line"

# A syntax error (no '=') is reported at its line too.
printf '[daemon]\nprofile = testgso\n\nthis is not ini\n' >"$CONF"
reload_and_wait
t_eq "$(d_rtl --json status | jq -r .daemon.last_reload_error | cut -d: -f1,2)" "$CONF:4" \
	"syntax error's file:line"

# A broken profile: the config is fine, the profile is not: everything old stays.
printf '[daemon]\nprofile = testgso\nsample_interval = 2s\n' >"$CONF"
printf '[profile]\n[knobs]\ngso_max_size = lots\n' >"$PROFILES/testgso.conf"
reload_and_wait
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.sample_interval_seconds)" 0.5 "old config kept on a bad profile"
case $(echo "$st" | jq -r .daemon.last_reload_error) in
"$PROFILES/testgso.conf:3:"*) echo "ok: bad profile named with file:line" ;;
*) t_fail "profile error: $(echo "$st" | jq -r .daemon.last_reload_error)" ;; esac
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 32768 "interfaces untouched by the failed reload"

# A good reload takes the new settings and re-applies the (new) profile.
printf '[profile]\n[knobs]\ngso_max_size = 16384\n' >"$PROFILES/testgso.conf"
reload_and_wait
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.sample_interval_seconds)" 2 "new config in force"
t_eq "$(echo "$st" | jq -r .daemon.reloads)" 1 "one successful reload"
t_eq "$(echo "$st" | jq -r .daemon.last_reload_error)" null "no reload error left"
for ((i = 0; i < 100; i++)); do
	[ "$(t_ip_attr "$NS" rtd0 gso_max_size)" = 16384 ] && break
	sleep 0.02
done
t_eq "$(t_ip_attr "$NS" rtd0 gso_max_size)" 16384 "reloaded profile applied"
# The top of the range the error message names is accepted as written.
printf '[daemon]\nprofile = testgso\nsample_interval = 1h\n' >"$CONF"
reload_and_wait
t_eq "$(d_rtl --json status | jq -r .daemon.sample_interval_seconds)" 3600 "sample_interval = 1h"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
