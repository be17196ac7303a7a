#!/bin/bash
# The Debian 12 packages that building, the demo and the tests need: the one list of them.
#   scripts/deps.sh [GROUP]            install (apt-get, as root) what GROUP needs and is missing
#   scripts/deps.sh --missing [GROUP]  print the missing ones, one a line; install nothing
#   scripts/deps.sh --list [GROUP]     print all of GROUP's packages, one a line (README.md's
#                                      counts and dependency table are checked against it)
# GROUP: build (make builds build/rtltune and build/rtltuned), demo (build and what
# scripts/demo.sh runs), all (the default: everything `make check`, lint and the package need),
# bench (all, and what `make bench` adds).
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
build=(
	make gcc libc6-dev clang llvm pkg-config # build; clang compiles the BPF programs
	libbpf-dev bpftool libelf-dev zlib1g-dev # CO-RE loader and skeleton generator
	libnl-3-dev libnl-route-3-dev libnl-genl-3-dev # rtnetlink
	libjson-c-dev libinih-dev libmicrohttpd-dev # JSON, INI, HTTP
)
demo=(
	iproute2 procps iperf3 jq python3       # netns and veth, sysctl, traffic, JSON, /metrics
)
tests=(
	libcmocka-dev cppcheck clang-format     # unit tests, lint, format
	ethtool util-linux kmod bc strace       # tests: independent read-back, setpriv, timing
	prometheus wrk iputils-ping             # promtool, /metrics load, ping
	systemd systemd-container debootstrap   # systemd-analyze; the boot test: systemd-nspawn, its root
	debhelper dpkg-dev build-essential lintian adduser # build-deb.sh, install_deb test
	man-db groff-base                       # man --warnings in tests/integration/docs_man.sh
	valgrind libclang-rt-14-dev             # make check: valgrind CLI runs; libFuzzer, ASan, UBSan
	libxml2-utils librsvg2-bin              # xmllint and rsvg-convert: every chart rtltune draws is checked
	curl                                    # README's metrics sample, run by docs_readme_samples
)
bench=(
	linux-perf                              # make bench: the probes' share of the busy CPU
)
usage() { echo "usage: scripts/deps.sh [--missing|--list] [build|demo|all|bench]" >&2; exit 2; }
list_only= list_all=
[ "${1:-}" = --missing ] && { list_only=1; shift; }
[ "${1:-}" = --list ] && { list_all=1; shift; }
case ${1:-all} in
build) pkgs=("${build[@]}") ;;
demo) pkgs=("${build[@]}" "${demo[@]}") ;;
all) pkgs=("${build[@]}" "${demo[@]}" "${tests[@]}") ;;
bench) pkgs=("${build[@]}" "${demo[@]}" "${tests[@]}" "${bench[@]}") ;;
*) usage ;;
esac
[ $# -le 1 ] || usage
if [ -n "$list_all" ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi
command -v dpkg-query >/dev/null || {
	echo "deps: no dpkg-query: this list is of Debian 12 packages (see README.md, Dependencies)" >&2
	exit 2
}
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ -n "$list_only" ]; then
	[ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"
	exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root (sudo make deps)" >&2
	exit 2
fi
command -v apt-get >/dev/null || { echo "deps: no apt-get to install ${missing[*]}" >&2; exit 2; }
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh system has no package lists yet; an old list names versions the mirror has dropped.
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
