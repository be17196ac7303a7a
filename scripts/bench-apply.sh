#!/bin/bash
# What an apply costs (issues 13 and 23), standalone or from scripts/bench.sh, on N (64)
# interfaces in a namespace of the bench's own.
#  1. `rtltune show`: one netlink dump.
#  2. Four knobs (tso, gro, gso_max_size, gro_max_size) on N veths, set each way in turn
#     (profile b0 <-> b1) by four ways of making the same changes, in rotating order over
#     ROUNDS (5) rounds; every run is checked by `rtltune verify` (not timed):
#       rtltune  `rtltune apply`: reads what it changes, journals the originals and the
#                operation durably (fsync), changes, reads back, invalidates the routes
#       script   what an admin writes: the ip and ethtool commands, one sh script run
#                inside the namespace (one `ip netns exec` for the lot)
#       batch    `ip -batch` for the link changes, then one `ethtool -K` per device, in one
#                sh inside the namespace
#       floor    tests/tools/apply_floor: one request per device and group from one
#                rtnetlink and one ethtool genl socket, no journal, nothing read: what any
#                tool making these changes must at least do
#     Each is one process started with `ip netns exec` and timed from outside; medians.
#     What `ip netns exec true` alone takes (a process, a mount namespace, a /sys remount)
#     is measured too: every figure holds it once, and the net figures subtract it.
#     Then the syscalls of one apply: fsyncs and netlink sockets, whatever N.
#  3. Channels, coalescing and features (ethtool netlink) on N veths with 4 queues and N
#     taps, the same way: rtltune, the ethtool commands as one script (ethtool has no batch
#     mode), the floor.
# Every ratio is printed side by side. Targets: rtltune within 2x of the floor (rtltune /
# floor <= 2) in 2 and 3, journaling durably: <= 3 fsync, one rtnetlink and one ethtool
# socket per run. Exit 1 when one is missed (a missing figure is missed: bench-lib.sh).
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RTLTUNE=$PWD/build/rtltune
FLOOR=$PWD/build/tests/tools/apply_floor
N=${N:-64}
ROUNDS=${ROUNDS:-5}
[ -x "$RTLTUNE" ] || { echo "bench-apply: build first (make)" >&2; exit 2; }
[ -x "$FLOOR" ] || { echo "bench-apply: $FLOOR not built (make bench builds it)" >&2; exit 2; }
for tool in ethtool jq strace bc; do
	command -v $tool >/dev/null || { echo "bench-apply: $tool not installed (scripts/deps.sh)" >&2; exit 2; }
done
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
median() { sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }
# div A B: A / B to two places; nothing (no figure) unless both are numbers and B > 0.
div() {
	is_number "${1:-}" && is_number "${2:-}" || return 0
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b }'
}

mkdir -p "$tmp/profiles"
export RTLTUNE_PROFILE_PATH=$tmp/profiles RTLTUNE_STATE_DIR=$tmp/state

t0=$(now); ip netns exec $ns "$RTLTUNE" --json show >"$tmp/show.json"; t1=$(now)
count=$(jq length "$tmp/show.json")
dumps=$(ip netns exec $ns strace -f -e trace=sendto,sendmsg "$RTLTUNE" --json show 2>&1 >/dev/null |
	grep -c 'RTM_GETLINK' || true)
echo "show: $count interfaces in $(ms "$t0" "$t1") ms, RTM_GETLINK requests: $dumps"

