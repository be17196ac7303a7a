#!/bin/bash
# t-lane: beside
# rtltune chips: a veth matches the veth entry, effective limits say where they come from
# (kernel vs chip table, kernel winning when lower), an admin file hides a shipped one by
# name, and a malformed chip file exits 2 naming file:line with no partial document.
. "$(dirname "$0")/../lib.sh"

command -v jq >/dev/null || t_skip "jq missing"
ns=$(t_netns chips)
peer=$(t_netns chipspeer)
t_veth_pair "$ns" ct0 "$peer" ct1

# Our own chip directory first, so a host's /etc/rtltune/chips cannot change the answer.
export RTLTUNE_CHIP_PATH=$TOP/chips

out=$(t_rtl "$ns" chips ct0 --json)
t_eq "$(jq -r .ifname <<<"$out")" ct0 "ifname"
t_eq "$(jq -r .driver <<<"$out")" veth "driver"
t_eq "$(jq -r .chip.id <<<"$out")" veth "matched entry"
t_eq "$(jq -r .chip.match.driver <<<"$out")" veth "entry matches on driver"
t_eq "$(jq -r '.match.matched_on | join(",")' <<<"$out")" driver "matched fields"
t_eq "$(jq -r .match.score <<<"$out")" 1 "score"
t_eq "$(jq -r .chip.file <<<"$out")" "$TOP/chips/virtual.conf" "entry's file"
t_ge "$(jq -r .chip.line <<<"$out")" 1 "entry's line"
kmax=$(t_ip_attr "$ns" ct0 max_mtu)
ktso=$(t_ip_attr "$ns" ct0 tso_max_size)
t_eq "$(jq -r .limits.max_mtu.kernel <<<"$out")" "$kmax" "kernel max_mtu as ip reports it"
t_eq "$(jq -r .limits.tso_max_size.kernel <<<"$out")" "$ktso" "kernel tso_max_size as ip reports it"
t_eq "$(jq -r .limits.max_mtu.value <<<"$out")" "$kmax" "effective max_mtu"
t_eq "$(jq -r .limits.max_mtu.source <<<"$out")" kernel "max_mtu from the kernel (ties go to it)"

# Text mode renders the same object.
text=$(t_rtl "$ns" chips ct0)
grep -q '^ct0: chip veth (' <<<"$text" || t_fail "text header: $text"
grep -Eq '^    max_mtu +'"$kmax"' +kernel ' <<<"$text" || t_fail "text limits: $text"

# An admin directory earlier in the path: its virtual.conf hides the shipped one by name.
admin=$T_TMP/admin
mkdir -p "$admin"
cat >"$admin/virtual.conf" <<'EOF'
format = 1

[veth-lab]
name = veth with a lower ceiling than the kernel's
driver = veth
max_mtu = 9000
tso_max_size = 600000
EOF
out=$(RTLTUNE_CHIP_PATH=$admin:$TOP/chips t_rtl "$ns" chips ct0 --json)
t_eq "$(jq -r .chip.id <<<"$out")" veth-lab "admin entry replaces the shipped file"
t_eq "$(jq -r .chip.file <<<"$out")" "$admin/virtual.conf" "admin file"
t_eq "$(jq -r .limits.max_mtu.value <<<"$out")" 9000 "table lower than kernel: table wins"
t_eq "$(jq -r .limits.max_mtu.source <<<"$out")" chip "max_mtu source"
t_eq "$(jq -r .limits.tso_max_size.value <<<"$out")" "$ktso" "kernel lower than table: kernel wins"
t_eq "$(jq -r .limits.tso_max_size.source <<<"$out")" kernel "tso_max_size source"
list=$(RTLTUNE_CHIP_PATH=$admin:$TOP/chips t_rtl "$ns" chips --json)
t_eq "$(jq '[.chips[] | select(.id == "veth")] | length' <<<"$list")" 0 "shipped veth hidden"
t_eq "$(jq -r '.files[]' <<<"$list" | grep -c '/virtual.conf$')" 1 "one virtual.conf read"

# No entry for the driver: chip null with a reason, still exit 0.
empty=$T_TMP/empty
mkdir -p "$empty"
printf 'format = 1\n[not-veth]\ndriver = no-such-driver\n' >"$empty/virtual.conf"
out=$(RTLTUNE_CHIP_PATH=$empty t_rtl "$ns" chips ct0 --json)
t_eq "$(jq -r .chip <<<"$out")" null "no match: chip is null"
jq -r .match.why <<<"$out" | grep -q "no entry matches driver 'veth'" || t_fail "reason: $out"

# A malformed chip file: exit 2, file:line on stderr (text) or in the error document (JSON),
# and nothing else: no listing, no match.
bad=$T_TMP/bad
mkdir -p "$bad"
printf 'format = 1\n\n[broken]\ndriver = veth\nmax_mtu = lots\n' >"$bad/broken.conf"
for args in "chips ct0" "chips"; do
	rc=0
	# shellcheck disable=SC2086
	RTLTUNE_CHIP_PATH=$bad:$TOP/chips t_rtl "$ns" $args >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 2 "rtltune $args with a malformed chip file: exit code"
	t_eq "$(wc -c <"$T_TMP/out")" 0 "rtltune $args: nothing on stdout"
	grep -q "$bad/broken.conf:5: max_mtu: expected a positive number" "$T_TMP/err" ||
		t_fail "stderr does not name file:line: $(cat "$T_TMP/err")"

	rc=0
	# shellcheck disable=SC2086
	RTLTUNE_CHIP_PATH=$bad:$TOP/chips t_rtl "$ns" $args --json >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 2 "rtltune $args --json: exit code"
	t_eq "$(jq -s length "$T_TMP/out")" 1 "exactly one JSON document"
	t_eq "$(jq -r 'has("chips") or has("chip") or has("limits")' "$T_TMP/out")" false \
		"no partial result in the document"
	jq -r .error "$T_TMP/out" | grep -q "$bad/broken.conf:5: " || t_fail "error lacks file:line"
done

# A missing interface: exit 2 with the usual message.
rc=0
t_rtl "$ns" chips nosuch0 >/dev/null 2>"$T_TMP/err" || rc=$?
t_eq "$rc" 2 "chips nosuch0: exit code"
grep -q "no such interface: nosuch0" "$T_TMP/err" || t_fail "message: $(cat "$T_TMP/err")"
echo "chips_cli: all checks passed"
