#!/bin/bash
# t-lane: beside-first
# The package as a user gets it, under systemd as PID 1 (issue 23). A Debian root
# (scripts/nspawn-root.sh: minbase, systemd, the package's dependencies) booted with
# `systemd-nspawn -b` (private network, cgroup v2); the .deb this tree builds installed in
# it with dpkg -i, so its maintainer scripts enable and start rtltuned.service exactly as
# shipped (no drop-in); rtltuned.conf then edited as an administrator would: one veth
# managed with the throughput profile, put back on exit. Checks:
#  1. dpkg -i: installed, group rtltune, the unit enabled and active, the daemon's
#     capabilities and sandbox as the unit says;
#  2. `systemctl reload` takes the edited file; the veth then moved into the container gets
#     the profile's values (read with the host's ip and ethtool), every probe attached,
#     the socket rtltune's 0660 (a member reads, others are refused), /metrics answers;
#  3. three more reloads leave the state and the log (entry by entry) as they were; a
#     broken file fails `systemctl reload` with its FILE:LINE and the daemon keeps
#     running; mended, it reloads;
#  4. alive for three WatchdogSec= periods with the pings arriving, never restarted;
#  5. `systemctl stop`: Result=success, and restore_on_exit put the veth's values back;
#  6. `systemd-analyze security rtltuned`: exposure no worse than the unit's before this
#     test existed; rtltune-apply@.service's sandbox applies a profile too;
#  7. a container host: with `namespaces =` the shipped unit may not enter a pod's
#     namespace and says why (EPERM, the drop-in to install), once; with the example
#     drop-in (systemd/examples/pods.conf) installed the documented way, the daemon
#     manages the pod's eth0 and puts it back at stop; purge.
# Everything runs inside the container or reads it from the host; the container, its
# cgroup, mounts and files go at exit, pass or fail.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
for tool in systemd-nspawn debootstrap unshare nsenter jq ethtool python3 dpkg-buildpackage; do
	command -v "$tool" >/dev/null || t_fail "$tool missing (scripts/deps.sh installs it)"
done
grep -qw cgroup2 /proc/filesystems || t_fail "no cgroup2 in this kernel: systemd cannot boot"
# The exposure of systemd/rtltuned.service at 830cf7c, measured the same way
# (`systemd-analyze security rtltuned` under systemd 252 in this container), before the
# unit was fixed: 1.9 ("OK"). Its filter then refused bpf(2) and chown(2), so it never ran.
EXPOSURE_BEFORE=1.9
t0=$(date +%s)

# ---- the package and the root ------------------------------------------------------------
DEB_BUILD_OPTIONS=nocheck scripts/build-deb.sh --reuse >"$T_TMP/build.log" 2>&1 ||
	{ tail -n 30 "$T_TMP/build.log"; t_fail "scripts/build-deb.sh"; }
deb=$(sed -n '/\.deb$/p' "$T_TMP/build.log" | tail -n 1)
[ -f "$deb" ] || t_fail "no .deb reported by build-deb.sh"
tarball=$(scripts/nspawn-root.sh "$deb" 2>"$T_TMP/root.log") ||
	{ cat "$T_TMP/root.log"; t_fail "scripts/nspawn-root.sh"; }
t_log "package $(basename "$deb"), root $tarball ($(($(date +%s) - t0)) s so far)"
ROOT=$T_TMP/root
mkdir "$ROOT"
t_defer "rm -rf --one-file-system '$ROOT'"
tar -C "$ROOT" -xf "$tarball"
cp "$deb" "$ROOT/root/rtltune.deb"

