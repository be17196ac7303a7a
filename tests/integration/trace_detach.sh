#!/bin/bash
# Acceptance (issue 4): everything `rtltune trace` attaches is gone after it exits: at the
# end of --seconds, on SIGINT, on SIGTERM, and (BPF links die with their process) on
# SIGKILL. "Ours" are the BPF programs and links whose fds the trace process held, read
# from /proc/PID/fdinfo, so other tests' probes running at the same time never interfere.
# --xdp puts the XDP program on the interface too: it must be gone as well.
. "$(dirname "$0")/../lib.sh"
command -v bpftool >/dev/null || t_skip "bpftool not installed"

A=$(t_netns a)
B=$(t_netns b)
t_veth_pair "$A" va "$B" vb

xdp_on_va() { ip -n "$A" -j -d link show dev va | jq -r '.[0].xdp.prog.id // empty'; }

# run_trace HOW: start a trace with --xdp, check what it attached, end it HOW, check that
# nothing of it is left.
run_trace() {
	local how=$1 out=$T_TMP/$1 pid progs links i id n rc
	local args=(trace va --xdp --json)
	[ "$how" = seconds ] && args+=(--seconds 2)
	ip netns exec "$A" "$RTLTUNE" "${args[@]}" >"$out.json" 2>"$out.err" &
	pid=$!
	t_defer "kill -9 $pid 2>/dev/null || true"
	for ((i = 0; i < 200; i++)); do
		grep -q '^Tracing' "$out.err" && break
		kill -0 "$pid" 2>/dev/null || t_fail "$how: trace exited early: $(cat "$out.err")"
		sleep 0.05
	done
	# Snapshot first: with --seconds the trace may end while the checks below run.
	xdp=$(xdp_on_va)
	progs=$(cat /proc/"$pid"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -un)
	links=$(cat /proc/"$pid"/fdinfo/* 2>/dev/null | awk '/^link_id:/ {print $2}' | sort -un)
	names=$(bpftool prog show -j | jq -r --argjson ids "[$(echo $progs | tr ' ' ,)]" \
		'.[] | select(.id as $i | $ids | index($i)) | .name' | sort -u | tr '\n' ' ')
	t_ge "${xdp:-0}" 1 "$how: XDP program id on va"
	# 6 tracepoint programs and the XDP one, each with its link (net_dev_xmit has none
	# since issue 14: refusals come from the kernel's counters).
	t_eq "$(echo "$progs" | wc -w)" 7 "$how: BPF programs held by trace"
	t_eq "$(echo "$links" | wc -w)" 7 "$how: BPF links held by trace"
	for n in $names; do
		[[ $n == rtl_* ]] || t_fail "$how: a program of ours is named '$n', not rtl_*"
	done
	echo "ok: $how: programs $names"

	case $how in
	seconds) ;;
	int) kill -INT "$pid" ;;
	term) kill -TERM "$pid" ;;
	kill) kill -KILL "$pid" ;;
	esac
	set +e
	wait "$pid"
	rc=$?
	set -e
	if [ "$how" = kill ]; then
		t_eq "$rc" 137 "$how: exit status"
	else
		t_eq "$rc" 0 "$how: exit status"
		t_eq "$(jq '.probes | length' "$out.json")" 7 "$how: JSON report printed"
		t_eq "$(jq -r '.probes[] | select(.name == "xdp") | .state' "$out.json")" attached "$how: XDP was attached"
	fi
	# Links (the attachments) go when the last fd closes, before wait returns.
	for id in $links; do
		bpftool link show id "$id" >/dev/null 2>&1 && t_fail "$how: link $id still exists"
	done
	echo "ok: $how: none of the $(echo "$links" | wc -w) links left"
	t_eq "$(xdp_on_va)" "" "$how: no XDP program on va"
	# A program is freed once its link's RCU grace period has passed: await that.
	for ((i = 0; i < 100; i++)); do
		n=0
		for id in $progs; do bpftool prog show id "$id" >/dev/null 2>&1 && n=$((n + 1)); done
		[ "$n" -eq 0 ] && break
		sleep 0.05
	done
	t_eq "$n" 0 "$how: programs left"
}

for how in seconds int term kill; do
	run_trace "$how"
done
