// SPDX-License-Identifier: GPL-2.0-only
/* rtltune show [IFACE...]: identity, settings and limits of each interface. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/chipdb.h"
#include "rtltune/nic.h"

/* The SPEC's `show --json` keys, in order; the text view walks the same list. */
static json_object *show_nic_json(const struct nic *nic, const char *chip_id)
{
	json_object *o = json_object_new_object();
	char pci[16];

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
	json_object_object_add(o, "operstate", cli_json_str(nic->link.operstate));
	json_object_object_add(o, "speed_mbps", cli_json_i64(nic->speed_mbps));
	json_object_object_add(o, "mtu", cli_json_i64(nic->link.mtu));
	json_object_object_add(o, "min_mtu", cli_json_i64(nic->link.min_mtu));
	json_object_object_add(o, "max_mtu", cli_json_i64(nic->link.max_mtu));
	json_object_object_add(o, "tso", cli_json_bool(nic->tso));
	json_object_object_add(o, "gso", cli_json_bool(nic->gso));
	json_object_object_add(o, "gro", cli_json_bool(nic->gro));
	json_object_object_add(o, "gso_max_size", cli_json_i64(nic->link.gso_max_size));
	json_object_object_add(o, "gso_max_segs", cli_json_i64(nic->link.gso_max_segs));
	json_object_object_add(o, "gso_ipv4_max_size", cli_json_i64(nic->link.gso_ipv4_max_size));
	json_object_object_add(o, "gro_max_size", cli_json_i64(nic->link.gro_max_size));
	json_object_object_add(o, "gro_ipv4_max_size", cli_json_i64(nic->link.gro_ipv4_max_size));
	json_object_object_add(o, "tso_max_size", cli_json_i64(nic->link.tso_max_size));
	json_object_object_add(o, "tso_max_segs", cli_json_i64(nic->link.tso_max_segs));
	/* Beyond SPEC's keys: what a person needs to read "off [requested on]". */
	json_object_object_add(o, "tso_requested", json_object_new_boolean(nic->tso_requested));
	json_object_object_add(o, "kind", cli_json_str(nic->link.kind));
	return o;
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

static void render_nic(json_object *o)
{
	char a[64], b[64], c[64];
	const char *tso, *drv, *kind;

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
	printf("    %-20s pci %s  bus %s  firmware %s\n", "identity", val(o, "pci_id", a, sizeof(a)),
	       val(o, "bus_info", b, sizeof(b)), val(o, "firmware", c, sizeof(c)));
	printf("    %-20s %s, speed %s Mb/s\n", "state", val(o, "operstate", a, sizeof(a)),
	       val(o, "speed_mbps", b, sizeof(b)));
	printf("    %-20s %-10s (min %s, max %s)\n", "mtu", val(o, "mtu", a, sizeof(a)),
	       val(o, "min_mtu", b, sizeof(b)), val(o, "max_mtu", c, sizeof(c)));
	tso = val(o, "tso", a, sizeof(a));
	printf("    %-20s %s%s\n", "tso", tso,
	       strcmp(tso, "off") == 0 && json_object_get_boolean(get(o, "tso_requested"))
		       ? " [requested on]"
		       : "");
	cli_text_kv("gso", get(o, "gso"));
	cli_text_kv("gro", get(o, "gro"));
	printf("    %-20s %-10s (tso_max_size %s)\n", "gso_max_size",
	       val(o, "gso_max_size", a, sizeof(a)), val(o, "tso_max_size", b, sizeof(b)));
	cli_text_kv("gso_ipv4_max_size", get(o, "gso_ipv4_max_size"));
	printf("    %-20s %-10s (tso_max_segs %s)\n", "gso_max_segs",
	       val(o, "gso_max_segs", a, sizeof(a)), val(o, "tso_max_segs", b, sizeof(b)));
	cli_text_kv("gro_max_size", get(o, "gro_max_size"));
	cli_text_kv("gro_ipv4_max_size", get(o, "gro_ipv4_max_size"));
}

static void render_show(json_object *doc)
{
	size_t i, n = json_object_array_length(doc);

	for (i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		render_nic(json_object_array_get_idx(doc, i));
	}
}

static int cmd_show(struct cli_ctx *ctx, int argc, char **argv)
{
	struct rterr err = { 0 };
	struct chipdb *db = NULL;
	struct nic *nics = NULL;
	json_object *doc;
	int n = 0, i, j, r;

	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return cli_usage_error(ctx, "show: unknown option '%s'", argv[i]);
	r = chipdb_load_default(&db, &err);
	if (r < 0)
		return cli_fail(ctx, &err);
	/* One dump for all links, even when names are given: same cost, consistent view. */
	r = nic_snapshot_all(ctx->sysfs_root, &nics, &n, &err);
	if (r < 0) {
		chipdb_free(db);
		return cli_fail(ctx, &err);
	}
	doc = json_object_new_array();
	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			for (j = 0; j < n && strcmp(nics[j].link.ifname, argv[i]) != 0; j++)
				;
			if (j == n) {
				json_object_put(doc);
				free(nics);
				chipdb_free(db);
				return cli_usage_error(ctx, "no such interface: %s", argv[i]);
			}
			json_object_array_add(doc, show_nic_json(&nics[j],
								 chip_id_of(db, &nics[j])));
		}
	} else {
		for (j = 0; j < n; j++)
			json_object_array_add(doc, show_nic_json(&nics[j],
								 chip_id_of(db, &nics[j])));
	}
	free(nics);
	chipdb_free(db);
	return cli_emit(ctx, doc, render_show, EXIT_OK);
}

CLI_COMMAND(show, .name = "show", .usage = "show [IFACE...]",
	    .help = "identity, settings and limits of interfaces", .run = cmd_show);
