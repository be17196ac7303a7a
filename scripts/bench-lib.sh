# Sourced by scripts/bench-*.sh. summary FIGURE MEASURED TARGET VERDICT: one row of the table
# scripts/bench.sh prints at the end of `make bench` (BENCH_SUMMARY names its file; a part
# run on its own has none and prints only its own lines).
summary() { [ -n "${BENCH_SUMMARY:-}" ] && echo "$1|$2|$3|$4" >>"$BENCH_SUMMARY"; return 0; }
# metmiss 1|0: the verdict word.
metmiss() { [ "$1" = 1 ] && echo met || echo MISSED; }
# For a part's EXIT trap, where under set -e a failing command would become the part's exit
# code: what is already gone is no failure. bench_stop PID: stop the daemon if it runs;
# bench_netns_del NS...: delete the namespaces that exist.
bench_stop() { if [ -n "$1" ] && kill "$1" 2>/dev/null; then wait "$1" 2>/dev/null || true; fi; }
bench_netns_del() {
	local ns
	for ns; do ip netns del "$ns" 2>/dev/null || true; done
}
