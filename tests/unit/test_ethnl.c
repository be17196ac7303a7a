// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool netlink parsers (lib/netdev/ethnl_parse.c) on replies captured from this kernel by
 * tests/fuzz/capture_ethnl.py: each value against what ethtool(8) printed at capture time
 * (the NAME.ethtool files beside the fixtures; features line by line), and every fixture
 * cut short. Hand-built malformed messages: test_ethnl_malformed.c.
 */
#include "ethnl_test.h"

static struct ethnl_values parse_group(const char *fixture, enum ethnl_group g, int ifindex,
				       const char *ifname)
{
	struct blob b = load(fixture);
	struct ethnl_values v;
	struct ethnl_dev dev;

	assert_int_equal(ethnl_parse_reply(b.data, b.len, g, &v, &dev), 0);
	assert_int_equal(dev.ifindex, ifindex);
	assert_string_equal(dev.ifname, ifname);
	free(b.data);
	return v;
}

/* ---- the table ---------------------------------------------------------------------- */

static void test_table(void **state)
{
	/* Every knob name SPEC fixes, as prefix + row name. */
	static const struct {
		enum ethnl_group g;
		const char *knob;
	} spec[] = {
		{ETHNL_RINGS, "ring_rx"},
		{ETHNL_RINGS, "ring_rx_mini"},
		{ETHNL_RINGS, "ring_rx_jumbo"},
		{ETHNL_RINGS, "ring_tx"},
		{ETHNL_RINGS, "ring_rx_buf_len"},
		{ETHNL_COALESCE, "coalesce_rx_usecs"},
		{ETHNL_COALESCE, "coalesce_rx_frames"},
		{ETHNL_COALESCE, "coalesce_tx_usecs"},
		{ETHNL_COALESCE, "coalesce_tx_frames"},
		{ETHNL_COALESCE, "coalesce_rx_usecs_irq"},
		{ETHNL_COALESCE, "coalesce_rx_frames_irq"},
		{ETHNL_COALESCE, "coalesce_tx_usecs_irq"},
		{ETHNL_COALESCE, "coalesce_tx_frames_irq"},
		{ETHNL_COALESCE, "coalesce_adaptive_rx"},
		{ETHNL_COALESCE, "coalesce_adaptive_tx"},
		{ETHNL_CHANNELS, "channels_rx"},
		{ETHNL_CHANNELS, "channels_tx"},
		{ETHNL_CHANNELS, "channels_other"},
		{ETHNL_CHANNELS, "channels_combined"},
		{ETHNL_PAUSE, "pause_autoneg"},
		{ETHNL_PAUSE, "pause_rx"},
		{ETHNL_PAUSE, "pause_tx"},
	};
	static const size_t rows[] = {
		[ETHNL_RINGS] = 11, [ETHNL_COALESCE] = 27, [ETHNL_CHANNELS] = 4, [ETHNL_PAUSE] = 3};
	size_t i, j, n;
	int g;

	(void)state;
	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		const char *prefix = ethnl_knob_prefix(spec[i].g);

		assert_memory_equal(spec[i].knob, prefix, strlen(prefix));
		assert_non_null(ethnl_attr_find(spec[i].g, spec[i].knob + strlen(prefix)));
	}
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		const struct ethnl_attr *a = ethnl_attrs(g, &n);

		assert_int_equal(n, rows[g]);
		for (i = 0; i < n; i++) {
			assert_true(a[i].attr > 1 && a[i].attr <= ETHNL_MAX_ATTR);
			assert_true(a[i].max_attr != a[i].attr && a[i].max_attr <= ETHNL_MAX_ATTR);
			for (j = 0; j < i; j++) {
				assert_int_not_equal(a[i].attr, a[j].attr);
				assert_int_not_equal(a[i].attr, a[j].max_attr);
				assert_true(strcmp(a[i].name, a[j].name) != 0);
			}
		}
	}
	/* The nested DIM profiles are not rows; every other 6.18 coalesce attribute is. */
	assert_int_equal(rows[ETHNL_COALESCE], RT_ETHTOOL_A_COALESCE_TX_AGGR_TIME_USECS - 1);
	assert_null(ethnl_attr_find(ETHNL_RINGS, "nosuch"));
	assert_string_equal(ethnl_group_name(ETHNL_CHANNELS), "channels");
}

