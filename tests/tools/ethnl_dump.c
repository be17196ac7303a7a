// SPDX-License-Identifier: GPL-2.0-only
/*
 * Read-only view of lib/netdev/ethnl.c for the integration tests: it can only send GET requests,
 * so the tests may point it at the host's real NIC.
 *
 *   ethnl_dump IFACE...                 one JSON array: per interface its rings, coalesce,
 *                                       channels, pause (null + errors.GROUP when the device
 *                                       lacks the operation), *_max, features
 *   ethnl_dump --compare-ioctl IFACE... features by netlink vs the SIOCETHTOOL ioctl,
 *                                       field by field; exit 1 on any difference
 *   ethnl_dump --ioctl IFACE...         the same JSON as the first form, every group and
 *                                       the features read through the ioctl fallback
 *                                       (lib/netdev/ethtool_groups.c); no netlink socket at all.
 *                                       IFINDEX:NAME reads an ifindex, NAME for messages
 *   ethnl_dump --compare-groups IFACE... rings, coalesce, channels and pause by netlink vs
 *                                       the ioctl, value by value under the rules of
 *                                       rtltune/ethtool_groups.h; exit 1 on a difference
 *   ethnl_dump --repeat N IFACE         N reads of every group and the features on one
 *                                       handle; prints the time per full read
 *   ethnl_dump --monitor N [SECONDS]    prints "ready", then N notifications as JSON
 *                                       lines; exit 1 when SECONDS (default 10) pass first
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ethnl_tool.h"

static json_object *num_or_null(int64_t v)
{
	return v == LINK_UNSET ? NULL : json_object_new_int64(v);
}

static json_object *group_json(const struct ethnl_values *v, enum ethnl_group g, bool max)
{
	json_object *o = json_object_new_object();
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++)
		if (!max || a[i].max_attr)
			json_object_object_add(
				o, a[i].name,
				num_or_null(max ? v->max[a[i].attr] : v->val[a[i].attr]));
	return o;
}

static json_object *features_json(const struct eth_features *f)
{
	json_object *o = json_object_new_object();
	unsigned int i;

	for (i = 0; i < f->count; i++) {
		json_object *b = json_object_new_object();

		if (!f->names[i][0])
			continue;
		json_object_object_add(b, "active", json_object_new_boolean(bit(f->active, i)));
		json_object_object_add(b, "available",
				       json_object_new_boolean(bit(f->available, i)));
		json_object_object_add(b, "requested",
				       json_object_new_boolean(bit(f->requested, i)));
		json_object_object_add(b, "never_changed",
				       json_object_new_boolean(bit(f->never_changed, i)));
		json_object_object_add(o, f->names[i], b);
	}
	return o;
}

static int dump_one(struct ethnl *e, const char *arg, json_object *arr)
{
	json_object *o = json_object_new_object(), *errors = json_object_new_object();
	int ifindex = (int)if_nametoindex(arg), g, r;
	const char *ifname = arg, *colon = strchr(arg, ':');
	struct eth_features f;
	struct rterr err = {0};

	if (!e && colon && ifindex <= 0) {
		ifindex = atoi(arg);
		ifname = colon + 1;
	}
	if (ifindex <= 0) {
		fprintf(stderr, "ethnl_dump: no such interface: %s\n", arg);
		return 2;
	}
	json_object_object_add(o, "ifname", json_object_new_string(ifname));
	json_object_object_add(o, "ifindex", json_object_new_int(ifindex));
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		struct ethnl_values v;
		char key[32];

		snprintf(key, sizeof(key), "%s_max", ethnl_group_name(g));
		r = group_get(e, ifindex, ifname, g, &v, &err);
		if (r < 0) {
			json_object_object_add(errors, ethnl_group_name(g),
					       json_object_new_string(err.msg));
			json_object_object_add(o, ethnl_group_name(g), NULL);
			json_object_object_add(o, key, NULL);
			continue;
		}
		json_object_object_add(o, ethnl_group_name(g), group_json(&v, g, false));
		json_object_object_add(o, key, group_json(&v, g, true));
	}
	r = e ? ethnl_features_get(e, ifindex, &f, &err)
	      : ethtool_features_get_index(ifindex, ifname, &f, &err);
	if (r < 0) {
		json_object_object_add(errors, "features", json_object_new_string(err.msg));
		json_object_object_add(o, "features", NULL);
	} else {
		json_object_object_add(o, "features", features_json(&f));
		ethtool_features_free(&f);
	}
	json_object_object_add(o, "errors", errors);
	json_object_array_add(arr, o);
	return 0;
}

/* Every field of struct eth_features, netlink against the ioctl. */
static int compare_ioctl(struct ethnl *e, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), diffs = 0;
	struct eth_features nl, io;
	struct rterr err = {0};
	unsigned int i;

	if (ethnl_features_get(e, ifindex, &nl, &err) < 0 ||
	    ethtool_features_get_index(ifindex, ifname, &io, &err) < 0) {
		fprintf(stderr, "ethnl_dump: %s: %s\n", ifname, err.msg);
		return 3;
	}
	if (nl.count != io.count || nl.words != io.words) {
		printf("%s: count %u/%u words %u/%u (netlink/ioctl)\n", ifname, nl.count, io.count,
		       nl.words, io.words);
		diffs++;
	}
	for (i = 0; !diffs && i < nl.count; i++) {
		static const char *const what[] = {"available", "requested", "active",
						   "never_changed"};
		const uint32_t *a[] = {nl.available, nl.requested, nl.active, nl.never_changed};
		const uint32_t *b[] = {io.available, io.requested, io.active, io.never_changed};
		unsigned int k;

		if (strcmp(nl.names[i], io.names[i]) != 0) {
			printf("%s: bit %u name %s/%s\n", ifname, i, nl.names[i], io.names[i]);
			diffs++;
		}
		for (k = 0; k < 4; k++)
			if (bit(a[k], i) != bit(b[k], i)) {
				printf("%s: %s %s %d/%d\n", ifname, nl.names[i], what[k],
				       bit(a[k], i), bit(b[k], i));
				diffs++;
			}
	}
	printf("%s: %u features compared, %d differences\n", ifname, nl.count, diffs);
	ethtool_features_free(&nl);
	ethtool_features_free(&io);
	return diffs ? 1 : 0;
}

