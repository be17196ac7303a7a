#!/bin/bash
# Helpers for the sweep and report tests (tests/integration/sweep_*.sh, report_*.sh).
# Source after tests/lib.sh, tests/daemon-lib.sh and tests/tuner-lib.sh: the testbed is the
# tuner's (ta -> tb, iperf3 servers in B).

# sw_svg_ok FILE: well-formed, self-contained, and rsvg-convert draws it.
sw_svg_ok() {
	command -v xmllint >/dev/null || t_skip "xmllint not installed (libxml2-utils; make deps)"
	command -v rsvg-convert >/dev/null || t_skip "rsvg-convert not installed (librsvg2-bin; make deps)"
	xmllint --noout "$1" || t_fail "$1: not well-formed XML"
	if grep -Eq 'xlink:href|<image|<script|@import|url\(' "$1"; then
		t_fail "$1 refers to something outside the file"
	fi
	rsvg-convert -o "${1%.svg}.png" "$1" || t_fail "$1: rsvg-convert failed"
	[ -s "${1%.svg}.png" ] || t_fail "$1: empty PNG"
	echo "ok: $(basename "$1") passes xmllint and renders ($(stat -c %s "${1%.svg}.png") bytes of PNG)"
}

# sw_inflight: the in-flight records of the CLI's journal (0 when there is no journal).
sw_inflight() {
	local j=$RTLTUNE_STATE_DIR/journal
	if [ -f "$j" ]; then grep -c '^inflight ' "$j" || true; else echo 0; fi
}

# sw_wait_value NS IF ATTR NOT SECONDS: poll `ip -d -j link` until ATTR differs from NOT
# (bounded); prints the new value.
sw_wait_value() {
	local deadline=$((SECONDS + $5)) v
	while [ $SECONDS -le $deadline ]; do
		v=$(t_ip_attr "$1" "$2" "$3")
		[ "$v" != "$4" ] && { echo "$v"; return 0; }
		sleep 0.05
	done
	return 1
}
