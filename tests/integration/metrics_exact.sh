#!/bin/bash
# Acceptance (issue 5): UDP datagrams of known sizes through a silent veth show in /metrics
# and in `rtltune stats --json` with exact counts; `promtool check metrics` has no
# complaint at all; and what promtool does not check holds: HELP/TYPE once per family
# before its samples, cumulative buckets, +Inf == _count, unique series, label escaping
# (an interface named with a quote and a backslash), names as SPEC lists them.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v promtool >/dev/null || t_skip "promtool not installed (prometheus package)"

t_quiet_pair 10.78
# A name that needs escaping in a label value (quote, backslash): legal for Linux.
WEIRD='v"w\z'
ip link add "$WEIRD" netns "$A" type veth peer name vpeer netns "$A"

d_start "$A" --interfaces 'v*'
bpf=$(d_rtl --json status | jq -r .daemon.source)

# Known traffic: 50 datagrams of 1000 bytes (1042-byte frames) and 30 of 100 (142).
N1=50 P1=1000 N2=30 P2=100
N=$((N1 + N2))
BYTES=$((N1 * (P1 + 42) + N2 * (P2 + 42)))
t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.78.0.2", 9999)); s.settimeout(10)
open(sys.argv[2], "w").close()
for _ in range(int(sys.argv[1])):
    s.recv(65536)
' "$N" "$T_TMP/rx.ready" &
RX=$!
for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/rx.ready" ] && break; sleep 0.01; done
t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n, p in ((int(sys.argv[1]), int(sys.argv[2])), (int(sys.argv[3]), int(sys.argv[4]))):
    for _ in range(n):
        s.sendto(b"x" * p, ("10.78.0.2", 9999))
' "$N1" "$P1" "$N2" "$P2"
wait "$RX" || t_fail "receiver did not get all $N datagrams"
d_wait_samples 2

d_http /metrics >"$T_TMP/metrics.txt"
s=$(d_rtl --json stats va)

# Exact counts, both views.
t_eq "$(echo "$s" | jq .interfaces[0].tx_packets)" "$N" "stats --json tx_packets"
t_eq "$(echo "$s" | jq .interfaces[0].tx_bytes)" "$BYTES" "stats --json tx_bytes"
t_eq "$(grep '^rtltune_tx_packets_total{device="va"}' "$T_TMP/metrics.txt" | cut -d' ' -f2)" \
	"$N" "/metrics tx_packets_total"
t_eq "$(grep '^rtltune_tx_bytes_total{device="va"}' "$T_TMP/metrics.txt" | cut -d' ' -f2)" \
	"$BYTES" "/metrics tx_bytes_total"
t_eq "$(grep '^rtltune_rx_packets_total{device="va"}' "$T_TMP/metrics.txt" | cut -d' ' -f2)" \
	0 "/metrics rx_packets_total (silent peer)"
if [ "$bpf" = bpf ]; then
	t_eq "$(echo "$s" | jq -c .interfaces[0].tx_skb_bytes)" \
		"{\"buckets\":[[256,$N2],[512,0],[1024,0],[2048,$N1]],\"sum\":$BYTES,\"count\":$N}" \
		"stats --json tx_skb_bytes (per-bucket)"
	for le_count in "128 0" "256 $N2" "1024 $N2" "2048 $N" "+Inf $N"; do
		set -- $le_count
		t_eq "$(grep "^rtltune_tx_skb_bytes_bucket{device=\"va\",le=\"$1\"}" \
			"$T_TMP/metrics.txt" | cut -d' ' -f2)" "$2" "/metrics tx_skb_bytes le=$1"
	done
	t_eq "$(grep '^rtltune_tx_skb_bytes_sum{device="va"}' "$T_TMP/metrics.txt" | cut -d' ' -f2)" \
		"$BYTES" "/metrics tx_skb_bytes_sum"
	t_eq "$(grep '^rtltune_tx_gso_segments_count{device="va"}' "$T_TMP/metrics.txt" | cut -d' ' -f2)" \
		0 "/metrics tx_gso_segments_count (UDP: no GSO)"
	t_eq "$(d_rtl hist va tx_skb_bytes | grep -c '|\*')" 2 "rtltune hist: two non-empty rows"
else
	t_unchecked "histograms: BPF unavailable ($(d_rtl --json status | jq -r .daemon.bpf_error))"
fi

# promtool: not a word.
rc=0
out=$(promtool check metrics <"$T_TMP/metrics.txt" 2>&1) || rc=$?
t_eq "$rc" 0 "promtool check metrics exit code"
t_eq "$out" "" "promtool check metrics output"

