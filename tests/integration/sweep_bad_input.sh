#!/bin/bash
# rtltune sweep refuses bad input before anything changes, naming why, with exit 2: an
# unknown knob, a knob the device cannot take (veth has no rings), a value outside the
# chip's limits (gso_max_size above veth's tso_max_size, an MTU above max_mtu), VALUES
# that do not parse (a negative one too), VALUES missing, an unknown option, a --svg path that
# cannot be written (checked before the sweep), no traffic at all (the first probe window),
# and the note on the IPv4 size said before the sweep. After each: `rtltune show --json` is what it was, and the journal has recorded nothing.
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
refused "sweep: VALUES missing" ta mtu
refused "sweep: unknown option '--bogus'" ta mtu 1500 --bogus
refused "sweep: --seconds 0 is out of range (0.2 to 3600 seconds)" ta mtu 1500 --seconds 0
# A negative value is a value, not an option: refused as out of range, naming the limits.
refused "sweep: mtu -5 is out of range (0 to 4294967295)" ta mtu -5,1500
# The chart's path is checked before the sweep, not after minutes of it.
refused "sweep refused, nothing changed: --svg $T_TMP/nodir/x.svg: cannot write a file there: No such file or directory" \
	ta mtu 1500 --svg "$T_TMP/nodir/x.svg"
refused "sweep refused, nothing changed: --svg $T_TMP: a directory, not a file to write" ta mtu 1500 --svg "$T_TMP"
[ -z "$(ls "$T_TMP" | grep -F 'x.svg')" ] || t_fail "the --svg check left a file behind"
# No traffic: the probe window finds none (tn_loop_start never ran).
refused "no traffic in the" ta gso_max_size 32K --seconds 1
# A gso_max_size step above 64K leaves the IPv4 size where the step before put it: said
# before the sweep (here the no-traffic refusal ends it right after).
refused "no traffic in the" ta gso_max_size 16K,128K --seconds 1
grep -qxF "rtltune: note: gso_max_size above 65536 leaves gso_ipv4_max_size where it is (the kernel moves it along only up to 65536), and IPv4 traffic is sized by gso_ipv4_max_size: on IPv4 the step 131072 runs at 16384; sweep gso_ipv4_max_size to measure IPv4 above 64K" "$T_TMP/err" ||
	t_fail "no IPv4 note: $(cat "$T_TMP/err")"
[ "$(head -n 1 "$T_TMP/err" | cut -c 1-20)" = "rtltune: note: gso_m" ] || t_fail "the note is not first: $(cat "$T_TMP/err")"
