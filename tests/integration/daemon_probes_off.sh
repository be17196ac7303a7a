#!/bin/bash
# t-lane: beside
# probes = off in rtltuned.conf (SPEC "Files"): the daemon loads no BPF program, map or link
# (its file descriptors say so, and one started with probes on has them: the check can
# fail), status says why it counts from link counters, stats still count exactly from
# rtnetlink, hist refuses naming the setting, and a reload cannot turn the probes on.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

t_quiet_pair 10.86

# bpf_fds PID KIND: how many of PID's file descriptors are BPF objects of KIND (bpf-prog,
# bpf-map, bpf_link: the anon inodes bpf(2) hands out).
bpf_fds() {
	local f n=0
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = "anon_inode:$2" ] && n=$((n + 1))
	done
	echo "$n"
}

send() { # N datagrams of 200 bytes from va to vb (a listener on vb: no ICMP back)
	t_in "$B" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.86.0.2", 9999)); s.settimeout(10)
open(sys.argv[2], "w").close()
for _ in range(int(sys.argv[1])): s.recv(65536)
' "$1" "$T_TMP/rx.ready" &
	local rx=$! i
	for ((i = 0; i < 200; i++)); do [ -e "$T_TMP/rx.ready" ] && break; sleep 0.01; done
	[ -e "$T_TMP/rx.ready" ] || t_fail "receiver not ready within 2 s"
	t_in "$A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])): s.sendto(b"x" * 200, ("10.86.0.2", 9999))
' "$1"
	wait "$rx" || t_fail "receiver did not get $1 datagrams"
	rm -f "$T_TMP/rx.ready"
}

conf=$T_TMP/rtltuned.conf
printf '[daemon]\ninterfaces = va\nprobes = on\n' >"$conf"

t_log "control: probes = on loads programs (this check can see them)"
d_start "$A" --config "$conf"
st=$(d_rtl --json status)
[ "$(echo "$st" | jq -r .daemon.source)" = bpf ] ||
	t_skip "BPF unavailable here: $(echo "$st" | jq -r .daemon.bpf_error)"
t_eq "$(echo "$st" | jq -r .daemon.probes_setting)" on "status probes_setting with probes = on"
t_ge "$(bpf_fds "$D_PID" bpf-prog)" 1 "BPF programs held by rtltuned with probes = on"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"

t_log "probes = off"
printf '[daemon]\ninterfaces = va\nprobes = off\n' >"$conf"
: >"$D_LOG"
d_start "$A" --config "$conf"
t_eq "$(tr -d '\0' </proc/"$D_PID"/comm)" rtltuned "the pid checked is rtltuned's"
for kind in bpf-prog bpf-map bpf_link; do
	t_eq "$(bpf_fds "$D_PID" $kind)" 0 "$kind file descriptors of rtltuned with probes = off"
done
grep -q 'BPF probes off (probes = off)' "$D_LOG" || t_fail "no log line says the probes are off"
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r .daemon.source)" netlink "status source with probes = off"
t_eq "$(echo "$st" | jq -r .daemon.probes_setting)" off "status probes_setting"
t_eq "$(echo "$st" | jq '.daemon.probes | length')" 0 "probes listed in status"
t_eq "$(echo "$st" | jq -r .daemon.bpf_error)" "off: probes = off in $conf" "status bpf_error"
text=$(d_rtl status)
echo "$text" | grep -q '^  counting:  link counters (netlink)$' || t_fail "text status: $text"
echo "$text" | grep -q "^  bpf:       off: probes = off in $conf\$" ||
	t_fail "text status does not say probes = off: $text"
echo "ok: status says the probes are off and where"

before_tx=$(ip -n "$A" -s -j link show dev va | jq .[0].stats64.tx.packets)
before_bytes=$(ip -n "$A" -s -j link show dev va | jq .[0].stats64.tx.bytes)
send 40
# va may have gone idle before the send (its counters still over two reads): an idle
# interface is read every 16th sample (docs/daemon.md "Every sample"), so the packets show
# within 16 samples, not 2. Awaited, bounded at 20.
for ((n = 0; n < 20; n++)); do
	d_wait_samples 1
	[ "$(d_rtl --json stats va | jq .interfaces[0].tx_packets)" = $((before_tx + 40)) ] && break
done
s=$(d_rtl --json stats va)
t_eq "$(echo "$s" | jq -r .interfaces[0].source)" netlink "stats source"
t_eq "$(echo "$s" | jq .interfaces[0].tx_packets)" $((before_tx + 40)) "tx_packets from link counters"
# 200 bytes of payload + UDP 8 + IPv4 20 + Ethernet 14.
t_eq "$(echo "$s" | jq .interfaces[0].tx_bytes)" $((before_bytes + 40 * 242)) "tx_bytes from link counters"
t_eq "$(echo "$s" | jq .interfaces[0].tx_skb_bytes)" null "no histograms with probes = off"
rc=0
out=$(d_rtl hist va tx_skb_bytes 2>&1) || rc=$?
t_eq "$rc" 3 "hist with probes = off: a system error"
echo "$out" | grep -q 'probes = off' || t_fail "hist does not say why: $out"

t_log "a reload does not turn the probes on behind the operator's back"
printf '[daemon]\ninterfaces = va\nprobes = on\n' >"$conf"
reloads=$(d_rtl --json status | jq .daemon.reloads)
kill -HUP "$D_PID"
for ((i = 0; i < 100; i++)); do
	[ "$(d_rtl --json status | jq .daemon.reloads)" -gt "$reloads" ] && break
	sleep 0.05
done
t_eq "$(d_rtl --json status | jq .daemon.reloads)" $((reloads + 1)) "reloads after SIGHUP"
grep -q 'probes = on needs a restart; still off' "$D_LOG" || t_fail "reload does not say a restart is needed"
t_eq "$(bpf_fds "$D_PID" bpf-prog)" 0 "BPF programs after the reload"
t_eq "$(d_rtl --json status | jq -r .daemon.probes_setting)" off "probes_setting after the reload"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"

t_log "a bad value is refused with file:line"
printf '[daemon]\nprobes = maybe\n' >"$conf"
rc=0
out=$(ip netns exec "$A" "$RTLTUNED" --foreground --config "$conf" --socket "$T_TMP/x.sock" \
	--state-dir "$D_STATE" 2>&1) || rc=$?
t_eq "$rc" 2 "exit code of a bad probes value"
t_eq "$out" "rtltuned: $conf:2: probes: expected on or off, got 'maybe'" "message"
