// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rings, coalescing, channels and pause over SIOCETHTOOL, in the ethtool netlink path's
 * value layout (rtltune/ethtool_groups.h says where the two differ). One table row per
 * ioctl field names the attribute its value goes under; the types, names and ranges are
 * the netlink rows' (lib/netdev/ethnl_table.c), so the two paths cannot drift apart on those.
 *
 * Read against net/ethtool/ioctl.c and net/ethtool/{rings,channels,coalesce,pause}.c.
 */
#include <linux/ethtool_netlink.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ethtool_priv.h"
#include "rtltune/ethtool_groups.h"

struct ioctl_field {
	uint16_t attr;	  /* the value's index: ETHTOOL_A_<GROUP>_* */
	uint16_t off;	  /* its u32 in the ioctl struct */
	uint16_t max_off; /* its maximum's u32; 0 = none (offset 0 is cmd, never a value) */
};

struct ioctl_group {
	uint32_t get_cmd, set_cmd;
	const struct ioctl_field *fields;
	size_t n_fields;
};

/* clang-format off */
#define RING(a, f, m)	{ETHTOOL_A_RINGS_##a, offsetof(struct ethtool_ringparam, f), \
			 offsetof(struct ethtool_ringparam, m)}
#define COAL(a, f)	{ETHTOOL_A_COALESCE_##a, offsetof(struct ethtool_coalesce, f), 0}
#define CHAN(a, f, m)	{ETHTOOL_A_CHANNELS_##a, offsetof(struct ethtool_channels, f), \
			 offsetof(struct ethtool_channels, m)}
#define PAUSE(a, f)	{ETHTOOL_A_PAUSE_##a, offsetof(struct ethtool_pauseparam, f), 0}
/* clang-format on */

static const struct ioctl_field ring_fields[] = {
	RING(RX, rx_pending, rx_max_pending),
	RING(RX_MINI, rx_mini_pending, rx_mini_max_pending),
	RING(RX_JUMBO, rx_jumbo_pending, rx_jumbo_max_pending),
	RING(TX, tx_pending, tx_max_pending),
};

static const struct ioctl_field coalesce_fields[] = {
	COAL(RX_USECS, rx_coalesce_usecs),
	COAL(RX_MAX_FRAMES, rx_max_coalesced_frames),
	COAL(RX_USECS_IRQ, rx_coalesce_usecs_irq),
	COAL(RX_MAX_FRAMES_IRQ, rx_max_coalesced_frames_irq),
	COAL(TX_USECS, tx_coalesce_usecs),
	COAL(TX_MAX_FRAMES, tx_max_coalesced_frames),
	COAL(TX_USECS_IRQ, tx_coalesce_usecs_irq),
	COAL(TX_MAX_FRAMES_IRQ, tx_max_coalesced_frames_irq),
	COAL(STATS_BLOCK_USECS, stats_block_coalesce_usecs),
	COAL(USE_ADAPTIVE_RX, use_adaptive_rx_coalesce),
	COAL(USE_ADAPTIVE_TX, use_adaptive_tx_coalesce),
	COAL(PKT_RATE_LOW, pkt_rate_low),
	COAL(RX_USECS_LOW, rx_coalesce_usecs_low),
	COAL(RX_MAX_FRAMES_LOW, rx_max_coalesced_frames_low),
	COAL(TX_USECS_LOW, tx_coalesce_usecs_low),
	COAL(TX_MAX_FRAMES_LOW, tx_max_coalesced_frames_low),
	COAL(PKT_RATE_HIGH, pkt_rate_high),
	COAL(RX_USECS_HIGH, rx_coalesce_usecs_high),
	COAL(RX_MAX_FRAMES_HIGH, rx_max_coalesced_frames_high),
	COAL(TX_USECS_HIGH, tx_coalesce_usecs_high),
	COAL(TX_MAX_FRAMES_HIGH, tx_max_coalesced_frames_high),
	COAL(RATE_SAMPLE_INTERVAL, rate_sample_interval),
};

