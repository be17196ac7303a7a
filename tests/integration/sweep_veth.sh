#!/bin/bash
# rtltune sweep on a veth pair under bulk TCP (iperf3, new connections every second):
# gso_max_size through 16K,32K,64K. The table lists the original value and each step with
# the spread of its samples; the JSON has per step at least 3 samples, throughput in both
# directions, CPU per byte, retransmits, drops and the skb sizes; the largest TX skbs of a
# step never exceed its gso_max_size; the value from before is back afterwards (ip), no
# operation is left in flight in the journal, and the decision log holds the steps. The
# chart passes xmllint and renders. A FROM:TO:STEP range of the MTU is swept the same way.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
. "$TOP/tests/sweep-lib.sh"

tn_setup
ip -n "$TN_A" link set ta gso_max_size 16384
before=$(t_link_state "$TN_A" ta)
tn_loop_start

out=$T_TMP/sweep.txt
t_in "$TN_A" timeout 30 "$RTLTUNE" sweep ta gso_max_size 16K,32K,64K --seconds 1.5 --settle 0.5 \
	--svg "$T_TMP/sweep.svg" >"$out" 2>"$T_TMP/sweep.err" || { cat "$out" "$T_TMP/sweep.err"; t_fail "sweep failed"; }
cat "$out"
grep -Eq '^ +16384 \* ' "$out" || t_fail "the original value is not the first row, marked *"
for v in 32768 65536; do grep -Eq "^ +$v  " "$out" || t_fail "no row for $v"; done
grep -q '^best: gso_max_size ' "$out" || t_fail "no best line"
grep -q '^gso_max_size is back at 16384$' "$out" || t_fail "no restore line"
t_eq "$(grep -c '^step [0-9]/3: gso_max_size' "$T_TMP/sweep.err")" 3 "progress lines on stderr"
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 16384 "gso_max_size after the sweep"
t_eq "$(t_link_state "$TN_A" ta)" "$before" "every setting as before"
t_eq "$(sw_inflight)" 0 "operations in flight after the sweep"
sw_svg_ok "$T_TMP/sweep.svg"
grep -q '>gso_max_size (bytes)<' "$T_TMP/sweep.svg" || t_fail "x axis without its unit"
grep -q '>throughput (Gbit/s)<\|>throughput (Mbit/s)<' "$T_TMP/sweep.svg" || t_fail "y axis without its unit"
grep -q 'before the sweep: 16384' "$T_TMP/sweep.svg" || t_fail "original value not marked"
grep -q '>best: ' "$T_TMP/sweep.svg" || t_fail "best value not marked"

# The same in JSON: numbers that make sense.
json=$T_TMP/sweep.json
t_in "$TN_A" timeout 30 "$RTLTUNE" --json sweep ta gso_max_size 32K,64K --seconds 1.5 --settle 0.5 >"$json" ||
	{ cat "$json"; t_fail "sweep --json failed"; }
jq -e . "$json" >/dev/null || t_fail "not one JSON document"
t_eq "$(jq -r '[.ifname, .knob, .direction, .original, (.steps | length), .restored] | join(" ")' "$json")" \
	"ta gso_max_size tx 16384 3 true" "ifname knob direction original steps restored"
t_eq "$(jq -r '[.steps[].value] | join(",")' "$json")" "16384,32768,65536" "step values"
t_eq "$(jq '[.steps[] | select(.samples >= 3)] | length' "$json")" 3 "steps with at least 3 samples"
t_eq "$(jq '[.steps[] | select(.throughput_bits_per_s.median > 1e8 and
	.throughput_bits_per_s.min <= .throughput_bits_per_s.median and
	.throughput_bits_per_s.median <= .throughput_bits_per_s.max)] | length' "$json")" 3 \
	"steps with > 100 Mbit/s and min <= median <= max"
t_eq "$(jq '[.steps[] | select(.tx_bits_per_s.median == .throughput_bits_per_s.median and
	.rx_bits_per_s.median > 0 and .cpu_ns_per_byte > 0 and .tx_segments > 0 and
	.retransmit_ratio >= 0 and .retransmit_ratio < 0.05 and .drops >= 0 and
	.tx_skb_bytes.count > 0 and .rx_skb_bytes.count > 0)] | length' "$json")" 3 \
	"steps with tx = throughput, rx, CPU per byte, segments, retransmits, drops, skb sizes"
# An skb at 16384 lands in the bucket le 16384, at 32768 in le 32768: none above the step's.
t_eq "$(jq '[.steps[] | select((.tx_skb_bytes.buckets | map(.[0]) | max) <= .value)] | length' "$json")" 3 \
	"steps whose largest TX skbs stay within their gso_max_size"
t_eq "$(jq -r '.steps[0].original, .steps[1].original' "$json" | tr '\n' ' ')" "true false " "original flags"
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 16384 "gso_max_size after the JSON sweep"
steps=$(RTLTUNE_STATE_DIR=$RTLTUNE_STATE_DIR "$RTLTUNE" --json log --journal --lines 100 |
	jq '[.entries[] | select(.outcome == "sweep" and .knob == "gso_max_size" and .iface == "ta")] | length')
# Per sweep: one record per step that changed something (32K and 64K; 16K was the value
# already) and one for the restore.
t_eq "$steps" 6 "sweep records in the decision log"

# A range of the MTU, on new connections (the loop opens one a second).
t_in "$TN_A" timeout 30 "$RTLTUNE" --json sweep ta mtu 1300:1500:100 --seconds 1 --settle 0.3 >"$json" ||
	{ cat "$json"; t_fail "mtu sweep failed"; }
t_eq "$(jq -r '[.steps[].value] | join(",")' "$json")" "1500,1300,1400,1500" "mtu range steps"
t_eq "$(jq -r .direction "$json")" both "mtu direction"
t_eq "$(t_ip_attr "$TN_A" ta mtu)" 1500 "mtu after the sweep"
t_eq "$(t_link_state "$TN_A" ta)" "$before" "every setting as before"
