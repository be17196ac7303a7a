#!/bin/bash
# t-lane: beside
# rtltune -n NETNS COMMAND, as ip -n: every command runs in the named namespace, with a /sys
# that describes it (as `ip netns exec` mounts one). Checked against `ip netns exec NETNS
# rtltune` (the same answers), against a setns() without the /sys (nsenter --net: it takes
# a veth named eth0 for the host's device-backed eth0, which -n must not), and for what it
# leaves behind (the host's mounts unchanged). trace's NETNS/IFACE form counts the same
# interface as -n NETNS trace IFACE. Refusals: a namespace that does not exist, a name with
# '/', -n after the command, and a user without CAP_SYS_ADMIN.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns nn)
nsb=$(t_netns nnb)
t_veth_pair "$ns" n0 "$nsb" n1
# A veth with the name of a device-backed link of the host (when the host has one).
host_dev=$(for d in /sys/class/net/*; do [ -e "$d/device" ] && basename "$d" && break; done || true)
[ -n "$host_dev" ] && ip -n "$ns" link add "$host_dev" type veth peer name nx0

# rtl ARGS...: rc, out, err of the host's rtltune.
rtl() {
	rc=0
	"$RTLTUNE" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	out=$(cat "$T_TMP/out")
	err=$(cat "$T_TMP/err")
}

# The host's mounts but the namespace files under /run/netns, which the tests in the other
# lane (tests/run.sh) add and remove meanwhile.
host_mounts() { awk '$5 !~ "^/run/netns/"' /proc/self/mountinfo | md5sum; }

t_log "the same answers as ip netns exec"
mounts=$(host_mounts)
for args in "--json show" "--json show n0" "--json chips n0" "show n0" "--json verify balanced n0"; do
	# shellcheck disable=SC2086
	a=$("$RTLTUNE" -n "$ns" $args || true)
	# shellcheck disable=SC2086
	b=$(ip netns exec "$ns" "$RTLTUNE" $args || true)
	[ "$a" == "$b" ] || { diff <(echo "$b") <(echo "$a") | head -20; t_fail "rtltune -n NS $args differs from ip netns exec NS rtltune $args (<: ip netns exec, >: -n)"; }
	echo "ok: rtltune -n NS $args = ip netns exec NS rtltune $args"
done
t_eq "$("$RTLTUNE" -n "$ns" --json show | jq -r '[.[].ifname] | sort | join(" ")')" \
	"$(ip -n "$ns" -j link show | jq -r '[.[].ifname] | sort | join(" ")')" "-n NS show: the namespace's links"
t_eq "$("$RTLTUNE" --netns "$ns" --json show n0 | jq -r '.[0].ifindex')" \
	"$(ip -n "$ns" -j link show dev n0 | jq -r '.[0].ifindex')" "--netns NS show n0: its ifindex"

if [ -n "$host_dev" ]; then
	t_log "the namespace's /sys: its $host_dev is a veth, not the host's device"
	rtl -n "$ns" apply balanced --dry-run
	t_eq "$rc" 4 "-n NS apply (no IFACE): nothing device-backed there"
	grep -q "none of the 4 links here" <<<"$err" || t_fail "message: $err"
	rc=0
	ip netns exec "$ns" "$RTLTUNE" apply balanced --dry-run >/dev/null 2>&1 || rc=$?
	t_eq "$rc" 4 "ip netns exec NS rtltune apply: the same"
	# The control: setns() alone reads the host's /sys and takes the veth for a device.
	rc=0
	nsenter --net="/run/netns/$ns" "$RTLTUNE" apply balanced --dry-run >/dev/null 2>&1 || rc=$?
	t_eq "$rc" 0 "nsenter --net (no /sys of its own) selects $host_dev: what -n avoids"
fi
t_eq "$(host_mounts)" "$mounts" "the host's mounts after every -n"

t_log "apply and restore with -n"
before=$(t_link_state "$ns" n0)
printf '[knobs]\n# test\ntxqueuelen = 3000\n' >"$T_TMP/q.conf"
rtl -n "$ns" apply "$T_TMP/q.conf" n0
t_eq "$rc/$out" "0/n0 txqueuelen 1000 -> 3000" "-n NS apply"
t_eq "$(ip -n "$ns" -j link show dev n0 | jq .[0].txqlen)" 3000 "txqueuelen in NS (ip)"
rtl -n "$ns" restore n0
t_eq "$rc" 0 "-n NS restore"
t_eq "$(t_link_state "$ns" n0)" "$before" "state after restore"

t_log "trace: -n NS IFACE and NS/IFACE count the same interface"
a=$("$RTLTUNE" -n "$ns" --json trace n0 --seconds 0.2 2>/dev/null | jq -c '.interfaces[] | [.ifname, .ifindex]')
b=$("$RTLTUNE" --json trace "$ns/n0" --seconds 0.2 2>/dev/null | jq -c '.interfaces[] | [.ifname, .netns, .ifindex]')
t_eq "$a" "[\"n0\",$(ip -n "$ns" -j link show dev n0 | jq .[0].ifindex)]" "-n NS trace n0"
t_eq "$b" "[\"n0\",\"$ns\",$(ip -n "$ns" -j link show dev n0 | jq .[0].ifindex)]" "trace NS/n0"

t_log "refusals"
rtl -n "$T_ID-nosuch" show
t_eq "$rc" 2 "-n of a namespace that does not exist: exit"
t_eq "$err" "rtltune: -n: no network namespace '$T_ID-nosuch' (no /run/netns/$T_ID-nosuch; ip netns list shows them)" "its message"
rtl -n a/b show
t_eq "$rc/$err" "2/rtltune: -n: 'a/b' is not a network namespace name (as in /run/netns/)" "-n a/b"
rtl show -n "$ns"
t_eq "$rc" 2 "-n after the command: exit"
grep -qF "show: -n goes before the command" <<<"$err" || t_fail "-n after the command: $err"
rc=0
err=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$RTLTUNE" -n "$ns" show 2>&1) || rc=$?
t_eq "$rc" 3 "-n as nobody: exit"
t_eq "$err" "rtltune: -n: entering network namespace $ns: Operation not permitted (rtltune show needs CAP_SYS_ADMIN to enter a network namespace; this process lacks CAP_SYS_ADMIN: run it as root)" "-n as nobody: message"
