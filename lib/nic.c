// SPDX-License-Identifier: GPL-2.0-only
/* One snapshot of an interface: rtnetlink state + ethtool identity/offloads + PCI id. */
#include <stdlib.h>
#include <string.h>

#include "rtltune/nic.h"

/*
 * "TSO" as a user means it: every TCP segmentation bit. Clearing only
 * tx-tcp-segmentation leaves IPv6 TSO on (the systemd bug KERNEL-NOTES mentions).
 */
const char *const nic_tso_features[] = {
	"tx-tcp-segmentation",	       "tx-tcp6-segmentation", "tx-tcp-ecn-segmentation",
	"tx-tcp-mangleid-segmentation", "tx-tcp-accecn-segmentation",
};
const unsigned int nic_tso_feature_count = sizeof(nic_tso_features) / sizeof(nic_tso_features[0]);

/* Offload state from the feature bits; identity from GDRVINFO. Errors leave fields unknown. */
static void nic_fill_ethtool(const char *sysfs_root, struct nic *nic)
{
	struct eth_features f;
	struct rterr ignored;
	int v4, v6;

	nic->tso = nic->gso = nic->gro = -1;
	nic->speed_mbps = -1;
	nic->have_drvinfo = ethtool_drvinfo(nic->link.ifname, &nic->drv, &ignored) == 0;
	ethtool_speed(nic->link.ifname, &nic->speed_mbps, &ignored);
	pci_ident_read(sysfs_root, nic->link.ifname, &nic->pci);
	if (ethtool_features_get(nic->link.ifname, &f, &ignored) < 0)
		return;
	/* TSO is on when the stack may hand the driver a TCP super-packet of either family
	 * (fec does IPv4 only); this is what ethtool -k's tcp-segmentation-offload shows. */
	v4 = ethtool_feature_active(&f, "tx-tcp-segmentation");
	v6 = ethtool_feature_active(&f, "tx-tcp6-segmentation");
	if (v4 >= 0 || v6 >= 0)
		nic->tso = v4 > 0 || v6 > 0;
	nic->tso_requested = ethtool_feature_requested(&f, "tx-tcp-segmentation") > 0 ||
			     ethtool_feature_requested(&f, "tx-tcp6-segmentation") > 0;
	nic->tso_wish = nic->tso_requested && nic->tso == 0;
	nic->gso = ethtool_feature_active(&f, "tx-generic-segmentation");
	nic->gro = ethtool_feature_active(&f, "rx-gro");
	ethtool_features_free(&f);
}

int nic_snapshot_all(const char *sysfs_root, struct nic **nics, int *n, struct rterr *err)
{
	struct link_info *links;
	struct nic *out;
	int count, i, r;

	*nics = NULL;
	*n = 0;
	r = link_dump(&links, &count, err);
	if (r < 0)
		return r;
	out = calloc(count ? (size_t)count : 1, sizeof(*out));
	if (!out) {
		free(links);
		return rterr_sys(err, ENOMEM, "interface snapshot");
	}
	for (i = 0; i < count; i++) {
		out[i].link = links[i];
		nic_fill_ethtool(sysfs_root, &out[i]);
	}
	free(links);
	*nics = out;
	*n = count;
	return 0;
}

int nic_snapshot(const char *sysfs_root, const char *ifname, struct nic *out, struct rterr *err)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = link_get(ifname, &out->link, err);
	if (r < 0)
		return r;
	nic_fill_ethtool(sysfs_root, out);
	return 0;
}

int64_t nic_knob_value(const struct nic *nic, enum knob_id id)
{
	switch (id) {
	case KNOB_MTU:
		return nic->link.mtu;
	case KNOB_TSO:
		return nic->tso;
	case KNOB_GSO:
		return nic->gso;
	case KNOB_GRO:
		return nic->gro;
	case KNOB_GSO_MAX_SIZE:
		return nic->link.gso_max_size;
	case KNOB_GSO_IPV4_MAX_SIZE:
		return nic->link.gso_ipv4_max_size;
	case KNOB_GRO_MAX_SIZE:
		return nic->link.gro_max_size;
	case KNOB_GRO_IPV4_MAX_SIZE:
		return nic->link.gro_ipv4_max_size;
	case KNOB_GSO_MAX_SEGS:
		return nic->link.gso_max_segs;
	case KNOB__COUNT:
		break;
	}
	return LINK_UNSET;
}
