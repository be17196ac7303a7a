#!/bin/bash
# t-lane: beside
# Help, version and refusals for every command the binary itself lists (so a command added
# without help fails here): `rtltune CMD --help` and `-h` print usage, the options and an
# example on stdout and exit 0, `rtltune help CMD` says the same; `-V`, `--version` and
# `version` agree. Then every option of every command, from the binary's own tables
# (`rtltune --json --help`): one given without its value, a number out of its range, a
# flag given a value, an option that does not exist, a missing positional: each exits 2 and
# the message names the word it refused.
. "$(dirname "$0")/../lib.sh"

ns=$(t_netns help)
r() { t_rtl "$ns" "$@"; }
# fails WORD ARGS...: exit 2, nothing on stdout, stderr names WORD.
fails() {
	local word=$1 rc=0
	shift
	r "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	[ "$rc" -eq 2 ] || { cat "$T_TMP/out" "$T_TMP/err"; t_fail "rtltune $*: exit $rc, expected 2"; }
	[ ! -s "$T_TMP/out" ] || t_fail "rtltune $*: wrote to stdout: $(head -c 200 "$T_TMP/out")"
	grep -qF -- "$word" "$T_TMP/err" || t_fail "rtltune $*: message does not name '$word': $(cat "$T_TMP/err")"
}

doc=$(r --json --help)
mapfile -t cmds < <(jq -r '.commands[].name' <<<"$doc")
text_cmds=$(r --help | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { exit }' | sort | tr '\n' ' ')
t_eq "$(printf '%s\n' "${cmds[@]}" | sort | tr '\n' ' ')" "$text_cmds" "commands of --help and --json --help"
t_ge "${#cmds[@]}" 18 "commands listed"

t_log "rtltune --help, -h, help"
r --help >"$T_TMP/top" 2>"$T_TMP/err"
[ ! -s "$T_TMP/err" ] || t_fail "--help wrote to stderr"
for w in "Usage: rtltune" "Commands:" "--netns NETNS" "--version" "Exit codes:" "Example:"; do
	grep -qF -- "$w" "$T_TMP/top" || t_fail "rtltune --help lacks '$w'"
done
t_eq "$(r -h | md5sum)" "$(md5sum <"$T_TMP/top")" "-h is --help"
t_eq "$(r help | md5sum)" "$(md5sum <"$T_TMP/top")" "help is --help"

t_log "every command's --help"
for c in "${cmds[@]}"; do
	rc=0
	r "$c" --help >"$T_TMP/h" 2>"$T_TMP/err" || rc=$?
	t_eq "$rc" 0 "$c --help: exit"
	[ ! -s "$T_TMP/err" ] || t_fail "$c --help wrote to stderr: $(cat "$T_TMP/err")"
	grep -q "^Usage: rtltune \[GLOBAL OPTIONS\] $c\b" "$T_TMP/h" || t_fail "$c --help: no usage line"
	grep -q "^Options:" "$T_TMP/h" || t_fail "$c --help: no options"
	grep -q "^  rtltune $c\b" "$T_TMP/h" || t_fail "$c --help: no example of $c"
	# Every option the table has is in the help, with -h.
	for o in $(jq -r --arg c "$c" '.commands[] | select(.name == $c) | .options[].name' <<<"$doc"); do
		grep -qE -- "^  (-., |    )$o\b" "$T_TMP/h" || t_fail "$c --help does not list $o"
	done
	t_eq "$(r "$c" -h | md5sum)" "$(md5sum <"$T_TMP/h")" "$c -h is $c --help"
	t_eq "$(r help "$c" | md5sum)" "$(md5sum <"$T_TMP/h")" "help $c is $c --help"
	# --help wins over missing arguments: nothing runs.
	t_eq "$(r --json "$c" --help | jq -r .name)" "$c" "$c --help --json"
	echo "ok: $c --help"
done

t_log "version"
v=$(r version)
[[ $v == "rtltune "[0-9]* ]] || t_fail "version: '$v'"
t_eq "$(r -V)" "$v" "-V"
t_eq "$(r --version)" "$v" "--version"
t_eq "$(r --json --version | jq -r .version)" "${v#rtltune }" "--json --version"

t_log "refusals name the word, for every option of every command"
fails "--no-such-option" --no-such-option
fails "'-Z'" -Z
fails "--socket needs a value (PATH)" --socket
fails "-n needs a value (NETNS)" -n
fails "unknown command 'no-such-command'" no-such-command
fails "help: unknown command 'no-such-command'" help no-such-command
for c in "${cmds[@]}"; do
	fails "$c: unknown option '--no-such-option'" "$c" --no-such-option
	# -n NETNS after the command, unless the command has a -n of its own (log's --lines).
	[ "$(jq -r --arg c "$c" '[.commands[] | select(.name == $c) | .options[] | select(.short == "-n")] | length' <<<"$doc")" != 0 ] ||
		fails "$c: -n goes before the command" "$c" -n lab
	fails "$c: --version goes before the command" "$c" --version
	while IFS=$'\t' read -r name value type min max; do
		echo "# $c $name ($type $min $max)"
		if [ "$value" = null ]; then
			fails "$c: $name takes no value, got '$name=yes'" "$c" "$name=yes"
			continue
		fi
		fails "$c: $name needs a value ($value)" "$c" "$name"
		case $type in
		int)
			fails "$c: $name $((max + 1)) is out of range ($min to $max)" "$c" "$name" $((max + 1))
			fails "$c: $name 4294967297 is out of range ($min to $max)" "$c" "$name" 4294967297
			fails "$c: $name expects a whole number ($value), got 'x'" "$c" "$name" x
			;;
		seconds)
			fails "$c: $name 99999999 is out of range ($min to $max seconds)" "$c" "$name" 99999999
			fails "$c: $name -1 is out of range ($min to $max seconds)" "$c" "$name" -1
			;;
		esac
	done < <(jq -r --arg c "$c" '.commands[] | select(.name == $c) | .options[]
		| select(.name != "--help")
		| [.name, (.value // "null"), .type, (.min // "" | tostring), (.max // "" | tostring)]
		| @tsv' <<<"$doc")
	# The first positional the synopsis requires, when none is given.
	args=$(jq -r --arg c "$c" '.commands[] | select(.name == $c) | .args // ""' <<<"$doc")
	first=$(awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' <<<"$args")
	[ -z "$first" ] || fails "$c: $first missing" "$c"
	# One positional more than the synopsis takes: named (the words it spells out given
	# as spelled, "on|off" as on).
	if [[ $args != *...* ]]; then
		words=()
		read -ra toks <<<"$args"
		for t in "${toks[@]}"; do
			t=${t#[} t=${t%]}
			if [[ $t =~ ^[a-z|]+$ ]]; then words+=("${t%%|*}"); else words+=(x); fi
		done
		fails "$c: unexpected argument 'surplus'" "$c" "${words[@]}" surplus
	fi
	echo "ok: $c refusals"
done
