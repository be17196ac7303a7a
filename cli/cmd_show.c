// SPDX-License-Identifier: GPL-2.0-only
/* rtltune show [IFACE...]: identity, settings and limits of each interface. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/around.h"
#include "rtltune/chipdb.h"
#include "rtltune/hostknob.h"
#include "rtltune/netns.h"
#include "rtltune/nic.h"
#include "rtltune/stack.h"

/*
 * The SPEC's `show --json` keys: identity, state and limits here, then every knob of the
 * knob table under its name (a feature knob also as NAME_requested, the state asked for;
 * a host-wide knob the host's value, the same for every interface, null outside the
 * initial network namespace). The text view walks the same document.
 */
/* Uppers and lowers with the sizes they have, and what local traffic gets (stack.h). */
static void stack_json(json_object *o, const struct nic *nic, const struct link_info *links, int n)
{
	json_object *up = json_object_new_array(), *low = json_object_new_array(), *devs;
	struct nic_stack st;
	unsigned int i;

	stack_build(links, n, nic->link.ifindex, &st);
	devs = json_object_new_array();
	for (i = 0; i < st.n_uppers + st.n_lowers; i++) {
		const struct stack_dev *d =
			i < st.n_uppers ? &st.uppers[i] : &st.lowers[i - st.n_uppers];
		json_object *e = json_object_new_object();

		json_object_array_add(i < st.n_uppers ? up : low,
				      json_object_new_string(d->li.ifname));
		json_object_object_add(e, "ifname", json_object_new_string(d->li.ifname));
		json_object_object_add(e, "role",
				       json_object_new_string(i < st.n_uppers ? "upper" : "lower"));
		json_object_object_add(e, "kind", cli_json_str(d->li.kind));
		json_object_object_add(e, "gso_max_size",
				       cli_json_i64(d->li.knob[KNOB_GSO_MAX_SIZE]));
		json_object_object_add(e, "gso_ipv4_max_size",
				       cli_json_i64(d->li.knob[KNOB_GSO_IPV4_MAX_SIZE]));
		json_object_object_add(e, "gro_max_size",
				       cli_json_i64(d->li.knob[KNOB_GRO_MAX_SIZE]));
		json_object_object_add(e, "tso_max_size", cli_json_i64(d->li.tso_max_size));
		json_object_array_add(devs, e);
	}
	json_object_object_add(o, "uppers", up);
	json_object_object_add(o, "lowers", low);
	json_object_object_add(o, "stack", devs);
	json_object_object_add(o, "effective_gso_max_size",
			       cli_json_i64(stack_effective(&nic->link, &st, KNOB_GSO_MAX_SIZE)));
	json_object_object_add(
		o, "effective_gso_ipv4_max_size",
		cli_json_i64(stack_effective(&nic->link, &st, KNOB_GSO_IPV4_MAX_SIZE)));
	json_object_object_add(o, "effective_gro_max_size",
			       cli_json_i64(stack_effective_gro(&nic->link, &st)));
}

