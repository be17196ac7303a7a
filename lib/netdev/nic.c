// SPDX-License-Identifier: GPL-2.0-only
/* One snapshot of an interface: rtnetlink state + ethtool identity/offloads + PCI id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rtltune/around.h"
#include "rtltune/ethtool_groups.h"
#include "rtltune/napi.h"
#include "rtltune/nic.h"
#include "rtltune/testhook.h"

struct nic_io {
	struct link_sock *ls;
	struct ethnl *en;
	struct napi_nl *napi; /* NULL: no netdev family (the NAPI knobs through sysfs) */
	/* The family of 5.6 lacks the group commands (5.7 added them), answering every GET
	 * with EOPNOTSUPP like a driver without the operation: there the ioctl serves them. */
	bool groups_ioctl;
	unsigned int groups; /* which ethtool groups a snapshot reads (bit per group) */
	/* Both allocated (a socket pair per followed pod's namespace: no fixed buffers): the
	 * sysfs it reads, and why ethtool's netlink is not used (NULL: it is). */
	char *sysfs_root;
	char *why;
};

/* Whether the running kernel is older than major.minor (uname(2)). */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

int nic_io_open(const char *sysfs_root, struct nic_io **out, struct rterr *err)
{
	struct nic_io *io = calloc(1, sizeof(*io));
	struct rterr e = {0};
	int r;

	*out = NULL;
	if (!io)
		return rterr_sys(err, ENOMEM, "device sockets");
	io->sysfs_root = strdup(sysfs_root ? sysfs_root : "/sys");
	if (!io->sysfs_root) {
		free(io);
		return rterr_sys(err, ENOMEM, "device sockets");
	}
	io->groups = NIC_GROUPS_ALL;
	r = link_sock_open(&io->ls, err);
	if (r < 0) {
		free(io->sysfs_root);
		free(io);
		return r;
	}
	/* RTLTUNE_TEST_FAULT=ethnl_open=EOPNOTSUPP: a kernel without the family. */
	r = test_hook("ethnl_open");
	if (r < 0)
		rterr_sys(&e, -r, "ethtool netlink family (test fault ethnl_open)");
	else
		r = ethnl_open(&io->en, &e);
	if (r < 0) {
		io->en = NULL;
		io->why = strdup(e.msg); /* NULL out of memory: the reason is not told */
	} else if (kernel_before(5, 7)) {
		io->groups_ioctl = true;
		io->why = strdup("the ethtool netlink family of kernels before 5.7 has no ring, "
				 "coalescing, channel or pause commands");
	}
	/* The netdev family's requests go on the ethtool family's socket (one apply, one
	 * generic netlink socket); napi closes before ethnl (nic_io_close()). */
	if (napi_nl_open(ethnl_socket(io->en), &io->napi, &e) < 0)
		io->napi = NULL;
	*out = io;
	return 0;
}

void nic_io_close(struct nic_io *io)
{
	if (!io)
		return;
	napi_nl_close(io->napi);
	ethnl_close(io->en);
	link_sock_close(io->ls);
	free(io->sysfs_root);
	free(io->why);
	free(io);
}

struct link_sock *nic_io_links(struct nic_io *io)
{
	return io->ls;
}

struct ethnl *nic_io_ethnl(struct nic_io *io)
{
	return io->en;
}

const char *nic_io_sysfs_root(const struct nic_io *io)
{
	return io->sysfs_root;
}

struct napi_nl *nic_io_napi(struct nic_io *io)
{
	return io->napi;
}

const char *nic_io_path(const struct nic_io *io)
{
	return io->en && !io->groups_ioctl ? "netlink" : "ioctl";
}

bool nic_io_groups_by_ioctl(const struct nic_io *io)
{
	return !io->en || io->groups_ioctl;
}

/* One group's values through the family, or the ioctl where it lacks the commands. */
static int group_get(struct nic_io *io, int ifindex, const char *ifname, enum ethnl_group g,
		     struct ethnl_values *v)
{
	struct rterr ignored;

	if (nic_io_groups_by_ioctl(io))
		return ethtool_group_get(ifindex, ifname, g, v, &ignored);
	return ethnl_get(io->en, ifindex, g, v, &ignored);
}

void nic_io_read_groups(struct nic_io *io, unsigned int groups)
{
	io->groups = groups;
}

const char *nic_io_fallback_reason(const struct nic_io *io)
{
	return io->why ? io->why : "";
}

/* A feature knob's state from the bits: on when any of its first n_read names is. */
static void feature_knob(const struct eth_features *f, const struct knob_desc *d, enum knob_id k,
			 struct nic *nic)
{
	int active = -1, requested = 0;
	unsigned int i;

