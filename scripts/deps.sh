#!/bin/bash
# Install the Debian 12 packages that building and testing rtltune need, if any is missing.
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
pkgs=(
	make gcc clang llvm pkg-config          # build; clang compiles the BPF programs
	libbpf-dev bpftool libelf-dev zlib1g-dev # CO-RE loader and skeleton generator
	libnl-3-dev libnl-route-3-dev libnl-genl-3-dev # rtnetlink
	libjson-c-dev libinih-dev libsystemd-dev libmicrohttpd-dev # JSON, INI, sd_notify, HTTP
	libcmocka-dev cppcheck clang-format     # unit tests, lint, format
	iproute2 ethtool iperf3 procps util-linux kmod bc strace # tests: netns, veth, traffic
	prometheus wrk jq python3 iputils-ping  # promtool, /metrics load, test helpers, ping
	systemd                                 # systemd-analyze verify
	debhelper dpkg-dev build-essential lintian adduser # build-deb.sh, install_deb test
	man-db groff-base                       # man --warnings in tests/integration/docs_man.sh
	valgrind libclang-rt-14-dev             # make check: valgrind CLI runs; libFuzzer, ASan, UBSan
	libxml2-utils librsvg2-bin              # xmllint and rsvg-convert: every chart rtltune draws is checked
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root (sudo make deps)" >&2
	exit 2
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
