// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pods' side of this namespace's veths (cli.h cli_peer_find()): a veth whose peer is in
 * another namespace names it there, and a change of the veth's sizes reaches the peer when
 * rtltuned manages it (docs/namespaces.md "Pods in the node's stack").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/actuate.h"
#include "rtltune/netns.h"

/* rtltuned's config, read once: its namespaces, interfaces and netns_dirs. */
const struct rtd_config *cli_peers_config(const struct cli_ctx *ctx, struct cli_peers *pp)
{
	struct rterr e = {0};

	if (pp->cfg_read)
		return &pp->cfg;
	pp->cfg_read = true;
	/* No config file: rtltuned's defaults (its own namespace only, the default dirs). */
	if (config_read(access(ctx->daemon_config, F_OK) == 0 ? ctx->daemon_config : NULL, &pp->cfg,
			&e) < 0) {
		config_free(&pp->cfg);
		config_read(NULL, &pp->cfg, &e);
	}
	return &pp->cfg;
}

int cli_netns_path(const struct cli_ctx *ctx, struct cli_peers *pp, const char *name, char *path,
		   size_t len)
{
	const struct rtd_config *cfg = cli_peers_config(ctx, pp);
	unsigned int i;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (i = 0; i < cfg->netns_dirs.n; i++) {
		snprintf(path, len, "%s/%s", cfg->netns_dirs.v[i], name);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

int cli_peer_name(const struct cli_ctx *ctx, struct link_sock *ls, const struct link_info *li,
		  struct cli_peers *pp, char *name, size_t len, char *path, size_t path_len)
{
	struct rterr e = {0};

	name[0] = '\0';
	if (strcmp(li->kind, "veth") != 0 || !li->link_netns || li->link_netnsid < 0)
		return 0;
	cli_peers_config(ctx, pp);
	return netns_find_id(ls, li->link_netnsid, pp->cfg.netns_dirs.v, pp->cfg.netns_dirs.n, name,
			     len, path, path_len, &e);
}

int cli_peer_find(const struct cli_ctx *ctx, struct actuator *act, const struct link_info *li,
		  bool managed_only, struct cli_peers *pp, struct nic_stack *st, struct rterr *err)
{
	char name[64], path[PATH_MAX], why[256];
	struct config_link l;
	struct netns *ns, **grown;
	struct nic nic;
	int r;

	r = cli_peer_name(ctx, actuator_link_sock(act), li, pp, name, sizeof(name), path,
			  sizeof(path));
	if (r <= 0)
		return r;
	if (managed_only && !config_selects_netns(&pp->cfg, name))
		return 0;
	grown = realloc(pp->ns, (pp->n + 1) * sizeof(*grown));
	if (!grown)
		return rterr_sys(err, ENOMEM, "peer of %s", li->ifname);
	pp->ns = grown;
	r = netns_open(name, path, &ns, err);
	if (r < 0)
		return r;
	pp->ns[pp->n++] = ns;
	r = actuator_snapshot_ns(act, ns, li->link, &nic, err);
	if (r < 0) {
		rterr_prefix(err, "%s: its peer in %s: ", li->ifname, name);
		return r;
	}
	/* Within rtltuned's interfaces and exclude, as the daemon selects it. */
	l = (struct config_link){.name = nic.link.ifname,
				 .netns = name,
				 .flags = nic.link.flags,
				 .kind = nic.link.kind,
				 .driver = nic.have_drvinfo ? nic.drv.driver : "veth",
				 .chip = ""};
	if (managed_only && !config_selects(&pp->cfg, &l, why, sizeof(why)))
		return 0;
	stack_set_peer(st, ns, &nic.link);
	return 1;
}

void cli_peers_free(struct cli_peers *pp)
{
	unsigned int i;

	for (i = 0; i < pp->n; i++)
		netns_close(pp->ns[i]);
	free(pp->ns);
	if (pp->cfg_read)
		config_free(&pp->cfg);
	memset(pp, 0, sizeof(*pp));
}
