#!/bin/bash
# A Debian root that boots systemd as PID 1 under systemd-nspawn and installs a package
# offline: tests/integration/systemd_boot.sh uses it. This machine's release (bookworm
# here), --variant=minbase, systemd, systemd-sysv and dbus, and the runtime dependencies
# of the .deb given (its Depends field, so `dpkg -i` inside the root needs no network).
#   scripts/nspawn-root.sh DEB    print the root's tarball, debootstrapping it first if
#                                 the cache has none (a few minutes; needs the mirror)
# The tarball is cached under /var/tmp (RTLTUNE_ROOT_CACHE overrides the directory), named
# by a hash of what it holds: release, mirror, package list and this script. A package
# whose dependencies change gets a new root; the old tarball stays until removed by hand.
# The mirror is the one this machine's apt uses (/etc/apt/sources.list.d/debian.sources,
# else /etc/apt/sources.list, else deb.debian.org).
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: scripts/nspawn-root.sh DEB" >&2; exit 2; }
deb=$1
cache=${RTLTUNE_ROOT_CACHE:-/var/tmp}
for tool in debootstrap dpkg-deb sha256sum; do
	command -v "$tool" >/dev/null ||
		{ echo "nspawn-root: $tool missing (scripts/deps.sh installs it)" >&2; exit 2; }
done

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || { echo "nspawn-root: no VERSION_CODENAME in /etc/os-release" >&2; exit 2; }
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources \
	2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

# Depends: "a (>= 1), b | c, d:any": each package name, the first of alternatives.
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' \
	-e 's/:any//' -e 's/[[:space:]]//g' | grep -v '^$' | sort -u)
include=$(printf '%s\n' systemd systemd-sysv dbus $depends | sort -u | paste -sd, -)
key=$( (printf '%s\n' "$suite" minbase "$mirror" "$include"; cat "$0") | sha256sum | cut -c1-16)
tarball=$cache/rtltune-nspawn-$suite-$key.tar
if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

# One builder at a time; a second caller waits and then finds the tarball.
mkdir -p "$cache"
exec 9<"$cache"
flock 9
if [ ! -f "$tarball" ]; then
	work=$(mktemp -d "$cache/rtltune-nspawn.XXXXXX")
	trap 'rm -rf --one-file-system "$work"' EXIT
	echo "nspawn-root: debootstrap $suite ($include) from $mirror" >&2
	if ! debootstrap --variant=minbase --include="$include" "$suite" "$work/root" "$mirror" \
		>"$work/debootstrap.log" 2>&1; then
		tail -n 20 "$work/debootstrap.log" >&2
		echo "nspawn-root: debootstrap failed (log above)" >&2
		exit 1
	fi
	# What a booted container must not do: a login prompt on the console (a pipe in the
	# test, where agetty would fail and restart), apt's timers. An empty machine-id: each
	# boot makes its own.
	ln -sf /dev/null "$work/root/etc/systemd/system/console-getty.service"
	rm -f "$work/root/etc/systemd/system/getty.target.wants/"* \
		"$work/root/etc/systemd/system/timers.target.wants/"*
	: >"$work/root/etc/machine-id"
	rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
	tar -C "$work/root" -cf "$work/root.tar" .
	mv "$work/root.tar" "$tarball"
fi
echo "$tarball"
