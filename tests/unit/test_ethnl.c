// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool netlink parsers (lib/ethnl_parse.c) on replies captured from this kernel by
 * tests/fuzz/capture_ethnl.py: each value against what ethtool(8) printed at capture time
 * (the NAME.ethtool files beside the fixtures; features line by line), and hand-built
 * messages with every length wrong that the parsers must refuse.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/ethnl_priv.h"

/* Capture-time facts (MANIFEST): ifindexes, the family id of that boot. */
#define ETH0_IFINDEX 4
#define V0_IFINDEX   3
#define TAP0_IFINDEX 4
#define FEATURE_BITS 64 /* NETDEV_FEATURE_COUNT in 6.18 */

static char tree[PATH_MAX];

static int find_tree(void)
{
	const char *env = getenv("RTLTUNE_SRCDIR");
	ssize_t r;
	int up;

	if (env && *env) {
		snprintf(tree, sizeof(tree), "%s", env);
		return 0;
	}
	r = readlink("/proc/self/exe", tree, sizeof(tree) - 1);
	if (r <= 0)
		return -1;
	tree[r] = '\0';
	for (up = 0; up < 3; up++) {
		char *slash = strrchr(tree, '/');

		if (!slash)
			return -1;
		*slash = '\0';
	}
	return access(tree, R_OK);
}

struct blob {
	uint8_t *data;
	size_t len;
};

