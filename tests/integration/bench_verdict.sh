#!/bin/bash
# A bench cannot say "met" without a figure: judge() (scripts/bench-lib.sh), the one verdict
# of every bench, calls a missing or non-numeric figure MISSED; bench-reroute with a tool
# that fails (REROUTE_COST=false) makes `scripts/bench.sh` print MISSED rows and exit 1, and
# so does a part that does not exist. (Before: awk's "" < 5000 made it "targets: met".)
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
command -v jq >/dev/null || t_skip "jq not installed"

# shellcheck source=../../scripts/bench-lib.sh
. scripts/bench-lib.sh
while read -r value op target want; do
	[ "$value" = '""' ] && value=
	t_eq "$(judge "$value" "$op" "$target")" "${want//_/ }" "judge '$value' $op $target"
done <<'EOF'
4999 < 5000 met
5000 < 5000 MISSED
"" < 5000 MISSED_(no_figure)
null <= 50 MISSED_(no_figure)
- >= 0.9 MISSED_(no_figure)
nan >= 0.9 MISSED_(no_figure)
.0734 <= 0.5 met
1.5e3 <= 2000 met
0.97 >= 0.98 MISSED
EOF
t_eq "$(judge 1 '~' 2 2>/dev/null)" "MISSED (no verdict)" "judge with an unknown comparison"
t_eq "$(all_met met met)" met "all_met of two met"
t_eq "$(all_met met "MISSED (no figure)" MISSED)" "MISSED (no figure)" "all_met names the first miss"
t_eq "$(all_met)" "MISSED (no verdict)" "all_met of nothing"

# The reroute part with a tool that fails at once.
rc=0
REROUTE_COST=false ROUTES=10 BENCH=reroute scripts/bench.sh >"$T_TMP/reroute" 2>&1 || rc=$?
sed 's/^/#   | /' "$T_TMP/reroute"
t_eq "$rc" 1 "bench.sh exit status, reroute_cost failing"
t_eq "$(grep -c '^  targets: MISSED (no figure)$' "$T_TMP/reroute")" 1 "bench-reroute's own verdict"
t_eq "$(grep -cE '^  route invalidation, IPv[46]: .* MISSED \(no figure\)$' "$T_TMP/reroute")" 2 \
	"the summary's reroute rows"
t_eq "$(tail -n 1 "$T_TMP/reroute")" "bench: 2 of 2 verdicts missed" "bench.sh's last line"
[ -z "$(ip netns list | grep '^rtlrr')" ] || t_fail "bench-reroute left its namespace behind"

# A part that does not exist has no figure.
rc=0
BENCH=no_such_part scripts/bench.sh >"$T_TMP/none" 2>&1 || rc=$?
t_eq "$rc" 1 "bench.sh exit status, no such part"
t_eq "$(grep -c '^  no_such_part: no such bench .* MISSED (no figure)$' "$T_TMP/none")" 1 \
	"a missing part is a MISSED row"
