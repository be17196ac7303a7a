#!/bin/bash
# 64 veth interfaces in a namespace: `rtltune show` (one netlink dump) and applying a
# profile with `rtltune apply`, side by side with the same changes made by ip + ethtool
# commands. Then the ethtool netlink knobs (issue 13): channels and features on 64 veths
# with 4 queues, coalescing and the same features on 64 taps, `rtltune
# apply` against the same changes made with ethtool -L/-K/-C. Prints wall times and the
# ratios; target for the second: rtltune at least as fast as the commands.
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
N=${N:-64}
ns=rtlbench$$
tmp=$(mktemp -d)
cleanup() {
	bench_netns_del $ns ${ns}p ${ns}e
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add $ns
ip netns add ${ns}p
for i in $(seq 0 $((N - 1))); do
	echo "link add b$i netns $ns type veth peer name p$i netns ${ns}p"
done | ip -batch -
now() { date +%s%N; }
ms() { echo "scale=1; ($2 - $1) / 1000000" | bc; }

mkdir -p "$tmp/profiles"
printf '[knobs]\ntso = off\ngro = on\ngso_max_size = 32768\ngro_max_size = 131072\n' >"$tmp/profiles/b1.conf"
printf '[knobs]\ntso = on\ngro = off\ngso_max_size = 65536\ngro_max_size = 65536\n' >"$tmp/profiles/b0.conf"
export RTLTUNE_PROFILE_PATH=$tmp/profiles RTLTUNE_STATE_DIR=$tmp/state

t0=$(now); ip netns exec $ns "$RTLTUNE" --json show >"$tmp/show.json"; t1=$(now)
count=$(jq length "$tmp/show.json")
dumps=$(ip netns exec $ns strace -f -e trace=sendto,sendmsg "$RTLTUNE" --json show 2>&1 >/dev/null |
	grep -c 'RTM_GETLINK' || true)
echo "show: $count interfaces in $(ms "$t0" "$t1") ms, RTM_GETLINK requests: $dumps"

ifs=$(seq -f 'b%g' 0 $((N - 1)))
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# Five rounds, each one rtltune apply (b0 -> b1) and the same changes back as commands
# (b1 -> b0), each checked by verify; the medians are compared.
for round in 1 2 3 4 5; do
	# shellcheck disable=SC2086
	{
	t0=$(now); ip netns exec $ns "$RTLTUNE" apply b1 $ifs >"$tmp/apply.out"; t1=$(now)
	ms "$t0" "$t1" >>"$tmp/rt.ms"
	changes=$(grep -c -- '->' "$tmp/apply.out")
	ip netns exec $ns "$RTLTUNE" verify b1 $ifs >/dev/null
	}
	t0=$(now)
	for i in $(seq 0 $((N - 1))); do
		ip -n $ns link set b$i gso_max_size 65536 gro_max_size 65536
		ip netns exec $ns ethtool -K b$i tso on gro off
	done
	t1=$(now)
	ms "$t0" "$t1" >>"$tmp/cmds.ms"
	# shellcheck disable=SC2086
	ip netns exec $ns "$RTLTUNE" verify b0 $ifs >/dev/null
	[ "$round" -gt 1 ] || [ "$changes" -eq $((4 * N)) ] ||
		{ echo "bench-apply: rtltune made $changes changes, not $((4 * N))" >&2; exit 1; }
done
rt=$(median <"$tmp/rt.ms")
cmds=$(median <"$tmp/cmds.ms")
ratio=$(echo "scale=2; $cmds / $rt" | bc)
echo "apply to $N interfaces ($changes changes, median of 5): rtltune $rt ms," \
	"ip+ethtool commands $cmds ms, ratio ${ratio}x"
ok1=$(echo "$ratio >= 10" | bc)
echo "  target: ratio >= 10: $(metmiss "$ok1")"
summary "apply to $N veths ($changes changes) vs ip + ethtool" "${ratio}x ($rt vs $cmds ms)" ">= 10x" "$(metmiss "$ok1")"
# The syscalls of the same apply (back to b1): durable writes and sockets per run.
# shellcheck disable=SC2086
ip netns exec $ns strace -f -qq -o "$tmp/strace" -e trace=fsync,fdatasync,rename,renameat,renameat2,socket \
	"$RTLTUNE" apply b1 $ifs >/dev/null
fsyncs=$(grep -cE '^[0-9 ]*f(data)?sync\(' "$tmp/strace" || true)
renames=$(grep -cE '^[0-9 ]*rename' "$tmp/strace" || true)
nlsocks=$(grep -c 'socket(AF_NETLINK' "$tmp/strace" || true)
nlroute=$(grep -c 'socket(AF_NETLINK.*NETLINK_ROUTE' "$tmp/strace" || true)
nlgenl=$(grep -c 'socket(AF_NETLINK.*NETLINK_GENERIC' "$tmp/strace" || true)
nlxfrm=$(grep -c 'socket(AF_NETLINK.*NETLINK_XFRM' "$tmp/strace" || true)
others=$(grep 'socket(' "$tmp/strace" | grep -vc AF_NETLINK || true)
echo "  syscalls of that apply: $fsyncs fsync, $renames rename; netlink sockets $nlsocks" \
	"(rtnetlink $nlroute, ethtool genl $nlgenl, xfrm $nlxfrm, other $((nlsocks - nlroute - nlgenl - nlxfrm)))," \
	"other sockets $others (AF_UNIX: the ioctl socket, the daemon probe)"
# The xfrm socket carries the one XFRM_MSG_SETDEFAULT that invalidates the cached routes
# of the run (docs/stack.md): a run that changes no size or offload does not open it.
ok2=$([ "$fsyncs" -le 3 ] && [ "$nlroute" -le 1 ] && [ "$nlgenl" -le 1 ] &&
	[ "$nlsocks" -eq $((nlroute + nlgenl + nlxfrm)) ] && [ "$nlxfrm" -le 1 ] && echo 1 || echo 0)
echo "  target: <= 3 fsync; one rtnetlink and one ethtool socket (+ one xfrm message for the" \
	"route invalidation) per run, whatever N:" \
	"$(metmiss "$ok2")"
summary "  its syscalls: fsync, netlink sockets (route+genl+xfrm)" "$fsyncs, $nlsocks ($nlroute+$nlgenl+$nlxfrm)" "<= 3, 1+1(+1)" "$(metmiss "$ok2")"

# ---- the ethtool netlink knobs -------------------------------------------------------
ip netns add ${ns}e
ip -n ${ns}e link set lo up
for i in $(seq 0 $((N - 1))); do
	echo "link add e$i numtxqueues 4 numrxqueues 4 type veth peer name f$i numtxqueues 4 numrxqueues 4"
	echo "tuntap add dev t$i mode tap"
done | ip -n ${ns}e -batch -
[ "$(ip -n ${ns}e -o link show type veth | wc -l)" -eq $((2 * N)) ] || { echo "bench-apply: veths not created" >&2; exit 1; }
cat >"$tmp/profiles/e1.conf" <<'EOF'
[knobs]
channels_rx = 2
channels_tx = 2
coalesce_rx_frames = 32
feature.rx-gro-list = on
feature.rx-udp-gro-forwarding = on
EOF
cat >"$tmp/profiles/e0.conf" <<'EOF'
[knobs]
channels_rx = 4
channels_tx = 4
coalesce_rx_frames = 0
feature.rx-gro-list = off
feature.rx-udp-gro-forwarding = off
EOF
eifs=$(seq -f 'e%g' 0 $((N - 1)); seq -f 't%g' 0 $((N - 1)))
# shellcheck disable=SC2086
{
t0=$(now); ip netns exec ${ns}e "$RTLTUNE" apply e1 $eifs >"$tmp/eapply.out"; t1=$(now)
ert=$(ms "$t0" "$t1")
echanges=$(grep -c -- '->' "$tmp/eapply.out")
ip netns exec ${ns}e "$RTLTUNE" verify e1 $eifs >/dev/null
}
t0=$(now)
for i in $(seq 0 $((N - 1))); do
	ip netns exec ${ns}e ethtool -L e$i rx 4 tx 4
	ip netns exec ${ns}e ethtool -K e$i rx-gro-list off rx-udp-gro-forwarding off
	ip netns exec ${ns}e ethtool -C t$i rx-frames 0
	ip netns exec ${ns}e ethtool -K t$i rx-gro-list off rx-udp-gro-forwarding off
done
t1=$(now)
ecmds=$(ms "$t0" "$t1")
# shellcheck disable=SC2086
ip netns exec ${ns}e "$RTLTUNE" verify e0 $eifs >"$tmp/everify.out" || { echo "bench-apply: the ethtool commands did not reach e0:"; grep -v " ok" "$tmp/everify.out" | head; exit 1; }
eratio=$(echo "scale=2; $ecmds / $ert" | bc)
echo "apply channels + coalescing + features to $((2 * N)) interfaces ($N veth, $N tap;" \
	"$echanges changes): rtltune $ert ms, ethtool commands $ecmds ms, ratio ${eratio}x"
ok=$(echo "$eratio >= 1" | bc)
echo "  target: rtltune at least as fast as the ethtool commands (ratio >= 1):" \
	"$(metmiss "$ok")"
summary "apply channels, coalescing, features ($echanges changes) vs ethtool" "${eratio}x ($ert vs $ecmds ms)" ">= 1x" "$(metmiss "$ok")"
[ "$ok" = 1 ] && [ "$ok1" = 1 ] && [ "$ok2" = 1 ]
