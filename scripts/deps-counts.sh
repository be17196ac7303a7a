#!/bin/bash
# README.md's package counts, derived from scripts/deps.sh rather than typed:
#   scripts/deps-counts.sh measure              per group (demo, all): "GROUP NAMED PULLED MB":
#                                               deps.sh's list length, how many packages
#                                               `apt-get install --no-install-recommends` of
#                                               it installs here (it and what it pulls in),
#                                               and the megabytes it downloads (apt-get -s and
#                                               --print-uris: nothing is installed)
#   scripts/deps-counts.sh write FILE [README]  put measure's output (FILE) into README's
#                                               `<!-- deps GROUP -->...<!-- /deps -->` spans
# The pulled-in counts are those of a base system: measure on a fresh Debian 12 minbase root,
# as root (a developer's machine has most packages already), e.g.
#   fresh-debian.sh TREE 'bash scripts/deps-counts.sh measure' counts.txt
#   scripts/deps-counts.sh write counts.txt
# tests/integration/docs_deps.sh checks README's named counts against deps.sh on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/deps-counts.sh measure | write FILE [README]" >&2; exit 2; }
groups="demo all"
case ${1:-} in
measure)
	[ "$(id -u)" -eq 0 ] || { echo "deps-counts: needs root (apt-get)" >&2; exit 2; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	for g in $groups; do
		mapfile -t pkgs < <(bash scripts/deps.sh --list "$g")
		pulled=$(apt-get install -s --no-install-recommends "${pkgs[@]}" | grep -c '^Inst ')
		bytes=$(apt-get install -qq --print-uris --no-install-recommends "${pkgs[@]}" |
			awk '{ s += $3 } END { printf "%.0f", s }')
		echo "$g ${#pkgs[@]} $pulled $(((bytes + 5000000) / 10000000 * 10))"
	done
	;;
write)
	file=${2:-}
	readme=${3:-README.md}
	[ -f "$file" ] && [ -f "$readme" ] || usage
	cp "$readme" "$readme.tmp"
	for g in $groups; do
		read -r _ named pulled mb < <(grep "^$g " "$file") || { echo "deps-counts: $file has no line for $g" >&2; exit 1; }
		[ "$named" = "$(bash scripts/deps.sh --list "$g" | wc -l)" ] ||
			{ echo "deps-counts: $file counts $named packages for $g, deps.sh lists $(bash scripts/deps.sh --list "$g" | wc -l): measure again" >&2; exit 1; }
		grep -q "<!-- deps $g -->" "$readme.tmp" || { echo "deps-counts: $readme has no <!-- deps $g --> span" >&2; exit 1; }
		sed -i -E "s|<!-- deps $g -->[^<]*<!-- /deps -->|<!-- deps $g -->$named packages, $pulled with what they pull in (about $mb MB to download)<!-- /deps -->|" "$readme.tmp"
	done
	mv "$readme.tmp" "$readme"
	echo "deps-counts: $readme: $(tr '\n' ';' <"$file")"
	;;
*) usage ;;
esac
