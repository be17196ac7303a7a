#!/bin/bash
# t-lane: beside
# Fault soak: SIGKILL of `rtltune apply` between knob changes (aimed: after the first one
# shows) and inside the journal's own write (before fsync, before rename, after commit,
# right after locking), sometimes of the `restore` that follows too, 15 times (SOAK_KILLS;
# `make soak` 30); then of
# rtltuned while it applies its profile to a new interface, followed by a restart that
# must roll the interrupted apply back by itself. After every kill `rtltune restore`
# brings back exactly the values from before the first change.
. "$(dirname "$0")/../lib.sh"
KILLS=${SOAK_KILLS:-15}

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 4000\ntso = off\ngro = on\ngso_max_size = 32768\ngro_max_size = 131072\n' >"$RTLTUNE_PROFILE_PATH/k1.conf"
printf '[knobs]\nmtu = 9000\ngso = off\ngro = on\ngso_max_size = 16384\ngso_max_segs = 64\n' >"$RTLTUNE_PROFILE_PATH/k2.conf"
before=$(t_link_state "$ns" v0)
# Per round, a quick independent look (no python: ip and ethtool only); the full
# t_link_state, IPv4 BIG TCP sizes included, at the end.
quick_state() { # [DEV], v0 by default
	ip -n "$ns" -d -j link show dev "${1:-v0}" | jq -c '.[0] | {mtu, gso_max_size, gso_max_segs, gro_max_size}'
	ip netns exec "$ns" ethtool -k "${1:-v0}" | grep -E '^(\s+tx-tcp|tcp-seg|generic-)' | tr -s ' \t' ' '
}
quick_before=$(quick_state)
points=(apply_knob apply_knob apply_knob journal_fsync journal_rename journal_committed journal_locked)

# Start "rtltune ARGS" with a delay at POINT and SIGKILL it there. At apply_knob (a delay
# before every knob) the kill is aimed: it waits until the link shows the first change, so
# it lands with the run half done. At the journal's points it comes after a random moment
# within the delays. Prints whether it had finished on its own.
kill_during() { # point ms args...
	local point=$1 ms=$2 pid start i
	shift 2
	start=$(quick_state)
	RTLTUNE_TEST_DELAY="$point=$ms" ip netns exec "$ns" "$RTLTUNE" "$@" >/dev/null 2>&1 &
	pid=$!
	if [ "$point" = apply_knob ]; then
		for ((i = 0; i < 500; i++)); do
			[ "$(quick_state)" != "$start" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.01
		done
	else
		sleep "$(printf '0.%03d' $((RANDOM % (ms * 4 < 999 ? ms * 4 : 999))))"
	fi
	if kill -9 $pid 2>/dev/null; then echo killed; else echo finished; fi
	wait $pid 2>/dev/null || true
}

killed=0 finished=0 midway=0 restore_kills=0 restores=0
for ((i = 1; i <= KILLS; i++)); do
	point=${points[RANDOM % ${#points[@]}]}
	ms=$((20 + RANDOM % 80))
	case $(kill_during "$point" "$ms" apply "k$((i % 2 + 1))" v0) in
	killed) killed=$((killed + 1)) ;;
	*) finished=$((finished + 1)) ;;
	esac
	[ "$(quick_state)" != "$quick_before" ] && midway=$((midway + 1))
	# Every third round the restore is killed as well, and restore runs again.
	if ((i % 3 == 0)); then
		[ "$(kill_during apply_knob 40 restore v0)" = killed ] && restore_kills=$((restore_kills + 1))
	fi
	if ! t_rtl "$ns" restore v0 >"$T_TMP/restore.out" 2>&1; then
		cat "$T_TMP/restore.out"
		t_fail "round $i ($point=$ms): restore failed"
	fi
	now=$(quick_state)
	[ "$now" = "$quick_before" ] || t_fail "round $i ($point=$ms): not restored: $now"
	restores=$((restores + 1))
	[ -e "$RTLTUNE_STATE_DIR/journal.tmp" ] && echo "# round $i: journal.tmp left by the kill (ignored)"
done
echo "# $KILLS rounds: $killed applies killed ($midway left the link changed), $finished finished first; $restore_kills restores killed"
t_eq "$restores" "$KILLS" "restores checked"
t_eq "$(t_link_state "$ns" v0)" "$before" "full link state after $KILLS kill/restore rounds"
t_ge "$midway" 1 "rounds where the kill left the link half-changed"
t_eq "$(grep -c '^inflight' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "operations left in flight"

# rtltuned killed while it applies its profile to a new interface (hotplug; the second knob
# waits 30 s, so a kill after the first lands mid-apply however loaded the machine), then
# restarted without a profile: the restart alone must put back what the killed apply changed
# (its operation was in flight), and restore finds nothing left.
if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	D_STATE=$RTLTUNE_STATE_DIR
	printf '[daemon]\nsample_interval = 200ms\nprofile = k1\n' >"$T_TMP/with-profile.conf"
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/observe.conf"
	self_rolled=0 in_flight=0
	for ((i = 1; i <= 5; i++)); do
		D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH" RTLTUNE_TEST_DELAY=apply_knob_2=30000)
		d_start "$ns" --config "$T_TMP/with-profile.conf" --interfaces 'hp*' --no-autotune
		ip -n "$ns" link add "hp$i" type veth peer name "hq$i"
		ip -n "$ns" link set "hp$i" up
		for ((w = 0; w < 250; w++)); do
			ip -n "$ns" -o link show "hp$i" | grep -q ' mtu 4000 ' && break
			sleep 0.02
		done
		t_eq "$(t_ip_attr "$ns" "hp$i" mtu)" 4000 "round $i: rtltuned had started changing hp$i"
		kill -9 "$D_PID"
		wait "$D_PID" 2>/dev/null || true
		grep -q "^inflight hp$i " "$D_STATE/journal" && in_flight=$((in_flight + 1))
		D_ENV=()
		d_start "$ns" --config "$T_TMP/observe.conf" --interfaces 'hp*' --no-autotune
		grep -q '^inflight' "$D_STATE/journal" && t_fail "round $i: operation still in flight after the restart"
		[ "$(quick_state "hp$i")" = "$(quick_state "hq$i")" ] && self_rolled=$((self_rolled + 1))
		kill -0 "$D_PID" || t_fail "round $i: restarted rtltuned died"
		d_stop >/dev/null || true
		t_rtl "$ns" restore "hp$i" >/dev/null
		# hq (the untouched peer, a veth made at the same moment) shows the defaults.
		t_eq "$(quick_state "hp$i")" "$(quick_state "hq$i")" "round $i: hp$i after rtltuned was killed mid-apply, restarted, restore"
		restores=$((restores + 1))
		ip -n "$ns" link del "hp$i"
	done
	echo "# rtltuned killed mid-apply 5 times ($in_flight with the apply in flight): the restart alone rolled back $self_rolled"
	t_ge "$in_flight" 3 "kills that hit rtltuned's apply in flight"
	t_eq "$self_rolled" "$in_flight" "restarts that rolled the killed apply back on their own"
	t_eq "$(t_link_state "$ns" v0)" "$before" "v0 untouched by the rtltuned rounds"
fi
echo "soak_sigkill: kills=$KILLS restores_checked=$restores"
