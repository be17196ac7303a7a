#!/bin/bash
# Build the Debian package: rtltune_VERSION_ARCH.deb (and its -dbgsym) in build/deb/.
# The tree is copied to a temporary directory first, so the source tree stays clean and a
# build/ of the developer's is never mixed in. Usage: scripts/build-deb.sh [--lintian]
# Needs the Build-Depends of debian/control (scripts/deps.sh installs them) and dpkg-dev;
# no root (Rules-Requires-Root: no).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
run_lintian=0
[ "${1-}" = --lintian ] && run_lintian=1

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
work=$(mktemp -d /tmp/rtltune-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/rtltune-$version
mkdir -p "$src"

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
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard | existing |
		tar --null -T - -cf -) | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi

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
rm -f "$out"/rtltune*_"$version"_*
cp "$work"/rtltune*_"$version"_*.deb "$work"/rtltune_"$version"_*.changes \
	"$work"/rtltune_"$version"_*.buildinfo "$out"/ 2>/dev/null || true
cp "$work"/rtltune*_"$version"_*.ddeb "$out"/ 2>/dev/null || true
deb=$(ls "$out"/rtltune_"$version"_*.deb)
echo "$deb"

if [ "$run_lintian" = 1 ]; then
	# Errors and warnings fail; info tags are printed for the curious.
	lintian --fail-on error,warning --info "$deb"
fi
