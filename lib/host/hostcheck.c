// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this host offers rtltune (include/rtltune/hostcheck.h): every answer comes from
 * asking the kernel something that changes nothing (capget, a genl controller query, an
 * RTM_GETLINK of lo, XFRM_MSG_GETDEFAULT, BTF and tracefs lookups) or, for the probes'
 * hooks, from a program that does nothing, attached for the time of two system calls.
 * A feature the kernel cannot be asked about is judged by its release.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rtltune/genl_family.h"
#include "rtltune/hostcheck.h"
#include "rtltune/link.h"
#include "rtltune/route.h"

static const struct hc_cap_need cap_needs[HC_CAP__COUNT] = {
	[HC_CAP_BPF] = {HC_CAP_BPF, "CAP_BPF", CAP_BPF, HC_CAP_SYS_ADMIN, true,
			"load the probes (BPF programs and maps)"},
	[HC_CAP_PERFMON] = {HC_CAP_PERFMON, "CAP_PERFMON", CAP_PERFMON, HC_CAP_SYS_ADMIN, true,
			    "attach them to tracepoints (tp_btf, raw_tp)"},
	[HC_CAP_NET_ADMIN] = {HC_CAP_NET_ADMIN, "CAP_NET_ADMIN", CAP_NET_ADMIN, HC_CAP__COUNT, true,
			      "change NIC settings (apply, restore, the tuner), invalidate routes"},
	[HC_CAP_SYS_ADMIN] = {HC_CAP_SYS_ADMIN, "CAP_SYS_ADMIN", CAP_SYS_ADMIN, HC_CAP__COUNT,
			      false,
			      "the probes' run-time cost (BPF_ENABLE_STATS): "
			      "rtltune_probe_run_seconds_total"},
	[HC_CAP_CHOWN] = {HC_CAP_CHOWN, "CAP_CHOWN", CAP_CHOWN, HC_CAP__COUNT, false,
			  "give the control socket to socket_group"},
};

const struct hc_cap_need *hc_cap_need(enum hc_cap cap)
{
	return (unsigned int)cap < HC_CAP__COUNT ? &cap_needs[cap] : NULL;
}

int hostcheck_caps(struct hc_caps *out, struct rterr *err)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (syscall(SYS_capget, &h, d) < 0)
		return rterr_sys(err, errno, "capget");
	for (i = 0; i < HC_CAP__COUNT; i++) {
		int n = cap_needs[i].number;

		out->have[i] = d[n / 32].effective & (1u << (n % 32));
	}
	return 0;
}

bool hc_cap_missing(const struct hc_caps *caps, enum hc_cap cap)
{
	enum hc_cap alt = cap_needs[cap].instead;

	return !caps->have[cap] && (alt == HC_CAP__COUNT || !caps->have[alt]);
}

/* ---- kernel features ---------------------------------------------------------------- */

