#!/bin/bash
# Faults of the state directory and of BPF. A full state disk (a 64 KiB tmpfs filled up)
# and a read-only state dir: apply and restore refuse with exit 3 and the errno text
# *before* changing anything; read-only commands keep working; once the disk has room
# again, restore is exact. rtltuned on a read-only state dir keeps running and reports
# why its profile was not applied. rtltuned without CAP_BPF/CAP_PERFMON (the probes fail
# to load) keeps running on link counters and says so in status, its log and /metrics.
. "$(dirname "$0")/../lib.sh"
command -v setpriv >/dev/null || t_skip "setpriv (util-linux) not installed"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH" "$RTLTUNE_STATE_DIR"
printf '[knobs]\nmtu = 4000\ngro = on\ngso_max_size = 32768\n' >"$RTLTUNE_PROFILE_PATH/f1.conf"
printf '[knobs]\ntso = off\ngro_max_size = 131072\n' >"$RTLTUNE_PROFILE_PATH/f2.conf"
mount -t tmpfs -o size=64k,mode=0750 rtltune-test-state "$RTLTUNE_STATE_DIR"
t_defer "umount -l $RTLTUNE_STATE_DIR"
before=$(t_link_state "$ns" v0)
fill() { dd if=/dev/zero of="$RTLTUNE_STATE_DIR/filler" bs=4k 2>/dev/null || true; }
checked=0

# expect_refusal WHAT ERRNO-TEXT rtltune-args...: exit 3 naming the errno, v0 unchanged.
expect_refusal() {
	local what=$1 text=$2 want rc=0 out
	shift 2
	want=$(t_link_state "$ns" v0)
	out=$(t_rtl "$ns" "$@" 2>&1) || rc=$?
	t_eq "$rc" 3 "$what: exit code"
	case $out in *"$text"*) echo "ok: $what: says '$text'" ;; *) t_fail "$what: message: $out" ;; esac
	t_eq "$(t_link_state "$ns" v0)" "$want" "$what: v0 unchanged"
	checked=$((checked + 1))
}

t_log "full state disk, nothing journaled yet"
fill
t_eq "$(df --output=avail "$RTLTUNE_STATE_DIR" | tail -n 1 | tr -d ' ')" 0 "free KiB on the state disk"
expect_refusal "apply on a full disk" "No space left on device" apply f1 v0
[ ! -s "$RTLTUNE_STATE_DIR/journal" ] || t_fail "a journal appeared on the full disk"
t_rtl "$ns" show v0 >/dev/null
t_rtl "$ns" --json chips v0 >/dev/null
t_rtl "$ns" verify f1 v0 >/dev/null || [ $? -eq 1 ] || t_fail "verify on a full disk"
echo "ok: show, chips and verify work on a full disk"

t_log "full state disk after originals were journaled"
rm -f "$RTLTUNE_STATE_DIR/filler"
t_rtl "$ns" apply f1 v0 >/dev/null
applied=$(t_link_state "$ns" v0)
fill
# f2 changes knobs whose originals are not journaled yet: that needs a durable write.
expect_refusal "apply of new knobs on a full disk" "No space left on device" apply f2 v0
expect_refusal "restore on a full disk" "No space left on device" restore v0
t_eq "$(t_link_state "$ns" v0)" "$applied" "v0 still as f1 left it"
rm -f "$RTLTUNE_STATE_DIR/filler"
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(t_link_state "$ns" v0)" "$before" "restore once the disk has room"

t_log "read-only state dir"
t_rtl "$ns" apply f1 v0 >/dev/null
mount -o remount,ro "$RTLTUNE_STATE_DIR"
expect_refusal "apply on a read-only state dir" "Read-only file system" apply f2 v0
expect_refusal "restore on a read-only state dir" "Read-only file system" restore v0
t_rtl "$ns" show v0 >/dev/null
t_rtl "$ns" profiles >/dev/null
t_rtl "$ns" verify f1 v0 >/dev/null
echo "ok: show, profiles and verify work on a read-only state dir"
mount -o remount,rw "$RTLTUNE_STATE_DIR"
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(t_link_state "$ns" v0)" "$before" "restore once the state dir is writable"

if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	t_log "rtltuned with its profile on a read-only state dir"
	D_STATE=$RTLTUNE_STATE_DIR
	D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")
	mount -o remount,ro "$RTLTUNE_STATE_DIR"
	printf '[daemon]\nsample_interval = 200ms\nprofile = f1\n' >"$T_TMP/rtltuned.conf"
	d_start "$ns" --config "$T_TMP/rtltuned.conf" --interfaces v0 --no-autotune
	for ((i = 0; i < 100; i++)); do
		msg=$(d_rtl --json status | jq -r '.interfaces[] | select(.ifname == "v0") | .applied.error // .applied.message // empty' 2>/dev/null || true)
		[ -n "$msg" ] && break
		sleep 0.05
	done
	echo "# rtltuned says: $msg"
	case $msg in *"Read-only file system"*) echo "ok: status names the read-only state dir" ;;
	*) d_rtl --json status | jq '.interfaces[] | select(.ifname == "v0")'; t_fail "status does not say why the profile was not applied" ;; esac
	t_eq "$(t_link_state "$ns" v0)" "$before" "v0 untouched by rtltuned on a read-only state dir"
	kill -0 "$D_PID" || t_fail "rtltuned died on a read-only state dir"
	d_stop >/dev/null || true
	mount -o remount,rw "$RTLTUNE_STATE_DIR"
	checked=$((checked + 1))

	t_log "rtltuned without CAP_BPF/CAP_PERFMON: the probes fail to load"
	RTLTUNED_REAL=$RTLTUNED
	cat >"$T_TMP/rtltuned-nobpf" <<WRAP
#!/bin/sh
exec setpriv --bounding-set -bpf,-perfmon,-sys_admin --inh-caps -bpf,-perfmon,-sys_admin "$RTLTUNED_REAL" "\$@"
WRAP
	chmod +x "$T_TMP/rtltuned-nobpf"
	RTLTUNED=$T_TMP/rtltuned-nobpf
	D_ENV=()
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/observe.conf"
	d_start "$ns" --config "$T_TMP/observe.conf" --interfaces v0 --no-autotune
	st=$(d_rtl --json status)
	t_eq "$(echo "$st" | jq -r .daemon.source)" netlink "counter source without BPF"
	echo "# bpf_error: $(echo "$st" | jq -r .daemon.bpf_error)"
	case $(echo "$st" | jq -r .daemon.bpf_error) in *"Operation not permitted"*) echo "ok: status says why" ;;
	*) t_fail "status does not say why BPF is off" ;; esac
	grep -q "BPF probes unavailable" "$D_LOG" || t_fail "the log does not say BPF is off"
	echo "ok: the log says BPF is off"
	ip -n "$nsb" link set v1 down && ip -n "$nsb" link set v1 up
	d_wait_samples 2
	metrics=$(d_http /metrics)
	echo "$metrics" | grep -q '^rtltune_knob_value{device="v0"' || t_fail "/metrics without BPF lacks knob values"
	echo "ok: /metrics served without BPF ($(echo "$metrics" | grep -c '^rtltune_') samples)"
	kill -0 "$D_PID" || t_fail "rtltuned died without BPF"
	rc=0
	d_stop || rc=$?
	t_eq "$rc" 0 "rtltuned without BPF: clean exit"
	RTLTUNED=$RTLTUNED_REAL
	checked=$((checked + 1))
fi
echo "soak_state_faults: refusals_checked=$checked"
