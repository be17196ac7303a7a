// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests to the netdev generic netlink family for the NAPI settings (napi.h). libnl-genl
 * resolves the family and builds the requests; the answers are read off the socket into
 * one buffer and handed to napi_parse_reply() (lib/netdev/napi_parse.c) and ethnl_parse_ack(),
 * the parsers the unit tests and the fuzzers exercise: reading ourselves keeps the
 * kernel's own errno and its extended ACK text (libnl folds errnos together).
 */
#include <errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "rtltune/ethnl.h"
#include "rtltune/genl_family.h"
#include "rtltune/napi.h"

/* A NAPI reply is under 100 bytes; a dump datagram holds many. The buffer lives for its
 * transaction only (transact()), like ethnl.c's. */
#define NAPI_BUF_SIZE (32 * 1024)

struct napi_nl {
	struct nl_sock *sk;
	bool own_sk; /* false: the ethtool family's socket, borrowed (nic_io_open()) */
	struct genl_family_info fi;
	bool has_get, has_set;
};

void napi_nl_close(struct napi_nl *nl)
{
	if (!nl)
		return;
	if (nl->sk && nl->own_sk)
		nl_socket_free(nl->sk);
	free(nl);
}

int napi_nl_open(struct nl_sock *shared, struct napi_nl **out, struct rterr *err)
{
	struct genl_family_info fi;
	struct napi_nl *nl;
	int r;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return rterr_sys(err, ENOMEM, "netdev netlink socket");
	nl->sk = shared;
	if (!shared) {
		r = genl_sock_open(&nl->sk, err);
		if (r < 0) {
			napi_nl_close(nl);
			return r;
		}
		nl->own_sk = true;
		nl_socket_disable_auto_ack(nl->sk);
	}
	r = genl_family_probe_on(nl->sk, NETDEV_GENL_NAME, &fi, err);
	if (r == 0 && !fi.present)
		r = rterr_sys(err, EOPNOTSUPP,
			      "no netdev generic netlink family (kernel before 6.3)");
	if (r < 0) {
		napi_nl_close(nl);
		return r;
	}
	nl->fi = fi;
	nl->has_get = genl_family_has_op(&fi, RT_NETDEV_CMD_NAPI_GET);
	nl->has_set = genl_family_has_op(&fi, RT_NETDEV_CMD_NAPI_SET);
	*out = nl;
	return 0;
}

bool napi_nl_has_get(const struct napi_nl *nl)
{
	return nl && nl->has_get;
}

bool napi_nl_has_set(const struct napi_nl *nl)
{
	return nl && nl->has_set;
}

bool napi_nl_has_op(const struct napi_nl *nl, unsigned int cmd)
{
	return nl && genl_family_has_op(&nl->fi, cmd);
}

static struct nl_msg *request(const struct napi_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->fi.id, 0, flags, cmd,
				NETDEV_GENL_VER)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct list_arg {
	struct napi_info *out;
	unsigned int max, n;
	int ifindex;
};

/* One napi-get reply into la; NAPIs of other devices skipped. */
static int list_cb(const void *msg, size_t len, void *arg)
{
	struct list_arg *la = arg;
	struct napi_info info;

	if (napi_parse_reply(msg, len, &info) < 0)
		return -EPROTO;
	/* A kernel that ignores the filter (before it had one) lists them all. */
	if (info.ifindex != la->ifindex)
		return 0;
	if (la->n >= la->max)
		return -E2BIG;
	la->out[la->n++] = info;
	return 0;
}

static int request_err(int r, const struct ethnl_ack *ack, const char *what, struct rterr *err)
{
	if (r == -EPROTO)
		return rterr_sys(err, EPROTO, "%s: malformed reply from the kernel", what);
	if (r < 0)
		return rterr_sys(err, -r, "%s", what);
	if (ack->msg[0])
		return rterr_sys(err, -ack->error, "%s (kernel: %s)", what, ack->msg);
	return rterr_sys(err, -ack->error, "%s", what);
}

