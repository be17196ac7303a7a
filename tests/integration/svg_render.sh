#!/bin/bash
# Every chart lib/svg draws is a well-formed, self-contained SVG that a renderer draws:
# the sample charts of build/tests/tools/svg_sample (an MTU sweep with spread bars and
# marks, one with text to escape and a gap, timelines with relative and UTC times, two y
# axes and decision markers, one crowded with 35 decisions, one with changes before and after
# the samples and no retransmits) each pass `xmllint --noout`,
# reference nothing outside the file, and render with rsvg-convert to a PNG of the SVG's
# size; two runs write the same bytes. Keep the PNGs to look at: SVG_KEEP=DIR.
. "$(dirname "$0")/../lib.sh"

SAMPLE=$TOP/build/tests/tools/svg_sample
[ -x "$SAMPLE" ] || t_fail "$SAMPLE not built (make check builds tests/tools/*)"
command -v xmllint >/dev/null || t_skip "xmllint not installed (libxml2-utils; make deps)"
command -v rsvg-convert >/dev/null || t_skip "rsvg-convert not installed (librsvg2-bin; make deps)"

out=${SVG_KEEP:-$T_TMP/svg}
mkdir -p "$out" "$T_TMP/again"
"$SAMPLE" demo "$out" >/dev/null
"$SAMPLE" demo "$T_TMP/again" >/dev/null
n=0
# The charts this run wrote (SVG_KEEP may hold other files).
for again in "$T_TMP/again"/*.svg; do
	name=$(basename "$again" .svg)
	svg=$out/$name.svg
	cmp -s "$svg" "$T_TMP/again/$name.svg" || t_fail "$name.svg: two runs differ"
	xmllint --noout "$svg" || t_fail "$name.svg: not well-formed XML"
	# Self-contained: no external references (images, stylesheets, fonts, scripts).
	if grep -Eq 'xlink:href|<image|<script|@import|url\(' "$svg"; then
		t_fail "$name.svg refers to something outside the file"
	fi
	rsvg-convert -o "$out/$name.png" "$svg" || t_fail "$name.svg: rsvg-convert failed"
	size=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); assert d[:8]==b"\x89PNG\r\n\x1a\n"; print("%dx%d" % struct.unpack(">II", d[16:24]))' "$out/$name.png")
	t_eq "$size" 800x480 "$name.png size"
	n=$((n + 1))
done
t_eq "$n" 6 "sample charts checked"
grep -q '>time (UTC, 2025-12-01)<' "$out/timeline-abs.svg" || t_fail "timeline-abs.svg: no UTC time axis"
grep -q 'event labels left out' "$out/timeline-crowded.svg" || t_fail "timeline-crowded.svg: no note on left-out labels"
! grep -qi 'hover' "$out"/*.svg || t_fail "a chart tells the reader to hover (also a static image)"
# The chart with no retransmits: its rate axis runs 0 .. 1 %, and the stretches without
# samples (before the first, after the last) are shaded and labelled, read with XPath.
x() { xmllint --xpath "$1" "$out/timeline-before.svg" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
t_eq "$(x "//*[local-name()='g'][@class='y2-axis']/*[local-name()='text'][1]/text()")" 0.0 "lowest retransmit tick"
t_eq "$(x "count(//*[local-name()='g'][@class='y2-axis']/*[local-name()='text'][starts-with(text(), '-')])")" 0 "negative retransmit ticks"
t_eq "$(x "count(//*[local-name()='g'][@class='no-samples'])")" 2 "stretches without samples"
t_eq "$(x "//*[local-name()='g'][@class='legend']/*[local-name()='text']/text()")" \
	"tx throughput retransmits (% of segments sent) external change applied restore" "legend"
grep -q '&lt;rx&gt; &amp; &quot;tx&quot;' "$out/xy-escape.svg" || t_fail "xy-escape.svg: legend not escaped"
t_log "PNGs in $out"
