// SPDX-License-Identifier: GPL-2.0-only
/*
 * apply_floor: the floor of an apply, for scripts/bench-apply.sh. The changes read from
 * stdin, one request a line, sent from one rtnetlink and one ethtool generic netlink
 * socket, each acknowledged before the next: what any tool making these changes must at
 * least do. No journal, no reading back, no route invalidation, nothing looked up first.
 *
 *   apply_floor < SPEC       lines of:
 *     link IFACE NAME=N...          one RTM_NEWLINK: mtu, txqueuelen, gso_max_size,
 *                                   gso_max_segs, gro_max_size
 *     features IFACE NAME=on|off... one ETHTOOL_MSG_FEATURES_SET, features by their
 *                                   kernel names (ethtool -k), only those listed change
 *     channels IFACE NAME=N...      one ETHTOOL_MSG_CHANNELS_SET: rx, tx, other, combined
 *     coalesce IFACE NAME=N...      one ETHTOOL_MSG_COALESCE_SET: rx-usecs, rx-frames,
 *                                   tx-usecs, tx-frames
 *
 * Devices are named in the requests (IFLA_IFNAME, ETHTOOL_A_HEADER_DEV_NAME): the kernel
 * finds them. Runs only in a network namespace other than init's: never a host's NIC.
 * Prints "N requests" when done. Exit: 0 done, 2 usage or a bad line, 3 the kernel refused
 * (its message, with the line, on stderr).
 */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOOL_NAME "apply_floor"
#include "tool.h"

#define MSG_MAX 4096

struct msg {
	char b[MSG_MAX] __attribute__((aligned(NLMSG_ALIGNTO)));
	size_t len;
};

/* A name of a spec line and the attribute it sets. */
struct name_attr {
	const char *name;
	uint16_t attr;
};

static const struct name_attr link_attrs[] = {
	{"mtu", IFLA_MTU},
	{"txqueuelen", IFLA_TXQLEN},
	{"gso_max_size", IFLA_GSO_MAX_SIZE},
	{"gso_max_segs", IFLA_GSO_MAX_SEGS},
	{"gro_max_size", IFLA_GRO_MAX_SIZE},
	{NULL, 0},
};
static const struct name_attr channels_attrs[] = {
	{"rx", ETHTOOL_A_CHANNELS_RX_COUNT},
	{"tx", ETHTOOL_A_CHANNELS_TX_COUNT},
	{"other", ETHTOOL_A_CHANNELS_OTHER_COUNT},
	{"combined", ETHTOOL_A_CHANNELS_COMBINED_COUNT},
	{NULL, 0},
};
static const struct name_attr coalesce_attrs[] = {
	{"rx-usecs", ETHTOOL_A_COALESCE_RX_USECS},
	{"rx-frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES},
	{"tx-usecs", ETHTOOL_A_COALESCE_TX_USECS},
	{"tx-frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES},
	{NULL, 0},
};

static void msg_start(struct msg *m, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	memset(h, 0, sizeof(*h));
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	m->len = NLMSG_HDRLEN;
}

static void *msg_put(struct msg *m, const void *data, size_t len)
{
	void *at = m->b + m->len;

	if (m->len + NLMSG_ALIGN(len) > sizeof(m->b)) {
		fprintf(stderr, "%s: request over %d bytes\n", TOOL_NAME, MSG_MAX);
		exit(2);
	}
	memset(at, 0, NLMSG_ALIGN(len));
	if (data)
		memcpy(at, data, len);
	m->len += NLMSG_ALIGN(len);
	return at;
}

static struct nlattr *attr_put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = msg_put(m, NULL, NLA_HDRLEN);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		msg_put(m, data, len);
	return a;
}

static void attr_u32(struct msg *m, uint16_t type, uint32_t v)
{
	attr_put(m, type, &v, sizeof(v));
}

static void attr_str(struct msg *m, uint16_t type, const char *s)
{
	attr_put(m, type, s, strlen(s) + 1);
}

static struct nlattr *nest_start(struct msg *m, uint16_t type)
{
	return attr_put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, struct nlattr *a)
{
	a->nla_len = (uint16_t)(m->b + m->len - (char *)a);
}

static int nl_open(int proto)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto), one = 1;

	if (fd >= 0)
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