# ---- boot -----------------------------------------------------------------------------------
# In a mount namespace of its own: cgroup2 on /sys/fs/cgroup, so the container gets the
# unified hierarchy whatever the host has (v1 hybrid here, nothing at all in a chroot),
# and a cgroup of the test's own (nspawn without a service manager makes its "payload"
# and "supervisor" groups under the one it runs in). The wrapper execs nspawn: $! is it.
CG=rtltune-boot-$T_ID
cat >"$T_TMP/boot.sh" <<EOF
set -e
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir /sys/fs/cgroup/$CG
echo \$\$ >/sys/fs/cgroup/$CG/cgroup.procs
exec systemd-nspawn -D '$ROOT' -b --register=no --keep-unit --private-network \\
	--capability=CAP_BPF,CAP_PERFMON,CAP_NET_ADMIN --system-call-filter='bpf perf_event_open' \\
	--console=pipe --machine=rtltune-boot
EOF
unshare -m --propagation private bash "$T_TMP/boot.sh" </dev/null >"$T_TMP/console.log" 2>&1 &
NSPAWN=$!
LEADER=
# Stop the container (SIGTERM: nspawn asks its systemd to power off), bounded; then kill
# what is left and remove the test's cgroup, from a mount namespace of its own too.
stop_container() {
	local i
	kill -TERM "$NSPAWN" 2>/dev/null || return 0
	for ((i = 0; i < 200; i++)); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$NSPAWN" 2>/dev/null; then
		echo "# the container did not power off within 20 s: killed" >&2
		[ -n "$LEADER" ] && kill -9 "$LEADER" 2>/dev/null
		kill -9 "$NSPAWN" 2>/dev/null
	fi
	wait "$NSPAWN" 2>/dev/null
	mkdir -p "$T_TMP/cg"
	unshare -m --propagation private sh -c "mount -t cgroup2 cgroup2 '$T_TMP/cg' &&
		for i in \$(seq 50); do
			[ -d '$T_TMP/cg/$CG' ] || exit 0
			find '$T_TMP/cg/$CG' -depth -type d -exec rmdir {} + 2>/dev/null && exit 0
			sleep 0.1
		done; echo '# cgroup $CG left behind' >&2"
}
t_defer stop_container
for ((i = 0; i < 100; i++)); do
	for p in $(pgrep -P "$NSPAWN" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && LEADER=$p
	done
	[ -n "$LEADER" ] && break
	kill -0 "$NSPAWN" 2>/dev/null || { cat "$T_TMP/console.log"; t_fail "systemd-nspawn exited"; }
	sleep 0.1
done
[ -n "$LEADER" ] || { cat "$T_TMP/console.log"; t_fail "no systemd under systemd-nspawn within 10 s"; }
# c CMD...: run CMD in the container: every namespace of its PID 1 and its root directory
# (-r: where the test itself runs in a chroot, nspawn's root is a chroot inside a mount
# namespace whose own root is the host's), a clean environment.
c() { nsenter -t "$LEADER" -a -r -w env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# Booted: "running". Before that, "offline" (systemd has not made /run/systemd/system yet),
# no private socket to connect to, then "initializing" and "starting".
for ((i = 0; i < 600; i++)); do
	state=$(c systemctl is-system-running 2>&1) || true
	case $state in *offline* | *"Failed to connect"* | initializing | starting) sleep 0.1 ;;
	*) break ;;
	esac
done
if [ "$state" != running ]; then
	c systemctl --failed --no-pager || true
	tail -n 30 "$T_TMP/console.log"
	t_fail "the container's systemd: '$state' within 60 s, expected running"
fi
t_log "systemd $(c systemctl --version | awk 'NR == 1 { print $2 }') is PID 1 in the container ($(($(date +%s) - t0)) s)"

# The veth pair, made in a namespace of the test's: bt0 moves into the container once the
# daemon is configured for it (a NIC appearing), keeping what it has here, its originals.
# The container's network namespace gets a name, so that the host's ip and ethtool read it.
CNS=$T_ID-box
ip netns attach "$CNS" "$LEADER"
t_defer "ip netns del $CNS"
PEER=$(t_netns peer)
t_veth_pair "$PEER" bt0 "$PEER" bt1
ORIGINAL=$(t_link_state "$PEER" bt0)

