#!/bin/bash
# Hands off what someone else changed (issue 13, docs/daemon.md "Changes made outside
# rtltune"). rtltuned manages ta (a veth with 4 queues) with a profile that sets
# channels_rx 2 and gso_max_size 16384, and bulk TCP presses against that size (the tuner's
# gso-at-cap rule would try a raise):
#  1. `ip link set ta gso_max_size 20000` by hand (no notification exists for it): within
#     one sample the log line, the counter rtltune_knob_external_changes_total, `manual` in
#     status; the tuner's gso candidate says why it does not try, and no trial of it starts
#     while the traffic goes on;
#  2. `ethtool -L ta rx 3` (an ethtool netlink notification): the same, and
#     rtltune_knob_drift{knob="channels_rx"} is 1;
#  3. a reload applies the profile again and leaves both knobs as the admin set them;
#  4. `rtltune autotune on ta` takes gso_max_size back: a trial of it starts; changed by
#     hand mid-trial, the trial is abandoned without a rollback (the value stays);
#  5. an explicit `rtltune apply` takes channels_rx back (drift 0).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"
. "$TOP/tests/tuner-lib.sh"
command -v ethtool >/dev/null || t_skip "ethtool not installed"

tn_setup numtxqueues 4 numrxqueues 4

mkdir -p "$T_TMP/profiles"
cat >"$T_TMP/profiles/hands.conf" <<'EOF'
[profile]
description = outside-change test
[knobs]
# the test changes these by hand
channels_rx = 2
gso_max_size = 16384
EOF
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
D_ENV=(RTLTUNE_PROFILE_PATH="$T_TMP/profiles")
tn_conf "$T_TMP/rtltuned.conf" "backoff_initial = 60s"
sed -i 's/^\[daemon\]$/[daemon]\nprofile = hands/' "$T_TMP/rtltuned.conf"
d_start "$TN_A" --config "$T_TMP/rtltuned.conf" --interfaces ta
t_defer tn_dump_on_fail

# The profile applied (channels_rx 2), bounded.
for ((i = 0; i < 100; i++)); do
	[ "$(t_in "$TN_A" ethtool -l ta | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }')" = 2 ] && break
	sleep 0.05
done
t_eq "$(t_in "$TN_A" ethtool -l ta | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }')" 2 \
	"channels_rx set by the profile"

samples() { d_rtl --json status | jq .daemon.samples; }
manual() { d_rtl --json status ta | jq -r '.interfaces[0].manual | join(",")'; }
metric() { d_http /metrics | awk -v s="$1" 'index($0, s) == 1 { print $2 }'; }
# wait_manual KNOB S0: until status lists KNOB as manual (bounded, 10 s); prints the
# samples taken between the change and its detection (both from the same status reply,
# so the time between two calls does not count).
wait_manual() {
	local s0=$2 i st
	for ((i = 0; i < 200; i++)); do
		st=$(d_rtl --json status ta)
		case ",$(jq -r '.interfaces[0].manual | join(",")' <<<"$st")," in *",$1,"*)
			echo $(($(jq .daemon.samples <<<"$st") - s0))
			return 0
			;;
		esac
		sleep 0.05
	done
	t_fail "$1 not reported manual within 10 s (status: $(d_rtl --json status ta | jq -c .interfaces[0].manual))"
}

tn_loop_start
# 1. gso_max_size by hand: rtnetlink says nothing, the per-sample read notices.
s0=$(samples)
ip -n "$TN_A" link set ta gso_max_size 20000
took=$(wait_manual gso_max_size "$s0")
t_le "$took" 2 "samples until the gso_max_size change was noticed"
grep -q 'ta: gso_max_size changed outside rtltune: 16384 -> 20000' "$D_LOG" ||
	t_fail "no log line for the gso_max_size change"
echo "ok: logged: $(grep -o 'gso_max_size changed outside rtltune: 16384 -> 20000' "$D_LOG" | head -1)"
t_eq "$(metric 'rtltune_knob_external_changes_total{device="ta",knob="gso_max_size"}')" 1 \
	"rtltune_knob_external_changes_total for gso_max_size"
