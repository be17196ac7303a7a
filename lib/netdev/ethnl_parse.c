// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parsers of every ethtool netlink reply shape, over a buffer (lib/netdev/ethnl_table.c has
 * the rows they fill, lib/netdev/ethnl.c the requests that use them).
 *
 * Nothing here trusts a length: the buffer may come from a capture or a fuzzer as well as
 * the kernel, and libnl's nla_parse() without a policy checks none (lib/netdev/link.c). So the
 * attributes are walked here: each header must fit what is left of its container, each
 * scalar must have exactly its type's size, each string its NUL, each bitset exactly the
 * words its size says. Scalars are read with memcpy: a buffer need not be aligned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ethnl_priv.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool group_ok(enum ethnl_group g)
{
	return (unsigned int)g < ETHNL_GROUP_COUNT;
}

/* ---- attribute walking ------------------------------------------------------------- */

struct attr {
	const uint8_t *data; /* payload */
	uint16_t len;	     /* payload bytes */
	bool present, nested;
};

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A run of attributes: the next one, checked against what is left. */
struct attr_iter {
	const uint8_t *p;
	size_t left;
};

static void iter_init(struct attr_iter *it, const uint8_t *p, size_t len)
{
	it->p = p;
	it->left = len;
}

/* 1 and *a, *type filled; 0 at the end; -EBADMSG for a header that does not fit. */
static int iter_next(struct attr_iter *it, struct attr *a, uint16_t *type)
{
	uint16_t alen, t;
	size_t step;

	if (it->left == 0)
		return 0;
	if (it->left < NLA_HDRLEN)
		return -EBADMSG; /* 1..3 stray bytes: kernel messages are padded to 4 */
	alen = rd16(it->p);
	t = rd16(it->p + 2);
	if (alen < NLA_HDRLEN || alen > it->left)
		return -EBADMSG;
	a->data = it->p + NLA_HDRLEN;
	a->len = alen - NLA_HDRLEN;
	a->present = true;
	a->nested = t & NLA_F_NESTED;
	*type = t & NLA_TYPE_MASK;
	step = NLA_ALIGN(alen);
	if (step >= it->left) {
		it->left = 0;
	} else {
		it->p += step;
		it->left -= step;
	}
	return 1;
}

/* Attributes 0..max into tb (others skipped: newer kernels add some); a repeat is refused. */
static int attr_table(const uint8_t *p, size_t len, struct attr *tb, unsigned int max)
{
	struct attr_iter it;
	struct attr a;
	uint16_t type;
	int r;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	iter_init(&it, p, len);
	while ((r = iter_next(&it, &a, &type)) > 0) {
		if (type > max)
			continue;
		if (tb[type].present)
			return -EBADMSG;
		tb[type] = a;
	}
	return r;
}

static int nest_table(const struct attr *nest, struct attr *tb, unsigned int max)
{
	return attr_table(nest->data, nest->len, tb, max);
}

static int get_u32(const struct attr *a, int64_t *v)
{
	if (a->len != 4 || a->nested)
		return -EBADMSG;
	*v = rd32(a->data);
	return 0;
}

static int get_u8(const struct attr *a, int64_t *v)
{
	if (a->len != 1 || a->nested)
		return -EBADMSG;
	*v = a->data[0];
	return 0;
}

static int get_flag(const struct attr *a)
{
	return a->len == 0 ? 0 : -EBADMSG;
}

/* A NUL-terminated string that fits dst (size bytes with its NUL); truncate: cut it. */
static int get_str(const struct attr *a, char *dst, size_t size, bool truncate)
{
	const uint8_t *nul = a->len ? memchr(a->data, '\0', a->len) : NULL;
	size_t n;

	if (!nul || a->nested)
		return -EBADMSG;
	n = (size_t)(nul - a->data);
	if (n >= size) {
		if (!truncate)
			return -EBADMSG;
		n = size - 1;
	}
	memcpy(dst, a->data, n);
	dst[n] = '\0';
	return 0;
}

/* One generic netlink message: the frame checked, its attributes located. */
struct genl_view {
	uint16_t type, flags;
	uint8_t cmd;
	const uint8_t *attrs;
	size_t attrs_len;
};

