#!/bin/bash
# The host-wide knobs (docs/knobs-stack.md "Host-wide knobs"), on this host's own
# /proc/sys/net/core: net.core.netdev_max_backlog and netdev_budget, changed through the
# CLI in the initial network namespace (the test's one interface there is lo, which the
# profile leaves alone) and read back from /proc; show, verify, the journal's host record
# and the decision log agree; restore puts the originals back exactly; an apply SIGKILLed
# between the two knobs is restored; an injected failure on the second undoes the first;
# bad values are refused naming file:line with nothing changed; from another network
# namespace (rtltune -n, and rtltuned there) the knobs are skipped with the reason and
# nothing changes. The host's values are saved first and written back at exit, pass or
# fail; the values set only raise them a little (other tests may run beside this one).
. "$(dirname "$0")/../lib.sh"

D=/proc/sys/net/core
[ -e "$D/netdev_max_backlog" ] ||
	t_fail "no $D/netdev_max_backlog: this test runs in the initial network namespace"
orig_q=$(cat "$D/netdev_max_backlog")
orig_b=$(cat "$D/netdev_budget")
orig_u=$(cat "$D/netdev_budget_usecs")
t_defer "echo $orig_q >$D/netdev_max_backlog; echo $orig_b >$D/netdev_budget"
t_log "the host's values: netdev_max_backlog $orig_q, netdev_budget $orig_b, netdev_budget_usecs $orig_u"
# Distinctive, and above what the host has.
Q=$((orig_q + 3099))
B=$((orig_b + 11))
host_state() { echo "$(cat "$D/netdev_max_backlog") $(cat "$D/netdev_budget") $(cat "$D/netdev_budget_usecs")"; }
before="$orig_q $orig_b $orig_u"

# Never a daemon of the host's: the CLI acts alone (a socket that does not exist).
export RTLTUNE_SOCKET=$T_TMP/no-daemon.sock
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
P=$RTLTUNE_PROFILE_PATH
cat >"$P/hostwide.conf" <<CONF
[knobs]
# the test's values: raised a little
net.core.netdev_max_backlog = $Q
net.core.netdev_budget = $B
net.core.netdev_budget_usecs = keep
CONF
lo_before=$(ip -j -d link show dev lo | jq -c '.[0] | [.mtu, .txqlen, .gso_max_size]')

t_log "dry run: nothing changes"
out=$("$RTLTUNE" apply hostwide lo --dry-run)
echo "$out"
t_eq "$out" "host net.core.netdev_max_backlog $orig_q -> $Q (dry run)
host net.core.netdev_budget $orig_b -> $B (dry run)
lo: nothing to change" "dry-run output"
t_eq "$(host_state)" "$before" "the host after --dry-run"

t_log "apply in the initial namespace, read back from /proc"
out=$("$RTLTUNE" apply hostwide lo)
echo "$out"
t_eq "$out" "host net.core.netdev_max_backlog $orig_q -> $Q
host net.core.netdev_budget $orig_b -> $B
lo: nothing to change" "apply output"
t_eq "$(host_state)" "$Q $B $orig_u" "the host's /proc/sys/net/core after apply"
t_eq "$(ip -j -d link show dev lo | jq -c '.[0] | [.mtu, .txqlen, .gso_max_size]')" "$lo_before" "lo untouched"
t_eq "$("$RTLTUNE" --json show lo | jq -c '.[0] | [.["net.core.netdev_max_backlog"], .["net.core.netdev_budget"], .["net.core.netdev_budget_usecs"]]')" \
	"[$Q,$B,$orig_u]" "show --json: the host's values"
"$RTLTUNE" show lo | grep -qxE " +net\.core\.netdev_max_backlog +$Q" || t_fail "show text lacks the host section"
t_eq "$(awk '$1 == "iface" && $2 == "host" { print $3, $5 }' "$RTLTUNE_STATE_DIR/journal")" "ifindex=0 perm=-" \
	"the journal's host record"
t_eq "$(awk '/^iface host / { f = 1; next } /^(iface|inflight|end)/ { f = 0 } f && $1 == "orig" { print $2 "=" $3 }' \
	"$RTLTUNE_STATE_DIR/journal" | sort | tr '\n' ' ')" \
	"net.core.netdev_budget=$orig_b net.core.netdev_max_backlog=$orig_q " "originals journaled as the host's"
