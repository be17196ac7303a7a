#!/bin/bash
# rtltune report from a running rtltuned: under bulk TCP at gso_max_size 16384 the tuner
# makes a trial and a verdict; GRO is switched outside rtltune; then the report's SVG
# passes xmllint and renders, has both throughput series and the retransmit axis with
# their units, the time axis in UTC, and the decisions and the outside change as labelled
# markers; --json carries the samples (as many as the daemon took, within its bound) and
# the same events. What a person sees (issue 24): a profile applied with the CLI before
# rtltuned started is one "applied" marker clear of the y axis, in a shaded stretch labelled
# "no samples"; a restore is a "restore" marker (old -> new as the restore went), not
# "applied"; the legend names those kinds (no "other"); the retransmit axis starts at 0; no
# "hover" hint. Bad use: no --svg, an unmanaged interface, no daemon.
# SVG_KEEP=DIR keeps the SVG and its PNG to look at.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/sweep-lib.sh"

tn_setup
ip -n "$TN_A" link set ta gso_max_size 16384
# Two knobs the tuner leaves alone, applied with the CLI before rtltuned runs.
printf '[knobs]\ntxqueuelen = 500\ngso_max_segs = 30000\n' >"$T_TMP/pre.conf"
t_rtl "$TN_A" apply "$T_TMP/pre.conf" ta >"$T_TMP/pre.out" 2>&1 || { cat "$T_TMP/pre.out"; t_fail "apply before rtltuned failed"; }
printf '[daemon]\nsample_interval = 250ms\n' >"$T_TMP/rtltuned.conf"
d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail
tn_loop_start
tn_wait_decision ' trial gso_max_size 16384 -> ' 25 >/dev/null || t_fail "no trial within 25 s"
tn_wait_decision ' (kept|rolled_back) gso_max_size ' 25 >/dev/null || t_fail "no verdict within 25 s"
gro=$(t_feature "$TN_A" ta generic-receive-offload)
want=$([ "$gro" = on ] && echo off || echo on)
t_in "$TN_A" ethtool -K ta gro "$want"
for ((i = 0; i < 100; i++)); do
	[ "$(d_rtl --json status ta | jq -r '.interfaces[0].manual | index("gro") != null')" = true ] && break
	sleep 0.05
done
t_eq "$(d_rtl --json status ta | jq -r '.interfaces[0].manual | index("gro") != null')" true "gro taken as changed outside rtltune"
# Back to the originals, through rtltuned: txqueuelen 500 -> 1000 among them.
RTLTUNE_SOCKET=$D_SOCK t_rtl "$TN_A" restore ta >"$T_TMP/restore.out" 2>&1 ||
	{ cat "$T_TMP/restore.out"; t_fail "restore failed"; }
grep -q '^ta txqueuelen 500 -> 1000$' "$T_TMP/restore.out" || t_fail "restore did not put txqueuelen back: $(cat "$T_TMP/restore.out")"

svg=$T_TMP/report.svg
d_rtl report ta --svg "$svg" --since 10m >"$T_TMP/out" || { cat "$T_TMP/out"; t_fail "report failed"; }
cat "$T_TMP/out"
grep -q "^chart: $svg$" "$T_TMP/out" || t_fail "no chart line"
grep -Eq '^  [0-9:]{8}  trial gso_max_size 16384 -> ' "$T_TMP/out" || t_fail "no trial listed"
grep -Eq "^  [0-9:]{8}  external: gro $gro -> $want$" "$T_TMP/out" || t_fail "no external change listed"
sw_svg_ok "$svg"
for text in 'rtltune report ta' 'tx throughput' 'rx throughput' 'retransmits (% of segments sent)' \
	'>throughput (Gbit/s)<\|>throughput (Mbit/s)<' '>retransmits (%)<' '>time (UTC, ' \
	'trial gso_max_size 16384 -&gt; ' "external: gro $gro -&gt; $want"; do
	grep -q "$text" "$svg" || t_fail "the chart has no '$text'"
done
grep -Eq '(kept|rolled back) gso_max_size ' "$svg" || t_fail "the chart has no verdict"
echo "ok: the chart has the series, the axes with units, the trial, its verdict and the outside change"

# As a person reads it (XPath over the SVG).
x() { xmllint --xpath "$1" "$svg" 2>/dev/null | tr '\n' '|' | sed 's/|$//'; }
G="//*[local-name()='g']"
T="*[local-name()='text']"
labels=$(x "$G[@class='event-labels']/$T/text()")
legend=$(x "$G[@class='legend']/$T/text()")
echo "# labels: $labels"
echo "# legend: $legend"
grep -Eq '(^|\|)applied (txqueuelen, gso_max_segs|gso_max_segs, txqueuelen)(\||$)' <<<"$labels" ||
	t_fail "the CLI's apply is not one marker 'applied txqueuelen, gso_max_segs': $labels"
# The restore comes last, near the right edge, where a trial's labels may already fill the
# lanes: then its label is one of those the chart says it left out (its tooltip is checked
# below either way).
if ! grep -Eq '(^|\|)restore [^|]*txqueuelen' <<<"$labels"; then
	grep -Eq 'event labels? left out where markers crowd: rtltune report lists every event' "$svg" ||
		t_fail "no restore label naming txqueuelen, and no note on labels left out: $labels"
	echo "# the restore's label was left out where markers crowd (the chart says so)"
