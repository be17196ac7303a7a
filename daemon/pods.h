/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_PODS_H
#define RTLTUNED_PODS_H

/*
 * The pods' side of the node's veths (docs/namespaces.md): with `namespaces =` in the
 * configuration, the network namespaces the daemon's veths lead to (IFLA_LINK_NETNSID),
 * by their names in /run/netns, and the peer of each veth there, reported to the interface
 * table as that namespace's interface. One rtnetlink socket hears every namespace the
 * daemon's has an id for (NETLINK_LISTEN_ALL_NSID), the daemon's own included; inotify on
 * netns_dirs (/run/netns, /run/docker/netns) says when a name comes or goes. A namespace
 * is held open (netns.h) exactly while its name is there and selected: a deleted one is let go at
 * once, its interfaces and their journal records ended, with one line in the log.
 */
/* Start following them; when that fails, one line saying why and what grants it, and the
 * daemon goes on with its own namespace (a unit without the pods' drop-in may not listen
 * to others). */
void pods_start_or_say(void);
/* After a reload: namespaces selected anew. */
void pods_reload(void);
void pods_stop(void);
/* How many namespaces are held open, and pods' interfaces in the table (status). */
unsigned int pods_count(void);
/* The managed pod interface that is the veth peer of node's veth (the daemon's own
 * namespace), or NULL: planned with it (docs/namespaces.md "Pods in the node's stack"). */
struct iface;
struct iface *pods_peer(const struct iface *node);
/* The stack around ifc as last read, for plans (empty when it has none), with its veth
 * peer in a pod the daemon manages (then a copy in buf): what a profile apply and the
 * tuner's trials plan on, one way. *links, *n: the links it was built from. */
struct link_info;
struct nic_stack;
const struct nic_stack *pods_stack(struct iface *ifc, const struct link_info **links, int *n,
				   struct nic_stack *buf);

#endif
