#!/bin/bash
# t-lane: beside
# The shipped Prometheus config, rules and dashboard against the real thing: rtltuned in a
# namespace with TCP and UDP traffic on a veth, and a real Prometheus (Debian's package) in
# the same namespace running docs/prometheus/prometheus.yml and rtltune.rules.yml as
# shipped, with only the intervals shortened to 1 s. Then: the rtltune target is up, every
# rtltune_* family the rules and the dashboard use is one the daemon exposes, every rule
# evaluates without error, the recording rules produce series, and the dashboard's
# queries return data.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v prometheus >/dev/null || t_fail "prometheus missing (scripts/deps.sh installs it)"
cd "$TOP"

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" va "$B" vb
ip -n "$A" addr add 10.81.0.1/24 dev va
ip -n "$B" addr add 10.81.0.2/24 dev vb
# A profile, so tuning decisions exist (the decision families appear with the first one).
d_start "$A" --interfaces 'v*' --profile throughput
t_eq "$D_PORT" 9775 "the daemon listens where the shipped scrape config looks"

# Traffic for the whole test: bulk TCP (GSO/GRO histograms), and UDP to a closed port (drops).
cat >"$T_TMP/sink.py" <<'EOF'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.81.0.2", 5001)); s.listen(1)
c, _ = s.accept()
while c.recv(1 << 20):
    pass
EOF
cat >"$T_TMP/source.py" <<'EOF'
import socket, sys, time
s = socket.create_connection(("10.81.0.2", 5001)); u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[1]); b = b"x" * 65536
while time.time() < end:
    s.sendall(b)                        # ~6.5 MB/s: enough for every histogram, cheap
    u.sendto(b"y" * 100, ("10.81.0.2", 9))
    time.sleep(0.01)
EOF
t_in "$B" python3 "$T_TMP/sink.py" &
t_defer "kill $! 2>/dev/null"
for ((i = 0; i < 100; i++)); do t_in "$B" ss -Hltn 'sport = :5001' | grep -q . && break; sleep 0.02; done
t_in "$A" python3 "$T_TMP/source.py" 25 &
SRC=$!
t_defer "kill $SRC 2>/dev/null"

# The shipped files, intervals shortened; the rule file next to the config as shipped.
prom=$T_TMP/prom
mkdir -p "$prom/data"
sed -e 's/\b15s\b/1s/g; s/scrape_timeout: 5s/scrape_timeout: 1s/' docs/prometheus/prometheus.yml >"$prom/prometheus.yml"
sed -e 's/interval: 30s/interval: 1s/' docs/prometheus/rtltune.rules.yml >"$prom/rtltune.rules.yml"
t_eq "$(grep -c '1s' "$prom/prometheus.yml")" 4 "intervals shortened in the copy"
promtool check config "$prom/prometheus.yml" >/dev/null || t_fail "the shortened copy is not valid"
ip netns exec "$A" prometheus --config.file="$prom/prometheus.yml" --storage.tsdb.path="$prom/data" \
	--web.listen-address=127.0.0.1:9090 --log.level=warn >"$prom/log" 2>&1 &
PROM=$!
t_defer "kill $PROM 2>/dev/null; wait $PROM 2>/dev/null"

# Ask Prometheus; one Python for all the questions (bounded waits inside, no sleeps here).
jq -r '[.panels[] | select(.type != "row") | .title as $t | .targets[] | {title: $t, expr}]
	+ [.annotations.list[] | select(.expr?) | {title: ("annotation " + .name), expr}] | .[]
	| [.title, .expr] | @tsv' docs/grafana/rtltune-dashboard.json |
	sed -e 's/\$__rate_interval/10s/g; s/\$__interval/10s/g; s/\$__range/1m/g; s/\$instance/.*/g; s/\$device/.*/g' \
	>"$T_TMP/queries.tsv"
