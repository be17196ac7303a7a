#!/bin/bash
# t-lane: beside
# The man pages render without a single groff warning, and they document what the programs
# really accept: every command of `rtltune --help`, every option of `rtltuned --help`, every
# rtltuned.conf key, profile knob and chip quirk the parsers list in their own error
# messages, every environment variable rtltune names. Runs with the integration tests
# (rtltuned is asked about its keys in a network namespace the test makes).
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
[ -x "$RTLTUNED" ] || t_fail "$RTLTUNED not built (run make)"
command -v man >/dev/null || t_fail "man missing (scripts/deps.sh installs man-db)"

pages=(man/rtltune.8 man/rtltuned.8 man/rtltuned.conf.5 man/rtltune-profile.5 man/rtltune-chips.5)
for p in "${pages[@]}"; do [ -f "$p" ] || t_fail "$p missing"; done
t_eq "$(ls man/*.[1-8] | wc -l)" "${#pages[@]}" "man pages in man/"

# ---- render: any warning fails (man exits 0 on warnings, so read stderr) --------------
for p in "${pages[@]}"; do
	man --warnings -E UTF-8 -l -Tutf8 -Z "$p" >/dev/null 2>"$T_TMP/warn"
	# -ww: every groff warning category, stricter than man's default (mac)
	groff -ww -z -man -Tutf8 "$p" 2>>"$T_TMP/warn"
	[ -s "$T_TMP/warn" ] && { cat "$T_TMP/warn"; t_fail "$p: groff warnings"; }
	echo "ok: $p renders without warnings"
done

# No control characters in the sources (a "\f" typed through a tool once became a form
# feed, and rtltuned(8) rendered "IFACER,"); the sentence it was in reads right.
if grep -nP '[\x00-\x08\x0b-\x1f\x7f]' "${pages[@]}"; then t_fail "control characters in a man page source"; fi
groff -man -Tascii -rLL=5000n -rHY=0 -P-cbou man/rtltuned.8 2>/dev/null | grep -q 'until rtltune autotune on IFACE, rtltune apply or rtltune restore takes it back' ||
	t_fail "rtltuned.8 does not render 'rtltune autotune on IFACE,' in DESCRIPTION"
# The daemon's file is rtltuned.conf and so is its page; man-db also finds it as
# rtltune.conf (the second name in NAME).
head -n 8 man/rtltuned.conf.5 | grep -qx 'rtltuned.conf, rtltune.conf \\- configuration of the rtltuned daemon' ||
	t_fail "rtltuned.conf.5: NAME is not 'rtltuned.conf, rtltune.conf'"
if grep -rn 'rtltune\.conf *(5)\|rtltune\.conf (5)' man README.md docs; then t_fail "a reference to rtltune.conf(5): the page is rtltuned.conf(5)"; fi
echo "ok: no control characters; rtltuned(8) reads right; rtltuned.conf(5) is the page's name"

# Plain text, one paragraph per line (huge line length, no hyphenation), for the checks.
text() { groff -man -Tascii -rLL=5000n -rHY=0 -P-cbou "$1" 2>/dev/null; }
# section PAGE NAME: the text of one section.
section() { text "$1" | awk -v s="$2" '$0 == s { f = 1; next } /^[A-Z]/ { f = 0 } f'; }
# The words a parser lists after "expected" in its error message.
expected_words() {
	sed -e 's/.*expected//' | tr -s ' ,:();' '\n' | grep -E '^[a-z0-9_-]+$' | grep -vxE 'one|of|or'
}
# check_words PAGE SECTION WHAT WORDS...: each word is (one of) a tag in SECTION: at a line
# start, or in a list there ("tso, gso, gro").
check_words() {
	local page=$1 sec=$2 what=$3 n=0 w
	shift 3
	section "$page" "$sec" >"$T_TMP/sec"
	[ -s "$T_TMP/sec" ] || t_fail "$page has no $sec section"
	for w in "$@"; do
		grep -qE "^ +([a-z0-9_-]+, )*$w([ ,]|$)" "$T_TMP/sec" || t_fail "$page: $what '$w' not documented in $sec"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || t_fail "$page: no ${what}s to check"
	echo "ok: $page: all $n ${what}s documented in $sec"
}

for p in "${pages[@]}"; do
	for s in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
		text "$p" | grep -qx "$s" || t_fail "$p: no $s section"
	done
done
echo "ok: every page has NAME, SYNOPSIS, DESCRIPTION, SEE ALSO"

# Cross references to rtltune pages point at pages that exist.
refs=$(for p in "${pages[@]}"; do text "$p"; done | grep -oE 'rtltune[a-z.-]*\([0-9]\)' | sort -u)
for r in $refs; do
	f="man/${r%(*}.$(tr -dc 0-9 <<<"$r")"
	[ -f "$f" ] || t_fail "reference $r has no page ($f)"
done
t_ge "$(wc -w <<<"$refs")" 5 "cross references resolve"

