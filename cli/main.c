// SPDX-License-Identifier: GPL-2.0-only
/* rtltune: query and tune NICs. Global options, then a subcommand (cli.h). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtltune/config.h"

extern struct cli_command __start_rtltune_cmds[];
extern struct cli_command __stop_rtltune_cmds[];

/* The linker collects every CLI_COMMAND() between these two symbols. */
static size_t command_count(void)
{
	return ((uintptr_t)__stop_rtltune_cmds - (uintptr_t)__start_rtltune_cmds) /
	       sizeof(struct cli_command);
}

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: rtltune [--json] [--socket PATH] [--config FILE] COMMAND [ARGS...]\n\n"
		     "Commands:\n");
	for (i = 0; i < command_count(); i++)
		fprintf(out, "  %-40s %s\n", __start_rtltune_cmds[i].usage,
			__start_rtltune_cmds[i].help);
	fprintf(out, "\n--socket PATH: rtltuned's control socket; --config FILE: rtltuned's config, read\n"
		     "for its socket (default %s).\n"
		     "Environment: RTLTUNE_SOCKET, RTLTUNE_CONFIG, RTLTUNE_PROFILE_PATH,\n"
		     "RTLTUNE_CHIP_PATH, RTLTUNE_STATE_DIR (see rtltune(8)).\n",
		RTD_DEFAULT_CONFIG);
}

static const struct cli_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < command_count(); i++)
		if (strcmp(__start_rtltune_cmds[i].name, name) == 0)
			return &__start_rtltune_cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_ctx ctx = { 0 };
	const struct cli_command *cmd;
	const char *env, *opt_socket = NULL, *opt_config = NULL;
	int opt, i;

	ctx.sysfs_root = getenv("RTLTUNE_SYSFS_ROOT") ?: "/sys";
	ctx.state_dir = getenv("RTLTUNE_STATE_DIR") ?: RTLTUNE_STATEDIR;

	/* Global options may also follow the command ("rtltune show --json"): pull them out
	 * of argv here so each command sees only its own arguments. */
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0) {
			ctx.json = true;
		} else if (strncmp(argv[i], "--socket=", 9) == 0) {
			opt_socket = argv[i] + 9;
		} else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
			opt_socket = argv[i + 1];
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
		} else if (strncmp(argv[i], "--config=", 9) == 0) {
			opt_config = argv[i] + 9;
		} else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			opt_config = argv[i + 1];
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
		} else {
			continue;
		}
		memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
		argc--;
		i--;
	}

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cli_usage_error(&ctx, "unknown option '%s' (see rtltune --help)",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return cli_usage_error(&ctx, "unknown command '%s' (see rtltune --help)",
				       argv[optind]);
	env = getenv("RTLTUNE_STATE_DIR");
	if (env && *env)
		ctx.state_dir = env;
	cli_locate_daemon(&ctx, opt_socket, opt_config);
	return cmd->run(&ctx, argc - optind, argv + optind);
}

static int cmd_version(struct cli_ctx *ctx, int argc, char **argv)
{
	json_object *doc = json_object_new_object();

	json_object_object_add(doc, "version", json_object_new_string(RTLTUNE_VERSION));
	if (!ctx->json)
		printf("rtltune %s\n", RTLTUNE_VERSION);
	return cli_emit(ctx, doc, NULL, EXIT_OK);
}
CLI_COMMAND(version, .name = "version", .usage = "version", .help = "print the version",
	    .run = cmd_version);
