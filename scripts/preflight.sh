#!/bin/bash
# Can this machine run what needs privileges: the demo and the integration tests? They need
# root, network namespaces with veth links, and BPF (CO-RE probes: kernel BTF, CAP_BPF and
# CAP_PERFMON or CAP_SYS_ADMIN, in the initial user namespace).
#   scripts/preflight.sh [--bpf-try PATH]
# Exit 0, printing nothing, when everything is there. Otherwise exit 1 and print one line
# saying what is missing and what refused it, to go after "demo: " or a skipped test's name.
# With --bpf-try, the built tests/tools/bpf_try, BPF is also tried for real: a tracing
# program of its own, the smallest that asks what the probes ask, is loaded, attached and
# detached, which catches what the capability bits do not show (a seccomp filter, lockdown,
# a kernel without the hooks). Never the product itself: a broken rtltune must fail the
# tests, not pass for a system that refuses BPF.
set -u
bpf_try=
case ${1:-} in
--bpf-try) bpf_try=${2:?preflight: --bpf-try needs a path} ;;
'') ;;
*) echo "usage: scripts/preflight.sh [--bpf-try PATH]" >&2; exit 2 ;;
esac
[ -z "$bpf_try" ] || [ -x "$bpf_try" ] ||
	{ echo "preflight: $bpf_try is not an executable (make check builds it)" >&2; exit 2; }

if [ "$(id -u)" -ne 0 ]; then
	echo "needs root (network namespaces, veth links, BPF)"
	exit 1
fi

# Capabilities by number (linux/capability.h): root in a container often lacks some.
CAP_NET_ADMIN=12 CAP_SYS_ADMIN=21 CAP_PERFMON=38 CAP_BPF=39
cap_eff=0
while read -r key value; do
	[ "$key" = CapEff: ] && cap_eff=$value
done </proc/self/status
has_cap() { (((0x$cap_eff >> $1) & 1)); }
last_line() { printf '%s\n' "$1" | sed -n '$p'; }
and_list() { # A B C -> "A, B and C"
	local out=$1
	shift
	while [ $# -gt 1 ]; do out="$out, $1"; shift; done
	echo "$out${1:+ and $1}"
}

refused=()

netns_refusal() {
	local ns=rtltune-preflight-$$ out lacks=() note=
	has_cap $CAP_SYS_ADMIN || lacks+=(CAP_SYS_ADMIN)
	has_cap $CAP_NET_ADMIN || lacks+=(CAP_NET_ADMIN)
	[ ${#lacks[@]} -eq 0 ] || note="; this process lacks $(and_list "${lacks[@]}")"
	command -v ip >/dev/null || { echo "ip not installed (iproute2)"; return; }
	if ! out=$(ip netns add "$ns" 2>&1); then
		# A failed add can leave its mount point behind (in a user namespace, say).
		ip netns del "$ns" >/dev/null 2>&1
		echo "ip netns add: $(last_line "$out")$note"
		return
	fi
	# `ip netns exec` remounts /sys for the namespace; the veth driver may be a module.
	out=$(ip netns exec "$ns" ip link add pf0 type veth peer name pf1 2>&1) ||
		echo "a veth pair in a namespace: $(last_line "$out")$note"
	ip netns del "$ns" 2>/dev/null
}
why=$(netns_refusal)
[ -z "$why" ] || refused+=("network namespaces ($why)")

bpf_refusal() {
	local uid_inside uid_outside count out rc lacks=()
	[ -r /sys/kernel/btf/vmlinux ] || {
		echo "no kernel BTF at /sys/kernel/btf/vmlinux: the CO-RE probes need CONFIG_DEBUG_INFO_BTF"
		return
	}
	read -r uid_inside uid_outside count </proc/self/uid_map
	if [ "$uid_inside $uid_outside $count" != "0 0 4294967295" ]; then
		echo "this is a user namespace: BPF needs CAP_BPF in the initial one"
		return
	fi
	if ! has_cap $CAP_SYS_ADMIN && ! { has_cap $CAP_BPF && has_cap $CAP_PERFMON; }; then
		has_cap $CAP_BPF || lacks+=(CAP_BPF)
		has_cap $CAP_PERFMON || lacks+=(CAP_PERFMON)
		echo "needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN; this process lacks" \
			"$(and_list "${lacks[@]}" CAP_SYS_ADMIN)"
		return
	fi
	[ -n "$bpf_try" ] || return
	out=$(timeout 20 "$bpf_try" 2>&1 >/dev/null) && return
	rc=$?
	out=$(last_line "$out")
	echo "${out:-$bpf_try failed (exit $rc)}"
}
why=$(bpf_refusal)
[ -z "$why" ] || refused+=("BPF ($why)")

[ ${#refused[@]} -eq 0 ] && exit 0
if [ ${#refused[@]} -eq 2 ]; then
	echo "this system refuses ${refused[0]} and ${refused[1]}"
else
	echo "this system refuses ${refused[0]}"
fi
exit 1
