#!/bin/bash
# `rtltune apply/restore` go through rtltuned when it runs in the caller's network
# namespace (one journal owner, SO_PEERCRED decides who may change), and work directly
# when the daemon is elsewhere. Output and exit codes are the same either way.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add ap0 netns "$NS" type veth peer name ap1 netns "$NS"
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[knobs]\ngso_max_size = 24576\ngro = on\n' >"$PROFILES/small.conf"
d_start "$NS" --interfaces 'ap*' --no-autotune
before=$(t_link_state "$NS" ap0)
cli() { ip netns exec "$NS" env RTLTUNE_SOCKET="$D_SOCK" RTLTUNE_PROFILE_PATH="$PROFILES" "$RTLTUNE" "$@"; }

out=$(cli apply small ap0)
echo "$out"
echo "$out" | grep -q '^ap0 gso_max_size 65536 -> 24576$' || t_fail "apply output"
t_eq "$(t_ip_attr "$NS" ap0 gso_max_size)" 24576 "applied (ip)"
t_eq "$(tail -n +2 "$D_STATE/log" | jq -s '[.[] | select(.actor == "daemon" and .knob != null)] | length')" 2 \
	"both changes made by the daemon (journal log)"
t_eq "$(grep -c '"actor": *"cli"' "$D_STATE/log")" 0 "none made by the CLI itself"

t_log "an unprivileged caller is refused and nothing changes"
set +e
out=$(ip netns exec "$NS" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	env RTLTUNE_SOCKET="$D_SOCK" RTLTUNE_PROFILE_PATH="$PROFILES" RTLTUNE_STATE_DIR="$D_STATE" \
	"$RTLTUNE" restore ap0 2>&1); rc=$?
set -e
echo "$out"
t_eq "$rc" 3 "exit code for an unprivileged restore"
t_eq "$(t_ip_attr "$NS" ap0 gso_max_size)" 24576 "unchanged after the refused restore"

t_log "a daemon in another namespace is not asked: the CLI works on its own links"
set +e
out=$(RTLTUNE_SOCKET=$D_SOCK RTLTUNE_PROFILE_PATH=$PROFILES "$RTLTUNE" apply small ap0 2>&1); rc=$?
set -e
t_eq "$rc" 2 "exit code from the host namespace"
t_eq "$out" "rtltune: no such interface: ap0" "host namespace has no ap0"

out=$(cli restore ap0)
echo "$out"
t_eq "$(t_link_state "$NS" ap0)" "$before" "restore through the daemon"
t_eq "$(grep -c '"actor": *"cli"' "$D_STATE/log")" 0 "restore made by the daemon too"
