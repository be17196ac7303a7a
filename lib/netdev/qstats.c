// SPDX-License-Identifier: GPL-2.0-only
/*
 * qstats-get of the netdev family (qstats.h): a dump on the family's handle (napi.c), each
 * reply through qstats_parse_reply() (qstats_parse.c), the parser the unit tests and the
 * fuzzer exercise. Only ever a read.
 */
#include <errno.h>
#include <stdio.h>

#include "rtltune/napi.h"
#include "rtltune/qstats.h"

bool qstats_nl_supported(const struct napi_nl *nl)
{
	return napi_nl_has_op(nl, RT_NETDEV_CMD_QSTATS_GET);
}

struct dump_arg {
	qstats_fn fn;
	void *arg;
};

static int dump_cb(const void *msg, size_t len, void *arg)
{
	struct dump_arg *da = arg;
	struct qstats q;

	if (qstats_parse_reply(msg, len, &q) < 0)
		return -EPROTO;
	return da->fn(&q, da->arg);
}

int qstats_nl_dump(struct napi_nl *nl, int ifindex, bool per_queue, qstats_fn fn, void *arg,
		   struct rterr *err)
{
	struct napi_nl_attr attrs[2];
	struct dump_arg da = {fn, arg};
	unsigned int n = 0;
	char what[64];

	if (ifindex)
		snprintf(what, sizeof(what), "qstats-get of ifindex %d", ifindex);
	else
		snprintf(what, sizeof(what), "qstats-get");
	if (!qstats_nl_supported(nl))
		return rterr_sys(err, EOPNOTSUPP, "%s: the kernel has no qstats-get (before 6.9)",
				 what);
	/* The ifindex filter's policy wants at least 1: every device goes without it. */
	if (ifindex)
		attrs[n++] = (struct napi_nl_attr){RT_NETDEV_A_QSTATS_IFINDEX, (uint32_t)ifindex};
	if (per_queue)
		attrs[n++] = (struct napi_nl_attr){RT_NETDEV_A_QSTATS_SCOPE,
						   RT_NETDEV_QSTATS_SCOPE_QUEUE};
	return napi_nl_dump(nl, RT_NETDEV_CMD_QSTATS_GET, attrs, n, dump_cb, &da, what, err);
}
