// SPDX-License-Identifier: GPL-2.0-only
/* rtnetlink link events and dumps into the interface table. */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/rtnl.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "rtltune/link.h"
#include "rtltuned.h"

/* <linux/if.h> has it but clashes with <net/if.h>; the value is kernel ABI. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1U << 16)
#endif

/* Generous: 200 veth pairs created in a burst must not overrun it. */
#define LINKMON_RCVBUF (4 * 1024 * 1024)

static struct nl_sock *sk;
static struct ev_io nl_io;
static bool dumping;
static uint32_t dump_gen;
static void (*dump_done)(int err);

struct link_msg {
	int ifindex;
	unsigned int flags;
	char name[IF_NAMESIZE];
	char kind[32];
	char operstate[16];
	bool event; /* a multicast notification, not a reply to our dump */
	bool have_stats;
	struct link_counters st;
};

/* Identity through lib/link.c's parser (the one `rtltune show` uses); the counters, which
 * only the daemon wants, here. */
static int link_msg_parse(struct nlmsghdr *nlh, struct link_msg *m)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct ifinfomsg *ifi;
	struct link_info li;

	if (nlmsg_datalen(nlh) < (int)sizeof(*ifi))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	ifi = nlmsg_data(nlh);
	m->ifindex = ifi->ifi_index;
	m->flags = ifi->ifi_flags;
	m->event = !(nlh->nlmsg_flags & NLM_F_MULTI);
	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (link_info_from_msg(nlh, nlh->nlmsg_len, &li) < 0)
		return -EINVAL;
	snprintf(m->name, sizeof(m->name), "%s", li.ifname);
	snprintf(m->kind, sizeof(m->kind), "%s", li.kind);
	snprintf(m->operstate, sizeof(m->operstate), "%s",
		 li.operstate[0] ? li.operstate : "unknown");
	if (nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) == 0 && tb[IFLA_STATS64] &&
	    nla_len(tb[IFLA_STATS64]) >= (int)sizeof(struct rtnl_link_stats64)) {
		struct rtnl_link_stats64 s;

		memcpy(&s, nla_data(tb[IFLA_STATS64]), sizeof(s));
		m->st = (struct link_counters){
			.rx_packets = s.rx_packets,
			.tx_packets = s.tx_packets,
			.rx_bytes = s.rx_bytes,
			.tx_bytes = s.tx_bytes,
			.rx_dropped = s.rx_dropped,
			.tx_dropped = s.tx_dropped,
			.rx_errors = s.rx_errors,
			.tx_errors = s.tx_errors,
		};
		m->have_stats = true;
	}
	return 0;
}

static void link_new(const struct link_msg *m)
{
	struct iface *ifc = calloc(1, sizeof(*ifc));
	int k;

	if (!ifc) {
		dlog(LOG_ERR, m->name, "out of memory tracking a new interface");
		return;
	}
	ifc->ifindex = m->ifindex;
	snprintf(ifc->name, sizeof(ifc->name), "%s", m->name);
	snprintf(ifc->kind, sizeof(ifc->kind), "%s", m->kind);
	ifc->flags = m->flags;
	ifc->lower_up = m->flags & IFF_LOWER_UP;
	snprintf(ifc->operstate, sizeof(ifc->operstate), "%s", m->operstate);
	ifc->first_seen_us = now_us();
	ifc->autotune = rtd.cfg.autotune;
	for (k = 0; k < KNOB__COUNT; k++)
		ifc->knob[k] = LINK_UNSET;
	ifc->next = rtd.ifaces;
	rtd.ifaces = ifc;
	rtd.n_ifaces++;
	rtd.generation++;

	iface_refresh(ifc);
	iface_select(ifc);
	bpf_track(ifc);
	tune_track(ifc);
	dlog(LOG_INFO, ifc->name, "new interface (ifindex %d%s%s%s%s), %s", ifc->ifindex,
	     ifc->kind[0] ? ", " : "", ifc->kind, ifc->driver[0] ? ", driver " : "", ifc->driver,
	     ifc->managed ? "managed" : ifc->why);
	if (ifc->managed)
		iface_schedule_apply(ifc, 0);
}

