#!/bin/bash
# t-lane: beside
# `rtltune profiles` and `profile show` as a user runs them: built-ins listed, an admin copy
# shadows a shipped one, resolution with provenance, and bad input exits 2 with file:line.
. "$(dirname "$0")/../lib.sh"

js=$("$RTLTUNE" --json profiles)
for p in throughput latency balanced powersave; do
	t_eq "$(echo "$js" | jq -r --arg p "$p" '[.profiles[] | select(.name == $p and (.shadowed | not))] | length')" 1 "built-in $p listed once in use"
done

admin=$T_TMP/admin
mkdir -p "$admin"
printf '[profile]\ndescription = admin throughput\ninclude = throughput\n[knobs]\ngro = off\n' >"$admin/throughput.conf"
js=$(RTLTUNE_PROFILE_PATH=$admin "$RTLTUNE" --json profiles)
t_eq "$(echo "$js" | jq -r '[.profiles[] | select(.name == "throughput" and (.shadowed | not))][0].path')" "$admin/throughput.conf" "admin copy is the one in use"
t_eq "$(echo "$js" | jq -r '[.profiles[] | select(.name == "throughput" and .shadowed)] | length')" 1 "shipped copy listed as shadowed"

show=$(RTLTUNE_PROFILE_PATH=$admin "$RTLTUNE" --json profile show throughput --driver r8169)
head -c 600 <<<"$show"; echo
t_eq "$(echo "$show" | jq -r ".resolved.knobs.gro.value")" false "admin override of gro resolved off"

printf '[knobs]\ngso_max_size = lots\n' >"$admin/broken.conf"
set +e
out=$(RTLTUNE_PROFILE_PATH=$admin "$RTLTUNE" profile show broken 2>&1 >/dev/null); rc=$?
stdout=$(RTLTUNE_PROFILE_PATH=$admin "$RTLTUNE" profile show broken 2>/dev/null)
set -e
t_eq "$rc" 2 "exit code for a malformed profile"
echo "$out" | grep -q "broken.conf:2:" || t_fail "message lacks file:line: $out"
t_eq "$stdout" "" "no partial output"