static void test_values_check(void **state)
{
	struct ethnl_values v;
	struct rterr err = {0};

	(void)state;
	ethnl_values_init(&v);
	assert_int_equal(ethnl_values_check(ETHNL_PAUSE, &v, &err), 0);
	v.val[ETHTOOL_A_PAUSE_AUTONEG] = 1;
	assert_int_equal(ethnl_values_check(ETHNL_PAUSE, &v, &err), 0);
	v.val[ETHTOOL_A_PAUSE_AUTONEG] = 2;
	assert_int_equal(ethnl_values_check(ETHNL_PAUSE, &v, &err), -EINVAL);
	assert_int_equal(err.kind, RTERR_INPUT);
	assert_string_equal(err.msg, "pause_autoneg: 2 out of range (0..1)");
	ethnl_values_init(&v);
	v.val[ETHTOOL_A_RINGS_TCP_DATA_SPLIT] = 256;
	assert_int_equal(ethnl_values_check(ETHNL_RINGS, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "ring_tcp_data_split: 256 out of range (0..255)");
	ethnl_values_init(&v);
	v.val[ETHTOOL_A_RINGS_RX] = 4294967295LL;
	assert_int_equal(ethnl_values_check(ETHNL_RINGS, &v, &err), 0);
	v.val[ETHTOOL_A_RINGS_RX] = 4294967296LL;
	assert_int_equal(ethnl_values_check(ETHNL_RINGS, &v, &err), -EINVAL);
	v.val[ETHTOOL_A_RINGS_RX] = -2;
	assert_int_equal(ethnl_values_check(ETHNL_RINGS, &v, &err), -EINVAL);
}

/* ---- group replies against ethtool -g/-c/-l/-a ----------------------------------------- */

static void test_rings_eth0(void **state)
{
	/* ethtool -g eth0: RX 256/256, RX Mini n/a, RX Jumbo n/a, TX 256/256, RX Buf Len
	 * n/a, CQE Size n/a, TX Push off, TCP data split n/a (ethtool 6.1 shows no RX push). */
	static const char *const set[] = {"rx", "tx", "tx_push", "rx_push", NULL};
	struct ethnl_values v = parse_group("eth0-rings.msg", ETHNL_RINGS, ETH0_IFINDEX, "eth0");

	(void)state;
	assert_int_equal(val(&v, ETHNL_RINGS, "rx"), 256);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx"), 256);
	assert_int_equal(val(&v, ETHNL_RINGS, "tx"), 256);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "tx"), 256);
	assert_int_equal(val(&v, ETHNL_RINGS, "tx_push"), 0);
	assert_int_equal(val(&v, ETHNL_RINGS, "rx_push"), 0);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx_mini"), LINK_UNSET);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "rx_jumbo"), LINK_UNSET);
	assert_int_equal(max_of(&v, ETHNL_RINGS, "hds_thresh"), LINK_UNSET);
	assert_only(&v, ETHNL_RINGS, set);
}

static void test_coalesce(void **state)
{
	/* ethtool -c eth0: Adaptive RX off TX n/a, rx-usecs 0, rx-frames 1, tx-usecs 0,
	 * tx-frames 1, everything else n/a. */
	static const char *const eth0_set[] = {"adaptive_rx", "rx_usecs",  "rx_frames",
					       "tx_usecs",    "tx_frames", NULL};
	static const char *const tap_set[] = {"rx_frames", NULL};
	struct ethnl_values v;

	(void)state;
	v = parse_group("eth0-coalesce.msg", ETHNL_COALESCE, ETH0_IFINDEX, "eth0");
	assert_int_equal(val(&v, ETHNL_COALESCE, "adaptive_rx"), 0);
	assert_int_equal(val(&v, ETHNL_COALESCE, "rx_usecs"), 0);
	assert_int_equal(val(&v, ETHNL_COALESCE, "rx_frames"), 1);
	assert_int_equal(val(&v, ETHNL_COALESCE, "tx_usecs"), 0);
	assert_int_equal(val(&v, ETHNL_COALESCE, "tx_frames"), 1);
	assert_only(&v, ETHNL_COALESCE, eth0_set);
	/* tap0: rx-frames 0, the only one; after ethtool -C tap0 rx-frames 100 tun keeps 64. */
	v = parse_group("tap-coalesce.msg", ETHNL_COALESCE, TAP0_IFINDEX, "tap0");
	assert_int_equal(val(&v, ETHNL_COALESCE, "rx_frames"), 0);
	assert_only(&v, ETHNL_COALESCE, tap_set);
	v = parse_group("tap-coalesce-after.msg", ETHNL_COALESCE, TAP0_IFINDEX, "tap0");
	assert_int_equal(val(&v, ETHNL_COALESCE, "rx_frames"), 64);
	assert_only(&v, ETHNL_COALESCE, tap_set);
}

