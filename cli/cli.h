/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_H
#define RTLTUNE_CLI_H

#include <json-c/json.h>
#include <stdbool.h>

#include "rtltune/err.h"
#include "rtltune/nic.h"

/* Exit codes (SPEC): */
enum { EXIT_OK = 0, EXIT_DIFF = 1, EXIT_USAGE = 2, EXIT_SYSTEM = 3 };

struct cli_ctx {
	bool json;		 /* --json: exactly one JSON document on stdout */
	const char *socket_path; /* --socket, RTLTUNE_SOCKET, the daemon's config, the default */
	/* The daemon's config file (--config, RTLTUNE_CONFIG or RTD_DEFAULT_CONFIG, which may
	 * not exist) and which of the three named it: "--config", "RTLTUNE_CONFIG", "default". */
	const char *daemon_config;
	const char *daemon_config_from;
	const char *sysfs_root;	 /* "/sys"; RTLTUNE_SYSFS_ROOT for tests */
	const char *state_dir;	 /* RTLTUNE_STATE_DIR or the default */
};

/*
 * A subcommand. run() gets argv starting at the command name. It returns an exit code.
 * Commands register themselves with CLI_COMMAND() in their own file: no central table.
 */
struct cli_command {
	const char *name;
	const char *usage; /* "show [IFACE...]" */
	const char *help;  /* one line */
	int (*run)(struct cli_ctx *ctx, int argc, char **argv);
};

#define CLI_COMMAND(ident, ...)                                                                    \
	static struct cli_command cli_cmd_##ident __attribute__((                                  \
		used, section("rtltune_cmds"), aligned(sizeof(void *)))) = {__VA_ARGS__}

/*
 * One printing path: a command builds one json_object describing its result; --json
 * prints it, text mode hands the same object to the command's renderer. Returns the
 * exit code given.
 */
int cli_emit(struct cli_ctx *ctx, json_object *doc, void (*render_text)(json_object *doc),
	     int code);
/*
 * Report an error: text mode prints "rtltune: MSG" on stderr; --json prints
 * {"error": MSG, "errno": N} on stdout (still exactly one document). Returns the exit
 * code for the error kind.
 */
int cli_fail(struct cli_ctx *ctx, const struct rterr *err);
int cli_usage_error(struct cli_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The daemon's socket and config for ctx (cli/locate.c): --socket (opt_socket, NULL when not
 * given), RTLTUNE_SOCKET, `socket =` in the daemon's config (opt_config, RTLTUNE_CONFIG, or
 * the file rtltuned reads by default), the built-in default, in this order. Never fails: a
 * config that cannot be read is noted in the message a failed connect gives.
 */
void cli_locate_daemon(struct cli_ctx *ctx, const char *opt_socket, const char *opt_config);

/*
 * The interfaces a command works on, from one link dump over io: the named ones (each
 * must exist: RTERR_INPUT "no such interface: NAME"), else every link when all_links, else
 * every link backed by a device (/sys/class/net/X/device: never lo, veth, bridges). Only
 * the selected links get the rest of a snapshot (ethtool, sysfs). *all, when not NULL,
 * gets the whole dump (free() it); *sel the snapshots (free() it).
 */
int cli_select(struct cli_ctx *ctx, struct nic_io *io, char **names, int n_names, bool all_links,
	       struct link_info **all, int *n_all, struct nic **sel, int *n_sel, struct rterr *err);

/* Index of the link named name in links[], or -1. */
int cli_find_link(const struct link_info *links, int n, const char *name);

/* json helpers: an int64 that is LINK_UNSET (-1) becomes null. */
json_object *cli_json_i64(int64_t v);
json_object *cli_json_bool(int v);	  /* -1 -> null */
json_object *cli_json_str(const char *s); /* NULL or "" -> null */

/* Text helpers: "  label:        value" aligned at a fixed column. */
void cli_text_kv(const char *label, json_object *val);
/* Render a json value as text the way a person reads it (null -> "-", bool -> on/off). */
const char *cli_text_value(json_object *val, char *buf, unsigned int len);

#endif
