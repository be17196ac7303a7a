#!/bin/bash
# Concurrent rtltune processes serialise on the journal lock: eight applies of two profiles
# racing on one interface all succeed, the journal keeps the first originals, and restore
# brings back exactly the state before any of them ran.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns a)
nsb=$(t_netns b)
t_veth_pair "$ns" v0 "$nsb" v1
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\ngso_max_size = 32768\ngro = on\ntso = off\n' >"$RTLTUNE_PROFILE_PATH/p1.conf"
printf '[knobs]\ngso_max_size = 16384\ngro = off\nmtu = 4000\n' >"$RTLTUNE_PROFILE_PATH/p2.conf"
before=$(t_link_state "$ns" v0)

pids=()
for i in 1 2 3 4 5 6 7 8; do
	t_rtl "$ns" apply "p$((i % 2 + 1))" v0 >"$T_TMP/out.$i" 2>&1 &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
cat "$T_TMP"/out.*
t_eq "$fails" 0 "failed concurrent applies"
# Whichever ran last, the interface matches one of the two profiles completely.
if ! t_rtl "$ns" verify p1 v0 >/dev/null; then t_rtl "$ns" verify p2 v0 >/dev/null || t_fail "interface matches neither profile"; fi
t_rtl "$ns" restore v0
t_eq "$(t_link_state "$ns" v0)" "$before" "state after restore"
