// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registered commands and their help, drawn from the registration itself (cli.h
 * struct cli_command, opts.h option rows): a command cannot have options its help does not
 * list, and a new command has a help the moment it is registered.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

extern struct cli_command __start_rtltune_cmds[];
extern struct cli_command __stop_rtltune_cmds[];

/* The linker collects every CLI_COMMAND() between these two symbols. */
const struct cli_command *cli_commands(size_t *n)
{
	*n = ((uintptr_t)__stop_rtltune_cmds - (uintptr_t)__start_rtltune_cmds) /
	     sizeof(struct cli_command);
	return __start_rtltune_cmds;
}

const struct cli_command *cli_find_command(const char *name)
{
	size_t i, n;
	const struct cli_command *cmds = cli_commands(&n);

	for (i = 0; i < n; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

static const char *const type_names[] = {
	[CLI_OPT_FLAG] = "flag",       [CLI_OPT_STRING] = "string", [CLI_OPT_INT] = "int",
	[CLI_OPT_SECONDS] = "seconds", [CLI_OPT_PARSE] = "parsed",
};

static json_object *options_json(const struct cli_option *o, bool with_help)
{
	json_object *a = json_object_new_array();
	char buf[64];

	for (; o && o->name; o++) {
		json_object *r = json_object_new_object();

		snprintf(buf, sizeof(buf), "--%s", o->name);
		json_object_object_add(r, "name", json_object_new_string(buf));
		snprintf(buf, sizeof(buf), "-%c", o->short_name);
		json_object_object_add(r, "short",
				       o->short_name ? json_object_new_string(buf) : NULL);
		json_object_object_add(r, "value", cli_json_str(o->arg));
		json_object_object_add(r, "type", json_object_new_string(type_names[o->type]));
		json_object_object_add(r, "help", json_object_new_string(o->help));
		if (o->type == CLI_OPT_INT) {
			json_object_object_add(r, "min", json_object_new_int64(o->min));
			json_object_object_add(r, "max", json_object_new_int64(o->max));
		} else if (o->type == CLI_OPT_SECONDS) {
			json_object_object_add(r, "min", json_object_new_double(o->dmin));
			json_object_object_add(r, "max", json_object_new_double(o->dmax));
		}
		json_object_object_add(r, "before_command",
				       json_object_new_boolean(o->before_command));
		json_object_array_add(a, r);
	}
	if (with_help) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "name", json_object_new_string("--help"));
		json_object_object_add(r, "short", json_object_new_string("-h"));
		json_object_object_add(r, "value", NULL);
		json_object_object_add(r, "type", json_object_new_string("flag"));
		json_object_object_add(r, "help", json_object_new_string("this help"));
		json_object_object_add(r, "before_command", json_object_new_boolean(false));
		json_object_array_add(a, r);
	}
	return a;
}

/* "apply PROFILE [IFACE...] [--dry-run] [--allow-none]" */
static void usage_line(FILE *out, const struct cli_command *c)
{
	fprintf(out, "%s%s%s", c->name, c->args ? " " : "", c->args ? c->args : "");
	cli_opts_synopsis(out, c->options);
}

static json_object *command_json(const struct cli_command *c)
{
	json_object *o = json_object_new_object();
	char *usage = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&usage, &len);

	if (f) {
		usage_line(f, c);
		fclose(f);
	}
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "usage", cli_json_str(usage));
	json_object_object_add(o, "args", cli_json_str(c->args));
	json_object_object_add(o, "help", json_object_new_string(c->help));
	json_object_object_add(o, "details", cli_json_str(c->details));
	json_object_object_add(o, "example", cli_json_str(c->example));
	json_object_object_add(o, "options", options_json(c->options, true));
	free(usage);
	return o;
}

/* "-j/--json, --socket PATH" for the rows placed before the command or not. */
static void globals_list(const struct cli_option *globals, bool before)
{
	const struct cli_option *g;
	bool first = true;

	for (g = globals; g->name; g++) {
		if (g->before_command != before)
			continue;
		printf("%s", first ? "" : ", ");
		if (g->short_name)
			printf("-%c/", g->short_name);
		printf("--%s%s%s", g->name, g->arg ? " " : "", g->arg ? g->arg : "");
		first = false;
	}
}