# run_rounds NS PROFILE_A PROFILE_B METHOD...: ROUNDS rounds, each METHOD once per round in
# an order rotated by one each round, each run taking the namespace to the other profile
# (A first). run_METHOD NS PROFILE makes the changes; its wall time goes to
# $tmp/METHOD.PROFILE_A.ms. Every run is checked with `rtltune verify`.
run_rounds() {
	local ns=$1 a=$2 b=$3 k i m t0 t1 to=$2 methods
	shift 3
	methods=("$@")
	for ((k = 0; k < ROUNDS; k++)); do
		for ((i = 0; i < ${#methods[@]}; i++)); do
			m=${methods[(i + k) % ${#methods[@]}]}
			t0=$(now)
			"run_$m" "$ns" "$to"
			t1=$(now)
			ms "$t0" "$t1" >>"$tmp/$m.$a.ms"
			# shellcheck disable=SC2086 # one interface a word
			ip netns exec "$ns" "$RTLTUNE" verify "$to" $IFS_OF_RUN >"$tmp/verify.out" || {
				echo "bench-apply: $m did not reach $to:" >&2
				grep -v ' ok' "$tmp/verify.out" | head -n 5 >&2
				exit 1
			}
			[ "$to" = "$a" ] && to=$b || to=$a
		done
	done
}
# The per-method runs: the sh scripts and the floor's input are written once per profile.
run_rtltune() {
	# shellcheck disable=SC2086
	ip netns exec "$1" "$RTLTUNE" apply "$2" $IFS_OF_RUN >"$tmp/apply.out"
	local changes
	changes=$(grep -c -- '->' "$tmp/apply.out" || true)
	[ "$changes" -eq "$CHANGES" ] ||
		{ echo "bench-apply: rtltune apply $2 made $changes changes, not $CHANGES" >&2; exit 1; }
}
run_script() { ip netns exec "$1" sh "$tmp/$2.sh"; }
run_batch() { ip netns exec "$1" sh "$tmp/$2.batch.sh"; }
run_floor() { ip netns exec "$1" "$FLOOR" <"$tmp/$2.floor" >/dev/null; }
# med METHOD SET: the median of METHOD's runs in SET; row LABEL METHOD SET prints it, then
# every run.
med() { median <"$tmp/$1.$2.ms"; }
row() {
	printf '  %-58s %8s ms  (runs: %s)\n' "$1" "$(med "$2" "$3")" "$(paste -sd ' ' "$tmp/$2.$3.ms")"
}

# What every timed run below includes once: a host's own apply would not pay it.
for ((k = 0; k < ROUNDS; k++)); do
	t0=$(now)
	ip netns exec $ns true
	t1=$(now)
	ms "$t0" "$t1" >>"$tmp/exec.ms"
done
exec_ms=$(median <"$tmp/exec.ms")
echo "ip netns exec alone, in every figure below: $exec_ms ms (runs: $(paste -sd ' ' "$tmp/exec.ms"))"
# net MS: MS less the exec's own time, to one place.
net() { is_number "${1:-}" && awk -v a="$1" -v b="$exec_ms" 'BEGIN { printf "%.1f", a - b }'; }

# ---- 2. link and feature knobs on N veths ---------------------------------------------
# The TSO bits rtltune's tso knob sets (lib/base/knob.c: every tx-tcp*-segmentation bit), as
# this kernel names them.
tso_bits=$(ip netns exec $ns ethtool -k b0 | sed -n 's/^[[:space:]]*\(tx-tcp[a-z0-9-]*segmentation\):.*/\1/p')
# gen_b PROFILE TSO GRO GSO_MAX GRO_MAX: the profile and its script, batch and floor forms.
gen_b() {
	local p=$1 tso=$2 gro=$3 gso=$4 grom=$5 i bit
	printf '[knobs]\ntso = %s\ngro = %s\ngso_max_size = %s\ngro_max_size = %s\n' \
		"$tso" "$gro" "$gso" "$grom" >"$tmp/profiles/$p.conf"
	: >"$tmp/$p.sh"
	echo "ip -batch $tmp/$p.ip" >"$tmp/$p.batch.sh"
	: >"$tmp/$p.ip"
	: >"$tmp/$p.floor"
	for i in $(seq 0 $((N - 1))); do
		echo "ip link set b$i gso_max_size $gso gro_max_size $grom" >>"$tmp/$p.sh"
		echo "ethtool -K b$i tso $tso gro $gro" >>"$tmp/$p.sh"
		echo "link set b$i gso_max_size $gso gro_max_size $grom" >>"$tmp/$p.ip"
		echo "ethtool -K b$i tso $tso gro $gro" >>"$tmp/$p.batch.sh"
		echo "link b$i gso_max_size=$gso gro_max_size=$grom" >>"$tmp/$p.floor"
		{
			printf 'features b%s' "$i"
			for bit in $tso_bits; do printf ' %s=%s' "$bit" "$tso"; done
			printf ' rx-gro=%s\n' "$gro"
		} >>"$tmp/$p.floor"
	done
}
gen_b b1 off on 32768 131072
gen_b b0 on off 65536 65536
IFS_OF_RUN=$(seq -f 'b%g' 0 $((N - 1)) | paste -sd ' ')
CHANGES=$((4 * N))
run_rounds $ns b1 b0 rtltune script batch floor
echo "apply tso, gro, gso_max_size, gro_max_size to $N veths ($CHANGES changes each way, median" \
	"of $ROUNDS rounds x 4 ways in rotating order, every run checked by rtltune verify):"
row "rtltune apply (journaled durably)" rtltune b1
row "the commands as one sh script in the namespace" script b1
row "ip -batch, then one ethtool -K per device, in the namespace" batch b1
row "floor: apply_floor (one request per device and group)" floor b1
MED_rtltune=$(med rtltune b1) MED_script=$(med script b1) MED_batch=$(med batch b1)
MED_floor=$(med floor b1)
r_script=$(div "$MED_script" "$MED_rtltune")
r_batch=$(div "$MED_batch" "$MED_rtltune")
r_floor=$(div "$MED_rtltune" "$MED_floor")
ok1=$(judge "$r_floor" '<=' 2)
echo "  ratios: one script / rtltune ${r_script:--}x; ip -batch + ethtool / rtltune ${r_batch:--}x;" \
	"rtltune / floor ${r_floor:--}x"
echo "  net of the exec: rtltune $(net "$MED_rtltune") ms, one script $(net "$MED_script") ms," \
	"ip -batch + ethtool $(net "$MED_batch") ms, floor $(net "$MED_floor") ms"
echo "  target: rtltune within 2x of the floor: $ok1"
summary "apply to $N veths ($CHANGES changes): rtltune / floor" \
	"${r_floor:--}x (${MED_rtltune:--} vs ${MED_floor:--} ms)" "<= 2x" "$ok1"
summary "  one sh script / rtltune; ip -batch + ethtool / rtltune" \
	"${r_script:--}x; ${r_batch:--}x" "-" "information"
summary "  net of the ip netns exec ($exec_ms ms): rtltune, floor" \
	"$(net "$MED_rtltune"), $(net "$MED_floor") ms" "-" "information"

# The syscalls of one apply (back to b1: the rounds end where they began, at b0).
# shellcheck disable=SC2086
ip netns exec $ns strace -f -qq -o "$tmp/strace" -e trace=fsync,fdatasync,rename,renameat,renameat2,socket \
	"$RTLTUNE" apply b1 $IFS_OF_RUN >/dev/null
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
ok2=$(all_met "$(judge "$fsyncs" '<=' 3)" "$(judge "$nlroute" '<=' 1)" "$(judge "$nlgenl" '<=' 1)" \
	"$(judge "$nlxfrm" '<=' 1)" "$(judge "$nlsocks" '==' $((nlroute + nlgenl + nlxfrm)))")
echo "  target: <= 3 fsync; one rtnetlink and one ethtool socket (+ one xfrm message for the" \
	"route invalidation) per run, whatever N: $ok2"
summary "  its syscalls: fsync, netlink sockets (route+genl+xfrm)" "$fsyncs, $nlsocks ($nlroute+$nlgenl+$nlxfrm)" "<= 3, 1+1(+1)" "$ok2"

# ---- 3. the ethtool netlink knobs -------------------------------------------------------
ip netns add ${ns}e
ip -n ${ns}e link set lo up
for i in $(seq 0 $((N - 1))); do
	echo "link add e$i numtxqueues 4 numrxqueues 4 type veth peer name f$i numtxqueues 4 numrxqueues 4"
	echo "tuntap add dev t$i mode tap"
done | ip -n ${ns}e -batch -
[ "$(ip -n ${ns}e -o link show type veth | wc -l)" -eq $((2 * N)) ] || { echo "bench-apply: veths not created" >&2; exit 1; }
# gen_e PROFILE CHANNELS RX_FRAMES FEATURES(on|off): the profile (veths and taps alike; a
# knob a device lacks is left out by rtltune) and its script and floor forms, which make only
# the changes the devices take: channels on the veths, coalescing on the taps, features on both.
gen_e() {
	local p=$1 ch=$2 fr=$3 f=$4 i
	printf '[knobs]\nchannels_rx = %s\nchannels_tx = %s\ncoalesce_rx_frames = %s\n' "$ch" "$ch" "$fr" \
		>"$tmp/profiles/$p.conf"
	printf 'feature.rx-gro-list = %s\nfeature.rx-udp-gro-forwarding = %s\n' "$f" "$f" \
		>>"$tmp/profiles/$p.conf"
	: >"$tmp/$p.sh"
	: >"$tmp/$p.floor"
	for i in $(seq 0 $((N - 1))); do
		{
			echo "ethtool -L e$i rx $ch tx $ch"
			echo "ethtool -K e$i rx-gro-list $f rx-udp-gro-forwarding $f"
			echo "ethtool -C t$i rx-frames $fr"
			echo "ethtool -K t$i rx-gro-list $f rx-udp-gro-forwarding $f"
		} >>"$tmp/$p.sh"
		{
			echo "channels e$i rx=$ch tx=$ch"
			echo "features e$i rx-gro-list=$f rx-udp-gro-forwarding=$f"
			echo "coalesce t$i rx-frames=$fr"
			echo "features t$i rx-gro-list=$f rx-udp-gro-forwarding=$f"
		} >>"$tmp/$p.floor"
	done
}
gen_e e1 2 32 on
gen_e e0 4 0 off
IFS_OF_RUN=$( (seq -f 'e%g' 0 $((N - 1)); seq -f 't%g' 0 $((N - 1))) | paste -sd ' ')
# 4 changes per veth (rx, tx, two features), 3 per tap (rx-frames, two features).
CHANGES=$((7 * N))
run_rounds ${ns}e e1 e0 rtltune script floor
echo "apply channels + coalescing + features to $((2 * N)) interfaces ($N veth, $N tap; $CHANGES" \
	"changes each way, median of $ROUNDS rounds x 3 ways in rotating order, every run checked):"
row "rtltune apply (journaled durably)" rtltune e1
row "the ethtool commands as one sh script in the namespace" script e1
row "floor: apply_floor (one request per device and group)" floor e1
MED_rtltune=$(med rtltune e1) MED_script=$(med script e1) MED_floor=$(med floor e1)
er_script=$(div "$MED_script" "$MED_rtltune")
er_floor=$(div "$MED_rtltune" "$MED_floor")
ok3=$(judge "$er_floor" '<=' 2)
echo "  ratios: one script / rtltune ${er_script:--}x; rtltune / floor ${er_floor:--}x"
echo "  net of the exec: rtltune $(net "$MED_rtltune") ms, one script $(net "$MED_script") ms," \
	"floor $(net "$MED_floor") ms"
echo "  target: rtltune within 2x of the floor: $ok3"
summary "apply channels, coalescing, features: rtltune / floor" \
	"${er_floor:--}x (${MED_rtltune:--} vs ${MED_floor:--} ms)" "<= 2x" "$ok3"
summary "  the ethtool commands as one sh script / rtltune" "${er_script:--}x" "-" "information"
summary "  net of the ip netns exec: rtltune, floor" "$(net "$MED_rtltune"), $(net "$MED_floor") ms" \
	"-" "information"
[ "$(all_met "$ok1" "$ok2" "$ok3")" = met ]