static json_object *show_nic_json(const struct nic *nic, const struct nic *host,
				  const char *chip_id)
{
	json_object *o = json_object_new_object(), *unsup, *fixed;
	char pci[16], key[80];
	int k, g;

	json_object_object_add(o, "ifname", json_object_new_string(nic->link.ifname));
	json_object_object_add(o, "ifindex", json_object_new_int(nic->link.ifindex));
	json_object_object_add(o, "driver",
			       cli_json_str(nic->have_drvinfo ? nic->drv.driver : NULL));
	json_object_object_add(o, "bus_info",
			       cli_json_str(nic->have_drvinfo ? nic->drv.bus_info : NULL));
	json_object_object_add(o, "firmware",
			       cli_json_str(nic->have_drvinfo ? nic->drv.firmware : NULL));
	snprintf(pci, sizeof(pci), "%04x:%04x", nic->pci.vendor, nic->pci.device);
	json_object_object_add(o, "pci_id", nic->pci.present ? json_object_new_string(pci) : NULL);
	json_object_object_add(o, "chip", cli_json_str(chip_id));
	json_object_object_add(o, "kind", cli_json_str(nic->link.kind));
	json_object_object_add(o, "operstate", cli_json_str(nic->link.operstate));
	json_object_object_add(o, "speed_mbps", cli_json_i64(nic->speed_mbps));
	json_object_object_add(o, "min_mtu", cli_json_i64(nic->link.min_mtu));
	json_object_object_add(o, "max_mtu", cli_json_i64(nic->link.max_mtu));
	json_object_object_add(o, "tso_max_size", cli_json_i64(nic->link.tso_max_size));
	json_object_object_add(o, "tso_max_segs", cli_json_i64(nic->link.tso_max_segs));
	json_object_object_add(o, "ethtool_path", cli_json_str(nic->ethtool_path));
	unsup = json_object_new_array();
	for (g = 0; g < ETHNL_GROUP_COUNT; g++)
		if (nic->group_err[g] < 0)
			json_object_array_add(unsup, json_object_new_string(ethnl_group_name(
							     (enum ethnl_group)g)));
	json_object_object_add(o, "unsupported_groups", unsup);
	fixed = json_object_new_array();
	for (k = 0; k < KNOB__COUNT; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		json_object_object_add(
			o, d->name,
			knob_value_json((enum knob_id)k, knob_is_host((enum knob_id)k)
								 ? host->val[k]
								 : nic->val[k]));
		if (d->backend == KNOB_B_ETHNL && d->ethnl_max_attr) {
			snprintf(key, sizeof(key), "%s_max", d->name);
			json_object_object_add(o, key, cli_json_i64(nic_max(nic, (enum knob_id)k)));
		}
		if (d->backend != KNOB_B_FEATURES)
			continue;
		snprintf(key, sizeof(key), "%s_requested", d->name);
		json_object_object_add(o, key, json_object_new_boolean(nic->requested[k]));
		if (nic->fixed[k] && nic->val[k] != LINK_UNSET)
			json_object_array_add(fixed, json_object_new_string(d->name));
	}
	json_object_object_add(o, "fixed_features", fixed);
	json_object_object_add(o, "napi_count",
			       nic->n_napi >= 0 ? json_object_new_int(nic->n_napi) : NULL);
	json_object_object_add(o, "napi_path", json_object_new_string(around_napi_path(nic)));
	return o;
}

/*
 * A veth's other end when it is in another namespace (a pod's eth0, or the node's side seen
 * from a pod): "peer" {"netns": its name in netns_dirs or null, "ifname", "ifindex"}; null
 * for any other link. Its name is read across (IFLA_TARGET_NETNSID), nothing entered; null
 * where that is refused.
 */
static void peer_json(json_object *o, const struct cli_ctx *ctx, struct nic_io *io,
		      const struct link_info *li, struct cli_peers *pp)
{
	char name[64], path[PATH_MAX];
	struct link_info peer;
	struct rterr e = {0};
	json_object *p;

	if (strcmp(li->kind, "veth") != 0 || !li->link_netns || li->link <= 0) {
		json_object_object_add(o, "peer", NULL);
		return;
	}
	p = json_object_new_object();
	json_object_object_add(p, "netns",
			       cli_peer_name(ctx, nic_io_links(io), li, pp, name, sizeof(name),
					     path, sizeof(path)) > 0
				       ? json_object_new_string(name)
				       : NULL);
	json_object_object_add(p, "ifname",
			       li->link_netnsid >= 0 &&
					       link_get_netnsid(nic_io_links(io), li->link_netnsid,
								li->link, &peer, &e) == 0
				       ? json_object_new_string(peer.ifname)
				       : NULL);
	json_object_object_add(p, "ifindex", json_object_new_int(li->link));
	json_object_object_add(o, "peer", p);
}

