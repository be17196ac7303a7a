#!/bin/bash
# Soak: 250 veth pairs created and deleted (SOAK_CHURN; `make soak` 500) while `rtltune show`
# and `rtltune apply` run back to back on whichever of them exist, and rtltuned applies its
# profile to each new one (CLI and daemon contend for the same journal). Nothing crashes
# or hangs: show always exits 0; apply exits 0, or 2/3 naming an interface that vanished.
# Afterwards nothing is left, the journal still opens, the fixed veth restores exactly and
# that restore leaves no record of a deleted veth, and rtltuned's fds and RSS are back at
# their starting level.
. "$(dirname "$0")/../lib.sh"
CHURN=${SOAK_CHURN:-250}

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\ngso_max_size = 32768\ngro = on\n' >"$RTLTUNE_PROFILE_PATH/soak1.conf"
printf '[knobs]\ngso_max_size = 16384\ngro = off\n' >"$RTLTUNE_PROFILE_PATH/soak2.conf"
before=$(t_link_state "$ns" v0)
daemon=0
if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
	printf '[daemon]\nsample_interval = 200ms\nprofile = soak1\n' >"$T_TMP/rtltuned.conf"
	d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces 'ch*' --no-autotune
	daemon=1
	for _ in 1 2 3; do d_rtl --json status >/dev/null; done
	d_wait_samples 2
	fds0=$(d_fds)
	rss0=$(d_rss_kib)
fi

STOP=$T_TMP/stop
t_defer "touch $STOP"
# A CLI loop: "name count bad" in $T_TMP/NAME when stopped; exit codes go to NAME.codes.
loop() {
	local name=$1 n=0 bad=0 rc
	shift
	while [ ! -e "$STOP" ]; do
		rc=0
		"$@" >/dev/null 2>>"$T_TMP/$name.err" || rc=$?
		echo $rc >>"$T_TMP/$name.codes"
		n=$((n + 1))
	done
	echo "$n" >"$T_TMP/$name"
}
apply_some() { # apply to one churned veth that exists right now (if any), else to v0
	local dev
	dev=$(ip -n "$ns" -o link show 2>/dev/null | awk -F': ' '$2 ~ /^chx/ { sub(/@.*/, "", $2); print $2 }' | shuf -n 1)
	t_rtl "$ns" apply "soak$((RANDOM % 2 + 1))" "${dev:-v0}"
}
loop show t_rtl "$ns" show &
P1=$!
loop showjson t_rtl "$ns" --json show &
P2=$!
loop apply apply_some &
P3=$!

start=$(date +%s%N)
for ((i = 0; i < CHURN; i += 10)); do
	for ((k = i; k < i + 10 && k < CHURN; k++)); do echo "link add chx$k type veth peer name chy$k"; done |
		ip -n "$ns" -batch -
	for ((k = i; k < i + 10 && k < CHURN; k++)); do echo "link set chx$k up"; done |
		ip -n "$ns" -batch -
	for ((k = i; k < i + 10 && k < CHURN; k++)); do echo "link del chx$k"; done |
		ip -n "$ns" -batch -
done
ms=$((($(date +%s%N) - start) / 1000000))
touch "$STOP"
wait $P1 $P2 $P3
echo "# $CHURN veth pairs created and deleted in $ms ms"
for l in show showjson apply; do
	echo "# $l: $(cat "$T_TMP/$l") runs, exit codes: $(sort "$T_TMP/$l.codes" | uniq -c | tr -s ' ' | tr '\n' ';')"
	[ -s "$T_TMP/$l.err" ] && sed 's/^/#   /' "$T_TMP/$l.err" | sed -E 's/chx[0-9]+/chxN/g' | sort | uniq -c | sort -rn | head -4
done
t_ge "$(cat "$T_TMP/show")" 20 "show runs during the churn"
t_ge "$(cat "$T_TMP/apply")" 20 "apply runs during the churn"
t_eq "$(grep -cv '^0$' "$T_TMP/show.codes" || true)" 0 "show runs that failed"
t_eq "$(grep -cv '^0$' "$T_TMP/showjson.codes" || true)" 0 "show --json runs that failed"
t_eq "$(grep -Ecv '^[023]$' "$T_TMP/apply.codes" || true)" 0 "apply runs with an exit code other than 0, 2, 3"
# 2 and 3 only for an interface that went away (ENODEV/"no such interface"), never others.
if grep -v -E 'no such interface|No such device|ENODEV|does not exist|vanished|gone' "$T_TMP/apply.err" |
	grep -q .; then
	grep -v -E 'no such interface|No such device|ENODEV|does not exist|vanished|gone' "$T_TMP/apply.err" | head -5
	t_fail "apply failed for a reason other than the interface vanishing"
fi
echo "ok: every failed apply named a vanished interface"
t_eq "$(ip -n "$ns" -o link show | grep -c 'ch[xy]' || true)" 0 "churned veths left"

if [ $daemon = 1 ]; then
	kill -0 "$D_PID" || t_fail "rtltuned died during the churn"
	for ((i = 0; i < 100; i++)); do
		n=$(d_rtl --json status | jq '[.interfaces[] | select(.ifname | startswith("ch"))] | length')
		[ "$n" = 0 ] && break
		sleep 0.05
	done
	t_eq "$n" 0 "interfaces rtltuned still lists from the churn"
fi

# The journal still opens, the fixed veth restores exactly, and that restore forgets the
# records of every deleted veth, the CLI's and any rtltuned left (docs/journal.md "Devices
# that are gone"): a host churning veths must not grow its journal.
J=$RTLTUNE_STATE_DIR/journal
stale=$(grep -c '^iface ch' "$J" 2>/dev/null || true)
echo "# journal before the restore: $(wc -c <"$J") bytes, $stale entries of deleted veths"
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(t_link_state "$ns" v0)" "$before" "v0 after restore"
echo "# journal after: $(wc -c <"$J") bytes, $(grep -c '"outcome":"forgotten"' "$RTLTUNE_STATE_DIR/log" || true) forgotten records logged"
t_eq "$(grep -c '^iface ch' "$J" || true)" 0 "journal entries of deleted veths after the restore"
t_eq "$(grep -c '^inflight' "$J" || true)" 0 "operations left in flight"

if [ $daemon = 1 ]; then
	d_wait_samples 3
	fds1=$(d_fds)
	rss1=$(d_rss_kib)
	echo "# rtltuned: fds $fds0 -> $fds1, RSS $rss0 -> $rss1 KiB"
	t_eq "$fds1" "$fds0" "rtltuned open fds after the churn"
	t_le "$rss1" $((rss0 + 1024)) "rtltuned RSS after the churn (KiB, 1 MiB slack)"
	rc=0
	d_stop || rc=$?
	t_eq "$rc" 0 "rtltuned clean exit"
fi
echo "soak_churn: pairs=$CHURN show_runs=$(($(cat "$T_TMP/show") + $(cat "$T_TMP/showjson"))) apply_runs=$(cat "$T_TMP/apply") daemon=$daemon"
