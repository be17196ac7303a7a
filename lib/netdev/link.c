// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtnetlink link state and link attribute writes, over one libnl-3 core socket per run.
 *
 * libnl-route 3.7 has no getters for gro_max_size, the IPv4 BIG TCP sizes or the TSO
 * ceilings, so the RTM_GETLINK replies are parsed attribute by attribute here, the knobs
 * among them from the knob table's rows. Writes use RTM_NEWLINK on an existing ifindex
 * and read the kernel's own errno (and extack text) from the ACK, because libnl's error
 * codes fold distinct errnos together.
 */
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/ethtool.h"
#include "rtltune/link.h"

/* Attribute numbers newer than Debian 12's 6.1 uapi headers (include/uapi/linux/if_link.h). */
enum {
	RT_IFLA_TSO_MAX_SIZE = 59,
	RT_IFLA_TSO_MAX_SEGS = 60,
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

struct link_sock {
	struct nl_sock *sk;
};

static const char *const operstate_names[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

/* Without a policy libnl checks no attribute length: an empty one ends the buffer. */
static int64_t attr_u32(struct nlattr **tb, int type)
{
	return tb[type] && nla_len(tb[type]) >= 4 ? (int64_t)nla_get_u32(tb[type]) : LINK_UNSET;
}

static void link_info_init(struct link_info *l)
{
	int k;

	memset(l, 0, sizeof(*l));
	l->link_netnsid = -1;
	l->min_mtu = l->max_mtu = LINK_UNSET;
	l->tso_max_size = l->tso_max_segs = LINK_UNSET;
	l->tx_queues = l->rx_queues = LINK_UNSET;
	for (k = 0; k < LINK_KNOBS; k++)
		l->knob[k] = LINK_UNSET;
}

void link_knob_values(const struct link_info *l, int64_t *val)
{
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		val[k] = link_knob(l, (enum knob_id)k);
}

static void parse_linkinfo(struct nlattr *nest, struct link_info *l)
{
	struct nlattr *li[IFLA_INFO_MAX + 1];

	if (nla_parse_nested(li, IFLA_INFO_MAX, nest, NULL) < 0)
		return;
	if (li[IFLA_INFO_KIND])
		nla_strlcpy(l->kind, li[IFLA_INFO_KIND], sizeof(l->kind));
	if (li[IFLA_INFO_SLAVE_KIND])
		nla_strlcpy(l->slave_kind, li[IFLA_INFO_SLAVE_KIND], sizeof(l->slave_kind));
}

/* Fill a link_info from one RTM_NEWLINK message; returns 0 or -EINVAL for a short one. */
static int link_info_parse(struct nlmsghdr *nlh, struct link_info *l)
{
	struct nlattr *tb[RT_IFLA_PARSE_MAX + 1];
	struct ifinfomsg *ifi;
	int64_t v;
	int k;

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
	if (tb[IFLA_OPERSTATE] && nla_len(tb[IFLA_OPERSTATE]) >= 1) {
		unsigned int st = nla_get_u8(tb[IFLA_OPERSTATE]);

		snprintf(l->operstate, sizeof(l->operstate), "%s",
			 st < sizeof(operstate_names) / sizeof(operstate_names[0])
				 ? operstate_names[st]
				 : "unknown");
	}
	if (tb[IFLA_LINKINFO])
		parse_linkinfo(tb[IFLA_LINKINFO], l);
	v = attr_u32(tb, IFLA_MASTER);
	l->master = v > 0 && v <= INT32_MAX ? (int)v : 0;
	v = attr_u32(tb, IFLA_LINK);
	l->link = v > 0 && v <= INT32_MAX ? (int)v : 0;
	l->link_netns = tb[IFLA_LINK_NETNSID] != NULL;
	l->link_netnsid = l->link_netns && nla_len(tb[IFLA_LINK_NETNSID]) >= 4
				  ? (int32_t)nla_get_u32(tb[IFLA_LINK_NETNSID])
				  : -1;
	l->min_mtu = attr_u32(tb, IFLA_MIN_MTU);
	l->max_mtu = attr_u32(tb, IFLA_MAX_MTU);
	l->tso_max_size = attr_u32(tb, RT_IFLA_TSO_MAX_SIZE);
	l->tso_max_segs = attr_u32(tb, RT_IFLA_TSO_MAX_SEGS);
	l->tx_queues = attr_u32(tb, IFLA_NUM_TX_QUEUES);
	l->rx_queues = attr_u32(tb, IFLA_NUM_RX_QUEUES);
	for (k = 0; k < LINK_KNOBS; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		if (d->backend == KNOB_B_LINK && d->ifla <= RT_IFLA_PARSE_MAX)
			l->knob[k] = attr_u32(tb, d->ifla);
	}
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

/* ---- the socket ------------------------------------------------------------------- */

int link_sock_open(struct link_sock **out, struct rterr *err)
{
	struct link_sock *ls = calloc(1, sizeof(*ls));
	int one = 1, r;

	*out = NULL;
	if (ls)
		ls->sk = nl_socket_alloc();
	if (!ls || !ls->sk) {
		free(ls);
		return rterr_sys(err, ENOMEM, "netlink socket");
	}
	r = nl_connect(ls->sk, NETLINK_ROUTE);
	if (r < 0) {
		link_sock_close(ls);
		return rterr_sys(err, EPROTONOSUPPORT, "connect rtnetlink (%s)", nl_geterror(r));
	}
	/* Large dumps (many links, each ~1.5 KiB) and error texts from the kernel. Without
	 * peeking: one recvmsg per message, not two (rtltuned reads every managed link each
	 * sample). A buffer this size never truncates: the kernel fills a dump's messages up
	 * to 32 KiB at most (netlink_recvmsg() caps max_recvmsg_len), and the one link of a
	 * get is far smaller without the VF list, which no request here asks for. */
	nl_socket_set_msg_buf_size(ls->sk, 64 * 1024);
	nl_socket_disable_msg_peek(ls->sk);
	setsockopt(nl_socket_get_fd(ls->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	*out = ls;
	return 0;
}

void link_sock_close(struct link_sock *ls)
{
	if (!ls)
		return;
	nl_socket_free(ls->sk);
	free(ls);
}

/* The caller's socket, or one for this call only (*own then holds it for closing). */
static struct nl_sock *sock_of(struct link_sock *ls, struct link_sock **own, struct rterr *err)
{
	*own = NULL;
	if (ls)
		return ls->sk;
	if (link_sock_open(own, err) < 0)
		return NULL;
	return (*own)->sk;
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

/* A socket used again must not call back into a finished request's stack frame. */
static void reset_cbs(struct nl_sock *sk)
{
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_DEFAULT, NULL, NULL);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_DEFAULT, NULL, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_DEFAULT, NULL, NULL);
}

/* ---- reading ---------------------------------------------------------------------- */

struct dump_ctx {
	struct link_info *links;
	int n, cap;
	int err;
};

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

int link_dump(struct link_sock *ls, struct link_info **links, int *n, struct rterr *err)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct link_sock *own;
	struct dump_ctx ctx;
	struct ack_ctx ack;
	struct nl_sock *sk;
	int r, tries = 0;

	*links = NULL;
	*n = 0;
	sk = sock_of(ls, &own, err);
	if (!sk)
		return -err->errnum;
	do {
		memset(&ctx, 0, sizeof(ctx));
		memset(&ack, 0, sizeof(ack));
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid_cb, &ctx);
		nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
		r = nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
		if (r >= 0)
			r = nl_recvmsgs_default(sk);
		/* libnl reads an interrupted dump to its end (NLMSG_DONE) before it says so:
		 * the socket is clean for the next try. */
		if (r == -NLE_DUMP_INTR && ctx.err == 0 && !ack.error)
			free(ctx.links);
	} while (r == -NLE_DUMP_INTR && ctx.err == 0 && !ack.error && ++tries < LINK_DUMP_TRIES);
	reset_cbs(sk);
	link_sock_close(own);
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

struct get_ctx {
	struct link_info *out;
	struct rtnl_link_stats64 *stats; /* NULL: not wanted */
	bool got, acked, have_stats;
};

bool link_stats_from_msg(const void *buf, size_t len, struct rtnl_link_stats64 *out)
{
	const struct nlmsghdr *nlh = buf;
	struct nlattr *tb[IFLA_MAX + 1];

	if (len < sizeof(*nlh) || nlh->nlmsg_len > len ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 ||
	    !tb[IFLA_STATS64] || nla_len(tb[IFLA_STATS64]) < (int)sizeof(*out))
		return false;
	memcpy(out, nla_data(tb[IFLA_STATS64]), sizeof(*out));
	return true;
}

static int get_valid_cb(struct nl_msg *msg, void *arg)
{
	struct get_ctx *ctx = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (!ctx->got && link_info_parse(nlh, ctx->out) == 0) {
		ctx->got = true;
		if (ctx->stats)
			ctx->have_stats = link_stats_from_msg(nlh, nlh->nlmsg_len, ctx->stats);
	}
	return NL_OK;
}

static int get_ack_cb(struct nl_msg *msg, void *arg)
{
	((struct get_ctx *)arg)->acked = true;
	return NL_STOP;
}

/* One RTM_GETLINK for ifindex (> 0) or name, in the netns with id nsid (< 0: the socket's
 * own); -ENODEV when no such link. */
static int get_one(struct link_sock *ls, int nsid, int ifindex, const char *name,
		   struct link_info *out, struct get_ctx *stats, struct rterr *err)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct get_ctx ctx = {.out = out, .stats = stats ? stats->stats : NULL};
	struct ack_ctx ack = {0};
	struct link_sock *own;
	struct nl_msg *msg;
	struct nl_sock *sk;
	int r;

	sk = sock_of(ls, &own, err);
	if (!sk)
		return -err->errnum;
	/* With an ACK after the reply libnl's sequence tracking stays in step (it advances on
	 * ACKs and DONEs only) and nothing is left unread on a socket used again. */
	msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK);
	/* Without the counters when they are not wanted: the kernel then skips filling
	 * IFLA_STATS64 and the per-CPU sums behind it (rtltuned asks this of every managed
	 * interface each sample). */
	if (!msg || nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    (!stats && nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0) ||
	    (nsid >= 0 && nla_put_s32(msg, IFLA_TARGET_NETNSID, nsid) < 0) ||
	    (name && nla_put_string(msg, IFLA_IFNAME, name) < 0)) {
		nlmsg_free(msg);
		link_sock_close(own);
		return rterr_sys(err, ENOMEM, "rtnetlink request");
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, get_valid_cb, &ctx);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, get_ack_cb, &ctx);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
	r = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	/* The link, then the ACK (one recvmsg each); or an error. */
	while (r >= 0 && !ctx.acked && !ack.error)
		r = nl_recvmsgs_default(sk);
	reset_cbs(sk);
	link_sock_close(own);
	if (ack.error == -ENODEV || (!ack.error && r >= 0 && !ctx.got))
		return -ENODEV;
	if (ack.error)
		return rterr_sys(err, -ack.error, "rtnetlink get link %s%s%s%s", name ? name : "",
				 ack.extack[0] ? " (kernel: " : "", ack.extack,
				 ack.extack[0] ? ")" : "");
	if (r < 0)
		return rterr_sys(err, EIO, "rtnetlink get link (%s)", nl_geterror(r));
	if (stats)
		stats->have_stats = ctx.have_stats;
	return 0;
}

