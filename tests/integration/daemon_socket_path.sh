#!/bin/bash
# t-lane: beside
# rtltuned never deletes a file that is not a socket at its --socket path (a mistyped
# path naming the config must not cost the config), but does replace a stale socket.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns s)
victim=$T_TMP/rtltuned.conf
printf '# precious\n' >"$victim"
set +e
out=$(timeout 10 ip netns exec "$ns" "$RTLTUNED" --foreground --socket "$victim" \
	--state-dir "$T_TMP/state" --metrics 127.0.0.1:9775 2>&1); rc=$?
set -e
echo "$out" | tail -n 3
[ "$rc" -ne 0 ] || t_fail "rtltuned started on a regular file's path"
t_eq "$(cat "$victim")" "# precious" "the file at --socket is untouched"
echo "$out" | grep -q "exists and is not a socket" || t_fail "message does not say why"

t_log "a stale socket left by a crash is replaced"
stale=$T_TMP/stale.sock
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$stale"
[ -S "$stale" ] || t_fail "could not make a stale socket"
ip netns exec "$ns" "$RTLTUNED" --foreground --socket "$stale" --state-dir "$T_TMP/state" \
	--metrics 127.0.0.1:9775 >"$T_TMP/d.log" 2>&1 &
pid=$!
t_defer "kill -9 $pid"
for _ in $(seq 1 100); do
	RTLTUNE_SOCKET=$stale "$RTLTUNE" status >/dev/null 2>&1 && break
	sleep 0.05
done
RTLTUNE_SOCKET=$stale "$RTLTUNE" status >/dev/null || { cat "$T_TMP/d.log"; t_fail "daemon did not answer on the replaced socket"; }
echo "ok: stale socket replaced"
kill -TERM $pid
wait $pid
