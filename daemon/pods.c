// SPDX-License-Identifier: GPL-2.0-only
/* Pods' namespaces and the peers of the node's veths in them (pods.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iface.h"
#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "pods.h"
#include "rtltune/actuate.h"
#include "rtltune/journal.h"
#include "rtltune/netns.h"
#include "trust.h"

#ifndef NETLINK_LISTEN_ALL_NSID
#define NETLINK_LISTEN_ALL_NSID 8
#endif

#define PODS_RCVBUF	  (4 * 1024 * 1024)
#define PODS_LOCK_WAIT_MS 300

#define POD_NAME_MAX 64 /* with its NUL: longer names are not selected */

/* A namespace named in one of netns_dirs (/run/netns, /run/docker/netns) and selected by
 * `namespaces`. */
struct pod_ns {
	struct pod_ns *next;
	unsigned int dir; /* the netns_dirs entry it is in (the first that has the name) */
	struct netns *ns; /* NULL: its file is not a namespace yet (ip netns add mounts it
			   * after creating it) */
	int nsid;	  /* the daemon's namespace's id for it, -1 none yet */
	bool listed;	  /* in the directory at the last scan */
	int open_err;	  /* errno of the last failed open, logged once (0: none) */
	char name[];	  /* allocated with it */
};

/* A veth of the daemon's namespace whose peer is in another: where the peer is. */
struct peer {
	int node_ifindex;
	int nsid;
	int ifindex;
};

static struct pod_ns *pods;
static struct peer *peers;
static unsigned int n_peers, cap_peers;
static struct ev_io nl_io = {.fd = -1}, ino_io = {.fd = -1};
/* Per netns_dirs entry: its watch, or the watch of the nearest directory above it that
 * exists, until it does (the first `ip netns add` makes /run/netns, dockerd its own). */
static int wd_dir[NETNS_DIRS_MAX], wd_up[NETNS_DIRS_MAX];
static unsigned int n_dirs;
static int self_nsid = -1;
static bool started;

unsigned int pods_count(void)
{
	struct pod_ns *p;
	unsigned int n = 0;

	for (p = pods; p; p = p->next)
		n += p->ns != NULL;
	return n;
}

static struct pod_ns *pod_by_nsid(int nsid)
{
	struct pod_ns *p;

	for (p = pods; nsid >= 0 && p; p = p->next)
		if (p->ns && p->nsid == nsid)
			return p;
	return NULL;
}

static struct peer *peer_of_node(int node_ifindex)
{
	unsigned int i;

	for (i = 0; i < n_peers; i++)
		if (peers[i].node_ifindex == node_ifindex)
			return &peers[i];
	return NULL;
}

static bool is_peer(int nsid, int ifindex)
{
	unsigned int i;

	for (i = 0; i < n_peers; i++)
		if (peers[i].nsid == nsid && peers[i].ifindex == ifindex)
			return true;
	return false;
}

struct iface *pods_peer(const struct iface *node)
{
	struct peer *pe;
	struct pod_ns *p;
	struct iface *pi;

	if (!started || node->ns || !(pe = peer_of_node(node->dev_index)) ||
	    !(p = pod_by_nsid(pe->nsid)))
		return NULL;
	pi = iface_by_dev(p->ns, pe->ifindex);
	return pi && pi->managed && pi->m ? pi : NULL;
}

const struct nic_stack *pods_stack(struct iface *ifc, const struct link_info **links, int *n,
				   struct nic_stack *buf)
{
	static const struct nic_stack none;
	const struct nic_stack *st = &none;
	struct iface *peer = pods_peer(ifc);

	*links = NULL;
	*n = 0;
	if (ifc->m && iface_stacked(ifc)) {
		iface_read_stack(ifc);
		*links = ifc->m->stack_links;
		*n = ifc->m->n_stack_links;
		st = iface_stack(ifc);
	}
	if (!peer)
		return st;
	*buf = *st;
	buf->ifindex = ifc->dev_index;
	stack_set_peer(buf, peer->ns, &iface_snap(peer)->link);
	return buf;
}

/* The peer's link read across (IFLA_TARGET_NETNSID) into the table. */
static void attach(const struct peer *pe)
{
	struct pod_ns *p = pod_by_nsid(pe->nsid);
	struct link_info li;
	struct rterr err;

	if (!p || !rtd.act || iface_by_dev(p->ns, pe->ifindex))
		return;
	if (link_get_netnsid(actuator_link_sock(rtd.act), pe->nsid, pe->ifindex, &li, &err) == 0)
		iface_pod_seen(p->ns, &li, false, NULL);
}

/* ---- the namespaces, by name ---------------------------------------------------------- */

