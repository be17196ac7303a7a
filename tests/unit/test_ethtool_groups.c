// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SIOCETHTOOL fallback's mapping (lib/netdev/ethtool_groups.c): each ioctl struct to the
 * netlink path's values and back, field by field as this test spells them (not from the
 * library's table); the same values as the netlink replies captured from this kernel for
 * the same devices; LINK_UNSET for what the ioctl lacks; a set that writes only the
 * fields asked for; the errors raised before any call is made.
 */
#include "ethnl_test.h"

#include "rtltune/ethtool_groups.h"

static struct ethnl_values parse_group(const char *fixture, enum ethnl_group g)
{
	struct blob b = load(fixture);
	struct ethnl_values v;

	assert_int_equal(ethnl_parse_reply(b.data, b.len, g, &v, NULL), 0);
	free(b.data);
	return v;
}

/* The rows with no ioctl field: LINK_UNSET on the way in, refused on the way out. */
static const char *const ring_unmapped[] = {
	"rx_buf_len",	   "cqe_size",	     "tx_push",	   "rx_push",
	"tx_push_buf_len", "tcp_data_split", "hds_thresh", NULL};
static const char *const coalesce_unmapped[] = {"cqe_mode_rx",	      "cqe_mode_tx",
						"tx_aggr_max_bytes",  "tx_aggr_max_frames",
						"tx_aggr_time_usecs", NULL};
static const char *const none[] = {NULL};
static const char *const *const unmapped[ETHNL_GROUP_COUNT] = {
	[ETHNL_RINGS] = ring_unmapped,
	[ETHNL_COALESCE] = coalesce_unmapped,
	[ETHNL_CHANNELS] = none,
	[ETHNL_PAUSE] = none,
};

static bool listed(const char *const *names, const char *name)
{
	for (; *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

static void test_fields(void **state)
{
	static const size_t mapped[] = {
		[ETHNL_RINGS] = 4, [ETHNL_COALESCE] = 22, [ETHNL_CHANNELS] = 4, [ETHNL_PAUSE] = 3};
	size_t i, n, count;
	int g;

	(void)state;
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		const struct ethnl_attr *a = ethnl_attrs(g, &n);

		for (i = count = 0; i < n; i++) {
			if (listed(unmapped[g], a[i].name))
				assert_false(ethtool_group_has(g, a[i].attr));
			else
				assert_true(ethtool_group_has(g, a[i].attr));
			count += ethtool_group_has(g, a[i].attr);
		}
		assert_int_equal(count, mapped[g]);
		/* Maxima are not values, and there is no group past the last. */
		for (i = 0; i < n; i++)
			assert_false(a[i].max_attr && ethtool_group_has(g, a[i].max_attr));
		assert_false(ethtool_group_has(ETHNL_GROUP_COUNT, a[0].attr));
	}
}

static void assert_unmapped_unset(const struct ethnl_values *v, enum ethnl_group g)
{
	const char *const *name;

	for (name = unmapped[g]; *name; name++) {
		assert_int_equal(val(v, g, *name), LINK_UNSET);
		assert_int_equal(max_of(v, g, *name), LINK_UNSET);
	}
}

static void test_rings_in(void **state)
{
	union ethtool_group_buf b = {.rings = {.cmd = ETHTOOL_GRINGPARAM,
					       .rx_max_pending = 4096,
					       .rx_jumbo_max_pending = 1024,
					       .tx_max_pending = 2048,
					       .rx_pending = 511,
					       .rx_mini_pending = 9, /* max 0: no mini ring */
					       .rx_jumbo_pending = 7,
					       .tx_pending = 300}};
	struct ethnl_values v;

	(void)state;
	ethtool_group_to_values(ETHNL_RINGS, &b, &v);
	assert_int_equal(val(&v, ETHNL_RINGS, "rx"), 511);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx"), 4096);
	assert_int_equal(val(&v, ETHNL_RINGS, "rx_mini"), LINK_UNSET);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx_mini"), LINK_UNSET);
	assert_int_equal(val(&v, ETHNL_RINGS, "rx_jumbo"), 7);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx_jumbo"), 1024);
	assert_int_equal(val(&v, ETHNL_RINGS, "tx"), 300);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "tx"), 2048);
	assert_unmapped_unset(&v, ETHNL_RINGS);
}

