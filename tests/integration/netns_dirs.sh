#!/bin/bash
# Pods named by a runtime's own netns directory (issue 28, docs/namespaces.md "Where the
# names are"): rtltuned's `netns_dirs` names a directory the test made, with a namespace
# bind-mounted there (as Docker does under /run/docker/netns), not in /run/netns.
#  1. The daemon in a "node" namespace, `namespaces = rtx*`, `netns_dirs = DIR`: the peer of
#     the node's veth in namespace rtxa (made before the daemon) and in rtxb (made while it
#     runs: the directory's inotify watch) are managed as rtxa/eth0 and rtxb/eth0 and raised.
#     A directory that does not exist yet, two levels deep (as /run/docker/netns before
#     dockerd made /run/docker): made one level at a time while the daemon runs, a namespace
#     mounted in it (rtxc) is managed too (the watch above moves down with each level).
#  2. The CLI without the daemon (`rtltune -n NODE show vxa`) names the peer's namespace
#     from the same setting; without it the peer's namespace is null.
#  3. A directory that is not absolute is refused at start (exit 2, naming the key).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NODE=$(t_netns node)
DIR=$T_TMP/nsdir
mkdir -p "$DIR"
# A shared mount, as ip netns makes /run/netns: a namespace mounted there later reaches the
# daemon's mount namespace (ip netns exec made it a slave of this one).
mount --bind "$DIR" "$DIR"
t_defer "umount -l $DIR 2>/dev/null || true"
mount --make-shared "$DIR"
# nsfile NAME: a network namespace bind-mounted at DIR/NAME (unshare --net=FILE), lo up.
nsfile() {
	touch "$DIR/$1"
	unshare --net="$DIR/$1" true
	t_defer "umount $DIR/$1 2>/dev/null || true"
	nsenter --net="$DIR/$1" ip link set lo up
}
# pair NAME: a veth vxNAME in the node, its peer eth0 in DIR/NAME, both at 16384.
pair() {
	nsenter --net="$DIR/rtx$1" ip link add eth0 gso_max_size 16384 type veth peer name "vx$1" \
		netns "$NODE" gso_max_size 16384
	nsenter --net="$DIR/rtx$1" ip link set eth0 up
	ip -n "$NODE" link set "vx$1" up
}
pod_gso() { nsenter --net="$DIR/rtx$1" ip -d -j link show dev eth0 | jq -r '.[0].gso_max_size'; }
nsfile rtxa
pair a

# The runtime's directory to be: its parent a shared mount, the rest made later.
RT=$T_TMP/rt
mkdir -p "$RT"
mount --bind "$RT" "$RT"
t_defer "umount -l $RT 2>/dev/null || true"
mount --make-shared "$RT"
LATE=$RT/docker/netns

PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 65536\ngso_ipv4_max_size = 65536\n' >"$PROFILES/big.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
CONF=$T_TMP/rtltuned.conf
printf 'interfaces = */eth0\nnamespaces = rtx*\nnetns_dirs = /run/netns, %s, %s\nprofile = big\nprobes = off\nautotune = no\nsample_interval = 200ms\n' "$DIR" "$LATE" >"$CONF"

t_log "1. the daemon follows namespaces named in DIR"
d_start "$NODE" --config "$CONF"
wait_gso() { # wait_gso NAME VALUE
	for ((i = 0; i < 100; i++)); do
		[ "$(pod_gso "$1")" = "$2" ] && return 0
		sleep 0.05
	done
}
wait_gso a 65536
t_eq "$(pod_gso a)" 65536 "rtxa/eth0 (made before the daemon) raised"
nsfile rtxb
pair b
wait_gso b 65536
t_eq "$(pod_gso b)" 65536 "rtxb/eth0 (made while it runs) raised"
mkdir "$RT/docker"
mkdir "$LATE"
touch "$LATE/rtxc"
unshare --net="$LATE/rtxc" true
t_defer "umount $LATE/rtxc 2>/dev/null || true"
nsenter --net="$LATE/rtxc" ip link set lo up
nsenter --net="$LATE/rtxc" ip link add eth0 gso_max_size 16384 type veth peer name vxc \
	netns "$NODE" gso_max_size 16384
nsenter --net="$LATE/rtxc" ip link set eth0 up
ip -n "$NODE" link set vxc up
for ((i = 0; i < 100; i++)); do
	[ "$(nsenter --net="$LATE/rtxc" ip -d -j link show dev eth0 | jq -r '.[0].gso_max_size')" = 65536 ] && break
	sleep 0.05
done
t_eq "$(nsenter --net="$LATE/rtxc" ip -d -j link show dev eth0 | jq -r '.[0].gso_max_size')" 65536 \
	"rtxc/eth0 (its directory made two levels deep while the daemon runs) raised"
t_eq "$(d_rtl --json status | jq -r '[.interfaces[] | select(.netns != null) | "\(.ifname)=\(.netns)"] | sort | join(" ")')" \
	"rtxa/eth0=rtxa rtxb/eth0=rtxb rtxc/eth0=rtxc" "status: the pods' interfaces and their namespaces"
t_eq "$(ip -n "$NODE" -d -j link show dev vxa | jq -r '.[0].gso_max_size')" 16384 "the node's veth (not selected) untouched"
ip netns exec "$NODE" env RTLTUNE_SOCKET="$D_SOCK" "$RTLTUNE" restore >/dev/null
d_stop
t_eq "$(pod_gso a) $(pod_gso b) $(nsenter --net="$LATE/rtxc" ip -d -j link show dev eth0 | jq -r '.[0].gso_max_size')" \
	"16384 16384 16384" "all three back after restore"

t_log "2. the CLI names the peer's namespace from netns_dirs"
show() { RTLTUNE_CONFIG=$1 RTLTUNE_SOCKET=$T_TMP/none.sock "$RTLTUNE" -n "$NODE" --json show vxa | jq -c '.[0].peer'; }
t_eq "$(show "$CONF" | jq -r '"\(.netns) \(.ifname) \(.ifindex)"')" \
	"rtxa eth0 $(nsenter --net="$DIR/rtxa" ip -j link show dev eth0 | jq '.[0].ifindex')" "show: the peer, by netns_dirs"
printf 'netns_dirs = /run/netns\n' >"$T_TMP/plain.conf"
t_eq "$(show "$T_TMP/plain.conf" | jq -r '"\(.netns) \(.ifname)"')" "null eth0" "show: a namespace named in no directory of netns_dirs"

t_log "3. a relative directory is refused"
printf 'netns_dirs = relative/dir\n' >"$T_TMP/bad.conf"
set +e
out=$(ip netns exec "$NODE" "$RTLTUNED" --foreground --config "$T_TMP/bad.conf" --socket "$T_TMP/bad.sock" \
	--state-dir "$T_TMP/badstate" 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "exit status for a relative netns_dirs entry"
echo "$out" | grep -q "bad.conf:1: netns_dirs: expected absolute directory paths" || t_fail "the error does not name file:line and the key: $out"
echo "ok: the error names the file, line and key"
