// SPDX-License-Identifier: GPL-2.0-only
/* rtltune chips [IFACE]: the chip database, or the entry an interface matches and why. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/chipdb.h"
#include "rtltune/nic.h"

static json_object *entry_json(const struct chip_entry *e)
{
	json_object *o = json_object_new_object(), *m = json_object_new_object();
	json_object *lim = json_object_new_object(), *q = json_object_new_array();
	json_object *hints = json_object_new_array(), *revs = NULL;
	char buf[16];
	unsigned int i;

	json_object_object_add(o, "id", json_object_new_string(e->id));
	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(
		m, "driver", e->fields & CHIP_F_DRIVER ? json_object_new_string(e->driver) : NULL);
	snprintf(buf, sizeof(buf), "%04x:%04x", e->pci_vendor, e->pci_device);
	json_object_object_add(m, "pci",
			       e->fields & CHIP_F_PCI ? json_object_new_string(buf) : NULL);
	if (e->fields & CHIP_F_REVISION) {
		revs = json_object_new_array();
		for (i = 0; i < e->n_revisions; i++) {
			snprintf(buf, sizeof(buf), "0x%02x", e->revisions[i]);
			json_object_array_add(revs, json_object_new_string(buf));
		}
	}
	json_object_object_add(m, "revisions", revs);
	json_object_object_add(m, "firmware",
			       e->fields & CHIP_F_FIRMWARE ? json_object_new_string(e->firmware)
							   : NULL);
	json_object_object_add(o, "match", m);
	json_object_object_add(o, "score", json_object_new_int(e->score));
	for (i = 0; i < CHIP_LIMIT__COUNT; i++)
		json_object_object_add(lim, chip_limit_name((enum chip_limit)i),
				       cli_json_i64(chip_limit(e, (enum chip_limit)i)));
	/* max.KNOB lines: the ceilings of knobs without a named limit (rings, channels). */
	for (i = 0; i < e->n_maxes; i++)
		json_object_object_add(lim, knob_name(e->maxes[i].knob),
				       json_object_new_int64(e->maxes[i].value));
	json_object_object_add(o, "limits", lim);
	json_object_object_add(o, "big_tcp", cli_json_bool(e->big_tcp));
	for (i = 0; i < CHIP_QUIRK_COUNT; i++)
		if (chip_has_quirk(e, (enum chip_quirk)(1u << i)))
			json_object_array_add(q, json_object_new_string(chip_quirk_name(
							 (enum chip_quirk)(1u << i))));
	json_object_object_add(o, "quirks", q);
	/* -1 (not declared) is LINK_UNSET: null. */
	json_object_object_add(o, "cpu_dma_latency_us", cli_json_i64(e->cpu_dma_latency_us));
	for (i = 0; i < e->n_hints; i++) {
		json_object *h = json_object_new_object();

		json_object_object_add(h, "profile", json_object_new_string(e->hints[i].profile));
		json_object_object_add(h, "knob",
				       json_object_new_string(knob_name(e->hints[i].knob)));
		json_object_object_add(h, "value",
				       knob_setting_json(e->hints[i].knob, &e->hints[i].value));
		json_object_array_add(hints, h);
	}
	json_object_object_add(o, "hints", hints);
	json_object_object_add(o, "note", cli_json_str(e->note));
	json_object_object_add(o, "file", json_object_new_string(e->file));
	json_object_object_add(o, "line", json_object_new_int((int)e->line));
	return o;
}

static json_object *list_json(const struct chipdb *db)
{
	json_object *doc = json_object_new_object(), *files = json_object_new_array();
	json_object *chips = json_object_new_array();
	unsigned int i;

	for (i = 0; db->files && db->files[i]; i++)
		json_object_array_add(files, json_object_new_string(db->files[i]));
	for (i = 0; i < db->n; i++)
		json_object_array_add(chips, entry_json(&db->entries[i]));
	json_object_object_add(doc, "files", files);
	json_object_object_add(doc, "chips", chips);
	return doc;
}