int link_get_index(struct link_sock *ls, int ifindex, struct link_info *out, struct rterr *err)
{
	int r = get_one(ls, -1, ifindex, NULL, out, NULL, err);

	if (r == -ENODEV)
		return rterr_sys(err, ENODEV, "interface %d disappeared", ifindex);
	return r;
}

int link_get_index_stats(struct link_sock *ls, int ifindex, struct link_info *out,
			 struct rtnl_link_stats64 *stats, bool *have_stats, struct rterr *err)
{
	struct get_ctx want = {.stats = stats};
	int r = get_one(ls, -1, ifindex, NULL, out, &want, err);

	*have_stats = r == 0 && want.have_stats;
	if (r == -ENODEV)
		return rterr_sys(err, ENODEV, "interface %d disappeared", ifindex);
	return r;
}

int link_get_netnsid(struct link_sock *ls, int nsid, int ifindex, struct link_info *out,
		     struct rterr *err)
{
	int r = get_one(ls, nsid, ifindex, NULL, out, NULL, err);

	if (r == -ENODEV)
		return rterr_sys(err, ENODEV, "interface %d of netns id %d disappeared", ifindex,
				 nsid);
	return r;
}

int rtnl_ask(int fd, struct nlmsghdr *req, uint16_t want, void *buf, size_t buflen,
	     const struct nlmsghdr **reply)
{
	static uint32_t seq;
	struct nlmsghdr *h;
	ssize_t n;

	req->nlmsg_seq = ++seq;
	if (send(fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, buf, buflen, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n > buflen)
			return -EMSGSIZE;
		for (h = buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue; /* a late reply to an earlier request */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error ? e->error : -ENOENT; /* the ack: nothing came first */
			}
			if (h->nlmsg_type != want)
				continue;
			*reply = h;
			return 0;
		}
	}
}

