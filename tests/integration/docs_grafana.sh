#!/bin/bash
# t-lane: beside
# docs/grafana/rtltune-dashboard.json: valid JSON that Grafana imports (unique panel ids,
# panels inside the 24-column grid and not overlapping, every query on the ${datasource}
# variable), a heatmap of the _bucket series for each histogram family, panels for knob
# values, decisions by outcome, retransmits and probe cost, and every PromQL query
# parses (promtool, with Grafana's variables filled in). docs_prometheus_live.sh runs the
# same queries against a real Prometheus.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
dash=docs/grafana/rtltune-dashboard.json
command -v promtool >/dev/null || t_fail "promtool missing (scripts/deps.sh installs prometheus)"

jq empty "$dash" || t_fail "$dash is not valid JSON"
t_eq "$(jq -r .uid "$dash")" rtltune-overview "dashboard uid"
t_eq "$(jq '[.templating.list[] | select(.type == "datasource" and .query == "prometheus")] | length' "$dash")" 1 \
	"a Prometheus datasource variable"

python3 - "$dash" >"$T_TMP/layout.out" <<'EOF' || { cat "$T_TMP/layout.out"; t_fail "dashboard structure"; }
import json, sys
d = json.load(open(sys.argv[1]))
panels = d["panels"]
ids = [p["id"] for p in panels]
assert len(ids) == len(set(ids)), "duplicate panel ids"
cells = {}
for p in panels:
    g = p["gridPos"]
    assert 1 <= g["w"] and g["x"] >= 0 and g["x"] + g["w"] <= 24, f"{p['title']}: outside the grid"
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            assert (x, y) not in cells, f"{p['title']} overlaps {cells[(x, y)]}"
            cells[(x, y)] = p["title"]
    for t in p.get("targets", []):
        assert t["datasource"]["uid"] == "${datasource}", f"{p['title']}: fixed datasource"
        assert t.get("refId"), f"{p['title']}: target without refId"
print("panels", len(panels))
print("rows", sum(p["type"] == "row" for p in panels))
print("queries", sum(len(p.get("targets", [])) for p in panels))
EOF
cat "$T_TMP/layout.out"
t_ge "$(awk '/^panels/ { print $2 }' "$T_TMP/layout.out")" 20 "panels"
t_ge "$(awk '/^rows/ { print $2 }' "$T_TMP/layout.out")" 5 "rows"

# One heatmap per histogram family, on its _bucket series, buckets as they are (no
# re-bucketing by Grafana).
for h in tx_skb_bytes tx_gso_size_bytes tx_gso_segments rx_frame_bytes rx_skb_bytes; do
	n=$(jq --arg m "rtltune_${h}_bucket" '[.panels[] | select(.type == "heatmap"
		and .options.calculate == false
		and (.targets[0].format == "heatmap")
		and (.targets[0].expr | contains("rate(" + $m + "{") and contains("by (le)")))] | length' "$dash")
	t_eq "$n" 1 "heatmap of rtltune_${h}_bucket"
done
panel_with() { jq --arg re "$1" '[.panels[] | select(.type != "row") | select(any(.targets[]; .expr | test($re)))] | length' "$dash"; }
t_ge "$(panel_with 'rtltune_knob_value')" 2 "panels of knob values"
t_ge "$(panel_with 'by \(outcome\).*rtltune_tuning_decisions_total')" 1 "panel of decisions by outcome"
t_ge "$(panel_with 'rtltune_tcp_retransmit_segments_total')" 1 "panel of retransmits"
t_ge "$(panel_with 'rtltune_probe_run_seconds_total')" 2 "panels of probe cost"
t_ge "$(jq '[.annotations.list[] | select(.expr? and (.expr | contains("rolled_back")))] | length' "$dash")" 1 \
	"rollbacks as annotations"

# Every query, panels and annotations, parses as PromQL once Grafana's variables are filled
# in: as recording rules for promtool.
jq -r '[.panels[].targets[]?.expr, .annotations.list[].expr?] | map(select(.)) | .[]' "$dash" |
	sed -e 's/\$__rate_interval/1m/g; s/\$__interval/1m/g; s/\$__range/1h/g; s/\$instance/.*/g; s/\$device/.*/g' \
	>"$T_TMP/exprs"
n=$(wc -l <"$T_TMP/exprs")
t_ge "$n" 30 "queries in the dashboard"
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	i=0
	while IFS= read -r e; do
		i=$((i + 1))
		printf '      - record: dashboard:q%d\n        expr: %s\n' "$i" "$(jq -Rn --arg e "$e" '$e')"
	done <"$T_TMP/exprs"
} >"$T_TMP/dashboard.rules.yml"
promtool check rules "$T_TMP/dashboard.rules.yml" >"$T_TMP/check.out" 2>&1 ||
	{ cat "$T_TMP/check.out"; t_fail "a dashboard query does not parse"; }
t_eq "$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$T_TMP/check.out")" "$n" "dashboard queries that parse"
