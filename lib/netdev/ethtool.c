// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SIOCETHTOOL ioctl: driver identity and link speed (read-only, and what ethtool's
 * netlink family has no single request for), and the netdev feature bits by name as the
 * fallback where the kernel has no ethtool netlink family (lib/netdev/ethnl.c is the primary path
 * and addresses devices by ifindex; lib/netdev/nic.c picks). It returns ETHTOOL_F_WISH when the
 * driver keeps a feature other than requested, like the family's FEATURES_SET reply.
 */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ethtool_priv.h"

/*
 * Any socket reaches dev_ioctl(); AF_UNIX works even where IPv4 is disabled. One for the
 * whole process, opened at first use: an apply of 64 interfaces makes thousands of these
 * calls. It belongs to the network namespace the process was in then; while rtltuned works
 * on a device of another namespace (lib/netdev/netns.c) that namespace's own socket stands
 * in for it (ethtool_ctl_fd_use()).
 */
static int ctl_fd = -1;

int ethtool_ctl_fd(void)
{
	if (ctl_fd < 0)
		ctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return ctl_fd < 0 ? -errno : ctl_fd;
}

int ethtool_ctl_fd_use(int fd)
{
	int was = ctl_fd;

	ctl_fd = fd;
	return was;
}

int ethtool_index_to_name(int ifindex, char name[IF_NAMESIZE])
{
	struct ifreq ifr = {.ifr_ifindex = ifindex};
	int fd = ethtool_ctl_fd();

	if (fd < 0)
		return fd;
	if (ifindex <= 0)
		return -ENODEV;
	if (ioctl(fd, SIOCGIFNAME, &ifr) < 0)
		return errno == ENXIO ? -ENODEV : -errno;
	snprintf(name, IF_NAMESIZE, "%.*s", IF_NAMESIZE - 1, ifr.ifr_name);
	return 0;
}

int ethtool_name_to_index(const char *ifname)
{
	struct ifreq ifr = {0};
	int fd = ethtool_ctl_fd();

	if (fd < 0 || strlen(ifname) >= sizeof(ifr.ifr_name))
		return 0;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	return ioctl(fd, SIOCGIFINDEX, &ifr) < 0 ? 0 : ifr.ifr_ifindex;
}

static int ioctl_by_name(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr = {0};
	int r;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENAMETOOLONG;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = cmd;
	r = ioctl(fd, SIOCETHTOOL, &ifr);
	return r < 0 ? -errno : r; /* SFEATURES: a positive ETHTOOL_F_* mask */
}

int ethtool_dev_ioctl(struct eth_dev *d, void *cmd)
{
	char name[IF_NAMESIZE], again[IF_NAMESIZE];
	int fd, r, tries;

	fd = ethtool_ctl_fd();
	if (fd < 0)
		return fd;
	if (d->ifindex <= 0)
		return ioctl_by_name(fd, d->ifname, cmd);
	for (tries = 0; tries < ETHTOOL_RENAME_TRIES; tries++) {
		/* SIOCGIFNAME: dev_ifname() answers -ENODEV for an ifindex nobody holds. */
		r = ethtool_index_to_name(d->ifindex, name);
		if (r == 0) {
			int rc = ioctl_by_name(fd, name, cmd);

			r = ethtool_index_to_name(d->ifindex, again);
			if (r == 0 && strcmp(name, again) == 0)
				return rc;
		}
		if (r == -ENODEV) {
			d->gone = true;
			break;
		}
		if (r < 0)
			break;
		d->renames++;
	}
	return r < 0 ? r : -EAGAIN;
}

/*
 * The message for a failed call: by index, a vanished device and a rename storm say so
 * rather than the name the call happened to use.
 */
static int dev_err(const struct eth_dev *d, int r, const char *what, struct rterr *err)
{
	if (d->gone)
		return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared (%s)", d->ifindex,
				 d->ifname, what);
	if (d->ifindex > 0 && r == -EAGAIN)
		return rterr_sys(err, EAGAIN, "%s: %s: renamed %d times during one call", d->ifname,
				 what, d->renames);
	return rterr_sys(err, -r, "%s: %s", d->ifname, what);
}

/* Plain by-name call, for the identity and speed reads of a snapshot. */
static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct eth_dev d = {.ifname = ifname};

	return ethtool_dev_ioctl(&d, cmd);
}

