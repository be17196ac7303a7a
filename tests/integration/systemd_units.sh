#!/bin/bash
# t-lane: beside
# Acceptance (issue 5): systemd/rtltuned.service and rtltune-apply@.service pass
# `systemd-analyze verify` with no complaint at all (the binaries' paths pointed at this
# build in a temporary copy), and rtltune-apply@'s offline security exposure is "OK" or
# better. What systemd does with them is tests/integration/systemd_boot.sh, under systemd
# as PID 1: rtltuned.service's notify, watchdog, capabilities, sandbox, reload and
# exposure; rtltune-apply@'s sandbox applying a profile. Here, what that boot cannot see.
. "$(dirname "$0")/../lib.sh"
command -v systemd-analyze >/dev/null || t_skip "systemd-analyze not installed"
[ -x "$RTLTUNED" ] || t_fail "$RTLTUNED not built"

U=$T_TMP/units
mkdir -p "$U"
for f in "$TOP"/systemd/*.service; do
	sed -e "s#/usr/sbin/rtltuned#$RTLTUNED#g" -e "s#/usr/sbin/rtltune #$RTLTUNE #g" \
		"$f" >"$U/$(basename "$f")"
done
# An instance of the template, as `systemctl enable rtltune-apply@throughput` makes.
cp "$U/rtltune-apply@.service" "$U/rtltune-apply@throughput.service"

cd "$U"
for unit in rtltuned.service rtltune-apply@throughput.service; do
	rc=0
	out=$(systemd-analyze verify --man=no "./$unit" 2>&1) || rc=$?
	t_eq "$rc" 0 "systemd-analyze verify $unit exit code"
	t_eq "$out" "" "systemd-analyze verify $unit output"
	[ "$unit" = rtltuned.service ] && continue
	level=$(systemd-analyze security --offline=yes "./$unit" 2>/dev/null |
		awk '/Overall exposure level/ { print $(NF - 2), $(NF - 1) }')
	echo "# $unit: exposure $level"
	case $level in
	*PERFECT* | *SAFE* | *OK*) echo "ok: $unit exposure is OK or better" ;;
	*) t_fail "$unit exposure: '$level', expected OK or better" ;;
	esac
done

# PM QoS (daemon/pmqos.c): exactly one device through PrivateDevices=, optional on the
# host. The boot test's container has no /dev/cpu_dma_latency to see it with.
svc=$TOP/systemd/rtltuned.service
t_eq "$(sed -n 's/^BindPaths=//p' "$svc")" "-/dev/cpu_dma_latency" "rtltuned.service BindPaths"
t_eq "$(sed -n 's/^DeviceAllow=//p' "$svc")" "/dev/cpu_dma_latency rw" "rtltuned.service DeviceAllow"
# The boot test gives the apply unit an interface (its container has no device-backed one).
t_eq "$(sed -n 's/^ExecStart=//p' "$TOP/systemd/rtltune-apply@.service")" \
	"/usr/sbin/rtltune apply %i" "rtltune-apply@ ExecStart"
# The host-wide knobs (docs/knobs-stack.md): /proc/sys stays read-only but for exactly their
# three files, each optional (a container with its own network namespace has none). That
# systemd 252 mounts such a file read-write over the read-only /proc/sys, and starts the
# unit where it is missing, was seen in a container booted with systemd-nspawn.
t_eq "$(sed -n 's/^ProtectKernelTunables=//p' "$svc")" yes "rtltuned.service ProtectKernelTunables"
t_eq "$(sed -n 's/^ReadWritePaths=\(.*\/proc\/sys.*\)/\1/p' "$svc" | tr '\n' ' ')" \
	"-/proc/sys/net/core/netdev_max_backlog -/proc/sys/net/core/netdev_budget -/proc/sys/net/core/netdev_budget_usecs " \
	"rtltuned.service opens the host-wide knobs' files, and nothing else of /proc/sys"
t_eq "$(grep -c '^ReadWritePaths=.*/proc/sys' "$svc")" 3 "ReadWritePaths= under /proc/sys"