int link_get_fd(int fd, int ifindex, struct link_info *out, struct rtnl_link_stats64 *stats,
		bool *have_stats, struct rterr *err)
{
	struct {
		struct nlmsghdr n;
		struct ifinfomsg i;
		struct nlattr a;
		uint32_t mask;
	} req = {
		.n = {.nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST},
		.i = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex},
		.a = {.nla_len = NLA_HDRLEN + sizeof(uint32_t), .nla_type = IFLA_EXT_MASK},
		.mask = RTEXT_FILTER_SKIP_STATS,
	};
	/* One link without the VF list: well under this (see link_sock_open()). */
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h;
	int r;

	*have_stats = false;
	/* Without the counters when they are not wanted (the kernel then skips them). */
	req.n.nlmsg_len = stats ? NLMSG_LENGTH(sizeof(req.i)) : sizeof(req);
	r = rtnl_ask(fd, &req.n, RTM_NEWLINK, buf, sizeof(buf), &h);
	if (r == -ENODEV)
		return rterr_sys(err, ENODEV, "interface %d disappeared", ifindex);
	if (r < 0)
		return rterr_sys(err, -r, "rtnetlink get link %d", ifindex);
	if (link_info_from_msg(h, h->nlmsg_len, out) < 0)
		return rterr_sys(err, EPROTO, "rtnetlink get link %d: malformed reply", ifindex);
	if (stats)
		*have_stats = link_stats_from_msg(h, h->nlmsg_len, stats);
	return 0;
}