/* The kernel's extended-ack message of an error answer, "" without one. */
static void extack_msg(const struct nlmsghdr *r, char *why, size_t whylen)
{
	const struct nlmsgerr *e = NLMSG_DATA(r);
	const struct nlattr *a;
	size_t echoed = 0;
	int len;

	why[0] = '\0';
	if (!(r->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	/* The request is echoed whole after the error unless capped to its header. */
	if (!(r->nlmsg_flags & NLM_F_CAPPED))
		echoed = NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	a = (const struct nlattr *)((const char *)(e + 1) + echoed);
	len = (int)((const char *)r + r->nlmsg_len - (const char *)a);
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			snprintf(why, whylen, "%.*s", (int)(a->nla_len - NLA_HDRLEN),
				 (const char *)a + NLA_HDRLEN);
}

/*
 * Send m and read until the answer to it: with NLM_F_ACK the NLMSG_ERROR (0: done), else
 * the first reply, copied to reply. Returns 0, or a negative errno with the kernel's
 * extended-ack message in why.
 */
static int transact(int fd, struct msg *m, struct msg *reply, char *why, size_t whylen)
{
	static uint32_t seq;
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));

	why[0] = '\0';
	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++seq;
	if (send(fd, m->b, m->len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *r;
		int len;

		if (n < 0)
			return -errno;
		len = (int)n;
		for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, len); r = NLMSG_NEXT(r, len)) {
			const struct nlmsgerr *e = NLMSG_DATA(r);

			if (r->nlmsg_seq != seq)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR) {
				if (e->error)
					extack_msg(r, why, whylen);
				return e->error;
			}
			if (reply && r->nlmsg_len <= sizeof(reply->b)) {
				memcpy(reply->b, r, r->nlmsg_len);
				reply->len = r->nlmsg_len;
			}
			if (!(h->nlmsg_flags & NLM_F_ACK))
				return 0;
		}
	}
}

