#!/bin/bash
# rtltuned.conf's selection and logging keys (rtltune.conf(5), docs/daemon.md), each shown by
# its effect on real interfaces and by its absence: the same interfaces, the same profile,
# one daemon per case with the key and without it.
#  - exclude, drivers, chips: an interface they leave out is not managed (status names the
#    key in its "why") and keeps its value; the others get the profile. Interfaces: a veth
#    pair (driver veth, chip entry veth), a bridge (driver bridge, no chip entry) and a tap
#    (driver tun, chip entry tun), all named by `interfaces = s*`.
#  - pin: under traffic pressing on gso_max_size, the tuner never tries the pinned knob
#    (recommend says "pinned"), while the profile still sets it; without the pin it tries.
#  - log_level: what reaches the log (stderr here, the journal under systemd) and
#    `rtltune log`: debug lines only at debug, info lines not at warning.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

NS=$(t_netns d)
ip link add sa0 netns "$NS" type veth peer name sa1 netns "$NS"
ip -n "$NS" link add sd0 type bridge
ip -n "$NS" tuntap add dev st0 mode tap
ALL="sa0 sa1 sd0 st0"
PROFILES=$T_TMP/profiles
mkdir -p "$PROFILES"
printf '[profile]\n[knobs]\ngso_max_size = 32768\n' >"$PROFILES/sel.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")

# st IF FIELD: a field of IF in `rtltune status`.
st() { d_rtl --json status | jq -r --arg i "$1" ".interfaces[] | select(.ifname == \$i) | .$2"; }

# selection NAME 'KEY = VALUE' MANAGED...: a daemon with that line (none for NAME "none")
# on fresh interfaces (gso_max_size 65536, no journal): each of MANAGED gets the profile
# (bounded wait), every other interface is not managed, says why, and keeps 65536. The
# daemon is left running: stop it with d_stop.
selection() {
	local name=$1 line=$2 i k why
	shift 2
	for i in $ALL; do ip -n "$NS" link set "$i" gso_max_size 65536; done
	rm -rf "$D_STATE"
	printf '[daemon]\ninterfaces = s*\nprofile = sel\nautotune = no\n%s\n' "$line" \
		>"$T_TMP/$name.conf"
	d_start "$NS" --config "$T_TMP/$name.conf"
	for i in "$@"; do
		for ((k = 0; k < 250; k++)); do
			[ "$(t_ip_attr "$NS" "$i" gso_max_size)" = 32768 ] && break
			sleep 0.02
		done
		t_eq "$(st "$i" managed) $(t_ip_attr "$NS" "$i" gso_max_size)" "true 32768" \
			"$name: $i managed, profile applied"
	done
	for i in $ALL; do
		case " $* " in *" $i "*) continue ;; esac
		why=$(st "$i" why)
		t_eq "$(st "$i" managed) $(t_ip_attr "$NS" "$i" gso_max_size)" "false 65536" \
			"$name: $i not managed ($why), untouched"
		SEL_WHY[$i]=$why
	done
}
declare -A SEL_WHY

# Without any of the keys every interface is managed; what the keys below select on:
selection none "" sa0 sa1 sd0 st0
t_eq "$(for i in $ALL; do echo -n "$(st "$i" driver)/$(st "$i" chip) "; done)" \
	"veth/veth veth/veth bridge/null tun/tun " "drivers/chips of sa0 sa1 sd0 st0"
d_stop || t_fail "unclean exit"
selection exclude "exclude = sa1, sd*" sa0 st0
d_stop || t_fail "unclean exit"
t_eq "${SEL_WHY[sa1]} / ${SEL_WHY[sd0]}" "excluded by 'sa1' / excluded by 'sd*'" "exclude: why"
selection drivers "drivers = veth, tun" sa0 sa1 st0
d_stop || t_fail "unclean exit"
t_eq "${SEL_WHY[sd0]}" "driver 'bridge' not in drivers" "drivers: why"
selection chips "chips = veth" sa0 sa1
d_stop || t_fail "unclean exit"
t_eq "${SEL_WHY[sd0]} / ${SEL_WHY[st0]}" "chip 'none' not in chips / chip 'tun' not in chips" \
	"chips: why"
# exclude wins over interfaces and over a driver that would be taken.
selection both "drivers = veth
exclude = sa0" sa1
d_stop || t_fail "unclean exit"

