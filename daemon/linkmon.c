// SPDX-License-Identifier: GPL-2.0-only
/* rtnetlink link events and dumps, reported to the interface table (iface.h). */
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

#include "iface.h"
#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "rtltune/link.h"

/* Generous: 200 veth pairs created in a burst must not overrun it. */
#define LINKMON_RCVBUF (4 * 1024 * 1024)

static struct nl_sock *sk;
static struct ev_io nl_io;
static bool dumping;
static void (*dump_done)(int err);
static uint64_t dumps;

uint64_t linkmon_dumps(void)
{
	return dumps;
}

/* IFLA_STATS64 (lib/netdev/link.c reads it), as the daemon keeps it. */
static bool link_stats(struct nlmsghdr *nlh, struct link_counters *out)
{
	struct rtnl_link_stats64 s;

	if (!link_stats_from_msg(nlh, nlh->nlmsg_len, &s))
		return false;
	linkmon_counters_from(&s, out);
	return true;
}

void linkmon_counters_from(const struct rtnl_link_stats64 *s, struct link_counters *out)
{
	*out = (struct link_counters){
		.rx_packets = s->rx_packets,
		.tx_packets = s->tx_packets,
		.rx_bytes = s->rx_bytes,
		.tx_bytes = s->tx_bytes,
		.rx_dropped = s->rx_dropped,
		.tx_dropped = s->tx_dropped,
		.rx_errors = s->rx_errors,
		.tx_errors = s->tx_errors,
	};
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct link_counters st;
	struct link_info li;

	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (nlmsg_datalen(nlh) >= (int)sizeof(struct ifinfomsg))
			iface_link_removed(((struct ifinfomsg *)nlmsg_data(nlh))->ifi_index,
					   "removed");
		return NL_OK;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK || link_info_from_msg(nlh, nlh->nlmsg_len, &li) < 0)
		return NL_OK;
	/* A multicast notification, not a reply to our dump. */
	iface_link_seen(&li, !(nlh->nlmsg_flags & NLM_F_MULTI), link_stats(nlh, &st) ? &st : NULL);
	return NL_OK;
}

static void dump_finished(int err)
{
	void (*done)(int) = dump_done;

	dumping = false;
	dump_done = NULL;
	if (!err)
		iface_sync_end();
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
	iface_sync_begin();
	r = nl_rtgen_request(sk, RTM_GETLINK, AF_UNSPEC, NLM_F_DUMP);
	if (r < 0)
		return -EIO;
	dumping = true;
	dump_done = done;
	dumps++;
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
