# Sourced by scripts/bench-*.sh. summary FIGURE MEASURED TARGET VERDICT: one row of the table
# scripts/bench.sh prints at the end of `make bench` (BENCH_SUMMARY names its file; a part
# run on its own has none and prints only its own lines).
summary() { [ -n "${BENCH_SUMMARY:-}" ] && echo "$1|$2|$3|$4" >>"$BENCH_SUMMARY"; return 0; }
# metmiss 1|0: the verdict word.
metmiss() { [ "$1" = 1 ] && echo met || echo MISSED; }
