#!/bin/bash
# The test fault injector (bpf/fault_inject.bpf.c via build/tests/tools/faultinj) does what
# the tuner's acceptance test relies on: with it on, a bulk TCP flow over a veth pair
# retransmits clearly more than with it off; with gso_max_size below its size threshold
# no skb qualifies and the retransmit rate falls at least 5x. Rates are retransmitted
# segments per million sent (TcpRetransSegs / TcpOutSegs of the sender's namespace).
# Both ends run on one CPU (iperf3 -A): a veth delivers through the backlog of the CPU
# that transmits, and the sender transmits both from its own CPU and from the receiver's
# (where the ACKs that open its window are processed), so with the ends on two CPUs
# segments overtake each other and TCP retransmits spuriously. That was 0.2-0.7% of the
# segments with no injector at all on the machines here (TCPDSACKRecvSegs: 90% of the
# retransmits were duplicates), 10-30% of what the injector causes, and it varied with
# the scheduler. On one CPU it is 0: every retransmit here is the injector's.
. "$(dirname "$0")/../lib.sh"

FAULTINJ=${FAULTINJ:-$TOP/build/tests/tools/faultinj}
[ -x "$FAULTINJ" ] || t_fail "$FAULTINJ not built (make check builds tests/tools/*)"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
SECS=${FAULTINJ_SECS:-2}
MIN_LEN=16384

nsa=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$nsa" v0 "$nsb" v1
t_silence "$nsa" v0
t_silence "$nsb" v1
ip -n "$nsa" addr add 10.77.0.1/24 dev v0
ip -n "$nsb" addr add 10.77.0.2/24 dev v1
CPU=$(($(nproc) - 1))
T_IPERF3_CPU=$CPU t_iperf3_servers "$nsb" 10.77.0.2 5201
stat_of() { t_in "$nsa" "$FAULTINJ" stats v0 | awk -v k="$1" '$1 == k { print $2 }'; }

# flow LABEL: one bulk flow; sets RETRANS, SEGS, PPM (retransmits per million segments).
flow() {
	local b a
	b=($(t_tcp_counts "$nsa"))
	t_in "$nsa" iperf3 -c 10.77.0.2 -A "$CPU" -t "$SECS" -J >"$T_TMP/$1.json"
	a=($(t_tcp_counts "$nsa"))
	RETRANS=$((a[0] - b[0]))
	SEGS=$((a[1] - b[1]))
	PPM=$((RETRANS * 1000000 / (SEGS > 0 ? SEGS : 1)))
	t_log "$1: $RETRANS retransmits in $SEGS segments ($PPM per million)," \
		"$(jq -r '.end.sum_sent.bits_per_second / 1e9 | . * 100 | floor / 100' "$T_TMP/$1.json") Gbit/s," \
		"gso_max_size $(t_ip_attr "$nsa" v0 gso_max_size)"
}

flow off
off_ppm=$PPM

t_in "$nsa" "$FAULTINJ" attach v0 --fraction 0.05 --min-len $MIN_LEN
t_eq "$(stat_of min_len)" $MIN_LEN "injector size threshold"
flow on
on_ppm=$PPM on_retrans=$RETRANS
dropped=$(stat_of dropped)
t_log "injector: $(stat_of eligible) skbs above $MIN_LEN bytes, $dropped stolen ($(stat_of dropped_segs) segments)"
t_ge "$dropped" 20 "big GSO skbs stolen by the injector"
t_ge "$on_retrans" 200 "retransmits with the injector on"
t_ge "$on_ppm" $((10 * off_ppm + 1000)) "retransmit rate with the injector on vs 10x off ($off_ppm) + 1000"
# Every stolen segment is sent again (a tenth left for the last ones, still in recovery
# when iperf3 returns).
t_ge "$((10 * on_retrans))" "$((9 * $(stat_of dropped_segs)))" "10 x retransmits vs 9 x segments stolen"

# New connections pick the size up (sk_setup_caps); skbs stay below gso_max_size.
ip -n "$nsa" link set dev v0 gso_max_size 8192
eligible_before=$(stat_of eligible)
flow lowered
t_eq "$(($(stat_of eligible) - eligible_before))" 0 "skbs above $MIN_LEN bytes with gso_max_size 8192"
t_le $((5 * PPM)) "$on_ppm" "5 x retransmit rate with gso_max_size lowered ($PPM) vs injector on"

t_eq "$(t_in "$nsa" tc filter show dev v0 egress | grep -c rtl_faultinj || true)" 1 "our filter on v0"
t_in "$nsa" "$FAULTINJ" detach v0
set +e
t_in "$nsa" "$FAULTINJ" stats v0 2>/dev/null
rc=$?
set -e
t_eq "$rc" 3 "stats after detach (not attached)"
t_eq "$(t_in "$nsa" tc filter show dev v0 egress | grep -c rtl_faultinj || true)" 0 "filters left on v0"
