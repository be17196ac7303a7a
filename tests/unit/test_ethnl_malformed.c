// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool netlink parsers (lib/netdev/ethnl_parse.c) on messages the kernel never sends, built
 * here: every length wrong (short, long, past the end, stray bytes), repeats, bitsets
 * whose words disagree with their size, string sets and ACKs out of bounds. Each must be
 * refused, or (future attributes, long texts) accepted within bounds.
 */
#include "ethnl_test.h"

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
		cmocka_unit_test(test_malformed_scalars), cmocka_unit_test(test_malformed_bitsets),
		cmocka_unit_test(test_malformed_strset),  cmocka_unit_test(test_malformed_ack),
		cmocka_unit_test(test_request_attr_at),	  cmocka_unit_test(test_event_unknown),
	};

	if (find_tree(ETHNL_FIXTURES) < 0) {
		fprintf(stderr, "test_ethnl_malformed: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
