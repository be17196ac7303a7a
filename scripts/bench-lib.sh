# Sourced by scripts/bench-*.sh. summary FIGURE MEASURED TARGET VERDICT: one row of the table
# scripts/bench.sh prints at the end of `make bench` (BENCH_SUMMARY names its file; a part
# run on its own has none and prints only its own lines).
summary() { [ -n "${BENCH_SUMMARY:-}" ] && echo "$1|$2|$3|$4" >>"$BENCH_SUMMARY"; return 0; }

# The one verdict of every bench. judge VALUE OP TARGET (OP: < <= == >= >) prints "met" when
# VALUE is a number and VALUE OP TARGET holds, "MISSED" when it does not, and "MISSED (no
# figure)" when VALUE is missing or not a number: a tool that failed, jq's null, a "-".
# (awk alone would compare an empty value as 0, or as a string: "" < 5000 holds.) Always
# exits 0, so v=$(judge ...) under set -e does not end the bench.
is_number() { [[ $1 =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
judge() {
	local v=$1 op=$2 t=$3
	case $op in
	'<' | '<=' | '==' | '>=' | '>') ;;
	*) echo "bench: judge: unknown comparison '$op'" >&2; echo "MISSED (no verdict)"; return 0 ;;
	esac
	is_number "$t" || { echo "bench: judge: target '$t' is not a number" >&2; echo "MISSED (no verdict)"; return 0; }
	is_number "$v" || { echo "MISSED (no figure)"; return 0; }
	if awk -v v="$v" -v t="$t" -v op="$op" 'BEGIN { v += 0; t += 0
		exit !(op == "<" ? v < t : op == "<=" ? v <= t : op == "==" ? v == t : op == ">=" ? v >= t : v > t) }'; then
		echo met
	else
		echo MISSED
	fi
}
# all_met VERDICT...: "met" when there is at least one verdict and every one is met; else
# the first that is not.
all_met() {
	local v
	[ $# -gt 0 ] || { echo "MISSED (no verdict)"; return 0; }
	for v; do [ "$v" = met ] || { echo "$v"; return 0; }; done
	echo met
}

# For a part's EXIT trap, where under set -e a failing command would become the part's exit
# code: what is already gone is no failure. bench_stop PID: stop the daemon if it runs;
# bench_netns_del NS...: delete the namespaces that exist.
bench_stop() { if [ -n "$1" ] && kill "$1" 2>/dev/null; then wait "$1" 2>/dev/null || true; fi; }
bench_netns_del() {
	local ns
	for ns; do ip netns del "$ns" 2>/dev/null || true; done
}
# bench_perf_share PERF_REPORT: "BUSY PROBES" from `perf report --sort sym --stdio -n`:
# the samples not in the idle loop, and those in the kernel's dispatch of a tracepoint
# program (bpf_trace_run*, __bpf_trace_*) or in a program of ours (its subprograms included:
# bpf_prog_<tag>_<name>).
bench_perf_share() {
	awk '
		/^#/ || NF < 4 { next }
		{ n = $2; sym = $4; total += n }
		sym ~ /^(pv_native_safe_halt|native_safe_halt|default_idle|default_idle_call|cpu_idle_poll|poll_idle|intel_idle|acpi_idle|mwait_idle|do_idle|cpuidle_enter_state)$/ { idle += n; next }
		sym ~ /^(bpf_trace_run[0-9]+|__bpf_trace_)/ || sym ~ /^bpf_prog_[0-9a-f]+_(rtl_|bucket_add|sample_hit)/ { probes += n }
		END { printf "%d %d\n", total - idle, probes }' "$1"
}