grep -q '^inflight' "$RTLTUNE_STATE_DIR/journal" && t_fail "an operation left in flight"
t_eq "$("$RTLTUNE" --json log --journal | jq -r '.entries[] | select(.iface == "host" and .outcome == "applied") | "\(.knob) \(.old) \(.new)"' | sort | tr '\n' ';')" \
	"net.core.netdev_budget $orig_b $B;net.core.netdev_max_backlog $orig_q $Q;" "the decision log"
"$RTLTUNE" verify hostwide lo
t_eq "$("$RTLTUNE" --json apply hostwide lo | jq -c '.host.changes | map(.action)')" '["same","same"]' \
	"apply again: the host's plan in --json, nothing to change"

t_log "changed outside: verify says so"
echo $((Q + 1)) >"$D/netdev_max_backlog"
set +e
out=$("$RTLTUNE" verify hostwide lo)
rc=$?
set -e
t_eq "$rc" 1 "verify exit code with a difference"
t_eq "$out" "host net.core.netdev_max_backlog is $((Q + 1)), profile wants $Q ($P/hostwide.conf:3)" "verify output"

t_log "restore without IFACE: the originals back exactly"
out=$("$RTLTUNE" restore)
echo "$out"
echo "$out" | grep -qx "host net.core.netdev_max_backlog $((Q + 1)) -> $orig_q" || t_fail "restore output: $out"
t_eq "$(host_state)" "$before" "the host after restore"
grep -q '^iface host ' "$RTLTUNE_STATE_DIR/journal" && t_fail "the host's originals still journaled after restore"
t_eq "$("$RTLTUNE" --json restore | jq -c '.host')" null "a second restore: nothing of the host's"

t_log "restore IFACE leaves the host alone"
"$RTLTUNE" apply hostwide lo >/dev/null
"$RTLTUNE" restore lo >/dev/null
t_eq "$(host_state)" "$Q $B $orig_u" "the host after restore lo"
"$RTLTUNE" restore >/dev/null
t_eq "$(host_state)" "$before" "the host after restore"

t_log "an injected failure on the second knob undoes the first"
set +e
out=$(RTLTUNE_TEST_FAULT=apply_knob_2=EIO "$RTLTUNE" apply hostwide lo 2>&1)
rc=$?
set -e
echo "$out"
t_eq "$rc" 3 "exit code"
echo "$out" | grep -q "undone: net.core.netdev_max_backlog back to $orig_q" || t_fail "what was undone: $out"
t_eq "$(host_state)" "$before" "the host after the failed apply"

t_log "SIGKILL between the two knobs, then restore"
RTLTUNE_TEST_DELAY=apply_knob_2=30000 "$RTLTUNE" apply hostwide lo >/dev/null 2>&1 &
pid=$!
t_defer "kill -9 $pid 2>/dev/null"
for ((i = 0; i < 200; i++)); do
	[ "$(cat "$D/netdev_max_backlog")" = "$Q" ] && break
	sleep 0.05
done
t_eq "$(cat "$D/netdev_max_backlog")" "$Q" "the apply had changed the first knob"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
t_eq "$(awk '$1 == "inflight" { print $2, $3 }' "$RTLTUNE_STATE_DIR/journal")" "host ifindex=0" \
	"the killed apply's record, the host's"
out=$("$RTLTUNE" restore)
echo "$out"
t_eq "$(host_state)" "$before" "the host after SIGKILL + restore"
grep -qE '^(iface|inflight) host ' "$RTLTUNE_STATE_DIR/journal" && t_fail "the host's records left after restore"

t_log "bad values: refused naming file:line, nothing changed"
bad() { # expected-message profile-text
	local rc out
	printf '[knobs]\n# x\n%b' "$2" >"$P/bad.conf"
	set +e
	out=$("$RTLTUNE" apply bad lo 2>&1)
	rc=$?
	set -e
	t_eq "$rc" 2 "exit code for: $2"
	t_eq "$out" "rtltune: $P/bad.conf:$1" "message for: $2"
	t_eq "$(host_state)" "$before" "the host after: $2"
}
bad "3: net.core.netdev_budget expects a number up to 2147483647 (optional K or M suffix) or keep: a host-wide value has no 'max'" \
	'net.core.netdev_budget = max\n'