/* Its id here, once the kernel gave it one (it does when a veth leads there). */
static void resolve(struct pod_ns *p)
{
	struct rterr err;
	int id;

	if (!p->ns || p->nsid >= 0 || !rtd.act)
		return;
	id = link_netns_id(actuator_link_sock(rtd.act), netns_fd(p->ns), &err);
	if (id >= 0)
		p->nsid = id;
}

/* Open a listed name, when its file is a namespace by now. */
static void open_pod(struct pod_ns *p)
{
	char path[PATH_MAX];
	struct rterr err;
	unsigned int i;

	if (p->ns || p->dir >= rtd.cfg.netns_dirs.n)
		return;
	snprintf(path, sizeof(path), "%s/%s", rtd.cfg.netns_dirs.v[p->dir], p->name);
	if (netns_open(p->name, path, &p->ns, &err) < 0) {
		p->ns = NULL;
		/* Tried again at each event of its directory: said once per cause, not at
		 * each try (a node of pods would fill the journal with one refusal). */
		/* EPERM from setns(2): CAP_SYS_ADMIN, and systemd's RestrictNamespaces= (the
		 * CLI says its own, cli/explain.c). */
		if (err.errnum != EINVAL && err.errnum != p->open_err)
			dlog(LOG_WARNING, NULL, "netns %s: %s%s", p->name, err.msg,
			     err.errnum == EPERM ? " (needs CAP_SYS_ADMIN and, under systemd, "
						   "RestrictNamespaces=net: the drop-in "
						   "/usr/share/doc/rtltune/examples/pods.conf)"
						 : "");
		p->open_err = err.errnum;
		return;
	}
	p->open_err = 0;
	resolve(p);
	dlog(LOG_INFO, NULL, "netns %s: followed (id %d, cookie %llu)", p->name, p->nsid,
	     (unsigned long long)netns_cookie(p->ns));
	for (i = 0; i < n_peers; i++)
		if (peers[i].nsid == p->nsid)
			attach(&peers[i]);
}

/*
 * Let a namespace go: its interfaces leave the table and, when it was deleted, their
 * journal records end with it (they can never match a device again: a netns cookie is
 * never reused within a boot). One line in the log either way.
 */
