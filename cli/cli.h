/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_H
#define RTLTUNE_CLI_H

#include <json-c/json.h>
#include <stdbool.h>

#include "opts.h"
#include "rtltune/config.h"
#include "rtltune/err.h"
#include "rtltune/nic.h"
#include "rtltune/stack.h"

/* Exit codes (SPEC): */
enum {
	EXIT_OK = 0,
	EXIT_DIFF = 1,
	EXIT_USAGE = 2,
	EXIT_SYSTEM = 3,
	EXIT_NONE_SELECTED = 4, /* RTERR_EMPTY: the selection matched no interface */
};

struct cli_command;

struct cli_ctx {
	bool json;		 /* --json: exactly one JSON document on stdout */
	const char *socket_path; /* --socket, RTLTUNE_SOCKET, the daemon's config, the default */
	/* The daemon's config file (--config, RTLTUNE_CONFIG or RTD_DEFAULT_CONFIG, which may
	 * not exist) and which of the three named it: "--config", "RTLTUNE_CONFIG", "default". */
	const char *daemon_config;
	const char *daemon_config_from;
	const char *sysfs_root; /* "/sys"; RTLTUNE_SYSFS_ROOT for tests */
	const char *state_dir;	/* RTLTUNE_STATE_DIR or the default */
	const char *netns;	/* -n NETNS, or NULL */
	const struct cli_command *cmd;
	const void *opts;   /* the command's options struct, filled from its table */
	unsigned int needs; /* CLI_NEEDS_* of what runs now (cli_explain()) */
};

/* What a command needs from the system: a refusal by the kernel is explained with it. */
enum {
	CLI_NEEDS_NET_ADMIN = 1u << 0, /* changes interfaces */
	CLI_NEEDS_BPF = 1u << 1,       /* loads the probes: CAP_BPF and CAP_PERFMON */
	CLI_NEEDS_STATE = 1u << 2,     /* writes the journal in the state dir */
	CLI_NEEDS_NETNS = 1u << 3,     /* -n NETNS: setns(), a mount namespace for /sys */
};

/*
 * A subcommand, registered with CLI_COMMAND() in its own file: no central table. Everything
 * about its command line is here: main() parses it with the command's option table
 * (opts.h) into a struct of opts_size bytes (opts_init's copy, or zeros), checks the
 * positionals against args, and answers -h/--help from these fields; run() then gets
 * ctx->opts and argv = the command's name and its positionals. It returns an exit code.
 */
struct cli_command {
	const char *name;
	const char *args;    /* the positionals: "PROFILE [IFACE...]"; NULL: none */
	const char *help;    /* one line */
	const char *details; /* more lines for --help (syntax of a value...), or NULL */
	const char *example; /* one command line, without the leading "rtltune " */
	const struct cli_option *options; /* ended by CLI_OPTIONS_END; NULL: none */
	size_t opts_size;
	const void *opts_init;
	unsigned int needs; /* CLI_NEEDS_* */
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
 * A refusal by the system (EPERM; EACCES in the state dir) gets what is missing appended
 * to err's message, decided here from ctx->needs and the process's capabilities: " (rtltune
 * apply needs CAP_NET_ADMIN to change interfaces; this process lacks CAP_NET_ADMIN: run it
 * as root)". cli_fail() calls it; so does every place that shows an error without failing
 * the whole command (an interface of several that failed).
 */
void cli_explain(const struct cli_ctx *ctx, struct rterr *err);

/* The registered commands (help.c), and the one named name or NULL. */
const struct cli_command *cli_commands(size_t *n);
const struct cli_command *cli_find_command(const char *name);
/* --help of one command, or of rtltune (cmd NULL): text on stdout, or JSON with --json. */
int cli_help(struct cli_ctx *ctx, const struct cli_command *cmd, const struct cli_option *globals);

/* Enter network namespace name as ip -n does (netns.c); warn() gets non-fatal failures. */
int cli_netns_enter(const char *name, void (*warn)(const char *msg), struct rterr *err);

