// SPDX-License-Identifier: GPL-2.0-only
/*
 * Requests to the ethtool generic netlink family, and its monitor group.
 *
 * libnl-genl resolves the family and builds the requests; the answers are read straight
 * off the socket into one buffer per handle and handed to the parsers of
 * lib/netdev/ethnl_parse.c, the same ones the unit tests and the fuzzer exercise. Reading
 * ourselves also keeps the kernel's own errno (libnl folds errnos together) and its
 * extended ACK: NETLINK_EXT_ACK for the text and offset, NETLINK_CAP_ACK so an error does
 * not echo the whole request back.
 */
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "ethnl_priv.h"
#include "rtltune/genl_family.h"

/* A verbose FEATURES reply is ~4.5 KiB on veth; every reply here fits many times over.
 * A request's buffer lives for its transaction only (transact()): a socket per followed
 * namespace (docs/namespaces.md) must not keep one each. */
#define ETHNL_BUF_SIZE (64 * 1024)

struct ethnl {
	struct nl_sock *sk;
	uint16_t family;
	int monitor_group; /* -1 when the kernel has none */
	bool has_names;	   /* holds a reference to the feature names */
};

/*
 * The ETH_SS_FEATURES names are the kernel's (net/ethtool/common.c netdev_features_strings),
 * the same from every network namespace: one copy, fetched by the first handle that needs
 * it and shared by every other (2 KiB that each followed pod's handle would repeat), freed
 * with the last handle holding it. The daemon and the CLI are single-threaded.
 */
static struct ethnl_strings features;
static unsigned int features_users;

struct ethnl_monitor {
	struct nl_sock *sk;
	uint16_t family;
	uint8_t *buf;
	size_t len, off; /* the datagram in buf; the next message at off */
};

void ethnl_close(struct ethnl *e)
{
	if (!e)
		return;
	if (e->has_names && --features_users == 0)
		ethnl_strings_free(&features);
	if (e->sk)
		nl_socket_free(e->sk);
	free(e);
}

struct nl_sock *ethnl_socket(struct ethnl *e)
{
	return e ? e->sk : NULL;
}

int ethnl_open(struct ethnl **out, struct rterr *err)
{
	struct ethnl *e;
	int r;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return rterr_sys(err, ENOMEM, "ethtool netlink socket");
	r = genl_sock_open(&e->sk, err);
	if (r < 0) {
		ethnl_close(e);
		return r;
	}
	r = genl_ctrl_resolve(e->sk, ETHTOOL_GENL_NAME);
	if (r < 0) {
		ethnl_close(e);
		if (r == -NLE_OBJ_NOTFOUND)
			return rterr_sys(err, EOPNOTSUPP,
					 "no ethtool generic netlink family (kernel before 5.6 or "
					 "CONFIG_ETHTOOL_NETLINK off): use the ioctl");
		return rterr_sys(err, EIO, "resolve genl family %s (%s)", ETHTOOL_GENL_NAME,
				 nl_geterror(r));
	}
	e->family = (uint16_t)r;
	r = genl_ctrl_resolve_grp(e->sk, ETHTOOL_GENL_NAME, ETHTOOL_MCGRP_MONITOR_NAME);
	e->monitor_group = r < 0 ? -1 : r;
	/* From here on this code asks for ACKs itself (libnl's resolves above wait for them). */
	nl_socket_disable_auto_ack(e->sk);
	*out = e;
	return 0;
}

/* A request with its ETHTOOL_A_*_HEADER: by ifindex (none when 0), header flags. */
static struct nl_msg *request(const struct ethnl *e, uint8_t cmd, int ifindex, uint32_t flags,
			      bool ack)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *hdr;

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, e->family, 0, ack ? NLM_F_ACK : 0, cmd,
			 ETHTOOL_GENL_VERSION))
		goto fail;
	hdr = nla_nest_start(msg, RT_ETHTOOL_A_HEADER | NLA_F_NESTED);
	if (!hdr || (ifindex > 0 && nla_put_u32(msg, ETHTOOL_A_HEADER_DEV_INDEX, ifindex) < 0) ||
	    nla_put_u32(msg, ETHTOOL_A_HEADER_FLAGS, flags) < 0)
		goto fail;
	nla_nest_end(msg, hdr);
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

/* Send req and read what answers it on e's socket (genl_transact()), into a buffer of the
 * transaction's own (nothing parsed from it points into it). */
static int transact(struct ethnl *e, struct nl_msg *req, genl_reply_fn fn, void *arg,
		    struct ethnl_ack *ack)
{
	uint8_t *buf = malloc(ETHNL_BUF_SIZE);
	int r;

