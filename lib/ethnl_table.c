// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ethtool netlink knob table: one row per settable attribute of rings, coalescing,
 * channels and pause, with the attribute carrying the device's maximum where there is one.
 * A new attribute is one row here (and its number in ethnl_priv.h); the parsers, the
 * requests, the range check and the names all follow from the row.
 */
#include <string.h>

#include "ethnl_priv.h"

/* clang-format off */
#define ROW(n, a, m, t) { .name = n, .attr = a, .max_attr = m, .type = ETHNL_##t }
/* clang-format on */

/* ethtool -g order; newer rows last. */
static const struct ethnl_attr ring_attrs[] = {
	ROW("rx", ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_RX_MAX, U32),
	ROW("rx_mini", ETHTOOL_A_RINGS_RX_MINI, ETHTOOL_A_RINGS_RX_MINI_MAX, U32),
	ROW("rx_jumbo", ETHTOOL_A_RINGS_RX_JUMBO, ETHTOOL_A_RINGS_RX_JUMBO_MAX, U32),
	ROW("tx", ETHTOOL_A_RINGS_TX, ETHTOOL_A_RINGS_TX_MAX, U32),
	ROW("rx_buf_len", ETHTOOL_A_RINGS_RX_BUF_LEN, 0, U32),
	ROW("cqe_size", ETHTOOL_A_RINGS_CQE_SIZE, 0, U32),
	ROW("tx_push", ETHTOOL_A_RINGS_TX_PUSH, 0, BOOL),
	ROW("rx_push", RT_ETHTOOL_A_RINGS_RX_PUSH, 0, BOOL),
	ROW("tx_push_buf_len", RT_ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN,
	    RT_ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN_MAX, U32),
	/* enum ethtool_tcp_data_split: 0 unknown (never sent), 1 disabled, 2 enabled */
	ROW("tcp_data_split", ETHTOOL_A_RINGS_TCP_DATA_SPLIT, 0, U8),
	ROW("hds_thresh", RT_ETHTOOL_A_RINGS_HDS_THRESH, RT_ETHTOOL_A_RINGS_HDS_THRESH_MAX, U32),
};

