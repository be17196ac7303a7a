#!/bin/bash
# Soak: a rename storm. A veth rtltune has changed is renamed 250 times (SOAK_RENAMES, 500
# in `make soak`; down, rename, up) while `rtltune show`, `apply` and `verify` run on whatever its name is
# and rtltuned watches it. show never fails; apply/verify fail only with "no such
# interface" for a name already gone; the journal follows the device by identity, so
# `restore` under its last name brings back exactly the values before the first apply.
. "$(dirname "$0")/../lib.sh"
RENAMES=${SOAK_RENAMES:-250}

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\nmtu = 4000\ngso_max_size = 32768\ngro = on\n' >"$RTLTUNE_PROFILE_PATH/r1.conf"
printf '[knobs]\nmtu = 3000\ngso_max_size = 16384\ngro = off\n' >"$RTLTUNE_PROFILE_PATH/r2.conf"
before=$(t_link_state "$ns" v0)
ifindex=$(t_ip_attr "$ns" v0 ifindex)
daemon=0
if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
	d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces 'v*,rn*' --no-autotune
	daemon=1
	for _ in 1 2 3; do d_rtl --json status >/dev/null; done
	d_wait_samples 2
	fds0=$(d_fds)
	rss0=$(d_rss_kib)
fi
t_rtl "$ns" apply r1 v0 >/dev/null

STOP=$T_TMP/stop
t_defer "touch $STOP"
cur() { ip -n "$ns" -o link show 2>/dev/null | awk -F': ' -v i="$ifindex" '$1 == i { sub(/@.*/, "", $2); print $2 }'; }
loop() { # NAME CMD...: run CMD until stopped; exit codes to NAME.codes, stderr to NAME.err
	local name=$1 rc
	shift
	while [ ! -e "$STOP" ]; do
		rc=0
		"$@" >/dev/null 2>>"$T_TMP/$name.err" || rc=$?
		echo $rc >>"$T_TMP/$name.codes"
	done
}
apply_cur() { t_rtl "$ns" apply "r$((RANDOM % 2 + 1))" "$(cur)"; }
verify_cur() { t_rtl "$ns" verify r1 "$(cur)"; }
touch "$T_TMP"/{show,apply,verify}.codes
loop show t_rtl "$ns" --json show &
P1=$!
loop apply apply_cur &
P2=$!
loop verify verify_cur &
P3=$!

start=$(date +%s%N)
name=v0
for ((i = 1; i <= RENAMES; i += 10)); do
	for ((k = i; k < i + 10 && k <= RENAMES; k++)); do
		printf 'link set %s down\nlink set %s name rn%d\nlink set rn%d up\n' "$name" "$name" "$k" "$k"
		name=rn$k
	done >"$T_TMP/batch"
	ip -n "$ns" -batch "$T_TMP/batch"
	# Let one more apply start on the new name before the next batch (bounded wait).
	n0=$(wc -l <"$T_TMP/apply.codes")
	for ((w = 0; w < 100; w++)); do
		[ "$(wc -l <"$T_TMP/apply.codes")" -gt "$n0" ] && break
		sleep 0.01
	done
done
ms=$((($(date +%s%N) - start) / 1000000))
touch "$STOP"
wait $P1 $P2 $P3
t_eq "$(cur)" "$name" "name after the storm"
echo "# $RENAMES renames in $ms ms"
for l in show apply verify; do
	echo "# $l: $(wc -l <"$T_TMP/$l.codes") runs, exit codes: $(sort "$T_TMP/$l.codes" | uniq -c | tr -s ' ' | tr '\n' ';')"
	[ -s "$T_TMP/$l.err" ] && sed -E 's/rn[0-9]+/rnN/g; s/^/#   /' "$T_TMP/$l.err" | sort | uniq -c | sort -rn | head -4
done
t_eq "$(grep -cv '^0$' "$T_TMP/show.codes" || true)" 0 "show runs that failed"
t_eq "$(grep -Ecv '^[023]$' "$T_TMP/apply.codes" || true)" 0 "apply runs with an exit code other than 0, 2, 3"
t_eq "$(grep -Ecv '^[0123]$' "$T_TMP/verify.codes" || true)" 0 "verify runs with an exit code other than 0-3"
bad=$(grep -hv -E 'no such interface|No such device' "$T_TMP/apply.err" "$T_TMP/verify.err" | grep -c . || true)
[ "$bad" = 0 ] || grep -hv -E 'no such interface|No such device' "$T_TMP/apply.err" "$T_TMP/verify.err" | head -5
t_eq "$bad" 0 "apply/verify failures for a reason other than a name already gone"

# One device throughout: the journal's entry followed it; restore by its last name.
t_rtl "$ns" restore "$name" >/dev/null
t_eq "$(t_link_state "$ns" "$name")" "$before" "state after restore under the last name"
t_eq "$(grep -c '^iface' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null || true)" 0 "journal entries left after restore"

if [ $daemon = 1 ]; then
	kill -0 "$D_PID" || t_fail "rtltuned died during the renames"
	for ((i = 0; i < 100; i++)); do
		seen=$(d_rtl --json status | jq -r --argjson i "$ifindex" '.interfaces[] | select(.ifindex == $i) | .ifname')
		[ "$seen" = "$name" ] && break
		sleep 0.05
	done
	t_eq "$seen" "$name" "rtltuned's name for the device"
	d_wait_samples 2
	fds1=$(d_fds)
	rss1=$(d_rss_kib)
	echo "# rtltuned: fds $fds0 -> $fds1, RSS $rss0 -> $rss1 KiB"
	t_eq "$fds1" "$fds0" "rtltuned open fds after the renames"
	t_le "$rss1" $((rss0 + 1024)) "rtltuned RSS after the renames (KiB, 1 MiB slack)"
	rc=0
	d_stop || rc=$?
	t_eq "$rc" 0 "rtltuned clean exit"
fi
echo "soak_rename: renames=$RENAMES restores_checked=1 daemon=$daemon"