static const char *chip_id_of(const struct chipdb *db, const struct nic *nic)
{
	const struct chip_entry *e = chipdb_match_nic(db, nic, NULL);

	return e ? e->id : NULL;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *val(json_object *o, const char *key, char *buf, unsigned int len)
{
	return cli_text_value(get(o, key), buf, len);
}

/* "off [requested on]", and the limits a knob's row shows beside it. */
static void render_knob(json_object *o, const struct knob_desc *d)
{
	char v[64], lim[64], key[80];
	const char *val = cli_text_value(get(o, d->name), v, sizeof(v));
	bool wish;

	snprintf(key, sizeof(key), "%s_requested", d->name);
	wish = d->backend == KNOB_B_FEATURES && strcmp(val, "off") == 0 &&
	       json_object_get_boolean(get(o, key));
	snprintf(key, sizeof(key), "%s_max", d->name);
	if (d->backend == KNOB_B_ETHNL && get(o, key)) {
		printf("    %-20s %-10s (max %s)\n", d->name, val,
		       cli_text_value(get(o, key), lim, sizeof(lim)));
		return;
	}
	if (!d->shown[0].key) {
		printf("    %-20s %s%s\n", d->name, val, wish ? " [requested on]" : "");
		return;
	}
	printf("    %-20s %-10s (%s %s", d->name, val, d->shown[0].label,
	       cli_text_value(get(o, d->shown[0].key), lim, sizeof(lim)));
	if (d->shown[1].key)
		printf(", %s %s", d->shown[1].label,
		       cli_text_value(get(o, d->shown[1].key), lim, sizeof(lim)));
	printf(")\n");
}

/* "upper br0 (bridge): gso_max_size 65536 ..." per device, then what the traffic gets. */
static void render_stack(json_object *o)
{
	json_object *devs = get(o, "stack"), *peer = get(o, "peer");
	char a[32], b[32], c[32];
	size_t i;

	/* A veth's other end in another namespace: NETNS/IFACE, as rtltuned names it. */
	if (peer)
		printf("    %-20s %s/%s (ifindex %s)\n", "peer",
		       get(peer, "netns") ? json_object_get_string(get(peer, "netns"))
					  : "(unnamed netns)",
		       val(peer, "ifname", a, sizeof(a)), val(peer, "ifindex", b, sizeof(b)));

	if (!devs || !json_object_array_length(devs))
		return;
	for (i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		printf("    %-20s %s (%s): gso_max_size %s, gro_max_size %s, tso_max_size %s\n",
		       json_object_get_string(get(d, "role")), val(d, "ifname", a, sizeof(a)),
		       val(d, "kind", b, sizeof(b)), val(d, "gso_max_size", c, sizeof(c)),
		       val(d, "gro_max_size", a, sizeof(a)), val(d, "tso_max_size", b, sizeof(b)));
	}
	printf("    %-20s gso_max_size %s, gso_ipv4_max_size %s, gro_max_size %s\n", "effective",
	       val(o, "effective_gso_max_size", a, sizeof(a)),
	       val(o, "effective_gso_ipv4_max_size", b, sizeof(b)),
	       val(o, "effective_gro_max_size", c, sizeof(c)));
}

/* Whether name is in the JSON array of strings arr. */
static bool listed(json_object *arr, const char *name)
{
	size_t i;

	for (i = 0; arr && i < json_object_array_length(arr); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), name) == 0)
			return true;
	return false;
}

/*
 * The ethtool groups: each supported knob on its own line, an unsupported group in one;
 * then the features a user can change, wrapped ("rx-gro-hw off [requested on]"), and how
 * many the driver fixes.
 */
static void render_ethtool(json_object *o)
{
	json_object *unsup = get(o, "unsupported_groups"), *fixed = get(o, "fixed_features");
	int k, g, col = 0; /* 0: nothing printed yet, 1: at a line start */
	char v[64], item[96], path[16];

	printf("    %-20s %s\n", "ethtool via", val(o, "ethtool_path", path, sizeof(path)));
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		const char *name = ethnl_group_name((enum ethnl_group)g);

		if (listed(unsup, name)) {
			printf("    %-20s unsupported by the driver\n", name);
			continue;
		}
		for (k = KNOB_FIRST_ETHNL; k < KNOB_FIRST_FEATURE; k++) {
			const struct knob_desc *d = knob_desc((enum knob_id)k);

			if (d->ethnl_group == g && get(o, d->name))
				render_knob(o, d);
		}
	}
	for (k = KNOB_FIRST_FEATURE; k < KNOB_FIRST_AROUND; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);
		char key[80];
		int len;

		if (!get(o, d->name) || listed(fixed, d->name))
			continue;
		snprintf(key, sizeof(key), "%s_requested", d->name);
		len = snprintf(item, sizeof(item), "%s %s%s", knob_feature_name((enum knob_id)k),
			       val(o, d->name, v, sizeof(v)),
			       !json_object_get_boolean(get(o, d->name)) &&
					       json_object_get_boolean(get(o, key))
				       ? " [requested on]"
				       : "");
		if (col && col + len + 2 > 72) {
			printf(",\n%25s", "");
			col = 1;
		} else {
			printf("%s", col > 1 ? ", " : col ? "" : "    features             ");
		}
		printf("%s", item);
		col += len + 2;
	}
	if (col)
		printf("\n");
	if (fixed && json_object_array_length(fixed))
		printf("    %-20s %zu fixed by the driver (rtltune --json show lists them)\n", "",
		       json_object_array_length(fixed));
}

