#!/bin/bash
# apply and restore through the daemon (root over the control socket): the same plan and
# journal as `rtltune apply`, the same JSON document, dry runs change nothing, a bad
# profile or interface fails the request before anything changes, restore puts the
# journaled originals back; the decisions show in /metrics.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add ap0 netns "$NS" type veth peer name ap1 netns "$NS"
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 24576\ngro = on\n' >"$PROFILES/small.conf"
printf '[profile]\n[knobs]\ngso_max_size = lots\n' >"$PROFILES/broken.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
d_start "$NS" --interfaces 'ap*'

ask() { # JSON request -> the reply line
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
print(s.makefile().readline().strip())
' "$D_SOCK" "$1"
}
before=$(t_link_state "$NS" ap0)

rep=$(ask '{"v":1,"cmd":"apply","profile":"small","ifaces":["ap0"],"dry_run":true}')
t_eq "$(echo "$rep" | jq -r '.result.interfaces[0].changes[] | select(.knob == "gso_max_size") | "\(.action) \(.old) \(.new)"')" \
	"change 65536 24576" "dry run plans the change"
t_eq "$(t_link_state "$NS" ap0)" "$before" "dry run changed nothing"

rep=$(ask '{"v":1,"cmd":"apply","profile":"broken","ifaces":["ap0"]}')
t_eq "$(echo "$rep" | jq -r '"\(.ok) \(.exit_code)"')" "false 2" "broken profile refused (exit 2)"
case $(echo "$rep" | jq -r .error) in *"broken.conf:3:"*) echo "ok: names file:line" ;;
*) t_fail "error: $(echo "$rep" | jq -r .error)" ;; esac
rep=$(ask '{"v":1,"cmd":"apply","profile":"small","ifaces":["ap0","nosuch9"]}')
t_eq "$(echo "$rep" | jq -r '"\(.ok) \(.exit_code)"')" "false 2" "unknown interface refused (exit 2)"
t_eq "$(t_link_state "$NS" ap0)" "$before" "refused requests changed nothing"

rep=$(ask '{"v":1,"cmd":"apply","profile":"small","ifaces":["ap0"]}')
t_eq "$(echo "$rep" | jq -r '.result | "\(.profile) \(.dry_run)"')" "small false" "apply result header"
t_eq "$(echo "$rep" | jq -r '.result.interfaces[0].changes[] | select(.knob == "gso_max_size") | .applied')" \
	true "gso_max_size applied"
t_eq "$(t_ip_attr "$NS" ap0 gso_max_size)" 24576 "ip sees gso_max_size"
t_eq "$(t_feature "$NS" ap0 generic-receive-offload)" on "ethtool sees gro on"
t_eq "$(t_ip_attr "$NS" ap1 gso_max_size)" 65536 "the other interface untouched"
grep -q "^iface ap0 " "$D_STATE/journal" || t_fail "originals not journaled"
echo "ok: originals journaled"
d_wait_samples 1
t_eq "$(d_http /metrics | grep '^rtltune_tuning_decisions_total{device="ap0",knob="gso_max_size",outcome="applied"}' | cut -d' ' -f2)" \
	1 "decision counted in /metrics"
t_eq "$(d_http /metrics | grep '^rtltune_knob_value{device="ap0",knob="gso_max_size"}' | cut -d' ' -f2)" \
	24576 "knob_value follows"

rep=$(ask '{"v":1,"cmd":"restore","ifaces":["ap0"]}')
t_eq "$(echo "$rep" | jq -r .ok)" true "restore ok"
t_eq "$(t_link_state "$NS" ap0)" "$before" "restore put every original back"
grep -q "^iface ap0 " "$D_STATE/journal" && t_fail "originals still journaled after restore"
echo "ok: journal entry dropped after restore"
rep=$(ask '{"v":1,"cmd":"restore","ifaces":["ap0"]}')
t_eq "$(echo "$rep" | jq -c '.result.interfaces[0].changes')" "[]" "second restore: nothing to do"
d_rtl log | grep 'ap0: restored' >/dev/null || t_fail "restore not logged"
rc=0
d_stop || rc=$?
t_eq "$rc" 0 "clean exit"
