#!/bin/bash
# t-lane: beside
# rtltune doctor (SPEC "Programs", docs/doctor.md): what this host supports and what rtltune
# would do here, text and JSON from one document, read-only. On the host's own NIC (read,
# never written: its settings are compared before and after), in a namespace with a veth
# pair and a config that names one end, with CAP_BPF and CAP_SYS_ADMIN dropped (exit 3
# naming CAP_BPF), and with configs rtltuned would refuse or that turn the probes off.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
command -v setpriv >/dev/null || t_fail "setpriv missing (util-linux)"

conf=$T_TMP/rtltuned.conf
printf '[daemon]\ninterfaces = va\nprofile = throughput\n' >"$conf"

t_log "--help says it is read-only and exits 0"
out=$("$RTLTUNE" doctor --help)
echo "$out" | grep -q '^Read-only: it changes no setting' || t_fail "help does not say read-only: $out"

# ---- the host's own NIC: read, never written -------------------------------------------
host_if=eth0
[ -e /sys/class/net/$host_if/device ] ||
	host_if=$(basename "$(dirname "$(ls -d /sys/class/net/*/device 2>/dev/null | head -n1)")")
[ -n "$host_if" ] && [ "$host_if" != . ] || t_skip "no device-backed interface in the host namespace"
host_state() {
	ip -d -j link show dev "$host_if" | jq -c '.[0] | del(.stats64, .stats)'
	for o in -k -g -c -l -a; do ethtool $o "$host_if" 2>&1 || true; done
}
before=$(host_state)
t_log "doctor on the host's $host_if (read-only)"
rc=0
"$RTLTUNE" --config "$conf" doctor "$host_if" >"$T_TMP/host.txt" || rc=$?
t_eq "$rc" 0 "exit status on this host"
rc=0
"$RTLTUNE" --config "$conf" --json doctor "$host_if" >"$T_TMP/host.json" || rc=$?
t_eq "$rc" 0 "exit status on this host, --json"
t_eq "$(host_state)" "$before" "$host_if's link, features, rings, coalescing, channels, pause after doctor"
j=$(cat "$T_TMP/host.json")
t_eq "$(jq -r .read_only <<<"$j")" true "read_only"
t_eq "$(jq -r .kernel.release <<<"$j")" "$(uname -r)" "kernel release"
t_eq "$(jq -r .kernel.btf <<<"$j")" "$([ -r /sys/kernel/btf/vmlinux ] && echo true || echo false)" "kernel BTF"
t_eq "$(jq -r '.interfaces | length' <<<"$j")" 1 "interfaces reported (the one named)"
t_eq "$(jq -r '.interfaces[0].ifname' <<<"$j")" "$host_if" "the interface"
t_eq "$(jq -r '.interfaces[0].driver' <<<"$j")" "$(ethtool -i "$host_if" | awk '/^driver:/ { print $2 }')" \
	"driver as ethtool -i says"
t_eq "$(jq -r '.interfaces[0].chip.id // "none"' <<<"$j")" \
	"$("$RTLTUNE" --json chips "$host_if" | jq -r '.chip.id // "none"')" "chip entry as rtltune chips says"
t_eq "$(jq -r '.interfaces[0].managed' <<<"$j")" false "managed by a config that names va"
t_eq "$(jq -r '.interfaces[0].why' <<<"$j")" "name matches no glob in interfaces" "why not"
t_eq "$(jq -r '.interfaces[0].knobs.link | index("mtu") != null' <<<"$j")" true "mtu among the link knobs"
t_eq "$(jq -r '.rtltuned.can_run_with_probes' <<<"$j")" true "rtltuned can run with its probes"
t_eq "$(jq -r '[.capabilities[] | select(.name == "CAP_BPF")][0].have' <<<"$j")" true "CAP_BPF held"
t_eq "$(jq -r '[.hooks[] | .works] | join(",")' <<<"$j")" true,true "tp_btf and raw_tp tried and working"
t_eq "$(jq -r '[.tracepoints[] | select(.rtltuned and (.btf | not) and (.tracefs != true))] | length' <<<"$j")" \
	0 "tracepoints rtltuned loads, all present"
grep -q "^$host_if (ifindex [0-9]*): driver " "$T_TMP/host.txt" || t_fail "text has no $host_if section"
grep -qx 'rtltuned can run with its probes here.' "$T_TMP/host.txt" || t_fail "text verdict missing"
# The host-wide knobs, read as /proc/sys has them (the test runs in the initial namespace).
for k in netdev_max_backlog netdev_budget netdev_budget_usecs; do
	t_eq "$(jq -r ".host.knobs[\"net.core.$k\"].value" <<<"$j")" "$(cat /proc/sys/net/core/$k)" "host knob $k"
done
t_eq "$(jq -r .host.reachable <<<"$j")" true "host-wide knobs reachable from the initial namespace"
grep -q "^host-wide knobs  net.core.netdev_max_backlog $(cat /proc/sys/net/core/netdev_max_backlog), " \
	"$T_TMP/host.txt" || t_fail "text has no host-wide knobs line"
if command -v bpftool >/dev/null; then
	t_eq "$(bpftool prog show -j | jq '[.[] | select(.name == "rtl_doctor")] | length')" 0 \
		"doctor's no-op programs left loaded"
fi

# ---- in a namespace, with a config ------------------------------------------------------
ns=$(t_netns d)
t_veth_pair "$ns" va "$ns" vb
before=$(t_link_state "$ns" va)
t_log "doctor in a namespace with a veth pair"
rc=0
t_rtl "$ns" --config "$conf" doctor >"$T_TMP/ns.txt" || rc=$?
t_eq "$rc" 0 "exit status in the namespace"
j=$(t_rtl "$ns" --config "$conf" --json doctor)
t_eq "$(t_link_state "$ns" va)" "$before" "va's settings after doctor (nothing applied)"
t_eq "$(jq -r '[.interfaces[].ifname] | sort | join(",")' <<<"$j")" lo,va,vb "every link of the namespace"
t_eq "$(jq -r '.host.reachable, .host.knobs["net.core.netdev_budget"].value' <<<"$j" | paste -sd,)" \
	false,null "host-wide knobs from another namespace: unknown, not reachable"
jq -r .host.why <<<"$j" | grep -q "initial network namespace" || t_fail "no why for the host-wide knobs: $(jq -c .host <<<"$j")"
va() { jq -r ".interfaces[] | select(.ifname == \"va\") | $1" <<<"$j"; }
t_eq "$(va .managed)" true "va managed"
t_eq "$(va .why)" "named by interfaces" "why va"
t_eq "$(va .profile)" throughput "va's profile"
t_eq "$(va .chip.id)" veth "va's chip entry"
t_eq "$(va '.chip.limits.gso_max_size.value')" "$(t_ip_attr "$ns" va tso_max_size)" \
	"va's gso_max_size limit = its tso_max_size"
t_eq "$(va '.knobs.ethtool.channels.supported')" true "veth takes channels"
t_eq "$(va '.knobs.ethtool.rings.supported')" false "veth takes no rings"
# throughput raises veth's sizes to the chip's 524280 (profiles/throughput.conf: max).
t_eq "$(va '[.would_change[] | select(.knob == "gso_max_size") | .new][0]')" \
	"$(t_ip_attr "$ns" va tso_max_size)" "the profile would raise gso_max_size to the limit"
t_eq "$(jq -r '.interfaces[] | select(.ifname == "vb") | .why' <<<"$j")" \
	"name matches no glob in interfaces" "why not vb"
t_eq "$(jq -r '.interfaces[] | select(.ifname == "lo") | .why' <<<"$j")" loopback "why not lo"
t_eq "$(jq -r .config.file <<<"$j")" "$conf" "config file reported"
t_eq "$(jq -r .config.from <<<"$j")" --config "config named by"
for k in btf raw_tp tp_btf ethtool_netlink big_tcp_ipv4 netdev_netlink route_invalidation; do
	[ -n "$(jq -r ".features[] | select(.key == \"$k\") | .here" <<<"$j")" ] || t_fail "feature $k missing"
done
echo "ok: features listed"
grep -q '^va (ifindex [0-9]*): driver veth$' "$T_TMP/ns.txt" || t_fail "text: no va section"
grep -q '^    rtltuned      manages it: named by interfaces; profile throughput$' "$T_TMP/ns.txt" ||
	t_fail "text: va's managed line"
grep -q '^    chip          veth ' "$T_TMP/ns.txt" || t_fail "text: va's chip line"

t_log "the feature table of docs/doctor.md is the code's"
jq -r '.features[] | "\(.key) \(.since)"' <<<"$j" >"$T_TMP/code"
awk -F'|' '/^## Kernel features/ { f = 1 } /^## / && !/Kernel features/ { f = 0 }
	f && $2 ~ /`/ { gsub(/[` ]/, "", $2); gsub(/ /, "", $4); print $2, $4 }' docs/doctor.md >"$T_TMP/doc"
diff "$T_TMP/code" "$T_TMP/doc" || t_fail "docs/doctor.md's table differs from doctor's features (<: code)"
t_eq "$(wc -l <"$T_TMP/doc")" "$(jq '.features | length' <<<"$j")" "rows in docs/doctor.md"

# ---- capabilities dropped ----------------------------------------------------------------
t_log "CAP_BPF and CAP_SYS_ADMIN dropped: exit 3 naming CAP_BPF"
drop() { ip netns exec "$ns" setpriv --inh-caps -bpf,-sys_admin --bounding-set -bpf,-sys_admin "$@"; }
rc=0
drop "$RTLTUNE" --config "$conf" doctor va >"$T_TMP/nocap.txt" || rc=$?
t_eq "$rc" 3 "exit status without CAP_BPF"
grep -qx 'rtltuned cannot run with its probes here; missing:' "$T_TMP/nocap.txt" || t_fail "no verdict"
t_eq "$(sed -n '/^rtltuned cannot run/{n;p}' "$T_TMP/nocap.txt")" \
	"  CAP_BPF (or CAP_SYS_ADMIN): load the probes (BPF programs and maps)" "first missing item"
rc=0
j=$(drop "$RTLTUNE" --config "$conf" --json doctor va) || rc=$?
t_eq "$rc" 3 "exit status without CAP_BPF, --json"
t_eq "$(jq -r '[.capabilities[] | select(.name == "CAP_BPF")][0].missing' <<<"$j")" true "CAP_BPF missing"
t_eq "$(jq -r '.hooks[0].works' <<<"$j")" false "tp_btf refused"
jq -r '.hooks[0].error' <<<"$j" | grep -q 'Operation not permitted' || t_fail "tp_btf error: $(jq .hooks[0] <<<"$j")"
t_eq "$(jq -r '.rtltuned.missing | map(select(startswith("CAP_BPF"))) | length' <<<"$j")" 1 \
	"CAP_BPF among what is missing"
t_log "CAP_BPF alone dropped: CAP_SYS_ADMIN serves (the kernel's rule)"
rc=0
j=$(ip netns exec "$ns" setpriv --inh-caps -bpf --bounding-set -bpf "$RTLTUNE" --config "$conf" --json doctor va) || rc=$?
t_eq "$rc" 0 "exit status with CAP_SYS_ADMIN but no CAP_BPF"
t_eq "$(jq -r '[.capabilities[] | select(.name == "CAP_BPF")][0] | "\(.have) \(.missing)"' <<<"$j")" \
	"false false" "CAP_BPF not held, not missing"

# ---- configs -----------------------------------------------------------------------------
t_log "a config rtltuned would refuse: exit 3 naming FILE:LINE"
printf '[daemon]\ninterfaces = va\nprobes = sometimes\n' >"$conf"
rc=0
j=$(t_rtl "$ns" --config "$conf" --json doctor va) || rc=$?
t_eq "$rc" 3 "exit status with a broken config"
t_eq "$(jq -r '.rtltuned.missing[-1]' <<<"$j")" "$conf:3: probes: expected on or off, got 'sometimes'" \
	"the config error is what is missing"
printf '[daemon]\ninterfaces = va\nprofile = nosuchprofile\n' >"$conf"
rc=0
j=$(t_rtl "$ns" --config "$conf" --json doctor va) || rc=$?
t_eq "$rc" 3 "exit status with a profile that does not exist"
jq -r '.config.profile_error' <<<"$j" | grep -q nosuchprofile || t_fail "profile error: $(jq .config <<<"$j")"
t_log "probes = off: the host check still judges the probes, and says the config turns them off"
printf '[daemon]\ninterfaces = va\nprobes = off\n' >"$conf"
rc=0
out=$(RTLTUNE_CONFIG=$conf t_rtl "$ns" doctor va) || rc=$?
t_eq "$rc" 0 "exit status with probes = off"
t_eq "$(tail -n1 <<<"$out")" "rtltuned can run with its probes here (its config turns them off: probes = off)." \
	"verdict with probes = off"
t_eq "$(RTLTUNE_CONFIG=$conf t_rtl "$ns" --json doctor va | jq -r '.config.from + " " + .rtltuned.probes_setting')" \
	"RTLTUNE_CONFIG off" "config named by RTLTUNE_CONFIG, probes_setting"

t_log "a bad argument"
rc=0
t_rtl "$ns" doctor nosuchif >/dev/null 2>&1 || rc=$?
t_eq "$rc" 2 "exit status for an interface that does not exist"
rc=0
t_rtl "$ns" doctor --frob >/dev/null 2>&1 || rc=$?
t_eq "$rc" 2 "exit status for an unknown option"