/* Every one of the 22 fields under its own distinct value, and where it must land. */
static const struct {
	const char *row;
	size_t off;
	uint32_t v;
} coalesce_spec[] = {
#define C(row, field, v)                                                                           \
	{                                                                                          \
		row, offsetof(struct ethtool_coalesce, field), v                                   \
	}
	C("rx_usecs", rx_coalesce_usecs, 101),
	C("rx_frames", rx_max_coalesced_frames, 102),
	C("rx_usecs_irq", rx_coalesce_usecs_irq, 103),
	C("rx_frames_irq", rx_max_coalesced_frames_irq, 104),
	C("tx_usecs", tx_coalesce_usecs, 105),
	C("tx_frames", tx_max_coalesced_frames, 106),
	C("tx_usecs_irq", tx_coalesce_usecs_irq, 107),
	C("tx_frames_irq", tx_max_coalesced_frames_irq, 108),
	C("stats_block_usecs", stats_block_coalesce_usecs, 109),
	C("adaptive_rx", use_adaptive_rx_coalesce, 1),
	C("adaptive_tx", use_adaptive_tx_coalesce, 0),
	C("pkt_rate_low", pkt_rate_low, 112),
	C("rx_usecs_low", rx_coalesce_usecs_low, 113),
	C("rx_frames_low", rx_max_coalesced_frames_low, 114),
	C("tx_usecs_low", tx_coalesce_usecs_low, 115),
	C("tx_frames_low", tx_max_coalesced_frames_low, 116),
	C("pkt_rate_high", pkt_rate_high, 117),
	C("rx_usecs_high", rx_coalesce_usecs_high, 118),
	C("rx_frames_high", rx_max_coalesced_frames_high, 119),
	C("tx_usecs_high", tx_coalesce_usecs_high, 120),
	C("tx_frames_high", tx_max_coalesced_frames_high, 121),
	C("sample_interval", rate_sample_interval, 122),
#undef C
};
#define N_COALESCE (sizeof(coalesce_spec) / sizeof(coalesce_spec[0]))

static void put(union ethtool_group_buf *b, size_t off, uint32_t v)
{
	memcpy((char *)b + off, &v, sizeof(v));
}

static uint32_t get(const union ethtool_group_buf *b, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)b + off, sizeof(v));
	return v;
}

static void coalesce_fill(union ethtool_group_buf *b)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->cmd = ETHTOOL_GCOALESCE;
	for (i = 0; i < N_COALESCE; i++)
		put(b, coalesce_spec[i].off, coalesce_spec[i].v);
}

static void test_coalesce_in(void **state)
{
	union ethtool_group_buf b;
	struct ethnl_values v;
	size_t i;

	(void)state;
	assert_int_equal(N_COALESCE, 22);
	coalesce_fill(&b);
	ethtool_group_to_values(ETHNL_COALESCE, &b, &v);
	for (i = 0; i < N_COALESCE; i++) {
		assert_int_equal(val(&v, ETHNL_COALESCE, coalesce_spec[i].row), coalesce_spec[i].v);
		assert_int_equal(max_of(&v, ETHNL_COALESCE, coalesce_spec[i].row), LINK_UNSET);
	}
	assert_unmapped_unset(&v, ETHNL_COALESCE);
	/* A driver's flag of 5 is "on": netlink sends !!value. */
	b.coalesce.use_adaptive_tx_coalesce = 5;
	ethtool_group_to_values(ETHNL_COALESCE, &b, &v);
	assert_int_equal(val(&v, ETHNL_COALESCE, "adaptive_tx"), 1);
	/* All zero (an unsupporting driver's answer): every field reported as 0. */
	memset(&b, 0, sizeof(b));
	ethtool_group_to_values(ETHNL_COALESCE, &b, &v);
	for (i = 0; i < N_COALESCE; i++)
		assert_int_equal(val(&v, ETHNL_COALESCE, coalesce_spec[i].row), 0);
}

