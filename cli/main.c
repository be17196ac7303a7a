// SPDX-License-Identifier: GPL-2.0-only
/* rtltune: query and tune NICs. Global options, then a subcommand (cli.h, opts.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "term.h"

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

/* The options before the command; --json and --socket may also follow it. */
struct global_opts {
	bool json, version;
	const char *socket, *config, *netns;
};

static const struct cli_option global_options[] = {
	CLI_FLAG(struct global_opts, json, "json", 'j', "one JSON document on stdout"),
	CLI_STRING(struct global_opts, socket, "socket", 0, "PATH",
		   "rtltuned's control socket (or RTLTUNE_SOCKET; else socket = in its config)"),
	CLI_STRING(struct global_opts, config, "config", 0, "FILE",
		   "rtltuned's config, read for its socket and by doctor (or RTLTUNE_CONFIG)"),
	{.name = "netns",
	 .short_name = 'n',
	 .type = CLI_OPT_STRING,
	 .arg = "NETNS",
	 .help = "run in network namespace NETNS (/run/netns/NETNS), as ip -n does",
	 .offset = CLI_FIELD(struct global_opts, netns, const char *),
	 .before_command = true},
	{.name = "version",
	 .short_name = 'V',
	 .type = CLI_OPT_FLAG,
	 .help = "print the version",
	 .offset = CLI_FIELD(struct global_opts, version, bool),
	 .before_command = true},
	CLI_OPTIONS_END,
};

static void warn(const char *msg)
{
	fprintf(stderr, "rtltune: warning: %s\n", msg);
}

/* The command's words after its name: its options into a fresh struct, positionals kept. */
static int parse_command(struct cli_ctx *ctx, const struct cli_command *cmd, struct global_opts *g,
			 int argc, char **argv, void **opts, int *n_pos)
{
	struct cli_optset sets[2] = {{cmd->options, NULL}, {global_options, g}};
	struct rterr err = {0};
	bool help = false;
	int r;

	*opts = calloc(1, cmd->opts_size ? cmd->opts_size : 1);
	if (!*opts) {
		rterr_sys(&err, ENOMEM, "options");
		return cli_fail(ctx, &err);
	}
	if (cmd->opts_init)
		memcpy(*opts, cmd->opts_init, cmd->opts_size);
	sets[0].dst = *opts;
	r = cli_opts_parse(sets, 2, false, argc, argv, n_pos, NULL, &help, &err);
	ctx->json |= g->json;
	if (r == 0 && !help)
		r = cli_args_check(cmd->args, *n_pos, argv, &err);
	if (r == 0 && !help)
		r = cli_opts_check_required(sets, 1, &err);
	if (r < 0) {
		rterr_prefix(&err, "%s: ", cmd->name);
		snprintf(err.msg + strlen(err.msg), sizeof(err.msg) - strlen(err.msg),
			 "; see rtltune %s --help", cmd->name);
		return cli_fail(ctx, &err);
	}
	if (help)
		return cli_help(ctx, cmd, global_options);
	return -1;
}

int main(int argc, char **argv)
{
	struct cli_ctx ctx = {0};
	const struct cli_command *cmd;
	struct global_opts g = {0};
	struct cli_optset globals = {global_options, &g};
	struct rterr err = {0};
	void *opts = NULL;
	const char *env;
	int r, n_pos, at;
	bool help = false;

	cli_term_init();
	ctx.sysfs_root = getenv("RTLTUNE_SYSFS_ROOT") ?: "/sys";
	ctx.state_dir = getenv("RTLTUNE_STATE_DIR") ?: RTLTUNE_STATEDIR;

	r = cli_opts_parse(&globals, 1, true, argc - 1, argv + 1, &n_pos, &at, &help, &err);
	at++; /* argv + 1 was parsed: the command's index in argv */
	ctx.json = g.json;
	cli_term_json(ctx.json);
	if (r < 0) {
		snprintf(err.msg + strlen(err.msg), sizeof(err.msg) - strlen(err.msg),
			 "; see rtltune --help");
		return cli_fail(&ctx, &err);
	}
	cli_locate_daemon(&ctx, g.socket, g.config);
	if (help)
		return cli_help(&ctx, NULL, global_options);
	if (g.version) {
		char *version_argv[] = {"version", NULL};

		ctx.cmd = cli_find_command("version");
		return ctx.cmd->run(&ctx, 1, version_argv);
	}
	if (!n_pos)
		return cli_usage_error(&ctx, "a COMMAND is missing (rtltune --help lists them)");
	if (strcmp(argv[at], "help") == 0) {
		/* "rtltune help [COMMAND]", as git and ip take it */
		if (at + 1 >= argc)
			return cli_help(&ctx, NULL, global_options);
		cmd = cli_find_command(argv[at + 1]);
		if (!cmd)
			return cli_usage_error(&ctx, "help: unknown command '%s' (rtltune --help)",
					       argv[at + 1]);
		return cli_help(&ctx, cmd, global_options);
	}
	cmd = cli_find_command(argv[at]);
	if (!cmd)
		return cli_usage_error(&ctx, "unknown command '%s' (rtltune --help lists them)",
				       argv[at]);
	ctx.cmd = cmd;
	r = parse_command(&ctx, cmd, &g, argc - at - 1, argv + at + 1, &opts, &n_pos);
	cli_term_json(ctx.json);
	if (r >= 0) {
		free(opts);
		return r;
	}
	cli_locate_daemon(&ctx, g.socket, g.config);
	ctx.opts = opts;
	if (g.netns) {
		ctx.netns = g.netns;
		ctx.needs = CLI_NEEDS_NETNS;
		if (cli_netns_enter(g.netns, warn, &err) < 0) {
			free(opts);
			return cli_fail(&ctx, &err);
		}
	}
	ctx.needs = cmd->needs;
	env = getenv("RTLTUNE_STATE_DIR");
	if (env && *env)
		ctx.state_dir = env;
	/* argv[at] is the command's name, the positionals follow it */
	r = cmd->run(&ctx, 1 + n_pos, argv + at);
	free(opts);
	return r;
}

static int cmd_version(struct cli_ctx *ctx, int argc, char **argv)
{
	json_object *doc = json_object_new_object();

	json_object_object_add(doc, "version", json_object_new_string(RTLTUNE_VERSION));
	if (!ctx->json)
		printf("rtltune %s\n", RTLTUNE_VERSION);
	return cli_emit(ctx, doc, NULL, EXIT_OK);
}
CLI_COMMAND(version, .name = "version", .help = "print the version (also rtltune -V, --version)",
	    .example = "version --json", .run = cmd_version);