int ethtool_drvinfo(const char *ifname, struct eth_drvinfo *out, struct rterr *err)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	int r = ethtool_ioctl(ifname, &info);

	memset(out, 0, sizeof(*out));
	if (r < 0)
		return rterr_sys(err, -r, "%s: ethtool driver info", ifname);
	snprintf(out->driver, sizeof(out->driver), "%.*s", (int)sizeof(info.driver), info.driver);
	snprintf(out->version, sizeof(out->version), "%.*s", (int)sizeof(info.version),
		 info.version);
	snprintf(out->firmware, sizeof(out->firmware), "%.*s", (int)sizeof(info.fw_version),
		 info.fw_version);
	snprintf(out->bus_info, sizeof(out->bus_info), "%.*s", (int)sizeof(info.bus_info),
		 info.bus_info);
	/* Drivers without a firmware or bus report "N/A" or "". Normalise to "". */
	if (strcmp(out->firmware, "N/A") == 0)
		out->firmware[0] = '\0';
	if (strcmp(out->bus_info, "N/A") == 0)
		out->bus_info[0] = '\0';
	return 0;
}

int ethtool_speed(const char *ifname, int64_t *speed_mbps, struct rterr *err)
{
	struct {
		struct ethtool_link_settings req;
		uint32_t masks[3 * 127]; /* link_mode_masks_nwords is an s8 */
	} ls;
	int r;

	*speed_mbps = -1;
	/* Handshake: the kernel answers a zero nwords with the negative size it wants. */
	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	r = ethtool_ioctl(ifname, &ls);
	if (r == 0 && ls.req.link_mode_masks_nwords < 0) {
		int8_t nwords = (int8_t)-ls.req.link_mode_masks_nwords;

		memset(&ls, 0, sizeof(ls));
		ls.req.cmd = ETHTOOL_GLINKSETTINGS;
		ls.req.link_mode_masks_nwords = nwords;
		r = ethtool_ioctl(ifname, &ls);
		if (r == 0 && ls.req.speed != (uint32_t)SPEED_UNKNOWN && ls.req.speed != 0)
			*speed_mbps = ls.req.speed;
		return 0;
	}
	if (r == -EOPNOTSUPP)
		return 0; /* no link settings at all (loopback, tunnels): unknown speed */
	return r < 0 ? rterr_sys(err, -r, "%s: ethtool link settings", ifname) : 0;
}

void ethtool_features_free(struct eth_features *f)
{
	if (!f)
		return;
	free(f->names);
	free(f->available);
	free(f->requested);
	free(f->active);
	free(f->never_changed);
	memset(f, 0, sizeof(*f));
}

static int features_count(struct eth_dev *d, unsigned int *count)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_FEATURES}};
	int r = ethtool_dev_ioctl(d, &sset);

	if (r < 0)
		return r;
	if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_FEATURES)))
		return -EOPNOTSUPP;
	*count = sset.len;
	return 0;
}

static int features_get(struct eth_dev *d, struct eth_features *f, struct rterr *err)
{
	struct ethtool_gstrings *strs = NULL;
	struct ethtool_gfeatures *gf = NULL;
	unsigned int i, count = 0, words;
	int r;

	memset(f, 0, sizeof(*f));
	r = features_count(d, &count);
	if (r < 0)
		return dev_err(d, r, "ethtool feature count", err);
	words = (count + 31) / 32;
	strs = calloc(1, sizeof(*strs) + (size_t)count * ETH_GSTRING_LEN);
	gf = calloc(1, sizeof(*gf) + words * sizeof(gf->features[0]));
	f->names = calloc(count ? count : 1, sizeof(*f->names));
	f->available = calloc(words ? words : 1, sizeof(uint32_t));
	f->requested = calloc(words ? words : 1, sizeof(uint32_t));
	f->active = calloc(words ? words : 1, sizeof(uint32_t));
	f->never_changed = calloc(words ? words : 1, sizeof(uint32_t));
	if (!strs || !gf || !f->names || !f->available || !f->requested || !f->active ||
	    !f->never_changed) {
		r = dev_err(d, -ENOMEM, "ethtool features", err);
		goto fail;
	}
	strs->cmd = ETHTOOL_GSTRINGS;
	strs->string_set = ETH_SS_FEATURES;
	strs->len = count;
	r = ethtool_dev_ioctl(d, strs);
	if (r < 0) {
		r = dev_err(d, r, "ethtool feature names", err);
		goto fail;
	}
	gf->cmd = ETHTOOL_GFEATURES;
	gf->size = words;
	r = ethtool_dev_ioctl(d, gf);
	if (r < 0) {
		r = dev_err(d, r, "ethtool features", err);
		goto fail;
	}
	for (i = 0; i < count; i++)
		snprintf(f->names[i], sizeof(f->names[i]), "%.*s", ETH_GSTRING_LEN,
			 (const char *)strs->data + (size_t)i * ETH_GSTRING_LEN);
	for (i = 0; i < words; i++) {
		f->available[i] = gf->features[i].available;
		f->requested[i] = gf->features[i].requested;
		f->active[i] = gf->features[i].active;
		f->never_changed[i] = gf->features[i].never_changed;
	}
	f->count = count;
	f->words = words;
	free(strs);
	free(gf);
	return 0;
fail:
	free(strs);
	free(gf);
	ethtool_features_free(f);
	return r;
}

