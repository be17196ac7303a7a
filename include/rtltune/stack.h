/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_STACK_H
#define RTLTUNE_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/knob.h"
#include "rtltune/link.h"

/*
 * The device stack around a NIC (docs/stack.md): the uppers that carry its traffic and the
 * lowers below it, from one link dump.
 *  - a master: a bridge, bond or team the device is a port of, or the hv_netvsc interface
 *    a MANA VF serves (IFLA_MASTER);
 *  - a device over it: a vlan, macvlan, macvtap, ipvlan or ipvtap whose IFLA_LINK names it
 *    in the same netns (a veth's IFLA_LINK is its peer, not a lower).
 * Local sockets route over the topmost upper and take its gso_max_size; each device below
 * then segments in software any skb above its own (gso_features_check), so the sizes local
 * traffic gets are the smallest on the path. GRO runs in the lowest device's NAPI: its
 * gro_max_size decides, an upper's has no effect.
 */

#define STACK_MAX 4 /* uppers, and lowers, handled per device */

enum stack_rel {
	STACK_MASTER, /* the device is a port (or VF) of it */
	STACK_OVER,   /* it rides on the device (vlan, macvlan, ipvlan) */
	STACK_PEER,   /* the other end of the veth, in another namespace (a pod's eth0) */
};

struct stack_dev {
	struct link_info li; /* as the dump had it */
	enum stack_rel rel;
	int below; /* the ifindex it is an upper of (or the lower of, for lowers) */
};

/*
 * A veth's peer in another network namespace that rtltune manages: a pod's eth0, the other
 * end of a node's bridge port (docs/stack.md "Pods: the peer in another namespace"). The
 * pod's sockets route over it and take its gso_max_size (sk_setup_caps()), and every skb
 * they send is handed whole to the node's veth, so for the stacked sizes it is an upper of
 * that veth: raised after it, lowered before it. Not found by stack_build() (another
 * namespace's dump): the caller that reads it there sets it (stack_set_peer()).
 */
struct netns;
struct stack_peer {
	struct link_info li; /* as its namespace has it: its own ifindex there */
	struct netns *ns;    /* where it is (held open by the caller) */
	int below;	     /* the node's veth it is the peer of */
};

struct nic_stack {
	int ifindex;
	bool has_peer;
	struct stack_peer peer;
	unsigned int n_uppers, n_lowers;
	struct stack_dev uppers[STACK_MAX]; /* nearest first */
	struct stack_dev lowers[STACK_MAX]; /* its ports, or the device it rides on */
	bool truncated;			    /* more than STACK_MAX: the rest is left out */
};

/* The stack of the link with ifindex among links[0..n) (one dump, any order). */
void stack_build(const struct link_info *links, int n, int ifindex, struct nic_stack *out);
/* The device's peer in namespace ns (li read there). */
void stack_set_peer(struct nic_stack *st, struct netns *ns, const struct link_info *li);
/* The device's own ceiling for a stacked knob (what the kernel refuses above):
 * tso_max_segs for gso_max_segs, tso_max_size for the sizes. */
int64_t stack_ceiling(const struct link_info *l, enum knob_id k);
/* Whether a link of this kind rides on the device its IFLA_LINK names. */
bool stack_kind_rides_on_link(const char *kind);

/*
 * What local traffic through the device gets of a KNOB_F_STACK knob: the smallest value on
 * the device, its uppers and its lowers. self is the device's own link. LINK_UNSET when
 * none reports it.
 */
int64_t stack_effective(const struct link_info *self, const struct nic_stack *st, enum knob_id k);
/* (The peer, when set, is not on the path of the device's local traffic: not counted.) */
/* The gro_max_size that bounds what the device receives: its lowers' when it has any. */
int64_t stack_effective_gro(const struct link_info *self, const struct nic_stack *st);

/*
 * The most upper u may carry of knob k without a lower that cannot take it: its own
 * ceiling (tso_max_size, tso_max_segs) and every other lower's current value (one smaller
 * than the skbs would segment them in software). links[0..n) is the dump; except is the
 * lower the caller changes (not a limit). why gets "its port tap0 has gso_max_size 65536"
 * when a lower limits it, else "".
 */
int64_t stack_upper_cap(const struct link_info *links, int n, const struct link_info *u, int except,
			enum knob_id k, char *why, size_t why_len);

#endif
