#!/bin/bash
# 64 veth interfaces in a namespace: `rtltune show` (one netlink dump) and applying a
# profile with `rtltune apply`, side by side with the same changes made by ip + ethtool
# commands. Prints wall times and the ratio.
set -eu
cd "$(dirname "$0")/.."
RTLTUNE=$PWD/build/rtltune
N=${N:-64}
ns=rtlbench$$
tmp=$(mktemp -d)
cleanup() { ip netns del $ns 2>/dev/null; ip netns del ${ns}p 2>/dev/null; rm -rf "$tmp"; }
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
# shellcheck disable=SC2086
{
t0=$(now); ip netns exec $ns "$RTLTUNE" apply b1 $ifs >"$tmp/apply.out"; t1=$(now)
rt=$(ms "$t0" "$t1")
changes=$(grep -c -- '->' "$tmp/apply.out")
ip netns exec $ns "$RTLTUNE" verify b1 $ifs >/dev/null
}
t0=$(now)
for i in $(seq 0 $((N - 1))); do
	ip -n $ns link set b$i gso_max_size 65536 gro_max_size 65536
	ip netns exec $ns ethtool -K b$i tso on gro off
done
t1=$(now)
cmds=$(ms "$t0" "$t1")
# shellcheck disable=SC2086
ip netns exec $ns "$RTLTUNE" verify b0 $ifs >/dev/null
echo "apply to $N interfaces ($changes changes): rtltune $rt ms, ip+ethtool commands $cmds ms," \
	"ratio $(echo "scale=2; $cmds / $rt" | bc)x"