	if (!buf) {
		memset(ack, 0, sizeof(*ack));
		return -ENOMEM;
	}
	r = genl_transact(e->sk, e->family, buf, ETHNL_BUF_SIZE, req, fn, arg, ack);
	free(buf);
	return r;
}

/* The name of what the kernel's error offset points at, among the attributes we sent. */
static const char *attr_at(struct nl_msg *req, const struct ethnl_ack *ack,
			   const struct ethnl_group_info *gi)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	size_t i;
	int type;

	if (ack->offset < 0 || !gi)
		return NULL;
	type = ethnl_request_attr_at(nlh, nlh->nlmsg_len, (uint32_t)ack->offset);
	for (i = 0; type > 0 && i < gi->n_attrs; i++)
		if (gi->attrs[i].attr == type)
			return gi->attrs[i].name;
	return NULL;
}

/*
 * The error of a failed exchange: "WHAT (kernel: TEXT[, at ATTR]): strerror". at names
 * the attribute the kernel pointed at (pass NULL when only one was sent).
 */
static int request_err(int r, const struct ethnl_ack *ack, const char *at, const char *what,
		       struct rterr *err)
{
	if (r == -EPROTO || r == -EBADMSG)
		return rterr_sys(err, EPROTO, "%s: malformed reply from the kernel", what);
	if (r < 0)
		return rterr_sys(err, -r, "%s", what);
	if (ack->msg[0])
		return rterr_sys(err, -ack->error, "%s (kernel: %s%s%s)", what, ack->msg,
				 at ? ", at " : "", at ? at : "");
	if (ack->miss_type >= 0)
		return rterr_sys(err, -ack->error, "%s (kernel: attribute %lld missing)", what,
				 (long long)ack->miss_type);
	return rterr_sys(err, -ack->error, "%s", what);
}

static bool group_ok(enum ethnl_group g)
{
	return (unsigned int)g < ETHNL_GROUP_COUNT;
}

struct group_reply {
	enum ethnl_group g;
	int ifindex;
	struct ethnl_values *out;
	bool got;
};

static int group_reply_cb(const void *msg, size_t len, void *arg)
{
	struct group_reply *gr = arg;
	struct ethnl_dev dev;

	if (ethnl_parse_reply(msg, len, gr->g, gr->out, &dev) < 0 || dev.ifindex != gr->ifindex)
		return -EBADMSG;
	gr->got = true;
	return 0;
}

int ethnl_get(struct ethnl *e, int ifindex, enum ethnl_group g, struct ethnl_values *out,
	      struct rterr *err)
{
	struct group_reply gr = {.g = g, .ifindex = ifindex, .out = out};
	struct ethnl_ack ack;
	struct nl_msg *req;
	char what[64];
	int r;

	ethnl_values_init(out);
	if (!group_ok(g))
		return rterr_input(err, "no ethtool netlink group %d", (int)g);
	snprintf(what, sizeof(what), "get %s", ethnl_groups[g].name);
	req = request(e, ethnl_groups[g].get_cmd, ifindex, 0, false);
	if (!req)
		return rterr_sys(err, ENOMEM, "%s", what);
	r = transact(e, req, group_reply_cb, &gr, &ack);
	nlmsg_free(req);
	if (r == 0 && ack.error == -EOPNOTSUPP && !ack.msg[0])
		return rterr_sys(err, EOPNOTSUPP, "%s (not implemented by the driver)", what);
	if (r < 0 || ack.error)
		return request_err(r, &ack, NULL, what, err);
	if (!gr.got)
		return rterr_sys(err, EPROTO, "%s: no reply from the kernel", what);
	return 0;
}

int ethnl_set(struct ethnl *e, int ifindex, enum ethnl_group g, const struct ethnl_values *want,
	      struct rterr *err)
{
	const struct ethnl_group_info *gi;
	char what[768];
	struct ethnl_ack ack;
	struct nl_msg *req;
	size_t i, len, sent = 0;
	int r;

