#!/bin/bash
# t-lane: beside
# Issue 23: `rtltune autotune on lo` printed "lo: autotune on", exited 0 and status showed
# lo with autotune on, though rtltuned never manages lo. Now `autotune on|off` of an
# interface rtltuned does not manage exits 2 naming the selection rule that left it out
# (loopback, no glob in interfaces, exclude, virtual and not named, drivers; an upper
# says whose upper it is), changes nothing, and status shows autotune off for every
# unmanaged interface. A managed interface still switches; after a reload that excludes
# it, it is refused the same way.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns u)
t_veth_pair "$NS" m0 "$NS" m1   # managed: named by 'm*'
t_veth_pair "$NS" x0 "$NS" x1   # named by 'x*', excluded by 'x*'
t_veth_pair "$NS" o0 "$NS" o1   # matched by '[o]*', which does not name it: virtual, left out
ip -n "$NS" tuntap add d0 mode tap   # named by 'd*', driver tun not in drivers
ip -n "$NS" link add br0 type bridge # the upper of m0
ip -n "$NS" link set m0 master br0
ip -n "$NS" link set br0 up
CONF=$T_TMP/rtltuned.conf
cat >"$CONF" <<'EOF'
[daemon]
sample_interval = 200ms
interfaces = m*, x*, d*, [o]*
exclude = x*
drivers = veth
EOF
# autotune on by default (yes): status showed it on for every interface, managed or not.
d_start "$NS" --config "$CONF"

status_of() { d_rtl --json status | jq -c --arg n "$1" '.interfaces[] | select(.ifname == $n) | [.managed, .autotune, .why]'; }

t_eq "$(status_of m0)" '[true,true,"named by interfaces"]' "m0 in status"
t_eq "$(status_of lo)" '[false,false,"loopback"]' "lo in status"
t_eq "$(status_of br0 | jq -c '.[0:2]')" '[false,false]' "br0 (upper of m0) in status"

# refused IFACE RULE: autotune on and off both exit 2 naming RULE; status unchanged.
refused() {
	local ifc=$1 rule=$2 sw rc out before
	before=$(status_of "$ifc")
	for sw in on off; do
		rc=0
		out=$(d_rtl autotune "$sw" "$ifc" 2>&1) || rc=$?
		t_eq "$rc" 2 "autotune $sw $ifc: exit code"
		case $out in
		"rtltune: $ifc: autotune $sw refused: rtltuned does not manage it ($rule)"*)
			echo "ok: autotune $sw $ifc says: $out" ;;
		*) t_fail "autotune $sw $ifc: message: $out" ;;
		esac
		rc=0
		out=$(d_rtl --json autotune "$sw" "$ifc" 2>/dev/null) || rc=$?
		t_eq "$rc" 2 "--json autotune $sw $ifc: exit code"
		t_eq "$(echo "$out" | jq .exit_code)" 2 "--json autotune $sw $ifc: exit_code"
	done
	t_eq "$(status_of "$ifc")" "$before" "$ifc in status after the refusals"
	t_eq "$(status_of "$ifc" | jq '.[1]')" false "$ifc: autotune in status"
}

refused lo "loopback"
refused x0 "excluded by 'x*'"
refused d0 "driver 'tun' not in drivers"
refused o0 "virtual (veth): name it with a glob in interfaces to manage it"
# An upper is not managed on its own: the message says whose upper it is.
for ((i = 0; i < 100; i++)); do
	[ "$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "br0") | .upper_of')" = m0 ] && break
	sleep 0.05
done
refused br0 "name matches no glob in interfaces"
out=$(d_rtl autotune on br0 2>&1) || true
case $out in *"it is tuned as the upper of m0: switch autotune there"*) echo "ok: br0's refusal names m0" ;;
*) t_fail "br0's refusal does not name m0: $out" ;; esac

# A managed interface switches, both ways.
t_eq "$(d_rtl autotune off m0)" "m0: autotune off" "autotune off m0"
t_eq "$(status_of m0 | jq '.[1]')" false "m0: autotune in status after off"
t_eq "$(d_rtl --json autotune on m0 | jq -c '[.ifname, .autotune]')" '["m0",true]' "autotune on m0"
t_eq "$(status_of m0 | jq '.[1]')" true "m0: autotune in status after on"

# A reload that excludes m0: no longer managed, refused with the new rule, shown off.
reloads=$(d_rtl --json status | jq .daemon.reloads)
sed -i 's/^exclude = x\*$/exclude = x*, m0/' "$CONF"
kill -HUP "$D_PID"
for ((i = 0; i < 200; i++)); do
	[ "$(d_rtl --json status | jq .daemon.reloads)" -gt "$reloads" ] && break
	sleep 0.05
done
t_eq "$(status_of m0)" "[false,false,\"excluded by 'm0'\"]" "m0 in status after the reload"
refused m0 "excluded by 'm0'"
# A new interface that no glob of interfaces matches.
ip -n "$NS" link add nomatch type veth peer name nomatch1
for ((i = 0; i < 100; i++)); do
	[ -n "$(status_of nomatch)" ] && break
	sleep 0.05
done
refused nomatch "name matches no glob in interfaces"

t_eq "$(grep -c 'autotune \(on\|off\) (by uid' "$D_LOG")" 2 "autotune switches rtltuned logged (m0's two)"
kill -0 "$D_PID" || t_fail "rtltuned died"
echo "daemon_unmanaged: refused=7 interfaces, switched=2"