static void release(struct pod_ns *p, bool deleted)
{
	struct pod_ns **pp;
	unsigned int n = 0;
	int forgotten = 0;

	if (p->ns) {
		struct journal *j = NULL;
		struct rterr err = {0};
		uint64_t cookie = netns_cookie(p->ns);

		n = iface_netns_gone(p->ns);
		if (deleted && trust_journal_open(PODS_LOCK_WAIT_MS, &j, &err) == 0)
			forgotten = journal_forget_netns(j, cookie, "daemon", NULL, &err);
		journal_close(j);
		if (forgotten < 0)
			dlog(LOG_WARNING, NULL,
			     "netns %s deleted: %u interface%s no longer managed; its journal "
			     "records stay (%s)",
			     p->name, n, n == 1 ? "" : "s", err.msg);
		else
			dlog(LOG_NOTICE, NULL,
			     "netns %s %s: %u interface%s no longer managed, %d journal record%s "
			     "ended",
			     p->name, deleted ? "deleted" : "no longer selected", n,
			     n == 1 ? "" : "s", forgotten, forgotten == 1 ? "" : "s");
		netns_close(p->ns);
	}
	for (pp = &pods; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	free(p);
}

/* The entry of a selected name of directory dir, made when new (NULL: not selected, no
 * memory, or the name is an earlier directory's). */
static struct pod_ns *pod_add(const char *name, unsigned int dir)
{
	struct pod_ns *p;
	size_t len = strlen(name);

	if (name[0] == '.' || len >= POD_NAME_MAX || !config_selects_netns(&rtd.cfg, name))
		return NULL;
	for (p = pods; p && strcmp(p->name, name) != 0; p = p->next)
		;
	if (p)
		return p->dir <= dir ? (p->dir == dir ? p : NULL) : NULL;
	p = calloc(1, sizeof(*p) + len + 1);
	if (!p)
		return NULL;
	memcpy(p->name, name, len);
	p->dir = dir;
	p->nsid = -1;
	p->next = pods;
	pods = p;
	return p;
}

/* The directories against the list: new selected names opened, vanished ones let go. */
static void scan(void)
{
	struct pod_ns *p, *next;
	struct dirent *de;
	unsigned int i;

	for (p = pods; p; p = p->next) {
		p->listed = false;
		p->dir = UINT_MAX;
	}
	for (i = 0; i < rtd.cfg.netns_dirs.n; i++) {
		DIR *d = opendir(rtd.cfg.netns_dirs.v[i]);

		while (d && (de = readdir(d))) {
			/* A name is the first directory's that has it. */
			for (p = pods; p && strcmp(p->name, de->d_name) != 0; p = p->next)
				;
			if (p) {
				if (!p->listed)
					p->dir = i;
				p->listed = true;
			} else if ((p = pod_add(de->d_name, i))) {
				p->listed = true;
			}
		}
		if (d)
			closedir(d);
	}
	for (p = pods; p; p = next) {
		next = p->next;
		if (!p->listed)
			release(p, true);
		else
			open_pod(p);
	}
}

/* A name whose namespace is not known by its id yet: try again (a veth led somewhere new). */
static void resolve_pending(void)
{
	struct pod_ns *p;
	unsigned int i;

	for (p = pods; p; p = p->next) {
		bool was = p->nsid >= 0;

		if (!p->ns)
			open_pod(p);
		else
			resolve(p);
		if (p->ns && !was && p->nsid >= 0)
			for (i = 0; i < n_peers; i++)
				if (peers[i].nsid == p->nsid)
					attach(&peers[i]);
	}
}

/* ---- the node's veths and the peers' events ------------------------------------------ */

static void node_link(const struct link_info *li)
{
	struct peer *pe = peer_of_node(li->ifindex);

	if (strcmp(li->kind, "veth") != 0 || li->link_netnsid < 0 || li->link <= 0) {
		/* Not (or no longer) a veth into another namespace. */
		if (pe)
			*pe = peers[--n_peers];
		return;
	}
	if (pe && pe->nsid == li->link_netnsid && pe->ifindex == li->link)
		return;
	if (!pe) {
		if (n_peers == cap_peers) {
			unsigned int cap = cap_peers ? 2 * cap_peers : 16;
			struct peer *grown = realloc(peers, cap * sizeof(*grown));

			if (!grown)
				return;
			peers = grown;
			cap_peers = cap;
		}
		pe = &peers[n_peers++];
	}
	*pe = (struct peer){li->ifindex, li->link_netnsid, li->link};
	if (!pod_by_nsid(pe->nsid))
		resolve_pending();
	attach(pe);
}

static void node_link_removed(int ifindex)
{
	struct peer *pe = peer_of_node(ifindex);
	struct pod_ns *p;

	if (!pe)
		return;
	/* The pair goes together: the peer too, whether or not its own event reaches us. */
	p = pod_by_nsid(pe->nsid);
	if (p)
		iface_pod_removed(p->ns, pe->ifindex, "removed with its peer");
	*pe = peers[--n_peers];
}

static void message(struct nlmsghdr *nlh, int nsid)
{
	bool own = nsid < 0 || nsid == self_nsid;
	struct link_counters st;
	struct rtnl_link_stats64 s;
	struct link_info li;
	struct pod_ns *p;
	bool have;

	if (nlh->nlmsg_type == RTM_DELLINK) {
		struct ifinfomsg *ifi = NLMSG_DATA(nlh);

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			return;
		if (own)
			node_link_removed(ifi->ifi_index);
		else if ((p = pod_by_nsid(nsid)) && is_peer(nsid, ifi->ifi_index))
			iface_pod_removed(p->ns, ifi->ifi_index, "removed");
		return;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK || link_info_from_msg(nlh, nlh->nlmsg_len, &li) < 0)
		return;
	if (own) {
		/* A veth's first notifications come before its two ends know each other
		 * (veth_newlink() registers and announces the peer, then the device, then pairs
		 * them): without IFLA_LINK. Its other end is known by now: read it again, or a
		 * node's side nobody sets up afterwards would never lead to its pod. */
		if (strcmp(li.kind, "veth") == 0 && li.link <= 0 && rtd.act) {
			struct link_info again;
			struct rterr err;

			if (link_get_index(actuator_link_sock(rtd.act), li.ifindex, &again, &err) ==
			    0)
				li = again;
		}
		node_link(&li);
		return;
	}
	p = pod_by_nsid(nsid);
	if (!p || !is_peer(nsid, li.ifindex))
		return;
	have = link_stats_from_msg(nlh, nlh->nlmsg_len, &s);
	if (have)
		linkmon_counters_from(&s, &st);
	iface_pod_seen(p->ns, &li, true, have ? &st : NULL);
}

static void nl_ready(struct ev_io *io, uint32_t events)
{
	char buf[32768], cbuf[CMSG_SPACE(sizeof(int))];
	int n;

	for (;;) {
		struct iovec iov = {buf, sizeof(buf)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *c;
		struct nlmsghdr *nlh;
		int nsid = -1;

		n = (int)recvmsg(io->fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			/* Events lost: what the table holds of pods is re-read from the node's
			 * veths (a dump of its own namespace, the peers each by one get). */
			dlog(LOG_WARNING, NULL, "pods' link events lost: resynchronizing");
			n_peers = 0;
			pods_reload();
			continue;
		}
		if (n <= 0)
			return;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_NETLINK &&
			    c->cmsg_type == NETLINK_LISTEN_ALL_NSID &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&nsid, CMSG_DATA(c), sizeof(nsid));
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (unsigned int)n);
		     nlh = NLMSG_NEXT(nlh, n))
			message(nlh, nsid);
	}
}

