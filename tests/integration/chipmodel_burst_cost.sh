#!/bin/bash
# Chip model 2, the per-burst cost (the r8169 TX DMA burst seed: throughput dips right above
# MTU = k * 1024 + 52). An MTU sweep 1000..1600 step 8, one new 0.25 s connection per step,
# on a receiver that is CPU-bound anyway (1 us per frame, model 1: without it veth's own
# rate swings +-30% from step to step on a busy machine and hides any shape): with
# 1024-byte bursts at 2 us each the only dip is at the first step above 1076 (within 8
# bytes of it); with the burst cost off there is none. A dip at step i: rate[i] and the
# median of rate[i..i+2] both below 0.75 x the median of the three steps before (a lone
# slow step is noise, not a dip); consecutive flagged steps are one dip, placed at the first.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/chipmodel-lib.sh"

BURST=1024 OFFSET=52 BURST_NS=${CM_BURST_NS:-2000} FRAME_NS=${CM_FRAME_NS:-1000}
EDGE=$((BURST + OFFSET))
cm_pair
cm_serve

# sweep FILE: "mtu gbit" per line.
sweep() {
	local m
	: >"$1"
	for ((m = 1000; m <= 1600; m += 8)); do
		cm_mtu $m
		cm_stream 0.25
		echo "$m $CM_GBIT" >>"$1"
	done
}
# dips FILE: the MTU of each dip, one per line.
dips() {
	awk '{ m[NR] = $1; r[NR] = $2 }
	function med3(a, b, c) { return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b)) }
	END {
		prev = 0
		for (i = 4; i <= NR - 2; i++) {
			before = med3(r[i - 3], r[i - 2], r[i - 1])
			after = med3(r[i], r[i + 1], r[i + 2])
			flag = r[i] < 0.75 * before && after < 0.75 * before
			if (flag && !prev) print m[i]
			prev = flag
		}
	}' "$1"
}
show() { t_log "$1: $(awk '{ printf "%s:%.2f ", $1, $2 }' "$2")"; }

cm_frame_cost "$FRAME_NS"
cm_burst_cost $BURST "$BURST_NS" $OFFSET
sweep "$T_TMP/on"
show "burst cost on (MTU:Gbit/s)" "$T_TMP/on"
mapfile -t on_dips < <(dips "$T_TMP/on")
t_log "dips with the burst cost on: ${on_dips[*]:-none}"
t_eq "${#on_dips[@]}" 1 "dips in 1000..1600 with the burst cost on"
t_ge "${on_dips[0]}" $((EDGE + 1)) "dip right above $EDGE"
t_le "${on_dips[0]}" $((EDGE + 8)) "dip within 8 bytes of $EDGE"
before=$(awk -v e=$EDGE '$1 <= e { r = $2 } END { print r }' "$T_TMP/on")
after=$(awk -v d="${on_dips[0]}" '$1 == d { print $2 }' "$T_TMP/on")
cm_le_ratio "$after" "$before" 0.75 "rate at the dip vs the step before it"
t_ge "$(cm_stat cost_bursts)" 1 "bursts charged"

# The sweep as a chart (lib/svg through build/tests/tools/svg_sample); CM_CHART_DIR keeps it.
chart=${CM_CHART_DIR:-$T_TMP}/chipmodel-burst-sweep.svg
cp "$T_TMP/on" "${chart%.svg}.txt" 2>/dev/null || true
"$TOP/build/tests/tools/svg_sample" sweep "$T_TMP/on" "$chart" >/dev/null
if command -v xmllint >/dev/null && command -v rsvg-convert >/dev/null; then
	xmllint --noout "$chart" || t_fail "$chart: not well-formed"
	rsvg-convert -o "${chart%.svg}.png" "$chart" || t_fail "$chart: rsvg-convert failed"
	t_log "chart: $chart and ${chart%.svg}.png"
fi

cm_burst_cost 0 0
sweep "$T_TMP/off"
show "burst cost off (MTU:Gbit/s)" "$T_TMP/off"
mapfile -t off_dips < <(dips "$T_TMP/off")
t_eq "${#off_dips[@]}" 0 "dips with the burst cost off (${off_dips[*]:-none})"
