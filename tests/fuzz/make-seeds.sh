#!/bin/bash
# Regenerate the fuzz seed corpora in tests/fuzz/corpus/ from real inputs: the shipped
# profiles and chip files, the unit tests' fixtures, the example daemon config, a journal
# and log written by build/rtltune on a veth (with an apply SIGKILLed mid-way, so one has
# an in-flight record), RTM_NEWLINK messages captured from veth/bridge/vlan/macvlan links,
# and control protocol lines. Needs root (network namespace). Run after `make`.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
out=tests/fuzz/corpus
rtltune=$top/build/rtltune
[ -x "$rtltune" ] || { echo "make-seeds: build/rtltune missing (run make)" >&2; exit 1; }
tmp=$(mktemp -d)
ns=rtseed$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

copy_confs() { # dest-dir files...
	local dest=$1 f name
	shift
	mkdir -p "$dest"
	for f in "$@"; do
		name=$(echo "${f%.conf}" | tr '/' '_')
		cp "$f" "$dest/$name"
	done
}

rm -rf "${out:?}"/{profile,chipdb,config,journal,journal_log,link_msg,control}
copy_confs $out/profile profiles/*.conf $(find tests/unit/fixtures/profiles -name '*.conf' | sort)
copy_confs $out/chipdb chips/*.conf $(find tests/unit/fixtures/chips -name '*.conf' | sort)

mkdir -p $out/config
cp etc/rtltuned.conf $out/config/example
# Every key set (the example has them all commented out).
sed -e 's/^;//' etc/rtltuned.conf >$out/config/all-keys
printf '[daemon]\ninterfaces = veth*, eth*\nexclude = docker*\nprofile = throughput\nmetrics = [::1]:9775\nsample_interval = 250ms\nlog_level = debug\n' >$out/config/ipv6-metrics
printf '[daemon]\nmetrics = off\nautotune = no\nrestore_on_exit = yes\nsocket_group = nogroup\n' >$out/config/off

# A journal and log written by the real code, on a veth in a private namespace.
ip netns add "$ns"
ip -n "$ns" link add v0 type veth peer name v1
ip -n "$ns" link set v0 up
ip -n "$ns" link set v1 up
export RTLTUNE_STATE_DIR=$tmp/state RTLTUNE_PROFILE_PATH=$tmp/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH" $out/journal $out/journal_log
printf '[knobs]\nmtu = 4000\ntso = off\ngro = on\ngso_max_size = 32768\ngro_max_size = 131072\n' >"$RTLTUNE_PROFILE_PATH/five.conf"
ip netns exec "$ns" "$rtltune" apply five v0 >/dev/null
cp "$RTLTUNE_STATE_DIR/journal" $out/journal/applied-one
ip netns exec "$ns" "$rtltune" apply throughput v1 >/dev/null
cp "$RTLTUNE_STATE_DIR/journal" $out/journal/applied-two
# SIGKILL between two knob changes leaves an in-flight record.
ip netns exec "$ns" "$rtltune" restore >/dev/null
RTLTUNE_TEST_DELAY=apply_knob=300 ip netns exec "$ns" "$rtltune" apply five v0 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q '^inflight' "$RTLTUNE_STATE_DIR/journal" 2>/dev/null && break
	sleep 0.05
done
kill -9 $pid; wait $pid 2>/dev/null || true
cp "$RTLTUNE_STATE_DIR/journal" $out/journal/inflight-orphaned
ip netns exec "$ns" "$rtltune" restore >/dev/null
cp "$RTLTUNE_STATE_DIR/journal" $out/journal/after-restore
# Torn copies: the reader must refuse each (the fuzzer mutates from here).
head -c 100 $out/journal/applied-two >$out/journal/torn-100
cp "$RTLTUNE_STATE_DIR/log" $out/journal_log/real
# journal_log seeds start with the split byte (fuzz_journal_log.c).
for f in $out/journal_log/real; do
	{ printf '\200'; cat "$f"; } >"$f.split"
	mv "$f.split" "$f"
done
{ printf '\377'; head -c 300 "$RTLTUNE_STATE_DIR/log"; } >$out/journal_log/torn-tail

# RTM_NEWLINK as the dump and the monitor deliver them, for several link kinds.
ip -n "$ns" link add br0 type bridge 2>/dev/null || true
ip -n "$ns" link add link v0 name v0.10 type vlan id 10 2>/dev/null || true
ip -n "$ns" link add link v0 name mv0 type macvlan 2>/dev/null || true
ip -n "$ns" link add dm0 type dummy 2>/dev/null || true
ip -n "$ns" link set v1 master br0 2>/dev/null || true
ip netns exec "$ns" python3 tests/fuzz/capture_links.py $out/link_msg 12 >"$tmp/cap.log" &
cap=$!
for _ in $(seq 100); do grep -q listening "$tmp/cap.log" 2>/dev/null && break; sleep 0.05; done
for i in 1 2 3; do
	ip -n "$ns" link set v0 down
	ip -n "$ns" link set v0 up
done
ip -n "$ns" link set v0 name lan0
ip -n "$ns" link set lan0 mtu 9000
wait $cap
cat "$tmp/cap.log"

# Control lines: two header bytes (line bound, chunking seed: fuzz_control.c), then text.
mkdir -p $out/control
c() { # name text
	{ printf '\377\001'; printf '%s' "$2"; } >"$out/control/$1"
}
c requests $'{"v":1,"cmd":"hello"}\n{"v":1,"cmd":"status"}\n{"v":1,"cmd":"stats","iface":"eth0"}\n{"v":1,"cmd":"hist","iface":"eth0","what":"tx_skb_bytes"}\n{"v":1,"cmd":"log","follow":true}\n{"v":1,"cmd":"apply","profile":"throughput","ifaces":["eth0"],"dry_run":true}\n{"v":1,"cmd":"restore"}\n{"v":1,"cmd":"autotune","iface":"eth0","on":false}\n'
c reply-ok $'{"v":1,"ok":true,"result":{"daemon":{"pid":812,"version":"0.1"},"interfaces":[]}}\n'
c reply-err $'{"v":1,"ok":false,"error":"apply changes settings and needs root","errno":1,"exit_code":3}\r\n'
c reply-new-version $'{"v":2,"ok":true,"result":{}}\n'
c event $'{"v":1,"event":"log","entry":{"ts_us":1796013870378947,"iface":"eth0","knob":"mtu","old":1500,"new":9000,"outcome":"applied"}}\n'
c partial $'{"v":1,"ok":true,"res'
{ printf '\002\007'; head -c 200 /dev/zero | tr '\0' 'x'; printf '\n{"v":1}\n'; } >$out/control/overlong
echo "seeds: $(find $out -type f | wc -l) files in $out"