bad "3: net.core.netdev_max_backlog -1 is out of range (0 to 2147483647)" 'net.core.netdev_max_backlog = -1\n'
bad "3: net.core.netdev_max_backlog expects a number up to 2147483647 (optional K or M suffix), or keep, got '4G'" \
	'net.core.netdev_max_backlog = 4G\n'
bad "5: net.core.netdev_budget is host-wide: set it in [knobs], not in [driver:loopback]" \
	'mtu = keep\n[driver:loopback]\nnet.core.netdev_budget = 600\n'
set +e
out=$("$RTLTUNE" sweep lo net.core.netdev_budget 300,600 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "sweep of a host-wide knob: exit code"
t_eq "$out" "rtltune: sweep: net.core.netdev_budget is host-wide, no knob of lo (a profile's [knobs] sets it for the host)" \
	"sweep of a host-wide knob: message"

t_log "another network namespace: skipped with the reason, nothing changed"
# The host's record journaled meanwhile (the state dir is shared): never that namespace's.
"$RTLTUNE" apply hostwide lo >/dev/null
changed="$Q $B $orig_u"
ns=$(t_netns a)
ip -n "$ns" link add v0 type veth peer name v1
why="net.core.netdev_max_backlog is host-wide: only an rtltune in the initial network namespace changes it (this one runs in another, where /proc/sys/net/core has no netdev_max_backlog)"
out=$("$RTLTUNE" -n "$ns" apply hostwide v0)
echo "$out"
echo "$out" | grep -qxF "host net.core.netdev_max_backlog skipped: $why" || t_fail "the skip's reason: $out"
t_eq "$(echo "$out" | grep -c '^host .* skipped: .* is host-wide: only an rtltune in the initial network namespace')" 2 \
	"both host knobs skipped"
t_eq "$(host_state)" "$changed" "the host after an apply from another namespace"
t_eq "$("$RTLTUNE" -n "$ns" --json apply hostwide v0 | jq -c '[.host.ifname, (.host.changes | map(.action))]')" \
	'["host",["skip","skip"]]' "apply --json from another namespace"
"$RTLTUNE" -n "$ns" verify hostwide v0 >/dev/null || t_fail "verify from another namespace finds differences"
t_eq "$("$RTLTUNE" -n "$ns" --json show v0 | jq -c '.[0] | [.["net.core.netdev_max_backlog"], .["net.core.netdev_budget"]]')" \
	"[null,null]" "show --json there: unknown"
"$RTLTUNE" -n "$ns" show v0 | grep -q 'net\.core' && t_fail "show text there has a host section"
t_eq "$("$RTLTUNE" -n "$ns" --json restore | jq -c '.host')" null "restore there: nothing of the host's"
t_eq "$(host_state)" "$changed" "the host after a restore from another namespace"
t_eq "$(grep -c '^iface host ' "$RTLTUNE_STATE_DIR/journal")" 1 "the host's record kept, and no other made there"

t_log "rtltuned in that namespace: its profile's and the socket's applies skip them too"
. "$TOP/tests/daemon-lib.sh"
D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
d_start "$ns" --interfaces v0 --profile hostwide --no-autotune
out=$(RTLTUNE_SOCKET=$D_SOCK t_rtl "$ns" --json apply hostwide v0)
t_eq "$(echo "$out" | jq -c '[.host.changes[].action]')" '["skip","skip"]' "the daemon's reply: the host's knobs skipped"
t_eq "$(echo "$out" | jq -r '.host.changes[0].note')" "$why" "the daemon's reason"
t_eq "$(host_state)" "$changed" "the host after the daemon's applies"
d_wait_samples 2
m=$(d_http /metrics)
echo "$m" | grep -q '^rtltune_knob_value{knob="net\.core' && t_fail "a host-wide gauge from another namespace"
echo "$m" | grep -q '^rtltune_knob_value{device="v0"' || t_fail "no gauges of v0"
RTLTUNE_SOCKET=$D_SOCK t_rtl "$ns" restore >/dev/null
d_stop
t_eq "$(host_state)" "$changed" "the host after the daemon's restore there"
"$RTLTUNE" restore >/dev/null
t_eq "$(host_state)" "$before" "the host at the end (restore in the initial namespace)"