grep -oE '^\s+- record: \S+' docs/prometheus/rtltune.rules.yml | awk '{ print $3 }' >"$T_TMP/records"
# Metric names only: not the rtltune_ inside a recording rule's level:metric:operation name.
grep -ohP '(?<![:\w])rtltune_\w+(?![:\w])' docs/prometheus/rtltune.rules.yml docs/grafana/rtltune-dashboard.json |
	sed -E 's/_(bucket|sum|count)$//' | sort -u >"$T_TMP/used"
t_ge "$(wc -l <"$T_TMP/used")" 15 "rtltune_* families the rules and dashboard use"

ip netns exec "$A" python3 - "$T_TMP" >"$T_TMP/live.out" 2>&1 <<'EOF' || { cat "$T_TMP/live.out" "$prom/log"; t_fail "live checks"; }
import json, sys, time, urllib.parse, urllib.request
t = sys.argv[1]
def get(path, **q):
    url = "http://127.0.0.1:9090" + path + ("?" + urllib.parse.urlencode(q) if q else "")
    return json.load(urllib.request.urlopen(url, timeout=5))
def query(expr):
    r = get("/api/v1/query", query=expr)
    assert r["status"] == "success", (expr, r)
    return r["data"]["result"]
def wait(what, cond, secs=30):
    end = time.time() + secs
    while time.time() < end:
        try:
            if cond():
                return
        except Exception:
            pass
        time.sleep(0.2)
    sys.exit(f"FAIL: {what} within {secs} s")

wait("Prometheus ready", lambda: urllib.request.urlopen("http://127.0.0.1:9090/-/ready", timeout=2).status == 200)
wait("rtltune target up", lambda: any(s["value"][1] == "1" for s in query('up{job="rtltune"}')))
print("up_rtltune 1")
# Every family the docs use, in what the daemon exposes.
wait("histograms and decisions scraped",
     lambda: query("rtltune_tx_gso_segments_count") and query("rtltune_tuning_decisions_total"))
exposed = set(get("/api/v1/label/__name__/values")["data"])
used = open(t + "/used").read().split()
missing = [u for u in used if u not in exposed and u + "_count" not in exposed]
print("families_used", len(used))
print("families_missing", len(missing), " ".join(missing))
# Rules: all loaded and healthy once evaluated a few times; recording rules with series.
wait("rate windows filled", lambda: query("device:rtltune_tcp_retransmit_segments:ratio_rate5m"), 30)
groups = get("/api/v1/rules")["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
print("rules_loaded", len(rules))
print("rules_unhealthy", sum(r["health"] != "ok" for r in rules),
      " ".join(r["name"] for r in rules if r["health"] != "ok"))
empty = [rec for rec in open(t + "/records").read().split() if not query(rec)]
# Without sysctl kernel.bpf_stats_enabled=1 no probe has a run count: cost per run is 0/0.
allowed = {"probe:rtltune_probe_run_seconds_per_run:ratio_rate5m"}
print("records_empty", len([e for e in empty if e not in allowed]), " ".join(empty))
# Dashboard queries: all succeed; those not filtered by "> 0" return data.
n = bad = 0
for line in open(t + "/queries.tsv"):
    title, expr = line.rstrip("\n").split("\t")
    res = query(expr)
    n += 1
    if not res and "> 0" not in expr:
        bad += 1
        print("no data:", title, "|", expr)
print("dashboard_queries", n)
print("dashboard_empty", bad)
EOF
cat "$T_TMP/live.out"
val() { awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/live.out"; }
t_eq "$(val up_rtltune)" 1 "Prometheus scrapes rtltuned with the shipped job"
t_eq "$(val families_missing)" 0 "families used by rules/dashboard that rtltuned does not expose"
t_eq "$(val rules_loaded)" "$(grep -cE '^\s+- (record|alert):' docs/prometheus/rtltune.rules.yml)" "rules loaded"
t_eq "$(val rules_unhealthy)" 0 "rules evaluating with an error"
t_eq "$(val records_empty)" 0 "recording rules without a series"
t_ge "$(val dashboard_queries)" 30 "dashboard queries run"
t_eq "$(val dashboard_empty)" 0 "dashboard queries without data"