/* ---- /run/netns ------------------------------------------------------------------------ */

/* No watch (removed from the inotify instance when it has any). */
static void reset_watches(void)
{
	unsigned int i;

	for (i = 0; i < NETNS_DIRS_MAX; i++) {
		if (ino_io.fd >= 0 && i < n_dirs && wd_dir[i] >= 0)
			inotify_rm_watch(ino_io.fd, wd_dir[i]);
		if (ino_io.fd >= 0 && i < n_dirs && wd_up[i] >= 0)
			inotify_rm_watch(ino_io.fd, wd_up[i]);
		wd_dir[i] = wd_up[i] = -1;
	}
	n_dirs = 0;
}

/* Whether a watch serves another entry too (inotify gives one descriptor per directory:
 * /run is above both /run/netns and /run/docker/netns until they exist). */
static bool wd_shared(int wd, unsigned int self)
{
	unsigned int i;

	for (i = 0; i < n_dirs; i++)
		if (i != self && (wd_dir[i] == wd || wd_up[i] == wd))
			return true;
	return false;
}

static void drop_watch(int wd, unsigned int self)
{
	if (wd >= 0 && ino_io.fd >= 0 && !wd_shared(wd, self))
		inotify_rm_watch(ino_io.fd, wd);
}

/*
 * Watch each directory of netns_dirs, or the nearest directory above it that exists until
 * it does (/run/netns comes with the first `ip netns add`, /run/docker/netns with dockerd).
 * Every call looks again: the directories below appear one at a time (/run/docker, then
 * /run/docker/netns, which /run's watch would not hear), so the watch above moves down
 * with them, and goes once the directory itself is watched.
 */
static void watch(void)
{
	unsigned int i;

	n_dirs = rtd.cfg.netns_dirs.n < NETNS_DIRS_MAX ? rtd.cfg.netns_dirs.n : NETNS_DIRS_MAX;
	for (i = 0; ino_io.fd >= 0 && i < n_dirs; i++) {
		char up[PATH_MAX], *slash;
		int prev = wd_up[i];

		if (wd_dir[i] < 0)
			wd_dir[i] = inotify_add_watch(ino_io.fd, rtd.cfg.netns_dirs.v[i],
						      IN_CREATE | IN_DELETE | IN_MOVED_FROM |
							      IN_MOVED_TO | IN_DELETE_SELF);
		wd_up[i] = -1;
		if (wd_dir[i] >= 0) {
			drop_watch(prev, i);
			continue;
		}
		snprintf(up, sizeof(up), "%s", rtd.cfg.netns_dirs.v[i]);
		while ((slash = strrchr(up, '/')) && wd_up[i] < 0) {
			if (slash == up)
				slash[1] = '\0';
			else
				*slash = '\0';
			wd_up[i] = inotify_add_watch(ino_io.fd, up, IN_CREATE | IN_MOVED_TO);
			if (slash == up)
				break;
		}
		if (prev != wd_up[i])
			drop_watch(prev, i);
	}
}

/* Which directory of netns_dirs a watch is of (-1: none; *up: a directory above it). */
static int dir_of_watch(int wd, bool *up)
{
	unsigned int i;

	for (i = 0; i < n_dirs; i++)
		if (wd_dir[i] == wd) {
			*up = false;
			return (int)i;
		}
	for (i = 0; i < n_dirs; i++)
		if (wd_up[i] == wd) {
			*up = true;
			return (int)i;
		}
	return -1;
}

/*
 * A name came or went: that name alone (a scan of the directory per event cost a CPU
 * while pods came and went at 50/s on a node of 1000: docs/namespaces.md "Measured").
 * The whole directory again when the events cannot say it (the queue overflowed, the
 * directory itself was made or went).
 */
