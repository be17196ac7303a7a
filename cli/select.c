// SPDX-License-Identifier: GPL-2.0-only
/* Which interfaces a command works on (cli.h cli_select()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static bool device_backed(const struct cli_ctx *ctx, const struct link_info *li)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/class/net/%s/device", ctx->sysfs_root, li->ifname);
	return access(path, F_OK) == 0;
}

int cli_find_link(const struct link_info *links, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(links[i].ifname, name) == 0)
			return i;
	return -1;
}

void cli_dedupe_names(char **names, int *n)
{
	int i, j, kept = 0;

	for (i = 0; i < *n; i++) {
		for (j = 0; j < kept && strcmp(names[j], names[i]) != 0; j++)
			;
		if (j == kept)
			names[kept++] = names[i];
	}
	*n = kept;
}

/* A name that is not a link here; "NETNS/IFACE" is how rtltuned names other namespaces'. */
static int no_such(const struct cli_ctx *ctx, const char *name, struct rterr *err)
{
	const char *slash = strchr(name, '/');

	err->kind = RTERR_INPUT;
	err->errnum = ENODEV;
	if (slash) {
		const char *cmd = ctx->cmd ? ctx->cmd->name : "COMMAND";
		const char *args = ctx->cmd && ctx->cmd->args ? ctx->cmd->args : "";
		bool first = !strncmp(args, "IFACE", 5) || !strncmp(args, "[IFACE", 6);

		snprintf(err->msg, sizeof(err->msg),
			 "no such interface: %s (a name has no '/'; for %s in network namespace "
			 "%.*s: rtltune -n %.*s %s %s%s)",
			 name, slash + 1, (int)(slash - name), name, (int)(slash - name), name, cmd,
			 first ? "" : "... ", slash + 1);
	} else
		snprintf(err->msg, sizeof(err->msg), "no such interface: %s", name);
	return -ENODEV;
}

/* Which rule left nothing, with the links it passed over. */
static int none_selected(const struct link_info *links, int n, struct rterr *err)
{
	size_t off;
	int i;

	err->kind = RTERR_EMPTY;
	err->errnum = ENODEV;
	off = (size_t)snprintf(err->msg, sizeof(err->msg),
			       "no interface selected: no IFACE given, and none of the %d link%s "
			       "here (",
			       n, n == 1 ? "" : "s");
	for (i = 0; i < n && i < 8 && off < sizeof(err->msg); i++)
		off += (size_t)snprintf(err->msg + off, sizeof(err->msg) - off, "%s%s",
					i ? ", " : "", links[i].ifname);
	if (off < sizeof(err->msg))
		snprintf(err->msg + off, sizeof(err->msg) - off,
			 "%s) is backed by a device: lo, veth, bridges and other virtual links are "
			 "taken only by name (--allow-none makes this exit 0)",
			 n > 8 ? ", ..." : "");
	return -ENODEV;
}

int cli_select(struct cli_ctx *ctx, struct nic_io *io, char **names, int n_names, bool all_links,
	       bool allow_none, struct link_info **all, int *n_all, struct nic **sel, int *n_sel,
	       struct rterr *err)
{
	struct link_info *links;
	struct nic *out;
	int n, i, j, r;

	*sel = NULL;
	*n_sel = 0;
	cli_dedupe_names(names, &n_names);
	r = link_dump(nic_io_links(io), &links, &n, err);
	if (r < 0)
		return r;
	out = calloc((size_t)(n_names > n ? n_names : n) + 1, sizeof(*out));
	if (!out) {
		free(links);
		return rterr_sys(err, ENOMEM, "interface snapshot");
	}
	for (i = 0; i < n_names; i++) {
		j = cli_find_link(links, n, names[i]);
		if (j < 0) {
			free(links);
			free(out);
			return no_such(ctx, names[i], err);
		}
		nic_from_link(io, &links[j], &out[(*n_sel)++]);
	}
	for (j = 0; !n_names && j < n; j++)
		if (all_links || device_backed(ctx, &links[j]))
			nic_from_link(io, &links[j], &out[(*n_sel)++]);
	if (!*n_sel && !allow_none) {
		r = none_selected(links, n, err);
		free(links);
		free(out);
		*n_sel = 0;
		return r;
	}
	if (all) {
		*all = links;
		*n_all = n;
	} else {
		free(links);
	}
	*sel = out;
	return 0;
}