	if (!group_ok(g))
		return rterr_input(err, "no ethtool netlink group %d", (int)g);
	r = ethnl_values_check(g, want, err);
	if (r < 0)
		return r;
	gi = &ethnl_groups[g];
	req = request(e, gi->set_cmd, ifindex, 0, true);
	if (!req)
		return rterr_sys(err, ENOMEM, "set %s", gi->name);
	len = (size_t)snprintf(what, sizeof(what), "set %s", gi->name);
	for (i = 0; i < gi->n_attrs; i++) {
		const struct ethnl_attr *a = &gi->attrs[i];
		int64_t v = want->val[a->attr];

		if (v == LINK_UNSET)
			continue;
		r = a->type == ETHNL_U32 ? nla_put_u32(req, a->attr, (uint32_t)v)
					 : nla_put_u8(req, a->attr, (uint8_t)v);
		if (r < 0) {
			nlmsg_free(req);
			return rterr_sys(err, ENOMEM, "set %s", gi->name);
		}
		if (len < sizeof(what))
			len += (size_t)snprintf(what + len, sizeof(what) - len, " %s %lld", a->name,
						(long long)v);
		sent++;
	}
	if (!sent) {
		nlmsg_free(req);
		return 0;
	}
	r = transact(e, req, NULL, NULL, &ack);
	if (r < 0 || ack.error)
		r = request_err(r, &ack, sent > 1 ? attr_at(req, &ack, gi) : NULL, what, err);
	nlmsg_free(req);
	return r;
}

/* ---- features ---------------------------------------------------------------------- */

static int strset_cb(const void *msg, size_t len, void *arg)
{
	struct ethnl_strings *s = arg;

	return s->names ? 0 : ethnl_parse_strset(msg, len, ETH_SS_FEATURES_ID, s);
}

/* The ETH_SS_FEATURES names, fetched once for every handle (features above). */
static int feature_names(struct ethnl *e, struct rterr *err)
{
	struct nlattr *sets, *set;
	struct ethnl_ack ack;
	struct nl_msg *req;
	int r;

	if (e->has_names)
		return 0;
	if (features.names)
		goto hold;
	req = request(e, ETHTOOL_MSG_STRSET_GET, 0, 0, false);
	if (!req)
		return rterr_sys(err, ENOMEM, "get feature names");
	sets = nla_nest_start(req, ETHTOOL_A_STRSET_STRINGSETS | NLA_F_NESTED);
	set = sets ? nla_nest_start(req, ETHTOOL_A_STRINGSETS_STRINGSET | NLA_F_NESTED) : NULL;
	if (!set || nla_put_u32(req, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES_ID) < 0) {
		nlmsg_free(req);
		return rterr_sys(err, ENOMEM, "get feature names");
	}
	nla_nest_end(req, set);
	nla_nest_end(req, sets);
	r = transact(e, req, strset_cb, &features, &ack);
	nlmsg_free(req);
	if (r < 0 || ack.error) {
		ethnl_strings_free(&features); /* a part of a reply is no table */
		return request_err(r, &ack, NULL, "get feature names", err);
	}
	if (!features.names)
		return rterr_sys(err, EPROTO, "get feature names: no reply from the kernel");
hold:
	e->has_names = true;
	features_users++;
	return 0;
}

static int features_cb(const void *msg, size_t len, void *arg)
{
	struct eth_features *f = arg;

	return f->names ? 0 : ethnl_parse_features(msg, len, f);
}

int ethnl_features_get(struct ethnl *e, int ifindex, struct eth_features *f, struct rterr *err)
{
	struct ethnl_ack ack;
	struct nl_msg *req;
	int r;

	memset(f, 0, sizeof(*f));
	r = feature_names(e, err);
	if (r < 0)
		return r;
	req = request(e, ETHTOOL_MSG_FEATURES_GET, ifindex, ETHTOOL_FLAG_COMPACT_BITSETS, false);
	if (!req)
		return rterr_sys(err, ENOMEM, "get features");
	r = transact(e, req, features_cb, f, &ack);
	nlmsg_free(req);
	if (r < 0 || ack.error) {
		ethtool_features_free(f);
		/* Every device has features: only a 5.6 family, without the command, says this. */
		if (r == 0 && ack.error == -EOPNOTSUPP && !ack.msg[0])
			return rterr_sys(
				err, EOPNOTSUPP,
				"get features: not in this kernel's ethtool netlink (5.6): "
				"use the ioctl");
		return request_err(r, &ack, NULL, "get features", err);
	}
	if (!f->names)
		return rterr_sys(err, EPROTO, "get features: no reply from the kernel");
	if (f->count != features.count) {
		unsigned int bits = f->count;

		ethtool_features_free(f);
		return rterr_sys(err, EPROTO, "get features: %u feature bits but %u names", bits,
				 features.count);
	}
	memcpy(f->names, features.names, (size_t)f->count * sizeof(*f->names));
	return 0;
}

static bool test_bit(const uint32_t *w, unsigned int i)
{
	return (w[i / 32] >> (i % 32)) & 1;
}