# The gso rule sees the traffic at the cap and says why it does not act.
for ((i = 0; i < 200; i++)); do
	why=$(d_rtl --json recommend ta | jq -r '.interfaces[0].tuner.candidates[] | select(.rule == "gso-at-cap") | .reason')
	case $why in *"changed outside rtltune"*) break ;; esac
	sleep 0.1
done
case $why in *"changed outside rtltune"*) echo "ok: gso-at-cap: $why" ;;
*) t_fail "gso-at-cap does not name the outside change: $why" ;; esac

# 2. channels by hand: ethtool's notification.
s0=$(samples)
t_in "$TN_A" ethtool -L ta rx 3
took=$(wait_manual channels_rx "$s0")
t_le "$took" 2 "samples until the channels change was noticed"
grep -q 'ta: channels_rx changed outside rtltune: 2 -> 3' "$D_LOG" || t_fail "no log line for channels_rx"
echo "ok: logged: channels_rx changed outside rtltune: 2 -> 3"
t_eq "$(metric 'rtltune_knob_external_changes_total{device="ta",knob="channels_rx"}')" 1 \
	"rtltune_knob_external_changes_total for channels_rx"
t_eq "$(metric 'rtltune_knob_drift{device="ta",knob="channels_rx"}')" 1 "drift of channels_rx"
d_rtl status ta | grep 'manual' >/dev/null || t_fail "status text shows no manual knobs"

# 3. A reload applies the profile again and leaves both alone.
n0=$(grep -c 'reloaded' "$D_LOG" || true)
kill -HUP "$D_PID"
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c 'reloaded' "$D_LOG" || true)" -gt "$n0" ] && break
	sleep 0.05
done
d_wait_samples 2
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 20000 "gso_max_size after the reload"
t_eq "$(t_in "$TN_A" ethtool -l ta | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }')" 3 \
	"channels_rx after the reload"
tn_decisions | grep -q ' gso_max_size ' && t_fail "a tuner decision about gso_max_size while manual: $(tn_decisions)"
echo "ok: no tuner decision about gso_max_size while it was manual"

# 4. autotune on takes gso_max_size back: a trial follows; a change by hand mid-trial
# abandons it where it is.
d_rtl autotune on ta >/dev/null
case ",$(manual)," in *,gso_max_size,*) t_fail "gso_max_size still manual after autotune on" ;; esac
echo "ok: autotune on took the knobs back (manual: '$(manual)')"
tn_wait_decision 'trial gso_max_size 20000 -> ' 40 >/dev/null || t_fail "no trial after autotune on"
echo "ok: trial after autotune on: $(tn_decisions | grep -m1 'trial gso_max_size' | cut -c1-90)"
ip -n "$TN_A" link set ta gso_max_size 24000
tn_wait_decision 'abandoned gso_max_size .*changed outside (rtltune|the tuner) during the trial' 20 >/dev/null ||
	t_fail "the trial was not abandoned"
echo "ok: $(tn_decisions | grep -m1 'abandoned gso_max_size' | cut -c1-140)"
d_wait_samples 2
t_eq "$(t_ip_attr "$TN_A" ta gso_max_size)" 24000 "gso_max_size left as set by hand (no rollback)"
tn_loop_stop

# 5. An explicit apply takes channels_rx back.
out=$(RTLTUNE_SOCKET=$D_SOCK t_rtl "$TN_A" apply hands ta 2>&1) || t_fail "rtltune apply hands ta: $out"
grep -q "ta: channels_rx 3 -> 2 (profile hands, requested by uid 0)" "$D_LOG" || t_fail "the apply did not go through rtltuned"
t_eq "$(t_in "$TN_A" ethtool -l ta | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }')" 2 \
	"channels_rx after rtltune apply"
t_eq "$(metric 'rtltune_knob_drift{device="ta",knob="channels_rx"}')" 0 "drift of channels_rx after apply"
case ",$(manual)," in *,channels_rx,*) t_fail "channels_rx still manual after apply" ;; esac
echo "ok: rtltune apply took channels_rx back"
d_http /metrics | promtool check metrics >/dev/null 2>&1 || d_http /metrics | promtool check metrics
echo "ok: promtool check metrics"
d_stop >/dev/null || t_fail "unclean exit"
tn_done