int link_get(struct link_sock *ls, const char *ifname, struct link_info *out, struct rterr *err)
{
	int r;

	if (!ifname[0] || strlen(ifname) >= IF_NAMESIZE)
		r = -ENODEV;
	else
		r = get_one(ls, -1, 0, ifname, out, NULL, err);
	if (r == -ENODEV && err) {
		err->kind = RTERR_INPUT;
		err->errnum = ENODEV;
		snprintf(err->msg, sizeof(err->msg), "no such interface: %s", ifname);
	}
	return r;
}

/* ---- namespace ids ------------------------------------------------------------------ */

struct nsid_ctx {
	int nsid;
	bool got, acked;
};

static int nsid_valid_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nsid_ctx *ctx = arg;
	struct nlattr *tb[NETNSA_MAX + 1];

	if (nlh->nlmsg_type == RTM_NEWNSID &&
	    nlmsg_parse(nlh, sizeof(struct rtgenmsg), tb, NETNSA_MAX, NULL) == 0 &&
	    tb[NETNSA_NSID] && nla_len(tb[NETNSA_NSID]) >= 4) {
		ctx->nsid = (int32_t)nla_get_u32(tb[NETNSA_NSID]);
		ctx->got = true;
	}
	return NL_OK;
}

static int nsid_ack_cb(struct nl_msg *msg, void *arg)
{
	((struct nsid_ctx *)arg)->acked = true;
	return NL_STOP;
}

