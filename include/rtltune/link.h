/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_LINK_H
#define RTLTUNE_LINK_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

#include "rtltune/knob.h" /* LINK_UNSET, the GSO_* limits */

/*
 * Everything rtnetlink says about one link; numeric fields are LINK_UNSET when absent.
 * The knobs rtnetlink carries (KNOB_B_LINK rows of the knob table) are in knob[] (see
 * LINK_KNOBS); link_knob() gives LINK_UNSET for the others, which lib/netdev/nic.c reads from
 * ethtool.
 */
/* Every rtnetlink knob (KNOB_B_LINK) has an id below KNOB_FIRST_ETHNL (test_knob checks): a
 * link carries only those, 80 bytes rather than 920 for each of the thousands of links a
 * container host's dump holds and each device of a managed interface's stack. */
#define LINK_KNOBS KNOB_FIRST_ETHNL

struct link_info {
	int ifindex;
	char ifname[IF_NAMESIZE];
	char kind[32];	     /* IFLA_INFO_KIND ("veth", "bridge", ...) or "" for hardware */
	char slave_kind[32]; /* IFLA_INFO_SLAVE_KIND of a port ("bridge", "bond") or "" */
	char operstate[16];  /* "up", "down", "lowerlayerdown", ... as ip(8) names them */
	unsigned int flags;  /* IFF_* */
	int master;	     /* IFLA_MASTER: the upper this link is a port of, 0 none */
	int link;	     /* IFLA_LINK: the lower a vlan/macvlan rides on, a veth's peer;
			      * 0 when the kernel sends none (the device is its own) */
	bool link_netns;     /* IFLA_LINK_NETNSID: link is an ifindex in another netns */
	int link_netnsid;    /* that netns's id here (a veth's peer's namespace), -1 none */
	int64_t min_mtu, max_mtu;
	int64_t tso_max_size, tso_max_segs;
	int64_t tx_queues, rx_queues;
	int64_t knob[LINK_KNOBS]; /* the rtnetlink knobs; read others with link_knob() */
};

/* A knob's value in the link message: LINK_UNSET for a knob that is not a link attribute. */
static inline int64_t link_knob(const struct link_info *l, enum knob_id k)
{
	return (unsigned int)k < LINK_KNOBS ? l->knob[k] : LINK_UNSET;
}
/* Every knob's value as the link message has it (the others LINK_UNSET): val[KNOB__COUNT]. */
void link_knob_values(const struct link_info *l, int64_t *val);

/*
 * One rtnetlink socket for a run: every read and write of a CLI command or of the daemon
 * goes over it (one socket, not one per call). Calls that take a `struct link_sock *`
 * accept NULL: then they open one for that call.
 */
struct link_sock;
int link_sock_open(struct link_sock **out, struct rterr *err);
void link_sock_close(struct link_sock *ls); /* NULL is fine */

/*
 * One RTM_GETLINK dump (a single netlink round trip however many links) of the current
 * network namespace. *links is malloc'ed, sorted by ifindex; free() it.
 */
int link_dump(struct link_sock *ls, struct link_info **links, int *n, struct rterr *err);
/* One link by ifindex (a targeted RTM_GETLINK): -ENODEV "interface N disappeared". */
int link_get_index(struct link_sock *ls, int ifindex, struct link_info *out, struct rterr *err);
/*
 * The same, with the link's IFLA_STATS64 counters into *stats (*have_stats false when the
 * reply had none): the daemon's counters of one managed interface without a dump.
 */
struct rtnl_link_stats64;
int link_get_index_stats(struct link_sock *ls, int ifindex, struct link_info *out,
			 struct rtnl_link_stats64 *stats, bool *have_stats, struct rterr *err);
/*
 * One link of the network namespace with id nsid here (IFLA_TARGET_NETNSID: the kernel
 * reads it there), over this namespace's socket: a pod's veth read without entering
 * its namespace. -ENODEV "interface N of netns id M disappeared".
 */
int link_get_netnsid(struct link_sock *ls, int nsid, int ifindex, struct link_info *out,
		     struct rterr *err);
/*
 * One link by ifindex over a plain rtnetlink socket fd of the link's namespace (no libnl
 * state: netns_rtnl_fd()), with the counters when stats is given. A read from the node
 * by IFLA_TARGET_NETNSID costs the kernel a walk of every namespace id the node has
 * (net/core/net_namespace.c, __peernet2id() by idr_for_each(), for a veth's
 * IFLA_LINK_NETNSID): with 1000 pods, a third of the daemon's CPU.
 */
int link_get_fd(int fd, int ifindex, struct link_info *out, struct rtnl_link_stats64 *stats,
		bool *have_stats, struct rterr *err);
/*
 * Send req (its sequence number set here) over a plain rtnetlink socket fd and take the
 * reply of type want into buf (buflen bytes; *reply points into it): 0, the kernel's
 * -errno, -ENOENT when it only acknowledged (NLM_F_ACK: a GET it answers with nothing),
 * -EMSGSIZE when the reply does not fit, or the socket's -errno. Late replies to earlier
 * requests are skipped.
 */
struct nlmsghdr;
int rtnl_ask(int fd, struct nlmsghdr *req, uint16_t want, void *buf, size_t buflen,
	     const struct nlmsghdr **reply);
/* The id this namespace has for the network namespace nsfd refers to (RTM_GETNSID by
 * NETNSA_FD): >= 0, -ENOENT when it has none, or -errno. */
int link_netns_id(struct link_sock *ls, int nsfd, struct rterr *err);
/* IFLA_STATS64 of one RTM_NEWLINK message (netlink header included); false without. */
bool link_stats_from_msg(const void *buf, size_t len, struct rtnl_link_stats64 *out);
/* One link by name (RTM_GETLINK with IFLA_IFNAME); -ENODEV "no such interface: NAME". */
int link_get(struct link_sock *ls, const char *ifname, struct link_info *out, struct rterr *err);
/*
 * Parse one RTM_NEWLINK message (netlink header included) of len bytes, as a dump or the
 * link monitor receives it. -EINVAL for anything else or a malformed message.
 */
int link_info_from_msg(const void *buf, size_t len, struct link_info *out);

/*
 * Set one u32 link attribute (IFLA_*) by ifindex; what names it in messages ("mtu").
 * err carries the value, the kernel's errno and its extack text. Only the actuator
 * (lib/actuate/actuate.c) calls this: every change goes through it (docs/architecture.md).
 */
int link_set_u32(struct link_sock *ls, int ifindex, int ifla, const char *what, uint32_t value,
		 struct rterr *err);
/*
 * Several u32 link attributes in one RTM_NEWLINK: one request and one change notification
 * for the lot. The kernel takes them in its own order and stops at the first it refuses,
 * keeping those it had set: on an error, any of them may have changed. Only the actuator
 * calls this (as link_set_u32()).
 */
struct link_u32 {
	int ifla;
	const char *what;
	uint32_t value;
};
int link_set_u32s(struct link_sock *ls, int ifindex, const struct link_u32 *attrs, unsigned int n,
		  struct rterr *err);

/* Whether no device in this netns has ifindex now (SIOCGIFNAME says ENODEV). */
bool link_index_gone(int ifindex);
/* The name ifindex has now: 0, -ENODEV when no device has it, or -errno. */
int link_index_to_name(int ifindex, char name[IF_NAMESIZE]);

#endif
