#!/bin/bash
# t-lane: beside
# lib/ethnl on the host's real NIC (eth0 here, virtio_net; RTLTUNE_TEST_NIC names another):
# rings, coalescing, channels, pause and every feature read over ethtool netlink agree
# field by field with ethtool -g/-c/-l/-a/-k, and the features equal the SIOCETHTOOL
# ioctl's. Read-only: tests/tools/ethnl_dump can only send GET requests, and ethtool's
# whole view is compared before and after to show nothing moved.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/ethnl-lib.sh"

nic=${RTLTUNE_TEST_NIC:-eth0}
[ -e "/sys/class/net/$nic/device" ] || t_skip "no NIC $nic here (set RTLTUNE_TEST_NIC)"

before=$(ethtool_view "$nic")
js=$("$DUMP" "$nic") || t_fail "ethnl_dump $nic failed"
t_eq "$(echo "$js" | jq -r '.[0].ifindex')" "$(cat "/sys/class/net/$nic/ifindex")" ifindex

# ethtool's word for a value -> ours: n/a is absent (null), on/off are 1/0.
norm() { case $1 in n/a) echo null ;; on) echo 1 ;; off) echo 0 ;; *) echo "$1" ;; esac; }
# Every value of ethnl_dump's interface, read once (OURS[GROUP/KEY], en_value's form): a jq
# per field, some 600 of them, took 12 of this test's 16 s.
declare -A OURS FEAT SHOWN
while IFS=$'\t' read -r k v; do OURS[$k]=$v; done < <(echo "$js" | jq -r '.[0] | to_entries[] |
	select(.value | type == "object") | .key as $g | .value | to_entries[] |
	"\($g)/\(.key)\t\(.value | if . == null then "null" else tostring end)"')
ours() { echo "${OURS[$1/$2]-null}"; }
has_row() { [ -n "${OURS[$1/$2]+set}" ]; }

# compare GROUP SECTION KEY VALUE: one ethtool field against ours.
compare() {
	local g=$1 sec=$2 k=$3 v=$4 want
	want=$(norm "$v")
	[ "$g" = rings ] && [ "$k" = tcp_data_split ] && case $v in on) want=2 ;; off) want=1 ;; esac
	if [ "$sec" = max ]; then
		has_row "${g}_max" "$k" || t_fail "$g: ethtool prints a maximum for $k, we have no such row"
		t_eq "$(ours "${g}_max" "$k")" "$want" "$nic $g max $k"
	else
		has_row "$g" "$k" || t_fail "$g: ethtool prints $k, we have no such row"
		t_eq "$(ours "$g" "$k")" "$want" "$nic $g $k"
	fi
	n_compared=$((n_compared + 1))
}

# Per group: the ethtool option, how many fields it must print, and a row that is null
# when the driver lacks the group (pause, which a virtio NIC lacks, is checked closer).
for spec in "rings -g ge 4 rx" "coalesce -c ge 20 rx_usecs" "channels -l eq 8 combined" \
	"pause -a eq 3 -"; do
	read -r g opt cmp min row <<<"$spec"
	t_log "$g"
	n_compared=0
	if out=$(ethtool "$opt" "$nic" 2>&1); then
		ethtool_each "$g" "$out" compare "$g"
		"t_$cmp" "$n_compared" "$min" "$g fields compared"
	elif [ "$g" != pause ]; then
		t_eq "$(ours "$g" "$row")" null "$g unsupported as ethtool says ($out)"
	else
		echo "$out" | grep -q "Operation not supported" || t_fail "ethtool -a: $out"
		t_eq "$(echo "$js" | jq -r '.[0].pause')" null "pause unsupported, as ethtool -a says"
		echo "$js" | jq -r '.[0].errors.pause' | grep -q 'Operation not supported' ||
			t_fail "pause error: $(echo "$js" | jq -r '.[0].errors.pause')"
		echo "ok: pause: $(echo "$js" | jq -r '.[0].errors.pause')"
	fi
done

t_log "features"
# Lines naming a kernel feature (aliases like tcp-segmentation-offload are ethtool's own):
# on/off = active, [fixed] = not available or never changed, [requested X] = wanted X.
# FEAT[NAME]: ours as ethtool would print it, "on|off<TAB>[fixed]|[requested X]|".
while IFS= read -r line; do FEAT[${line%%$'\t'*}]=${line#*$'\t'}; done < <(echo "$js" | jq -r '
	.[0].features | to_entries[] | .value as $f | "\(.key)\t\(if $f.active then "on" else "off" end)\t\(
	if ($f.available | not) or $f.never_changed then "[fixed]" elif $f.requested == $f.active then ""
	elif $f.requested then "[requested on]" else "[requested off]" end)"')
n=0
while read -r name state extra; do
	[ -n "${FEAT[$name]+set}" ] || continue
	t_eq "${FEAT[$name]%%$'\t'*}" "$state" "$name active"
	want=${FEAT[$name]#*$'\t'}
	if [ "$want" = "[fixed]" ]; then
		t_eq "$extra" "[fixed]" "$name fixed"
	else
		t_eq "$extra" "$want" "$name requested"
	fi
	n=$((n + 1))
done < <(ethtool -k "$nic" | sed -n 's/^[ \t]*\([a-z0-9_-]*\): \(on\|off\) *\(.*\)$/\1 \2 \3/p')
t_ge "$n" 40 "feature lines compared"

out=$("$DUMP" --compare-ioctl "$nic") || t_fail "netlink and ioctl features differ: $out"
echo "ok: $out"

t_log "rtltune show --json: the same values as the knobs users see"
# show only reads (RTM_GETLINK, ETHTOOL_MSG_*_GET); every group knob and every feature knob
# must equal what the module read above, which ethtool agreed with.
shown=$("$RTLTUNE" --json show "$nic")
t_eq "$(echo "$shown" | jq -r '.[0].ethtool_path')" netlink "show's path"
# SHOWN[KNOB]: show's value, booleans as 1/0 (read once, like OURS).
while IFS=$'\t' read -r k v; do SHOWN[$k]=$v; done < <(echo "$shown" | jq -r '.[0] | to_entries[] |
	"\(.key)\t\(.value | if . == null then "null" elif . == true then "1" elif . == false then "0" else tostring end)"')
n=0
while read -r knob group attr; do
	prefix=$(case $group in rings) echo ring_ ;; *) echo "${group}_" ;; esac)
	row=${knob#"$prefix"}
	t_eq "${SHOWN[$knob]-null}" "$(ours "$group" "$row")" "show $knob"
	n=$((n + 1))
done < <("$RTLTUNE" --json knobs | jq -r '.knobs[] | select(.set_by == "ethtool netlink") | "\(.name) \(.group) \(.attribute)"')
t_ge "$n" 40 "group knobs compared with show"
n=0
while read -r knob name; do
	case ${FEAT[$name]-} in "") want=null ;; on*) want=1 ;; *) want=0 ;; esac
	t_eq "${SHOWN[$knob]-null}" "$want" "show $knob"
	n=$((n + 1))
done < <("$RTLTUNE" --json knobs | jq -r '.knobs[] | select(.name | startswith("feature.")) | "\(.name) \(.features[0])"')
t_ge "$n" 50 "feature knobs compared with show"

[ "$(ethtool_view "$nic")" = "$before" ] || t_fail "ethtool's view of $nic changed during the test"
echo "ok: ethtool -g/-c/-l/-a/-k of $nic unchanged by the test"
