#!/bin/bash
# Idle sampling (issue 28, docs/daemon.md "Every sample"): a managed interface whose packet
# counters stand still is read every 16th sample only (`"idle": true` in `stats --json`,
# its rates over the real time since its last read: `"rate_seconds"` about 16 intervals),
# and is still reported exactly: its counters are the kernel's. Traffic that starts on it
# is seen at its next read (within 16 samples, 18 allowed: a poll may fall between), and
# from then on it is read every sample (`rate_seconds` one interval, not idle). When the
# traffic stops it is idle again with the kernel's final counts. A notification about it
# (txqueuelen changed outside rtltune) has it read at the next sample, not in its phase.
# probes = off: the counters are the link's (RTM_GETLINK), the reads being skipped.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

t_quiet_pair 10.87
CONF=$T_TMP/rtltuned.conf
cat >"$CONF" <<'EOF'
[daemon]
sample_interval = 200ms
interfaces = va
probes = off
EOF
d_start "$A" --config "$CONF"

# st JQ: va's entry of `stats --json`, through JQ.
st() { d_rtl --json stats | jq -c ".interfaces[] | select(.ifname == \"va\") | $1"; }
samples() { d_rtl --json status | jq .daemon.samples; }
knobs() { d_rtl --json status | jq -c '.interfaces[] | select(.ifname == "va") | .knobs'; }
kernel() { ip -n "$A" -j -s link show dev va | jq ".[0].stats64.$1.packets"; }
# wait_idle WANT: until va's "idle" is WANT (bounded: 100 samples at 200 ms).
wait_idle() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(st .idle)" = "$1" ] && return 0
		sleep 0.05
	done
	t_fail "va idle is not $1 after 20 s: $(st '{idle, rate_seconds, rates}')"
}
exact() {
	t_eq "$(st .rx_packets)" "$(kernel rx)" "$1: rx_packets as the kernel counts"
	t_eq "$(st .tx_packets)" "$(kernel tx)" "$1: tx_packets as the kernel counts"
}

# 1. Idle: read every 16th sample, rates over that span, counts exact.
# (The first read after it went idle comes at its phase, up to 16 samples on; the second
# spans all 16.)
wait_idle true
s0=$(samples)
for ((i = 0; i < 400; i++)); do
	[ "$(st '.rate_seconds >= 2.8')" = true ] && break
	sleep 0.05
done
t_le $(($(samples) - s0)) 33 "samples until an idle read spans 16"
t_eq "$(st '.rate_seconds >= 2.8 and .rate_seconds <= 4.0')" true \
	"idle: rates span about 16 samples of 200 ms ($(st .rate_seconds) s)"
t_eq "$(st .rates.rx_packets)" 0 "idle: rx rate"
exact idle

# 2. Traffic starts: seen at the next read, then read every sample.
before=$(st .rx_packets)
s0=$(samples)
ip netns exec "$B" ping -q -i 0.05 10.87.0.1 >/dev/null 2>&1 &
PING=$!
t_defer "kill $PING 2>/dev/null || true"
seen=
for ((i = 0; i < 400; i++)); do
	[ "$(st .rx_packets)" -gt "$before" ] && { seen=$(samples); break; }
	sleep 0.02
done
[ -n "$seen" ] || t_fail "traffic on va not seen in stats within 8 s"
t_le $((seen - s0)) 18 "samples from the traffic's start to its first read"
d_wait_samples 2
t_eq "$(st .idle)" false "with traffic: not idle"

t_eq "$(st '.rate_seconds < 0.4')" true "with traffic: rates over one interval ($(st .rate_seconds) s)"
t_eq "$(st '.rates.rx_packets > 0')" true "with traffic: rx rate ($(st .rates.rx_packets)/s)"
a=$(st .rx_packets)
d_wait_samples 1
t_eq "$(st ".rx_packets > $a")" true "with traffic: read at the next sample"

# 3. Traffic stops: idle again, with the final counts.
kill "$PING"
wait "$PING" 2>/dev/null || true
wait_idle true
exact "idle again"

# 3b. At rest: its snapshot kept deflated (`"at_rest": true`), and the outputs read from it
# the knobs the kernel has.
for ((i = 0; i < 400; i++)); do
	[ "$(st .at_rest)" = true ] && break
	sleep 0.05
