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

int cli_select(struct cli_ctx *ctx, struct nic_io *io, char **names, int n_names, bool all_links,
	       struct link_info **all, int *n_all, struct nic **sel, int *n_sel, struct rterr *err)
{
	struct link_info *links;
	struct nic *out;
	int n, i, j, r;

	*sel = NULL;
	*n_sel = 0;
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
			err->kind = RTERR_INPUT;
			err->errnum = ENODEV;
			snprintf(err->msg, sizeof(err->msg), "no such interface: %s", names[i]);
			return -ENODEV;
		}
		nic_from_link(io, &links[j], &out[(*n_sel)++]);
	}
	for (j = 0; !n_names && j < n; j++)
		if (all_links || device_backed(ctx, &links[j]))
			nic_from_link(io, &links[j], &out[(*n_sel)++]);
	if (all) {
		*all = links;
		*n_all = n;
	} else {
		free(links);
	}
	*sel = out;
	return 0;
}