static int set_reply_cb(const void *msg, size_t len, void *arg)
{
	struct ethnl_features_diff *d = arg;

	return d->kept ? 0 : ethnl_parse_features_set_reply(msg, len, d);
}

static int features_request(struct ethnl *e, int ifindex, unsigned int count, const uint32_t *value,
			    const uint32_t *mask, struct ethnl_features_diff *got, const char *what,
			    struct rterr *err)
{
	unsigned int words = (count + 31) / 32;
	struct ethnl_ack ack;
	struct nlattr *wanted;
	struct nl_msg *req;
	int r;

	req = request(e, ETHTOOL_MSG_FEATURES_SET, ifindex, ETHTOOL_FLAG_COMPACT_BITSETS, true);
	wanted = req ? nla_nest_start(req, ETHTOOL_A_FEATURES_WANTED | NLA_F_NESTED) : NULL;
	if (!wanted || nla_put_u32(req, ETHTOOL_A_BITSET_SIZE, count) < 0 ||
	    nla_put(req, ETHTOOL_A_BITSET_VALUE, (int)(words * 4), value) < 0 ||
	    nla_put(req, ETHTOOL_A_BITSET_MASK, (int)(words * 4), mask) < 0) {
		nlmsg_free(req);
		return rterr_sys(err, ENOMEM, "%s", what);
	}
	nla_nest_end(req, wanted);
	r = transact(e, req, set_reply_cb, got, &ack);
	nlmsg_free(req);
	if (r < 0 || ack.error) {
		ethnl_features_diff_free(got);
		return request_err(r, &ack, NULL, what, err);
	}
	/* Without ETHTOOL_FLAG_OMIT_REPLY the kernel always answers a SET with its diff. */
	if (!got->kept || got->count != count) {
		ethnl_features_diff_free(got);
		return rterr_sys(err, EPROTO, "%s: no usable reply from the kernel", what);
	}
	return 0;
}

/* The changes in one request: the body of ethnl_features_set() and _set_many(). */
static int features_set(struct ethnl *e, int ifindex, const struct eth_features *cur,
			const struct ethnl_features_change *ch, unsigned int n_ch, bool wanted_on,
			struct ethnl_features_diff *diff, const char *what, struct rterr *err)
{
	struct ethnl_features_diff got = {0};
	size_t w = cur->words ? cur->words : 1;
	uint32_t *value, *mask, *fixed_kept;
	unsigned int c, i, sent = 0;
	int r, result = 0;

	if (diff)
		memset(diff, 0, sizeof(*diff));
	value = calloc(3 * w, sizeof(uint32_t));
	if (!value)
		return rterr_sys(err, ENOMEM, "%s", what);
	mask = value + w;
	fixed_kept = value + 2 * w;
	for (c = 0; c < n_ch; c++)
		for (i = 0; i < ch[c].n_names; i++) {
			int idx = ethtool_feature_index(cur, ch[c].names[i]);

			if (idx < 0)
				continue;
			/* NETIF_F_NEVER_CHANGE bits in the mask make the kernel refuse the
			 * request. */
			if (test_bit(cur->never_changed, (unsigned int)idx)) {
				if (test_bit(cur->active, (unsigned int)idx) != ch[c].on) {
					fixed_kept[idx / 32] |= 1U << (idx % 32);
					result |= ETHTOOL_F_UNSUPPORTED;
				}
				continue;
			}
			mask[idx / 32] |= 1U << (idx % 32);
			if (ch[c].on)
				value[idx / 32] |= 1U << (idx % 32);
			else
				value[idx / 32] &= ~(1U << (idx % 32));
			sent++;
		}
	if (sent) {
		r = features_request(e, ifindex, cur->count, value, mask, &got, what, err);
		if (r < 0) {
			free(value);
			return r;
		}
		for (i = 0; i < cur->count; i++)
			if (test_bit(got.kept, i) && test_bit(mask, i))
				result |= test_bit(cur->available, i) ? ETHTOOL_F_WISH
								      : ETHTOOL_F_UNSUPPORTED;
	}
	if (diff && !got.kept) {
		got.kept = calloc(4 * w, sizeof(uint32_t));
		if (!got.kept) {
			free(value);
			return rterr_sys(err, ENOMEM, "%s", what);
		}
		got.wanted = got.kept + w;
		got.changed = got.kept + 2 * w;
		got.active = got.kept + 3 * w;
		got.count = cur->count;
		got.words = cur->words;
	}
	if (diff) {
		for (i = 0; i < cur->words; i++) {
			got.kept[i] |= fixed_kept[i];
			if (wanted_on)
				got.wanted[i] |= fixed_kept[i];
		}
		*diff = got;
	} else {
		ethnl_features_diff_free(&got);
	}
	free(value);
	return result;
}

