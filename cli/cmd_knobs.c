// SPDX-License-Identifier: GPL-2.0-only
/* rtltune knobs: the knob table (lib/base/knob.c), every row as the code knows it. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtltune/ethnl.h"
#include "rtltune/knob.h"

static const char *dir_name(enum knob_dir d)
{
	return d == KNOB_DIR_TX ? "tx" : d == KNOB_DIR_RX ? "rx" : "both";
}

static json_object *row_json(enum knob_id k)
{
	const struct knob_desc *d = knob_desc(k);
	json_object *o = json_object_new_object(), *f;
	unsigned int i;

	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "type",
			       json_object_new_string(d->type == KNOB_T_BOOL   ? "bool"
						      : d->type == KNOB_T_CPUS ? "cpus"
									       : "number"));
	json_object_object_add(o, "unit", cli_json_str(d->unit));
	json_object_object_add(o, "direction", json_object_new_string(dir_name(d->dir)));
	json_object_object_add(o, "min", json_object_new_int64(d->min));
	json_object_object_add(o, "max", json_object_new_int64(d->max));
	json_object_object_add(o, "limit", cli_json_str(d->limit_name));
	if (d->backend == KNOB_B_LINK) {
		json_object_object_add(o, "set_by", json_object_new_string("rtnetlink"));
		json_object_object_add(o, "attribute", json_object_new_int(d->ifla));
	} else if (d->backend == KNOB_B_ETHNL) {
		json_object_object_add(o, "set_by", json_object_new_string("ethtool netlink"));
		json_object_object_add(o, "group", json_object_new_string(ethnl_group_name(
							   (enum ethnl_group)d->ethnl_group)));
		json_object_object_add(o, "attribute", json_object_new_int(d->ethnl_attr));
		json_object_object_add(o, "device_max", json_object_new_boolean(d->ethnl_max_attr));
	} else if (d->backend == KNOB_B_NAPI) {
		json_object_object_add(o, "set_by", json_object_new_string("netdev napi-set"));
	} else if (d->backend == KNOB_B_QUEUE) {
		json_object_object_add(o, "set_by", json_object_new_string("sysfs queues"));
	} else if (d->backend == KNOB_B_SYSCTL) {
		/* Once for the host, from the initial network namespace only. */
		json_object_object_add(o, "set_by", json_object_new_string("/proc/sys (host)"));
		json_object_object_add(o, "host_wide", json_object_new_boolean(true));
	} else {
		json_object_object_add(o, "set_by", json_object_new_string("ethtool features"));
		f = json_object_new_array();
		for (i = 0; i < d->n_features; i++)
			json_object_array_add(f, json_object_new_string(d->features[i]));
		json_object_object_add(o, "features", f);
	}
	json_object_object_add(
		o, "twin",
		d->twin >= 0 ? json_object_new_string(knob_name((enum knob_id)d->twin)) : NULL);
	json_object_object_add(o, "help", json_object_new_string(d->help));
	return o;
}

static void render_knobs(json_object *doc)
{
	json_object *knobs = json_object_object_get(doc, "knobs");
	size_t i, n = json_object_array_length(knobs);
	char buf[64];

	printf("%-38s %-6s %-12s %-5s %-16s %s\n", "KNOB", "TYPE", "UNIT", "MOVES", "SET BY",
	       "WHAT");
	for (i = 0; i < n; i++) {
		json_object *k = json_object_array_get_idx(knobs, i);

		printf("%-38s %-6s %-12s %-5s %-16s %s\n",
		       json_object_get_string(json_object_object_get(k, "name")),
		       json_object_get_string(json_object_object_get(k, "type")),
		       cli_text_value(json_object_object_get(k, "unit"), buf, sizeof(buf)),
		       json_object_get_string(json_object_object_get(k, "direction")),
		       json_object_get_string(json_object_object_get(k, "set_by")),
		       json_object_get_string(json_object_object_get(k, "help")));
	}
}

/*
 * rtltune knobs [--names] [PATTERN...]: every row, or those whose name matches one of the
 * fnmatch(3) patterns ('coalesce_*'); --names prints only the names (shell completion).
 */
struct knobs_opts {
	bool names;
};

static const struct cli_option knobs_options[] = {
	CLI_FLAG(struct knobs_opts, names, "names", 0, "only the names, one a line"),
	CLI_OPTIONS_END,
};

static int cmd_knobs(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct knobs_opts *o = ctx->opts;
	json_object *doc, *a;
	bool names = o->names;
	int k, i, n_pat = argc - 1, matched = 0;

	doc = json_object_new_object();
	a = json_object_new_array();
	for (k = 0; k < KNOB__COUNT; k++) {
		const char *name = knob_name((enum knob_id)k);

		for (i = 0; i < n_pat && fnmatch(argv[1 + i], name, 0) != 0; i++)
			;
		if (n_pat && i == n_pat)
			continue;
		matched++;
		if (names && !ctx->json)
			printf("%s\n", name);
		else
			json_object_array_add(a, row_json((enum knob_id)k));
	}
	json_object_object_add(doc, "knobs", a);
	if (!matched) {
		json_object_put(doc);
		return cli_usage_error(ctx, "knobs: no knob matches '%s'%s (rtltune knobs lists them)",
				       argv[1], n_pat > 1 ? " or the other patterns" : "");
	}
	if (names && !ctx->json) {
		json_object_put(doc);
		return EXIT_OK;
	}
	return cli_emit(ctx, doc, render_knobs, EXIT_OK);
}

CLI_COMMAND(knobs, .name = "knobs", .args = "[PATTERN...]",
	    .help = "the knobs a profile can set: type, unit, what they move, how they are set",
	    .details = "PATTERN: a glob over the names (fnmatch(3)), as 'coalesce_*'.",
	    .example = "knobs 'ring_*'", .options = knobs_options,
	    .opts_size = sizeof(struct knobs_opts), .run = cmd_knobs);
