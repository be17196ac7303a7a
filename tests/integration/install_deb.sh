#!/bin/bash
# The Debian package: scripts/build-deb.sh builds it (dpkg-buildpackage, about a minute),
# lintian passes it with no error or warning, and it holds what it must. Installing it
# for real, under systemd with its maintainer scripts, is tests/integration/systemd_boot.sh
# (the same build: --reuse).
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || t_fail "$tool missing (scripts/deps.sh installs it)"
done

# The unit tests already ran in `make check`: skip them inside the package build.
DEB_BUILD_OPTIONS=nocheck scripts/build-deb.sh --reuse --lintian >"$T_TMP/build.log" 2>&1 ||
	{ tail -n 40 "$T_TMP/build.log"; t_fail "scripts/build-deb.sh --lintian"; }
deb=$(tail -n 1 "$T_TMP/build.log" | grep '\.deb$' || sed -n '/\.deb$/p' "$T_TMP/build.log" | tail -n 1)
[ -f "$deb" ] || t_fail "no .deb reported by build-deb.sh"
t_log "built $deb ($(stat -c %s "$deb") bytes); lintian: no errors or warnings"
case $(basename "$deb") in rtltune_*_*.deb) echo "ok: package file name $(basename "$deb")" ;;
*) t_fail "unexpected package name $deb" ;; esac

# What the package holds, before installing it.
list=$T_TMP/contents
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$list"
for f in /usr/bin/rtltune /usr/sbin/rtltuned /lib/systemd/system/rtltuned.service \
	/lib/systemd/system/rtltune-apply@.service /etc/rtltune/rtltuned.conf \
	/usr/share/man/man8/rtltune.8.gz /usr/share/man/man8/rtltuned.8.gz \
	/usr/share/man/man5/rtltuned.conf.5.gz /usr/share/man/man5/rtltune-profile.5.gz \
	/usr/share/man/man5/rtltune-chips.5.gz /usr/share/bash-completion/completions/rtltune \
	/usr/share/doc/rtltune/prometheus/rtltune.rules.yml /usr/share/doc/rtltune/examples/pods.conf; do
	grep -qxF "$f" "$list" || t_fail "package lacks $f"
done
echo "ok: programs, units, config, man pages, completion, rules, the pods drop-in in the package"
t_eq "$(grep -c '^/usr/share/rtltune/profiles/.*\.conf$' "$list")" "$(ls profiles/*.conf | wc -l)" "profiles in the package"
t_eq "$(grep -c '^/usr/share/rtltune/chips/.*\.conf$' "$list")" "$(ls chips/*.conf | wc -l)" "chip files in the package"
t_eq "$(dpkg-deb -f "$deb" Package)" rtltune "Package field"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/rtltune/rtltuned.conf ||
	t_fail "/etc/rtltune/rtltuned.conf is not a conffile"
echo "ok: rtltuned.conf is a conffile"
