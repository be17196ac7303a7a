#!/bin/bash
# rtltune sweep refuses bad input before anything changes, naming why, with exit 2: an
# unknown knob, a knob the device cannot take (veth has no rings), a value outside the
# chip's limits (gso_max_size above veth's tso_max_size, an MTU above max_mtu), VALUES
# that do not parse, a second interface name, no traffic at all (the first probe window).
# After each: `rtltune show --json` is what it was, and the journal has recorded nothing.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/sweep-lib.sh"

tn_setup
show() { t_rtl "$TN_A" --json show ta | jq -S 'del(.[0].operstate)'; }
before=$(show)

# refused WHY ARGS...: exit 2, the message names WHY, nothing changed.
refused() {
	local why=$1 rc=0
	shift
	t_in "$TN_A" timeout 20 "$RTLTUNE" sweep "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	[ "$rc" -eq 2 ] || { cat "$T_TMP/out" "$T_TMP/err"; t_fail "sweep $*: exit $rc, expected 2"; }
	grep -q -- "$why" "$T_TMP/err" || { cat "$T_TMP/err"; t_fail "sweep $*: message does not say '$why'"; }
	[ "$(show)" == "$before" ] || t_fail "sweep $*: show --json changed"
	[ ! -e "$RTLTUNE_STATE_DIR/journal" ] || ! grep -q '^iface \|^inflight ' "$RTLTUNE_STATE_DIR/journal" ||
		t_fail "sweep $*: the journal recorded something"
	echo "ok: sweep $* -> exit 2: $(head -c 160 "$T_TMP/err")"
}

refused "unknown knob 'gso_max'" ta gso_max 16K
refused "ring_rx unsupported" ta ring_rx 256,512
refused "exceeds tso_max_size 524280" ta gso_max_size 64K,1M
refused "above\|exceeds" ta mtu 1500,70000
refused "below min_mtu" ta mtu 60,1500
refused "expects a number" ta mtu 1500,lots
refused "FROM:TO:STEP" ta mtu 1000:2000
refused "more than 511 steps" ta mtu 1000:9000:1
refused "no such interface: nosuch0" nosuch0 mtu 1500
refused "needs IFACE KNOB VALUES" ta mtu
refused "unknown option" ta mtu 1500 --bogus
refused "--seconds needs" ta mtu 1500 --seconds 0
# No traffic: the probe window finds none (tn_loop_start never ran).
refused "no traffic in the" ta gso_max_size 32K --seconds 1
