// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes through lib/netdev/ethnl.c, for tests in network namespaces. Refuses any device whose
 * driver is not veth or tun: this tool must never touch a host's real NIC.
 *
 *   ethnl_set IFACE GROUP NAME=VALUE...      e.g. channels rx=2 tx=2; prints the group
 *                                            read back ("NAME VALUE" lines)
 *   ethnl_set IFACE features on|off NAME...  prints each name's state read back
 *                                            ("NAME on|off [requested on|off|fixed]") and
 *                                            the kernel's diff ("changed NAME on|off")
 *   ethnl_set --ioctl IFACE GROUP NAME=VALUE... the first form through the SIOCETHTOOL
 *                                            fallback (lib/netdev/ethtool_groups.c), set and read
 *                                            back by ioctl; no netlink socket
 * Exit: 0 done as asked, 1 the kernel kept a feature other than requested, 2 bad
 * arguments, 3 the kernel refused (its message on stderr).
 */
#include <linux/ethtool.h> /* ETHTOOL_F_WISH, ETHTOOL_F_UNSUPPORTED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ethnl_tool.h"

static int group_by_name(const char *name)
{
	int g;

	for (g = 0; g < ETHNL_GROUP_COUNT; g++)
		if (strcmp(ethnl_group_name(g), name) == 0)
			return g;
	return -1;
}

/* e == NULL: through the ioctl. */
static int set_group(struct ethnl *e, int ifindex, const char *ifname, enum ethnl_group g, int n,
		     char **args)
{
	struct ethnl_values want, now;
	struct rterr err = {0};
	size_t i, rows;
	const struct ethnl_attr *a;
	int k;

	ethnl_values_init(&want);
	for (k = 0; k < n; k++) {
		char *eq = strchr(args[k], '='), *end;
		long long v;

		if (!eq) {
			fprintf(stderr, "ethnl_set: expected NAME=VALUE: %s\n", args[k]);
			return 2;
		}
		*eq = '\0';
		a = ethnl_attr_find(g, args[k]);
		v = strtoll(eq + 1, &end, 0);
		if (!a || *end || end == eq + 1) {
			fprintf(stderr, "ethnl_set: unknown %s knob or bad number: %s=%s\n",
				ethnl_group_name(g), args[k], eq + 1);
			return 2;
		}
		want.val[a->attr] = v;
	}
	if (group_set(e, ifindex, ifname, g, &want, &err) < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		return err.kind == RTERR_INPUT ? 2 : 3;
	}
	if (group_get(e, ifindex, ifname, g, &now, &err) < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		return 3;
	}
	a = ethnl_attrs(g, &rows);
	for (i = 0; i < rows; i++)
		if (now.val[a[i].attr] != LINK_UNSET)
			printf("%s %lld\n", a[i].name, (long long)now.val[a[i].attr]);
	return 0;
}

static int set_features(struct ethnl *e, int ifindex, bool on, int n, char **names)
{
	struct ethnl_features_diff diff;
	struct eth_features cur, after;
	struct rterr err = {0};
	unsigned int i;
	int r, k;

	if (ethnl_features_get(e, ifindex, &cur, &err) < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		return 3;
	}
	r = ethnl_features_set(e, ifindex, &cur, (const char *const *)names, (unsigned int)n, on,
			       &diff, &err);
	ethtool_features_free(&cur);
	if (r < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		return 3;
	}
	if (ethnl_features_get(e, ifindex, &after, &err) < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		ethnl_features_diff_free(&diff);
		return 3;
	}
	for (k = 0; k < n; k++) {
		int idx = ethtool_feature_index(&after, names[k]);
		unsigned int u = (unsigned int)idx;

		if (idx < 0) {
			printf("%s absent\n", names[k]);
			continue;
		}
		printf("%s %s", names[k], bit(after.active, u) ? "on" : "off");
		if (!bit(after.available, u) || bit(after.never_changed, u))
			printf(" [fixed]");
		else if (bit(after.requested, u) != bit(after.active, u))
			printf(" [requested %s]", bit(after.requested, u) ? "on" : "off");
		if (u < diff.count && bit(diff.kept, u))
			printf(" kept");
		printf("\n");
	}
	for (i = 0; i < diff.count && i < after.count; i++)
		if (bit(diff.changed, i))
			printf("changed %s %s\n", after.names[i],
			       bit(diff.active, i) ? "on" : "off");
	printf("result%s%s\n", r & ETHTOOL_F_WISH ? " wish" : "",
	       r & ETHTOOL_F_UNSUPPORTED ? " unsupported" : (r ? "" : " ok"));
	ethnl_features_diff_free(&diff);
	ethtool_features_free(&after);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct eth_drvinfo drv;
	struct rterr err = {0};
	struct ethnl *e = NULL;
	bool by_ioctl = argc > 1 && strcmp(argv[1], "--ioctl") == 0;
	int ifindex, g, rc;

	if (by_ioctl) {
		argc--;
		argv++;
	}
	if (argc < 4) {
		fprintf(stderr,
			"usage: ethnl_set [--ioctl] IFACE GROUP NAME=VALUE... | IFACE features "
			"on|off NAME...\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[1]);
	if (ifindex <= 0 || ethtool_drvinfo(argv[1], &drv, &err) < 0) {
		fprintf(stderr, "ethnl_set: no such interface: %s\n", argv[1]);
		return 2;
	}
	if (strcmp(drv.driver, "veth") != 0 && strcmp(drv.driver, "tun") != 0) {
		fprintf(stderr, "ethnl_set: refusing %s (driver %s): veth and tun only\n", argv[1],
			drv.driver);
		return 2;
	}
	if (by_ioctl) {
		g = group_by_name(argv[2]);
		if (g < 0) {
			fprintf(stderr, "ethnl_set: --ioctl: unknown group %s\n", argv[2]);
			return 2;
		}
		return set_group(NULL, ifindex, argv[1], g, argc - 3, argv + 3);
	}
	if (ethnl_open(&e, &err) < 0) {
		fprintf(stderr, "ethnl_set: %s\n", err.msg);
		return 3;
	}
	if (strcmp(argv[2], "features") == 0 &&
	    (strcmp(argv[3], "on") == 0 || strcmp(argv[3], "off") == 0)) {
		rc = set_features(e, ifindex, strcmp(argv[3], "on") == 0, argc - 4, argv + 4);
	} else if ((g = group_by_name(argv[2])) >= 0) {
		rc = set_group(e, ifindex, argv[1], g, argc - 3, argv + 3);
	} else {
		fprintf(stderr, "ethnl_set: unknown group %s\n", argv[2]);
		rc = 2;
	}
	ethnl_close(e);
	return rc;
}