static json_object *iface_json(const struct chipdb *db, const struct nic *nic)
{
	json_object *doc = json_object_new_object(), *m = json_object_new_object();
	json_object *on = json_object_new_array(), *lost = json_object_new_array();
	json_object *lim = json_object_new_object();
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const struct chip_entry *e;
	struct chip_why why;
	char buf[16];
	unsigned int i;

	e = chipdb_match_nic(db, nic, &why);
	json_object_object_add(doc, "ifname", json_object_new_string(nic->link.ifname));
	json_object_object_add(doc, "driver",
			       cli_json_str(nic->have_drvinfo ? nic->drv.driver : NULL));
	json_object_object_add(doc, "firmware",
			       cli_json_str(nic->have_drvinfo ? nic->drv.firmware : NULL));
	snprintf(buf, sizeof(buf), "%04x:%04x", nic->pci.vendor, nic->pci.device);
	json_object_object_add(doc, "pci_id",
			       nic->pci.present ? json_object_new_string(buf) : NULL);
	snprintf(buf, sizeof(buf), "0x%02x", nic->pci.revision);
	json_object_object_add(doc, "pci_revision",
			       nic->pci.present ? json_object_new_string(buf) : NULL);
	json_object_object_add(doc, "chip", e ? entry_json(e) : NULL);

	if (why.fields & CHIP_F_DRIVER)
		json_object_array_add(on, json_object_new_string("driver"));
	if (why.fields & CHIP_F_PCI)
		json_object_array_add(on, json_object_new_string("pci"));
	if (why.fields & CHIP_F_REVISION)
		json_object_array_add(on, json_object_new_string("revision"));
	if (why.fields & CHIP_F_FIRMWARE)
		json_object_array_add(on, json_object_new_string("firmware"));
	for (i = 0; i < why.n_lost; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "id", json_object_new_string(why.lost[i]->id));
		json_object_object_add(l, "score", json_object_new_int(why.lost[i]->score));
		json_object_object_add(l, "file", json_object_new_string(why.lost[i]->file));
		json_object_object_add(l, "line", json_object_new_int((int)why.lost[i]->line));
		json_object_array_add(lost, l);
	}
	json_object_object_add(m, "matched_on", on);
	json_object_object_add(m, "score", e ? json_object_new_int(why.score) : NULL);
	json_object_object_add(m, "candidates", json_object_new_int((int)why.n_candidates));
	json_object_object_add(m, "lost", lost);
	json_object_object_add(m, "why", json_object_new_string(why.text));
	json_object_object_add(doc, "match", m);

	chip_effective_limits(e, nic, eff);
	for (i = 0; i < CHIP_LIMIT__COUNT; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "value", cli_json_i64(eff[i].value));
		json_object_object_add(
			l, "source", json_object_new_string(chip_limit_source_name(eff[i].source)));
		json_object_object_add(l, "kernel", cli_json_i64(eff[i].kernel));
		json_object_object_add(l, "chip", cli_json_i64(eff[i].table));
		json_object_object_add(lim, chip_limit_name((enum chip_limit)i), l);
	}
	/* The knobs a device reports its own maximum for, cut by the entry's max.KNOB. */
	for (i = 0; i < KNOB__COUNT; i++) {
		int64_t dev = nic_max(nic, (enum knob_id)i), tab = chip_knob_max(e, (enum knob_id)i);
		bool chip_wins = tab != LINK_UNSET && (dev == LINK_UNSET || tab < dev);
		json_object *l;

		if (dev == LINK_UNSET && tab == LINK_UNSET)
			continue;
		l = json_object_new_object();
		json_object_object_add(l, "value", json_object_new_int64(chip_wins ? tab : dev));
		json_object_object_add(l, "source",
				       json_object_new_string(chip_wins ? "chip" : "device"));
		json_object_object_add(l, "kernel", cli_json_i64(dev));
		json_object_object_add(l, "chip", cli_json_i64(tab));
		json_object_object_add(lim, knob_name((enum knob_id)i), l);
	}
	json_object_object_add(doc, "limits", lim);
	return doc;
}

