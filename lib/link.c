// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtnetlink link state and link attribute writes, over libnl-3's core socket.
 *
 * libnl-route 3.7 has no getters for gro_max_size, the IPv4 BIG TCP sizes or the TSO
 * ceilings, so the RTM_GETLINK replies are parsed attribute by attribute here. Writes use
 * RTM_NEWLINK on an existing ifindex and read the kernel's own errno (and extack text)
 * from the ACK, because libnl's error codes fold distinct errnos together.
 */
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/link.h"

/* Attribute numbers newer than Debian 12's 6.1 uapi headers (include/uapi/linux/if_link.h). */
enum {
	RT_IFLA_GRO_MAX_SIZE = 58,
	RT_IFLA_TSO_MAX_SIZE = 59,
	RT_IFLA_TSO_MAX_SEGS = 60,
	RT_IFLA_GSO_IPV4_MAX_SIZE = 63,
	RT_IFLA_GRO_IPV4_MAX_SIZE = 64,
	RT_IFLA_PARSE_MAX = 80,
};

#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

static const struct {
	int ifla;
	const char *name;
} link_attrs[] = {
	[LINK_ATTR_MTU] = { IFLA_MTU, "mtu" },
	[LINK_ATTR_GSO_MAX_SIZE] = { IFLA_GSO_MAX_SIZE, "gso_max_size" },
	[LINK_ATTR_GSO_MAX_SEGS] = { IFLA_GSO_MAX_SEGS, "gso_max_segs" },
	[LINK_ATTR_GSO_IPV4_MAX_SIZE] = { RT_IFLA_GSO_IPV4_MAX_SIZE, "gso_ipv4_max_size" },
	[LINK_ATTR_GRO_MAX_SIZE] = { RT_IFLA_GRO_MAX_SIZE, "gro_max_size" },
	[LINK_ATTR_GRO_IPV4_MAX_SIZE] = { RT_IFLA_GRO_IPV4_MAX_SIZE, "gro_ipv4_max_size" },
};

static const char *const operstate_names[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

struct dump_ctx {
	struct link_info *links;
	int n, cap;
	int err;
};

static int64_t attr_u32(struct nlattr **tb, int type)
{
	return tb[type] && nla_len(tb[type]) >= 4 ? (int64_t)nla_get_u32(tb[type]) : LINK_UNSET;
}

static void link_info_init(struct link_info *l)
{
	memset(l, 0, sizeof(*l));
	l->mtu = l->min_mtu = l->max_mtu = LINK_UNSET;
	l->gso_max_size = l->gso_max_segs = l->gso_ipv4_max_size = LINK_UNSET;
	l->gro_max_size = l->gro_ipv4_max_size = LINK_UNSET;
	l->tso_max_size = l->tso_max_segs = LINK_UNSET;
	l->tx_queues = l->rx_queues = LINK_UNSET;
}

/* Fill a link_info from one RTM_NEWLINK message; returns 0 or -EINVAL for a short one. */
static int link_info_parse(struct nlmsghdr *nlh, struct link_info *l)
{
	struct nlattr *tb[RT_IFLA_PARSE_MAX + 1];
	struct ifinfomsg *ifi;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlmsg_datalen(nlh) < (int)sizeof(*ifi))
		return -EINVAL;
	if (nlmsg_parse(nlh, sizeof(*ifi), tb, RT_IFLA_PARSE_MAX, NULL) < 0)
		return -EINVAL;
	ifi = nlmsg_data(nlh);
	link_info_init(l);
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(l->ifname, tb[IFLA_IFNAME], sizeof(l->ifname));
	/* Without a policy libnl checks no attribute length: an empty one ends the buffer. */
	if (tb[IFLA_OPERSTATE] && nla_len(tb[IFLA_OPERSTATE]) >= 1) {
		unsigned int st = nla_get_u8(tb[IFLA_OPERSTATE]);

		snprintf(l->operstate, sizeof(l->operstate), "%s",
			 st < sizeof(operstate_names) / sizeof(operstate_names[0])
				 ? operstate_names[st]
				 : "unknown");
	}
	if (tb[IFLA_LINKINFO]) {
		struct nlattr *li[IFLA_INFO_MAX + 1];

		if (nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) == 0 &&
		    li[IFLA_INFO_KIND])
			nla_strlcpy(l->kind, li[IFLA_INFO_KIND], sizeof(l->kind));
	}
	l->mtu = attr_u32(tb, IFLA_MTU);
	l->min_mtu = attr_u32(tb, IFLA_MIN_MTU);
	l->max_mtu = attr_u32(tb, IFLA_MAX_MTU);
	l->gso_max_size = attr_u32(tb, IFLA_GSO_MAX_SIZE);
	l->gso_max_segs = attr_u32(tb, IFLA_GSO_MAX_SEGS);
	l->gso_ipv4_max_size = attr_u32(tb, RT_IFLA_GSO_IPV4_MAX_SIZE);
	l->gro_max_size = attr_u32(tb, RT_IFLA_GRO_MAX_SIZE);
	l->gro_ipv4_max_size = attr_u32(tb, RT_IFLA_GRO_IPV4_MAX_SIZE);
	l->tso_max_size = attr_u32(tb, RT_IFLA_TSO_MAX_SIZE);
	l->tso_max_segs = attr_u32(tb, RT_IFLA_TSO_MAX_SEGS);
	l->tx_queues = attr_u32(tb, IFLA_NUM_TX_QUEUES);
	l->rx_queues = attr_u32(tb, IFLA_NUM_RX_QUEUES);
	return 0;
}