static const struct hc_feature feature_rows[HC_F__COUNT] = {
	[HC_F_BTF] = {"btf", "kernel BTF (/sys/kernel/btf/vmlinux)", 5, 4,
		      "kernel/bpf/sysfs_btf.c (CONFIG_DEBUG_INFO_BTF)",
		      "no probes: rtltuned counts packets and bytes from link counters (no "
		      "histograms), rtltune trace refuses"},
	[HC_F_RAW_TP] = {"raw_tp", "raw tracepoint programs (raw_tp)", 4, 17,
			 "kernel/bpf/syscall.c: bpf_raw_tracepoint_open()",
			 "tp_btf only; with neither, no probes"},
	[HC_F_TP_BTF] = {"tp_btf", "BTF-typed tracepoint programs (tp_btf)", 5, 5,
			 "kernel/bpf/verifier.c: BPF_TRACE_RAW_TP in bpf_check_attach_target()",
			 "the probes attach as raw_tp: the same counts"},
	[HC_F_CAP_BPF] = {"cap_bpf", "CAP_BPF and CAP_PERFMON", 5, 8,
			  "include/uapi/linux/capability.h: CAP_PERFMON 38, CAP_BPF 39",
			  "the probes need CAP_SYS_ADMIN"},
	[HC_F_BPF_STATS] = {"bpf_stats", "BPF run-time stats on demand (BPF_ENABLE_STATS)", 5, 8,
			    "kernel/bpf/syscall.c: bpf_enable_stats()",
			    "the probes' run time only with sysctl kernel.bpf_stats_enabled=1"},
	[HC_F_BPF_MEMCG] = {"bpf_memcg", "BPF memory charged to the memory cgroup", 5, 11,
			    "kernel/bpf/syscall.c: bpf_map_area_alloc() without "
			    "RLIMIT_MEMLOCK charging",
			    "the probes' maps count against RLIMIT_MEMLOCK: raising it needs "
			    "CAP_SYS_RESOURCE"},
	[HC_F_DROP_REASON] = {"drop_reason", "kfree_skb's reason argument", 5, 17,
			      "include/trace/events/skb.h: TRACE_EVENT(kfree_skb)",
			      "drops count under reason 0 (NOT_SPECIFIED)"},
	[HC_F_RETRANSMIT_ERR] = {"retransmit_err", "tcp_retransmit_skb's err argument", 6, 13,
				 "include/trace/events/tcp.h: TRACE_EVENT(tcp_retransmit_skb)",
				 "the tracepoint fires for sent retransmits only, counted as they "
				 "come"},
	[HC_F_ETHTOOL_NETLINK] = {"ethtool_netlink", "the ethtool generic netlink family", 5, 6,
				  "net/ethtool/netlink.c (genl family \"ethtool\")",
				  "offload features through the SIOCETHTOOL ioctl"},
	[HC_F_ETHTOOL_GROUPS] = {"ethtool_groups",
				 "ethtool netlink rings, coalescing, channels and pause", 5, 7,
				 "net/ethtool/rings.c, coalesce.c, channels.c, pause.c",
				 "those groups through the SIOCETHTOOL ioctl"},
	[HC_F_ROUTE_XFRM] = {"route_invalidation", "route invalidation by XFRM_MSG_SETDEFAULT", 5,
			     16, "net/xfrm/xfrm_user.c: xfrm_set_default() -> rt_genid_bump_all()",
			     "a NOP policy rule added and deleted per family (the netns stays in "
			     "custom-rules mode)"},
	[HC_F_GRO_MAX_SIZE] = {"gro_max_size", "gro_max_size (IFLA_GRO_MAX_SIZE)", 5, 17,
			       "net/core/rtnetlink.c; commit eac1b93c14d6",
			       "gro_max_size shows null and a profile's value is skipped"},
	[HC_F_BIG_TCP_IPV6] =
		{"big_tcp_ipv6", "BIG TCP: gso/gro_max_size above 65536, tso_max_size reported", 5,
		 19, "net/core/rtnetlink.c: IFLA_TSO_MAX_SIZE; commit 0fe79f28bfaf",
		 "max for gso_max_size and gro_max_size resolves to 65536: the kernel "
		 "refuses more"},
	[HC_F_BIG_TCP_IPV4] =
		{"big_tcp_ipv4", "IPv4 BIG TCP: gso_ipv4_max_size, gro_ipv4_max_size", 6, 3,
		 "net/core/rtnetlink.c: IFLA_GSO_IPV4_MAX_SIZE",
		 "the IPv4 sizes show null and are skipped: IPv4 skbs stay at 64 KiB"},
	[HC_F_NETDEV_FAMILY] = {"netdev_netlink", "the netdev generic netlink family", 6, 3,
				"net/core/netdev-genl.c; commit d3d854fd6a1d",
				"no per-NAPI or per-queue reads over netlink: sysfs serves"},
	[HC_F_NAPI_SET] = {"napi_set", "per-NAPI settings (netdev napi-set)", 6, 13,
			   "net/core/netdev-genl.c: netdev_nl_napi_set_doit()",
			   "NAPI settings per device through sysfs, not per NAPI"},
};

const char *hc_state_name(enum hc_state s)
{
	return s == HC_YES ? "yes" : "no";
}

static bool release_at_least(const struct hostcheck *hc, const struct hc_feature *f)
{
	return hc->major > f->major || (hc->major == f->major && hc->minor >= f->minor);
}

/* Judged by the release alone: the kernel cannot be asked, or the asking was refused. */
static void by_release(const struct hostcheck *hc, struct hc_feature *f, const char *why)
{
	bool yes = release_at_least(hc, f);

	f->state = yes ? HC_YES : HC_NO;
	snprintf(f->how, sizeof(f->how), "%s%s%d.%d %s %d.%d", why ? why : "",
		 why ? "; by release: " : "by release: ", hc->major, hc->minor, yes ? ">=" : "<",
		 f->major, f->minor);
}

static void asked(struct hc_feature *f, bool yes, const char *how)
{
	f->state = yes ? HC_YES : HC_NO;
	snprintf(f->how, sizeof(f->how), "%s", how);
}

/* A tracepoint program type: tried for real; refused for want of privilege says nothing
 * of the kernel, so the release decides then. */