# What promtool does not check.
python3 - "$T_TMP/metrics.txt" "$WEIRD" <<'EOF' || t_fail "exposition checks failed"
import re, sys
text = open(sys.argv[1]).read()
weird = sys.argv[2]
line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')
helps, types, seen, series = {}, {}, set(), {}
errors = []
def unescape(v):
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1), m.group(1)), v)
for n, line in enumerate(text.splitlines(), 1):
    if line.startswith('# HELP '):
        name = line.split(' ')[2]
        if name in helps: errors.append(f"{n}: second HELP for {name}")
        helps[name] = n
        continue
    if line.startswith('# TYPE '):
        _, _, name, typ = line.split(' ')
        if name in types: errors.append(f"{n}: second TYPE for {name}")
        if name in seen: errors.append(f"{n}: TYPE after samples of {name}")
        types[name] = typ
        continue
    m = line_re.match(line)
    if not m:
        errors.append(f"{n}: unparsable: {line!r}"); continue
    name, labels, value = m.group(1), m.group(3) or '', m.group(4)
    fam = name
    for suf in ('_bucket', '_sum', '_count'):
        if name.endswith(suf) and types.get(name[:-len(suf)]) == 'histogram':
            fam = name[:-len(suf)]
    if fam not in types or fam not in helps:
        errors.append(f"{n}: {name} without HELP/TYPE before it")
    seen.add(fam)
    pos, lab = 0, {}
    while pos < len(labels):
        lm = label_re.match(labels, pos)
        if not lm: errors.append(f"{n}: bad labels {labels!r}"); break
        lab[lm.group(1)] = unescape(lm.group(2)); pos = lm.end()
    key = (name, tuple(sorted(lab.items())))
    if key in series: errors.append(f"{n}: duplicate series {key}")
    series[key] = float(value)
    if types.get(fam) == 'counter' and not fam.endswith('_total'):
        errors.append(f"{n}: counter {fam} without _total")
    if not fam.startswith('rtltune_'):
        errors.append(f"{n}: {fam} without the rtltune_ prefix")
# Histograms: cumulative, +Inf == _count, _sum present.
for fam, typ in types.items():
    if typ != 'histogram': continue
    groups = {}
    for (name, lab), v in series.items():
        if name == fam + '_bucket':
            d = dict(lab); le = d.pop('le')
            groups.setdefault(tuple(sorted(d.items())), []).append((float(le), v))
    for g, buckets in groups.items():
        buckets.sort()
        vals = [v for _, v in buckets]
        if vals != sorted(vals): errors.append(f"{fam}{g}: buckets not cumulative")
        if buckets[-1][0] != float('inf'): errors.append(f"{fam}{g}: no +Inf bucket")
        cnt = series.get((fam + '_count', g)); sm = series.get((fam + '_sum', g))
        if cnt is None or sm is None: errors.append(f"{fam}{g}: _count/_sum missing")
        elif buckets[-1][1] != cnt: errors.append(f"{fam}{g}: +Inf {buckets[-1][1]} != _count {cnt}")
# SPEC names (histograms only when the probes run).
need = ['rtltune_tx_packets_total', 'rtltune_rx_packets_total', 'rtltune_tx_bytes_total',
        'rtltune_rx_bytes_total', 'rtltune_knob_value', 'rtltune_interface_info']
if 'rtltune_tx_skb_bytes' in types:
    need += ['rtltune_tx_skb_bytes', 'rtltune_tx_gso_size_bytes', 'rtltune_tx_gso_segments',
             'rtltune_rx_frame_bytes', 'rtltune_rx_skb_bytes', 'rtltune_tx_busy_total',
             'rtltune_tx_timeouts_total', 'rtltune_tcp_retransmits_total',
             'rtltune_probe_runs_total', 'rtltune_probe_run_seconds_total']
for f in need:
    if f not in types: errors.append(f"family {f} missing")
devices = {dict(l).get('device') for (_, l) in series} - {None}
if weird not in devices: errors.append(f"escaped device {weird!r} not found: {sorted(devices)}")
info = [dict(l) for (n, l) in series if n == 'rtltune_interface_info']
if not all('driver' in d for d in info): errors.append("interface_info without driver")
knobs = {dict(l)['knob'] for (n, l) in series if n == 'rtltune_knob_value' and dict(l)['device'] == 'va'}
for k in ('mtu', 'tso', 'gso', 'gro', 'gso_max_size', 'gro_max_size', 'gso_max_segs'):
    if k not in knobs: errors.append(f"knob_value{{knob={k}}} missing for va")
print("\n".join(errors) if errors else f"ok: {len(series)} series in {len(types)} families pass")
sys.exit(1 if errors else 0)
EOF
grep -qF 'device="v\"w\\z"' "$T_TMP/metrics.txt" || t_fail "label not escaped as v\\\"w\\\\z"
echo "ok: label value escaped"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
