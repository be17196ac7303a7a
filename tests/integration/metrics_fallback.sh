#!/bin/bash
# SPEC "BPF unavailable": with one tracepoint missing rtltuned names it (status, log,
# rtltune_probe_attached 0) and counts with the rest; with every probe missing it keeps
# running on rtnetlink link counters, still exact, still clean for promtool.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
command -v promtool >/dev/null || t_skip "promtool not installed (prometheus package)"

t_quiet_pair 10.79

send() { # N datagrams of P bytes from A to B (port with a listener: no ICMP back)
	t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.79.0.2", 9999)); s.settimeout(10)
open(sys.argv[2], "w").close()
for _ in range(int(sys.argv[1])): s.recv(65536)
' "$1" "$T_TMP/rx.ready" &
	local rx=$! i
	for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/rx.ready" ] && break; sleep 0.01; done
	t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])): s.sendto(b"x" * int(sys.argv[2]), ("10.79.0.2", 9999))
' "$1" "$2"
	wait "$rx" || t_fail "receiver did not get $1 datagrams"
	rm -f "$T_TMP/rx.ready"
}

# One probe missing.
D_ENV=(RTLTUNE_PROBE_DISABLE=net_dev_xmit_timeout)
d_start "$A" --interfaces va
st=$(d_rtl --json status)
if [ "$(echo "$st" | jq -r .daemon.source)" != bpf ]; then
	t_skip "BPF unavailable here: $(echo "$st" | jq -r .daemon.bpf_error)"
fi
t_eq "$(echo "$st" | jq -r '.daemon.probes[] | select(.name == "net_dev_xmit_timeout") | .state')" \
	missing "status: the disabled probe is missing"
[ -n "$(echo "$st" | jq -r '.daemon.probes[] | select(.name == "net_dev_xmit_timeout") | .reason')" ] ||
	t_fail "missing probe without a reason"
d_rtl status | grep 'missing:   net_dev_xmit_timeout' >/dev/null || t_fail "text status does not name it"
grep -q 'probe net_dev_xmit_timeout missing' "$D_LOG" || t_fail "log does not name it"
echo "ok: the missing probe is named in status and log"
send 20 500
d_wait_samples 2
m=$(d_http /metrics)
t_eq "$(echo "$m" | grep '^rtltune_probe_attached{probe="net_dev_xmit_timeout"}' | cut -d' ' -f2)" \
	0 "rtltune_probe_attached of the missing probe"
t_eq "$(echo "$m" | grep '^rtltune_probe_attached{probe="net_dev_start_xmit"}' | cut -d' ' -f2)" \
	1 "rtltune_probe_attached of a working probe"
t_eq "$(echo "$m" | grep '^rtltune_tx_packets_total{device="va"}' | cut -d' ' -f2)" 20 \
	"exact tx_packets with one probe missing"
d_stop >/dev/null || t_fail "unclean exit"

# Every probe missing: link counters from rtnetlink.
ALL=net_dev_start_xmit,net_dev_xmit,net_dev_xmit_timeout,netif_receive_skb,napi_poll,kfree_skb
ALL=$ALL,tcp_retransmit_skb
D_ENV=(RTLTUNE_PROBE_DISABLE=$ALL)
before_tx=$(ip -n "$A" -s -j link show dev va | jq .[0].stats64.tx.packets)
before_bytes=$(ip -n "$A" -s -j link show dev va | jq .[0].stats64.tx.bytes)
d_start "$A" --interfaces va
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.source)" netlink "counting source without any probe"
[ -n "$(echo "$st" | jq -r '.daemon.bpf_error // empty')" ] || t_fail "no reason given for no BPF"
echo "ok: says why: $(echo "$st" | jq -r .daemon.bpf_error)"
send 30 200
d_wait_samples 2
s=$(d_rtl --json stats va)
t_eq "$(echo "$s" | jq .interfaces[0].source)" '"netlink"' "stats source"
t_eq "$(echo "$s" | jq .interfaces[0].tx_packets)" $((before_tx + 30)) "link counter tx_packets exact"
t_eq "$(echo "$s" | jq .interfaces[0].tx_bytes)" $((before_bytes + 30 * 242)) "link counter tx_bytes exact"
t_eq "$(echo "$s" | jq .interfaces[0].tx_skb_bytes)" null "no histograms without probes"
rc=0
d_rtl hist va tx_skb_bytes >/dev/null 2>&1 || rc=$?
t_eq "$rc" 3 "hist without probes: a system error"
d_http /metrics >"$T_TMP/m.txt"
rc=0
out=$(promtool check metrics <"$T_TMP/m.txt" 2>&1) || rc=$?
t_eq "$rc:$out" "0:" "promtool on the link-counter exposition"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