static void link_update(struct iface *ifc, const struct link_msg *m)
{
	bool lower_up = m->flags & IFF_LOWER_UP;

	if (m->name[0] && strcmp(m->name, ifc->name) != 0) {
		bool was = ifc->managed;

		dlog(LOG_INFO, m->name, "renamed from %s", ifc->name);
		snprintf(ifc->name, sizeof(ifc->name), "%s", m->name);
		rtd.generation++;
		iface_select(ifc);
		bpf_track(ifc);
		tune_rename(ifc);
		tune_track(ifc);
		if (ifc->managed && !was)
			iface_schedule_apply(ifc, 0);
		else if (was && !ifc->managed)
			dlog(LOG_INFO, ifc->name,
			     "no longer managed: %s (settings left as they are)", ifc->why);
	}
	if (lower_up != ifc->lower_up) {
		uint64_t now = now_us();

		ifc->carrier_changes++;
		/* Two transitions within 10 s read as flapping: say so, once per burst. */
		if (ifc->carrier_changes > 1 && now - ifc->last_carrier_us < 10000000)
			dlog(LOG_NOTICE, ifc->name, "link flapping: carrier %s (%u changes)",
			     lower_up ? "up" : "down", ifc->carrier_changes);
		else
			dlog(LOG_INFO, ifc->name, "carrier %s", lower_up ? "up" : "down");
		ifc->last_carrier_us = now;
		ifc->lower_up = lower_up;
	}
	if (strcmp(ifc->operstate, m->operstate) != 0) {
		snprintf(ifc->operstate, sizeof(ifc->operstate), "%s", m->operstate);
		rtd.generation++;
	}
	ifc->flags = m->flags;
	/* Only a notification can mean a knob changed (set by us, ip, ethtool, the driver:
	 * a feature change is announced with RTM_NEWLINK too). The sampler's own dump
	 * replies must not trigger a re-read of every interface every second. */
	if (m->event)
		ifc->knob_dirty = true;
}

static void link_gone(struct iface *ifc, const char *how)
{
	dlog(LOG_INFO, ifc->name, "interface %s (ifindex %d)", how, ifc->ifindex);
	iface_forget(ifc);
	iface_remove(ifc);
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct iface *ifc;
	struct link_msg m;

	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return NL_OK;
	if (link_msg_parse(nlh, &m) < 0)
		return NL_OK;
	ifc = iface_by_index(m.ifindex);
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (ifc)
			link_gone(ifc, "removed");
		return NL_OK;
	}
	if (!ifc) {
		link_new(&m);
		ifc = iface_by_index(m.ifindex);
		if (!ifc)
			return NL_OK;
	} else {
		link_update(ifc, &m);
	}
	ifc->seen_dump = dump_gen;
	if (m.have_stats) {
		ifc->stats.link = m.st;
		ifc->stats.have_link = true;
	}
	return NL_OK;
}

static void dump_finished(int err)
{
	void (*done)(int) = dump_done;
	struct iface *ifc, *next;

	dumping = false;
	dump_done = NULL;
	if (!err) {
		for (ifc = rtd.ifaces; ifc; ifc = next) {
			next = ifc->next;
			if (ifc->seen_dump != dump_gen)
				link_gone(ifc, "vanished (missed event)");
		}
	}
	if (done)
		done(err);
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	if (dumping)
		dump_finished(0);
	return NL_OK;
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	if (dumping) {
		dlog(LOG_WARNING, NULL, "link dump failed: %s", strerror(-e->error));
		dump_finished(e->error ? e->error : -EIO);
	}
	return NL_SKIP;
}

int linkmon_dump(void (*done)(int err))
{
	int r;

	if (dumping)
		return -EBUSY;
	dump_gen++;
	r = nl_rtgen_request(sk, RTM_GETLINK, AF_UNSPEC, NLM_F_DUMP);
	if (r < 0)
		return -EIO;
	dumping = true;
	dump_done = done;
	return 0;
}

static void nl_ready(struct ev_io *io, uint32_t events)
{
	int r = nl_recvmsgs_default(sk);

	if (r == -NLE_NOMEM || r == -NLE_DUMP_INTR) {
		/* ENOBUFS (events lost) or a dump the kernel marked inconsistent: the table
		 * may be wrong, so the next dump's sweep must run from a clean start. */
		dlog(LOG_WARNING, NULL, "link events lost (%s): resynchronizing", nl_geterror(r));
		if (dumping)
			dump_finished(-EAGAIN);
		linkmon_dump(NULL);
	}
}

int linkmon_start(void)
{
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	nl_socket_disable_seq_check(sk);
	nl_socket_disable_auto_ack(sk);
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		goto fail;
	nl_socket_set_buffer_size(sk, LINKMON_RCVBUF, 0);
	r = nl_socket_add_membership(sk, RTNLGRP_LINK);
	if (r < 0)
		goto fail;
	nl_socket_set_nonblocking(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, NULL);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, error_cb, NULL);
	nl_io.fd = nl_socket_get_fd(sk);
	nl_io.cb = nl_ready;
	r = loop_add(&nl_io, EPOLLIN);
	if (r < 0) {
		nl_socket_free(sk);
		sk = NULL;
		return r;
	}
	return 0;
fail:
	nl_socket_free(sk);
	sk = NULL;
	return -EIO;
}

void linkmon_stop(void)
{
	if (!sk)
		return;
	loop_del(&nl_io);
	nl_socket_free(sk);
	sk = NULL;
}
