#!/bin/bash
# `make install DESTDIR=` stages every file where the Makefile says, the units name the
# installed programs, and the staged binaries work (pointed at the staged profiles and chip
# files through RTLTUNE_PROFILE_PATH/RTLTUNE_CHIP_PATH, since DESTDIR keeps /usr/share/rtltune
# compiled in). A relocated build (`make install PREFIX=DIR`) finds its data with no
# environment. `make uninstall` leaves no file behind, except an administrator's.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

n_profiles=$(ls profiles/*.conf | wc -l)
n_chips=$(ls chips/*.conf | wc -l)
n_units=$(ls systemd/*.service | wc -l)
n_man=$(ls man/*.[58] | wc -l)
t_ge "$n_man" 5 "man pages in the tree"

count() { find "$@" 2>/dev/null | wc -l; }

# ---- DESTDIR staging, default PREFIX=/usr --------------------------------------------
stage=$T_TMP/stage
make -s install DESTDIR="$stage" >"$T_TMP/install.log" 2>&1 ||
	{ cat "$T_TMP/install.log"; t_fail "make install DESTDIR=$stage"; }
t_eq "$(count "$stage/usr/bin/rtltune" -type f -perm -0755)" 1 "rtltune in BINDIR, executable"
t_eq "$(count "$stage/usr/sbin/rtltuned" -type f -perm -0755)" 1 "rtltuned in SBINDIR, executable"
t_eq "$(count "$stage/usr/share/rtltune/profiles" -name '*.conf')" "$n_profiles" "profiles installed"
t_eq "$(count "$stage/usr/share/rtltune/chips" -name '*.conf')" "$n_chips" "chip files installed"
t_eq "$(count "$stage/usr/lib/systemd/system" -name '*.service')" "$n_units" "units installed"
t_eq "$(count "$stage/usr/share/man" -type f -name 'rtltune*')" "$n_man" "man pages installed"
t_eq "$(count "$stage/usr/share/bash-completion/completions" -type f)" 2 "completions (rtltune, rtltuned)"
if [ -e etc/rtltuned.conf ]; then
	cmp -s etc/rtltuned.conf "$stage/etc/rtltune/rtltuned.conf" || t_fail "example rtltuned.conf not installed"
	echo "ok: /etc/rtltune/rtltuned.conf installed"
fi
t_eq "$(stat -c %a "$stage/usr/share/rtltune/profiles/balanced.conf")" 644 "data file mode"

# Every program a unit starts is where the package put it.
while read -r path; do
	[ -x "$stage$path" ] || t_fail "a unit starts $path, which is not installed"
	echo "ok: unit program $path installed"
done < <(sed -n 's/^Exec[A-Za-z]*=[-@!+:]*\(\/[^ ]*\).*/\1/p' "$stage"/usr/lib/systemd/system/*.service |
	sort -u)

# The staged binaries, pointed at the staged data.
export RTLTUNE_PROFILE_PATH=$stage/usr/share/rtltune/profiles
export RTLTUNE_CHIP_PATH=$stage/usr/share/rtltune/chips
staged=$("$stage/usr/bin/rtltune" --json profiles |
	jq --arg d "$RTLTUNE_PROFILE_PATH/" '[.profiles[] | select(.path | startswith($d))] | length')
t_eq "$staged" "$n_profiles" "staged rtltune lists the staged profiles"
"$stage/usr/sbin/rtltuned" --version | grep -q '^rtltuned [0-9]' || t_fail "staged rtltuned --version"

a=$(t_netns a)
b=$(t_netns b)
t_veth_pair "$a" vi0 "$b" vi1
show=$(ip netns exec "$a" "$stage/usr/bin/rtltune" --json show vi0)
t_eq "$(jq -r '.[0].ifname' <<<"$show")" vi0 "staged rtltune show: ifname"
t_eq "$(jq -r '.[0].chip' <<<"$show")" veth "staged rtltune show: chip from the staged database"
t_eq "$(jq -r '.[0].mtu' <<<"$show")" "$(t_ip_attr "$a" vi0 mtu)" "staged rtltune show: mtu as ip reports it"
file=$(ip netns exec "$a" "$stage/usr/bin/rtltune" --json chips vi0 | jq -r '.chip.file')
case $file in "$RTLTUNE_CHIP_PATH"/*) echo "ok: chip entry read from $file" ;;
*) t_fail "chip entry from '$file', not the staged database" ;; esac
unset RTLTUNE_PROFILE_PATH RTLTUNE_CHIP_PATH

make -s uninstall DESTDIR="$stage" >"$T_TMP/uninstall.log" 2>&1 ||
	{ cat "$T_TMP/uninstall.log"; t_fail "make uninstall DESTDIR=$stage"; }
left=$(find "$stage" ! -type d | wc -l)
[ "$left" -eq 0 ] || find "$stage" ! -type d >&2
t_eq "$left" 0 "files left after make uninstall DESTDIR"
t_eq "$(count "$stage" -name '*rtltune*')" 0 "rtltune directories left after make uninstall"

# ---- relocated: PREFIX and SYSCONFDIR compiled in, no environment ---------------------
# Its own build directory, so the tree's build/ (PREFIX=/usr) is not rebuilt.
prefix=$T_TMP/prefix
reloc=(BUILD="$T_TMP/build" PREFIX="$prefix" SYSCONFDIR="$prefix/etc" LOCALSTATEDIR="$prefix/var")
make -s -j2 "${reloc[@]}" install >"$T_TMP/reloc.log" 2>&1 ||
	{ tail -n 30 "$T_TMP/reloc.log"; t_fail "make install PREFIX=$prefix"; }
t_eq "$(cat build/paths.stamp 2>/dev/null || echo none)" "/usr/share/rtltune /etc /var" \
	"the tree's build/ keeps its compiled-in paths"
found=$(env -u RTLTUNE_PROFILE_PATH "$prefix/bin/rtltune" --json profiles |
	jq --arg d "$prefix/share/rtltune/profiles/" '[.profiles[] | select(.path | startswith($d))] | length')
t_eq "$found" "$n_profiles" "relocated rtltune finds PREFIX/share/rtltune/profiles by itself"
# The administrator's directory under the relocated SYSCONFDIR wins by name.
printf '[profile]\ndescription = site throughput\ninclude = throughput\n' \
	>"$prefix/etc/rtltune/profiles/throughput.conf"
shadow=$("$prefix/bin/rtltune" --json profiles |
	jq -r '.profiles[] | select(.name == "throughput" and .shadowed == false) | .path')
t_eq "$shadow" "$prefix/etc/rtltune/profiles/throughput.conf" "SYSCONFDIR profile wins by name"
chip=$(ip netns exec "$a" "$prefix/bin/rtltune" --json show vi0 | jq -r '.[0].chip')
t_eq "$chip" veth "relocated rtltune show: chip from PREFIX/share/rtltune/chips"
grep -q "^_rtltune_datadir=$prefix/share/rtltune\$" "$prefix/share/bash-completion/completions/rtltune" ||
	t_fail "completion does not search the relocated DATADIR"
make -s "${reloc[@]}" uninstall >>"$T_TMP/reloc.log" 2>&1 || t_fail "make uninstall PREFIX=$prefix"
t_eq "$(find "$prefix" ! -type d | tr '\n' ' ')" "$prefix/etc/rtltune/profiles/throughput.conf " \
	"after uninstall only the administrator's file is left"