fi
grep -Eq '(^|\|)external: gro' <<<"$labels" || t_fail "no 'external: gro' marker: $labels"
grep -q 'applied txqueuelen 500 -&gt; 1000\|applied [^<]*txqueuelen 500 -> 1000' "$svg" &&
	t_fail "the restore is drawn as an apply"
t_eq "$(x "count($G[@class='event']/*[local-name()='title'][starts-with(text(), 'restore at ') and contains(text(), 'txqueuelen 500 -> 1000')])")" 1 \
	"restore markers whose tooltip says txqueuelen 500 -> 1000"
grep -Eq '^  [0-9:]{8}  restore txqueuelen 500 -> 1000$' "$T_TMP/out" || t_fail "the text output does not list the restore"
grep -Eq '^  [0-9:]{8}  applied txqueuelen 1000 -> 500$' "$T_TMP/out" || t_fail "the text output does not list the CLI's apply"
for k in trial applied restore 'external change'; do
	grep -Eq "(^|\|)$k(\||$)" <<<"$legend" || t_fail "the legend has no '$k': $legend"
done
grep -Eq '(^|\|)other(\||$)' <<<"$legend" && t_fail "the legend calls something 'other': $legend"
# The ticks' decimals follow the step (0.0 or 0.00 as the retransmits were few or none).
low=$(x "$G[@class='y2-axis']/$T[1]/text()")
awk -v v="$low" 'BEGIN { exit !(v ~ /^0(\.0+)?$/) }' || t_fail "lowest tick of the retransmit axis: got '$low', expected 0"
echo "ok: lowest tick of the retransmit axis = $low"
t_eq "$(x "count($G[@class='y2-axis']/$T[starts-with(text(), '-')])")" 0 "negative retransmit ticks"
grep -qi hover "$svg" && t_fail "the chart tells a reader of a static image to hover"
# The apply came before the first sample: its marker stands right of the y axis (x 78), in the
# shaded stretch without samples, which starts at the axis.
ax=$(x "string($G[@class='event'][starts-with(*[local-name()='title'], 'applied at ')]/*[local-name()='line']/@x1)")
bx=$(x "string($G[@class='no-samples'][1]/*[local-name()='rect']/@x)")
bw=$(x "string($G[@class='no-samples'][1]/*[local-name()='rect']/@width)")
echo "# applied marker at x $ax; stretch without samples from $bx, $bw px wide"
awk -v a="$ax" -v x="$bx" -v w="$bw" 'BEGIN { exit !(x == 78 && a > 78 + 1 && a < x + w) }' ||
	t_fail "the apply before the first sample is not inside the shaded stretch, clear of the axis"
echo "ok: the apply before the samples, the restore, the legend and the retransmit axis read right"
[ -n "${SVG_KEEP:-}" ] && mkdir -p "$SVG_KEEP" && cp "$svg" "${svg%.svg}.png" "$SVG_KEEP/"

# As many samples as the daemon took (a verdict may come early, so their number varies):
# all but the first two (the first has no rate yet; one may land between the reads).
json=$T_TMP/report.json
before=$(d_rtl --json status | jq .daemon.samples)
d_rtl --json report ta --svg "$T_TMP/report2.svg" --since 10m >"$json"
samples=$(d_rtl --json status | jq .daemon.samples)
n=$(jq '.samples | length' "$json")
t_ge "$n" $((before - 2)) "samples in the report (the daemon had taken $before)"
t_ge "$n" 10 "samples in the report (a trial and its verdict take more)"
t_le "$n" "$samples" "samples in the report (no more than the daemon took)"
t_eq "$(jq -r '.columns | join(",")' "$json")" \
	"time,seconds,tx_bytes_per_s,rx_bytes_per_s,tx_packets_per_s,rx_packets_per_s,tx_segments_per_s,tcp_retransmit_segments_per_s,drops_per_s" "columns"
t_ge "$(jq '[.samples[] | select(.[2] > 1e7)] | length' "$json")" 5 "samples with > 10 MB/s sent"
t_eq "$(jq '[.events[] | select(.outcome == "trial" and .knob == "gso_max_size")] | length >= 1' "$json")" true "trial in the events"
t_eq "$(jq '[.events[] | select(.outcome == "external" and .knob == "gro")] | length' "$json")" 1 "outside change in the events"
t_eq "$(jq '[.events[].time] | . == sort' "$json")" true "events in time order"

# Bad use.
rc=0; d_rtl report ta >/dev/null 2>&1 || rc=$?
t_eq "$rc" 2 "report without --svg"
rc=0; d_rtl report lo --svg "$T_TMP/x.svg" >/dev/null 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 3 "report of an interface rtltuned does not manage"
grep -q 'not managed' "$T_TMP/err" || t_fail "message does not say why"
rc=0; RTLTUNE_SOCKET=$T_TMP/none.sock "$RTLTUNE" report ta --svg "$T_TMP/x.svg" >/dev/null 2>&1 || rc=$?
t_eq "$rc" 3 "report without a daemon"
tn_done