static void test_channels_in(void **state)
{
	/* veth with 4 queues: RX 4/4 TX 4/4, no other or combined (maxima 0). */
	union ethtool_group_buf b = {.channels = {.cmd = ETHTOOL_GCHANNELS,
						  .max_rx = 4,
						  .max_tx = 4,
						  .rx_count = 2,
						  .tx_count = 3}};
	static const char *const veth_set[] = {"rx", "tx", NULL};
	struct ethnl_values v;

	(void)state;
	ethtool_group_to_values(ETHNL_CHANNELS, &b, &v);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), 2);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "rx"), 4);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "tx"), 3);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "tx"), 4);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "other"), LINK_UNSET);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "combined"), LINK_UNSET);
	assert_only(&v, ETHNL_CHANNELS, veth_set);
	/* A multi_queue tap with no queue attached: combined 0 of 256 is a value, 0. */
	memset(&b, 0, sizeof(b));
	b.channels.max_combined = 256;
	b.channels.max_other = 1;
	b.channels.other_count = 1;
	ethtool_group_to_values(ETHNL_CHANNELS, &b, &v);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "combined"), 0);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "combined"), 256);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "other"), 1);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), LINK_UNSET);
}

static void test_pause_in(void **state)
{
	union ethtool_group_buf b = {
		.pause = {.cmd = ETHTOOL_GPAUSEPARAM, .autoneg = 1, .rx_pause = 0, .tx_pause = 2}};
	struct ethnl_values v;

	(void)state;
	ethtool_group_to_values(ETHNL_PAUSE, &b, &v);
	assert_int_equal(val(&v, ETHNL_PAUSE, "autoneg"), 1);
	assert_int_equal(val(&v, ETHNL_PAUSE, "rx"), 0);
	assert_int_equal(val(&v, ETHNL_PAUSE, "tx"), 1);
	assert_int_equal(max_of(&v, ETHNL_PAUSE, "tx"), LINK_UNSET);
}

/*
 * The ioctl's view against the netlink reply of one device in one state: equal wherever
 * the ioctl has the field, except that coalesce fields netlink leaves out (unsupported)
 * are 0 by ioctl; what the ioctl lacks is LINK_UNSET.
 */
static void assert_like_netlink(enum ethnl_group g, const union ethtool_group_buf *b,
				const char *fixture)
{
	struct ethnl_values nl = parse_group(fixture, g), io;
	size_t i, n;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	ethtool_group_to_values(g, b, &io);
	for (i = 0; i < n; i++) {
		int64_t want = nl.val[a[i].attr], want_max = nl.max[a[i].attr];

		if (!ethtool_group_has(g, a[i].attr))
			want = want_max = LINK_UNSET;
		else if (g == ETHNL_COALESCE && want == LINK_UNSET)
			want = 0;
		if (io.val[a[i].attr] != want || io.max[a[i].attr] != want_max)
			fail_msg("%s: %s %s: ioctl %lld/%lld, expected %lld/%lld", fixture,
				 ethnl_group_name(g), a[i].name, (long long)io.val[a[i].attr],
				 (long long)io.max[a[i].attr], (long long)want,
				 (long long)want_max);
	}
}

static void test_same_as_netlink(void **state)
{
	/* What virtio_net, veth and tun put in the ioctl structs for the captured states
	 * (ethtool -g/-l/-c beside each fixture). */
	union ethtool_group_buf rings = {.rings = {.rx_max_pending = 256,
						   .tx_max_pending = 256,
						   .rx_pending = 256,
						   .tx_pending = 256}};
	union ethtool_group_buf eth0_ch = {.channels = {.max_combined = 1, .combined_count = 1}};
	union ethtool_group_buf veth_ch = {
		.channels = {.max_rx = 4, .max_tx = 4, .rx_count = 4, .tx_count = 4}};
	union ethtool_group_buf veth_after = {
		.channels = {.max_rx = 4, .max_tx = 4, .rx_count = 2, .tx_count = 4}};
	union ethtool_group_buf eth0_co = {
		.coalesce = {.rx_max_coalesced_frames = 1, .tx_max_coalesced_frames = 1}};
	union ethtool_group_buf tap_co = {.coalesce = {.rx_max_coalesced_frames = 0}};
	union ethtool_group_buf tap_after = {.coalesce = {.rx_max_coalesced_frames = 64}};

	(void)state;
	assert_like_netlink(ETHNL_RINGS, &rings, "eth0-rings.msg");
	assert_like_netlink(ETHNL_CHANNELS, &eth0_ch, "eth0-channels.msg");
	assert_like_netlink(ETHNL_CHANNELS, &veth_ch, "veth-channels.msg");
	assert_like_netlink(ETHNL_CHANNELS, &veth_after, "veth-channels-after.msg");
	assert_like_netlink(ETHNL_COALESCE, &eth0_co, "eth0-coalesce.msg");
	assert_like_netlink(ETHNL_COALESCE, &tap_co, "tap-coalesce.msg");
	assert_like_netlink(ETHNL_COALESCE, &tap_after, "tap-coalesce-after.msg");
}

