#!/bin/bash
# Acceptance (issue 5): a veth created after rtltuned started, matching --interfaces, gets
# the profile within one second (checked with ip); one that does not match is left alone;
# a rename is followed (status and /metrics use the new name; renaming into the glob
# applies the profile); a removed interface leaves nothing behind (status, /metrics, the
# journal of originals).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
cat >"$PROFILES/hotplug.conf" <<'EOF'
[profile]
description = test: values no veth has by default
[knobs]
gso_max_size = 32768
gro = on
EOF
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
d_start "$NS" --interfaces 'hp*' --profile hotplug

# wait_attr IF ATTR VALUE MAXMS: poll ip(8) until the attribute reads VALUE; prints ms.
wait_attr() {
	local start now
	start=$(date +%s%N)
	while :; do
		[ "$(t_ip_attr "$NS" "$1" "$2" 2>/dev/null)" = "$3" ] && break
		now=$(date +%s%N)
		[ $(((now - start) / 1000000)) -gt "$4" ] && break
		sleep 0.01
	done
	echo $((($(date +%s%N) - start) / 1000000))
}

# Hotplug: the pair appears, both ends match.
ip link add hpa netns "$NS" type veth peer name hpb netns "$NS"
ms=$(wait_attr hpa gso_max_size 32768 3000)
t_eq "$(t_ip_attr "$NS" hpa gso_max_size)" 32768 "hpa gso_max_size after hotplug"
t_le "$ms" 1000 "hotplug to profile applied (ms)"
ms=$(wait_attr hpb gso_max_size 32768 1000)
t_eq "$(t_ip_attr "$NS" hpb gso_max_size)" 32768 "hpb gso_max_size after hotplug"
t_eq "$(t_feature "$NS" hpa generic-receive-offload)" on "hpa gro on"

# Not matching: left alone, even after samples ran.
ip link add other0 netns "$NS" type veth peer name other1 netns "$NS"
d_wait_samples 2
t_eq "$(t_ip_attr "$NS" other0 gso_max_size)" 65536 "non-matching veth untouched"
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "other0") | .managed')" \
	false "non-matching veth not managed"

# Rename within the glob: same interface, new name everywhere.
ifindex=$(ip -n "$NS" -j link show dev hpa | jq .[0].ifindex)
ip -n "$NS" link set hpa name hpz
for ((i = 0; i < 100; i++)); do
	d_rtl --json status | jq -e '.interfaces[] | select(.ifname == "hpz")' >/dev/null && break
	sleep 0.01
done
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r '.interfaces[] | select(.ifname == "hpz") | "\(.ifindex) \(.managed) \(.applied.ok)"')" \
	"$ifindex true true" "renamed interface keeps its index, management and applied state"
t_eq "$(echo "$st" | jq '[.interfaces[] | select(.ifname == "hpa")] | length')" 0 "old name gone"
d_wait_samples 1
m=$(d_http /metrics)
t_eq "$(echo "$m" | grep -c 'device="hpa"' || true)" 0 "no series under the old name"
t_ge "$(echo "$m" | grep -c 'device="hpz"')" 1 "series under the new name"

# Rename into the glob: the profile is applied then.
ip -n "$NS" link set other0 name hpx
ms=$(wait_attr hpx gso_max_size 32768 3000)
t_eq "$(t_ip_attr "$NS" hpx gso_max_size)" 32768 "renamed into the glob: profile applied"
t_le "$ms" 1000 "rename to profile applied (ms)"
# Rename out of the glob: no longer managed, settings stay.
ip -n "$NS" link set hpb name zzz
for ((i = 0; i < 100; i++)); do
	[ "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "zzz") | .managed')" = false ] && break
	sleep 0.01
done
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "zzz") | .managed')" false \
	"renamed out of the glob: not managed"
t_eq "$(t_ip_attr "$NS" zzz gso_max_size)" 32768 "renamed out of the glob: settings stay"

# Removal: nothing left (status, metrics, journal of originals).
# The journal keys devices by identity (ifindex here: veths have no permanent address).
gone=$(for d in hpz zzz hpx; do ip -n "$NS" -j link show dev "$d" | jq .[0].ifindex; done)
for idx in $gone; do
	grep -q "^iface .* ifindex=$idx " "$D_STATE/journal" ||
		t_fail "journal should hold originals of ifindex $idx before removal"
done
ip -n "$NS" link del hpz
ip -n "$NS" link del hpx
for ((i = 0; i < 100; i++)); do
	[ "$(d_rtl --json status | jq '[.interfaces[] | select(.ifname != "lo")] | length')" = 0 ] && break
	sleep 0.01
done
t_eq "$(d_rtl --json status | jq -r '[.interfaces[].ifname] | join(",")')" lo \
	"status after removal"
d_wait_samples 1
m=$(d_http /metrics)
t_eq "$(echo "$m" | grep -c 'device=' || true)" 0 "no per-device series after removal"
for idx in $gone; do
	if grep -q "^iface .* ifindex=$idx " "$D_STATE/journal"; then
		cat "$D_STATE/journal" >&2
		t_fail "journal still holds originals of removed ifindex $idx"
	fi
done
echo "ok: no originals of removed devices left in the journal"
d_rtl log | grep -q 'hpz: interface removed' || t_fail "removal not logged"
echo "ok: removal logged"
kill -0 "$D_PID" || t_fail "daemon died"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
