#!/bin/bash
# t-lane: beside
# docs/prometheus: the scrape config and the rules pass promtool's checks with no warning,
# the alert unit tests pass (promtool test rules), and the alerts the fleet docs promise
# exist. The live counterpart (a real Prometheus scraping a real rtltuned) is
# docs_prometheus_live.sh.
. "$(dirname "$0")/../lib.sh"
cd "$TOP/docs/prometheus"
command -v promtool >/dev/null || t_fail "promtool missing (scripts/deps.sh installs prometheus)"

promtool check config prometheus.yml >"$T_TMP/config.out" 2>&1 ||
	{ cat "$T_TMP/config.out"; t_fail "promtool check config"; }
cat "$T_TMP/config.out"
grep -qi warning "$T_TMP/config.out" && t_fail "promtool check config warns"
t_eq "$(grep -c SUCCESS "$T_TMP/config.out")" 3 "promtool check config: config, rule file, rules"

promtool check rules rtltune.rules.yml >"$T_TMP/rules.out" 2>&1 ||
	{ cat "$T_TMP/rules.out"; t_fail "promtool check rules"; }
cat "$T_TMP/rules.out"
n_rules=$(grep -cE '^\s+- (record|alert):' rtltune.rules.yml)
t_eq "$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$T_TMP/rules.out")" "$n_rules" "rules promtool found"

# The alerts docs/fleet.md and the issue name.
for a in RtltuneRetransmitStorm RtltuneTuningRollbacks RtltuneProbeMissing RtltuneJournalUntrusted \
	RtltuneDown; do
	grep -qE "^\s+- alert: $a$" rtltune.rules.yml || t_fail "alert $a missing"
	grep -q "alertname: $a$" rtltune.rules.test.yml || t_fail "alert $a has no unit test"
done
echo "ok: every alert has a unit test"

promtool test rules rtltune.rules.test.yml >"$T_TMP/test.out" 2>&1 ||
	{ cat "$T_TMP/test.out"; t_fail "promtool test rules"; }
cat "$T_TMP/test.out"
t_eq "$(grep -c SUCCESS "$T_TMP/test.out")" 1 "promtool test rules"

# The unit tests can fail: a storm threshold at 50% instead of 5% must break them.
sed 's/ratio_rate5m > 0.05$/ratio_rate5m > 0.5/' rtltune.rules.yml >"$T_TMP/rtltune.rules.yml"
grep -q 'ratio_rate5m > 0.5$' "$T_TMP/rtltune.rules.yml" || t_fail "mutation did not apply"
cp rtltune.rules.test.yml "$T_TMP/"
if promtool test rules "$T_TMP/rtltune.rules.test.yml" >/dev/null 2>&1; then
	t_fail "rule tests pass with a broken storm threshold"
fi
echo "ok: rule tests catch a broken storm threshold"
