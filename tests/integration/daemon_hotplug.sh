#!/bin/bash
# Acceptance (issue 5): a veth created after rtltuned started, matching --interfaces, gets
# the profile from the link event (checked with ip; no sample ran in between, and the log
# has the interface appear before the change); one that does not match is left alone;
# a rename is followed (status and /metrics use the new name; renaming into the glob
# applies the profile, from the event too); a removed interface leaves nothing behind
# (status, /metrics, the journal of originals).
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
# No sample for an hour after the first: a profile on a new interface then comes from
# the link event, not from a sample that happened to read it. Samples resume below.
printf '[daemon]\nsample_interval = 1h\n' >"$T_TMP/rtltuned.conf"
d_start "$NS" --config "$T_TMP/rtltuned.conf" --interfaces 'hp*' --profile hotplug
samples0=$(d_rtl --json status | jq .daemon.samples)

# wait_attr IF ATTR VALUE: poll ip(8) until the attribute reads VALUE, bounded at 10 s.
wait_attr() {
	local i
	for ((i = 0; i < 500; i++)); do
		[ "$(t_ip_attr "$NS" "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.02
	done
	t_fail "$1: $2 not $3 within 10 s (now $(t_ip_attr "$NS" "$1" "$2"))"
}
# by_event IF: the profile reached IF with no sample in between, and the daemon's log
# has the interface appear (or be renamed) before the profile's first change on it.
by_event() {
	t_eq "$(d_rtl --json status | jq .daemon.samples)" "$samples0" "$1: samples since the start"
	d_rtl --json log | jq -r --arg i "$1" '.entries[] | select(.iface == $i) | .message' |
		awk '/^(new interface|renamed from)/ { seen = 1 } /^gso_max_size / { ok = seen; exit }
		     END { exit !ok }' ||
		t_fail "$1: no profile change after the interface appeared: $(d_rtl log | grep "$1")"
	echo "ok: $1: the profile followed the link event"
}

# Hotplug: the pair appears, both ends match.
ip link add hpa netns "$NS" type veth peer name hpb netns "$NS"
wait_attr hpa gso_max_size 32768
wait_attr hpb gso_max_size 32768
by_event hpa
t_eq "$(t_feature "$NS" hpa generic-receive-offload)" on "hpa gro on"

# Not matching, then renamed into the glob: the profile is applied then.
ip link add other0 netns "$NS" type veth peer name other1 netns "$NS"
for ((i = 0; i < 250; i++)); do
	d_rtl --json status | jq -e '.interfaces[] | select(.ifname == "other1")' >/dev/null && break
	sleep 0.02
done
ip -n "$NS" link set other0 name hpx
wait_attr hpx gso_max_size 32768
by_event hpx

# Samples every 200 ms from here (a reload re-applies the profile: a no-op).
printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
kill -HUP "$D_PID"
for ((i = 0; i < 250; i++)); do
	[ "$(d_rtl --json status | jq .daemon.reloads)" = 1 ] && break
	sleep 0.02
done
t_eq "$(d_rtl --json status | jq .daemon.sample_interval_seconds)" 0.2 "sample_interval after the reload"

# Not matching: left alone, even after samples ran.
d_wait_samples 2
t_eq "$(t_ip_attr "$NS" other1 gso_max_size)" 65536 "non-matching veth untouched"
t_eq "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "other1") | .managed')" \
	false "non-matching veth not managed"

# Rename within the glob: same interface, new name everywhere.
ifindex=$(ip -n "$NS" -j link show dev hpa | jq .[0].ifindex)
ip -n "$NS" link set hpa name hpz
for ((i = 0; i < 250; i++)); do
	d_rtl --json status | jq -e '.interfaces[] | select(.ifname == "hpz")' >/dev/null && break
	sleep 0.02
done
st=$(d_rtl --json status)
t_eq "$(echo "$st" | jq -r '.interfaces[] | select(.ifname == "hpz") | "\(.ifindex) \(.managed) \(.applied.ok)"')" \
	"$ifindex true true" "renamed interface keeps its index, management and applied state"
t_eq "$(echo "$st" | jq '[.interfaces[] | select(.ifname == "hpa")] | length')" 0 "old name gone"
d_wait_samples 1
m=$(d_http /metrics)
t_eq "$(echo "$m" | grep -c 'device="hpa"' || true)" 0 "no series under the old name"
t_ge "$(echo "$m" | grep -c 'device="hpz"')" 1 "series under the new name"

# Rename out of the glob: no longer managed, settings stay.
ip -n "$NS" link set hpb name zzz
for ((i = 0; i < 250; i++)); do
	[ "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "zzz") | .managed')" = false ] && break
	sleep 0.02
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
for ((i = 0; i < 250; i++)); do
	[ "$(d_rtl --json status | jq '[.interfaces[] | select(.ifname != "lo")] | length')" = 0 ] && break
	sleep 0.02
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
d_rtl log | grep 'hpz: interface removed' >/dev/null || t_fail "removal not logged"
echo "ok: removal logged"
kill -0 "$D_PID" || t_fail "daemon died"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
