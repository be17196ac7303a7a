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
#include <sys/socket.h>
#include <string.h>

#include "rtltune/ethnl.h"
#include "rtltune/genl_family.h"

struct family_reply {
	struct genl_family_info *out;
	int error;
};

static int family_cb(struct nl_msg *msg, void *arg)
{
	struct family_reply *fr = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op, *ob[CTRL_ATTR_OP_MAX + 1];
	int rem;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return NL_SKIP;
	fr->out->present = true;
	fr->out->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		fr->out->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!tb[CTRL_ATTR_OPS])
		return NL_OK;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem)
	{
		uint32_t id;

		if (nla_parse_nested(ob, CTRL_ATTR_OP_MAX, op, NULL) < 0 || !ob[CTRL_ATTR_OP_ID])
			continue;
		id = nla_get_u32(ob[CTRL_ATTR_OP_ID]);
		if (id < GENL_MAX_OPS)
			fr->out->ops[id / 32] |= 1u << (id % 32);
	}
	return NL_OK;
}

static int family_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	((struct family_reply *)arg)->error = e->error;
	return NL_STOP;
}

int genl_family_probe(const char *name, struct genl_family_info *out, struct rterr *err)
{
	struct family_reply fr = {.out = out};
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if (!sk)
		return rterr_sys(err, ENOMEM, "generic netlink socket");
	r = genl_connect(sk);
	if (r < 0) {
		nl_socket_free(sk);
		return rterr_sys(err, EPROTONOSUPPORT, "connect generic netlink (%s)",
				 nl_geterror(r));
	}
	msg = nlmsg_alloc();
	if (!msg ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0, CTRL_CMD_GETFAMILY,
			 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name) < 0) {
		nlmsg_free(msg);
		nl_socket_free(sk);
		return rterr_sys(err, ENOMEM, "genl family %s", name);
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, family_cb, &fr);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, family_err_cb, &fr);
	r = nl_send_auto(sk, msg);
	if (r >= 0)
		r = nl_recvmsgs_default(sk);
	nlmsg_free(msg);
	nl_socket_free(sk);
	/* The controller answers ENOENT for a family this kernel does not have. */
	if (fr.error == -ENOENT || out->present)
		return 0;
	if (fr.error)
		return rterr_sys(err, -fr.error, "genl family %s", name);
	return r < 0 ? rterr_sys(err, EIO, "genl family %s (%s)", name, nl_geterror(r)) : 0;
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