static void test_channels(void **state)
{
	static const char *const eth0_set[] = {"combined", NULL};
	static const char *const veth_set[] = {"rx", "tx", NULL};
	struct ethnl_values v;

	(void)state;
	/* ethtool -l eth0: Combined 1 of 1, RX/TX/Other n/a. */
	v = parse_group("eth0-channels.msg", ETHNL_CHANNELS, ETH0_IFINDEX, "eth0");
	assert_int_equal(val(&v, ETHNL_CHANNELS, "combined"), 1);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "combined"), 1);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "rx"), LINK_UNSET);
	assert_only(&v, ETHNL_CHANNELS, eth0_set);
	/* ethtool -l v0: RX 4 of 4, TX 4 of 4; then ethtool -L v0 rx 2. */
	v = parse_group("veth-channels.msg", ETHNL_CHANNELS, V0_IFINDEX, "v0");
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), 4);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "rx"), 4);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "tx"), 4);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "tx"), 4);
	assert_only(&v, ETHNL_CHANNELS, veth_set);
	v = parse_group("veth-channels-after.msg", ETHNL_CHANNELS, V0_IFINDEX, "v0");
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), 2);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "rx"), 4);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "tx"), 4);
}

static void test_unsupported_ops(void **state)
{
	/* ethtool -a eth0: "netlink error: Operation not supported"; veth has no rings. */
	static const char *const errs[] = {"eth0-pause.msg", "veth-rings-err.msg",
					   "veth-coalesce-set-err.msg"};
	struct ethnl_values v;
	struct ethnl_ack ack;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct blob b = load(errs[i]);

		assert_int_equal(ethnl_parse_reply(b.data, b.len, ETHNL_PAUSE, &v, NULL), -EBADMSG);
		assert_int_equal(v.val[ETHTOOL_A_PAUSE_RX], LINK_UNSET);
		assert_int_equal(ethnl_parse_ack(b.data, b.len, &ack), 0);
		assert_int_equal(ack.error, -EOPNOTSUPP);
		assert_string_equal(ack.msg, "");
		assert_int_equal(ack.offset, -1);
		free(b.data);
	}
}

/* A reply of one group is not another's. */
static void test_wrong_group(void **state)
{
	struct blob b = load("eth0-rings.msg");
	struct ethnl_values v;
	int g;

	(void)state;
	for (g = 0; g < ETHNL_GROUP_COUNT; g++)
		assert_int_equal(ethnl_parse_reply(b.data, b.len, g, &v, NULL),
				 g == ETHNL_RINGS ? 0 : -EBADMSG);
	assert_int_equal(ethnl_parse_reply(b.data, b.len, ETHNL_GROUP_COUNT, &v, NULL), -EBADMSG);
	free(b.data);
}

/* ---- features against ethtool -k ------------------------------------------------------ */

static int bit(const uint32_t *w, unsigned int i)
{
	return (w[i / 32] >> (i % 32)) & 1;
}

/*
 * Each line of `ethtool -k` that names a kernel feature ("tx-tcp6-segmentation: off
 * [requested on]"; aliases like tcp-segmentation-offload are ethtool's own and skipped):
 * on/off is active, [fixed] is !available || never_changed, [requested X] is wanted X
 * while active is not. Returns the number of lines compared.
 */
