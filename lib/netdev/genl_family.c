// SPDX-License-Identifier: GPL-2.0-only
/*
 * A generic netlink family by name (include/rtltune/genl_family.h).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "rtltune/ethnl.h"
#include "rtltune/genl_family.h"

/* A controller reply this large would be a family with thousands of commands. */
#define FAMILY_BUF_SIZE (64 * 1024)

/* CTRL_CMD_GETFAMILY's reply: the family's id, version and commands. */
static int family_cb(const void *msg, size_t len, void *arg)
{
	struct genl_family_info *out = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op, *ob[CTRL_ATTR_OP_MAX + 1];
	int rem;

	if (genlmsg_parse((struct nlmsghdr *)msg, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return 0;
	(void)len;
	out->present = true;
	out->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		out->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!tb[CTRL_ATTR_OPS])
		return 0;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem)
	{
		uint32_t id;

		if (nla_parse_nested(ob, CTRL_ATTR_OP_MAX, op, NULL) < 0 || !ob[CTRL_ATTR_OP_ID])
			continue;
		id = nla_get_u32(ob[CTRL_ATTR_OP_ID]);
		if (id < GENL_MAX_OPS)
			out->ops[id / 32] |= 1u << (id % 32);
	}
	return 0;
}

int genl_family_probe_on(struct nl_sock *sk, const char *name, struct genl_family_info *out,
			 struct rterr *err)
{
	struct ethnl_ack ack;
	struct nl_msg *msg;
	void *buf;
	int r;

	memset(out, 0, sizeof(*out));
	msg = nlmsg_alloc();
	buf = malloc(FAMILY_BUF_SIZE);
	if (!msg || !buf ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, NLM_F_ACK,
			 CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name) < 0) {
		nlmsg_free(msg);
		free(buf);
		return rterr_sys(err, ENOMEM, "genl family %s", name);
	}
	r = genl_transact(sk, GENL_ID_CTRL, buf, FAMILY_BUF_SIZE, msg, family_cb, out, &ack);
	nlmsg_free(msg);
	free(buf);
	if (r < 0)
		return rterr_sys(err, -r, "genl family %s", name);
	/* The controller answers ENOENT for a family this kernel does not have. */
	if (ack.error == -ENOENT || (out->present && !ack.error))
		return 0;
	if (ack.error)
		return rterr_sys(err, -ack.error, "genl family %s", name);
	return rterr_sys(err, EPROTO, "genl family %s: no answer with its id", name);
}

int genl_sock_open(struct nl_sock **out, struct rterr *err)
{
	struct timeval tv = {.tv_sec = 5};
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, fd, r;

	*out = NULL;
	if (!sk)
		return rterr_sys(err, ENOMEM, "generic netlink socket");
	r = genl_connect(sk);
	if (r < 0) {
		nl_socket_free(sk);
		return rterr_sys(err, EPROTONOSUPPORT, "connect generic netlink (%s)",
				 nl_geterror(r));
	}
	fd = nl_socket_get_fd(sk);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* The kernel answers within sendmsg(); a wait this long means the reply was lost. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*out = sk;
	return 0;
}

int genl_family_probe(const char *name, struct genl_family_info *out, struct rterr *err)
{
	struct nl_sock *sk;
	int r;

	memset(out, 0, sizeof(*out));
	r = genl_sock_open(&sk, err);
	if (r < 0)
		return r;
	r = genl_family_probe_on(sk, name, out, err);
	nl_socket_free(sk);
	return r;
}

bool genl_family_has_op(const struct genl_family_info *f, unsigned int cmd)
{
	return f->present && cmd < GENL_MAX_OPS && (f->ops[cmd / 32] & (1u << (cmd % 32)));
}

int genl_transact(struct nl_sock *sk, uint16_t family, void *buf, size_t buflen, struct nl_msg *req,
		  genl_reply_fn fn, void *arg, struct ethnl_ack *ack)
{
	int fd = nl_socket_get_fd(sk), fn_err = 0;
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	uint32_t port;
	bool want_ack;

	memset(ack, 0, sizeof(*ack));
	ack->offset = ack->miss_type = ack->miss_nest = -1;
	nl_complete_msg(sk, req);
	port = nl_socket_get_local_port(sk);
	/* A dump ends at NLMSG_DONE, an ACKed request at its NLMSG_ERROR. */
	want_ack = nlh->nlmsg_flags & (NLM_F_ACK | NLM_F_DUMP);
	if (send(fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, buflen, MSG_TRUNC);
		size_t off, mlen;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if ((size_t)n > buflen)
			return -EMSGSIZE;
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)n; off += NLMSG_ALIGN(mlen)) {
			struct nlmsghdr h;

			memcpy(&h, (uint8_t *)buf + off, sizeof(h));
			mlen = h.nlmsg_len;
			if (mlen < NLMSG_HDRLEN || mlen > (size_t)n - off)
				return -EPROTO;
			if (h.nlmsg_seq != nlh->nlmsg_seq || h.nlmsg_pid != port)
				continue;
			if (h.nlmsg_type == NLMSG_ERROR)
				return ethnl_parse_ack((uint8_t *)buf + off, mlen, ack) < 0
					       ? -EPROTO
					       : fn_err;
			if (h.nlmsg_type == NLMSG_DONE)
				return fn_err;
			if (h.nlmsg_type != family)
				continue;
			if (!fn_err && fn)
				fn_err = fn((uint8_t *)buf + off, mlen, arg);
			if (!want_ack)
				return fn_err;
		}
	}
}
