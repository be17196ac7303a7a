#!/bin/bash
# The stack around the NIC (docs/knobs-stack.md), end to end on a veth pair: q0 has GRO on
# (so a NAPI), q1 has none. A profile sets every NAPI knob and RPS/XPS; apply changes
# them, checked against the netdev family (tests/tools/napi_get.py, written apart from
# lib/netdev/napi*.c) and the queues' sysfs files; show --json and the journal agree; a device
# without NAPI skips the NAPI knobs with the reason and still takes RPS; bad values are
# refused naming file:line with nothing changed; restore puts every original back; the
# daemon's /metrics has the gauges.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

[ "$(nproc)" -ge 2 ] || t_skip "needs 2 CPUs for rps_cpus 0-1"
ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" q0 "$nsb" q1
t_in "$ns" ethtool -K q0 gro on
ip -n "$ns" link add q2 type veth peer name q3
ip -n "$ns" link set q2 up
ip -n "$ns" link set q3 up
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
cat >"$RTLTUNE_PROFILE_PATH/stack.conf" <<'CONF'
[knobs]
# the test's values: every knob of the stack around the NIC
napi_threaded = on
napi_defer_hard_irqs = 2
gro_flush_timeout = 200000
irq_suspend_timeout = 1000000
rps_cpus = 0-1
rps_flow_cnt = 4K
xps_cpus = 0x2
CONF
printf '[knobs]\nrps_flow_cnt = 100\n' >"$RTLTUNE_PROFILE_PATH/badflow.conf"
printf '[knobs]\nmtu = 1400\nrps_cpus = 0-70\n' >"$RTLTUNE_PROFILE_PATH/badcpus.conf"
printf '[knobs]\nmtu = 1400\nrps_cpus = 0-40\n' >"$RTLTUNE_PROFILE_PATH/nocpu.conf"

napi() { t_in "$ns" python3 "$TOP/tests/tools/napi_get.py" "$1"; }
qfile() { t_in "$ns" cat "/sys/class/net/$1/queues/$2"; }
state() { echo "$(napi q0 | sed 's/pid=[0-9-]* //') $(qfile q0 rx-0/rps_cpus) $(qfile q0 rx-0/rps_flow_cnt) $(qfile q0 tx-0/xps_cpus)"; }
before=$(state)
id=$(napi q0 | sed 's/^id=\([0-9]*\).*/\1/')
t_eq "$before" "id=$id threaded=0 defer=0 gro_flush=0 suspend=0 0 0 0" "q0 before (napi-get, sysfs)"
t_eq "$(napi q2)" "" "q2 (GRO off) has no NAPI"

t_log "apply, checked with napi-get and sysfs"
out=$(t_rtl "$ns" apply stack q0)
echo "$out"
t_eq "$out" "q0 napi_threaded off -> on
q0 napi_defer_hard_irqs 0 -> 2
q0 gro_flush_timeout 0 -> 200000
q0 irq_suspend_timeout 0 -> 1000000
q0 rps_cpus none -> 0-1
q0 rps_flow_cnt 0 -> 4096
q0 xps_cpus none -> 1" "apply output"
t_eq "$(state)" "id=$id threaded=1 defer=2 gro_flush=200000 suspend=1000000 3 4096 2" "q0 after (napi-get, sysfs)"
pid=$(napi q0 | sed 's/.*pid=\([0-9]*\).*/\1/')
t_eq "$(cat "/proc/$pid/comm")" "napi/q0-$id" "the NAPI's kthread"
t_eq "$(t_rtl "$ns" --json show q0 | jq -c '.[0] | [.napi_threaded, .napi_defer_hard_irqs, .gro_flush_timeout, .irq_suspend_timeout, .rps_cpus, .rps_flow_cnt, .xps_cpus, .napi_count, .napi_path]')" \
	'[true,2,200000,1000000,"0-1",4096,"1",1,"netlink"]' "show --json"