done
t_eq "$(st .at_rest)" true "idle at its read: at rest"
# What the kernel has (rtltune show reads it directly; features as 1/0) against what stats
# and status give from the snapshot at rest: every knob both name.
live=$(ip netns exec "$A" "$RTLTUNE" --json show va |
	jq -c '.[0] | with_entries(select(.value != null) | .value |= (if . == true then 1 elif . == false then 0 else . end))')
rest=$(st .knob_value)
t_ge "$(jq -n --argjson a "$live" --argjson b "$rest" '[$b | to_entries[] | select(.value != null and ($a[.key] | type) == "number")] | length')" 30 \
	"at rest: knobs compared with the kernel's"
t_eq "$(jq -n -c --argjson a "$live" --argjson b "$rest" '[$b | to_entries[] | select(.value != null and ($a[.key] | type) == "number" and $a[.key] != .value) | .key]')" "[]" \
	"at rest: stats gives every knob as the kernel has it"
t_eq "$(knobs)" "$(echo "$rest" | jq -c .)" "at rest: status gives the same knobs as stats"

# 3c. A trickle (a ping a second: 2 packets a second both ways, under 1 a sample) leaves va
# idle and at rest over its reads (each shows the trickle's rate: it was read), and its
# counts are exact once the trickle stops.
before=$(st .rx_packets)
t_in "$B" ping -q -i 1 10.87.0.1 >/dev/null 2>&1 &
TRICKLE=$!
t_defer "kill $TRICKLE 2>/dev/null || true"
reads=0 last=$before
for ((i = 0; i < 300 && reads < 3; i++)); do
	cur=$(st '[.idle, .at_rest, .rx_packets] | map(tostring) | join(" ")')
	read -r idle rest rx <<<"${cur//\"/}"
	[ "$idle $rest" = "true true" ] || t_fail "a trickle woke va: idle $idle, at_rest $rest ($(st '{rate_seconds, rates}'))"
	[ "$rx" -gt "$last" ] && { reads=$((reads + 1)); last=$rx; }
	sleep 0.1
done
t_ge "$reads" 3 "reads of va that counted the trickle, idle and at rest throughout"
t_eq "$(st '.rates.rx_packets > 0 and .rates.rx_packets < 3')" true \
	"a trickle read: its rate over the span ($(st .rates.rx_packets)/s)"
kill "$TRICKLE"
wait "$TRICKLE" 2>/dev/null || true
# Exact at a read after it (a late neighbour probe may still move the kernel's counts, so
# each look compares both at once; bounded: 400 looks).
same=
for ((i = 0; i < 400; i++)); do
	got="$(st .rx_packets) $(st .tx_packets)" want="$(kernel rx) $(kernel tx)"
	[ "$got" = "$want" ] && { same=1; break; }
	sleep 0.05
done
[ -n "$same" ] || t_fail "after the trickle: rx/tx packets $got, the kernel's $want (400 looks)"
echo "ok: after the trickle: rx/tx packets as the kernel counts ($got)"
# Its history (the trickle's rows joined into one of their means, daemon/history.c) is
# whole: the rows' packets (rate x seconds, column 5 rx_packets_per_s) add up to what stats
# counts, every one since the first read (the pair had none before). Each look takes both.
same=
for ((i = 0; i < 100; i++)); do
	d_rtl --json report va --svg "$T_TMP/va.svg" >"$T_TMP/report.json" || t_fail "report va failed"
	sum=$(jq '[.samples[] | .[5] * .[1]] | add | round' "$T_TMP/report.json")
	[ "$sum" = "$(st .rx_packets)" ] && { same=1; break; }
	sleep 0.05
done
[ -n "$same" ] || t_fail "history: its rows add up to $sum rx packets, stats counts $(st .rx_packets)"
echo "ok: history: $(jq '.samples | length' "$T_TMP/report.json") rows, adding up to the $sum rx packets counted"

# 4. A notification about an idle interface: read at the next sample.
d_wait_samples 1
s0=$(samples)
ip -n "$A" link set va txqueuelen 777
seen=
for ((i = 0; i < 200; i++)); do
	[ "$(st .knob_value.txqueuelen)" = 777 ] && { seen=$(samples); break; }
	sleep 0.02
done
[ -n "$seen" ] || t_fail "the outside txqueuelen change not seen within 4 s"
t_le $((seen - s0)) 3 "samples from the notification to the read"
grep -q "txqueuelen changed outside rtltune: 1000 -> 777" "$D_LOG" ||
	t_fail "the outside change is not logged: $(tail -n 5 "$D_LOG")"
echo "ok: the outside change logged"
d_stop