/* A set writes the fields asked for and nothing else: the rest of the struct as read. */
static void test_apply_only_requested(void **state)
{
	union ethtool_group_buf b, expect;
	struct ethnl_values want;
	struct rterr err = {0};

	(void)state;
	coalesce_fill(&b);
	expect = b;
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_COALESCE_RX_USECS] = 7;
	want.val[ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH] = 4294967295LL;
	want.val[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX] = 1; /* already on: no change */
	assert_int_equal(ethtool_group_apply(ETHNL_COALESCE, &b, &want, &err), 2);
	expect.coalesce.rx_coalesce_usecs = 7;
	expect.coalesce.tx_max_coalesced_frames_high = 4294967295U;
	assert_memory_equal(&b, &expect, sizeof(b));
	/* The same again changes nothing: nothing to send. */
	assert_int_equal(ethtool_group_apply(ETHNL_COALESCE, &b, &want, &err), 0);
	assert_memory_equal(&b, &expect, sizeof(b));
	/* Channels: rx only; tx, the maxima and the other counts stay as read. */
	memset(&b, 0, sizeof(b));
	b.channels = (struct ethtool_channels){.cmd = ETHTOOL_GCHANNELS,
					       .max_rx = 4,
					       .max_tx = 4,
					       .max_combined = 8,
					       .rx_count = 4,
					       .tx_count = 3,
					       .combined_count = 1};
	expect = b;
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_CHANNELS_RX_COUNT] = 1;
	assert_int_equal(ethtool_group_apply(ETHNL_CHANNELS, &b, &want, &err), 1);
	expect.channels.rx_count = 1;
	assert_memory_equal(&b, &expect, sizeof(b));
	/* Nothing set: nothing changes. */
	ethnl_values_init(&want);
	assert_int_equal(ethtool_group_apply(ETHNL_PAUSE, &b, &want, &err), 0);
	assert_memory_equal(&b, &expect, sizeof(b));
}

/* The value fields (not the maxima) of each struct, as this test knows them. */
#define RO(f) offsetof(struct ethtool_ringparam, f)
#define CO(f) offsetof(struct ethtool_channels, f)
#define PO(f) offsetof(struct ethtool_pauseparam, f)
static const size_t value_offs[ETHNL_GROUP_COUNT][5] = {
	[ETHNL_RINGS] = {RO(rx_pending), RO(rx_mini_pending), RO(rx_jumbo_pending), RO(tx_pending)},
	[ETHNL_CHANNELS] = {CO(rx_count), CO(tx_count), CO(other_count), CO(combined_count)},
	[ETHNL_PAUSE] = {PO(autoneg), PO(rx_pause), PO(tx_pause)},
};

/* struct -> values -> a struct with its value fields cleared -> the same struct. */
static void test_round_trip(void **state)
{
	union ethtool_group_buf in[ETHNL_GROUP_COUNT] = {
		[ETHNL_RINGS] = {.rings = {.rx_max_pending = 4096,
					   .rx_mini_max_pending = 64,
					   .rx_jumbo_max_pending = 512,
					   .tx_max_pending = 4096,
					   .rx_pending = 1024,
					   .rx_mini_pending = 0,
					   .rx_jumbo_pending = 300,
					   .tx_pending = 4096}},
		[ETHNL_CHANNELS] = {.channels = {.max_rx = 8,
						 .max_tx = 8,
						 .max_other = 1,
						 .max_combined = 16,
						 .rx_count = 2,
						 .tx_count = 3,
						 .other_count = 1,
						 .combined_count = 5}},
		[ETHNL_PAUSE] = {.pause = {.autoneg = 0, .rx_pause = 1, .tx_pause = 1}},
	};
	struct rterr err = {0};
	size_t i;
	int g;

	(void)state;
	coalesce_fill(&in[ETHNL_COALESCE]);
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		union ethtool_group_buf out = in[g];
		struct ethnl_values v, again;
		int cleared = 0;

		ethtool_group_to_values(g, &in[g], &v);
		if (g == ETHNL_COALESCE) {
			for (i = 0; i < N_COALESCE; i++)
				cleared += get(&out, coalesce_spec[i].off) != 0;
			coalesce_fill(&out);
			for (i = 0; i < N_COALESCE; i++)
				put(&out, coalesce_spec[i].off, 0);
		} else {
			for (i = 0; i < 5 && value_offs[g][i]; i++) {
				cleared += get(&out, value_offs[g][i]) != 0;
				put(&out, value_offs[g][i], 0);
			}
		}
		assert_int_equal(ethtool_group_apply(g, &out, &v, &err), cleared);
		assert_memory_equal(&out, &in[g], sizeof(out));
		ethtool_group_to_values(g, &out, &again);
		assert_memory_equal(&again, &v, sizeof(v));
	}
}