/* ethtool -c order, named as ethtool -C spells them; the nested DIM profiles are not rows. */
static const struct ethnl_attr coalesce_attrs[] = {
	ROW("adaptive_rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0, BOOL),
	ROW("adaptive_tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 0, BOOL),
	ROW("stats_block_usecs", ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, 0, U32),
	ROW("sample_interval", ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, 0, U32),
	ROW("pkt_rate_low", ETHTOOL_A_COALESCE_PKT_RATE_LOW, 0, U32),
	ROW("pkt_rate_high", ETHTOOL_A_COALESCE_PKT_RATE_HIGH, 0, U32),
	ROW("rx_usecs", ETHTOOL_A_COALESCE_RX_USECS, 0, U32),
	ROW("rx_frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 0, U32),
	ROW("rx_usecs_irq", ETHTOOL_A_COALESCE_RX_USECS_IRQ, 0, U32),
	ROW("rx_frames_irq", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, 0, U32),
	ROW("tx_usecs", ETHTOOL_A_COALESCE_TX_USECS, 0, U32),
	ROW("tx_frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0, U32),
	ROW("tx_usecs_irq", ETHTOOL_A_COALESCE_TX_USECS_IRQ, 0, U32),
	ROW("tx_frames_irq", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, 0, U32),
	ROW("rx_usecs_low", ETHTOOL_A_COALESCE_RX_USECS_LOW, 0, U32),
	ROW("rx_frames_low", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, 0, U32),
	ROW("tx_usecs_low", ETHTOOL_A_COALESCE_TX_USECS_LOW, 0, U32),
	ROW("tx_frames_low", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, 0, U32),
	ROW("rx_usecs_high", ETHTOOL_A_COALESCE_RX_USECS_HIGH, 0, U32),
	ROW("rx_frames_high", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, 0, U32),
	ROW("tx_usecs_high", ETHTOOL_A_COALESCE_TX_USECS_HIGH, 0, U32),
	ROW("tx_frames_high", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, 0, U32),
	ROW("cqe_mode_rx", ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, 0, BOOL),
	ROW("cqe_mode_tx", ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, 0, BOOL),
	ROW("tx_aggr_max_bytes", RT_ETHTOOL_A_COALESCE_TX_AGGR_MAX_BYTES, 0, U32),
	ROW("tx_aggr_max_frames", RT_ETHTOOL_A_COALESCE_TX_AGGR_MAX_FRAMES, 0, U32),
	ROW("tx_aggr_time_usecs", RT_ETHTOOL_A_COALESCE_TX_AGGR_TIME_USECS, 0, U32),
};

static const struct ethnl_attr channel_attrs[] = {
	ROW("rx", ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_RX_MAX, U32),
	ROW("tx", ETHTOOL_A_CHANNELS_TX_COUNT, ETHTOOL_A_CHANNELS_TX_MAX, U32),
	ROW("other", ETHTOOL_A_CHANNELS_OTHER_COUNT, ETHTOOL_A_CHANNELS_OTHER_MAX, U32),
	ROW("combined", ETHTOOL_A_CHANNELS_COMBINED_COUNT, ETHTOOL_A_CHANNELS_COMBINED_MAX, U32),
};

static const struct ethnl_attr pause_attrs[] = {
	ROW("autoneg", ETHTOOL_A_PAUSE_AUTONEG, 0, BOOL),
	ROW("rx", ETHTOOL_A_PAUSE_RX, 0, BOOL),
	ROW("tx", ETHTOOL_A_PAUSE_TX, 0, BOOL),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct ethnl_group_info ethnl_groups[ETHNL_GROUP_COUNT] = {
	[ETHNL_RINGS] = {"rings", "ring_", ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET,
			 ETHTOOL_MSG_RINGS_GET_REPLY, ETHTOOL_MSG_RINGS_NTF,
			 RT_ETHTOOL_A_RINGS_LAST, ring_attrs, N(ring_attrs)},
	[ETHNL_COALESCE] = {"coalesce", "coalesce_", ETHTOOL_MSG_COALESCE_GET,
			    ETHTOOL_MSG_COALESCE_SET, ETHTOOL_MSG_COALESCE_GET_REPLY,
			    ETHTOOL_MSG_COALESCE_NTF, RT_ETHTOOL_A_COALESCE_LAST, coalesce_attrs,
			    N(coalesce_attrs)},
	[ETHNL_CHANNELS] = {"channels", "channels_", ETHTOOL_MSG_CHANNELS_GET,
			    ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_MSG_CHANNELS_GET_REPLY,
			    ETHTOOL_MSG_CHANNELS_NTF, ETHTOOL_A_CHANNELS_COMBINED_COUNT,
			    channel_attrs, N(channel_attrs)},
	[ETHNL_PAUSE] = {"pause", "pause_", ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_PAUSE_SET,
			 ETHTOOL_MSG_PAUSE_GET_REPLY, ETHTOOL_MSG_PAUSE_NTF,
			 RT_ETHTOOL_A_PAUSE_STATS_SRC, pause_attrs, N(pause_attrs)},
};

static bool group_ok(enum ethnl_group g)
{
	return (unsigned int)g < ETHNL_GROUP_COUNT;
}

const struct ethnl_attr *ethnl_attrs(enum ethnl_group g, size_t *n)
{
	*n = group_ok(g) ? ethnl_groups[g].n_attrs : 0;
	return group_ok(g) ? ethnl_groups[g].attrs : NULL;
}

const struct ethnl_attr *ethnl_attr_find(enum ethnl_group g, const char *name)
{
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++)
		if (strcmp(a[i].name, name) == 0)
			return &a[i];
	return NULL;
}

const char *ethnl_group_name(enum ethnl_group g)
{
	return group_ok(g) ? ethnl_groups[g].name : "?";
}

const char *ethnl_knob_prefix(enum ethnl_group g)
{
	return group_ok(g) ? ethnl_groups[g].prefix : "?";
}

void ethnl_values_init(struct ethnl_values *v)
{
	unsigned int i;

	for (i = 0; i <= ETHNL_MAX_ATTR; i++)
		v->val[i] = v->max[i] = LINK_UNSET;
}

int ethnl_values_check(enum ethnl_group g, const struct ethnl_values *want, struct rterr *err)
{
	static const int64_t limit[] = {
		[ETHNL_U32] = UINT32_MAX, [ETHNL_U8] = UINT8_MAX, [ETHNL_BOOL] = 1};
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++) {
		int64_t v = want->val[a[i].attr];

		if (v != LINK_UNSET && (v < 0 || v > limit[a[i].type]))
			return rterr_input(err, "%s%s: %lld out of range (0..%lld)",
					   ethnl_knob_prefix(g), a[i].name, (long long)v,
					   (long long)limit[a[i].type]);
	}
	return 0;
}