int link_netns_id(struct link_sock *ls, int nsfd, struct rterr *err)
{
	struct rtgenmsg g = {.rtgen_family = AF_UNSPEC};
	struct nsid_ctx ctx = {.nsid = -1};
	struct ack_ctx ack = {0};
	struct link_sock *own;
	struct nl_msg *msg;
	struct nl_sock *sk;
	int r;

	sk = sock_of(ls, &own, err);
	if (!sk)
		return -err->errnum;
	msg = nlmsg_alloc_simple(RTM_GETNSID, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg || nlmsg_append(msg, &g, sizeof(g), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, NETNSA_FD, (uint32_t)nsfd) < 0) {
		nlmsg_free(msg);
		link_sock_close(own);
		return rterr_sys(err, ENOMEM, "rtnetlink request");
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, nsid_valid_cb, &ctx);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, nsid_ack_cb, &ctx);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
	r = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	while (r >= 0 && !ctx.acked && !ack.error)
		r = nl_recvmsgs_default(sk);
	reset_cbs(sk);
	link_sock_close(own);
	if (ack.error)
		return rterr_sys(err, -ack.error, "rtnetlink get netns id");
	if (r < 0)
		return rterr_sys(err, EIO, "rtnetlink get netns id (%s)", nl_geterror(r));
	/* NETNSA_NSID_NOT_ASSIGNED (-1): this netns has no id for it (yet). */
	return ctx.got && ctx.nsid >= 0 ? ctx.nsid : -ENOENT;
}

/* ---- writing ---------------------------------------------------------------------- */

int link_set_u32s(struct link_sock *ls, int ifindex, const struct link_u32 *attrs, unsigned int n,
		  struct rterr *err)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct ack_ctx ack = {0};
	struct nl_msg *msg = NULL;
	struct link_sock *own;
	struct nl_sock *sk;
	char what[256];
	size_t len = 0;
	unsigned int i;
	int r;

	what[0] = '\0';
	for (i = 0; i < n && len < sizeof(what); i++)
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%s %u", i ? ", " : "",
					attrs[i].what, attrs[i].value);
	sk = sock_of(ls, &own, err);
	if (!sk)
		return -err->errnum;
	/* A page (libnl's default) is far more than a few attributes need. */
	msg = nlmsg_alloc_size(NLMSG_SPACE(sizeof(ifi)) + n * NLA_HDRLEN * 2 + 64);
	if (!msg ||
	    !nlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWLINK, 0, NLM_F_REQUEST | NLM_F_ACK) ||
	    nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		r = rterr_sys(err, ENOMEM, "set %s", what);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (nla_put_u32(msg, attrs[i].ifla, attrs[i].value) < 0) {
			r = rterr_sys(err, ENOMEM, "set %s", what);
			goto out;
		}
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, &ack);
	r = nl_send_auto(sk, msg);
	if (r >= 0)
		r = nl_wait_for_ack(sk);
	reset_cbs(sk);
	if (ack.error) {
		if (ack.extack[0])
			r = rterr_sys(err, -ack.error, "set %s (kernel: %s)", what, ack.extack);
		else
			r = rterr_sys(err, -ack.error, "set %s", what);
	} else if (r < 0) {
		r = rterr_sys(err, EIO, "set %s (%s)", what, nl_geterror(r));
	} else {
		r = 0;
	}
out:
	nlmsg_free(msg);
	link_sock_close(own);
	return r;
}

int link_set_u32(struct link_sock *ls, int ifindex, int ifla, const char *what, uint32_t value,
		 struct rterr *err)
{
	struct link_u32 a = {.ifla = ifla, .what = what, .value = value};

	return link_set_u32s(ls, ifindex, &a, 1, err);
}

/* ---- by index --------------------------------------------------------------------- */

int link_index_to_name(int ifindex, char name[IF_NAMESIZE])
{
	/* Through the process's one ioctl socket (glibc's if_indextoname opens one a call). */
	return ethtool_index_to_name(ifindex, name);
}

bool link_index_gone(int ifindex)
{
	char name[IF_NAMESIZE];

	return ifindex > 0 && link_index_to_name(ifindex, name) == -ENODEV;
}
