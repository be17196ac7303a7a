// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every ethtool netlink parser (lib/netdev/ethnl_parse.c) on one input taken as one netlink
 * message: the four group replies, features (compact and verbose), the FEATURES_SET diff,
 * the string set, the ACK/extack and the monitor notification. The seeds are real kernel
 * replies (tests/fuzz/capture_ethnl.py). As in fuzz_link_msg, the message ends exactly
 * where a PROT_NONE page begins (4-byte multiples; others go to an exact-size malloc),
 * so a read past it faults; each input runs twice, the second time with nlmsg_len set
 * to its size. Outputs must be bounded: values LINK_UNSET or in their type's
 * range, strings terminated, bit arrays within their counts.
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "../../lib/netdev/ethnl_priv.h"

#define ARENA_PAGES 4

static uint8_t *arena;
static size_t page;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, ARENA_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + (ARENA_PAGES - 1) * page, page, PROT_NONE))
		abort();
	return 0;
}

static void check_values(const struct ethnl_values *v, enum ethnl_group g)
{
	static const int64_t limit[] = {
		[ETHNL_U32] = UINT32_MAX, [ETHNL_U8] = UINT8_MAX, [ETHNL_BOOL] = 1};
	const struct ethnl_attr *a;
	size_t i, n;
	unsigned int k;

	a = ethnl_attrs(g, &n);
	for (i = 0; i < n; i++) {
		int64_t x = v->val[a[i].attr], m = v->max[a[i].attr];

		FUZZ_CHECK(x == LINK_UNSET || (x >= 0 && x <= limit[a[i].type]));
		FUZZ_CHECK(m == LINK_UNSET || (a[i].max_attr && m >= 0 && m <= UINT32_MAX));
	}
	/* Nothing lands outside the group's rows. */
	for (k = 0; k <= ETHNL_MAX_ATTR; k++) {
		bool row = false;

		for (i = 0; i < n; i++)
			row |= a[i].attr == k;
		FUZZ_CHECK(row || (v->val[k] == LINK_UNSET && v->max[k] == LINK_UNSET));
	}
}

static void check_bits(const uint32_t *w, unsigned int words, unsigned int count)
{
	unsigned int i;

	/* No bit at or past count: the last word is masked. */
	for (i = count; i < words * 32; i++)
		FUZZ_CHECK(!((w[i / 32] >> (i % 32)) & 1));
}

static void run(const uint8_t *buf, size_t len)
{
	struct ethnl_features_diff d;
	struct ethnl_strings s;
	struct eth_features f;
	struct ethnl_values v;
	struct ethnl_event ev;
	struct ethnl_ack ack;
	struct ethnl_dev dev;
	unsigned int i;
	int g, r;

	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		r = ethnl_parse_reply(buf, len, g, &v, &dev);
		FUZZ_CHECK(r == 0 || r == -EBADMSG);
		check_values(&v, g);
		if (r == 0) {
			FUZZ_CHECK(dev.ifindex > 0);
			FUZZ_ASSERT_STR(dev.ifname);
		}
	}
	r = ethnl_parse_features(buf, len, &f);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r == 0) {
		FUZZ_CHECK(f.count <= ETHNL_BITS_MAX && f.words == (f.count + 31) / 32);
		for (i = 0; i < f.count; i++)
			FUZZ_ASSERT_STR(f.names[i]);
		check_bits(f.available, f.words, f.count);
		check_bits(f.requested, f.words, f.count);
		check_bits(f.active, f.words, f.count);
		check_bits(f.never_changed, f.words, f.count);
		ethtool_features_free(&f);
	} else {
		FUZZ_CHECK(!f.names && !f.available && f.count == 0);
	}
	r = ethnl_parse_features_set_reply(buf, len, &d);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r == 0) {
		check_bits(d.kept, d.words, d.count);
		check_bits(d.changed, d.words, d.count);
		for (i = 0; i < d.words; i++)
			FUZZ_CHECK(!(d.wanted[i] & ~d.kept[i]) && !(d.active[i] & ~d.changed[i]));
		ethnl_features_diff_free(&d);
	}
	FUZZ_CHECK(!d.kept);
	r = ethnl_parse_strset(buf, len, ETH_SS_FEATURES_ID, &s);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r == 0) {
		FUZZ_CHECK(s.count <= ETHNL_BITS_MAX && s.names);
		for (i = 0; i < s.count; i++)
			FUZZ_ASSERT_STR(s.names[i]);
		ethnl_strings_free(&s);
	}
	FUZZ_CHECK(!s.names);
	r = ethnl_parse_ack(buf, len, &ack);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_ASSERT_STR(ack.msg);
	if (r == 0)
		FUZZ_CHECK(ack.error <= 0 && ack.error >= -4095 && ack.offset >= -1 &&
			   ack.offset <= UINT32_MAX && ack.miss_type >= -1);
	r = ethnl_parse_event(buf, len, 0, &ev);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_ASSERT_STR(ev.ifname);
	FUZZ_CHECK(ev.what < ETHNL_NTF_COUNT && ev.group >= -1 && ev.group < ETHNL_GROUP_COUNT);
	if (ev.group >= 0)
		check_values(&ev.values, ev.group);
	if (len >= NLMSG_HDRLEN) {
		r = ethnl_request_attr_at(buf, len, (uint32_t)len / 2);
		FUZZ_CHECK(r >= -1 && r <= 0x3fff); /* NLA_TYPE_MASK is a negative int */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t usable = (ARENA_PAGES - 1) * page;
	bool guarded = size % 4 == 0 && size <= usable;
	uint8_t *buf = guarded ? arena + usable - size : malloc(size ? size : 1);

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	run(buf, size);
	/*
	 * Again as the transport hands a message over: nlmsg_len equal to the bytes there,
	 * so the last attribute ends at the guard page without the fuzzer having to find the
	 * length that matches.
	 */
	if (size >= NLMSG_HDRLEN) {
		uint32_t mlen = (uint32_t)size;

		memcpy(buf, &mlen, sizeof(mlen));
		run(buf, size);
	}
	if (!guarded)
		free(buf);
	return 0;
}