static struct blob load(const char *name)
{
	char path[PATH_MAX + 64];
	struct blob b = {0};
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ethnl/%s", tree, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b.data = malloc((size_t)n);
	assert_non_null(b.data);
	assert_int_equal(fread(b.data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b.len = (size_t)n;
	return b;
}

static int64_t val(const struct ethnl_values *v, enum ethnl_group g, const char *name)
{
	const struct ethnl_attr *a = ethnl_attr_find(g, name);

	assert_non_null(a);
	return v->val[a->attr];
}

static int64_t max_of(const struct ethnl_values *v, enum ethnl_group g, const char *name)
{
	const struct ethnl_attr *a = ethnl_attr_find(g, name);

	assert_non_null(a);
	return v->max[a->attr];
}

/* Every row not named in set[] must be absent (ethtool's "n/a"). */
static void assert_only(const struct ethnl_values *v, enum ethnl_group g, const char *const *set)
{
	size_t i, n, k;
	const struct ethnl_attr *a = ethnl_attrs(g, &n);

	for (i = 0; i < n; i++) {
		bool listed = false;

		for (k = 0; set[k]; k++)
			listed |= strcmp(set[k], a[i].name) == 0;
		if (!listed && v->val[a[i].attr] != LINK_UNSET)
			fail_msg("%s %s: expected absent, got %lld", ethnl_group_name(g), a[i].name,
				 (long long)v->val[a[i].attr]);
	}
}

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

/* A message builder for the shapes the kernel never sends. */
struct mb {
	uint8_t b[4096];
	size_t len;
	size_t nest[8];
	int depth;
};

static void mb_raw(struct mb *m, const void *p, size_t n)
{
	assert_true(m->len + n <= sizeof(m->b));
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void mb_pad(struct mb *m)
{
	static const uint8_t zero[4];

	mb_raw(m, zero, NLA_ALIGN(m->len) - m->len);
}

static void mb_genl(struct mb *m, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr h = {.nlmsg_type = type};
	uint8_t g[4] = {cmd, 1, 0, 0};

	memset(m, 0, sizeof(*m));
	mb_raw(m, &h, sizeof(h));
	mb_raw(m, g, sizeof(g));
}

/* An attribute whose header claims hdr_len (0: the honest length). */
static void mb_attr_len(struct mb *m, uint16_t type, const void *p, size_t n, uint16_t hdr_len)
{
	uint16_t h[2] = {hdr_len ? hdr_len : (uint16_t)(NLA_HDRLEN + n), type};

	mb_raw(m, h, sizeof(h));
	if (n)
		mb_raw(m, p, n);
	mb_pad(m);
}

static void mb_attr(struct mb *m, uint16_t type, const void *p, size_t n)
{
	mb_attr_len(m, type, p, n, 0);
}

static void mb_u32(struct mb *m, uint16_t type, uint32_t v)
{
	mb_attr(m, type, &v, sizeof(v));
}

static void mb_nest(struct mb *m, uint16_t type)
{
	uint16_t h[2] = {0, type | NLA_F_NESTED};

	m->nest[m->depth++] = m->len;
	mb_raw(m, h, sizeof(h));
}

static void mb_end_nest(struct mb *m)
{
	size_t at = m->nest[--m->depth];
	uint16_t len = (uint16_t)(m->len - at);

	memcpy(m->b + at, &len, sizeof(len));
}

static size_t mb_done(struct mb *m)
{
	uint32_t len = (uint32_t)m->len;

	memcpy(m->b, &len, sizeof(len));
	return m->len;
}

static void mb_header(struct mb *m, uint32_t ifindex, const char *name, size_t name_len)
{
	mb_nest(m, RT_ETHTOOL_A_HEADER);
	mb_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
	if (name)
		mb_attr(m, ETHTOOL_A_HEADER_DEV_NAME, name, name_len);
	mb_end_nest(m);
}

/* A CHANNELS reply with rx 2 of 4, and one extra thing chosen by how. */
static size_t channels_msg(struct mb *m, int how)
{
	uint64_t eight = 0;
	uint8_t one = 1;

	mb_genl(m, 21, ETHTOOL_MSG_CHANNELS_GET_REPLY);
	if (how != 1)
		mb_header(m, 3,
			  how == 2   ? "v0-not-terminated"
			  : how == 3 ? "sixteen-chars-xx"
				     : "v0",
			  how == 2   ? 17
			  : how == 3 ? 17
				     : 3);
	mb_u32(m, ETHTOOL_A_CHANNELS_RX_MAX, 4);
	switch (how) {
	case 4: /* a u32 of one byte */
		mb_attr(m, ETHTOOL_A_CHANNELS_RX_COUNT, &one, 1);
		break;
	case 5: /* a u32 of eight bytes */
		mb_attr(m, ETHTOOL_A_CHANNELS_RX_COUNT, &eight, 8);
		break;
	case 6: /* a header shorter than a header */
		mb_attr_len(m, ETHTOOL_A_CHANNELS_RX_COUNT, &eight, 4, 3);
		break;
	case 7: /* a length past the end */
		mb_attr_len(m, ETHTOOL_A_CHANNELS_RX_COUNT, &eight, 4, 200);
		break;
	case 8: /* twice */
		mb_u32(m, ETHTOOL_A_CHANNELS_RX_COUNT, 2);
		mb_u32(m, ETHTOOL_A_CHANNELS_RX_COUNT, 3);
		break;
	case 9: /* two stray bytes at the end */
		mb_u32(m, ETHTOOL_A_CHANNELS_RX_COUNT, 2);
		mb_raw(m, &eight, 2);
		break;
	case 10: /* an attribute newer than this code: skipped */
		mb_u32(m, ETHTOOL_A_CHANNELS_RX_COUNT, 2);
		mb_u32(m, 40, 7);
		break;
	case 11: /* a scalar flagged nested */
		mb_attr(m, ETHTOOL_A_CHANNELS_RX_COUNT | NLA_F_NESTED, &eight, 4);
		break;
	default:
		mb_u32(m, ETHTOOL_A_CHANNELS_RX_COUNT, 2);
	}
	return mb_done(m);
}

static void test_malformed_scalars(void **state)
{
	struct ethnl_values v;
	struct ethnl_dev dev;
	struct mb m;
	size_t len;
	int how;

	(void)state;
	len = channels_msg(&m, 0);
	assert_int_equal(ethnl_parse_reply(m.b, len, ETHNL_CHANNELS, &v, &dev), 0);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), 2);
	assert_int_equal(max_of(&v, ETHNL_CHANNELS, "rx"), 4);
	for (how = 1; how <= 9; how++) {
		len = channels_msg(&m, how);
		if (ethnl_parse_reply(m.b, len, ETHNL_CHANNELS, &v, &dev) != -EBADMSG)
			fail_msg("malformed channels reply %d accepted", how);
		assert_int_equal(v.max[ETHTOOL_A_CHANNELS_RX_COUNT], LINK_UNSET);
	}
	len = channels_msg(&m, 10);
	assert_int_equal(ethnl_parse_reply(m.b, len, ETHNL_CHANNELS, &v, &dev), 0);
	assert_int_equal(val(&v, ETHNL_CHANNELS, "rx"), 2);
	len = channels_msg(&m, 11);
	assert_int_equal(ethnl_parse_reply(m.b, len, ETHNL_CHANNELS, &v, &dev), -EBADMSG);
	/* nlmsg_len beyond the buffer, or short of a genl header. */
	len = channels_msg(&m, 0);
	assert_int_equal(ethnl_parse_reply(m.b, len - 1, ETHNL_CHANNELS, &v, &dev), -EBADMSG);
	m.b[0] = NLMSG_HDRLEN + 2;
	assert_int_equal(ethnl_parse_reply(m.b, len, ETHNL_CHANNELS, &v, &dev), -EBADMSG);
	assert_int_equal(ethnl_parse_reply(NULL, 0, ETHNL_CHANNELS, &v, &dev), -EBADMSG);
	/* A u8 bool with four bytes (pause autoneg). */
	{
		uint32_t four = 1;

		mb_genl(&m, 21, ETHTOOL_MSG_PAUSE_GET_REPLY);
		mb_header(&m, 3, NULL, 0);
		mb_attr(&m, ETHTOOL_A_PAUSE_AUTONEG, &four, 4);
		len = mb_done(&m);
		assert_int_equal(ethnl_parse_reply(m.b, len, ETHNL_PAUSE, &v, NULL), -EBADMSG);
	}
}

/* A features reply of four bitsets of nbits bits; how breaks one thing. */
static size_t features_msg(struct mb *m, int how)
{
	static const char *const names[] = {"feat-a", "feat-b", "feat-c"};
	uint32_t words[2] = {0x5, 0}, all[2] = {~0U, 0xff};
	uint32_t nbits = how == 3 ? 5000 : 40;
	int set, k;

	mb_genl(m, 21, ETHTOOL_MSG_FEATURES_GET_REPLY);
	mb_header(m, 3, "v0", 3);
	for (set = ETHTOOL_A_FEATURES_HW; set <= ETHTOOL_A_FEATURES_NOCHANGE; set++) {
		bool verbose = how >= 10 && set == ETHTOOL_A_FEATURES_HW;

		mb_nest(m, (uint16_t)set);
		if (set != ETHTOOL_A_FEATURES_HW || how == 5)
			mb_attr(m, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
		mb_u32(m, ETHTOOL_A_BITSET_SIZE,
		       how == 4 && set == ETHTOOL_A_FEATURES_ACTIVE ? 41 : nbits);
		if (verbose) {
			mb_nest(m, ETHTOOL_A_BITSET_BITS);
			for (k = 0; k < 3; k++) {
				mb_nest(m, ETHTOOL_A_BITSET_BITS_BIT);
				mb_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, how == 10 && k == 2 ? 40 : k);
				mb_attr(m, ETHTOOL_A_BITSET_BIT_NAME, names[k],
					how == 11 && k == 1 ? 6 : 7);
				if (k != 1)
					mb_attr(m, ETHTOOL_A_BITSET_BIT_VALUE, &words,
						how == 12 && k == 2 ? 4 : 0);
				mb_end_nest(m);
			}
			mb_end_nest(m);
		} else {
			mb_attr(m, ETHTOOL_A_BITSET_VALUE, words, how == 1 ? 4 : 8);
			if ((set == ETHTOOL_A_FEATURES_HW && how != 5) || how == 2)
				mb_attr(m, ETHTOOL_A_BITSET_MASK, all, 8);
		}
		mb_end_nest(m);
	}
	return mb_done(m);
}

static void test_malformed_bitsets(void **state)
{
	struct eth_features f;
	struct mb m;
	size_t len;
	int how;

	(void)state;
	len = features_msg(&m, 0);
	assert_int_equal(ethnl_parse_features(m.b, len, &f), 0);
	assert_int_equal(f.count, 40);
	assert_int_equal(f.words, 2);
	assert_int_equal(f.available[0], 0x5);
	assert_int_equal(f.active[0], 0x5);
	ethtool_features_free(&f);
	/* Value words short of the size; a mask in a list; a size over the bound; sizes that
	 * disagree. (5, HW as a list, is valid.) */
	for (how = 1; how <= 4; how++) {
		len = features_msg(&m, how);
		if (ethnl_parse_features(m.b, len, &f) != -EBADMSG)
			fail_msg("malformed features reply %d accepted", how);
		assert_null(f.names);
	}
	len = features_msg(&m, 5);
	assert_int_equal(ethnl_parse_features(m.b, len, &f), 0);
	ethtool_features_free(&f);
	/* Verbose HW: bits 0 and 2 set, 1 listed without VALUE; names carried. */
	len = features_msg(&m, 13);
	assert_int_equal(ethnl_parse_features(m.b, len, &f), 0);
	assert_int_equal(f.available[0], 0x5);
	assert_string_equal(f.names[1], "feat-b");
	assert_string_equal(f.names[3], "");
	ethtool_features_free(&f);
	/* An index past the size; a name without its NUL; a VALUE flag with a payload. */
	for (how = 10; how <= 12; how++) {
		len = features_msg(&m, how);
		if (ethnl_parse_features(m.b, len, &f) != -EBADMSG)
			fail_msg("malformed verbose bitset %d accepted", how);
	}
}

static size_t strset_msg(struct mb *m, int how)
{
	mb_genl(m, 21, ETHTOOL_MSG_STRSET_GET_REPLY);
	mb_nest(m, ETHTOOL_A_STRSET_STRINGSETS);
	mb_nest(m, ETHTOOL_A_STRINGSETS_STRINGSET);
	mb_u32(m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES_ID);
	mb_u32(m, ETHTOOL_A_STRINGSET_COUNT, how == 2 ? 100000 : 2);
	mb_nest(m, ETHTOOL_A_STRINGSET_STRINGS);
	mb_nest(m, ETHTOOL_A_STRINGS_STRING);
	mb_u32(m, ETHTOOL_A_STRING_INDEX, how == 1 ? 2 : 1);
	if (how == 3)
		mb_attr(m, ETHTOOL_A_STRING_VALUE, "abc", 3);
	else if (how == 4) /* 40 characters: cut to 31 like the ioctl's copy */
		mb_attr(m, ETHTOOL_A_STRING_VALUE, "0123456789012345678901234567890123456789", 41);
	else
		mb_attr(m, ETHTOOL_A_STRING_VALUE, "rx-gro", 7);
	mb_end_nest(m);
	mb_end_nest(m);
	mb_end_nest(m);
	mb_end_nest(m);
	return mb_done(m);
}

static void test_malformed_strset(void **state)
{
	struct ethnl_strings s;
	struct mb m;
	size_t len;
	int how;

	(void)state;
	len = strset_msg(&m, 0);
	assert_int_equal(ethnl_parse_strset(m.b, len, ETH_SS_FEATURES_ID, &s), 0);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.names[0], "");
	assert_string_equal(s.names[1], "rx-gro");
	ethnl_strings_free(&s);
	for (how = 1; how <= 3; how++) {
		len = strset_msg(&m, how);
		if (ethnl_parse_strset(m.b, len, ETH_SS_FEATURES_ID, &s) != -EBADMSG)
			fail_msg("malformed strset %d accepted", how);
		assert_null(s.names);
	}
	len = strset_msg(&m, 4);
	assert_int_equal(ethnl_parse_strset(m.b, len, ETH_SS_FEATURES_ID, &s), 0);
	assert_string_equal(s.names[1], "0123456789012345678901234567890");
	ethnl_strings_free(&s);
}