/*
 * Every group by netlink against the ioctl: the same error text when a group fails, else
 * per row the same value and maximum, with the ioctl's two documented differences (a
 * row its struct lacks is LINK_UNSET; a coalesce field netlink leaves out is 0).
 */
static int compare_groups(struct ethnl *e, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), g, diffs = 0, compared = 0;

	if (ifindex <= 0) {
		fprintf(stderr, "ethnl_dump: no such interface: %s\n", ifname);
		return 2;
	}
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		struct rterr nl_err = {0}, io_err = {0};
		struct ethnl_values nl, io;
		int rn = ethnl_get(e, ifindex, g, &nl, &nl_err);
		int ri = ethtool_group_get(ifindex, ifname, g, &io, &io_err);
		size_t i, n;
		const struct ethnl_attr *a = ethnl_attrs(g, &n);

		if (rn < 0 || ri < 0) {
			if (rn != ri || strcmp(nl_err.msg, io_err.msg) != 0) {
				printf("%s: %s: netlink '%s' (%d), ioctl '%s' (%d)\n", ifname,
				       ethnl_group_name(g), nl_err.msg, rn, io_err.msg, ri);
				diffs++;
			}
			printf("%s: %s: both: %s\n", ifname, ethnl_group_name(g), nl_err.msg);
			continue;
		}
		for (i = 0; i < n; i++) {
			unsigned int k = a[i].attr;
			int64_t want = nl.val[k], want_max = nl.max[k];

			if (!ethtool_group_has(g, k))
				want = want_max = LINK_UNSET;
			else if (g == ETHNL_COALESCE && want == LINK_UNSET)
				want = 0;
			compared++;
			if (io.val[k] != want || io.max[k] != want_max) {
				printf("%s: %s %s: netlink %lld max %lld, ioctl %lld max %lld\n",
				       ifname, ethnl_group_name(g), a[i].name, (long long)nl.val[k],
				       (long long)nl.max[k], (long long)io.val[k],
				       (long long)io.max[k]);
				diffs++;
			}
		}
	}
	printf("%s: %d values compared, %d differences\n", ifname, compared, diffs);
	return diffs ? 1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int repeat(struct ethnl *e, const char *ifname, int n)
{
	int ifindex = (int)if_nametoindex(ifname), i, g;
	struct rterr err = {0};
	double t0 = now();

	for (i = 0; i < n; i++) {
		struct eth_features f;
		struct ethnl_values v;

		for (g = 0; g < ETHNL_GROUP_COUNT; g++)
			ethnl_get(e, ifindex, g, &v, &err);
		if (ethnl_features_get(e, ifindex, &f, &err) == 0)
			ethtool_features_free(&f);
	}
	printf("%s: %d reads of 4 groups + features in %.3f s: %.1f us per read\n", ifname, n,
	       now() - t0, (now() - t0) * 1e6 / n);
	return 0;
}

