#!/bin/bash
# Build the Debian package: rtltune_VERSION_ARCH.deb (and its -dbgsym) in build/deb/.
# The tree is copied to a temporary directory first, so the source tree stays clean and a
# build/ of the developer's is never mixed in. Prints the .deb's path last.
#   scripts/build-deb.sh [--reuse] [--lintian]
# --reuse: when build/deb/ holds the package built from exactly these files (and the same
# installed packages: /var/lib/dpkg/status), print it and build nothing. The tests that
# install the package (install_deb, systemd_boot) share one build that way.
# --lintian: then lintian, failing on errors and warnings.
# Needs the Build-Depends of debian/control (scripts/deps.sh installs them) and dpkg-dev;
# no root (Rules-Requires-Root: no).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
run_lintian=0 reuse=0
for arg in "$@"; do
	case $arg in
	--lintian) run_lintian=1 ;;
	--reuse) reuse=1 ;;
	*) echo "usage: scripts/build-deb.sh [--reuse] [--lintian]" >&2; exit 2 ;;
	esac
done
lint() { [ "$run_lintian" = 0 ] || lintian --fail-on error,warning --info "$1"; }

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)

# What the repository holds (tracked and new files, minus .gitignore'd ones such as build/);
# from a tarball without .git, everything but build/. A file deleted but not yet committed
# is still listed by git: skip it, but keep symlinks, even dangling ones (the unit tests'
# fake sysfs has some).
existing() {
	local f
	while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	done
}
sources() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard | (cd "$top" && existing)
	else
		(cd "$top" && find . -path ./build -prune -o -path ./.git -prune -o \
			\( -type f -o -type l \) -print0)
	fi
}
# What the package is made of: every file's content but the tests' (none is in it), and
# the installed packages.
stamp=$out/source.sha256
digest=$( (cd "$top" && sources | grep -zv '^\(\./\)\?tests/' | sort -z |
	xargs -0 sha256sum -- 2>/dev/null; sha256sum /var/lib/dpkg/status) | sha256sum |
	cut -d' ' -f1)
if [ "$reuse" = 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ] &&
	deb=$(ls "$out"/rtltune_"$version"_*.deb 2>/dev/null) && [ -f "$deb" ]; then
	echo "build-deb: reusing $deb (built from the same files)" >&2
	echo "$deb"
	lint "$deb"
	exit 0
fi

work=$(mktemp -d /tmp/rtltune-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/rtltune-$version
mkdir -p "$src"
(cd "$top" && sources | tar --null -T - -cf -) | tar -C "$src" -xf -

cd "$src"
if ! dpkg-checkbuilddeps 2>"$work/deps.err"; then
	cat "$work/deps.err" >&2
	echo "build-deb: install the missing build dependencies (scripts/deps.sh)" >&2
	exit 2
fi
# -b: binary only; -us -uc: unsigned; -j2: the build machines are shared.
dpkg-buildpackage -us -uc -b -j2 >"$work/build.log" 2>&1 || {
	tail -n 40 "$work/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log above)" >&2
	exit 1
}

mkdir -p "$out"
rm -f "$out"/rtltune*_"$version"_* "$stamp"
cp "$work"/rtltune*_"$version"_*.deb "$work"/rtltune_"$version"_*.changes \
	"$work"/rtltune_"$version"_*.buildinfo "$out"/ 2>/dev/null || true
cp "$work"/rtltune*_"$version"_*.ddeb "$out"/ 2>/dev/null || true
deb=$(ls "$out"/rtltune_"$version"_*.deb)
echo "$digest" >"$stamp"
echo "$deb"
# Errors and warnings fail; info tags are printed for the curious.
lint "$deb"