/* The ethtool generic netlink family's id, from the controller. */
static int ethtool_family(int fd)
{
	struct genlmsghdr g = {.cmd = CTRL_CMD_GETFAMILY, .version = 1};
	struct msg m = {.len = 0}, reply = {.len = 0};
	char why[256];
	struct nlattr *a;
	int len, r;

	msg_start(&m, GENL_ID_CTRL, 0);
	msg_put(&m, &g, sizeof(g));
	attr_str(&m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	r = transact(fd, &m, &reply, why, sizeof(why));
	if (r < 0)
		return r;
	len = (int)reply.len - NLMSG_HDRLEN - GENL_HDRLEN;
	a = (struct nlattr *)(reply.b + NLMSG_HDRLEN + GENL_HDRLEN);
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
	return -ENOENT;
}

static const struct name_attr *find(const struct name_attr *t, const char *name)
{
	for (; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* NAME=N words into u32 attributes of m, by the table t; -1 on a bad word. */
static int put_numbers(struct msg *m, const struct name_attr *t, char **words, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *eq = strchr(words[i], '='), *end;
		const struct name_attr *na;
		unsigned long v;

		if (!eq)
			return -1;
		*eq = '\0';
		na = find(t, words[i]);
		errno = 0;
		v = strtoul(eq + 1, &end, 10);
		if (!na || errno || *end || end == eq + 1 || v > UINT32_MAX)
			return -1;
		attr_u32(m, na->attr, (uint32_t)v);
	}
	return 0;
}

/* NAME=on|off words as a verbose bitset: only the bits listed change (no NOMASK). */
static int put_features(struct msg *m, char **words, int n)
{
	struct nlattr *set = nest_start(m, ETHTOOL_A_FEATURES_WANTED), *bits;
	int i;

	bits = nest_start(m, ETHTOOL_A_BITSET_BITS);
	for (i = 0; i < n; i++) {
		char *eq = strchr(words[i], '=');
		struct nlattr *bit;

		if (!eq || (strcmp(eq + 1, "on") && strcmp(eq + 1, "off")))
			return -1;
		*eq = '\0';
		bit = nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		attr_str(m, ETHTOOL_A_BITSET_BIT_NAME, words[i]);
		if (strcmp(eq + 1, "on") == 0)
			attr_put(m, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
		nest_end(m, bit);
	}
	nest_end(m, bits);
	nest_end(m, set);
	return 0;
}

/* An ethtool SET request's genl header and ETHTOOL_A_*_HEADER (attribute 1 in every group). */
static void ethtool_request(struct msg *m, int family, uint8_t cmd, const char *ifname)
{
	struct genlmsghdr g = {.cmd = cmd, .version = ETHTOOL_GENL_VERSION};
	struct nlattr *hdr;

	msg_start(m, (uint16_t)family, NLM_F_ACK);
	msg_put(m, &g, sizeof(g));
	hdr = nest_start(m, 1);
	attr_str(m, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	/* A features SET answers with its diff unless told not to: nothing here reads it. */
	attr_u32(m, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_OMIT_REPLY);
	nest_end(m, hdr);
}

/*
 * The initial network namespace has a fixed inode (PROC_NET_INIT_INO, include/linux/
 * proc_ns.h), which needs no access to /proc/1; not knowing counts as being there.
 */
static int in_init_netns(void)
{
	struct stat self;

	return stat("/proc/self/ns/net", &self) != 0 || self.st_ino == 0xEFFFFFF9U;
}

int main(int argc, char **argv)
{
	int rt = -1, gen = -1, family = -1, lineno = 0, requests = 0;
	char line[4096], why[256];
	struct msg m = {.len = 0};

	if (argc != 1)
		return fail(2, "usage: apply_floor < SPEC (see the source's comment)");
	if (in_init_netns())
		return fail(2, "run it in a network namespace of its own, not the host's");
	while (fgets(line, sizeof(line), stdin)) {
		char *words[64], *save = NULL, *w;
		int n = 0, r, fd, bad;

		lineno++;
		for (w = strtok_r(line, " \t\n", &save); w && n < 64;
		     w = strtok_r(NULL, " \t\n", &save))
			words[n++] = w;
		if (n == 0 || words[0][0] == '#')
			continue;
		if (n < 3 || strlen(words[1]) >= IF_NAMESIZE)
			return fail(2, "line %d: expected KIND IFACE NAME=VALUE...", lineno);
		if (strcmp(words[0], "link") == 0) {
			struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};

			if (rt < 0 && (rt = nl_open(NETLINK_ROUTE)) < 0)
				return fail(3, "rtnetlink socket: %s", strerror(errno));
			msg_start(&m, RTM_NEWLINK, NLM_F_ACK);
			msg_put(&m, &ifi, sizeof(ifi));
			attr_str(&m, IFLA_IFNAME, words[1]);
			bad = put_numbers(&m, link_attrs, words + 2, n - 2);
			fd = rt;
		} else {
			static const struct {
				const char *kind;
				uint8_t cmd;
				const struct name_attr *attrs;
			} kinds[] = {
				{"features", ETHTOOL_MSG_FEATURES_SET, NULL},
				{"channels", ETHTOOL_MSG_CHANNELS_SET, channels_attrs},
				{"coalesce", ETHTOOL_MSG_COALESCE_SET, coalesce_attrs},
			};
			unsigned int k;

			for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
				if (strcmp(kinds[k].kind, words[0]) == 0)
					break;
			if (k == sizeof(kinds) / sizeof(kinds[0]))
				return fail(2, "line %d: unknown kind %s", lineno, words[0]);
			if (gen < 0) {
				gen = nl_open(NETLINK_GENERIC);
				if (gen < 0)
					return fail(3, "generic netlink socket: %s",
						    strerror(errno));
				family = ethtool_family(gen);
				if (family < 0)
					return fail(3, "the ethtool genl family: %s",
						    strerror(-family));
			}
			ethtool_request(&m, family, kinds[k].cmd, words[1]);
			bad = kinds[k].attrs ? put_numbers(&m, kinds[k].attrs, words + 2, n - 2)
					     : put_features(&m, words + 2, n - 2);
			fd = gen;
		}
		if (bad)
			return fail(2, "line %d: a bad NAME=VALUE for %s", lineno, words[0]);
		r = transact(fd, &m, NULL, why, sizeof(why));
		if (r < 0)
			return fail(3, "line %d (%s %s): %s%s%s", lineno, words[0], words[1],
				    strerror(-r), why[0] ? ": " : "", why);
		requests++;
	}
	printf("%d requests\n", requests);
	return 0;
}