static void ino_ready(struct ev_io *io, uint32_t events)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool rescan = false;
	struct pod_ns *p;
	ssize_t n;

	while ((n = read(io->fd, buf, sizeof(buf))) > 0) {
		char *q;

		for (q = buf; q < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)q;
			bool up;
			int dir;

			q += sizeof(*e) + e->len;
			dir = dir_of_watch(e->wd, &up);
			if (e->mask & IN_Q_OVERFLOW) {
				rescan = true;
			} else if (dir < 0) {
				continue;
			} else if (up) {
				/* Something made above a directory not there yet: it may be now. */
				rescan = true;
			} else if (!e->len) {
				rescan = true;
				if (e->mask & (IN_DELETE_SELF | IN_IGNORED))
					wd_dir[dir] = -1;
			} else if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
				if ((p = pod_add(e->name, (unsigned int)dir)))
					open_pod(p);
			} else if (e->mask & (IN_DELETE | IN_MOVED_FROM)) {
				for (p = pods; p && strcmp(p->name, e->name) != 0; p = p->next)
					;
				if (p && p->dir == (unsigned int)dir)
					release(p, true);
			}
		}
	}
	if (rescan) {
		watch();
		scan();
	}
}

/* ---- start, reload, stop --------------------------------------------------------------- */

/* Every veth of the daemon's namespace: which lead to another (one dump). */
static void node_dump(void)
{
	struct link_info *links;
	struct rterr err;
	int n, i;

	if (!rtd.act || link_dump(actuator_link_sock(rtd.act), &links, &n, &err) < 0)
		return;
	for (i = 0; i < n; i++)
		node_link(&links[i]);
	free(links);
}

/* Enough descriptors for a node of many pods: each followed namespace holds a few. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int pods_start(void)
{
	int one = 1, fd, rcv = PODS_RCVBUF, r;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
	struct rterr err;
	int self;

	if (started || !rtd.cfg.namespaces.n)
		return 0;
	reset_watches();
	raise_nofile();
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_LISTEN_ALL_NSID, &one, sizeof(one)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	nl_io.fd = fd;
	nl_io.cb = nl_ready;
	r = loop_add(&nl_io, EPOLLIN);
	if (r < 0) {
		close(fd);
		nl_io.fd = -1;
		return r;
	}
	/* Its own namespace may have an id for itself: its events carry that one. */
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self >= 0 && rtd.act) {
		r = link_netns_id(actuator_link_sock(rtd.act), self, &err);
		self_nsid = r >= 0 ? r : -1;
	}
	if (self >= 0)
		close(self);
	ino_io.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ino_io.cb = ino_ready;
	if (ino_io.fd >= 0 && loop_add(&ino_io, EPOLLIN) < 0) {
		close(ino_io.fd);
		ino_io.fd = -1;
	}
	watch();
	started = true;
	scan();
	node_dump();
	return 0;
}

void pods_start_or_say(void)
{
	int r = pods_start();

	if (r == -EPERM)
		/* NETLINK_LISTEN_ALL_NSID: ns_capable(CAP_NET_BROADCAST) in netlink_setsockopt(),
		 * net/netlink/af_netlink.c. */
		dlog(LOG_ERR, NULL,
		     "namespaces: pods not followed: an rtnetlink socket hearing every namespace "
		     "(NETLINK_LISTEN_ALL_NSID): %s (needs CAP_NET_BROADCAST, and CAP_SYS_ADMIN "
		     "to enter a pod; under systemd the drop-in "
		     "/usr/share/doc/rtltune/examples/pods.conf)",
		     strerror(-r));
	else if (r < 0)
		dlog(LOG_ERR, NULL, "namespaces: pods not followed: %s", strerror(-r));
}

void pods_reload(void)
{
	struct pod_ns *p, *next;

	if (!started) {
		pods_start_or_say();
		return;
	}
	/* Names no longer selected go; their devices and records stay as they are. */
	for (p = pods; p; p = next) {
		next = p->next;
		if (!config_selects_netns(&rtd.cfg, p->name)) {
			release(p, false);
		}
	}
	/* netns_dirs may have changed: each watched again. */
	reset_watches();
	watch();
	scan();
	node_dump();
}

void pods_stop(void)
{
	if (nl_io.fd >= 0) {
		loop_del(&nl_io);
		close(nl_io.fd);
		nl_io.fd = -1;
	}
	if (ino_io.fd >= 0) {
		loop_del(&ino_io);
		close(ino_io.fd);
		ino_io.fd = -1;
	}
	reset_watches();
	while (pods) {
		struct pod_ns *p = pods;

		pods = p->next;
		if (p->ns)
			iface_netns_gone(p->ns);
		netns_close(p->ns);
		free(p);
	}
	free(peers);
	peers = NULL;
	n_peers = cap_peers = 0;
	started = false;
}