static unsigned int check_vs_ethtool(const struct eth_features *f, const char *fixture)
{
	char path[PATH_MAX + 64], line[256];
	unsigned int compared = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ethnl/%s", tree, fixture);
	in = fopen(path, "r");
	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *p = line + strspn(line, " \t"), *colon = strstr(p, ": "), *state;
		int idx, fixed, on, requested = -1;

		if (!colon)
			continue;
		*colon = '\0';
		state = colon + 2;
		if (strncmp(state, "on", 2) != 0 && strncmp(state, "off", 3) != 0)
			continue;
		idx = ethtool_feature_index(f, p);
		if (idx < 0)
			continue;
		on = strncmp(state, "on", 2) == 0;
		fixed = strstr(state, "[fixed]") != NULL;
		if (strstr(state, "[requested on]"))
			requested = 1;
		if (strstr(state, "[requested off]"))
			requested = 0;
		if (bit(f->active, (unsigned int)idx) != on)
			fail_msg("%s %s: active %d, ethtool says %s", fixture, p,
				 bit(f->active, (unsigned int)idx), state);
		assert_int_equal(fixed, !bit(f->available, (unsigned int)idx) ||
						bit(f->never_changed, (unsigned int)idx));
		if (!fixed)
			assert_int_equal(bit(f->requested, (unsigned int)idx),
					 requested >= 0 ? requested : on);
		compared++;
	}
	fclose(in);
	return compared;
}

static struct ethnl_strings feature_names(void)
{
	struct blob b = load("strset-features.msg");
	struct ethnl_strings s;

	assert_int_equal(ethnl_parse_strset(b.data, b.len, ETH_SS_FEATURES_ID, &s), 0);
	free(b.data);
	return s;
}

/* A compact reply plus the string set: what ethnl_features_get() builds. */
static void parse_features(const char *fixture, const struct ethnl_strings *names,
			   struct eth_features *f)
{
	struct blob b = load(fixture);

	assert_int_equal(ethnl_parse_features(b.data, b.len, f), 0);
	assert_int_equal(f->count, FEATURE_BITS);
	assert_int_equal(f->words, 2);
	if (names) {
		assert_int_equal(names->count, f->count);
		memcpy(f->names, names->names, f->count * sizeof(*f->names));
	}
	free(b.data);
}

static void assert_features_equal(const struct eth_features *a, const struct eth_features *b)
{
	unsigned int i;

	assert_int_equal(a->count, b->count);
	assert_int_equal(a->words, b->words);
	for (i = 0; i < a->count; i++)
		assert_string_equal(a->names[i], b->names[i]);
	assert_memory_equal(a->available, b->available, a->words * 4);
	assert_memory_equal(a->requested, b->requested, a->words * 4);
	assert_memory_equal(a->active, b->active, a->words * 4);
	assert_memory_equal(a->never_changed, b->never_changed, a->words * 4);
}

static void test_features(void **state)
{
	static const struct {
		const char *compact, *verbose, *ethtool;
	} devs[] = {
		{"eth0-features-compact.msg", "eth0-features-verbose.msg",
		 "eth0-features-compact.ethtool"},
		{"veth-features-compact.msg", "veth-features-verbose.msg",
		 "veth-features-compact.ethtool"},
		{"tap-features-compact.msg", NULL, "tap-features-compact.ethtool"},
		{"veth-features-wish.msg", NULL, "veth-features-wish.ethtool"},
	};
	struct ethnl_strings names = feature_names();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		struct eth_features c, v;

		parse_features(devs[i].compact, &names, &c);
		/* Every line but the aliases: eth0 and veth print 64 features, 11 aliases. */
		assert_true(check_vs_ethtool(&c, devs[i].ethtool) >= 50);
		if (devs[i].verbose) {
			parse_features(devs[i].verbose, NULL, &v);
			assert_features_equal(&c, &v);
			ethtool_features_free(&v);
		}
		ethtool_features_free(&c);
	}
	ethnl_strings_free(&names);
}

