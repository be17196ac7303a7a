/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ROUTE_H
#define RTLTUNE_ROUTE_H

#include <stddef.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * Established connections and the routes they cached (docs/stack.md "Established
 * connections"). A socket copies the device's gso_max_size, gso_ipv4_max_size and
 * gso_max_segs (and its features) when it gets its route (sk_setup_caps) and keeps them
 * while the cached dst stays valid. route_invalidate() makes every cached IPv4 and/or IPv6
 * dst of the caller's network namespace stale, so each socket looks its route up again,
 * and re-reads the device, at its next transmit. Netlink only (the shipped unit makes
 * /proc/sys read-only), in one of two ways:
 *
 *   xfrm    XFRM_MSG_SETDEFAULT with every default UNSPEC: changes no policy default, and
 *           the kernel calls rt_genid_bump_all(): rt_genid_bump_ipv4() and, through
 *           __fib6_flush_trees (fib6_flush_trees, net/ipv6/ip6_fib.c), a new fn_sernum in
 *           every fib6 node. Both families in one message; PMTU exceptions survive.
 *   rules   where the kernel has no XFRM_MSG_SETDEFAULT (CONFIG_XFRM_USER off, < 5.16): per
 *           family, a policy rule "iif lo nop" added and deleted (fib_newrule() and
 *           fib_delrule() both call the family's flush_cache: rt_cache_flush() for IPv4,
 *           rt_genid_bump_ipv6() for IPv6). A NOP rule changes no lookup; it leaves the
 *           netns in custom-rules mode for good (one extra rules walk per uncached lookup).
 *
 * /proc/sys/net/ipv6/route/flush does not do this (it only runs the fib6 garbage
 * collector), and /proc/sys/net/ipv4/route/flush also drops the PMTU exceptions.
 */

/* enum route_family (ROUTE_IPV4, ROUTE_IPV6) is knob.h's: a knob row names what it reroutes. */

/* Rules rtltune adds for an instant carry this protocol (ip rule show: "proto 244"). */
#define ROUTE_RULE_PROTOCOL 244
#define ROUTE_RULE_PRIORITY 3221225472u /* far below anything an admin numbers */

/*
 * Invalidate the cached routes of families (enum route_family bits) in the caller's netns.
 * how gets what was done, for the decision log ("IPv4 and IPv6 routes invalidated
 * (XFRM_MSG_SETDEFAULT)"). Returns 0, or a negative errno with the kernel's text.
 */
int route_invalidate(unsigned int families, char *how, size_t how_len, struct rterr *err);

/*
 * Which of the two ways route_invalidate() takes in the caller's netns, asked with
 * XFRM_MSG_GETDEFAULT (which reads the policy defaults and changes nothing): ROUTE_BY_XFRM,
 * ROUTE_BY_RULES, or ROUTE_BY_UNKNOWN when the kernel would not say (asking needs
 * CAP_NET_ADMIN). how gets a sentence saying which and why.
 */
enum route_method { ROUTE_BY_XFRM, ROUTE_BY_RULES, ROUTE_BY_UNKNOWN };
int route_invalidation_method(char *how, size_t how_len);

#endif
