#!/bin/bash
# The chip model tool's guard rails and the test chip files. chipmodel refuses anything but
# a veth in a named network namespace (exit 2, nothing attached), refuses bad sizes (exit 2)
# and commands on a veth without the model (exit 3); attach, set and detach leave exactly
# one filter, then none. Each tests/chips/SEED.conf, put first on RTLTUNE_CHIP_PATH by
# cm_chip_dir, is the entry a veth matches, over chips/virtual.conf's [veth] (equal scores:
# the file loaded first wins), with the seed's quirks. No traffic.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/chipmodel-lib.sh"

cm_pair
cm() { set +e; t_in "$CM_NSB" "$CHIPMODEL" "$@" >"$T_TMP/out" 2>&1; RC=$?; set -e; }

# Not from the host's namespace, not on a device other than a veth.
set +e
"$CHIPMODEL" attach lo --frame-ns 100 >"$T_TMP/out" 2>&1
rc=$?
set -e
t_eq "$rc" 2 "attach from the initial network namespace"
grep -q "named network namespace" "$T_TMP/out" || t_fail "refusal does not say why: $(cat "$T_TMP/out")"
cm attach lo --frame-ns 100
t_eq "$RC" 2 "attach to lo (not a veth)"
grep -q "not a veth\|driver is not veth" "$T_TMP/out" || t_fail "refusal does not say why: $(cat "$T_TMP/out")"
t_eq "$(t_in "$CM_NSB" tc filter show dev lo ingress | grep -c rtl_chipmodel || true)" 0 "filters on lo"

cm attach vb --frame-ns 100000000
t_eq "$RC" 2 "attach with a frame cost above 100 us"
cm attach vb --burst-bytes 1024
t_eq "$RC" 2 "burst size without a burst cost"
cm attach vb --tso-drop 1.5
t_eq "$RC" 2 "tso-drop above 1"
cm set vb --frame-ns 10
t_eq "$RC" 3 "set before attach"
cm stats vb
t_eq "$RC" 3 "stats before attach"

cm attach vb --frame-ns 100 --ring-frames 64 --drain-ns 500
t_eq "$RC" 0 "attach"
cm attach vb --tso-drop 0.25
t_eq "$RC" 0 "a second attach replaces the first"
t_eq "$(t_in "$CM_NSB" tc filter show dev vb ingress | grep -c rtl_chipmodel || true)" 1 "our filter on vb"
t_eq "$(cm_stat frame-ns)" 0 "frame cost after the replacing attach (models not named are off)"
t_eq "$(cm_stat tso-drop)" 0.250000 "tso-drop after the replacing attach"
CM_ATTACHED=1
cm_set --burst-bytes 1024 --burst-ns 500
t_eq "$(cm_stat burst-bytes)" 1024 "set changes what is given"
t_eq "$(cm_stat burst-offset)" 52 "default burst offset"
t_eq "$(cm_stat tso-drop)" 0.250000 "set keeps what is not given"
cm_off
t_eq "$(cm_stat enabled)" 0 "--off"
cm_detach
t_eq "$(t_in "$CM_NSB" tc filter show dev vb ingress | grep -c rtl_chipmodel || true)" 0 "filters left on vb"
cm detach vb
t_eq "$RC" 3 "detach twice"

# Test chip files: the seed's entry wins over [veth] for both ends of the pair.
declare -A want=(
	[r8169-atom]=jumbo-disables-tso
	[r8169-dma-burst]=jumbo-disables-tso
	[fec-imx6]=needs-small-gso,judge-slowly
	[rtl8126-tso-storm]=tso-retransmit-storm
	[mana-bigtcp]=mtu-change-resets-link
	[veth-64k]=gro-off-by-default,queue-change-resets-link
)
for f in "$TOP"/tests/chips/*.conf; do
	seed=$(basename "$f" .conf)
	[ -n "${want[$seed]:-}" ] || t_fail "tests/chips/$seed.conf: no expectation in this test"
	cm_chip_dir "$seed"
	j=$(t_rtl "$CM_NSA" chips va --json)
	t_eq "$(jq -r .chip.id <<<"$j")" "test-$seed" "chip entry of va with tests/chips/$seed.conf"
	t_eq "$(jq -r '.match.lost | map(.id) | join(",")' <<<"$j")" veth "entries va's match beat"
	for q in ${want[$seed]//,/ }; do
		jq -e --arg q "$q" '.chip.quirks | index($q)' <<<"$j" >/dev/null ||
			t_fail "$seed: quirk $q missing from $(jq -c .chip.quirks <<<"$j")"
	done
	echo "ok: $seed quirks ${want[$seed]}"
	t_eq "$(t_rtl "$CM_NSB" chips vb --json | jq -r .chip.id)" "test-$seed" "chip entry of vb"
done
# The CLI as an unprivileged user sees the same entry (cm_chip_dir keeps the directory readable).
if command -v setpriv >/dev/null; then
	t_eq "$(t_in "$CM_NSA" setpriv --reuid=nobody --regid=nogroup --clear-groups "$RTLTUNE" chips va --json | jq -r .chip.id)" \
		"test-$seed" "chip entry of va for nobody"
fi
unset RTLTUNE_CHIP_PATH
t_eq "$(t_rtl "$CM_NSA" chips va --json | jq -r .chip.id)" veth "chip entry of va without a test chip file"