static void hook_feature(const struct hostcheck *hc, struct hc_feature *f, int i)
{
	char why[160];

	if (hc->hook_err[i] == 0) {
		asked(f, true, "a no-op program loaded and attached");
	} else if (hc->hook_err[i] == -EPERM || hc->hook_err[i] == -EACCES) {
		snprintf(why, sizeof(why), "not permitted to try (%s)", strerror(-hc->hook_err[i]));
		by_release(hc, f, why);
	} else {
		asked(f, false, hc->hook_msg[i]);
	}
}

static void features(struct hostcheck *hc, const struct link_info *lo, bool have_lo)
{
	struct hc_feature *f = hc->features;
	const struct probe_support *kfree = &hc->probes[PROBE_KFREE_SKB];
	const struct probe_support *retr = &hc->probes[PROBE_TCP_RETRANSMIT_SKB];
	unsigned int i;

	memcpy(f, feature_rows, sizeof(feature_rows));
	asked(&f[HC_F_BTF], hc->btf,
	      hc->btf ? "/sys/kernel/btf/vmlinux is readable" : "no /sys/kernel/btf/vmlinux");
	hook_feature(hc, &f[HC_F_TP_BTF], 0);
	hook_feature(hc, &f[HC_F_RAW_TP], 1);
	by_release(hc, &f[HC_F_CAP_BPF], NULL);
	by_release(hc, &f[HC_F_BPF_STATS], NULL);
	by_release(hc, &f[HC_F_BPF_MEMCG], NULL);
	if (kfree->btf || kfree->tracefs == 1)
		asked(&f[HC_F_DROP_REASON], kfree->has_arg,
		      kfree->btf ? "kfree_skb's arguments in kernel BTF"
				 : "kfree_skb's format in tracefs");
	else
		by_release(hc, &f[HC_F_DROP_REASON], "no kfree_skb in BTF or tracefs");
	if (retr->btf || retr->tracefs == 1)
		asked(&f[HC_F_RETRANSMIT_ERR], retr->has_arg,
		      retr->btf ? "tcp_retransmit_skb's arguments in kernel BTF"
				: "tcp_retransmit_skb's format in tracefs");
	else
		by_release(hc, &f[HC_F_RETRANSMIT_ERR], "no tcp_retransmit_skb in BTF or tracefs");
	if (hc->ethtool_error[0]) {
		by_release(hc, &f[HC_F_ETHTOOL_NETLINK], hc->ethtool_error);
		by_release(hc, &f[HC_F_ETHTOOL_GROUPS], hc->ethtool_error);
	} else {
		asked(&f[HC_F_ETHTOOL_NETLINK], hc->ethtool.present,
		      hc->ethtool.present ? "the genl family \"ethtool\" resolves"
					  : "no genl family \"ethtool\"");
		asked(&f[HC_F_ETHTOOL_GROUPS],
		      genl_family_has_op(&hc->ethtool, ETHTOOL_MSG_RINGS_GET) &&
			      genl_family_has_op(&hc->ethtool, ETHTOOL_MSG_PAUSE_GET),
		      "the family's command list (RINGS_GET .. PAUSE_GET)");
	}
	if (hc->route_method == ROUTE_BY_UNKNOWN)
		by_release(hc, &f[HC_F_ROUTE_XFRM], hc->route_how);
	else
		asked(&f[HC_F_ROUTE_XFRM], hc->route_method == ROUTE_BY_XFRM, hc->route_how);
	if (have_lo) {
		asked(&f[HC_F_GRO_MAX_SIZE], lo->knob[KNOB_GRO_MAX_SIZE] != LINK_UNSET,
		      "lo's RTM_GETLINK carries IFLA_GRO_MAX_SIZE or not");
		/* The kernel reports tso_max_size from the release that allows sizes above 64K
		 * on (lib/plan/chipdb.c reads it the same way). */
		asked(&f[HC_F_BIG_TCP_IPV6], lo->tso_max_size != LINK_UNSET,
		      "lo's RTM_GETLINK carries IFLA_TSO_MAX_SIZE or not");
		asked(&f[HC_F_BIG_TCP_IPV4], lo->knob[KNOB_GSO_IPV4_MAX_SIZE] != LINK_UNSET,
		      "lo's RTM_GETLINK carries IFLA_GSO_IPV4_MAX_SIZE or not");
	} else {
		by_release(hc, &f[HC_F_GRO_MAX_SIZE], "lo could not be read");
		by_release(hc, &f[HC_F_BIG_TCP_IPV6], "lo could not be read");
		by_release(hc, &f[HC_F_BIG_TCP_IPV4], "lo could not be read");
	}
	if (hc->netdev_error[0]) {
		by_release(hc, &f[HC_F_NETDEV_FAMILY], hc->netdev_error);
		by_release(hc, &f[HC_F_NAPI_SET], hc->netdev_error);
	} else {
		asked(&f[HC_F_NETDEV_FAMILY], hc->netdev.present,
		      hc->netdev.present ? "the genl family \"netdev\" resolves"
					 : "no genl family \"netdev\"");
		asked(&f[HC_F_NAPI_SET], genl_family_has_op(&hc->netdev, NETDEV_CMD_NAPI_SET_ID),
		      "the family's command list (napi-set)");
	}
	for (i = 0; i < HC_F__COUNT; i++)
		if (!f[i].how[0])
			by_release(hc, &f[i], NULL);
}

