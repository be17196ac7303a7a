#!/bin/bash
# t-lane: beside
# Faults of the state directory and of BPF. A full state disk (a 64 KiB tmpfs filled up)
# and a read-only state dir: apply refuses with exit 3 and the errno text *before*
# changing anything; read-only commands keep working. restore, whose originals are
# durable already, puts every knob back anyway (CLI and rtltuned), exits 0 and says the
# journal was not updated and why; once the dir is writable again, a second restore
# empties the journal. Injected EDQUOT and EIO restore the same way; EACCES still refuses.
# rtltuned on a read-only state dir keeps running and reports why its profile was not
# applied. rtltuned without CAP_BPF/CAP_PERFMON (the probes fail to load) keeps running on
# link counters and says so in status, its log and /metrics.
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

# Devices with originals (or an operation) in the journal.
journal_records() {
	[ -s "$RTLTUNE_STATE_DIR/journal" ] || { echo 0; return; }
	grep -cE '^(iface|inflight) ' "$RTLTUNE_STATE_DIR/journal" || true
}

# restore_unwritable WHAT ERRNO-TEXT RTLTUNE-CMD...: the state dir cannot take a write;
# `RTLTUNE-CMD restore v0` still sets every knob back (exit 0), says in text and JSON that
# the journal was not updated and why, and the originals stay journaled.
restored=0
restore_unwritable() {
	local what=$1 text=$2 rc=0 out note
	shift 2
	t_eq "$(journal_records)" 1 "$what: v0's originals journaled"
	[ "$(t_link_state "$ns" v0)" != "$before" ] || t_fail "$what: v0 is not changed to begin with"
	"$@" restore v0 >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 0 "$what: exit code"
	t_eq "$(t_link_state "$ns" v0)" "$before" "$what: every knob back at its original"
	note="not updated: $text (state dir $RTLTUNE_STATE_DIR)"
	grep -qF "journal was $note" "$T_TMP/err" || t_fail "$what: stderr: $(cat "$T_TMP/err")"
	echo "ok: $what: says '$(cat "$T_TMP/err")'"
	t_eq "$(journal_records)" 1 "$what: v0's originals still journaled"
	# Again, now a no-op on the link: the JSON names the journal's state.
	rc=0
	out=$("$@" --json restore v0 2>/dev/null) || rc=$?
	t_eq "$rc" 0 "$what: exit code of a second restore"
	t_eq "$(echo "$out" | jq -r '.interfaces[] | select(.ifname == "v0") | .journal')" "$note" \
		"$what: JSON key journal"
	t_eq "$(echo "$out" | jq '[.interfaces[].changes[] | select(.action == "change")] | length')" 0 \
		"$what: changes in a second restore"
	restored=$((restored + 1))
}

