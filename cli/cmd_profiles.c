// SPDX-License-Identifier: GPL-2.0-only
/* rtltune profiles / profile show NAME: what the profile path holds, and what a profile sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/chipdb.h"
#include "rtltune/paths.h"
#include "rtltune/profile.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_string(v) : NULL;
}

static int list_width(json_object *list, const char *key, int floor)
{
	size_t i, n = json_object_array_length(list);
	int w = floor;

	for (i = 0; i < n; i++) {
		const char *s = str(json_object_array_get_idx(list, i), key);

		if (s && (int)strlen(s) > w)
			w = (int)strlen(s);
	}
	return w;
}

static void render_profiles(json_object *doc)
{
	json_object *list = get(doc, "profiles");
	size_t i, n = json_object_array_length(list);
	int wname = list_width(list, "name", 4), wpath = list_width(list, "path", 6);

	if (!n) {
		printf("no profiles in the profile path (RTLTUNE_PROFILE_PATH, "
		       "/etc/rtltune/profiles, "
		       "the shipped directory)\n");
		return;
	}
	printf("%-*s  %-*s  %s\n", wname, "NAME", wpath, "SOURCE", "DESCRIPTION");
	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(list, i);
		const char *desc = str(p, "description");

		printf("%-*s  %-*s  ", wname, str(p, "name"), wpath, str(p, "path"));
		if (json_object_get_boolean(get(p, "shadowed")))
			printf("(shadowed by %s)\n", str(p, "shadowed_by"));
		else if (str(p, "error"))
			printf("error: %s\n", str(p, "error"));
		else
			printf("%s\n", desc ? desc : "-");
	}
}

static int cmd_profiles(struct cli_ctx *ctx, int argc, char **argv)
{
	struct profile_summary *list = NULL;
	json_object *doc, *arr, *dirs_json;
	struct rterr err = {0};
	unsigned int n = 0, i;
	char **dirs, **d;

	dirs = paths_search_dirs("RTLTUNE_PROFILE_PATH", "profiles");
	if (!dirs) {
		rterr_sys(&err, ENOMEM, "profile path");
		return cli_fail(ctx, &err);
	}
	if (profile_list_dirs((const char *const *)dirs, &list, &n, &err) < 0) {
		paths_free(dirs);
		return cli_fail(ctx, &err);
	}
	doc = json_object_new_object();
	dirs_json = json_object_new_array();
	for (d = dirs; *d; d++)
		json_object_array_add(dirs_json, json_object_new_string(*d));
	paths_free(dirs);
	json_object_object_add(doc, "search_path", dirs_json);
	arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(list[i].name));
		json_object_object_add(o, "description", cli_json_str(list[i].description));
		json_object_object_add(o, "path", json_object_new_string(list[i].path));
		json_object_object_add(o, "shadowed", json_object_new_boolean(list[i].shadowed));
		json_object_object_add(o, "shadowed_by", cli_json_str(list[i].shadowed_by));
		json_object_object_add(o, "error", cli_json_str(list[i].error));
		json_object_array_add(arr, o);
	}
	profile_list_free(list, n);
	json_object_object_add(doc, "profiles", arr);
	return cli_emit(ctx, doc, render_profiles, EXIT_OK);
}
CLI_COMMAND(profiles, .name = "profiles", .help = "list the profiles in the profile path",
	    .example = "profiles", .run = cmd_profiles);

static json_object *setting_json(enum knob_id id, const struct profile_setting *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "value", knob_setting_json(id, &s->value));
	json_object_object_add(o, "file", cli_json_str(s->file));
	json_object_object_add(o, "line", s->line ? json_object_new_int((int)s->line) : NULL);
	json_object_object_add(o, "section", cli_json_str(s->section));
	json_object_object_add(o, "why", cli_json_str(s->why));
	return o;
}

/* [knobs] lists every knob (an unset one keeps the kernel's value); overrides what they set. */
static json_object *section_json(const struct profile_section *s)
{
	json_object *o = json_object_new_object(), *knobs = json_object_new_object();
	int k;

	json_object_object_add(o, "section", json_object_new_string(s->name));
	json_object_object_add(o, "scope", json_object_new_string(profile_scope_name(s->scope)));
	json_object_object_add(o, "match", cli_json_str(s->match));
	for (k = 0; k < KNOB__COUNT; k++)
		if (s->knobs[k].line || s->scope == PROFILE_SCOPE_GENERIC)
			json_object_object_add(knobs, knob_name((enum knob_id)k),
					       setting_json((enum knob_id)k, &s->knobs[k]));
	json_object_object_add(o, "knobs", knobs);
	return o;
}