static const struct ioctl_field channel_fields[] = {
	CHAN(RX_COUNT, rx_count, max_rx),
	CHAN(TX_COUNT, tx_count, max_tx),
	CHAN(OTHER_COUNT, other_count, max_other),
	CHAN(COMBINED_COUNT, combined_count, max_combined),
};

static const struct ioctl_field pause_fields[] = {
	PAUSE(AUTONEG, autoneg),
	PAUSE(RX, rx_pause),
	PAUSE(TX, tx_pause),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every u32 after cmd is a row: a field added to a struct shows up here first. */
_Static_assert(sizeof(struct ethtool_ringparam) == (1 + 2 * N(ring_fields)) * 4, "rings");
_Static_assert(sizeof(struct ethtool_coalesce) == (1 + N(coalesce_fields)) * 4, "coalesce");
_Static_assert(sizeof(struct ethtool_channels) == (1 + 2 * N(channel_fields)) * 4, "channels");
_Static_assert(sizeof(struct ethtool_pauseparam) == (1 + N(pause_fields)) * 4, "pause");

static const struct ioctl_group groups[ETHNL_GROUP_COUNT] = {
	[ETHNL_RINGS] = {ETHTOOL_GRINGPARAM, ETHTOOL_SRINGPARAM, ring_fields, N(ring_fields)},
	[ETHNL_COALESCE] = {ETHTOOL_GCOALESCE, ETHTOOL_SCOALESCE, coalesce_fields,
			    N(coalesce_fields)},
	[ETHNL_CHANNELS] = {ETHTOOL_GCHANNELS, ETHTOOL_SCHANNELS, channel_fields,
			    N(channel_fields)},
	[ETHNL_PAUSE] = {ETHTOOL_GPAUSEPARAM, ETHTOOL_SPAUSEPARAM, pause_fields, N(pause_fields)},
};

static bool group_ok(enum ethnl_group g)
{
	return (unsigned int)g < ETHNL_GROUP_COUNT;
}

static const struct ioctl_field *field_of(enum ethnl_group g, unsigned int attr)
{
	size_t i;

	for (i = 0; group_ok(g) && i < groups[g].n_fields; i++)
		if (groups[g].fields[i].attr == attr)
			return &groups[g].fields[i];
	return NULL;
}

static uint32_t u32_of(const union ethtool_group_buf *buf, uint16_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)buf + off, sizeof(v));
	return v;
}

bool ethtool_group_has(enum ethnl_group g, unsigned int attr)
{
	return field_of(g, attr) != NULL;
}

void ethtool_group_to_values(enum ethnl_group g, const union ethtool_group_buf *buf,
			     struct ethnl_values *out)
{
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	ethnl_values_init(out);
	for (i = 0; i < n; i++) {
		const struct ioctl_field *f = field_of(g, a[i].attr);
		uint32_t v;

		if (!f)
			continue;
		v = u32_of(buf, f->off);
		if (f->max_off) {
			uint32_t max = u32_of(buf, f->max_off);

			/* rings.c and channels.c put a count only with a nonzero maximum */
			if (!max)
				continue;
			out->max[a[i].attr] = max;
		}
		/* The ioctl's booleans are u32 flags; netlink sends them as !!value. */
		out->val[a[i].attr] = a[i].type == ETHNL_BOOL ? !!v : v;
	}
}

int ethtool_group_check(enum ethnl_group g, const struct ethnl_values *want, struct rterr *err)
{
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);
	int r;

	if (!group_ok(g))
		return rterr_input(err, "no ethtool group %d", (int)g);
	r = ethnl_values_check(g, want, err);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++)
		if (want->val[a[i].attr] != LINK_UNSET && !field_of(g, a[i].attr))
			return rterr_sys(err, EOPNOTSUPP,
					 "set %s %s %lld (no such field in the ioctl: needs "
					 "ethtool netlink)",
					 ethnl_group_name(g), a[i].name,
					 (long long)want->val[a[i].attr]);
	return 0;
}

