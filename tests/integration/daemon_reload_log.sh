#!/bin/bash
# t-lane: beside
# Issue 23: a reload kept the log's sequence numbers but zeroed the ring behind them, so
# `rtltune log` after a SIGHUP showed lines of "1970-01-01 00:00:00 emerg" with no message
# (seq 0, time 0). Four reloads here; `rtltune --json log` compared entry by entry (seq,
# time, level, iface, message): every entry logged before a reload comes back identical,
# the reload's own lines follow with seq one more each time, and a log_level changed by a
# reload takes effect (at warning its own info line is not kept, back at info it is)
# without losing the rest.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add rl0 netns "$NS" type veth peer name rl1 netns "$NS"
CONF=$T_TMP/rtltuned.conf
printf '[daemon]\nsample_interval = 200ms\n' >"$CONF"
d_start "$NS" --config "$CONF" --interfaces 'rl*' --no-autotune

# The log as one compact JSON entry per line: seq, time, level, iface, message.
log_lines() { d_rtl --json log | jq -c '.entries[] | [.seq, .time, .level, .iface, .message]'; }

# reload: SIGHUP, then wait (bounded) for status to count it.
reload() {
	local want i
	want=$(($(d_rtl --json status | jq .daemon.reloads) + 1))
	kill -HUP "$D_PID"
	for ((i = 0; i < 200; i++)); do
		[ "$(d_rtl --json status | jq .daemon.reloads)" -ge "$want" ] && return 0
		sleep 0.05
	done
	t_fail "reload $want not counted in status within 10 s"
}

# check_kept BEFORE AFTER: AFTER begins with every line of BEFORE, unchanged; the lines it
# adds have seq one more each time, a real time and a message.
check_kept() {
	local before=$1 after=$2 n
	n=$(wc -l <"$before")
	head -n "$n" "$after" | cmp -s - "$before" || {
		diff "$before" <(head -n "$n" "$after") | head -20 >&2
		t_fail "entries logged before the reload changed"
	}
	jq -s --argjson first "$(head -n 1 "$after" | jq '.[0]')" '
		[to_entries[] | select(.value[0] != $first + .key)] | length' "$after" |
		{ read -r bad; t_eq "$bad" 0 "entries whose seq is not the one before plus one"; }
	t_eq "$(jq -s '[.[] | select(.[1] < 1000000000 or .[4] == "")] | length' "$after")" 0 \
		"entries with no time or no message"
}

log_lines >"$T_TMP/log0"
t_le 5 "$(wc -l <"$T_TMP/log0")" "entries before the first reload"
grep -q '"ready: socket ' "$T_TMP/log0" || t_fail "no ready line in the log: $(cat "$T_TMP/log0")"

reload
log_lines >"$T_TMP/log1"
check_kept "$T_TMP/log0" "$T_TMP/log1"
t_eq "$(grep -c '"reloaded ' "$T_TMP/log1")" 1 "reloaded lines after the first reload"

reload
log_lines >"$T_TMP/log2"
check_kept "$T_TMP/log1" "$T_TMP/log2"
t_eq "$(grep -c '"reloaded ' "$T_TMP/log2")" 2 "reloaded lines after the second reload"
t_eq "$(grep -c '"emerg"' "$T_TMP/log2")" 0 "emerg entries after the second reload"

# The third reload raises log_level to warning: its own "reloaded" (info) is not kept, the
# level takes effect, and the ring keeps what it held.
printf '[daemon]\nsample_interval = 200ms\nlog_level = warning\n' >"$CONF"
reload
log_lines >"$T_TMP/log3"
check_kept "$T_TMP/log2" "$T_TMP/log3"
t_eq "$(grep -c '"reloaded ' "$T_TMP/log3")" 2 "reloaded lines after a reload to log_level warning"
# And back to info: the fourth reload's line is kept again.
printf '[daemon]\nsample_interval = 200ms\nlog_level = info\n' >"$CONF"
reload
log_lines >"$T_TMP/log4"
check_kept "$T_TMP/log3" "$T_TMP/log4"
t_eq "$(grep -c '"reloaded ' "$T_TMP/log4")" 3 "reloaded lines after a reload back to log_level info"

# The text view: no entry from 1970 and none without a message.
d_rtl log >"$T_TMP/text"
t_ge "$(wc -l <"$T_TMP/text")" "$(wc -l <"$T_TMP/log4")" "lines of rtltune log"
grep -n '^1970-' "$T_TMP/text" && t_fail "rtltune log shows entries from 1970"
kill -0 "$D_PID" || t_fail "rtltuned died"
echo "daemon_reload_log: entries=$(wc -l <"$T_TMP/log4") reloads=4 kept_over_the_last=$(wc -l <"$T_TMP/log3")"