void hostcheck_run(struct hostcheck *hc)
{
	static const enum probe_hook hooks[2] = {PROBE_HOOK_TP_BTF, PROBE_HOOK_RAW_TP};
	struct link_info lo;
	struct utsname u;
	struct rterr e;
	unsigned int i;
	bool have_lo;

	memset(hc, 0, sizeof(*hc));
	if (uname(&u) == 0) {
		snprintf(hc->release, sizeof(hc->release), "%s", u.release);
		sscanf(u.release, "%d.%d", &hc->major, &hc->minor);
	}
	hc->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	rterr_clear(&e);
	if (hostcheck_caps(&hc->caps, &e) < 0)
		snprintf(hc->caps_error, sizeof(hc->caps_error), "%s", e.msg);
	for (i = 0; i < 2; i++) {
		rterr_clear(&e);
		hc->hook_err[i] = probes_try_hook(hooks[i], "net_dev_start_xmit", &e);
		snprintf(hc->hook_msg[i], sizeof(hc->hook_msg[i]), "%s%s",
			 hc->hook_err[i] ? e.msg : "",
			 hc->hook_err[i] == -EPERM
				 ? " (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)"
				 : "");
	}
	rterr_clear(&e);
	if (probes_support(hc->probes, &e) < 0)
		snprintf(hc->probes_error, sizeof(hc->probes_error), "%s", e.msg);
	rterr_clear(&e);
	if (genl_family_probe("ethtool", &hc->ethtool, &e) < 0)
		snprintf(hc->ethtool_error, sizeof(hc->ethtool_error), "%s", e.msg);
	rterr_clear(&e);
	if (genl_family_probe("netdev", &hc->netdev, &e) < 0)
		snprintf(hc->netdev_error, sizeof(hc->netdev_error), "%s", e.msg);
	hc->route_method = route_invalidation_method(hc->route_how, sizeof(hc->route_how));
	rterr_clear(&e);
	have_lo = link_get(NULL, "lo", &lo, &e) == 0;
	features(hc, &lo, have_lo);
}

/* One more line of what is missing, cut to HC_MISSING_LEN. */
static void add(char (*lines)[HC_MISSING_LEN], unsigned int *n, const char *fmt, const char *a,
		const char *b)
{
	if (*n < HC_MISSING_MAX)
		snprintf(lines[(*n)++], HC_MISSING_LEN, fmt, a, b);
}

unsigned int hostcheck_missing(const struct hostcheck *hc, char (*lines)[HC_MISSING_LEN])
{
	unsigned int i, n = 0;

	for (i = 0; i < HC_CAP__COUNT; i++) {
		const struct hc_cap_need *need = &cap_needs[i];

		if (!need->required || !hc_cap_missing(&hc->caps, (enum hc_cap)i))
			continue;
		add(lines, &n,
		    need->instead != HC_CAP__COUNT ? "%s (or CAP_SYS_ADMIN): %s" : "%s: %s",
		    need->name, need->for_what);
	}
	if (!hc->btf)
		add(lines, &n, "%s%s", "kernel BTF (/sys/kernel/btf/vmlinux): a kernel built with ",
		    "CONFIG_DEBUG_INFO_BTF");
	if (hc->hook_err[0] && hc->hook_err[1]) {
		add(lines, &n, "%s%s", hc->hook_msg[0], "");
		add(lines, &n, "%s%s", hc->hook_msg[1], "");
	}
	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_support *s = &hc->probes[i];

		if (s->rtltuned && !s->btf && s->tracefs != 1)
			add(lines, &n, "tracepoint %s%s", s->name,
			    s->tracefs == -1 ? " (not in kernel BTF; tracefs not mounted)"
					     : " (not in kernel BTF or tracefs)");
	}
	return n;
}