int ethtool_group_apply(enum ethnl_group g, union ethtool_group_buf *buf,
			const struct ethnl_values *want, struct rterr *err)
{
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);
	int r = ethtool_group_check(g, want, err), changed = 0;

	for (i = 0; r == 0 && i < n; i++) {
		const struct ioctl_field *f = field_of(g, a[i].attr);
		uint32_t v = (uint32_t)want->val[a[i].attr];

		if (!f || want->val[a[i].attr] == LINK_UNSET || u32_of(buf, f->off) == v)
			continue;
		memcpy((char *)buf + f->off, &v, sizeof(v));
		changed++;
	}
	return r < 0 ? r : changed;
}

/*
 * A failed call's message in the netlink path's words, so a caller prints the same text
 * whichever path it took; a vanished device or a rename storm says so instead.
 */
static int group_err(const struct eth_dev *d, int r, bool get, const char *what, struct rterr *err)
{
	if (d->gone)
		return rterr_sys(err, ENODEV, "interface %d (was %s) disappeared (%s)", d->ifindex,
				 d->ifname, what);
	if (r == -EAGAIN && d->renames >= ETHTOOL_RENAME_TRIES)
		return rterr_sys(err, EAGAIN, "%s: %s: renamed %d times during one call", d->ifname,
				 what, d->renames);
	if (get && r == -EOPNOTSUPP)
		return rterr_sys(err, EOPNOTSUPP, "%s (not implemented by the driver)", what);
	return rterr_sys(err, -r, "%s", what);
}

static int group_read(struct eth_dev *d, enum ethnl_group g, union ethtool_group_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->cmd = groups[g].get_cmd;
	return ethtool_dev_ioctl(d, buf);
}

int ethtool_group_get(int ifindex, const char *was, enum ethnl_group g, struct ethnl_values *out,
		      struct rterr *err)
{
	struct eth_dev d = {.ifname = was, .ifindex = ifindex};
	union ethtool_group_buf buf;
	char what[64];
	int r;

	ethnl_values_init(out);
	if (!group_ok(g) || ifindex <= 0)
		return rterr_input(err, "ethtool group %d of ifindex %d: no such thing", (int)g,
				   ifindex);
	snprintf(what, sizeof(what), "get %s", ethnl_group_name(g));
	r = group_read(&d, g, &buf);
	if (r < 0)
		return group_err(&d, r, true, what, err);
	ethtool_group_to_values(g, &buf, out);
	return 0;
}

int ethtool_group_set(int ifindex, const char *was, enum ethnl_group g,
		      const struct ethnl_values *want, struct rterr *err)
{
	struct eth_dev d = {.ifname = was, .ifindex = ifindex};
	union ethtool_group_buf buf;
	char what[768];
	size_t i, n, len, set = 0;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);
	int r;

	if (ifindex <= 0)
		return rterr_input(err, "set %s: no ifindex", ethnl_group_name(g));
	r = ethtool_group_check(g, want, err);
	if (r < 0)
		return r;
	len = (size_t)snprintf(what, sizeof(what), "set %s", ethnl_group_name(g));
	for (i = 0; i < n; i++) {
		if (want->val[a[i].attr] == LINK_UNSET)
			continue;
		if (len < sizeof(what))
			len += (size_t)snprintf(what + len, sizeof(what) - len, " %s %lld",
						a[i].name, (long long)want->val[a[i].attr]);
		set++;
	}
	if (!set)
		return 0;
	r = group_read(&d, g, &buf);
	if (r < 0)
		return group_err(&d, r, false, what, err);
	/* Nothing differs: write nothing, as the kernel's netlink SET skips the driver then
	 * (an ioctl SET would reach it: tun notifies even an unchanged rx_frames). */
	r = ethtool_group_apply(g, &buf, want, err);
	if (r <= 0)
		return r;
	buf.cmd = groups[g].set_cmd;
	r = ethtool_dev_ioctl(&d, &buf);
	return r < 0 ? group_err(&d, r, false, what, err) : 0;
}
