#!/bin/bash
# t-lane: beside
# Bash completion (completion/rtltune.bash, installed as completions/rtltune and rtltuned):
# commands as `rtltune --help` lists them, interface names of the current namespace,
# profile names, knob names (rtltune knobs --names) and chip ids from the directories rtltune searches (RTLTUNE_PROFILE_PATH /
# RTLTUNE_CHIP_PATH first), histogram names, options. Runs without bash-completion
# installed, as in a minimal system.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

a=$(t_netns a)
b=$(t_netns b)
t_veth_pair "$a" cmpl0 "$b" cmpl1
ip -n "$a" link add cmpl9 type dummy 2>/dev/null || ip -n "$a" link add cmpl9 type veth peer name cmpl8

mkdir -p "$T_TMP/profiles" "$T_TMP/chips"
printf '[knobs]\ntso = on\n' >"$T_TMP/profiles/sitewide.conf"
printf '[site-nic]\ndriver = sitenic\n' >"$T_TMP/chips/site.conf"

# complete WORD...: what the completion offers for the last word, one per line, sorted.
complete_words() {
	ip netns exec "$a" env RTLTUNE_PROFILE_PATH="$T_TMP/profiles" RTLTUNE_CHIP_PATH="$T_TMP/chips" \
		bash -c '. completion/rtltune.bash
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		"_${1##*/}"; printf "%s\n" "${COMPREPLY[@]}"' complete "$@" | sort
}
words() { complete_words "$@" | tr '\n' ' ' | sed 's/ $//'; }

n_cmds=$("$RTLTUNE" --help | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { n++ } c && /^$/ { exit } END { print n }')
t_eq "$(complete_words "$RTLTUNE" '' | wc -l)" $((n_cmds + 1)) "commands offered (rtltune --help's, and help)"
t_eq "$(words "$RTLTUNE" ap)" apply "'ap' completes to apply"
t_eq "$(words "$RTLTUNE" --json sh)" show "a command after --json"
ifaces=$(ip -n "$a" -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort | tr '\n' ' ' | sed 's/ $//')
t_eq "$(words "$RTLTUNE" show '')" "$ifaces" "show: the namespace's interfaces"
t_eq "$(words "$RTLTUNE" show cmpl)" "$(tr ' ' '\n' <<<"$ifaces" | grep '^cmpl' | tr '\n' ' ' | sed 's/ $//')" \
	"show cmpl: the matching interfaces"
profiles=$( (ls profiles; ls "$T_TMP/profiles") | sed 's/\.conf$//' | sort -u | tr '\n' ' ' | sed 's/ $//')
t_eq "$(words "$RTLTUNE" apply '')" "$profiles" "apply: profile names, shipped and from RTLTUNE_PROFILE_PATH"
t_eq "$(words "$RTLTUNE" apply sitewide cmpl0 --d)" --dry-run "apply: --dry-run"
t_eq "$(words "$RTLTUNE" apply throughput cm)" "$(words "$RTLTUNE" show cm)" "apply PROFILE: then interfaces"
t_eq "$(words "$RTLTUNE" profile '')" show "profile: show"
t_eq "$(words "$RTLTUNE" profile show bal)" balanced "profile show: names"
n_chips=$( (RTLTUNE_CHIP_PATH=$T_TMP/chips "$RTLTUNE" --json chips | jq -r '.chips[].id') | sort -u | wc -l)
t_eq "$(complete_words "$RTLTUNE" profile show balanced --chip '' | wc -l)" "$n_chips" "--chip: every chip id"
t_eq "$(words "$RTLTUNE" profile show balanced --chip site)" site-nic "--chip: an id from RTLTUNE_CHIP_PATH"
t_eq "$(words "$RTLTUNE" profile show balanced --driver r81)" r8169 "--driver: driver names of the chip files"
t_eq "$(complete_words "$RTLTUNE" hist cmpl0 '' | wc -l)" 5 "hist: the five histograms"
t_eq "$(words "$RTLTUNE" autotune '')" "off on" "autotune: on|off"
t_eq "$(words "$RTLTUNE" log --f)" --follow "log --follow"
t_eq "$(complete_words "$RTLTUNE" knobs '' | wc -l)" "$("$RTLTUNE" --json knobs | jq '.knobs | length')" \
	"knobs: every knob of the table"
t_eq "$(words "$RTLTUNE" knobs feature.rx-gro)" "feature.rx-gro feature.rx-gro-hw feature.rx-gro-list" \
	"knobs feature.rx-gro: the features by name"
t_eq "$(words "$RTLTUNED" --no)" --no-autotune "rtltuned options"
t_eq "$(words "$RTLTUNED" --profile lat)" latency "rtltuned --profile: names"
