// SPDX-License-Identifier: GPL-2.0-only
/*
 * Refused transmissions (probe_counters.tx_busy) from the kernel's own counters, instead of
 * a BPF program on every transmit: net_dev_xmit fires for every skb a driver is handed and
 * says "refused" (rc != 0) for almost none, and on a per-frame path its dispatch alone cost
 * as much as the probe that counts the frame (docs/probes.md "Cost").
 *
 * What the kernel counts: a driver that refuses an skb (NETDEV_TX_BUSY) makes the qdisc
 * requeue it, which the root qdisc counts in its requeues (mq sums its children). On a
 * device without a queue (noqueue: veth, tunnels) the core drops a refused skb instead, and
 * a driver that drops one itself (NET_XMIT_DROP: veth with its peer's ring full) counts it:
 * both are the device's tx_dropped. tx_busy is the sum of the two since the slot was
 * selected. A requeue also happens when the qdisc finds the queue stopped: back-pressure
 * from the driver as well, counted with the refusals.
 *
 * Per device one RTM_GETLINK and one RTM_GETQDISC (the root qdisc, not a dump), and only
 * when the probes saw the device transmit since the last reading: a device that sends
 * nothing refuses nothing, so idle interfaces cost no syscall. One rtnetlink socket per
 * network namespace, opened in it when its first interface is selected.
 */
#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "probes_priv.h"
#include "rtltune/link.h"

/* Replies are one message of a few hundred bytes (a veth link is ~1.5 KiB); a device
 * with many VFs sends more, and a truncated reply just leaves the counters unread. */
#define REPLY_BYTES 32768

static int netns_sock_get(struct probes *p, __u32 inum)
{
	static const struct timeval timeout = {.tv_sec = 1};
	struct netns_sock *ns;
	unsigned int i, free_slot = p->n_netns_socks;
	int fd;

	for (i = 0; i < p->n_netns_socks; i++) {
		if (p->netns_socks[i].inum == inum) {
			p->netns_socks[i].users++;
			return (int)i;
		}
		if (!p->netns_socks[i].inum && free_slot == p->n_netns_socks)
			free_slot = i;
	}
	/* Created here, in the caller's namespace: a socket stays in the one it began in. */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	/* The kernel answers at once; a reader must never hang on it. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	if (free_slot == p->n_netns_socks) {
		ns = reallocarray(p->netns_socks, p->n_netns_socks + 1, sizeof(*ns));
		if (!ns) {
			close(fd);
			return -ENOMEM;
		}
		p->netns_socks = ns;
		p->n_netns_socks++;
	}
	p->netns_socks[free_slot] = (struct netns_sock){.inum = inum, .fd = fd, .users = 1};
	return (int)free_slot;
}

/* The attribute of type type in the run after a fixed header of hdr bytes, or NULL. */
static const struct rtattr *find_attr(const void *data, size_t len, size_t hdr, unsigned short type)
{
	const struct rtattr *a;
	size_t left;

	if (len < NLMSG_ALIGN(hdr))
		return NULL;
	a = (const struct rtattr *)((const char *)data + NLMSG_ALIGN(hdr));
	left = len - NLMSG_ALIGN(hdr);
	for (; RTA_OK(a, left); a = RTA_NEXT(a, left))
		if ((a->rta_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static int read_tx_dropped(int fd, int ifindex, char *buf, __u64 *out)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = {.nlmsg_len = sizeof(req),
		      .nlmsg_type = RTM_GETLINK,
		      .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK},
		.i = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex},
	};
	struct rtnl_link_stats64 st = {0};
	const struct nlmsghdr *h;
	const struct rtattr *a;
	int ret;

	ret = rtnl_ask(fd, &req.h, RTM_NEWLINK, buf, REPLY_BYTES, &h);
	if (ret)
		return ret;
	a = find_attr(NLMSG_DATA(h), h->nlmsg_len - NLMSG_LENGTH(0), sizeof(struct ifinfomsg),
		      IFLA_STATS64);
	if (!a)
		return -ENODATA;
	memcpy(&st, RTA_DATA(a), RTA_PAYLOAD(a) < sizeof(st) ? RTA_PAYLOAD(a) : sizeof(st));
	*out = st.tx_dropped;
	return 0;
}

/* Requeues of the root qdisc; 0 when the device has none the kernel reports. */
static int read_requeues(int fd, int ifindex, char *buf, __u64 *out)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req = {
		.h = {.nlmsg_len = sizeof(req),
		      .nlmsg_type = RTM_GETQDISC,
		      .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK},
		.t = {.tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = TC_H_ROOT},
	};
	struct gnet_stats_queue q = {0};
	const struct nlmsghdr *h;
	const struct rtattr *a;
	int ret;

	*out = 0;
	ret = rtnl_ask(fd, &req.h, RTM_NEWQDISC, buf, REPLY_BYTES, &h);
	if (ret == -EINVAL || ret == -ENOENT)
		return 0; /* built-in noqueue root: nothing to requeue */
	if (ret)
		return ret;
	a = find_attr(NLMSG_DATA(h), h->nlmsg_len - NLMSG_LENGTH(0), sizeof(struct tcmsg),
		      TCA_STATS2);
	if (!a)
		return 0;
	a = find_attr(RTA_DATA(a), RTA_PAYLOAD(a), 0, TCA_STATS_QUEUE);
	if (!a)
		return 0;
	memcpy(&q, RTA_DATA(a), RTA_PAYLOAD(a) < sizeof(q) ? RTA_PAYLOAD(a) : sizeof(q));
	*out = q.requeues;
	return 0;
}