static size_t ack_msg(struct mb *m, int32_t error, uint16_t flags, uint32_t echoed,
		      const char *text, size_t text_len)
{
	struct nlmsghdr h = {.nlmsg_type = NLMSG_ERROR, .nlmsg_flags = flags};
	struct nlmsghdr req = {.nlmsg_len = echoed};

	memset(m, 0, sizeof(*m));
	mb_raw(m, &h, sizeof(h));
	mb_raw(m, &error, sizeof(error));
	mb_raw(m, &req, sizeof(req));
	if (!(flags & NLM_F_CAPPED) && echoed >= NLMSG_HDRLEN) {
		static const uint8_t payload[64];

		mb_raw(m, payload,
		       NLMSG_ALIGN(echoed - NLMSG_HDRLEN) > 64
			       ? 64
			       : NLMSG_ALIGN(echoed - NLMSG_HDRLEN));
	}
	if (text)
		mb_attr(m, RT_NLMSGERR_ATTR_MSG, text, text_len);
	return mb_done(m);
}

static void test_malformed_ack(void **state)
{
	char longtext[300];
	struct ethnl_ack ack;
	struct mb m;
	size_t len;

	(void)state;
	len = ack_msg(&m, 0, NLM_F_CAPPED, 36, NULL, 0);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), 0);
	assert_int_equal(ack.error, 0);
	/* An echo of 23 bytes is padded to 24 before the TLVs. */
	len = ack_msg(&m, -EINVAL, NLM_F_ACK_TLVS, 23, "bad", 4);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), 0);
	assert_string_equal(ack.msg, "bad");
	/* An echo longer than the message; shorter than a header; a positive errno. */
	len = ack_msg(&m, -EINVAL, NLM_F_ACK_TLVS, 1000, NULL, 0);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), -EBADMSG);
	len = ack_msg(&m, -EINVAL, 0, 8, NULL, 0);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), -EBADMSG);
	len = ack_msg(&m, 5, NLM_F_CAPPED, 16, NULL, 0);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), -EBADMSG);
	/* A text without its NUL; a long one is cut, the errno kept. */
	len = ack_msg(&m, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 16, "bad", 3);
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), -EBADMSG);
	memset(longtext, 'x', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	len = ack_msg(&m, -ERANGE, NLM_F_CAPPED | NLM_F_ACK_TLVS, 16, longtext, sizeof(longtext));
	assert_int_equal(ethnl_parse_ack(m.b, len, &ack), 0);
	assert_int_equal(ack.error, -ERANGE);
	assert_int_equal(strlen(ack.msg), sizeof(ack.msg) - 1);
	/* Shorter than struct nlmsgerr. */
	assert_int_equal(ethnl_parse_ack(m.b, NLMSG_HDRLEN + 4, &ack), -EBADMSG);
}