static void test_refused(void **state)
{
	union ethtool_group_buf b, before;
	struct ethnl_values want;
	struct rterr err = {0};

	(void)state;
	coalesce_fill(&b);
	before = b;
	/* No ioctl field: refused by name, nothing written. */
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_COALESCE_RX_USECS] = 1;
	want.val[ETHTOOL_A_COALESCE_USE_CQE_MODE_RX] = 1;
	assert_int_equal(ethtool_group_apply(ETHNL_COALESCE, &b, &want, &err), -EOPNOTSUPP);
	assert_int_equal(err.kind, RTERR_SYSTEM);
	assert_string_equal(err.msg, "set coalesce cqe_mode_rx 1 (no such field in the ioctl: "
				     "needs ethtool netlink): Operation not supported");
	assert_memory_equal(&b, &before, sizeof(b));
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_RINGS_TX_PUSH] = 1;
	assert_int_equal(ethtool_group_check(ETHNL_RINGS, &want, &err), -EOPNOTSUPP);
	/* Out of range: the netlink path's check and text. */
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_PAUSE_AUTONEG] = 2;
	assert_int_equal(ethtool_group_check(ETHNL_PAUSE, &want, &err), -EINVAL);
	assert_int_equal(err.kind, RTERR_INPUT);
	assert_string_equal(err.msg, "pause_autoneg: 2 out of range (0..1)");
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_RINGS_RX] = 4294967296LL;
	assert_int_equal(ethtool_group_apply(ETHNL_RINGS, &b, &want, &err), -EINVAL);
	assert_memory_equal(&b, &before, sizeof(b));
	assert_int_equal(ethtool_group_check(ETHNL_GROUP_COUNT, &want, &err), -EINVAL);
}

/*
 * The two calls, on an ifindex nobody holds (SIOCGIFNAME says ENODEV without privilege):
 * a read says the device disappeared; a set that is refused or empty makes no call at all.
 */
static void test_calls(void **state)
{
	struct ethnl_values v, want;
	struct rterr err = {0};
	const int nobody = 0x7ffffff0;

	(void)state;
	assert_int_equal(ethtool_group_get(nobody, "gone0", ETHNL_RINGS, &v, &err), -ENODEV);
	assert_string_equal(err.msg, "interface 2147483632 (was gone0) disappeared (get rings): "
				     "No such device");
	assert_int_equal(v.val[ETHTOOL_A_RINGS_RX], LINK_UNSET);
	ethnl_values_init(&want);
	want.val[ETHTOOL_A_CHANNELS_COMBINED_COUNT] = 4;
	assert_int_equal(ethtool_group_set(nobody, "gone0", ETHNL_CHANNELS, &want, &err), -ENODEV);
	assert_string_equal(err.msg, "interface 2147483632 (was gone0) disappeared (set channels "
				     "combined 4): No such device");
	rterr_clear(&err);
	ethnl_values_init(&want);
	assert_int_equal(ethtool_group_set(nobody, "gone0", ETHNL_CHANNELS, &want, &err), 0);
	assert_int_equal(err.kind, RTERR_NONE);
	want.val[ETHTOOL_A_CHANNELS_RX_COUNT] = -5;
	assert_int_equal(ethtool_group_set(nobody, "gone0", ETHNL_CHANNELS, &want, &err), -EINVAL);
	assert_string_equal(err.msg, "channels_rx: -5 out of range (0..4294967295)");
	assert_int_equal(ethtool_group_get(0, "lo", ETHNL_RINGS, &v, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_rings_in),
		cmocka_unit_test(test_coalesce_in),
		cmocka_unit_test(test_channels_in),
		cmocka_unit_test(test_pause_in),
		cmocka_unit_test(test_same_as_netlink),
		cmocka_unit_test(test_apply_only_requested),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_calls),
	};

	if (find_tree(ETHNL_FIXTURES) < 0) {
		fprintf(stderr, "test_ethtool_groups: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