static int genl_frame(const void *buf, size_t len, struct genl_view *v)
{
	const uint8_t *p = buf;
	uint32_t mlen;

	if (!buf || len < NLMSG_HDRLEN)
		return -EBADMSG;
	mlen = rd32(p);
	if (mlen < NLMSG_HDRLEN || mlen > len)
		return -EBADMSG;
	v->type = rd16(p + 4);
	v->flags = rd16(p + 6);
	if (v->type < NLMSG_MIN_TYPE || mlen < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;
	v->cmd = p[NLMSG_HDRLEN];
	v->attrs = p + NLMSG_HDRLEN + GENL_HDRLEN;
	v->attrs_len = mlen - NLMSG_HDRLEN - GENL_HDRLEN;
	return 0;
}

/* ETHTOOL_A_*_HEADER: the device it names. */
static int parse_header(const struct attr *hdr, struct ethnl_dev *dev)
{
	struct attr tb[ETHTOOL_A_HEADER_FLAGS + 1];
	int64_t idx = 0;

	memset(dev, 0, sizeof(*dev));
	if (!hdr->present)
		return 0;
	if (nest_table(hdr, tb, ETHTOOL_A_HEADER_FLAGS) < 0)
		return -EBADMSG;
	if (tb[ETHTOOL_A_HEADER_DEV_INDEX].present &&
	    (get_u32(&tb[ETHTOOL_A_HEADER_DEV_INDEX], &idx) < 0 || idx > INT32_MAX))
		return -EBADMSG;
	dev->ifindex = (int)idx;
	if (tb[ETHTOOL_A_HEADER_DEV_NAME].present &&
	    get_str(&tb[ETHTOOL_A_HEADER_DEV_NAME], dev->ifname, sizeof(dev->ifname), false) < 0)
		return -EBADMSG;
	return 0;
}

/* ---- group replies ----------------------------------------------------------------- */

static int read_value(const struct attr *a, enum ethnl_type type, int64_t *v)
{
	int r = type == ETHNL_U32 ? get_u32(a, v) : get_u8(a, v);

	if (r == 0 && type == ETHNL_BOOL)
		*v = *v != 0; /* the kernel sends !!x; anything else still means on */
	return r;
}

int ethnl_parse_reply(const void *buf, size_t len, enum ethnl_group g, struct ethnl_values *out,
		      struct ethnl_dev *dev)
{
	struct attr tb[ETHNL_MAX_ATTR + 1];
	const struct ethnl_group_info *gi;
	struct ethnl_dev d;
	struct genl_view v;
	size_t i;

	ethnl_values_init(out);
	if (dev)
		memset(dev, 0, sizeof(*dev));
	if (!group_ok(g) || genl_frame(buf, len, &v) < 0)
		return -EBADMSG;
	gi = &ethnl_groups[g];
	if (v.cmd != gi->reply_cmd && v.cmd != gi->ntf_cmd)
		return -EBADMSG;
	if (attr_table(v.attrs, v.attrs_len, tb, gi->last_attr) < 0)
		return -EBADMSG;
	/* The kernel always names the device; a reply without it is not one. */
	if (parse_header(&tb[RT_ETHTOOL_A_HEADER], &d) < 0 || d.ifindex <= 0)
		return -EBADMSG;
	for (i = 0; i < gi->n_attrs; i++) {
		const struct ethnl_attr *a = &gi->attrs[i];

		if (tb[a->attr].present &&
		    read_value(&tb[a->attr], a->type, &out->val[a->attr]) < 0)
			goto bad;
		if (a->max_attr && tb[a->max_attr].present &&
		    get_u32(&tb[a->max_attr], &out->max[a->attr]) < 0)
			goto bad;
	}
	if (dev)
		*dev = d;
	return 0;
bad:
	ethnl_values_init(out);
	return -EBADMSG;
}

/* ---- bitsets ----------------------------------------------------------------------- */

static unsigned int words_of(unsigned int nbits)
{
	return (nbits + 31) / 32;
}

static void bit_set(uint32_t *w, unsigned int i)
{
	w[i / 32] |= 1U << (i % 32);
}

/* ETHTOOL_A_BITSET_SIZE of a bitset nest: 0 or -EBADMSG. */
static int bitset_size(const struct attr *nest, unsigned int *nbits)
{
	struct attr tb[ETHTOOL_A_BITSET_MASK + 1];
	int64_t size;

	if (!nest->present || nest_table(nest, tb, ETHTOOL_A_BITSET_MASK) < 0 ||
	    !tb[ETHTOOL_A_BITSET_SIZE].present || get_u32(&tb[ETHTOOL_A_BITSET_SIZE], &size) < 0 ||
	    size > ETHNL_BITS_MAX)
		return -EBADMSG;
	*nbits = (unsigned int)size;
	return 0;
}

/*
 * A bitset of nbits bits into value and mask (words_of(nbits) words each, zeroed by the
 * caller). Compact: VALUE and MASK words; verbose: a BIT nest per listed bit. A list
 * (NOMASK) has no mask: every bit of it counts, mask comes back all ones. Verbose names
 * go to names[index] when names is not NULL.
 */
static int bitset_read(const struct attr *nest, unsigned int nbits, uint32_t *value, uint32_t *mask,
		       char (*names)[32])
{
	struct attr tb[ETHTOOL_A_BITSET_MASK + 1];
	unsigned int i, words = words_of(nbits), size;
	bool list;

	if (bitset_size(nest, &size) < 0 || size != nbits ||
	    nest_table(nest, tb, ETHTOOL_A_BITSET_MASK) < 0)
		return -EBADMSG;
	list = tb[ETHTOOL_A_BITSET_NOMASK].present;
	if (list && get_flag(&tb[ETHTOOL_A_BITSET_NOMASK]) < 0)
		return -EBADMSG;
	if (tb[ETHTOOL_A_BITSET_BITS].present) {
		struct attr_iter it;
		struct attr bit;
		uint16_t type;
		int r;

		if (tb[ETHTOOL_A_BITSET_VALUE].present || tb[ETHTOOL_A_BITSET_MASK].present)
			return -EBADMSG;
		iter_init(&it, tb[ETHTOOL_A_BITSET_BITS].data, tb[ETHTOOL_A_BITSET_BITS].len);
		while ((r = iter_next(&it, &bit, &type)) > 0) {
			struct attr bt[ETHTOOL_A_BITSET_BIT_VALUE + 1];
			int64_t idx;

			if (type != ETHTOOL_A_BITSET_BITS_BIT ||
			    nest_table(&bit, bt, ETHTOOL_A_BITSET_BIT_VALUE) < 0 ||
			    !bt[ETHTOOL_A_BITSET_BIT_INDEX].present ||
			    get_u32(&bt[ETHTOOL_A_BITSET_BIT_INDEX], &idx) < 0 || idx >= nbits)
				return -EBADMSG;
			if (bt[ETHTOOL_A_BITSET_BIT_VALUE].present &&
			    get_flag(&bt[ETHTOOL_A_BITSET_BIT_VALUE]) < 0)
				return -EBADMSG;
			if (bt[ETHTOOL_A_BITSET_BIT_NAME].present) {
				char name[32];

				/* Cut at 31 like the ioctl path's ETH_GSTRING_LEN copy. */
				if (get_str(&bt[ETHTOOL_A_BITSET_BIT_NAME], name, sizeof(name),
					    true) < 0)
					return -EBADMSG;
				if (names)
					memcpy(names[idx], name, sizeof(name));
			}
			bit_set(mask, (unsigned int)idx);
			if (list || bt[ETHTOOL_A_BITSET_BIT_VALUE].present)
				bit_set(value, (unsigned int)idx);
		}
		if (r < 0)
			return -EBADMSG;
	} else {
		const struct attr *val = &tb[ETHTOOL_A_BITSET_VALUE];
		const struct attr *msk = &tb[ETHTOOL_A_BITSET_MASK];

		if (!val->present || val->len != words * 4 || val->nested)
			return -EBADMSG;
		if (list ? msk->present : (!msk->present || msk->len != words * 4 || msk->nested))
			return -EBADMSG;
		for (i = 0; i < words; i++) {
			value[i] = rd32(val->data + 4 * i);
			mask[i] = list ? ~0U : rd32(msk->data + 4 * i);
		}
	}
	if (list)
		for (i = 0; i < words; i++)
			mask[i] = ~0U;
	if (nbits % 32 && words) {
		value[words - 1] &= ~0U >> (32 - nbits % 32);
		mask[words - 1] &= ~0U >> (32 - nbits % 32);
	}
	for (i = 0; i < words; i++)
		value[i] &= mask[i];
	return 0;
}

/* ---- features ---------------------------------------------------------------------- */

static int features_alloc(struct eth_features *f, unsigned int count)
{
	unsigned int words = words_of(count);
	size_t w = words ? words : 1;

	memset(f, 0, sizeof(*f));
	f->names = calloc(count ? count : 1, sizeof(*f->names));
	f->available = calloc(w, sizeof(uint32_t));
	f->requested = calloc(w, sizeof(uint32_t));
	f->active = calloc(w, sizeof(uint32_t));
	f->never_changed = calloc(w, sizeof(uint32_t));
	if (!f->names || !f->available || !f->requested || !f->active || !f->never_changed) {
		ethtool_features_free(f);
		return -ENOMEM;
	}
	f->count = count;
	f->words = words;
	return 0;
}

int ethnl_parse_features(const void *buf, size_t len, struct eth_features *f)
{
	struct attr tb[ETHTOOL_A_FEATURES_NOCHANGE + 1];
	static const int sets[] = {ETHTOOL_A_FEATURES_HW, ETHTOOL_A_FEATURES_WANTED,
				   ETHTOOL_A_FEATURES_ACTIVE, ETHTOOL_A_FEATURES_NOCHANGE};
	uint32_t *mask = NULL;
	struct ethnl_dev dev;
	struct genl_view v;
	unsigned int count, i;
	int r;

	memset(f, 0, sizeof(*f));
	if (genl_frame(buf, len, &v) < 0 ||
	    (v.cmd != ETHTOOL_MSG_FEATURES_GET_REPLY && v.cmd != ETHTOOL_MSG_FEATURES_NTF) ||
	    attr_table(v.attrs, v.attrs_len, tb, ETHTOOL_A_FEATURES_NOCHANGE) < 0 ||
	    parse_header(&tb[ETHTOOL_A_FEATURES_HEADER], &dev) < 0 || dev.ifindex <= 0 ||
	    bitset_size(&tb[ETHTOOL_A_FEATURES_HW], &count) < 0)
		return -EBADMSG;
	r = features_alloc(f, count);
	if (r < 0)
		return r;
	mask = calloc(f->words ? f->words : 1, sizeof(*mask));
	if (!mask) {
		ethtool_features_free(f);
		return -ENOMEM;
	}
	for (i = 0; i < N(sets); i++) {
		uint32_t *out[] = {f->available, f->requested, f->active, f->never_changed};

		memset(mask, 0, (f->words ? f->words : 1) * sizeof(*mask));
		/* Every bitset of one reply has the same size: NETDEV_FEATURE_COUNT. */
		if (bitset_read(&tb[sets[i]], count, out[i], mask,
				sets[i] == ETHTOOL_A_FEATURES_HW ? f->names : NULL) < 0) {
			free(mask);
			ethtool_features_free(f);
			return -EBADMSG;
		}
	}
	free(mask);
	return 0;
}

void ethnl_features_diff_free(struct ethnl_features_diff *d)
{
	if (!d)
		return;
	free(d->kept); /* one allocation holds all four arrays */
	memset(d, 0, sizeof(*d));
}

int ethnl_parse_features_set_reply(const void *buf, size_t len, struct ethnl_features_diff *d)
{
	struct attr tb[ETHTOOL_A_FEATURES_ACTIVE + 1];
	struct ethnl_dev dev;
	struct genl_view v;
	unsigned int count, words;
	size_t w;

	memset(d, 0, sizeof(*d));
	if (genl_frame(buf, len, &v) < 0 || v.cmd != ETHTOOL_MSG_FEATURES_SET_REPLY ||
	    attr_table(v.attrs, v.attrs_len, tb, ETHTOOL_A_FEATURES_ACTIVE) < 0 ||
	    parse_header(&tb[ETHTOOL_A_FEATURES_HEADER], &dev) < 0 || dev.ifindex <= 0 ||
	    bitset_size(&tb[ETHTOOL_A_FEATURES_WANTED], &count) < 0)
		return -EBADMSG;
	words = words_of(count);
	w = words ? words : 1;
	d->kept = calloc(4 * w, sizeof(uint32_t));
	if (!d->kept)
		return -ENOMEM;
	d->wanted = d->kept + w;
	d->changed = d->kept + 2 * w;
	d->active = d->kept + 3 * w;
	d->count = count;
	d->words = words;
	/* WANTED: value/mask over the requested bits left unlike the request; ACTIVE: changes. */
	if (bitset_read(&tb[ETHTOOL_A_FEATURES_WANTED], count, d->wanted, d->kept, NULL) < 0 ||
	    bitset_read(&tb[ETHTOOL_A_FEATURES_ACTIVE], count, d->active, d->changed, NULL) < 0) {
		ethnl_features_diff_free(d);
		return -EBADMSG;
	}
	return 0;
}

/* ---- string sets ------------------------------------------------------------------- */

void ethnl_strings_free(struct ethnl_strings *s)
{
	if (!s)
		return;
	free(s->names);
	memset(s, 0, sizeof(*s));
}

static int strset_strings(const struct attr *strings, struct ethnl_strings *out)
{
	struct attr_iter it;
	struct attr s;
	uint16_t type;
	int r;

	iter_init(&it, strings->data, strings->len);
	while ((r = iter_next(&it, &s, &type)) > 0) {
		struct attr st[ETHTOOL_A_STRING_VALUE + 1];
		int64_t idx;

		if (type != ETHTOOL_A_STRINGS_STRING ||
		    nest_table(&s, st, ETHTOOL_A_STRING_VALUE) < 0 ||
		    !st[ETHTOOL_A_STRING_INDEX].present || !st[ETHTOOL_A_STRING_VALUE].present ||
		    get_u32(&st[ETHTOOL_A_STRING_INDEX], &idx) < 0 || idx >= out->count ||
		    get_str(&st[ETHTOOL_A_STRING_VALUE], out->names[idx], sizeof(out->names[idx]),
			    true) < 0)
			return -EBADMSG;
	}
	return r;
}

int ethnl_parse_strset(const void *buf, size_t len, uint32_t set_id, struct ethnl_strings *out)
{
	struct attr tb[ETHTOOL_A_STRSET_STRINGSETS + 1];
	struct attr_iter it;
	struct attr set;
	struct genl_view v;
	uint16_t type;
	int r;

	memset(out, 0, sizeof(*out));
	if (genl_frame(buf, len, &v) < 0 || v.cmd != ETHTOOL_MSG_STRSET_GET_REPLY ||
	    attr_table(v.attrs, v.attrs_len, tb, ETHTOOL_A_STRSET_STRINGSETS) < 0 ||
	    !tb[ETHTOOL_A_STRSET_STRINGSETS].present)
		return -EBADMSG;
	iter_init(&it, tb[ETHTOOL_A_STRSET_STRINGSETS].data, tb[ETHTOOL_A_STRSET_STRINGSETS].len);
	while ((r = iter_next(&it, &set, &type)) > 0) {
		struct attr ss[ETHTOOL_A_STRINGSET_STRINGS + 1];
		int64_t id, count;

		if (type != ETHTOOL_A_STRINGSETS_STRINGSET ||
		    nest_table(&set, ss, ETHTOOL_A_STRINGSET_STRINGS) < 0 ||
		    !ss[ETHTOOL_A_STRINGSET_ID].present ||
		    get_u32(&ss[ETHTOOL_A_STRINGSET_ID], &id) < 0)
			goto bad;
		if (id != set_id)
			continue;
		if (out->names || !ss[ETHTOOL_A_STRINGSET_COUNT].present ||
		    get_u32(&ss[ETHTOOL_A_STRINGSET_COUNT], &count) < 0 || count > ETHNL_BITS_MAX)
			goto bad;
		out->count = (unsigned int)count;
		out->names = calloc(count ? (size_t)count : 1, sizeof(*out->names));
		if (!out->names) {
			out->count = 0;
			return -ENOMEM;
		}
		if (ss[ETHTOOL_A_STRINGSET_STRINGS].present &&
		    strset_strings(&ss[ETHTOOL_A_STRINGSET_STRINGS], out) < 0)
			goto bad;
	}
	if (r < 0 || !out->names)
		goto bad;
	return 0;
bad:
	ethnl_strings_free(out);
	return -EBADMSG;
}

/* ---- errors and ACKs --------------------------------------------------------------- */

int ethnl_parse_ack(const void *buf, size_t len, struct ethnl_ack *ack)
{
	struct attr tb[RT_NLMSGERR_ATTR_LAST + 1];
	const uint8_t *p = buf;
	uint32_t mlen, echoed;
	size_t off;
	int32_t error;
	uint16_t flags;

	memset(ack, 0, sizeof(*ack));
	ack->offset = ack->miss_type = ack->miss_nest = -1;
	if (!buf || len < NLMSG_HDRLEN + sizeof(struct nlmsgerr))
		return -EBADMSG;
	mlen = rd32(p);
	if (mlen > len || mlen < NLMSG_HDRLEN + sizeof(struct nlmsgerr) ||
	    rd16(p + 4) != NLMSG_ERROR)
		return -EBADMSG;
	flags = rd16(p + 6);
	memcpy(&error, p + NLMSG_HDRLEN, sizeof(error));
	if (error > 0 || error < -4095)
		return -EBADMSG;
	ack->error = error;
	/* struct nlmsgerr, then the request's payload unless NLM_F_CAPPED, then the TLVs. */
	off = NLMSG_HDRLEN + sizeof(struct nlmsgerr);
	if (!(flags & NLM_F_CAPPED)) {
		/* The kernel echoes nlmsg_len(request) bytes, padded to NLMSG_ALIGNTO. */
		echoed = rd32(p + NLMSG_HDRLEN + sizeof(error));
		if (echoed < NLMSG_HDRLEN ||
		    NLMSG_ALIGN((size_t)echoed - NLMSG_HDRLEN) > (size_t)mlen - off)
			return -EBADMSG;
		off += NLMSG_ALIGN((size_t)echoed - NLMSG_HDRLEN);
	}
	if (!(flags & NLM_F_ACK_TLVS))
		return 0;
	if (attr_table(p + off, mlen - off, tb, RT_NLMSGERR_ATTR_LAST) < 0)
		return -EBADMSG;
	/* The text is for people: cut rather than lose the errno over a long one. */
	if (tb[RT_NLMSGERR_ATTR_MSG].present &&
	    get_str(&tb[RT_NLMSGERR_ATTR_MSG], ack->msg, sizeof(ack->msg), true) < 0)
		return -EBADMSG;
	if ((tb[RT_NLMSGERR_ATTR_OFFS].present &&
	     get_u32(&tb[RT_NLMSGERR_ATTR_OFFS], &ack->offset) < 0) ||
	    (tb[RT_NLMSGERR_ATTR_MISS_TYPE].present &&
	     get_u32(&tb[RT_NLMSGERR_ATTR_MISS_TYPE], &ack->miss_type) < 0) ||
	    (tb[RT_NLMSGERR_ATTR_MISS_NEST].present &&
	     get_u32(&tb[RT_NLMSGERR_ATTR_MISS_NEST], &ack->miss_nest) < 0))
		return -EBADMSG;
	return 0;
}

int ethnl_request_attr_at(const void *req, size_t len, uint32_t off)
{
	struct genl_view v;
	struct attr_iter it;
	struct attr a;
	uint16_t type;
	size_t start;

	if (genl_frame(req, len, &v) < 0)
		return -1;
	iter_init(&it, v.attrs, v.attrs_len);
	for (;;) {
		start = (size_t)(it.p - (const uint8_t *)req);
		if (iter_next(&it, &a, &type) <= 0)
			return -1;
		if (off >= start && off < start + NLA_HDRLEN + a.len)
			return type;
	}
}

/* ---- monitor notifications --------------------------------------------------------- */

static const struct {
	uint8_t cmd;
	enum ethnl_ntf what;
	const char *name;
} ntf_kinds[] = {
	{ETHTOOL_MSG_RINGS_NTF, ETHNL_NTF_RINGS, "rings"},
	{ETHTOOL_MSG_COALESCE_NTF, ETHNL_NTF_COALESCE, "coalesce"},
	{ETHTOOL_MSG_CHANNELS_NTF, ETHNL_NTF_CHANNELS, "channels"},
	{ETHTOOL_MSG_PAUSE_NTF, ETHNL_NTF_PAUSE, "pause"},
	{ETHTOOL_MSG_FEATURES_NTF, ETHNL_NTF_FEATURES, "features"},
	{ETHTOOL_MSG_LINKINFO_NTF, ETHNL_NTF_LINKINFO, "linkinfo"},
	{ETHTOOL_MSG_LINKMODES_NTF, ETHNL_NTF_LINKMODES, "linkmodes"},
	{ETHTOOL_MSG_DEBUG_NTF, ETHNL_NTF_DEBUG, "debug"},
	{ETHTOOL_MSG_WOL_NTF, ETHNL_NTF_WOL, "wol"},
	{ETHTOOL_MSG_PRIVFLAGS_NTF, ETHNL_NTF_PRIVFLAGS, "privflags"},
	{ETHTOOL_MSG_EEE_NTF, ETHNL_NTF_EEE, "eee"},
	{ETHTOOL_MSG_FEC_NTF, ETHNL_NTF_FEC, "fec"},
	{ETHTOOL_MSG_MODULE_NTF, ETHNL_NTF_MODULE, "module"},
};

const char *ethnl_ntf_name(enum ethnl_ntf what)
{
	size_t i;

	for (i = 0; i < N(ntf_kinds); i++)
		if (ntf_kinds[i].what == what)
			return ntf_kinds[i].name;
	return "other";
}

int ethnl_parse_event(const void *buf, size_t len, uint16_t family, struct ethnl_event *ev)
{
	struct attr tb[RT_ETHTOOL_A_HEADER + 1];
	struct ethnl_dev dev;
	struct genl_view v;
	size_t i;
	int g;

	memset(ev, 0, sizeof(*ev));
	ev->group = -1;
	ethnl_values_init(&ev->values);
	if (genl_frame(buf, len, &v) < 0 || (family && v.type != family))
		return -EBADMSG;
	ev->cmd = v.cmd;
	for (i = 0; i < N(ntf_kinds); i++)
		if (ntf_kinds[i].cmd == v.cmd)
			ev->what = ntf_kinds[i].what;
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		if (ethnl_groups[g].ntf_cmd != v.cmd)
			continue;
		if (ethnl_parse_reply(buf, len, (enum ethnl_group)g, &ev->values, &dev) < 0)
			goto bad;
		ev->group = g;
		goto named;
	}
	/*
	 * Every ethtool message so far has its header as attribute 1; one of a command this
	 * code does not know may not, and is still an event (of no device) rather than junk.
	 */
	if (attr_table(v.attrs, v.attrs_len, tb, RT_ETHTOOL_A_HEADER) < 0)
		goto bad;
	if (parse_header(&tb[RT_ETHTOOL_A_HEADER], &dev) < 0) {
		if (ev->what != ETHNL_NTF_OTHER)
			goto bad;
		memset(&dev, 0, sizeof(dev));
	}
named:
	ev->ifindex = dev.ifindex;
	memcpy(ev->ifname, dev.ifname, sizeof(ev->ifname));
	return 0;
bad:
	memset(ev, 0, sizeof(*ev));
	ev->group = -1;
	ethnl_values_init(&ev->values);
	return -EBADMSG;
}