int ethnl_features_set(struct ethnl *e, int ifindex, const struct eth_features *cur,
		       const char *const *names, unsigned int n_names, bool on,
		       struct ethnl_features_diff *diff, struct rterr *err)
{
	struct ethnl_features_change ch = {.names = names, .n_names = n_names, .on = on};
	char what[96];

	snprintf(what, sizeof(what), "set features (%s%s %s)", n_names ? names[0] : "",
		 n_names > 1 ? ", ..." : "", on ? "on" : "off");
	return features_set(e, ifindex, cur, &ch, 1, on, diff, what, err);
}

int ethnl_features_set_many(struct ethnl *e, int ifindex, const struct eth_features *cur,
			    const struct ethnl_features_change *changes, unsigned int n,
			    struct rterr *err)
{
	return features_set(e, ifindex, cur, changes, n, false, NULL,
			    "set features (several at once)", err);
}

/* ---- monitor ----------------------------------------------------------------------- */

void ethnl_monitor_close(struct ethnl_monitor *m)
{
	if (!m)
		return;
	if (m->sk)
		nl_socket_free(m->sk);
	free(m->buf);
	free(m);
}

int ethnl_monitor_open(const struct ethnl *e, struct ethnl_monitor **out, struct rterr *err)
{
	struct ethnl_monitor *m;
	int r;

	*out = NULL;
	if (!e || e->monitor_group < 0)
		return rterr_sys(err, EOPNOTSUPP, "ethtool netlink: no monitor group");
	m = calloc(1, sizeof(*m));
	if (m) {
		m->buf = malloc(ETHNL_BUF_SIZE);
		m->sk = nl_socket_alloc();
	}
	if (!m || !m->buf || !m->sk) {
		ethnl_monitor_close(m);
		return rterr_sys(err, ENOMEM, "ethtool monitor socket");
	}
	m->family = e->family;
	nl_socket_disable_seq_check(m->sk);
	/* nl_connect() binds: an unbound netlink socket receives no multicast. */
	r = nl_connect(m->sk, NETLINK_GENERIC);
	if (r >= 0)
		r = nl_socket_add_membership(m->sk, e->monitor_group);
	if (r >= 0)
		r = nl_socket_set_nonblocking(m->sk);
	if (r < 0) {
		ethnl_monitor_close(m);
		return rterr_sys(err, EIO, "ethtool monitor socket (%s)", nl_geterror(r));
	}
	/* Room for a burst (an apply to many devices); rmem_max caps it without privilege. */
	nl_socket_set_buffer_size(m->sk, 1 << 20, 0);
	*out = m;
	return 0;
}

int ethnl_monitor_fd(const struct ethnl_monitor *m)
{
	return nl_socket_get_fd(m->sk);
}

int ethnl_monitor_read(struct ethnl_monitor *m, struct ethnl_event *ev, struct rterr *err)
{
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t n;

		while (m->off + NLMSG_HDRLEN <= m->len) {
			struct nlmsghdr h;
			size_t at = m->off;

			memcpy(&h, m->buf + at, sizeof(h));
			if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > m->len - at) {
				m->len = m->off = 0;
				return rterr_sys(err, EBADMSG,
						 "ethtool monitor: truncated message");
			}
			m->off += NLMSG_ALIGN(h.nlmsg_len);
			if (h.nlmsg_type != m->family)
				continue;
			if (ethnl_parse_event(m->buf + at, h.nlmsg_len, m->family, ev) < 0)
				return rterr_sys(err, EBADMSG,
						 "ethtool monitor: malformed notification");
			return 1;
		}
		m->len = m->off = 0;
		n = recvfrom(nl_socket_get_fd(m->sk), m->buf, ETHNL_BUF_SIZE,
			     MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fromlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0 && errno == ENOBUFS)
			return rterr_sys(err, ENOBUFS,
					 "ethtool monitor: notifications lost "
					 "(receive buffer overrun): re-read every device");
		if (n < 0)
			return rterr_sys(err, errno, "ethtool monitor");
		if (n > ETHNL_BUF_SIZE)
			return rterr_sys(err, EMSGSIZE, "ethtool monitor: notification too large");
		if (from.nl_pid != 0)
			continue; /* only the kernel speaks on this group */
		m->len = (size_t)n;
	}
}