/* ---- text views of the same documents --------------------------------------------- */

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *str(json_object *o, const char *key, char *buf, unsigned int len)
{
	return cli_text_value(get(o, key), buf, len);
}

/* "driver r8169, pci 10ec:8125, revision 0x01/0x02, firmware '*rtl8125b-*'" */
static void match_text(json_object *m, char *out, size_t len)
{
	json_object *revs = get(m, "revisions");
	size_t off = 0;
	size_t i;

	out[0] = '\0';
#define APPEND(...) off += (size_t)snprintf(out + off, off < len ? len - off : 0, __VA_ARGS__)
	if (get(m, "driver"))
		APPEND("driver %s", json_object_get_string(get(m, "driver")));
	if (get(m, "pci"))
		APPEND("%spci %s", off ? ", " : "", json_object_get_string(get(m, "pci")));
	for (i = 0; revs && i < json_object_array_length(revs); i++)
		APPEND("%s%s", i ? "/" : (off ? ", rev " : "rev "),
		       json_object_get_string(json_object_array_get_idx(revs, i)));
	if (get(m, "firmware"))
		APPEND("%sfirmware %s", off ? ", " : "",
		       json_object_get_string(get(m, "firmware")));
#undef APPEND
}

static void join_array(json_object *a, const char *sep, char *out, size_t len)
{
	size_t off = 0, i;

	out[0] = '\0';
	for (i = 0; a && i < json_object_array_length(a); i++)
		off += (size_t)snprintf(out + off, off < len ? len - off : 0, "%s%s", i ? sep : "",
					json_object_get_string(json_object_array_get_idx(a, i)));
}

static int width(const char *s, int cur)
{
	int n = (int)strlen(s);

	return n > cur ? n : cur;
}

static void render_list(json_object *doc)
{
	json_object *chips = get(doc, "chips");
	size_t n = json_object_array_length(chips), i;
	int w_id = 2, w_match = 5, w_src = 6;
	char match[256], src[300], quirks[512], a[32], b[32], c[32];

	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(chips, i);

		match_text(get(e, "match"), match, sizeof(match));
		snprintf(src, sizeof(src), "%s:%d", json_object_get_string(get(e, "file")),
			 json_object_get_int(get(e, "line")));
		w_id = width(json_object_get_string(get(e, "id")), w_id);
		w_match = width(match, w_match);
		w_src = width(src, w_src);
	}
	printf("%-*s  %-*s  %7s  %12s  %5s  %-7s  %-*s  %s\n", w_id, "ID", w_match, "MATCH",
	       "MAX_MTU", "TSO_MAX_SIZE", "SEGS", "BIG_TCP", w_src, "SOURCE", "QUIRKS");
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(chips, i), *lim = get(e, "limits");

		match_text(get(e, "match"), match, sizeof(match));
		snprintf(src, sizeof(src), "%s:%d", json_object_get_string(get(e, "file")),
			 json_object_get_int(get(e, "line")));
		join_array(get(e, "quirks"), ",", quirks, sizeof(quirks));
		printf("%-*s  %-*s  %7s  %12s  %5s  %-7s  %-*s  %s\n", w_id,
		       json_object_get_string(get(e, "id")), w_match, match,
		       str(lim, "max_mtu", a, sizeof(a)), str(lim, "tso_max_size", b, sizeof(b)),
		       str(lim, "tso_max_segs", c, sizeof(c)),
		       get(e, "big_tcp")
			       ? (json_object_get_boolean(get(e, "big_tcp")) ? "yes" : "no")
			       : "-",
		       w_src, src, quirks[0] ? quirks : "-");
	}
	printf("%zu entries from %zu files\n", n, json_object_array_length(get(doc, "files")));
}