# ---- 1. dpkg -i -------------------------------------------------------------------------------
c dpkg -i /root/rtltune.deb >"$T_TMP/dpkg.log" 2>&1 || { cat "$T_TMP/dpkg.log"; t_fail "dpkg -i"; }
sed 's/^/# dpkg: /' "$T_TMP/dpkg.log"
t_eq "$(c dpkg-query -W -f='${Status} ${Version}' rtltune)" \
	"install ok installed $(dpkg-deb -f "$deb" Version)" "dpkg status after dpkg -i"
t_eq "$(c getent group rtltune | cut -d: -f1)" rtltune "system group made by postinst"
t_eq "$(c systemctl is-enabled rtltuned)" enabled "rtltuned.service enabled by the package"
# dpkg -i started it (deb-systemd-invoke); Type=notify: active means READY=1 came.
show() { c systemctl show rtltuned -P "$1"; }
if [ "$(show ActiveState)" != active ]; then
	c systemctl status rtltuned --no-pager -n 0 || true
	c journalctl -u rtltuned --no-pager -n 15 -o cat || true
	t_fail "rtltuned.service is $(show ActiveState) ($(show SubState)) after dpkg -i, expected active"
fi
echo "ok: rtltuned.service active after dpkg -i (READY=1)"
PID=$(show MainPID)
START_US=$(show ExecMainStartTimestampMonotonic)
WD_FIRST=$(show WatchdogTimestampMonotonic)
wd=$(sed -n 's/^WatchdogSec=//p' systemd/rtltuned.service)
t_eq "$(show WatchdogUSec)" "$wd" "the watchdog systemd runs (WatchdogUSec) is the unit's WatchdogSec"
[[ $wd =~ ^([0-9]+)s$ ]] || t_fail "WatchdogSec=$wd: this test reads whole seconds"
WATCHDOG_US=$((BASH_REMATCH[1] * 1000000))
st() { c awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"; }
t_eq "$(st CapEff)" 000000c000001000 "the daemon's capabilities (CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN)"
t_eq "$(st CapBnd)" 000000c000001000 "the daemon's bounding set"
t_eq "$(st NoNewPrivs)" 1 "the daemon's no_new_privs"
t_eq "$(st Seccomp)" 2 "the daemon runs under a seccomp filter"
t_eq "$(c awk '$5 == "/proc/sys" { split($6, o, ","); print o[1] }' "/proc/$PID/mountinfo")" ro \
	"/proc/sys read-only for the daemon (ProtectKernelTunables=)"

# ---- 2. the administrator's config, reloaded ---------------------------------------------
CONF=/etc/rtltune/rtltuned.conf
c sed -i -e 's/^;interfaces = .*/interfaces = bt0/' -e 's/^;profile = none$/profile = throughput/' \
	-e 's/^;autotune = yes$/autotune = no/' -e 's/^;restore_on_exit = no$/restore_on_exit = yes/' "$CONF"
t_eq "$(c grep -cE '^(interfaces = bt0|profile = throughput|autotune = no|restore_on_exit = yes)$' "$CONF")" 4 \
	"the four settings edited in the shipped $CONF"
c systemctl reload rtltuned || t_fail "systemctl reload after editing $CONF"
# The reload answered once done, with the file in force.
t_eq "$(c rtltune --json status | jq -c '.daemon | [.interfaces, .profile, .autotune, .restore_on_exit]')" \
	'[["bt0"],"throughput",false,true]' "the daemon's settings after systemctl reload"
ip -n "$PEER" link set bt0 netns "$LEADER"
ip -n "$CNS" link set bt0 up
# The daemon sees it appear and applies the profile from its loop.
TSO=$(t_ip_attr "$CNS" bt0 tso_max_size)
applied() { c rtltune --json status | jq -r '.interfaces[] | select(.ifname == "bt0") | .applied.ok'; }
for ((i = 0; i < 100; i++)); do
	[ "$(t_ip_attr "$CNS" bt0 gso_max_size)" = "$TSO" ] && [ "$(applied)" = true ] && break
	sleep 0.1
done
t_eq "$(t_ip_attr "$CNS" bt0 gso_max_size)" "$TSO" "bt0 gso_max_size: the throughput profile's max (tso_max_size), within 10 s"
t_eq "$(t_nl_attr "$CNS" bt0 gso_ipv4_max_size)" "$TSO" "bt0 gso_ipv4_max_size"
# GRO's limit: GRO_MAX_SIZE, 8 x 65535.
t_eq "$(t_ip_attr "$CNS" bt0 gro_max_size)" 524280 "bt0 gro_max_size"
t_eq "$(t_nl_attr "$CNS" bt0 gro_ipv4_max_size)" 524280 "bt0 gro_ipv4_max_size"
t_eq "$(t_feature "$CNS" bt0 generic-receive-offload)" on "bt0 GRO (ethtool -k)"
APPLIED=$(t_link_state "$CNS" bt0)
[ "$APPLIED" != "$ORIGINAL" ] || t_fail "bt0 unchanged by the profile"
c journalctl -u rtltuned -o cat --no-pager >"$T_TMP/journal.txt"
grep -q '^bt0: IPv4 and IPv6 routes invalidated (XFRM_MSG_SETDEFAULT)' "$T_TMP/journal.txt" ||
	t_fail "no route invalidation over netlink under the unit: $(grep bt0 "$T_TMP/journal.txt" | tail -n 5)"
echo "ok: the sandboxed daemon invalidated bt0's routes over netlink"

c rtltune --json status >"$T_TMP/status.json" || t_fail "rtltune status through the socket"
t_eq "$(jq -r .daemon.source "$T_TMP/status.json")" bpf "the daemon counts with the BPF probes"
t_eq "$(jq -r '.daemon.bpf_error // "none"' "$T_TMP/status.json")" none "BPF error"
jq -r '.daemon.probes[] | "# probe \(.name): \(.state)\(if .hook then " (\(.hook))" else "" end)"' "$T_TMP/status.json"
# Every probe attached but those off by design ("off": not read by this program).
t_eq "$(jq '[.daemon.probes[] | select(.state != "attached" and .state != "off")] | length' "$T_TMP/status.json")" 0 \
	"probes neither attached nor off"
attached=$(jq '[.daemon.probes[] | select(.state == "attached")] | length' "$T_TMP/status.json")
t_ge "$attached" 1 "probes attached"
grep -q "^BPF probes attached: $attached of $attached" "$T_TMP/journal.txt" ||
	t_fail "the journal does not say 'BPF probes attached: $attached of $attached'"
t_eq "$(jq -r '.interfaces[] | select(.ifname == "bt0") |
	"\(.managed) \(.autotune) \(.applied.profile) \(.applied.ok)"' "$T_TMP/status.json")" \
	"true false throughput true" "status: bt0 managed, not autotuned, the profile applied"
t_eq "$(jq -r .daemon.socket_group "$T_TMP/status.json")" rtltune "status: socket_group (the package's)"
t_eq "$(c stat -c '%G %a %F' /run/rtltune/control.sock)" "rtltune 660 socket" "the control socket's group and mode"
c useradd --system --no-create-home -G rtltune rtmember
c useradd --system --no-create-home rtother
as() { local u=$1; shift; c setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
as rtmember rtltune status >/dev/null || t_fail "a member of rtltune cannot read status"
echo "ok: a member of group rtltune reads rtltune status"
rc=0
as rtother rtltune status >/dev/null 2>"$T_TMP/other.err" || rc=$?
t_eq "$rc" 3 "rtltune status of a user outside the group (exit code)"
grep -qi 'permission denied' "$T_TMP/other.err" || { cat "$T_TMP/other.err"; t_fail "the refusal names EACCES"; }
rc=0
as rtmember rtltuned --reload >/dev/null 2>"$T_TMP/member.err" || rc=$?
t_eq "$rc" 3 "rtltuned --reload by a member of rtltune, not root (exit code)"
grep -q 'reload changes settings and needs root' "$T_TMP/member.err" ||
	{ cat "$T_TMP/member.err"; t_fail "the reload refusal does not say it needs root"; }
# /metrics on loopback through IPAddressAllow=localhost (BPF on the unit's cgroup).
metrics=$(ip netns exec "$CNS" bash -c 'exec 3<>/dev/tcp/127.0.0.1/9775 &&
	printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3') || t_fail "no /metrics on 127.0.0.1:9775"
grep -q '^rtltune_probe_attached{probe="net_dev_start_xmit"} 1' <<<"$metrics" ||
	t_fail "/metrics lacks rtltune_probe_attached: $(head -c 300 <<<"$metrics")"
echo "ok: /metrics answers on loopback"
c rtltune --json show bt0 >"$T_TMP/show.json"
t_eq "$(jq -r '.[0].chip' "$T_TMP/show.json")" veth "installed rtltune show: chip from /usr/share/rtltune/chips"
t_eq "$(c sh -c 'command -v rtltune; command -v rtltuned' | tr '\n' ' ')" "/usr/bin/rtltune /usr/sbin/rtltuned " \
	"programs on PATH"
t_eq "$(c rtltune --json profiles | jq '[.profiles[] | select(.path | startswith("/usr/share/rtltune/profiles/"))] | length')" \
	"$(ls profiles/*.conf | wc -l)" "installed rtltune finds the shipped profiles"

# ---- 3. reloads: state and log intact; a broken file refused --------------------------------
# The state: the daemon's pid, the link as ip/ethtool see it, what status says of bt0.
snapshot() {
	echo "pid $(show MainPID) restarts $(show NRestarts)"
	t_link_state "$CNS" bt0
	c rtltune --json status | jq -c '.interfaces[] | select(.ifname == "bt0") |
		{managed, autotune, profile: .applied.profile, ok: .applied.ok} +
		(.knobs | {mtu, gso_max_size, gso_ipv4_max_size, gro_max_size, gro_ipv4_max_size, gro})'
}
# Every entry of the log before must be in the log after, as it was (seq, time, level,
# interface, message), and nothing before it lost: the ring holds 512.
log_kept() {
	jq -n --slurpfile a "$1" --slurpfile b "$2" '
		($a[0].entries | map({key: (.seq | tostring), value: .}) | from_entries) as $old |
		($b[0].entries | map({key: (.seq | tostring), value: .}) | from_entries) as $new |
		[$old | to_entries[] | select($new[.key] != .value)] | length'
}
before=$(snapshot)
reloads=$(c rtltune --json status | jq .daemon.reloads)
for n in 1 2 3; do
	c rtltune --json log --lines 512 >"$T_TMP/log-before.json"
	c systemctl reload rtltuned || t_fail "systemctl reload #$n"
	c rtltune --json log --lines 512 >"$T_TMP/log-after.json"
	t_eq "$(log_kept "$T_TMP/log-before.json" "$T_TMP/log-after.json")" 0 \
		"log entries changed or lost by reload #$n (of $(jq '.entries | length' "$T_TMP/log-before.json"))"
	t_eq "$(jq --arg m "reloaded $CONF" --argjson s "$(jq '.entries[-1].seq' "$T_TMP/log-before.json")" \
		'[.entries[] | select(.seq > $s and .message == $m)] | length' "$T_TMP/log-after.json")" 1 \
		"'reloaded $CONF' entries logged by reload #$n"
	t_eq "$(jq '[.entries[] | select(.time == 0 or .seq == 0)] | length' "$T_TMP/log-after.json")" 0 \
		"empty entries (seq 0, time 0) in the log after reload #$n"
	t_eq "$(snapshot)" "$before" "daemon, bt0 and its status after reload #$n"
done
t_eq "$(c rtltune --json status | jq .daemon.reloads)" "$((reloads + 3))" "reloads counted"

c sh -c "echo 'bogus_key = 1' >>$CONF"
bad_line=$(c grep -n '^bogus_key = 1$' "$CONF" | cut -d: -f1)
rc=0
c systemctl reload rtltuned >"$T_TMP/reload-bad.out" 2>&1 || rc=$?
cat "$T_TMP/reload-bad.out"
[ "$rc" -ne 0 ] || t_fail "systemctl reload succeeded with a broken $CONF"
echo "ok: systemctl reload fails on a broken file (exit $rc)"
c journalctl -u rtltuned -o cat --no-pager -n 20 >"$T_TMP/journal-bad.txt"
grep -q "^rtltuned: reload failed, keeping the running configuration: $CONF:$bad_line: " "$T_TMP/journal-bad.txt" ||
	{ cat "$T_TMP/journal-bad.txt"; t_fail "rtltuned --reload did not print the file's error at $CONF:$bad_line"; }
echo "ok: the reload's error names $CONF:$bad_line"
t_eq "$(show ActiveState)" active "rtltuned after the failed reload"
t_eq "$(snapshot)" "$before" "daemon, bt0 and its status after the failed reload"
t_eq "$(c rtltune --json status | jq -r '.daemon.last_reload_error' | cut -d: -f1-2)" "$CONF:$bad_line" \
	"status: last_reload_error"
c sed -i '/^bogus_key = 1$/d' "$CONF"
c systemctl reload rtltuned || t_fail "systemctl reload after mending $CONF"
t_eq "$(c rtltune --json status | jq -r '.daemon.last_reload_error // "none"')" none "last_reload_error after the mended reload"
t_eq "$(snapshot)" "$before" "daemon, bt0 and its status after the mended reload"

# ---- 4. alive over three watchdog periods --------------------------------------------------
# From the daemon's start (dpkg -i): the same process, never restarted, and its pings
# reaching systemd (WatchdogTimestamp moves; a silent loop would have been killed).
now_us() { python3 -c 'import time; print(int(time.monotonic() * 1e6))'; }
until=$((START_US + 3 * WATCHDOG_US))
t_log "waiting until the daemon has run 3 x $((WATCHDOG_US / 1000000)) s: $(((until - $(now_us)) / 1000000)) s more"
while [ "$(now_us)" -lt "$until" ]; do
	[ "$(show ActiveState)" = active ] || break
	sleep 1
done
t_eq "$(show ActiveState) $(show MainPID) $(show NRestarts)" "active $PID 0" \
	"state, main pid, restarts after 3 watchdog periods"
WD_LAST=$(show WatchdogTimestampMonotonic)
t_ge "$WD_LAST" $((WD_FIRST + 1)) "the last watchdog ping (monotonic us) moved on from the first"
t_ge "$WD_LAST" $((until - WATCHDOG_US)) "a watchdog ping within the last period (monotonic us)"

# ---- 5. stop: success, originals back -----------------------------------------------------------
c systemctl stop rtltuned || t_fail "systemctl stop"
t_eq "$(show Result) $(show ExecMainStatus)" "success 0" "Result and exit status after systemctl stop"
t_eq "$(show ActiveState)" inactive "ActiveState after systemctl stop"
t_eq "$(t_link_state "$CNS" bt0)" "$ORIGINAL" "bt0 back to its originals (restore_on_exit = yes)"

# ---- 6. exposure, the apply unit, purge -------------------------------------------------------------
c systemd-analyze security rtltuned --no-pager >"$T_TMP/security.txt" 2>&1 || true
exposure=$(awk '/Overall exposure level for rtltuned.service/ { print $(NF - 2) }' "$T_TMP/security.txt")
grep -v '^✓' "$T_TMP/security.txt" | sed 's/^/# /'
[ -n "$exposure" ] || t_fail "no exposure level from systemd-analyze security"
awk -v a="$exposure" -v b="$EXPOSURE_BEFORE" 'BEGIN { exit !(a <= b) }' ||
	t_fail "exposure $exposure, worse than $EXPOSURE_BEFORE before"
echo "ok: exposure $exposure, no worse than $EXPOSURE_BEFORE"
# rtltune-apply@ as shipped but for the interface: without one it would take only
# interfaces backed by a device, and the container has none.
c mkdir -p /etc/systemd/system/rtltune-apply@throughput.service.d
c sh -c 'printf "[Service]\nExecStart=\nExecStart=/usr/bin/rtltune apply %%i bt0\n" \
	>/etc/systemd/system/rtltune-apply@throughput.service.d/iface.conf'
c systemctl daemon-reload
c systemctl start rtltune-apply@throughput || t_fail "rtltune-apply@throughput: $(c journalctl -u rtltune-apply@throughput -o cat -n 5)"
t_eq "$(c systemctl show rtltune-apply@throughput -P Result)" success "rtltune-apply@throughput Result"
t_eq "$(t_link_state "$CNS" bt0)" "$APPLIED" "bt0 as rtltuned had it, from rtltune-apply@throughput"
# ---- 7. a container host: the pods.conf drop-in -----------------------------------------
# One pod namespace made inside the container as a runtime would (/run/netns/pod1, by
# util-linux unshare: the root has no iproute2), its eth0 the veth peer of the container's
# vn0, opted in by `namespaces = pod1`. Under the shipped unit the daemon may not follow
# other namespaces (no CAP_NET_BROADCAST for NETLINK_LISTEN_ALL_NSID, no CAP_SYS_ADMIN for
# setns): it says why and what grants it, and tunes its own interfaces all the same. With
# the example drop-in installed as docs/namespaces.md says, it follows the namespace,
# manages pod1/eth0 and applies the profile there from inside its sandbox; stopped, it
# puts the pod's eth0 back.
c mkdir -p /run/netns
c touch /run/netns/pod1
c unshare --net=/run/netns/pod1 true || t_fail "unshare --net=/run/netns/pod1 in the container"
# The host's tools in the pod's namespace, through the container's mount of it.
pod() { nsenter --net="/proc/$LEADER/root/run/netns/pod1" "$@"; }
# A process in the pod's namespace to move its eth0 there by pid (nsenter itself: it
# enters, then execs sleep).
nsenter --net="/proc/$LEADER/root/run/netns/pod1" sleep 600 &
HOLD=$!
t_defer "kill $HOLD 2>/dev/null || true"
for ((i = 0; i < 50; i++)); do
	[ "$(stat -L -c %i "/proc/$HOLD/ns/net")" = "$(stat -L -c %i "/proc/$LEADER/root/run/netns/pod1")" ] && break
	sleep 0.1
done
[ "$i" -lt 50 ] || t_fail "no process in the pod's namespace within 5 s"
ip -n "$PEER" link add vn0 type veth peer name eth0
ip -n "$PEER" link set eth0 netns "$HOLD"
ip -n "$PEER" link set vn0 netns "$LEADER"
ip -n "$CNS" link set vn0 up
pod ip link set eth0 up
pod_attr() { pod ip -d -j link show dev eth0 | jq -r ".[0].$1"; }
POD_ORIG="$(pod_attr gso_max_size) $(pod_attr gro_max_size)"
POD_TSO=$(pod_attr tso_max_size)
c sed -i -e 's/^interfaces = bt0$/interfaces = bt0, vn0, *\/eth0\nnamespaces = pod1/' "$CONF"
t_eq "$(c grep -c '^namespaces = pod1$' "$CONF")" 1 "namespaces = pod1 in $CONF"
c systemctl start rtltuned ||
	t_fail "systemctl start under the shipped unit with namespaces = pod1: $(c journalctl -u rtltuned -o cat --no-pager -n 5)"
# Logged before READY=1; journald reads the daemon's stream on its own time.
for ((i = 0; i < 100; i++)); do
	c journalctl -u rtltuned -o cat --no-pager | grep -q '^namespaces: ' && break
	sleep 0.1
done
refusal=$(c journalctl -u rtltuned -o cat --no-pager | grep '^namespaces: ') ||
	t_fail "the shipped unit with namespaces = pod1: no word on the namespaces within 10 s"
echo "# $refusal"
t_eq "$(grep -c . <<<"$refusal")" 1 "lines about the namespaces under the shipped unit"
grep -q 'Operation not permitted (needs CAP_NET_BROADCAST, and CAP_SYS_ADMIN .*examples/pods.conf)' <<<"$refusal" ||
	t_fail "the refusal under the shipped unit does not name EPERM, the capabilities and the drop-in"
t_eq "$(applied)" true "bt0 still tuned under the shipped unit with namespaces = pod1"
t_eq "$(pod_attr gso_max_size) $(pod_attr gro_max_size)" "$POD_ORIG" "pod1/eth0 untouched under the shipped unit"
c systemctl stop rtltuned
c install -D -m 0644 /usr/share/doc/rtltune/examples/pods.conf /etc/systemd/system/rtltuned.service.d/pods.conf ||
	t_fail "installing the example drop-in as docs/namespaces.md says"
c systemctl daemon-reload
c systemctl start rtltuned || t_fail "systemctl start with the pods.conf drop-in"
PID=$(show MainPID)
t_eq "$(st CapEff)" 000000c000201800 "the daemon's capabilities with the drop-in (CAP_NET_BROADCAST, CAP_SYS_ADMIN added)"
for ((i = 0; i < 100; i++)); do
	[ "$(pod_attr gso_max_size)" = "$POD_TSO" ] && break
	sleep 0.1
done
t_eq "$(pod_attr gso_max_size)" "$POD_TSO" "pod1/eth0 gso_max_size: the throughput profile's (its tso_max_size), within 10 s"
t_eq "$(pod_attr gro_max_size)" 524280 "pod1/eth0 gro_max_size"
t_eq "$(c rtltune --json status | jq -r '.interfaces[] | select(.ifname == "pod1/eth0") | "\(.managed) \(.netns)"')" \
	"true pod1" "status: pod1/eth0 managed, in netns pod1"
# This run's lines only (its invocation), however many the profile's applications logged.
INV=$(show InvocationID)
for ((i = 0; i < 100; i++)); do
	c journalctl -u rtltuned "_SYSTEMD_INVOCATION_ID=$INV" -o cat --no-pager | grep -q '^netns pod1: followed' && break
	sleep 0.1
done
[ "$i" -lt 100 ] || t_fail "the daemon under the drop-in did not log 'netns pod1: followed' within 10 s"
echo "ok: under the drop-in, the daemon follows netns pod1 and applied the profile to pod1/eth0"
c systemd-analyze security rtltuned --no-pager >"$T_TMP/security-pods.txt" 2>&1 || true
exposure=$(awk '/Overall exposure level for rtltuned.service/ { print $(NF - 2) }' "$T_TMP/security-pods.txt")
[ -n "$exposure" ] || t_fail "no exposure level from systemd-analyze security with the drop-in"
# 2.5 when the drop-in was first checked here: CAP_NET_BROADCAST, CAP_SYS_ADMIN and
# RestrictNamespaces=~net flagged more than for the unit alone.
awk -v a="$exposure" 'BEGIN { exit !(a <= 2.5) }' || t_fail "exposure with the drop-in $exposure, above 2.5"
echo "ok: exposure with the drop-in $exposure (<= 2.5)"
c systemctl stop rtltuned || t_fail "systemctl stop with the drop-in"
t_eq "$(show Result)" success "Result after systemctl stop with the drop-in"
t_eq "$(pod_attr gso_max_size) $(pod_attr gro_max_size)" "$POD_ORIG" "pod1/eth0 back to its originals (restore_on_exit)"
c rm -r /etc/systemd/system/rtltuned.service.d
c systemctl daemon-reload
kill "$HOLD" 2>/dev/null || true
c umount /run/netns/pod1
c dpkg --purge rtltune >"$T_TMP/purge.log" 2>&1 || { cat "$T_TMP/purge.log"; t_fail "dpkg --purge"; }
t_eq "$(c sh -c 'ls /usr/bin/rtltune /usr/sbin/rtltuned /etc/rtltune/rtltuned.conf \
	/etc/systemd/system/multi-user.target.wants/rtltuned.service 2>/dev/null | wc -l')" 0 \
	"nothing of the package left after purge"
t_log "done in $(($(date +%s) - t0)) s"