static void command_text(const struct cli_command *c, const struct cli_option *globals)
{
	printf("Usage: rtltune [GLOBAL OPTIONS] ");
	usage_line(stdout, c);
	printf("\n%s\n", c->help);
	if (c->details)
		printf("\n%s\n", c->details);
	printf("\nOptions:\n");
	cli_opts_help(stdout, c->options, true);
	printf("\nGlobal options (rtltune --help): ");
	globals_list(globals, false);
	printf(";\nbefore the command: ");
	globals_list(globals, true);
	printf(".\n");
	if (c->example)
		printf("\nExample:\n  rtltune %s\n", c->example);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct cli_command *const *)a)->name,
		      (*(const struct cli_command *const *)b)->name);
}

/* The commands in name order (the linker's order is no order a reader expects). */
static const struct cli_command **sorted_commands(size_t *n)
{
	const struct cli_command *cmds = cli_commands(n);
	const struct cli_command **list = calloc(*n + 1, sizeof(*list));
	size_t i;

	for (i = 0; list && i < *n; i++)
		list[i] = &cmds[i];
	if (list)
		qsort(list, *n, sizeof(*list), by_name);
	return list;
}

static void top_text(const struct cli_ctx *ctx, const struct cli_option *globals)
{
	size_t i, n;
	const struct cli_command **cmds = sorted_commands(&n);
	char head[64];
	int width = 0;

	for (i = 0; cmds && i < n; i++) {
		int len = snprintf(head, sizeof(head), "%s%s%s", cmds[i]->name,
				   cmds[i]->args ? " " : "", cmds[i]->args ? cmds[i]->args : "");

		width = len > width ? len : width;
	}
	printf("Usage: rtltune [OPTIONS] COMMAND [ARGS...]\n"
	       "Query and tune network interfaces: settings, chip limits, profiles, probes, and\n"
	       "the state of rtltuned. rtltune COMMAND --help describes a command.\n\n"
	       "Commands:\n");
	for (i = 0; cmds && i < n; i++) {
		snprintf(head, sizeof(head), "%s%s%s", cmds[i]->name, cmds[i]->args ? " " : "",
			 cmds[i]->args ? cmds[i]->args : "");
		printf("  %-*s  %s\n", width, head, cmds[i]->help);
	}
	free(cmds);
	printf("\nOptions (before the command; --json, --socket and --config also after it):\n");
	cli_opts_help(stdout, globals, true);
	printf("\nThe control socket now: %s\n", ctx->socket_path);
	printf("Exit codes: 0 success, 1 differences found, 2 usage or bad input, 3 the system\n"
	       "refused, 4 no interface selected (--allow-none makes that 0).\n"
	       "Environment: RTLTUNE_SOCKET, RTLTUNE_CONFIG, RTLTUNE_PROFILE_PATH,\n"
	       "RTLTUNE_CHIP_PATH, RTLTUNE_STATE_DIR (rtltune(8)).\n\n"
	       "Example:\n  rtltune -n lab1 apply throughput eth0 --dry-run\n");
}

int cli_help(struct cli_ctx *ctx, const struct cli_command *cmd, const struct cli_option *globals)
{
	json_object *doc;
	size_t i, n;
	const struct cli_command **cmds;

	if (!ctx->json) {
		if (cmd)
			command_text(cmd, globals);
		else
			top_text(ctx, globals);
		fflush(stdout);
		return EXIT_OK;
	}
	if (cmd)
		return cli_emit(ctx, command_json(cmd), NULL, EXIT_OK);
	doc = json_object_new_object();
	json_object_object_add(doc, "options", options_json(globals, true));
	json_object *a = json_object_new_array();

	cmds = sorted_commands(&n);
	for (i = 0; cmds && i < n; i++)
		json_object_array_add(a, command_json(cmds[i]));
	free(cmds);
	json_object_object_add(doc, "commands", a);
	return cli_emit(ctx, doc, NULL, EXIT_OK);
}
