#!/bin/bash
# The fault injector's controls do what they say: the fraction is honoured (20% of
# eligible skbs stolen within +-2 points), --all-skbs reaches non-GSO packets and --off
# stops stealing at once (live reconfiguration), only skbs above --min-len qualify, a
# second attach replaces the first (one filter, fresh counts), and bad input is refused
# with the documented exit codes.
. "$(dirname "$0")/../lib.sh"

FAULTINJ=${FAULTINJ:-$TOP/build/tests/tools/faultinj}
[ -x "$FAULTINJ" ] || t_fail "$FAULTINJ not built (make check builds tests/tools/*)"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
command -v ping >/dev/null || t_skip "ping not installed"

nsa=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$nsa" v0 "$nsb" v1
t_silence "$nsa" v0
t_silence "$nsb" v1
ip -n "$nsa" addr add 10.77.1.1/24 dev v0
ip -n "$nsb" addr add 10.77.1.2/24 dev v1
# Neighbours fixed, so ARP never competes with the packets counted.
ip -n "$nsa" neigh replace 10.77.1.2 lladdr "$(t_ip_attr "$nsb" v1 address)" dev v0 nud permanent
ip -n "$nsb" neigh replace 10.77.1.1 lladdr "$(t_ip_attr "$nsa" v0 address)" dev v1 nud permanent
t_iperf3_servers "$nsb" 10.77.1.2 5201

fi_() { t_in "$nsa" "$FAULTINJ" "$@"; }
stat_of() { fi_ stats v0 | awk -v k="$1" '$1 == k { print $2 }'; }
pings() { # COUNT: echo replies received
	t_in "$nsa" ping -n -q -c "$1" -i 0.01 -W 1 10.77.1.2 2>/dev/null |
		awk '/received/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^received/) print $(i - 1) }'
}

t_log "every skb, all of them: ping gets nothing through"
fi_ attach v0 --fraction 1 --min-len 0 --all-skbs
t_eq "$(pings 20)" 0 "echo replies with every skb stolen"
t_eq "$(stat_of dropped)" 20 "skbs stolen (20 echo requests)"

t_log "--off, live: everything passes, nothing more counted as stolen"
fi_ set v0 --off
t_eq "$(pings 20)" 20 "echo replies with the injector off"
t_eq "$(stat_of dropped)" 20 "skbs stolen after --off"
t_eq "$(stat_of enabled)" 0 "enabled after --off"

t_log "size threshold: echo requests (98 bytes with the MAC header) are not above 100"
fi_ set v0 --on --min-len 100
t_eq "$(stat_of gso_only)" 0 "gso_only kept by set (not given)"
before=$(stat_of eligible)
t_eq "$(pings 20)" 20 "echo replies below the size threshold"
t_eq "$(($(stat_of eligible) - before))" 0 "skbs above 100 bytes"

t_log "GSO only: a big ping is not a GSO skb"
fi_ set v0 --gso-only --min-len 0
before=$(stat_of dropped)
big=$(t_in "$nsa" ping -n -q -c 5 -i 0.01 -s 4000 -W 1 10.77.1.2 | awk '/received/ { print $4 }')
t_eq "$big" 5 "replies to 4 KiB pings with --fraction 1 on GSO skbs only"
t_eq "$(($(stat_of dropped) - before))" 0 "skbs stolen by a GSO-only injector from ping"

t_log "attach again replaces: one filter, fresh counts"
fi_ attach v0 --fraction 0.2 --min-len 500 --all-skbs
t_eq "$(stat_of seen)" 0 "counts after a re-attach"
t_eq "$(t_in "$nsa" tc filter show dev v0 egress | grep -c rtl_faultinj || true)" 1 "filters on v0"

t_log "fraction 0.2 honoured: 1000-byte UDP datagrams at a fixed rate (no TCP feedback)"
t_in "$nsa" iperf3 -u -c 10.77.1.2 -b 100M -l 1000 -t 1 >/dev/null
eligible=$(stat_of eligible)
dropped=$(stat_of dropped)
t_ge "$eligible" 10000 "datagrams above 500 bytes sent"
permille=$((dropped * 1000 / eligible))
t_ge "$permille" 180 "per mille stolen at --fraction 0.2"
t_le "$permille" 220 "per mille stolen at --fraction 0.2"

t_log "bad input"
set +e
fi_ attach v0 --fraction 1.5 2>"$T_TMP/err"; rc=$?
set -e
t_eq "$rc" 2 "exit code for --fraction 1.5"
grep -q "fraction: expected a number from 0 to 1" "$T_TMP/err" || t_fail "message: $(cat "$T_TMP/err")"
set +e
fi_ attach nosuch0 2>"$T_TMP/err"; rc=$?
set -e
t_eq "$rc" 2 "exit code for a missing interface"
grep -q "no such interface: nosuch0" "$T_TMP/err" || t_fail "message: $(cat "$T_TMP/err")"
fi_ detach v0
set +e
fi_ detach v0 2>"$T_TMP/err"; rc=$?
set -e
t_eq "$rc" 3 "exit code for detach when not attached"
grep -q "injector not attached" "$T_TMP/err" || t_fail "message: $(cat "$T_TMP/err")"