# restore_clears WHAT RTLTUNE-CMD...: the state dir is writable again; restore changes
# nothing on the link, says nothing about the journal and leaves it empty.
restore_clears() {
	local what=$1 rc=0
	shift
	"$@" restore v0 >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 0 "$what: exit code"
	t_eq "$(cat "$T_TMP/err")" "" "$what: stderr"
	t_eq "$(journal_records)" 0 "$what: devices left in the journal"
	t_eq "$(t_link_state "$ns" v0)" "$before" "$what: v0 at its originals"
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
t_eq "$(t_link_state "$ns" v0)" "$applied" "v0 still as f1 left it"
rm -f "$RTLTUNE_STATE_DIR/filler"
t_rtl "$ns" apply f2 v0 >/dev/null
fill
restore_unwritable "CLI restore on a full disk" "No space left on device" t_rtl "$ns"
rm -f "$RTLTUNE_STATE_DIR/filler"
restore_clears "CLI restore once the disk has room" t_rtl "$ns"

t_log "read-only state dir"
t_rtl "$ns" apply f1 v0 >/dev/null
mount -o remount,ro "$RTLTUNE_STATE_DIR"
expect_refusal "apply on a read-only state dir" "Read-only file system" apply f2 v0
t_rtl "$ns" show v0 >/dev/null
t_rtl "$ns" profiles >/dev/null
t_rtl "$ns" verify f1 v0 >/dev/null
echo "ok: show, profiles and verify work on a read-only state dir"
mount -o remount,rw "$RTLTUNE_STATE_DIR"
t_rtl "$ns" apply f2 v0 >/dev/null
mount -o remount,ro "$RTLTUNE_STATE_DIR"
restore_unwritable "CLI restore on a read-only state dir" "Read-only file system" t_rtl "$ns"
mount -o remount,rw "$RTLTUNE_STATE_DIR"
restore_clears "CLI restore once the state dir is writable" t_rtl "$ns"

t_log "journal writes and log appends failing with EDQUOT and EIO (injected); EACCES still refuses"
t_rtl "$ns" apply f1 v0 >/dev/null
t_rtl "$ns" apply f2 v0 >/dev/null
restore_unwritable "CLI restore over quota" "Disk quota exceeded" \
	env RTLTUNE_TEST_FAULT=journal_write=EDQUOT,journal_log=EDQUOT ip netns exec "$ns" "$RTLTUNE"
restore_clears "CLI restore after EDQUOT" t_rtl "$ns"
t_rtl "$ns" apply f1 v0 >/dev/null
restore_unwritable "CLI restore with the journal's fsync failing" "Input/output error" \
	env RTLTUNE_TEST_FAULT=journal_fsync=EIO,journal_log=EIO ip netns exec "$ns" "$RTLTUNE"
restore_clears "CLI restore after EIO" t_rtl "$ns"
t_rtl "$ns" apply f1 v0 >/dev/null
RTLTUNE_TEST_FAULT=journal_write=EACCES expect_refusal "restore with EACCES" "Permission denied" restore v0
t_rtl "$ns" restore v0 >/dev/null
t_eq "$(t_link_state "$ns" v0)" "$before" "restore once writes work"

if [ -x "$RTLTUNED" ]; then
	. "$TOP/tests/daemon-lib.sh"
	D_STATE=$RTLTUNE_STATE_DIR
	D_ENV=(RTLTUNE_PROFILE_PATH="$RTLTUNE_PROFILE_PATH")

	t_log "rtltuned restoring on a full and on a read-only state dir"
	printf '[daemon]\nsample_interval = 200ms\n' >"$T_TMP/plain.conf"
	d_start "$ns" --config "$T_TMP/plain.conf" --interfaces v0 --no-autotune
	# The CLI in the daemon's netns hands apply and restore to it.
	drtl() { RTLTUNE_SOCKET=$D_SOCK t_rtl "$@"; }
	drtl "$ns" apply f1 v0 >/dev/null
	drtl "$ns" apply f2 v0 >/dev/null
	fill
	restore_unwritable "rtltuned restore on a full disk" "No space left on device" drtl "$ns"
	rm -f "$RTLTUNE_STATE_DIR/filler"
	restore_clears "rtltuned restore once the disk has room" drtl "$ns"
	drtl "$ns" apply f1 v0 >/dev/null
	drtl "$ns" apply f2 v0 >/dev/null
	mount -o remount,ro "$RTLTUNE_STATE_DIR"
	restore_unwritable "rtltuned restore on a read-only state dir" "Read-only file system" drtl "$ns"
	mount -o remount,rw "$RTLTUNE_STATE_DIR"
	restore_clears "rtltuned restore once the state dir is writable" drtl "$ns"
	# Proof that the daemon did them: its log, one line per restore and per warning.
	t_eq "$(grep -c 'v0: restored (requested by uid 0)' "$D_LOG")" 6 "restores rtltuned logged"
	t_eq "$(grep -c 'v0: restored, but the journal was not updated' "$D_LOG")" 4 \
		"journal warnings rtltuned logged"
	kill -0 "$D_PID" || t_fail "rtltuned died restoring on a faulty state dir"
	d_stop >/dev/null || true

	t_log "an apply killed mid-way, restored on a full disk, then rtltuned starts"
	# The restore puts v0 back but cannot clear the killed apply's in-flight record. At
	# its start rtltuned must see that nothing is left to roll back: rolling back to the
	# apply's pre-values (f2's) would undo the restore. f3 sets f2's knobs back to the
	# originals; killed after its first knob, its pre-values are f2's, not the originals.
	printf '[knobs]\ntso = on\ngro_max_size = 65536\n' >"$RTLTUNE_PROFILE_PATH/f3.conf"
	t_rtl "$ns" apply f2 v0 >/dev/null
	mid=$(t_link_state "$ns" v0)
	[ "$mid" != "$before" ] || t_fail "f2 changed nothing"
	RTLTUNE_TEST_DELAY=apply_knob_2=20000 ip netns exec "$ns" "$RTLTUNE" apply f3 v0 \
		>/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(t_link_state "$ns" v0)" != "$mid" ] && break
		sleep 0.05
	done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	grep -q '^inflight ' "$RTLTUNE_STATE_DIR/journal" || t_fail "no in-flight record after the kill"
	half=$(t_link_state "$ns" v0)
	[ "$half" != "$mid" ] && [ "$half" != "$before" ] ||
		t_fail "the killed apply did not leave v0 half-changed"
	echo "ok: the killed apply left v0 half-changed and its operation in flight"
	fill
	t_rtl "$ns" restore v0 >/dev/null 2>&1 || t_fail "restore on a full disk after a killed apply"
	t_eq "$(t_link_state "$ns" v0)" "$before" "restored on the full disk"
	grep -q '^inflight ' "$RTLTUNE_STATE_DIR/journal" || t_fail "the in-flight record went on a full disk"
	rm -f "$RTLTUNE_STATE_DIR/filler"
	d_start "$ns" --config "$T_TMP/plain.conf" --interfaces v0 --no-autotune
	t_eq "$(t_link_state "$ns" v0)" "$before" "v0 still at its originals after rtltuned's start"
	if grep -q '^inflight ' "$RTLTUNE_STATE_DIR/journal"; then
		t_fail "rtltuned left the in-flight record: $(grep '^inflight ' "$RTLTUNE_STATE_DIR/journal")"
	fi
	grep -q 'v0: the apply that was in flight when cli (pid [0-9]*) stopped left nothing to roll back' \
		"$D_LOG" || t_fail "rtltuned's log does not say why it did not roll back: $(tail -5 "$D_LOG")"
	echo "ok: rtltuned ended the record without rolling back"
	restore_clears "rtltuned restore after the recovery" drtl "$ns"
	d_stop >/dev/null || true
	checked=$((checked + 1))

	t_log "rtltuned with its profile on a read-only state dir"
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
echo "soak_state_faults: refusals_checked=$checked restores_on_unwritable_state=$restored"