/*
 * The daemon's socket and config for ctx (cli/locate.c): --socket (opt_socket, NULL when not
 * given), RTLTUNE_SOCKET, `socket =` in the daemon's config (opt_config, RTLTUNE_CONFIG, or
 * the file rtltuned reads by default), the built-in default, in this order. Never fails: a
 * config that cannot be read is noted in the message a failed connect gives.
 */
void cli_locate_daemon(struct cli_ctx *ctx, const char *opt_socket, const char *opt_config);

/*
 * The interfaces a command works on, from one link dump over io: the named ones (each
 * must exist: RTERR_INPUT "no such interface: NAME"; a name given twice counts once), else
 * every link when all_links, else every link backed by a device (/sys/class/net/X/device:
 * never lo, veth, bridges). When that leaves none: RTERR_EMPTY (exit 4) saying which rule
 * left nothing, unless allow_none. Only the selected links get the rest of a snapshot
 * (ethtool, sysfs). *all, when not NULL, gets the whole dump (free() it); *sel the
 * snapshots (free() it).
 */
int cli_select(struct cli_ctx *ctx, struct nic_io *io, char **names, int n_names, bool all_links,
	       bool allow_none, struct link_info **all, int *n_all, struct nic **sel, int *n_sel,
	       struct rterr *err);
/* names[0..*n) with every name after its first occurrence dropped (order kept). */
void cli_dedupe_names(char **names, int *n);

/* Index of the link named name in links[], or -1. */
int cli_find_link(const struct link_info *links, int n, const char *name);

/*
 * The pods' side of this namespace's veths (cli/pods.c, docs/namespaces.md): the
 * namespaces opened for a command, and rtltuned's config (namespaces, interfaces,
 * netns_dirs) read once from ctx->daemon_config (its defaults when there is none).
 */
struct netns;
struct actuator;
struct link_sock;
struct cli_peers {
	struct rtd_config cfg;
	bool cfg_read;
	struct netns **ns;
	unsigned int n;
};
/* The name (in netns_dirs) of the namespace li's veth peer is in: 1, 0 (not a veth into a
 * named namespace), -errno. */
int cli_peer_name(const struct cli_ctx *ctx, struct link_sock *ls, const struct link_info *li,
		  struct cli_peers *pp, char *name, size_t len, char *path, size_t path_len);
/*
 * li's veth peer, read in its namespace (kept open in pp), into st (stack_set_peer()): 1
 * when set, 0 when li has none, or (managed_only) when rtltuned does not manage it (its
 * namespace not in `namespaces`, or its NETNS/IFACE not selected by `interfaces` and
 * `exclude`), -errno.
 */
int cli_peer_find(const struct cli_ctx *ctx, struct actuator *act, const struct link_info *li,
		  bool managed_only, struct cli_peers *pp, struct nic_stack *st, struct rterr *err);
void cli_peers_free(struct cli_peers *pp);
/* rtltuned's config as pp holds it (read at the first call). */
const struct rtd_config *cli_peers_config(const struct cli_ctx *ctx, struct cli_peers *pp);
/* The file of the namespace named name in netns_dirs (the first directory that has it): 1,
 * or 0 when none has it. */
int cli_netns_path(const struct cli_ctx *ctx, struct cli_peers *pp, const char *name, char *path,
		   size_t len);

/* json helpers: an int64 that is LINK_UNSET (-1) becomes null. */
json_object *cli_json_i64(int64_t v);
json_object *cli_json_bool(int v);	  /* -1 -> null */
json_object *cli_json_str(const char *s); /* NULL or "" -> null */

/* Text helpers: "  label:        value" aligned at a fixed column. */
void cli_text_kv(const char *label, json_object *val);
/* Render a json value as text the way a person reads it (null -> "-", bool -> on/off). */
const char *cli_text_value(json_object *val, char *buf, unsigned int len);

#endif