/* Send req and read its answer (genl_transact()) into a buffer of the transaction's own. */
static int transact(struct napi_nl *nl, struct nl_msg *req, genl_reply_fn fn, void *arg,
		    struct ethnl_ack *ack)
{
	uint8_t *buf = malloc(NAPI_BUF_SIZE);
	int r;

	if (!buf) {
		memset(ack, 0, sizeof(*ack));
		return -ENOMEM;
	}
	r = genl_transact(nl->sk, nl->fi.id, buf, NAPI_BUF_SIZE, req, fn, arg, ack);
	free(buf);
	return r;
}

int napi_nl_dump(struct napi_nl *nl, uint8_t cmd, const struct napi_nl_attr *attrs,
		 unsigned int n_attrs, genl_reply_fn fn, void *arg, const char *what,
		 struct rterr *err)
{
	struct ethnl_ack ack;
	struct nl_msg *req;
	unsigned int i;
	int r;

	req = request(nl, cmd, NLM_F_DUMP);
	for (i = 0; req && i < n_attrs; i++)
		if (nla_put_u32(req, attrs[i].type, attrs[i].value) < 0) {
			nlmsg_free(req);
			req = NULL;
		}
	if (!req)
		return rterr_sys(err, ENOMEM, "%s", what);
	r = transact(nl, req, fn, arg, &ack);
	nlmsg_free(req);
	if (r < 0 || ack.error < 0)
		return request_err(r, &ack, what, err);
	return 0;
}

int napi_nl_list(struct napi_nl *nl, int ifindex, struct napi_info *out, unsigned int max,
		 unsigned int *n, struct rterr *err)
{
	struct list_arg la = {.out = out, .max = max, .ifindex = ifindex};
	struct napi_nl_attr filter = {RT_NETDEV_A_NAPI_IFINDEX, (uint32_t)ifindex};
	char what[64];
	int r;

	*n = 0;
	snprintf(what, sizeof(what), "napi-get of ifindex %d", ifindex);
	if (!nl->has_get)
		return rterr_sys(err, EOPNOTSUPP, "%s: the kernel has no napi-get (before 6.9)",
				 what);
	r = napi_nl_dump(nl, RT_NETDEV_CMD_NAPI_GET, &filter, 1, list_cb, &la, what, err);
	if (r < 0)
		return r;
	*n = la.n;
	return 0;
}

int napi_nl_set(struct napi_nl *nl, uint32_t napi_id, enum napi_setting s, uint64_t value,
		struct rterr *err)
{
	struct ethnl_ack ack;
	struct nl_msg *req;
	char what[96];
	int r;

	snprintf(what, sizeof(what), "napi-set %s %llu on NAPI %u", napi_setting_name(s),
		 (unsigned long long)value, napi_id);
	if (!nl->has_set)
		return rterr_sys(err, EOPNOTSUPP, "%s: the kernel has no napi-set (before 6.13)",
				 what);
	req = request(nl, RT_NETDEV_CMD_NAPI_SET, NLM_F_ACK);
	/* Threaded and defer-hard-irqs are u32, the timeouts the variable uint (u64 here). */
	if (!req || nla_put_u32(req, RT_NETDEV_A_NAPI_ID, napi_id) < 0 ||
	    (s == NAPI_THREADED || s == NAPI_DEFER_HARD_IRQS
		     ? nla_put_u32(req, napi_setting_attr(s), (uint32_t)value)
		     : nla_put_u64(req, napi_setting_attr(s), value)) < 0) {
		nlmsg_free(req);
		return rterr_sys(err, ENOMEM, "%s", what);
	}
	r = transact(nl, req, NULL, NULL, &ack);
	nlmsg_free(req);
	if (r < 0 || ack.error < 0)
		return request_err(r, &ack, what, err);
	return 0;
}