/* The stack around the NIC: the NAPI settings (and how they are read), RPS/XPS. */
static void render_around(json_object *o)
{
	char a[32], b[32];
	int k;

	printf("    %-20s %s NAPI, via %s\n", "napi", val(o, "napi_count", a, sizeof(a)),
	       val(o, "napi_path", b, sizeof(b)));
	for (k = KNOB_FIRST_AROUND; k < KNOB_FIRST_HOST; k++)
		render_knob(o, knob_desc((enum knob_id)k));
}

static void render_nic(json_object *o)
{
	char a[64], b[64], c[64];
	const char *drv, *kind;
	int k;

	printf("%s (ifindex %s)\n", val(o, "ifname", a, sizeof(a)),
	       val(o, "ifindex", b, sizeof(b)));
	drv = val(o, "driver", a, sizeof(a));
	/* The link kind helps where it differs from the driver (a bridge, a bond's slaves). */
	kind = get(o, "kind") ? val(o, "kind", b, sizeof(b)) : NULL;
	if (kind && strcmp(kind, drv) != 0)
		printf("    %-20s %s (link kind %s)\n", "driver", drv, kind);
	else
		printf("    %-20s %s\n", "driver", drv);
	printf("    %-20s %s\n", "chip", val(o, "chip", a, sizeof(a)));
	printf("    %-20s pci %s  bus %s  firmware %s\n", "identity",
	       val(o, "pci_id", a, sizeof(a)), val(o, "bus_info", b, sizeof(b)),
	       val(o, "firmware", c, sizeof(c)));
	printf("    %-20s %s, speed %s Mb/s\n", "state", val(o, "operstate", a, sizeof(a)),
	       val(o, "speed_mbps", b, sizeof(b)));
	for (k = 0; k < KNOB_FIRST_ETHNL; k++)
		render_knob(o, knob_desc((enum knob_id)k));
	render_ethtool(o);
	render_around(o);
	render_stack(o);
}

/* The host-wide knobs once, after the interfaces, where this namespace has them. */
static void render_host(json_object *o)
{
	char v[32];
	int k;

	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT && !get(o, knob_name((enum knob_id)k)); k++)
		;
	if (k == KNOB__COUNT)
		return;
	printf("\nhost (host-wide, every interface)\n");
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++)
		printf("    %-30s %s\n", knob_name((enum knob_id)k),
		       val(o, knob_name((enum knob_id)k), v, sizeof(v)));
}

static void render_show(json_object *doc)
{
	size_t i, n = json_object_array_length(doc);

	for (i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		render_nic(json_object_array_get_idx(doc, i));
	}
	if (n)
		render_host(json_object_array_get_idx(doc, 0));
}

/*
 * NETNS/IFACE: a pod's interface, read from inside its namespace (found in rtltuned's
 * netns_dirs) with its own sockets and sysfs, as `rtltune -n NETNS show IFACE` shows it,
 * named NETNS/IFACE with "netns": NETNS. 0, or -errno with err.
 */
static int show_pod(const struct cli_ctx *ctx, const char *spec, const struct chipdb *db,
		    struct cli_peers *pp, json_object *doc, struct rterr *err)
{
	const char *slash = strchr(spec, '/');
	char name[64], path[PATH_MAX], full[IF_NAMESIZE + 80];
	struct link_info *links = NULL;
	struct netns *ns = NULL, *prev = NULL;
	struct nic_io *io;
	struct nic nic, host;
	json_object *o;
	int n = 0, j, r;

