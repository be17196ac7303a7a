#!/bin/bash
# Soak: 1000 down/up flaps of a veth (SOAK_FLAPS) while `rtltune show` and `show --json`
# run back to back and rtltuned watches the link. Every show exits 0 with one valid JSON
# document; rtltuned stays up, ends with the kernel's view of the link, and its open fds
# and RSS end where they started.
. "$(dirname "$0")/../lib.sh"
FLAPS=${SOAK_FLAPS:-1000}

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
daemon=0
if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/rtltuned.conf"
	d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces 'v*' --no-autotune
	daemon=1
	for _ in 1 2 3; do d_rtl --json status >/dev/null; done
	d_wait_samples 2
	fds0=$(d_fds)
	rss0=$(d_rss_kib)
fi
carrier0=$(t_in "$ns" cat /sys/class/net/v0/carrier_changes)

# show, text and JSON, until the flapping is over; exit codes and bad JSON are counted.
STOP=$T_TMP/stop
shows() {
	local n=0 bad=0 badjson=0
	while [ ! -e "$STOP" ]; do
		t_rtl "$ns" show >/dev/null 2>>"$T_TMP/show.err" || bad=$((bad + 1))
		t_rtl "$ns" --json show >"$T_TMP/show.json" 2>>"$T_TMP/show.err" || bad=$((bad + 1))
		jq -e 'length >= 2' "$T_TMP/show.json" >/dev/null 2>&1 || badjson=$((badjson + 1))
		n=$((n + 2))
		echo "$n" >"$T_TMP/shows_n.tmp" && mv "$T_TMP/shows_n.tmp" "$T_TMP/shows_n"
	done
	echo "$n $bad $badjson" >"$T_TMP/shows"
}
shows &
SHOWS=$!
t_defer "touch $STOP; kill $SHOWS 2>/dev/null || true"

start=$(date +%s%N)
# Batches of 5 flaps: fast enough to storm, slow enough that shows land in between. At
# least FLAPS, and on until 20 show runs have landed among them (a slow machine runs
# fewer shows per flap), bounded at 10 x FLAPS.
flaps=0
shows_done() { local s; s=$(cat "$T_TMP/shows_n" 2>/dev/null || true); echo "${s:-0}"; }
while [ $flaps -lt $FLAPS ] || { [ "$(shows_done)" -lt 20 ] && [ $flaps -lt $((10 * FLAPS)) ]; }; do
	for ((k = 0; k < 5; k++)); do printf 'link set v0 down\nlink set v0 up\n'; done |
		ip -n "$ns" -batch -
	flaps=$((flaps + 5))
done
ms=$((($(date +%s%N) - start) / 1000000))
touch "$STOP"
wait $SHOWS
read -r runs bad badjson <"$T_TMP/shows"
carrier1=$(t_in "$ns" cat /sys/class/net/v0/carrier_changes)
echo "# $flaps flaps in $ms ms; $runs show runs alongside; carrier_changes $carrier0 -> $carrier1"
[ -s "$T_TMP/show.err" ] && sed 's/^/# show stderr: /' "$T_TMP/show.err" | sort | uniq -c | head -5
t_ge $((carrier1 - carrier0)) $((2 * flaps)) "carrier changes the kernel counted"
t_ge "$runs" 20 "show runs during the flapping"
t_eq "$bad" 0 "show runs that failed"
t_eq "$badjson" 0 "show --json documents that were not valid JSON for both links"
# Operstate follows the carrier through linkwatch, which batches events up to a second.
for ((i = 0; i < 100; i++)); do
	op=$(t_rtl "$ns" --json show v0 | jq -r '.[0].operstate')
	[ "$op" = up ] && break
	sleep 0.05
done
t_eq "$op" up "show after the storm: v0 operstate"

if [ $daemon = 1 ]; then
	kill -0 "$D_PID" || t_fail "rtltuned died during the flapping"
	# The monitor may lose events in a burst (ENOBUFS) and must resynchronise: wait
	# (bounded) until rtltuned's view equals the kernel's.
	for ((i = 0; i < 100; i++)); do
		st=$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "v0") | "\(.operstate) \(.ifindex)"')
		[ "$st" = "up $(t_ip_attr "$ns" v0 ifindex)" ] && break
		sleep 0.05
	done
	t_eq "$st" "up $(t_ip_attr "$ns" v0 ifindex)" "rtltuned's view of v0 after the storm"
	seen=$(d_rtl --json status | jq '.interfaces[] | select(.ifname == "v0") | .carrier_changes')
	echo "# rtltuned counted $seen carrier changes of $((carrier1 - carrier0))"
	t_ge "$seen" 1 "carrier changes rtltuned saw"
	d_wait_samples 2
	fds1=$(d_fds)
	rss1=$(d_rss_kib)
	echo "# rtltuned: fds $fds0 -> $fds1, RSS $rss0 -> $rss1 KiB"
	t_eq "$fds1" "$fds0" "rtltuned open fds after the storm"
	t_le "$rss1" $((rss0 + 1024)) "rtltuned RSS after the storm (KiB, 1 MiB slack)"
	rc=0
	d_stop || rc=$?
	t_eq "$rc" 0 "rtltuned clean exit"
fi
echo "soak_link_flap: flaps=$FLAPS show_runs=$runs failures=$bad daemon=$daemon"
