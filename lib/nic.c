// SPDX-License-Identifier: GPL-2.0-only
/* One snapshot of an interface: rtnetlink state + ethtool identity/offloads + PCI id. */
#include <stdlib.h>
#include <string.h>

#include "rtltune/nic.h"

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

void nic_from_link(const char *sysfs_root, const struct link_info *li, struct nic *nic)
{
	struct eth_features f;
	struct rterr ignored;
	int k;

	memset(nic, 0, sizeof(*nic));
	nic->link = *li;
	memcpy(nic->val, li->knob, sizeof(nic->val));
	nic->speed_mbps = -1;
	/* Identity and speed by name: read-only, and a rename in between only leaves them
	 * unknown. Errors leave fields unknown. */
	nic->have_drvinfo = ethtool_drvinfo(li->ifname, &nic->drv, &ignored) == 0;
	ethtool_speed(li->ifname, &nic->speed_mbps, &ignored);
	pci_ident_read(sysfs_root, li->ifname, &nic->pci);
	if (ethtool_features_get_index(li->ifindex, li->ifname, &f, &ignored) < 0)
		return;
	for (k = 0; k < KNOB__COUNT; k++) {
		const struct knob_desc *d = knob_desc((enum knob_id)k);

		if (d->backend == KNOB_B_FEATURES)
			feature_knob(&f, d, (enum knob_id)k, nic);
	}
	ethtool_features_free(&f);
}

int nic_snapshot_index(struct link_sock *ls, const char *sysfs_root, int ifindex, struct nic *out,
		       struct rterr *err)
{
	struct link_info li;
	int r = link_get_index(ls, ifindex, &li, err);

	if (r < 0)
		return r;
	nic_from_link(sysfs_root, &li, out);
	return 0;
}

int nic_snapshot(struct link_sock *ls, const char *sysfs_root, const char *ifname, struct nic *out,
		 struct rterr *err)
{
	struct link_info li;
	int r = link_get(ls, ifname, &li, err);

	if (r < 0)
		return r;
	nic_from_link(sysfs_root, &li, out);
	return 0;
}

int nic_snapshot_all(struct link_sock *ls, const char *sysfs_root, struct nic **nics, int *n,
		     struct rterr *err)
{
	struct link_info *links;
	struct nic *out;
	int count, i, r;

	*nics = NULL;
	*n = 0;
	r = link_dump(ls, &links, &count, err);
	if (r < 0)
		return r;
	out = calloc(count ? (size_t)count : 1, sizeof(*out));
	if (!out) {
		free(links);
		return rterr_sys(err, ENOMEM, "interface snapshot");
	}
	for (i = 0; i < count; i++)
		nic_from_link(sysfs_root, &links[i], &out[i]);
	free(links);
	*nics = out;
	*n = count;
	return 0;
}
