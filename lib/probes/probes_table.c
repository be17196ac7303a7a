// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes' table and the names of their hooks, at the bottom of lib/probes/: the loader
 * (probes.c) and the kernel checks (probes_check.c) both read them, and this file calls
 * neither.
 */
#include "probes_priv.h"

/* Tracepoint and program stem (rtl_<stem>_btf / rtl_<stem>_raw) of each probe. */
const struct probe_def probe_defs[PROBE_COUNT] = {
	[PROBE_NET_DEV_START_XMIT] = {"net_dev_start_xmit", "txstart"},
	[PROBE_NET_DEV_XMIT_TIMEOUT] = {"net_dev_xmit_timeout", "txtmo"},
	[PROBE_NETIF_RECEIVE_SKB] = {"netif_receive_skb", "rxskb"},
	[PROBE_NAPI_POLL] = {"napi_poll", "napi"},
	[PROBE_KFREE_SKB] = {"kfree_skb", "drop"},
	[PROBE_TCP_RETRANSMIT_SKB] = {"tcp_retransmit_skb", "retrans"},
	[PROBE_XDP] = {"xdp", NULL},
};

const char *probe_tracepoint(enum probe_id id)
{
	return (unsigned int)id < PROBE_COUNT ? probe_defs[id].tp : NULL;
}

const char *probe_hook_name(enum probe_hook hook)
{
	switch (hook) {
	case PROBE_HOOK_TP_BTF:
		return "tp_btf";
	case PROBE_HOOK_RAW_TP:
		return "raw_tp";
	case PROBE_HOOK_XDP_NATIVE:
		return "xdp";
	case PROBE_HOOK_XDP_GENERIC:
		return "xdpgeneric";
	case PROBE_HOOK_NONE:
		break;
	}
	return "none";
}