static json_object *profile_json(const struct profile *p, const char *driver, const char *chip)
{
	json_object *doc = json_object_new_object(), *arr;
	struct profile_setting resolved[KNOB__COUNT];
	unsigned int i;
	int k;

	json_object_object_add(doc, "name", json_object_new_string(p->name));
	json_object_object_add(doc, "path", json_object_new_string(p->path));
	json_object_object_add(doc, "description", cli_json_str(p->description));
	arr = json_object_new_array();
	for (i = 1; i < p->n_files; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "name", json_object_new_string(p->files[i].name));
		json_object_object_add(f, "path", json_object_new_string(p->files[i].path));
		json_object_object_add(f, "included_from",
				       json_object_new_string(p->files[i].included_from));
		json_object_array_add(arr, f);
	}
	json_object_object_add(doc, "includes", arr);
	arr = json_object_new_array();
	for (i = 0; i < p->n_sections; i++)
		json_object_array_add(arr, section_json(&p->sections[i]));
	json_object_object_add(doc, "sections", arr);
	if (driver || chip) {
		json_object *r = json_object_new_object(), *knobs = json_object_new_object();

		profile_resolve(p, driver, chip, resolved);
		json_object_object_add(r, "driver", cli_json_str(driver));
		json_object_object_add(r, "chip", cli_json_str(chip));
		for (k = 0; k < KNOB__COUNT; k++)
			json_object_object_add(knobs, knob_name((enum knob_id)k),
					       setting_json((enum knob_id)k, &resolved[k]));
		json_object_object_add(r, "knobs", knobs);
		json_object_object_add(doc, "resolved", r);
	}
	return doc;
}

/* Paths next to the profile itself print as bare file names: the header names the dir. */
static const char *short_path(const char *path, const char *top)
{
	const char *slash = strrchr(top, '/');
	size_t dirlen = slash ? (size_t)(slash - top) + 1 : 0;

	if (path && dirlen && !strncmp(path, top, dirlen) && !strchr(path + dirlen, '/'))
		return path + dirlen;
	return path;
}

/* The text of one knob's row: its value and where it comes from. */
static void row_text(json_object *s, const char *top, char *value, size_t vlen, char *origin,
		     size_t olen)
{
	const char *file = str(s, "file");
	char buf[64];

	snprintf(value, vlen, "%s", cli_text_value(get(s, "value"), buf, sizeof(buf)));
	if (file)
		snprintf(origin, olen, "%s:%d", short_path(file, top),
			 json_object_get_int(get(s, "line")));
	else
		snprintf(origin, olen, "(not set)");
}

/*
 * The knobs a section or the resolution sets, in columns as wide as their longest entry;
 * with all, also the ones it leaves alone ("keep (not set)"), else how many those are.
 */
