#!/bin/bash
# t-lane: beside
# README.md's package facts come from scripts/deps.sh: the dependency table names every
# package deps.sh installs and nothing else; the package counts (`<!-- deps GROUP -->`
# spans, written by scripts/deps-counts.sh) name as many packages as deps.sh lists for the
# group, with at least as many pulled in; the bootstrap sample's count is the demo group's.
# Needs no root or network.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

bash scripts/deps.sh --list bench | sort >"$T_TMP/deps"
t_ge "$(wc -l <"$T_TMP/deps")" 40 "packages deps.sh lists (bench: every group)"
awk '/^## Dependencies and why$/ { f = 1; next } /^## / { f = 0 }
	f && /^\| / && !/^\| package / && !/^\|---/ { split($0, c, "|"); print c[2] }' README.md |
	tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -vx '(none)' | grep -v '^$' | sort >"$T_TMP/table"
t_ge "$(wc -l <"$T_TMP/table")" 40 "packages in README's dependency table"
diff "$T_TMP/deps" "$T_TMP/table" >"$T_TMP/diff" ||
	{ cat "$T_TMP/diff"; t_fail "README's dependency table and scripts/deps.sh differ (<: deps.sh only, >: README only)"; }
echo "ok: the dependency table names each of deps.sh's $(wc -l <"$T_TMP/deps") packages, and no other"

for g in demo all; do
	span=$(grep -o "<!-- deps $g -->[^<]*<!-- /deps -->" README.md) || t_fail "README has no <!-- deps $g --> span"
	[[ $span =~ \>([0-9]+)\ packages,\ ([0-9]+)\ with\ what\ they\ pull\ in\ \(about\ ([0-9]+)\ MB\ to\ download\)\< ]] ||
		t_fail "README's $g span is not 'N packages, M with what they pull in (about X MB to download)': $span"
	named=${BASH_REMATCH[1]} pulled=${BASH_REMATCH[2]}
	t_eq "$named" "$(bash scripts/deps.sh --list $g | wc -l)" "README's package count for $g (scripts/deps.sh --list $g)"
	t_ge "$pulled" "$named" "packages pulled in for $g, at least the named ones"
done
n=$(bash scripts/deps.sh --list demo | wc -l)
grep -q "bootstrap: needs root to install $n Debian packages with apt-get (make, gcc, libc6-dev and $((n - 3)) more," README.md ||
	t_fail "README's bootstrap sample does not count the demo group's $n packages"
echo "ok: the bootstrap sample counts $n packages"