/* Long free text, wrapped under the value column. */
static void print_wrapped(const char *label, const char *text)
{
	const int col = 72;
	const char *p = text;
	bool first = true;

	while (*p) {
		int len = (int)strlen(p), cut = len;

		if (len > col) {
			for (cut = col; cut > 0 && p[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = col;
		}
		printf("    %-20s %.*s\n", first ? label : "", cut, p);
		first = false;
		p += cut;
		while (*p == ' ')
			p++;
	}
}

static void render_iface(json_object *doc)
{
	json_object *chip = get(doc, "chip"), *m = get(doc, "match"), *lim = get(doc, "limits");
	char a[128], b[64], c[64], d[64], buf[512];
	size_t i;

	if (chip)
		printf("%s: chip %s (%s)\n", str(doc, "ifname", a, sizeof(a)),
		       str(chip, "id", b, sizeof(b)), json_object_get_string(get(chip, "name")));
	else
		printf("%s: no chip entry\n", str(doc, "ifname", a, sizeof(a)));
	cli_text_kv("driver", get(doc, "driver"));
	cli_text_kv("firmware", get(doc, "firmware"));
	snprintf(buf, sizeof(buf), "%s%s%s", str(doc, "pci_id", a, sizeof(a)),
		 get(doc, "pci_revision") ? " rev " : "",
		 get(doc, "pci_revision") ? str(doc, "pci_revision", b, sizeof(b)) : "");
	printf("    %-20s %s\n", "pci", buf);
	if (chip) {
		match_text(get(chip, "match"), buf, sizeof(buf));
		printf("    %-20s %s (score %s)\n", "entry matches", buf,
		       str(m, "score", a, sizeof(a)));
		printf("    %-20s %s:%d\n", "defined at", json_object_get_string(get(chip, "file")),
		       json_object_get_int(get(chip, "line")));
	}
	print_wrapped(chip ? "why" : "reason", json_object_get_string(get(m, "why")));
	if (chip) {
		json_object *q = get(chip, "quirks");

		if (!json_object_array_length(q))
			printf("    %-20s -\n", "quirks");
		for (i = 0; i < json_object_array_length(q); i++) {
			const char *name = json_object_get_string(json_object_array_get_idx(q, i));
			int bit = chip_quirk_from_name(name);

			printf("    %-20s %s: %s\n", i ? "" : "quirks", name,
			       bit < 0 ? "" : chip_quirk_description((enum chip_quirk)bit));
		}
		if (get(chip, "cpu_dma_latency_us"))
			printf("    %-20s %s us\n", "cpu_dma_latency",
			       str(chip, "cpu_dma_latency_us", a, sizeof(a)));
		if (get(chip, "note"))
			print_wrapped("note", json_object_get_string(get(chip, "note")));
	}
	printf("  %-22s %10s  %-7s %10s %10s\n", "limits", "effective", "from", "kernel", "chip");
	json_object_object_foreach(lim, key, l)
	{
		printf("    %-20s %10s  %-7s %10s %10s\n", key, str(l, "value", a, sizeof(a)),
		       str(l, "source", b, sizeof(b)), str(l, "kernel", c, sizeof(c)),
		       str(l, "chip", d, sizeof(d)));
	}
}

static int cmd_chips(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *ifname = argc > 1 ? argv[1] : NULL;
	struct nic_io *io = NULL;
	struct rterr err = {0};
	struct chipdb *db;
	struct nic nic;
	int code;

	/* A malformed chip file fails the whole command: no partial listing or match. */
	if (chipdb_load_default(&db, &err) < 0)
		return cli_fail(ctx, &err);
	if (!ifname) {
		code = cli_emit(ctx, list_json(db), render_list, EXIT_OK);
		chipdb_free(db);
		return code;
	}
	if (nic_io_open(ctx->sysfs_root, &io, &err) < 0 ||
	    nic_snapshot(io, ifname, &nic, &err) < 0) {
		nic_io_close(io);
		chipdb_free(db);
		return cli_fail(ctx, &err);
	}
	nic_io_close(io);
	code = cli_emit(ctx, iface_json(db, &nic), render_iface, EXIT_OK);
	chipdb_free(db);
	return code;
}
CLI_COMMAND(chips, .name = "chips", .args = "[IFACE]",
	    .help = "the chip database, or the entry IFACE matches and why",
	    .example = "chips eth0", .run = cmd_chips);
