#!/bin/bash
# t-lane: beside
# README.md and docs/fleet.md say what the code does (and the docs index lists every
# document, and kernel facts are cited from docs/kernel.md): the README's chip table is the chip
# database (every entry, with its limits and quirks), every `rtltune COMMAND` they show is a command
# rtltune has, and every rule and alert docs/fleet.md names is in the shipped rules.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

for s in "## Install" "## The four ways to use it" "## Chips"; do
	grep -qx "$s" README.md || t_fail "README.md lacks '$s'"
done
echo "ok: README has Install, The four ways to use it, Chips"

# The chip table: one row per database entry, limits as the database has them.
RTLTUNE_CHIP_PATH=$TOP/chips "$RTLTUNE" --json chips | jq -r '.chips[] |
	[.id, (.limits.max_mtu // "-" | tostring), (.limits.tso_max_size // "-" | tostring),
	 (if .big_tcp == true then "yes" elif .big_tcp == false then "no" else "-" end),
	 (.quirks | join(","))] | join(" ")' |
	sed 's/ $//' | sort >"$T_TMP/db"
awk -F'|' '/^## Chips$/ { f = 1 } /^## / && !/^## Chips$/ { f = 0 }
	f && $2 ~ /`/ { gsub(/[` ]/, "", $2); gsub(/ /, "", $5); split($6, t, "/"); gsub(/ /, "", t[1]); gsub(/ /, "", $7); gsub(/ /, "", $8)
		print $2, $5, t[1], $7, $8 }' README.md | sed 's/ $//' | sort >"$T_TMP/readme"
t_ge "$(wc -l <"$T_TMP/db")" 30 "chip database entries"
diff "$T_TMP/db" "$T_TMP/readme" || t_fail "README chip table differs from the chip database (<: database, >: README)"
t_eq "$(wc -l <"$T_TMP/readme")" "$(wc -l <"$T_TMP/db")" "README chip table rows"

# Commands shown in README and fleet.md exist.
cmds=$("$RTLTUNE" --help | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { exit }')
# In `code` spans, and where a code block runs it (not in its comments or prose).
used=$({
	grep -ohE '`rtltune (--json )?[a-z]+' README.md docs/fleet.md
	grep -hE '^    ' README.md docs/fleet.md | grep -oE "(^ +(\\$ |sudo )?|bin/|: )rtltune (--json )?[a-z]+"
} | awk '{ print $NF }' | sort -u)
n=0
for c in $used; do
	grep -qx "$c" <<<"$cmds" || t_fail "docs show 'rtltune $c', which is not a command"
	n=$((n + 1))
done
t_ge "$n" 10 "rtltune commands shown in README/fleet.md that exist"

# Rules and alerts named in fleet.md (whole names, not the abbreviated "…" ones).
rules=docs/prometheus/rtltune.rules.yml
n=0
for r in $(grep -ohE '`(device|probe):rtltune_[a-z0-9_]+:[a-z0-9_]+`' docs/fleet.md | tr -d '`' | sort -u); do
	grep -qE "record: $r$" "$rules" || t_fail "fleet.md names rule $r, not in $rules"
	n=$((n + 1))
done
t_ge "$n" 8 "recording rules named in fleet.md that exist"
n=0
for a in $(grep -ohE '`Rtltune[A-Za-z]+`' docs/fleet.md | tr -d '`' | sort -u); do
	grep -qE "alert: $a$" "$rules" || t_fail "fleet.md names alert $a, not in $rules"
	n=$((n + 1))
done
t_eq "$n" "$(grep -oE 'alert: Rtltune[A-Za-z]+' "$rules" | sort -u | wc -l)" "alerts fleet.md explains (all of them)"

# The docs index (docs/README.md) lists every document and directory in docs/, and only those.
ls docs | grep -vx README.md | sed 's|^\(.*\)$|\1|' | while read -r f; do
	[ -d "docs/$f" ] && f="$f/"
	echo "$f"
done | sort >"$T_TMP/docs"
grep -oE '^\| \[[^]]+\]\(([^)]+)\)' docs/README.md | sed -E 's/.*\(([^)]+)\)/\1/' | sort >"$T_TMP/index"
diff "$T_TMP/docs" "$T_TMP/index" || t_fail "docs/README.md and docs/ differ (<: in docs/ only, >: in the index only)"
t_ge "$(wc -l <"$T_TMP/index")" 18 "documents in the docs index"
# No file cites a notes file outside the project: kernel facts are cited from docs/kernel.md.
if grep -rnI --exclude-dir=build --exclude-dir=.git --exclude=docs_readme.sh KERNEL-NOTES .; then
	t_fail "the files above cite KERNEL-NOTES, which is not in the project: cite docs/kernel.md"
fi
echo "ok: nothing cites KERNEL-NOTES"