t_rtl "$ns" show q0 | grep -E '^    rps_cpus +0-1$' >/dev/null || t_fail "show text lacks 'rps_cpus 0-1'"
t_eq "$(awk '/^iface q0 / { f = 1; next } /^(iface|inflight|end)/ { f = 0 } f && $1 == "orig" { print $2 "=" $3 }' \
	"$RTLTUNE_STATE_DIR/journal" | sort | tr '\n' ' ')" \
	"gro_flush_timeout=0 irq_suspend_timeout=0 napi_defer_hard_irqs=0 napi_threaded=0 rps_cpus=0 rps_flow_cnt=0 xps_cpus=0 " "originals journaled"
t_rtl "$ns" verify stack q0

t_log "no NAPI: the NAPI knobs skipped with the reason, RPS/XPS applied"
out=$(t_rtl "$ns" apply stack q2)
echo "$out"
t_eq "$(echo "$out" | grep -c 'skipped: .* unsupported: the device has no NAPI instance (a veth gets one with GRO on or XDP attached)')" 4 "NAPI knobs skipped"
echo "$out" | grep -qx 'q2 rps_cpus none -> 0-1' || t_fail "q2 rps_cpus not applied: $out"
t_eq "$(qfile q2 rx-0/rps_cpus)" 3 "q2 rps_cpus (sysfs)"

t_log "bad values change nothing"
set +e
out=$(t_rtl "$ns" apply badflow q0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "rps_flow_cnt 100 refused"
t_eq "$out" "rtltune: $RTLTUNE_PROFILE_PATH/badflow.conf:2: rps_flow_cnt expects a power of two (the kernel rounds others up), or 0, got '100'" "refusal names file:line"
set +e
out=$(t_rtl "$ns" apply badcpus q0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "rps_cpus 0-70 refused"
echo "$out" | grep -q "badcpus.conf:3: rps_cpus '0-70' names a CPU above 62" || t_fail "refusal: $out"
set +e
out=$(t_rtl "$ns" apply nocpu q0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "rps_cpus beyond this host's CPUs refused"
echo "$out" | grep -q "nocpu.conf:3: q0: rps_cpus names CPUs beyond this host's 0-$(($(nproc) - 1))" || t_fail "refusal: $out"
t_eq "$(ip -n "$ns" -j link show dev q0 | jq '.[0].mtu')" 1500 "mtu untouched by the refused apply"
t_eq "$(state)" "id=$id threaded=1 defer=2 gro_flush=200000 suspend=1000000 3 4096 2" "q0 unchanged by the refusals"

t_log "restore: every original back"
out=$(t_rtl "$ns" restore q0)
echo "$out"
t_eq "$(echo "$out" | wc -l)" 7 "seven knobs restored"
t_eq "$(state)" "$before" "q0 restored (napi-get, sysfs)"
t_rtl "$ns" restore q2 >/dev/null
t_eq "$(qfile q2 rx-0/rps_cpus)" 0 "q2 rps_cpus restored"

t_log "rtltuned: the gauges"
D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
d_start "$ns" --interfaces 'q0' --profile stack --no-autotune
for ((i = 0; i < 200; i++)); do
	[ "$(qfile q0 rx-0/rps_cpus)" = 3 ] && break
	sleep 0.05
done
t_eq "$(qfile q0 rx-0/rps_cpus)" 3 "the daemon applied the profile"
d_wait_samples 2
m=$(d_http /metrics)
t_eq "$(echo "$m" | grep '^rtltune_knob_value{device="q0",knob="napi_threaded"}' | cut -d' ' -f2)" 1 "napi_threaded gauge"
t_eq "$(echo "$m" | grep '^rtltune_knob_value{device="q0",knob="rps_cpus"}' | cut -d' ' -f2)" 3 "rps_cpus gauge (the mask)"
t_eq "$(echo "$m" | grep '^rtltune_knob_value{device="q0",knob="gro_flush_timeout"}' | cut -d' ' -f2)" 200000 "gro_flush_timeout gauge"
RTLTUNE_SOCKET=$D_SOCK t_rtl "$ns" restore q0 >/dev/null
t_eq "$(state)" "$before" "restored through the daemon"
d_stop
