/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_NETNS_H
#define RTLTUNE_NETNS_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * Another network namespace than the process's own: a pod's, on a container host
 * (docs/namespaces.md). The process enters it only for as long as it works on one of its
 * devices (netns_switch()): what talks to the kernel by a socket of the current namespace
 * (the ioctls, a new netlink socket such as route.h's, sysfs) then reaches that namespace's
 * devices. Inside, the namespace's own sockets serve: its ioctl socket (made the process's
 * by ethtool_ctl_fd_use()), and its device sockets (netns_io(): rtnetlink and ethtool
 * netlink opened inside, with a sysfs of its own mounted nowhere, reached through
 * /proc/self/fd). Every one of them holds the namespace alive: netns_close() lets it go.
 */
struct netns;
struct nic_io;

/* Open the namespace path refers to (/run/netns/NAME), named name in messages and outputs:
 * its fd, an ioctl socket inside and its cookie (SO_NETNS_COOKIE). -EINVAL when path is no
 * network namespace. */
int netns_open(const char *name, const char *path, struct netns **out, struct rterr *err);
/* Everything it holds let go (the process leaves it first if it is in it); NULL is fine. */
void netns_close(struct netns *ns);
const char *netns_name(const struct netns *ns);
/* SO_NETNS_COOKIE: never reused within a boot (the journal's identity of its devices). */
uint64_t netns_cookie(const struct netns *ns);
int netns_fd(const struct netns *ns);
/* Its device sockets, opened inside at the first call; NULL with err on failure. */
struct nic_io *netns_io(struct netns *ns, struct rterr *err);
/* Closed while nothing of it needs them (its interfaces at rest, read over
 * netns_rtnl_fd()): the next netns_io() opens them again. */
void netns_io_close(struct netns *ns);
bool netns_io_is_open(const struct netns *ns);
/* A plain rtnetlink socket made inside at open: the link reads (link_get_fd()) that
 * need no device sockets. */
int netns_rtnl_fd(const struct netns *ns);

/*
 * Make the thread's network namespace to's (NULL: the process's own, where it was at the
 * first switch), and its ioctl socket to's; *prev (may be NULL) gets the one it was in, for
 * switching back. Cheap when it is there already (calls nest by switching back to prev).
 */
int netns_switch(struct netns *to, struct netns **prev, struct rterr *err);
/*
 * Which name the namespace with id nsid in the caller's (a veth's IFLA_LINK_NETNSID) has
 * among the namespace files in dirs[0..n_dirs) (/run/netns, /run/docker/netns: names made
 * by `ip netns add`, a CNI plugin, Docker): each file opened and asked its id
 * (RTM_GETNSID with NETNSA_FD), nothing entered; the first directory that has it wins.
 * name and path get its name and file. 1 found, 0 not (no name anywhere: a namespace only
 * a process holds), -errno. ls may be NULL (a socket of its own for the call).
 */
struct link_sock;
int netns_find_id(struct link_sock *ls, int nsid, char *const *dirs, unsigned int n_dirs,
		  char *name, size_t name_len, char *path, size_t path_len, struct rterr *err);

/* The namespace the thread is in now (NULL: its own). */
struct netns *netns_current(void);

#endif
