#!/bin/bash
# The Debian package: scripts/build-deb.sh builds it (dpkg-buildpackage, about a minute),
# lintian passes it with no error or warning, and it installs for real with dpkg -i into
# a throwaway root: a copy-on-write overlay of this host's / in a private mount namespace,
# with an empty /run (no systemd there, so nothing is started on the CI host). Whatever
# dpkg writes lands in a tmpfs that vanishes with the namespace. There: the files, the
# rtltune group, the unit enabled the Debian way, `rtltune show` on a veth, and purge.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"

for tool in dpkg-buildpackage dh lintian unshare; do
	command -v "$tool" >/dev/null || t_fail "$tool missing (scripts/deps.sh installs it)"
done
grep -qw overlay /proc/filesystems || t_skip "no overlayfs for the throwaway root"

# The unit tests already ran in `make check`: skip them inside the package build.
DEB_BUILD_OPTIONS=nocheck scripts/build-deb.sh --lintian >"$T_TMP/build.log" 2>&1 ||
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
	/usr/share/man/man5/rtltune.conf.5.gz /usr/share/man/man5/rtltune-profile.5.gz \
	/usr/share/man/man5/rtltune-chips.5.gz /usr/share/bash-completion/completions/rtltune \
	/usr/share/doc/rtltune/prometheus/rtltune.rules.yml; do
	grep -qxF "$f" "$list" || t_fail "package lacks $f"
done
echo "ok: programs, units, config, man pages, completion, rules in the package"
t_eq "$(grep -c '^/usr/share/rtltune/profiles/.*\.conf$' "$list")" "$(ls profiles/*.conf | wc -l)" "profiles in the package"
t_eq "$(grep -c '^/usr/share/rtltune/chips/.*\.conf$' "$list")" "$(ls chips/*.conf | wc -l)" "chip files in the package"
t_eq "$(dpkg-deb -f "$deb" Package)" rtltune "Package field"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/rtltune/rtltuned.conf ||
	t_fail "/etc/rtltune/rtltuned.conf is not a conffile"
echo "ok: rtltuned.conf is a conffile"

# ---- dpkg -i into the throwaway root ----------------------------------------------------
a=$(t_netns a)
b=$(t_netns b)
t_veth_pair "$a" vd0 "$b" vd1
cp "$deb" "$T_TMP/rtltune.deb"
cat >"$T_TMP/in-root.sh" <<'EOF'
set -eu
t=$1 ns=$2
root=$t/root
mkdir -p "$t/ovl" "$root"
mount -t tmpfs tmpfs "$t/ovl"
mkdir -p "$t/ovl/upper" "$t/ovl/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$t/ovl/upper,workdir=$t/ovl/work" "$root"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/run/netns" "$root/tmp/pkg"
mount --rbind /run/netns "$root/run/netns"
mount --bind "$t" "$root/tmp/pkg"
inroot() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# The host may have rtltune installed already: start from a root without it.
inroot dpkg --purge rtltune >/dev/null 2>&1 || true
echo "== dpkg -i"
inroot dpkg -i /tmp/pkg/rtltune.deb
echo "== status: $(inroot dpkg-query -W -f='${Status} ${Version}' rtltune)"
echo "== group: $(inroot getent group rtltune | cut -d: -f1)"
echo "== socket_group: $(inroot sed -n 's/^socket_group *= *//p' /etc/rtltune/rtltuned.conf)"
echo "== enabled: $(inroot readlink /etc/systemd/system/multi-user.target.wants/rtltuned.service)"
echo "== which: $(inroot sh -c 'command -v rtltune; command -v rtltuned' | tr '\n' ' ')"
echo "== man: $(inroot man -w rtltune.conf 2>/dev/null)"
inroot ip netns exec "$ns" rtltune --json show vd0 >"$t/show.json"
inroot rtltune --json profiles >"$t/profiles.json"
inroot rtltuned --version
# The packaged daemon with the packaged config: the socket belongs to the rtltune group, so
# a member reads through it and anyone else is refused.
inroot useradd --system --no-create-home -G rtltune rtmember
inroot useradd --system --no-create-home rtother
# chroot, env and `ip netns exec` all exec: $! is the daemon itself.
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ip netns exec "$ns" \
	rtltuned --foreground --metrics off >"$t/rtltuned.log" 2>&1 &