static void render_knobs(json_object *knobs, const char *top, bool all)
{
	char value[64], origin[512];
	int wname = 4, wvalue = 5, worigin = 6, hidden = 0;

	json_object_object_foreach(knobs, name, s)
	{
		if (!all && !str(s, "file"))
			continue;
		row_text(s, top, value, sizeof(value), origin, sizeof(origin));
		wname = (int)strlen(name) > wname ? (int)strlen(name) : wname;
		wvalue = (int)strlen(value) > wvalue ? (int)strlen(value) : wvalue;
		worigin = (int)strlen(origin) > worigin ? (int)strlen(origin) : worigin;
	}
	json_object_object_foreach(knobs, name2, s2)
	{
		const char *why = str(s2, "why");

		if (!all && !str(s2, "file")) {
			hidden++;
			continue;
		}
		row_text(s2, top, value, sizeof(value), origin, sizeof(origin));
		printf("    %-*s  %-*s  %-*s  %s\n", wname, name2, wvalue, value, worigin, origin,
		       why ? why : (str(s2, "file") ? "" : "the kernel's value stays"));
	}
	if (hidden)
		printf("    (%d more knob%s not set: the kernel's value stays; --all lists them)\n",
		       hidden, hidden == 1 ? "" : "s");
}

static void render_profile(json_object *doc)
{
	const char *top = str(doc, "path"), *desc = str(doc, "description");
	json_object *arr = get(doc, "includes"), *r = get(doc, "resolved");
	bool all = json_object_get_boolean(get(doc, "all"));
	size_t i, n = json_object_array_length(arr);

	printf("profile %s%s%s\n", str(doc, "name"), desc ? ": " : "", desc ? desc : "");
	printf("    %-18s %s\n", "file", top);
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(arr, i);

		printf("    %-18s %s (%s, included from %s)\n", i ? "" : "includes", str(f, "name"),
		       str(f, "path"), short_path(str(f, "included_from"), top));
	}
	arr = get(doc, "sections");
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i);

		printf("\n[%s]%s\n", str(s, "section"),
		       i ? "" : "  generic: every interface unless an override section matches");
		render_knobs(get(s, "knobs"), top, all);
	}
	if (r) {
		printf("\nresolved for driver %s, chip %s:\n", str(r, "driver") ?: "-",
		       str(r, "chip") ?: "-");
		render_knobs(get(r, "knobs"), top, all);
	}
}

struct profile_opts {
	const char *driver, *chip;
	bool all;
};

static const struct cli_option profile_options[] = {
	CLI_STRING(struct profile_opts, driver, "driver", 0, "DRIVER",
		   "resolve for an interface of this driver"),
	CLI_STRING(struct profile_opts, chip, "chip", 0, "ID",
		   "resolve for this chip database entry (rtltune chips lists them)"),
	CLI_FLAG(struct profile_opts, all, "all", 0,
		 "also the knobs the profile leaves alone (--json always has them)"),
	CLI_OPTIONS_END,
};

static int cmd_profile(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct profile_opts *o = ctx->opts;
	struct chipdb *db = NULL;
	struct rterr err = {0};
	struct profile *p;
	json_object *doc;

	if (o->chip) {
		bool known;

		if (chipdb_load_default(&db, &err) < 0)
			return cli_fail(ctx, &err);
		known = chipdb_find(db, o->chip) != NULL;
		chipdb_free(db);
		if (!known)
			return cli_usage_error(
				ctx,
				"profile show: unknown chip '%s' (rtltune chips lists "
				"the ids)",
				o->chip);
	}
	if (profile_load(argv[2], &p, &err) < 0)
		return cli_fail(ctx, &err);
	doc = profile_json(p, o->driver, o->chip);
	json_object_object_add(doc, "all", json_object_new_boolean(o->all));
	profile_free(p);
	return cli_emit(ctx, doc, render_profile, EXIT_OK);
}
CLI_COMMAND(profile, .name = "profile", .args = "show NAME",
	    .help = "a profile after includes, each value with its file:line",
	    .details = "Shows the knobs the profile sets, with the comment above each line.",
	    .example = "profile show throughput --driver r8169", .options = profile_options,
	    .opts_size = sizeof(struct profile_opts), .run = cmd_profile);