/* Spot checks of bits ethtool -k shows, independent of the line matcher above. */
static void test_features_bits(void **state)
{
	struct ethnl_strings names = feature_names();
	struct eth_features f;
	int i;

	(void)state;
	parse_features("eth0-features-compact.msg", &names, &f);
	/* rx-gro-hw: on [fixed] (virtio_net turns it on without offering it). */
	i = ethtool_feature_index(&f, "rx-gro-hw");
	assert_true(i >= 0 && bit(f.active, i) && !bit(f.available, i));
	assert_int_equal(ethtool_feature_active(&f, "tx-tcp6-segmentation"), 1);
	assert_int_equal(ethtool_feature_requested(&f, "tx-tcp6-segmentation"), 1);
	assert_int_equal(ethtool_feature_active(&f, "tx-tcp-mangleid-segmentation"), 0);
	i = ethtool_feature_index(&f, "vlan-challenged");
	assert_true(i >= 0 && bit(f.never_changed, i) && !bit(f.active, i));
	ethtool_features_free(&f);
	/* After TX checksumming off, TSO on: off [requested on]. */
	parse_features("veth-features-wish.msg", &names, &f);
	assert_int_equal(ethtool_feature_active(&f, "tx-tcp-segmentation"), 0);
	assert_int_equal(ethtool_feature_requested(&f, "tx-tcp-segmentation"), 1);
	assert_int_equal(ethtool_feature_active(&f, "tx-checksum-ip-generic"), 0);
	assert_int_equal(ethtool_feature_requested(&f, "tx-checksum-ip-generic"), 0);
	ethtool_features_free(&f);
	ethnl_strings_free(&names);
}

static void test_strset(void **state)
{
	struct ethnl_strings s = feature_names();
	struct eth_features v;
	struct blob b;
	unsigned int i;

	(void)state;
	assert_int_equal(s.count, FEATURE_BITS);
	assert_string_equal(s.names[0], "tx-scatter-gather");
	assert_string_equal(s.names[16], "tx-tcp-segmentation");
	assert_string_equal(s.names[17], "tx-gso-robust");
	assert_string_equal(s.names[20], "tx-tcp6-segmentation");
	/* The names a verbose features reply carries are the string set's, bit for bit. */
	parse_features("veth-features-verbose.msg", NULL, &v);
	for (i = 0; i < s.count; i++)
		assert_string_equal(s.names[i], v.names[i]);
	ethtool_features_free(&v);
	/* Another set id is not in this reply. */
	b = load("strset-features.msg");
	ethnl_strings_free(&s);
	assert_int_equal(ethnl_parse_strset(b.data, b.len, 0, &s), -EBADMSG);
	assert_null(s.names);
	free(b.data);
}

static void test_features_set_reply(void **state)
{
	static const char *const fixtures[] = {"veth-features-set-compact.msg",
					       "veth-features-set-verbose.msg"};
	size_t i;

	(void)state;
	/* tx-tcp-segmentation (16), tx-gso-robust (17, fixed), tx-tcp6-segmentation (20) on
	 * with TX checksumming off: all three kept off, nothing changed. */
	for (i = 0; i < 2; i++) {
		struct ethnl_features_diff d;
		struct blob b = load(fixtures[i]);

		assert_int_equal(ethnl_parse_features_set_reply(b.data, b.len, &d), 0);
		assert_int_equal(d.count, FEATURE_BITS);
		assert_int_equal(d.kept[0], (1U << 16) | (1U << 17) | (1U << 20));
		assert_int_equal(d.kept[1], 0);
		assert_int_equal(d.wanted[0], d.kept[0]);
		assert_int_equal(d.changed[0] | d.changed[1], 0);
		assert_int_equal(d.active[0] | d.active[1], 0);
		ethnl_features_diff_free(&d);
		assert_null(d.kept);
		/* A SET reply is not a GET reply, and the other way round. */
		{
			struct eth_features f;

			assert_int_equal(ethnl_parse_features(b.data, b.len, &f), -EBADMSG);
		}
		free(b.data);
	}
	{
		struct ethnl_features_diff d;
		struct blob b = load("veth-features-compact.msg");

		assert_int_equal(ethnl_parse_features_set_reply(b.data, b.len, &d), -EBADMSG);
		free(b.data);
	}
}