d=$!
trap 'kill -9 $d 2>/dev/null' EXIT
for i in $(seq 100); do [ -S "$root/run/rtltune/control.sock" ] && break; sleep 0.05; done
echo "== socket: $(inroot stat -c '%G %a' /run/rtltune/control.sock 2>&1)"
as() { local u=$1; shift; inroot setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
as rtmember rtltune status >/dev/null 2>"$t/member.err" && echo "== member status: 0" || echo "== member status: $?"
as rtother rtltune status >/dev/null 2>"$t/other.err" && echo "== other status: 0" || echo "== other status: $?"
kill -TERM "$d"
wait "$d" && echo "== daemon exit: 0" || echo "== daemon exit: $?"
trap - EXIT
echo "== purge"
inroot dpkg --purge rtltune
echo "== after purge: $(inroot sh -c 'ls /usr/bin/rtltune /etc/rtltune/rtltuned.conf /etc/systemd/system/multi-user.target.wants/rtltuned.service 2>/dev/null | wc -l')"
EOF
unshare --mount --propagation private bash "$T_TMP/in-root.sh" "$T_TMP" "$a" >"$T_TMP/root.log" 2>&1 ||
	{ cat "$T_TMP/root.log"; t_fail "installing into the throwaway root"; }
cat "$T_TMP/root.log"
field() { sed -n "s/^== $1: //p" "$T_TMP/root.log"; }

t_eq "$(field status)" "install ok installed $(dpkg-deb -f "$deb" Version)" "dpkg status after dpkg -i"
t_eq "$(field group)" rtltune "system group made by postinst"
t_eq "$(field socket_group)" rtltune "the control socket's group in the shipped config"
t_eq "$(field enabled)" /lib/systemd/system/rtltuned.service "rtltuned.service enabled (deb-systemd-helper)"
t_eq "$(field which)" "/usr/bin/rtltune /usr/sbin/rtltuned " "programs on PATH"
t_eq "$(field man)" /usr/share/man/man5/rtltune.conf.5.gz "man finds rtltune.conf(5)"
t_eq "$(jq -r '.[0].ifname' "$T_TMP/show.json")" vd0 "installed rtltune show: ifname"
t_eq "$(jq -r '.[0].chip' "$T_TMP/show.json")" veth "installed rtltune show: chip from /usr/share/rtltune/chips"
t_eq "$(jq -r '.[0].mtu' "$T_TMP/show.json")" "$(t_ip_attr "$a" vd0 mtu)" "installed rtltune show: mtu as ip reports it"
t_eq "$(jq '[.profiles[] | select(.path | startswith("/usr/share/rtltune/profiles/"))] | length' \
	"$T_TMP/profiles.json")" "$(ls profiles/*.conf | wc -l)" "installed rtltune finds the shipped profiles"
t_eq "$(field socket)" "rtltune 660" "control socket group and mode from the packaged config"
t_eq "$(field 'member status')" 0 "a member of group rtltune reads rtltune status"
t_eq "$(field 'other status')" 3 "a user outside the group is refused (exit 3)"
grep -qi 'permission denied' "$T_TMP/other.err" || { cat "$T_TMP/other.err"; t_fail "refusal names EACCES"; }
t_eq "$(field 'daemon exit')" 0 "packaged rtltuned stops cleanly on SIGTERM"
t_eq "$(field 'after purge')" 0 "nothing of the package left after purge"
# The host itself was not touched.
[ -e /run/netns/"$a" ] || t_fail "namespace lost"
t_eq "$(find "$T_TMP/root" -mindepth 1 -maxdepth 1 | wc -l)" 0 "the throwaway root is gone with its namespace"