/* One reading: the refusals since the last one join busy. */
static void refusals_update(struct probes *p, struct probe_slot *s)
{
	struct kernel_refusals *r = &s->refusals;
	__u64 requeues, dropped;
	char *buf;
	int fd = p->netns_socks[r->sock].fd;

	buf = malloc(REPLY_BYTES);
	if (!buf)
		return;
	if (read_tx_dropped(fd, (int)s->key.ifindex, buf, &dropped) == 0 &&
	    read_requeues(fd, (int)s->key.ifindex, buf, &requeues) == 0) {
		if (r->have)
			/* A new qdisc counts from zero (counter_delta()). */
			r->busy += counter_delta(requeues, r->requeues) +
				   counter_delta(dropped, r->tx_dropped);
		r->requeues = requeues;
		r->tx_dropped = dropped;
		r->have = true;
	}
	free(buf);
}

int kernel_refusals_select(struct probes *p, struct probe_slot *s, int ifindex, __u32 netns,
			   struct rterr *err)
{
	int sock = netns_sock_get(p, netns);

	memset(&s->refusals, 0, sizeof(s->refusals));
	s->refusals.sock = -1;
	if (sock < 0)
		return rterr_sys(err, -sock, "rtnetlink socket for the refusal counters");
	s->refusals.sock = sock;
	s->key.ifindex = (__u32)ifindex; /* refusals_update() reads it; select sets it again */
	refusals_update(p, s);
	return 0;
}

void kernel_refusals_unselect(struct probes *p, struct probe_slot *s)
{
	struct netns_sock *ns;

	if (s->refusals.sock < 0)
		return;
	ns = &p->netns_socks[s->refusals.sock];
	if (--ns->users == 0) {
		close(ns->fd);
		memset(ns, 0, sizeof(*ns));
	}
	s->refusals.sock = -1;
}

__u64 kernel_refusals_read(struct probes *p, struct probe_slot *s, __u64 tx_packets)
{
	struct kernel_refusals *r = &s->refusals;

	if (r->sock < 0)
		return 0;
	if (!r->have || tx_packets != r->tx_packets_seen)
		refusals_update(p, s);
	r->tx_packets_seen = tx_packets;
	return r->busy;
}

void kernel_refusals_close(struct probes *p)
{
	unsigned int i;

	for (i = 0; i < p->n_netns_socks; i++)
		if (p->netns_socks[i].inum)
			close(p->netns_socks[i].fd);
	free(p->netns_socks);
	p->netns_socks = NULL;
	p->n_netns_socks = 0;
}
