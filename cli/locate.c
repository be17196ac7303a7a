// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where rtltuned listens, as the CLI finds it (cli.h cli_locate_daemon()): --socket, then
 * RTLTUNE_SOCKET, then `socket =` in the daemon's config (the file rtltuned reads by
 * default, or the one --config / RTLTUNE_CONFIG names), then the built-in default. Each
 * place looked at and why it was or was not used goes to the control client, which adds it
 * to "rtltuned is not running" (docs/daemon.md "Finding the daemon").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/config.h"

static char config_socket[PATH_MAX];

static const char *nonempty_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* "looked at: A; B; C" grows one place at a time; what does not fit is cut. */
static void looked(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void looked(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 2 >= len)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, len - used, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* The daemon's config file, and how it was chosen: --config, RTLTUNE_CONFIG, the default. */
static void locate_config(struct cli_ctx *ctx, const char *opt_config)
{
	const char *env = nonempty_env("RTLTUNE_CONFIG");

	if (opt_config) {
		ctx->daemon_config = opt_config;
		ctx->daemon_config_from = "--config";
	} else if (env) {
		ctx->daemon_config = env;
		ctx->daemon_config_from = "RTLTUNE_CONFIG";
	} else {
		ctx->daemon_config = RTD_DEFAULT_CONFIG;
		ctx->daemon_config_from = "default";
	}
}

/* How the config file is named in the message: as it was given. */
static const char *config_label(const struct cli_ctx *ctx, char *buf, size_t len)
{
	if (strcmp(ctx->daemon_config_from, "--config") == 0)
		snprintf(buf, len, "--config %s", ctx->daemon_config);
	else if (strcmp(ctx->daemon_config_from, "RTLTUNE_CONFIG") == 0)
		snprintf(buf, len, "RTLTUNE_CONFIG=%s", ctx->daemon_config);
	else
		snprintf(buf, len, "%s", ctx->daemon_config);
	return buf;
}

/* socket = in the daemon's config: the path, or NULL; note says which either way. */
static const char *config_socket_of(const struct cli_ctx *ctx, char *note, size_t len)
{
	struct rtd_config cfg = {0};
	struct rterr err = {0};
	const char *found = NULL;
	char label[PATH_MAX + 32];

	config_label(ctx, label, sizeof(label));
	if (strcmp(ctx->daemon_config_from, "default") == 0 &&
	    access(ctx->daemon_config, F_OK) < 0) {
		snprintf(note, len, "%s (no such file)", label);
		return NULL;
	}
	if (config_read(ctx->daemon_config, &cfg, &err) < 0) {
		snprintf(note, len, "%s (not used: %s)", label, err.msg);
	} else if (strcmp(cfg.socket, CONTROL_DEFAULT_SOCKET) == 0) {
		/* Unset or set to the default: the same socket either way. */
		snprintf(note, len, "%s (no socket = but the default)", label);
	} else {
		snprintf(config_socket, sizeof(config_socket), "%s", cfg.socket);
		snprintf(note, len, "%s: socket = %s (used)", label, cfg.socket);
		found = config_socket;
	}
	config_free(&cfg);
	return found;
}

void cli_locate_daemon(struct cli_ctx *ctx, const char *opt_socket, const char *opt_config)
{
	const char *env = nonempty_env("RTLTUNE_SOCKET");
	char where[1024] = "", note[PATH_MAX + 640];
	const char *path;

	locate_config(ctx, opt_config);
	if (opt_socket) {
		ctx->socket_path = opt_socket;
		looked(where, sizeof(where),
		       "--socket %s (used: it wins over RTLTUNE_SOCKET and the daemon's config)",
		       opt_socket);
	} else if (env) {
		ctx->socket_path = env;
		looked(where, sizeof(where), "--socket (not given)");
		looked(where, sizeof(where),
		       "RTLTUNE_SOCKET=%s (used: it wins over the daemon's config)", env);
	} else {
		looked(where, sizeof(where), "--socket (not given)");
		looked(where, sizeof(where), "RTLTUNE_SOCKET (not set)");
		path = config_socket_of(ctx, note, sizeof(note));
		looked(where, sizeof(where), "%s", note);
		ctx->socket_path = path ? path : CONTROL_DEFAULT_SOCKET;
		if (!path)
			looked(where, sizeof(where), "the built-in default %s (used)",
			       CONTROL_DEFAULT_SOCKET);
	}
	ctl_explain_socket(where);
}
