// SPDX-License-Identifier: GPL-2.0-only
/*
 * Read-only view of lib/netdev/qstats.c for the integration tests: it sends qstats-get and
 * nothing else, so the tests may point it at the host's real NIC.
 *
 *   qstats_get IFACE          one line per reply, the device's then (with --queues) one
 *   qstats_get --queues IFACE per queue: "device" or "rx-N"/"tx-N", then name=value for
 *                             every counter the driver reported ("none" when the device
 *                             has no queue statistics: no reply at all)
 * Exit 0, 3 when the kernel refuses (no netdev family, no qstats-get), 2 on usage.
 */
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#define TOOL_NAME "qstats_get"
#include "rtltune/napi.h"
#include "rtltune/qstats.h"
#include "tool.h"

static int print_one(const struct qstats *q, void *arg)
{
	unsigned int s;

	(*(unsigned int *)arg)++;
	if (q->queue_type == QSTATS_DEVICE)
		printf("device");
	else
		printf("%s-%u", q->queue_type == RT_NETDEV_QUEUE_TYPE_RX ? "rx" : "tx",
		       q->queue_id);
	for (s = 0; s < QSTAT_COUNT; s++)
		if ((q->have >> s) & 1)
			printf(" %s=%" PRIu64, qstat_name(s), q->val[s]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	bool queues = argc == 3 && !strcmp(argv[1], "--queues");
	const char *ifname = argv[argc - 1];
	struct rterr err = {0};
	struct napi_nl *nl;
	unsigned int n = 0;
	int ifindex;

	if (argc != 2 && !queues)
		return fail(2, "usage: qstats_get [--queues] IFACE");
	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return fail(2, "no such interface: %s", ifname);
	if (napi_nl_open(NULL, &nl, &err) < 0)
		return fail(3, "%s", err.msg);
	if (qstats_nl_dump(nl, ifindex, false, print_one, &n, &err) < 0 ||
	    (queues && qstats_nl_dump(nl, ifindex, true, print_one, &n, &err) < 0)) {
		napi_nl_close(nl);
		return fail(3, "%s", err.msg);
	}
	if (!n)
		printf("none\n");
	napi_nl_close(nl);
	return 0;
}
