#!/bin/bash
# Interrupt coalescing through the ethtool netlink family (issue 13), on a tap device: tun
# supports exactly one coalescing parameter, rx-frames (the MSG_MORE batch), and clamps it
# to 64 without an error. Checked against `ethtool -c`:
#  - show --json has coalesce_rx_frames and null for every parameter tun lacks;
#  - apply, verify, restore of coalesce_rx_frames 32;
#  - a profile that also sets coalesce_rx_usecs: that knob is skipped as unsupported, the
#    other applies;
#  - 100 is refused before anything changes by the chip entry's max.coalesce_rx_frames
#    (64, chips/virtual.conf [tun]);
#  - without that entry the kernel stores 64 for 100: the read-back catches it, the run
#    fails and leaves the device as it was.
. "$(dirname "$0")/../lib.sh"
command -v ethtool >/dev/null || t_skip "ethtool not installed"

ns=$(t_netns a)
ip -n "$ns" tuntap add dev tp0 mode tap
ip -n "$ns" link set tp0 up
export RTLTUNE_PROFILE_PATH=$T_TMP/profiles
mkdir -p "$RTLTUNE_PROFILE_PATH"
printf '[knobs]\n# batches of 32\ncoalesce_rx_frames = 32\n' >"$RTLTUNE_PROFILE_PATH/batch.conf"
printf '[knobs]\n# tun has no timer\ncoalesce_rx_usecs = 8\n# batches\ncoalesce_rx_frames = 16\n' \
	>"$RTLTUNE_PROFILE_PATH/both.conf"
printf '[knobs]\n# more than tun takes\ncoalesce_rx_frames = 100\n' >"$RTLTUNE_PROFILE_PATH/big.conf"
rx_frames() { t_in "$ns" ethtool -c tp0 | awk '$1 == "rx-frames:" { print $2 }'; }
t_eq "$(rx_frames)" 0 "rx-frames before (ethtool -c)"
t_eq "$(t_rtl "$ns" --json show tp0 | jq -c '.[0] | [.coalesce_rx_frames, .coalesce_rx_usecs, .coalesce_adaptive_rx, .ethtool_path]')" \
	'[0,null,null,"netlink"]' "show --json: the one parameter tun has"

t_log "apply, verify, restore"
t_eq "$(t_rtl "$ns" apply batch tp0)" "tp0 coalesce_rx_frames 0 -> 32" "apply output"
t_eq "$(rx_frames)" 32 "rx-frames after apply (ethtool -c)"
t_rtl "$ns" verify batch tp0 >/dev/null
echo "ok: verify"
t_eq "$(t_rtl "$ns" restore tp0)" "tp0 coalesce_rx_frames 32 -> 0" "restore output"
t_eq "$(rx_frames)" 0 "restored (ethtool -c)"

t_log "an unsupported parameter is skipped, the rest applies"
out=$(t_rtl "$ns" apply both tp0)
echo "$out"
grep -q '^tp0 coalesce_rx_usecs skipped: coalesce_rx_usecs unsupported: the driver does not report it$' <<<"$out" ||
	t_fail "no skip line for coalesce_rx_usecs"
grep -q '^tp0 coalesce_rx_frames 0 -> 16$' <<<"$out" || t_fail "coalesce_rx_frames not applied"
t_eq "$(rx_frames)" 16 "rx-frames (ethtool -c)"
t_rtl "$ns" restore tp0 >/dev/null

t_log "the chip entry's max.coalesce_rx_frames refuses 100"
set +e
out=$(t_rtl "$ns" apply big tp0 2>&1)
rc=$?
set -e
t_eq "$rc" 2 "100 refused"
grep -q 'big.conf:3: tp0: coalesce_rx_frames 100 exceeds .* 64 (chip tun)' <<<"$out" || t_fail "refusal: $out"
t_eq "$(rx_frames)" 0 "unchanged"

t_log "without the entry: the kernel clamps, the read-back sees it, nothing is left changed"
mkdir -p "$T_TMP/nochips"
# A file of the same name hides the shipped one (docs/chips.md): virtual.conf without [tun].
printf '[other]\ndriver = not-tun\n' >"$T_TMP/nochips/virtual.conf"
set +e
out=$(RTLTUNE_CHIP_PATH=$T_TMP/nochips t_rtl "$ns" apply big tp0 2>&1)
rc=$?
set -e
echo "$out"
t_eq "$rc" 3 "the kernel kept another value"
grep -q 'coalesce_rx_frames not applied: the kernel kept 64 (requested 100)' <<<"$out" || t_fail "no read-back failure: $out"
t_eq "$(rx_frames)" 0 "undone (ethtool -c)"