	snprintf(name, sizeof(name), "%.*s", (int)(slash - spec), spec);
	if ((size_t)(slash - spec) >= sizeof(name) ||
	    !cli_netns_path(ctx, pp, name, path, sizeof(path)))
		return rterr_input(err,
				   "no such interface: %s (no network namespace '%s' in netns_dirs "
				   "of rtltuned's config: ip netns list shows /run/netns)",
				   spec, name);
	r = netns_open(name, path, &ns, err);
	if (r < 0)
		return r;
	r = netns_switch(ns, &prev, err);
	io = r == 0 ? netns_io(ns, err) : NULL;
	if (r == 0 && !io)
		r = -(err->errnum ? err->errnum : EIO);
	if (r == 0)
		r = link_dump(nic_io_links(io), &links, &n, err);
	if (r == 0 && (j = cli_find_link(links, n, slash + 1)) < 0)
		r = rterr_input(err, "no such interface: %s (no %s in network namespace %s)", spec,
				slash + 1, name);
	if (r == 0) {
		nic_from_link(io, &links[j], &nic);
		host_snapshot(host_proc_sys(), &host);
		o = show_nic_json(&nic, &host, chip_id_of(db, &nic));
		snprintf(full, sizeof(full), "%s/%s", name, nic.link.ifname);
		json_object_object_add(o, "ifname", json_object_new_string(full));
		json_object_object_add(o, "netns", json_object_new_string(name));
		stack_json(o, &nic, links, n);
		peer_json(o, ctx, io, &nic.link, pp);
		json_object_array_add(doc, o);
	}
	free(links);
	netns_switch(prev, NULL, NULL);
	netns_close(ns);
	return r;
}

static int cmd_show(struct cli_ctx *ctx, int argc, char **argv)
{
	struct link_info *links = NULL;
	struct cli_peers pp = {0};
	struct nic_io *io = NULL;
	struct rterr err = {0};
	struct chipdb *db = NULL;
	struct nic *nics = NULL, host;
	json_object *doc;
	char **plain = calloc((size_t)argc + 1, sizeof(*plain));
	int n = 0, n_links = 0, n_plain = 0, n_pods = 0, i, r;

	if (!plain)
		return cli_fail(ctx, &(struct rterr){.kind = RTERR_SYSTEM,
						     .errnum = ENOMEM,
						     .msg = "show: out of memory"});
	/* NETNS/IFACE: a pod's interface, shown after this namespace's. */
	for (i = 1; i < argc; i++) {
		if (strchr(argv[i], '/'))
			n_pods++;
		else
			plain[n_plain++] = argv[i];
	}
	r = chipdb_load_default(&db, &err);
	/* One dump for all links; only the ones shown are read further. */
	if (r == 0)
		r = nic_io_open(ctx->sysfs_root, &io, &err);
	if (r == 0 && (n_plain || !n_pods))
		r = cli_select(ctx, io, plain, n_plain, true, false, &links, &n_links, &nics, &n,
			       &err);
	if (r < 0) {
		nic_io_close(io);
		chipdb_free(db);
		free(plain);
		return cli_fail(ctx, &err);
	}
	host_snapshot(host_proc_sys(), &host);
	doc = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *o = show_nic_json(&nics[i], &host, chip_id_of(db, &nics[i]));

		/* The command's own namespace (with -n NETNS too: it answers as ip netns exec
		 * does); a pod's NETNS/IFACE names its own. */
		json_object_object_add(o, "netns", NULL);
		stack_json(o, &nics[i], links, n_links);
		peer_json(o, ctx, io, &nics[i].link, &pp);
		json_object_array_add(doc, o);
	}
	for (i = 1; r == 0 && i < argc; i++)
		if (strchr(argv[i], '/'))
			r = show_pod(ctx, argv[i], db, &pp, doc, &err);
	nic_io_close(io);
	cli_peers_free(&pp);
	free(nics);
	free(links);
	free(plain);
	chipdb_free(db);
	if (r < 0) {
		json_object_put(doc);
		return cli_fail(ctx, &err);
	}
	return cli_emit(ctx, doc, render_show, EXIT_OK);
}

CLI_COMMAND(show, .name = "show", .args = "[IFACE...]",
	    .help = "identity, settings and limits of interfaces",
	    .details = "Without IFACE: every link of the network namespace. No daemon needed.\n"
		       "NETNS/IFACE: IFACE of network namespace NETNS (a pod's, named in\n"
		       "rtltuned's netns_dirs), as -n NETNS shows it. A veth's other end in\n"
		       "another namespace is its peer. The host-wide knobs (net.core.*) follow,\n"
		       "in the initial network namespace.",
	    .example = "show eth0", .run = cmd_show);