/* ---- errors --------------------------------------------------------------------------- */

static void test_extack(void **state)
{
	static const char *const fixtures[] = {"veth-channels-set-err.msg",
					       "veth-channels-set-err-echo.msg"};
	struct ethnl_ack ack;
	struct blob b;
	size_t i;

	(void)state;
	/* ethnl_set's message: "set channels rx 8 (kernel: requested channel count exceeds
	 * maximum): Invalid argument"; offset 40 is the RX_COUNT attribute of the request
	 * (16 nlmsghdr + 4 genl + 20 header nest). */
	for (i = 0; i < 2; i++) {
		b = load(fixtures[i]);
		assert_int_equal(ethnl_parse_ack(b.data, b.len, &ack), 0);
		assert_int_equal(ack.error, -EINVAL);
		assert_string_equal(ack.msg, "requested channel count exceeds maximum");
		assert_int_equal(ack.offset, 40);
		assert_int_equal(ack.miss_type, -1);
		free(b.data);
	}
	/* STRSET_GET without a header: no text, the missing attribute's number instead. */
	b = load("strset-nohdr-err.msg");
	assert_int_equal(ethnl_parse_ack(b.data, b.len, &ack), 0);
	assert_int_equal(ack.error, -EINVAL);
	assert_string_equal(ack.msg, "");
	assert_int_equal(ack.miss_type, ETHTOOL_A_STRSET_HEADER);
	free(b.data);
	/* A reply is not an ACK. */
	b = load("veth-channels.msg");
	assert_int_equal(ethnl_parse_ack(b.data, b.len, &ack), -EBADMSG);
	free(b.data);
}

/* ---- notifications --------------------------------------------------------------------- */

static void test_events(void **state)
{
	struct ethnl_event ev;
	struct blob b;
	uint16_t family;

	(void)state;
	b = load("ntf-channels.msg");
	memcpy(&family, b.data + 4, sizeof(family));
	assert_int_equal(ethnl_parse_event(b.data, b.len, family, &ev), 0);
	assert_int_equal(ev.what, ETHNL_NTF_CHANNELS);
	assert_int_equal(ev.group, ETHNL_CHANNELS);
	assert_int_equal(ev.ifindex, V0_IFINDEX);
	assert_string_equal(ev.ifname, "v0");
	assert_int_equal(val(&ev.values, ETHNL_CHANNELS, "rx"), 2);
	assert_int_equal(max_of(&ev.values, ETHNL_CHANNELS, "rx"), 4);
	assert_int_equal(val(&ev.values, ETHNL_CHANNELS, "tx"), 4);
	assert_string_equal(ethnl_ntf_name(ev.what), "channels");
	/* Another family's message of the same shape is not ours. */
	assert_int_equal(ethnl_parse_event(b.data, b.len, (uint16_t)(family + 1), &ev), -EBADMSG);
	assert_int_equal(ev.group, -1);
	free(b.data);

	b = load("ntf-coalesce.msg");
	assert_int_equal(ethnl_parse_event(b.data, b.len, 0, &ev), 0);
	assert_int_equal(ev.what, ETHNL_NTF_COALESCE);
	assert_int_equal(ev.ifindex, TAP0_IFINDEX);
	assert_int_equal(val(&ev.values, ETHNL_COALESCE, "rx_frames"), 64);
	free(b.data);

	b = load("ntf-features.msg");
	assert_int_equal(ethnl_parse_event(b.data, b.len, 0, &ev), 0);
	assert_int_equal(ev.what, ETHNL_NTF_FEATURES);
	assert_int_equal(ev.group, -1);
	assert_int_equal(ev.ifindex, V0_IFINDEX);
	{
		/* The notification carries the whole state: gro on, as ethtool -K set it. */
		struct ethnl_strings names = feature_names();
		struct eth_features f;

		parse_features("ntf-features.msg", &names, &f);
		assert_int_equal(ethtool_feature_active(&f, "rx-gro"), 1);
		ethtool_features_free(&f);
		ethnl_strings_free(&names);
	}
	free(b.data);
}

/* ---- hostile input ----------------------------------------------------------------------- */