static void test_request_attr_at(void **state)
{
	struct mb m;
	size_t len;

	(void)state;
	/* header nest at 20 (20 bytes), rx at 40, tx at 48: as ethnl_set builds them. */
	mb_genl(&m, 21, ETHTOOL_MSG_CHANNELS_SET);
	mb_nest(&m, RT_ETHTOOL_A_HEADER);
	mb_u32(&m, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	mb_u32(&m, ETHTOOL_A_HEADER_FLAGS, 0);
	mb_end_nest(&m);
	mb_u32(&m, ETHTOOL_A_CHANNELS_RX_COUNT, 8);
	mb_u32(&m, ETHTOOL_A_CHANNELS_TX_COUNT, 2);
	len = mb_done(&m);
	assert_int_equal(ethnl_request_attr_at(m.b, len, 40), ETHTOOL_A_CHANNELS_RX_COUNT);
	assert_int_equal(ethnl_request_attr_at(m.b, len, 48), ETHTOOL_A_CHANNELS_TX_COUNT);
	assert_int_equal(ethnl_request_attr_at(m.b, len, 24), RT_ETHTOOL_A_HEADER);
	assert_int_equal(ethnl_request_attr_at(m.b, len, 56), -1);
	assert_int_equal(ethnl_request_attr_at(m.b, len, 4), -1);
}

/* A notification of a command this code does not know, whose attribute 1 is no header. */
static void test_event_unknown(void **state)
{
	struct ethnl_event ev;
	struct mb m;
	size_t len;

	(void)state;
	mb_genl(&m, 21, 200);
	mb_u32(&m, 1, 7);
	len = mb_done(&m);
	assert_int_equal(ethnl_parse_event(m.b, len, 21, &ev), 0);
	assert_int_equal(ev.what, ETHNL_NTF_OTHER);
	assert_int_equal(ev.cmd, 200);
	assert_int_equal(ev.ifindex, 0);
	assert_int_equal(ev.group, -1);
	assert_string_equal(ethnl_ntf_name(ev.what), "other");
	/* The same shape as a FEATURES_NTF is malformed: that one must name its device. */
	m.b[NLMSG_HDRLEN] = ETHTOOL_MSG_FEATURES_NTF;
	assert_int_equal(ethnl_parse_event(m.b, len, 21, &ev), -EBADMSG);
	/* Broken attribute framing is refused whatever the command. */
	m.b[NLMSG_HDRLEN] = 200;
	m.b[NLMSG_HDRLEN + GENL_HDRLEN] = 200;
	assert_int_equal(ethnl_parse_event(m.b, len, 21, &ev), -EBADMSG);
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
		cmocka_unit_test(test_malformed_scalars),
		cmocka_unit_test(test_malformed_bitsets),
		cmocka_unit_test(test_malformed_strset),
		cmocka_unit_test(test_malformed_ack),
		cmocka_unit_test(test_request_attr_at),
		cmocka_unit_test(test_event_unknown),
	};

	if (find_tree() < 0) {
		fprintf(stderr, "test_ethnl: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