int ethtool_features_get_index(int ifindex, const char *was, struct eth_features *f,
			       struct rterr *err)
{
	struct eth_dev d = {.ifname = was, .ifindex = ifindex};

	return features_get(&d, f, err);
}

/*
 * The kernel's feature strings (netdev_features_strings) are the same list for every
 * device, and the names asked for are the knob table's own strings: a hint per name
 * pointer, checked by one strcmp, turns the per-snapshot lookups of some 60 feature knobs
 * from a scan of the list each into one compare each.
 */
#define FEATURE_HINTS 256
static _Thread_local struct {
	const char *name;
	unsigned int idx;
} feature_hint[FEATURE_HINTS];

int ethtool_feature_index(const struct eth_features *f, const char *name)
{
	unsigned int slot = (unsigned int)(((uintptr_t)name >> 4) % FEATURE_HINTS), i;

	i = feature_hint[slot].idx;
	if (feature_hint[slot].name == name && i < f->count && strcmp(f->names[i], name) == 0)
		return (int)i;
	for (i = 0; i < f->count; i++)
		if (strcmp(f->names[i], name) == 0) {
			feature_hint[slot].name = name;
			feature_hint[slot].idx = i;
			return (int)i;
		}
	return -1;
}

static int bit(const uint32_t *words, int i)
{
	return (words[i / 32] >> (i % 32)) & 1;
}

int ethtool_feature_active(const struct eth_features *f, const char *name)
{
	int i = ethtool_feature_index(f, name);

	return i < 0 ? -1 : bit(f->active, i);
}

int ethtool_feature_requested(const struct eth_features *f, const char *name)
{
	int i = ethtool_feature_index(f, name);

	return i < 0 ? -1 : bit(f->requested, i);
}

static int features_set(struct eth_dev *d, const struct eth_features *cur, const char *const *names,
			unsigned int n_names, bool on, struct rterr *err)
{
	struct ethtool_sfeatures *sf;
	unsigned int i, changed = 0;
	int r;

	sf = calloc(1, sizeof(*sf) + cur->words * sizeof(sf->features[0]));
	if (!sf)
		return dev_err(d, -ENOMEM, "ethtool set features", err);
	sf->cmd = ETHTOOL_SFEATURES;
	sf->size = cur->words;
	for (i = 0; i < n_names; i++) {
		int idx = ethtool_feature_index(cur, names[i]);

		/* Fixed bits ("off [fixed]") are not the user's to change: leave them. */
		if (idx < 0 || !bit(cur->available, idx))
			continue;
		sf->features[idx / 32].valid |= 1U << (idx % 32);
		if (on)
			sf->features[idx / 32].requested |= 1U << (idx % 32);
		changed++;
	}
	if (!changed) {
		free(sf);
		return 0;
	}
	r = ethtool_dev_ioctl(d, sf);
	free(sf);
	if (r < 0) {
		char what[96];

		snprintf(what, sizeof(what), "ethtool set features (%s%s%s)", names[0],
			 n_names > 1 ? ", ..." : "", on ? " on" : " off");
		return dev_err(d, r, what, err);
	}
	return r; /* ETHTOOL_F_WISH / ETHTOOL_F_UNSUPPORTED mask, or 0 */
}

int ethtool_features_set_index(int ifindex, const char *was, const struct eth_features *cur,
			       const char *const *names, unsigned int n_names, bool on,
			       struct rterr *err)
{
	struct eth_dev d = {.ifname = was, .ifindex = ifindex};

	return features_set(&d, cur, names, n_names, on, err);
}

bool ethtool_features_changeable(const struct eth_features *f, const char *const *names,
				 unsigned int n_names)
{
	unsigned int i;

	for (i = 0; i < n_names; i++) {
		int idx = ethtool_feature_index(f, names[i]);

		if (idx >= 0 && bit(f->available, idx))
			return true;
	}
	return false;
}