t_log "log_level"
# NOTIFY_SOCKET at a path nobody listens on: READY=1 fails with one warning. With
# WATCHDOG_USEC the watchdog timer's start is a debug line. "new interface" is info.
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES" NOTIFY_SOCKET="$T_TMP/nobody.sock" WATCHDOG_USEC=60000000)
count() { grep -c "$@" || true; }
# levels LEVEL: LEVELS gets the counts of the warning, info and debug lines above, in
# stderr and in `rtltune log`.
levels() {
	local conf=$T_TMP/log-$1.conf out
	# 100 ms samples: the wait for one below is short.
	printf '[daemon]\nsample_interval = 100ms\n' >"$conf"
	[ "$1" = default ] || printf 'log_level = %s\n' "$1" >>"$conf"
	: >"$D_LOG"
	d_start "$NS" --config "$conf" --interfaces 's*' --no-autotune
	# READY=1, and with it the warning, goes out before the first sample after the start.
	d_wait_samples 1
	out=$(d_rtl --json log | jq -r '.entries[] | "\(.level) \(.message)"')
	d_stop || t_fail "log_level $1: unclean exit"
	LEVELS="$(count 'NOTIFY_SOCKET .*No such file' "$D_LOG") $(count ': new interface' "$D_LOG")"
	LEVELS+=" $(count 'watchdog: ping every 30000 ms' "$D_LOG") /"
	LEVELS+=" $(count '^warning NOTIFY_SOCKET' <<<"$out") $(count '^info new interface' <<<"$out")"
	LEVELS+=" $(count '^debug watchdog: ping every' <<<"$out")"
}
levels default
t_eq "$LEVELS" "1 5 0 / 1 5 0" "default (info): warning, info, debug lines (stderr / rtltune log)"
levels debug
t_eq "$LEVELS" "1 5 1 / 1 5 1" "log_level = debug: warning, info, debug lines"
levels warning
t_eq "$LEVELS" "1 0 0 / 1 0 0" "log_level = warning: warning, info, debug lines"
levels error
t_eq "$LEVELS" "0 0 0 / 0 0 0" "log_level = error: warning, info, debug lines"

t_log "pin"
command -v iperf3 >/dev/null || t_skip "iperf3 not installed"
B=$(t_netns b)
ip link add ta netns "$NS" type veth peer name tb netns "$B"
ip -n "$NS" addr add 10.87.0.1/24 dev ta
ip -n "$B" addr add 10.87.0.2/24 dev tb
ip -n "$NS" link set ta up
ip -n "$B" link set tb up
t_iperf3_servers "$B" 10.87.0.2 5201
# The profile sets the pinned knob below what the traffic wants (daemon_tuner: a trial of
# gso_max_size starts 5 samples into bulk TCP at 16384).
printf '[profile]\n[knobs]\ngso_max_size = 16384\n' >"$PROFILES/pin.conf"
D_ENV=(RTLTUNE_PROFILE_PATH="$PROFILES")
pin_conf() { # PIN-LINE
	printf '[daemon]\nsample_interval = 200ms\nprofile = pin\n%s\n' "$1" >"$T_TMP/pin.conf"
	printf '[tuner]\nbaseline_samples = 4\nsettle_samples = 1\nobserve_samples = 4\n' >>"$T_TMP/pin.conf"
}
candidate() { # the gso-at-cap rule's status in recommend
	d_rtl --json recommend ta | jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "gso-at-cap") | .status'
}
pin_conf "pin = gso_max_size, mtu"
rm -rf "$D_STATE"
: >"$D_LOG"
d_start "$NS" --config "$T_TMP/pin.conf" --interfaces ta
for ((i = 0; i < 250; i++)); do
	[ "$(t_ip_attr "$NS" ta gso_max_size)" = 16384 ] && break
	sleep 0.02
done
t_eq "$(t_ip_attr "$NS" ta gso_max_size)" 16384 "pin: the profile still sets the pinned knob"
t_in "$NS" iperf3 -c 10.87.0.2 -p 5201 -t 30 -P 2 >"$T_TMP/iperf.log" 2>&1 &
TRAFFIC=$!
t_defer "kill $TRAFFIC 2>/dev/null || true"
for ((i = 0; i < 250; i++)); do
	[ "$(candidate)" = pinned ] && break
	sleep 0.04
done
t_eq "$(candidate)" pinned "pin: recommend's gso-at-cap candidate under traffic"
d_rtl --json recommend ta | jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "gso-at-cap") | "# " + .reason'
d_wait_samples 10
t_eq "$(grep -c 'ta: tuner trial gso_max_size' "$D_LOG" || true)" 0 	"pin: gso_max_size trials in 10 samples of traffic at the cap"
t_eq "$(t_ip_attr "$NS" ta gso_max_size)" 16384 "pin: gso_max_size after them"
# Without the pin (a reload: the same daemon, traffic and window), the tuner tries it.
pin_conf ""
kill -HUP "$D_PID"
for ((i = 0; i < 250; i++)); do
	[ "$(d_rtl --json status | jq .daemon.reloads)" = 1 ] && break
	sleep 0.02
done
n0=$(d_rtl --json status | jq .daemon.samples)
for ((i = 0; i < 500; i++)); do
	grep -q 'ta: tuner trial gso_max_size 16384 -> ' "$D_LOG" && break
	sleep 0.02
done
grep -q 'ta: tuner trial gso_max_size 16384 -> ' "$D_LOG" ||
	t_fail "no pin: no trial of gso_max_size within 10 s: $(tail -n 5 "$D_LOG")"
t_le $(($(d_rtl --json status | jq .daemon.samples) - n0)) 10 "no pin: samples until a trial of gso_max_size"
kill "$TRAFFIC" 2>/dev/null || true
wait "$TRAFFIC" 2>/dev/null || true
d_stop || t_fail "pin: unclean exit"
