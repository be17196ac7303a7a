#!/bin/bash
# t-lane: beside
# The optional node_exporter textfile: written after every sample through a temporary
# name and rename(2), so a reader never sees half a file; it holds what /metrics serves
# and passes promtool; a textfile directory that disappears is reported, not fatal.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v promtool >/dev/null || t_skip "promtool not installed (prometheus package)"

NS=$(t_netns d)
ip link add tf0 netns "$NS" type veth peer name tf1 netns "$NS"
DIR=$T_TMP/textfile
mkdir -p "$DIR"
printf '[daemon]\nsample_interval = 100ms\ntextfile = %s/rtltune.prom\n' "$DIR" >"$T_TMP/rtltuned.conf"
d_start "$NS" --config "$T_TMP/rtltuned.conf" --interfaces 'tf*'
d_wait_samples 2
[ -s "$DIR/rtltune.prom" ] || t_fail "no textfile written"
echo "ok: textfile written"

# Read it back-to-back while the daemon rewrites it ten times a second: every copy is
# whole (ends with the last family's sample and a newline) and parses.
whole=0 broken=0
for ((i = 0; i < 60; i++)); do
	cp "$DIR/rtltune.prom" "$T_TMP/copy.prom"
	if tail -c 1 "$T_TMP/copy.prom" | od -An -c | grep -q '\\n' &&
		grep -q '^rtltune_samples_total [0-9]' "$T_TMP/copy.prom"; then
		whole=$((whole + 1))
	else
		broken=$((broken + 1))
	fi
	sleep 0.01
done
t_eq "$broken" 0 "torn copies among 60 reads during rewrites"
rc=0
out=$(promtool check metrics <"$DIR/rtltune.prom" 2>&1) || rc=$?
t_eq "$rc:$out" "0:" "promtool on the textfile"
t_eq "$(ls "$DIR")" "rtltune.prom" "only the .prom file in the directory (no temporary left)"
grep -q '^rtltune_knob_value{device="tf0",knob="mtu"} 1500' "$DIR/rtltune.prom" ||
	t_fail "textfile lacks tf0's knob values"
d_http /metrics | grep -q '^rtltune_knob_value{device="tf0",knob="mtu"} 1500' ||
	t_fail "/metrics disagrees"
echo "ok: the textfile holds what /metrics serves"

# The directory goes away: a warning, and the daemon carries on. It goes in one step
# (rename): rm -rf races the daemon, which may make its temporary between rm's unlink of
# the last entry and its rmdir ("Directory not empty").
mv "$DIR" "$T_TMP/textfile.gone"
d_wait_samples 3
kill -0 "$D_PID" || t_fail "rtltuned died without its textfile directory"
t_eq "$(grep -c "cannot write textfile $DIR/rtltune.prom" "$D_LOG")" 1 \
	"the failure logged once (not every sample)"
mkdir -p "$DIR"
d_wait_samples 2
[ -s "$DIR/rtltune.prom" ] || t_fail "textfile not written again once the directory is back"
echo "ok: written again"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
