#!/bin/bash
# Helpers for the tests of the tuner's host rules (tests/integration/tuner_backlog.sh,
# tuner_squeeze.sh). Source after tests/lib.sh and tests/daemon-lib.sh.
#
# The host-wide knobs exist only in the initial network namespace (where the tests run);
# hl_setup hands a daemon of the test's own namespace the host's three net/core files as
# bind mounts made from here (RTLTUNE_PROC_SYS, include/rtltune/hostknob.h), so it changes
# the host's real values, and saves those values first: they are written back at exit,
# pass or fail. Then the traffic: a veth pair without NAPI (GRO off on the receiver: vb
# delivers through the receiving CPU's backlog, netif_rx) and a UDP flood whose sender
# segments in software (GSO and tx-udp-segmentation off on va), so that each 65000-byte
# UDP_SEGMENT send reaches the backlog as 47 frames at once. The frames carry another
# host's MAC: vb's stack drops each in ip_rcv (OTHERHOST) after the backlog and answers
# none, so nothing comes back.

HL_FLOOD=$TOP/build/tests/tools/udp_flood
HL_D=/proc/sys/net/core
HL_PS=$T_TMP/proc_sys
HL_LOOPS=()

# hl_setup NET: the checks, the saved values, the bind mounts, the pair (A, B; NET as
# t_quiet_pair's) and the flood's neighbour.
hl_setup() {
	local f
	[ -x "$HL_FLOOD" ] || t_fail "$HL_FLOOD not built (make the test tools)"
	[ -e "$HL_D/netdev_max_backlog" ] ||
		t_fail "no $HL_D/netdev_max_backlog: this test runs in the initial network namespace"
	[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs (the flood pinned to one, the daemon on the other)"
	HL_ORIG=()
	for f in netdev_max_backlog netdev_budget netdev_budget_usecs; do
		HL_ORIG+=("$(cat "$HL_D/$f")")
		t_defer "echo ${HL_ORIG[-1]} >$HL_D/$f"
	done
	t_log "the host's values: netdev_max_backlog ${HL_ORIG[0]}, netdev_budget ${HL_ORIG[1]}, netdev_budget_usecs ${HL_ORIG[2]}"
	mkdir -p "$HL_PS/net/core"
	for f in netdev_max_backlog netdev_budget netdev_budget_usecs; do
		: >"$HL_PS/net/core/$f"
		mount --bind "$HL_D/$f" "$HL_PS/net/core/$f"
		t_defer "umount $HL_PS/net/core/$f"
	done
	t_quiet_pair "$1"
	t_in "$A" ethtool -K va gso off tx-udp-segmentation off >/dev/null
	t_in "$B" ethtool -K vb gro off >/dev/null
	HL_DST=$1.0.3
	ip -n "$A" neigh add "$HL_DST" lladdr 02:00:00:00:00:97 dev va nud permanent
}

# hl_softnet: softnet_stat summed over the CPUs, "processed dropped time_squeeze".
hl_softnet() {
	python3 -c '
p = d = s = 0
for line in open("/proc/net/softnet_stat"):
    c = line.split()
    p += int(c[0], 16)
    d += int(c[1], 16)
    s += int(c[2], 16)
print(p, d, s)'
}

# hl_measure SECONDS: the next SECONDS of softnet_stat: HL_FRAMES that reached a backlog
# (processed + dropped), HL_DROPPED, HL_SQUEEZES; HL_DROP_PPM and HL_SQUEEZE_PPM per
# million frames.
hl_measure() {
	local b a
	read -ra b <<<"$(hl_softnet)"
	sleep "$1"
	read -ra a <<<"$(hl_softnet)"
	HL_DROPPED=$((a[1] - b[1]))
	HL_SQUEEZES=$((a[2] - b[2]))
	HL_FRAMES=$((a[0] - b[0] + HL_DROPPED))
	HL_DROP_PPM=$((HL_DROPPED * 1000000 / (HL_FRAMES > 0 ? HL_FRAMES : 1)))
	HL_SQUEEZE_PPM=$((HL_SQUEEZES * 1000000 / (HL_FRAMES > 0 ? HL_FRAMES : 1)))
}

# The flood, from CPU 0, until hl_flood_stop.
hl_flood_start() {
	(while :; do t_in "$A" taskset -c 0 "$HL_FLOOD" -g 1400 "$HL_DST" 9 20000 65000 >/dev/null || sleep 0.1; done) &
	HL_LOOPS+=($!)
	t_defer "hl_flood_stop"
}
hl_flood_stop() {
	t_stop_loops "$A" udp_flood "${HL_LOOPS[@]}"
	HL_LOOPS=()
}

# hl_daemon: rtltuned in B managing vb with the host's files, gro and rps_cpus pinned (the
# gro-off rule would give vb a NAPI and take the backlog out of the path, rx-spread would
# move the work to the other CPU's backlog: fixes of another layer, tried on their own).
hl_daemon() {
	printf '[daemon]\nsample_interval = 500ms\npin = gro, rps_cpus\n' >"$T_TMP/rtltuned.conf"
	D_ENV=(RTLTUNE_PROC_SYS="$HL_PS")
	d_start "$B" --config "$T_TMP/rtltuned.conf" --interfaces vb
}

# The host's decisions from the daemon's log: "OUTCOME KNOB OLD -> NEW: REASON".
hl_decisions() {
	d_rtl --json log --lines 512 | jq -r '.entries[] | select(.iface == "host") |
		select(.message | test("^tuner (trial|step|kept|rolled_back|abandoned|failed) ")) |
		.message | sub("^tuner "; "")'
}
hl_tuner() { d_rtl --json status | jq -r ".host.tuner.$1"; }

# hl_settle KNOB PPM-VAR LIMIT: wait (bounded, 3 minutes) until a raise of KNOB is kept,
# no trial runs and the fault's share over 3 s (HL_DROP_PPM or HL_SQUEEZE_PPM) is at most
# LIMIT per million.
hl_settle() {
	local i
	HL_STARTED=$SECONDS
	for ((i = 0; i < 360; i++)); do
		if hl_decisions | grep -q "^kept $1 " && [ "$(hl_tuner trial)" = null ]; then
			hl_measure 3
			[ "${!2}" -le "$3" ] && break
			t_log "kept, but ${!2} per million still: the tuner goes on"
		fi
		sleep 0.5
	done
	hl_decisions | sed 's/^/# /'
	[ "$i" -lt 360 ] || t_fail "$1: not cured within 3 minutes (last ${!2} per million)"
}

# hl_restore: `rtltune restore` from the daemon's namespace, where the CLI hands it to the
# daemon (the host's record is the daemon's: its namespace's and this boot's); prints it.
hl_restore() {
	t_in "$B" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" restore
}