int link_info_from_msg(const void *buf, size_t len, struct link_info *out)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	/* The kernel's framing is trusted by libnl; a buffer from elsewhere is checked here. */
	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return -EINVAL;
	return link_info_parse(nlh, out);
}

static int dump_valid_cb(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *ctx = arg;
	struct link_info *grown;

	if (ctx->n == ctx->cap) {
		ctx->cap = ctx->cap ? ctx->cap * 2 : 16;
		grown = realloc(ctx->links, (size_t)ctx->cap * sizeof(*grown));
		if (!grown) {
			ctx->err = -ENOMEM;
			return NL_STOP;
		}
		ctx->links = grown;
	}
	if (link_info_parse(nlmsg_hdr(msg), &ctx->links[ctx->n]) == 0)
		ctx->n++;
	return NL_OK;
}

struct ack_ctx {
	int error; /* negative errno from the kernel's ACK, 0 on success */
	char extack[256];
};

/*
 * The kernel's NLMSG_ERROR carries the real errno and, with NETLINK_EXT_ACK, a text
 * ("too big gso_max_size") after the echoed request.
 */
static int ack_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct ack_ctx *ctx = arg;

	ctx->error = e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		size_t off = sizeof(*e);
		struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
		int len;

		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - NLMSG_HDRLEN;
		len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
		if (len > 0 &&
		    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off), len,
			      NULL) == 0 &&
		    tb[NLMSGERR_ATTR_MSG])
			nla_strlcpy(ctx->extack, tb[NLMSGERR_ATTR_MSG], sizeof(ctx->extack));
	}
	return NL_STOP;
}

static struct nl_sock *rtnl_open(struct rterr *err)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, r;

	if (!sk) {
		rterr_sys(err, ENOMEM, "netlink socket");
		return NULL;
	}
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0) {
		nl_socket_free(sk);
		rterr_sys(err, EPROTONOSUPPORT, "connect rtnetlink (%s)", nl_geterror(r));
		return NULL;
	}
	/* Large dumps (many links, each ~1.5 KiB) and error texts from the kernel. */
	nl_socket_set_msg_buf_size(sk, 64 * 1024);
	nl_socket_enable_msg_peek(sk);
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return sk;
}