	for (i = 0; i < d->n_read; i++) {
		int a = ethtool_feature_active(f, d->features[i]);

		if (a >= 0)
			active = active > 0 || a > 0;
		requested |= ethtool_feature_requested(f, d->features[i]) > 0;
	}
	nic->val[k] = active;
	nic->requested[k] = requested;
	nic->fixed[k] = !ethtool_features_changeable(f, d->features, d->n_features);
}

void nic_read_group(struct nic_io *io, enum ethnl_group g, struct nic *nic)
{
	struct ethnl_values v;
	const struct ethnl_attr *a;
	size_t i, n;

	ethnl_values_init(&v);
	a = ethnl_attrs(g, &n);
	nic->group_err[g] = group_get(io, nic->link.ifindex, nic->link.ifname, g, &v);
	for (i = 0; i < n; i++) {
		nic->val[a[i].knob] = nic->group_err[g] < 0 ? LINK_UNSET : v.val[a[i].attr];
		nic_set_max(nic, a[i].knob, nic->group_err[g] < 0 ? LINK_UNSET : v.max[a[i].attr]);
	}
}

/* The knobs ethtool reads: the groups io reads (on a read-back, not one the driver had no
 * operation for nor one the first read skipped) and the feature bits. */
static void read_ethtool(struct nic_io *io, struct nic *nic, bool reread)
{
	struct eth_features f;
	struct rterr ignored;
	int k, g, r;

	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		if (reread ? nic->group_err[g] == -EOPNOTSUPP || nic->group_err[g] == -ENODATA
			   : !(io->groups & NIC_GROUP_BIT(g)))
			continue;
		nic_read_group(io, (enum ethnl_group)g, nic);
	}
	nic->ethtool_path = nic_io_path(io);
	r = io->en ? ethnl_features_get(io->en, nic->link.ifindex, &f, &ignored)
		   : ethtool_features_get_index(nic->link.ifindex, nic->link.ifname, &f, &ignored);
	if (r < 0)
		return;
	for (k = 0; k < KNOB__COUNT; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		if (d->backend == KNOB_B_FEATURES)
			feature_knob(&f, d, (enum knob_id)k, nic);
	}
	ethtool_features_free(&f);
}

void nic_from_link(struct nic_io *io, const struct link_info *li, struct nic *nic)
{
	struct rterr ignored;
	int k;

	memset(nic, 0, sizeof(*nic));
	nic->link = *li;
	link_knob_values(li, nic->val);
	nic_max_clear(nic);
	for (k = 0; k < ETHNL_GROUP_COUNT; k++)
		nic->group_err[k] = -ENODATA; /* not read (yet) */
	nic->speed_mbps = -1;
	/* Identity and speed by name: read-only, and a rename in between only leaves them
	 * unknown. Errors leave fields unknown. */
	nic->have_drvinfo = ethtool_drvinfo(li->ifname, &nic->drv, &ignored) == 0;
	ethtool_speed(li->ifname, &nic->speed_mbps, &ignored);
	pci_ident_read(io->sysfs_root, li->ifname, &nic->pci);
	read_ethtool(io, nic, false);
	if (io->groups & NIC_GROUP_AROUND)
		nic_read_around(io, nic);
	else
		around_unread(nic);
}

void nic_read_around(struct nic_io *io, struct nic *nic)
{
	around_read(&(struct around_io){io->napi, io->sysfs_root}, nic);
}

int nic_reread(struct nic_io *io, struct nic *nic, struct rterr *err)
{
	struct link_info li;
	int r = link_get_index(io->ls, nic->link.ifindex, &li, err);

	if (r < 0)
		return r;
	nic->link = li;
	link_knob_values(&li, nic->val);
	read_ethtool(io, nic, true);
	if (io->groups & NIC_GROUP_AROUND)
		nic_read_around(io, nic);
	return 0;
}

int nic_snapshot_index(struct nic_io *io, int ifindex, struct nic *out, struct rterr *err)
{
	struct link_info li;
	int r = link_get_index(io->ls, ifindex, &li, err);

	if (r < 0)
		return r;
	nic_from_link(io, &li, out);
	return 0;
}

int nic_snapshot(struct nic_io *io, const char *ifname, struct nic *out, struct rterr *err)
{
	struct link_info li;
	int r = link_get(io->ls, ifname, &li, err);

	if (r < 0)
		return r;
	nic_from_link(io, &li, out);
	return 0;
}

int nic_snapshot_all(struct nic_io *io, struct nic **nics, int *n, struct rterr *err)
{
	struct link_info *links;
	struct nic *out;
	int count, i, r;

	*nics = NULL;
	*n = 0;
	r = link_dump(io->ls, &links, &count, err);
	if (r < 0)
		return r;
	out = calloc(count ? (size_t)count : 1, sizeof(*out));
	if (!out) {
		free(links);
		return rterr_sys(err, ENOMEM, "interface snapshot");
	}
	for (i = 0; i < count; i++)
		nic_from_link(io, &links[i], &out[i]);
	free(links);
	*nics = out;
	*n = count;
	return 0;
}