static int monitor(struct ethnl *e, int count, int seconds)
{
	struct ethnl_monitor *m;
	struct rterr err = {0};
	double end = now() + seconds;
	int got = 0;

	if (ethnl_monitor_open(e, &m, &err) < 0) {
		fprintf(stderr, "ethnl_dump: %s\n", err.msg);
		return 3;
	}
	printf("ready\n");
	fflush(stdout);
	while (got < count && now() < end) {
		struct pollfd p = {.fd = ethnl_monitor_fd(m), .events = POLLIN};
		struct ethnl_event ev;
		int r;

		if (poll(&p, 1, (int)((end - now()) * 1000) + 1) <= 0)
			continue;
		while (got < count && (r = ethnl_monitor_read(m, &ev, &err)) != 0) {
			json_object *o;

			if (r < 0) {
				fprintf(stderr, "ethnl_dump: %s\n", err.msg);
				continue;
			}
			o = json_object_new_object();
			json_object_object_add(o, "what",
					       json_object_new_string(ethnl_ntf_name(ev.what)));
			json_object_object_add(o, "cmd", json_object_new_int(ev.cmd));
			json_object_object_add(o, "ifindex", json_object_new_int(ev.ifindex));
			json_object_object_add(o, "ifname", json_object_new_string(ev.ifname));
			if (ev.group >= 0)
				json_object_object_add(o, "values",
						       group_json(&ev.values, ev.group, false));
			printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
			fflush(stdout);
			json_object_put(o);
			got++;
		}
	}
	ethnl_monitor_close(m);
	return got == count ? 0 : 1;
}

/* One JSON array, an object per interface named. */
static int dump_all(struct ethnl *e, char **names, int n)
{
	json_object *arr = json_object_new_array();
	int i, rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = dump_one(e, names[i], arr);
	if (!rc)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	return rc;
}

int main(int argc, char **argv)
{
	struct rterr err = {0};
	struct ethnl *e;
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ethnl_dump [--ioctl|--compare-ioctl|--compare-groups|"
				"--repeat N|--monitor N [S]] IFACE...\n");
		return 2;
	}
	if (strcmp(argv[1], "--ioctl") == 0)
		return dump_all(NULL, argv + 2, argc - 2);
	if (ethnl_open(&e, &err) < 0) {
		fprintf(stderr, "ethnl_dump: %s\n", err.msg);
		return err.errnum == EOPNOTSUPP ? 77 : 3;
	}
	if (strcmp(argv[1], "--monitor") == 0 && argc >= 3) {
		rc = monitor(e, atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 10);
	} else if (strcmp(argv[1], "--repeat") == 0 && argc == 4) {
		rc = repeat(e, argv[3], atoi(argv[2]) > 0 ? atoi(argv[2]) : 1);
	} else if (strcmp(argv[1], "--compare-groups") == 0) {
		for (i = 2; i < argc; i++)
			rc |= compare_groups(e, argv[i]);
	} else if (strcmp(argv[1], "--compare-ioctl") == 0) {
		for (i = 2; i < argc; i++)
			rc |= compare_ioctl(e, argv[i]);
	} else {
		rc = dump_all(e, argv + 1, argc - 1);
	}
	ethnl_close(e);
	return rc;
}