static int cmp_ifindex(const void *a, const void *b)
{
	const struct link_info *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

/*
 * A link added, removed or renamed while the kernel dumps makes it flag the dump
 * interrupted (NLM_F_DUMP_INTR, libnl's -NLE_DUMP_INTR): the list may miss or repeat a
 * link, so it is taken again. Each try costs one round trip; only a host changing links
 * continuously for all of them gets the error.
 */
#define LINK_DUMP_TRIES 16

int link_dump(struct link_info **links, int *n, struct rterr *err)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct dump_ctx ctx;
	struct ack_ctx ack;
	struct nl_sock *sk;
	int r, tries = 0;

	*links = NULL;
	*n = 0;
	do {
		memset(&ctx, 0, sizeof(ctx));
		memset(&ack, 0, sizeof(ack));
		sk = rtnl_open(err);
		if (!sk)
			return -err->errnum;
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid_cb, &ctx);
		nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
		r = nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
		if (r >= 0)
			r = nl_recvmsgs_default(sk);
		nl_socket_free(sk);
		if (r == -NLE_DUMP_INTR && ctx.err == 0 && !ack.error)
			free(ctx.links);
	} while (r == -NLE_DUMP_INTR && ctx.err == 0 && !ack.error && ++tries < LINK_DUMP_TRIES);
	if (ctx.err == 0 && ack.error)
		ctx.err = ack.error;
	if (ctx.err == 0 && r == -NLE_DUMP_INTR)
		return rterr_sys(err, EAGAIN,
				 "rtnetlink link dump interrupted %d times by links changing",
				 LINK_DUMP_TRIES);
	if (ctx.err == 0 && r < 0)
		ctx.err = -EIO;
	if (ctx.err) {
		free(ctx.links);
		return rterr_sys(err, -ctx.err, "rtnetlink link dump");
	}
	qsort(ctx.links, (size_t)ctx.n, sizeof(*ctx.links), cmp_ifindex);
	*links = ctx.links;
	*n = ctx.n;
	return 0;
}

int link_get(const char *ifname, struct link_info *out, struct rterr *err)
{
	struct link_info *links;
	int n, i, r;

	/*
	 * A dump rather than a by-name request: by-name lookups need IFLA_IFNAME filtering
	 * that older kernels ignore, and one dump costs the same round trip.
	 */
	r = link_dump(&links, &n, err);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		if (strcmp(links[i].ifname, ifname) == 0) {
			*out = links[i];
			free(links);
			return 0;
		}
	}
	free(links);
	if (err) {
		err->kind = RTERR_INPUT;
		err->errnum = ENODEV;
		snprintf(err->msg, sizeof(err->msg), "no such interface: %s", ifname);
	}
	return -ENODEV;
}

const char *link_attr_name(enum link_attr attr)
{
	return link_attrs[attr].name;
}

int link_set_u32(int ifindex, enum link_attr attr, uint32_t value, struct rterr *err)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct ack_ctx ack = { 0 };
	struct nl_msg *msg = NULL;
	struct nl_sock *sk;
	int r;

	sk = rtnl_open(err);
	if (!sk)
		return -err->errnum;
	msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg || nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, link_attrs[attr].ifla, value) < 0) {
		r = rterr_sys(err, ENOMEM, "set %s", link_attrs[attr].name);
		goto out;
	}
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
	r = nl_send_auto(sk, msg);
	if (r >= 0)
		r = nl_wait_for_ack(sk);
	if (ack.error) {
		if (ack.extack[0])
			r = rterr_sys(err, -ack.error, "set %s %u (kernel: %s)",
				      link_attrs[attr].name, value, ack.extack);
		else
			r = rterr_sys(err, -ack.error, "set %s %u", link_attrs[attr].name, value);
	} else if (r < 0) {
		r = rterr_sys(err, EIO, "set %s %u (%s)", link_attrs[attr].name, value,
			      nl_geterror(r));
	} else {
		r = 0;
	}
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return r;
}
