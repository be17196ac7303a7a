// SPDX-License-Identifier: GPL-2.0-only
/* Cached-route invalidation over netlink (route.h). */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/xfrm.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rtltune/route.h"
#include "rtltune/testhook.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

struct ack {
	int error;
	char text[256];
};

static int ack_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct ack *a = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	a->error = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len > 0 &&
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off), len, NULL) == 0 &&
	    tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(a->text, tb[NLMSGERR_ATTR_MSG], sizeof(a->text));
	return NL_STOP;
}

/* Send msg on a new socket of protocol proto and wait for its ACK: 0 or -errno in a. */
static int request(int proto, struct nl_msg *msg, struct ack *a)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, r;

	memset(a, 0, sizeof(*a));
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, proto);
	if (r < 0) {
		nl_socket_free(sk);
		/* The kernel has no such netlink family (CONFIG_XFRM_USER off). */
		return -EPROTONOSUPPORT;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, ack_err_cb, a);
	r = nl_send_auto(sk, msg);
	if (r >= 0)
		r = nl_wait_for_ack(sk);
	nl_socket_free(sk);
	if (a->error)
		return a->error;
	return r < 0 ? -EIO : 0;
}

/* XFRM_MSG_SETDEFAULT {UNSPEC, UNSPEC, UNSPEC}: rt_genid_bump_all(), nothing else. */
static int by_xfrm(struct ack *a)
{
	struct xfrm_userpolicy_default d = {
		.in = XFRM_USERPOLICY_UNSPEC,
		.fwd = XFRM_USERPOLICY_UNSPEC,
		.out = XFRM_USERPOLICY_UNSPEC,
	};
	struct nl_msg *msg = nlmsg_alloc_simple(XFRM_MSG_SETDEFAULT, NLM_F_REQUEST | NLM_F_ACK);
	int r;

	if (!msg || nlmsg_append(msg, &d, sizeof(d), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = request(NETLINK_XFRM, msg, a);
	nlmsg_free(msg);
	return r;
}

/* One "iif lo nop proto 244" rule message of family (RTM_NEWRULE or RTM_DELRULE). */
static int rule(int type, int family, struct ack *a)
{
	struct fib_rule_hdr h = {.family = (unsigned char)family, .action = FR_ACT_NOP};
	int flags =
		NLM_F_REQUEST | NLM_F_ACK | (type == RTM_NEWRULE ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);
	int r;

	/* iif lo: the one form offloading drivers (mlxsw) accept besides the defaults. */
	if (!msg || nlmsg_append(msg, &h, sizeof(h), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, FRA_PRIORITY, ROUTE_RULE_PRIORITY) < 0 ||
	    nla_put_string(msg, FRA_IIFNAME, "lo") < 0 ||
	    nla_put_u8(msg, FRA_PROTOCOL, ROUTE_RULE_PROTOCOL) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = request(NETLINK_ROUTE, msg, a);
	nlmsg_free(msg);
	return r;
}

/* Add and delete the NOP rule: both flush the family's cache. */
static int by_rules(int family, struct ack *a)
{
	int r = rule(RTM_NEWRULE, family, a);

	/* One left behind by a process killed between the two: delete it first. */
	if (r == -EEXIST && rule(RTM_DELRULE, family, a) == 0)
		r = rule(RTM_NEWRULE, family, a);
	if (r < 0)
		return r;
	return rule(RTM_DELRULE, family, a);
}

static const char *families_name(unsigned int f)
{
	return f == (ROUTE_IPV4 | ROUTE_IPV6) ? "IPv4 and IPv6" : f & ROUTE_IPV4 ? "IPv4" : "IPv6";
}

int route_invalidate(unsigned int families, char *how, size_t how_len, struct rterr *err)
{
	struct ack a;
	int r;

	how[0] = '\0';
	if (!(families & (ROUTE_IPV4 | ROUTE_IPV6)))
		return 0;
	/* RTLTUNE_TEST_FAULT=route_xfrm=EPROTONOSUPPORT: a kernel without xfrm_user. */
	r = test_hook("route_xfrm");
	if (r == 0)
		r = by_xfrm(&a);
	else
		memset(&a, 0, sizeof(a));
	if (r == 0) {
		snprintf(
			how, how_len,
			"%s routes invalidated (XFRM_MSG_SETDEFAULT): established connections take "
			"the new sizes at their next transmit",
			families_name(ROUTE_IPV4 | ROUTE_IPV6));
		return 0;
	}
	/* Older kernels or no xfrm_user: the rules way, per family. */
	if (r != -EPROTONOSUPPORT && r != -EINVAL && r != -EOPNOTSUPP && r != -ENOSYS)
		goto fail;
	if (families & ROUTE_IPV4) {
		r = by_rules(AF_INET, &a);
		if (r < 0)
			goto fail;
	}
	if (families & ROUTE_IPV6) {
		r = by_rules(AF_INET6, &a);
		if (r < 0)
			goto fail;
	}
	snprintf(how, how_len,
		 "%s routes invalidated (a NOP policy rule added and deleted): established "
		 "connections take the new sizes at their next transmit",
		 families_name(families));
	return 0;
fail:
	if (a.text[0])
		return rterr_sys(err, -r, "invalidating cached routes (kernel: %s)", a.text);
	return rterr_sys(err, -r, "invalidating cached routes");
}

int route_invalidation_method(char *how, size_t how_len)
{
	struct xfrm_userpolicy_default d = {0};
	struct nl_msg *msg;
	struct ack a = {0};
	int r = test_hook("route_xfrm");

	if (r == 0) {
		msg = nlmsg_alloc_simple(XFRM_MSG_GETDEFAULT, NLM_F_REQUEST | NLM_F_ACK);
		if (!msg || nlmsg_append(msg, &d, sizeof(d), NLMSG_ALIGNTO) < 0) {
			nlmsg_free(msg);
			snprintf(how, how_len, "unknown: out of memory");
			return ROUTE_BY_UNKNOWN;
		}
		r = request(NETLINK_XFRM, msg, &a);
		nlmsg_free(msg);
	}
	if (r == 0) {
		snprintf(how, how_len,
			 "XFRM_MSG_SETDEFAULT (the xfrm_user family answers XFRM_MSG_GETDEFAULT)");
		return ROUTE_BY_XFRM;
	}
	if (r == -EPROTONOSUPPORT || r == -EINVAL || r == -EOPNOTSUPP || r == -ENOSYS) {
		snprintf(how, how_len,
			 "a NOP policy rule added and deleted per family (XFRM_MSG_GETDEFAULT: %s): "
			 "the netns stays in custom-rules mode",
			 strerror(-r));
		return ROUTE_BY_RULES;
	}
	snprintf(how, how_len, "unknown (XFRM_MSG_GETDEFAULT: %s%s)", strerror(-r),
		 r == -EPERM ? "; asking needs CAP_NET_ADMIN" : "");
	return ROUTE_BY_UNKNOWN;
}