# ---- the pages against the programs ----------------------------------------------------
cmds=$("$RTLTUNE" --help | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { exit }')
t_ge "$(wc -w <<<"$cmds")" 8 "commands listed by rtltune --help"
# shellcheck disable=SC2086
check_words man/rtltune.8 COMMANDS "command" $cmds

envs=$("$RTLTUNE" --help | grep -oE 'RTLTUNE_[A-Z_]+' | sort -u)
# shellcheck disable=SC2086
check_words man/rtltune.8 ENVIRONMENT "variable" $envs
for code in 0 1 2 3 4; do
	section man/rtltune.8 "EXIT STATUS" | grep -qE "^ +$code( |$)" || t_fail "rtltune.8: exit status $code"
done
echo "ok: rtltune.8 documents exit statuses 0-4"

# Every option of every command (the binary's own tables) in that command's entry, and
# every global option in OPTIONS.
section man/rtltune.8 COMMANDS | awk '/^       [a-z]/ { cmd = $1 } cmd { print cmd "\t" $0 }' >"$T_TMP/entries"
"$RTLTUNE" --json --help >"$T_TMP/help.json"
n=0
while IFS=$'\t' read -r c o; do
	grep -P "^$c\t" "$T_TMP/entries" | grep -qF -- "$o" || t_fail "rtltune.8: $c's option $o not in its entry"
	n=$((n + 1))
done < <(jq -r '.commands[] | .name as $c | .options[] | select(.name != "--help") | [$c, .name] | @tsv' "$T_TMP/help.json")
t_ge "$n" 15 "command options documented in their COMMANDS entry"
for o in $(jq -r '.options[].name' "$T_TMP/help.json"); do
	section man/rtltune.8 OPTIONS | grep -qE -- "^ +(-[a-zA-Z], )?$o( |,|$)" || t_fail "rtltune.8: global option $o not in OPTIONS"
done
echo "ok: rtltune.8 documents every global option"

opts=$("$RTLTUNED" --help | grep -oE -- '--[a-z-]+' | sort -u)
t_ge "$(wc -w <<<"$opts")" 8 "options listed by rtltuned --help"
# shellcheck disable=SC2086
check_words man/rtltuned.8 OPTIONS "option" $opts

printf '[daemon]\nno_such_key = 1\n' >"$T_TMP/bad.conf"
# In a namespace of its own, with a socket and state of its own, bounded: if it ever took
# the config, it would start there and touch nothing of the host's.
keys=$({ t_in "$(t_netns man)" timeout 10 "$RTLTUNED" --foreground --config "$T_TMP/bad.conf" \
	--socket "$T_TMP/man.sock" --state-dir "$T_TMP/man-state" 2>&1 || true; } | expected_words)
t_ge "$(wc -w <<<"$keys")" 10 "keys rtltuned.conf accepts (from its error message)"
# shellcheck disable=SC2086
check_words man/rtltuned.conf.5 KEYS "key" $keys
# The [tuner] section's settings, as its own error lists them.
printf '[tuner]\nno_such_key = 1\n' >"$T_TMP/bad-tuner.conf"
tkeys=$({ t_in "$(t_netns mant)" timeout 10 "$RTLTUNED" --foreground --config "$T_TMP/bad-tuner.conf" \
	--socket "$T_TMP/man.sock" --state-dir "$T_TMP/man-state" 2>&1 || true; } | expected_words)
t_ge "$(wc -w <<<"$tkeys")" 30 "[tuner] settings rtltuned.conf accepts (from its error message)"
# shellcheck disable=SC2086
check_words man/rtltuned.conf.5 KEYS "[tuner] setting" $tkeys

# The knob table's names (feature.NAME knobs stand for themselves as one entry).
knobs=$("$RTLTUNE" knobs --names | grep -v '^feature\.')
t_ge "$(wc -w <<<"$knobs")" 50 "knobs a profile accepts (rtltune knobs --names)"
"$RTLTUNE" knobs --names | grep -q '^feature\.rx-gro-hw$' || t_fail "no feature.NAME knobs"
section man/rtltune-profile.5 KNOBS | grep '^ *feature\.NAME' >/dev/null || t_fail "rtltune-profile.5 lacks feature.NAME"
section man/rtltune.8 KNOBS | grep 'feature\.NAME' >/dev/null || t_fail "rtltune.8 lacks feature.NAME"
# shellcheck disable=SC2086
check_words man/rtltune-profile.5 KNOBS "knob" $knobs
for k in $knobs; do
	section man/rtltune.8 KNOBS | grep -qw -- "$k" || t_fail "rtltune.8 KNOBS lacks $k"
done
echo "ok: rtltune.8 KNOBS names every knob"

mkdir -p "$T_TMP/chips"
printf '[x]\ndriver = x\nquirks = no-such-quirk\n' >"$T_TMP/chips/bad.conf"
quirks=$({ RTLTUNE_CHIP_PATH=$T_TMP/chips "$RTLTUNE" chips 2>&1 || true; } | expected_words)
t_ge "$(wc -w <<<"$quirks")" 10 "quirks the chip parser accepts (from its error message)"
section man/rtltune-chips.5 FORMAT >"$T_TMP/sec"
n=0
for q in $quirks; do
	grep -qw -- "$q" "$T_TMP/sec" || t_fail "rtltune-chips.5 does not list quirk $q"
	n=$((n + 1))
done
t_ge "$n" 10 "rtltune-chips.5 lists every quirk"