static const char *const all_fixtures[] = {
	"eth0-rings.msg",
	"eth0-coalesce.msg",
	"eth0-channels.msg",
	"eth0-pause.msg",
	"eth0-features-compact.msg",
	"eth0-features-verbose.msg",
	"strset-features.msg",
	"strset-nohdr-err.msg",
	"veth-channels.msg",
	"veth-rings-err.msg",
	"veth-features-compact.msg",
	"veth-features-verbose.msg",
	"tap-coalesce.msg",
	"tap-features-compact.msg",
	"veth-channels-set-err.msg",
	"veth-channels-set-err-echo.msg",
	"veth-coalesce-set-err.msg",
	"ntf-channels.msg",
	"ntf-coalesce.msg",
	"ntf-features.msg",
	"veth-channels-after.msg",
	"tap-coalesce-after.msg",
	"veth-features-set-compact.msg",
	"veth-features-wish.msg",
	"veth-features-set-verbose.msg",
};

/* Every parser on one buffer; returns how many accepted it. */
static int parse_all(const uint8_t *buf, size_t len)
{
	struct ethnl_features_diff d;
	struct ethnl_strings s;
	struct eth_features f;
	struct ethnl_values v;
	struct ethnl_event ev;
	struct ethnl_ack ack;
	int g, ok = 0;

	for (g = 0; g < ETHNL_GROUP_COUNT; g++)
		ok += ethnl_parse_reply(buf, len, g, &v, NULL) == 0;
	if (ethnl_parse_features(buf, len, &f) == 0) {
		ethtool_features_free(&f);
		ok++;
	}
	if (ethnl_parse_features_set_reply(buf, len, &d) == 0) {
		ethnl_features_diff_free(&d);
		ok++;
	}
	if (ethnl_parse_strset(buf, len, ETH_SS_FEATURES_ID, &s) == 0) {
		ethnl_strings_free(&s);
		ok++;
	}
	ok += ethnl_parse_ack(buf, len, &ack) == 0;
	ok += ethnl_parse_event(buf, len, 0, &ev) == 0;
	return ok;
}

/*
 * Every fixture cut short: a buffer shorter than its nlmsg_len is refused by every parser;
 * with nlmsg_len cut too, a group reply that still parses (the cut fell between two
 * attributes) has no value the whole one lacks or disagrees with.
 */
static void test_truncated(void **state)
{
	size_t i, cut;

	(void)state;
	for (i = 0; i < sizeof(all_fixtures) / sizeof(all_fixtures[0]); i++) {
		struct blob b = load(all_fixtures[i]);
		uint8_t *copy = malloc(b.len);

		assert_non_null(copy);
		assert_true(parse_all(b.data, b.len) >= 1);
		for (cut = 0; cut < b.len; cut++) {
			uint32_t mlen = (uint32_t)cut;
			int g;

			memcpy(copy, b.data, b.len);
			assert_int_equal(parse_all(copy, cut), 0);
			if (cut < NLMSG_HDRLEN)
				continue;
			memcpy(copy, &mlen, sizeof(mlen));
			parse_all(copy, cut);
			for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
				struct ethnl_values whole, part;
				unsigned int k;

				if (ethnl_parse_reply(copy, cut, g, &part, NULL) != 0)
					continue;
				assert_int_equal(ethnl_parse_reply(b.data, b.len, g, &whole, NULL),
						 0);
				for (k = 0; k <= ETHNL_MAX_ATTR; k++) {
					assert_true(part.val[k] == LINK_UNSET ||
						    part.val[k] == whole.val[k]);
					assert_true(part.max[k] == LINK_UNSET ||
						    part.max[k] == whole.max[k]);
				}
			}
		}
		free(copy);
		free(b.data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_values_check),
		cmocka_unit_test(test_rings_eth0),
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_channels),
		cmocka_unit_test(test_unsupported_ops),
		cmocka_unit_test(test_wrong_group),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_features_bits),
		cmocka_unit_test(test_strset),
		cmocka_unit_test(test_features_set_reply),
		cmocka_unit_test(test_extack),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_truncated),
	};

	if (find_tree(ETHNL_FIXTURES) < 0) {
		fprintf(stderr, "test_ethnl: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
