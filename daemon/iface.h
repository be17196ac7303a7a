/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_IFACE_H
#define RTLTUNED_IFACE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/knob.h"
#include "rtltune/nic.h"
#include "rtltune/sample.h"
#include "rtltune/stack.h"
#include "state.h"
#include "stats.h"

/*
 * The interface table: one owner (iface.c) of every interface of the daemon's network
 * namespace (and, with `namespaces =`, of the pods' interfaces its veths lead to:
 * docs/namespaces.md) and of its lifecycle (appear, rename, selection, gone, resynchronisation).
 * The link monitor reports what rtnetlink says; the modules that keep something per
 * interface (probes, applier, tuner, sampler) subscribe to the table's events instead of
 * being called from wherever a change is noticed. Each part of an interface has one
 * writer, named beside it.
 */

/* applier.c: the last profile application and the next one due. */
struct iface_apply {
	char *profile; /* allocated at the first apply; NULL before */
	int rc;	       /* 0 ok, negative errno */
	char *msg;     /* the error (rc < 0); NULL none */
	double applied_at; /* realtime, 0 never */
	unsigned int changes;
	bool pending;
	uint64_t due_us; /* monotonic */
};

/* tune.c: what the tuner's samples are computed from (the previous sample's totals, prev). */
struct iface_tune {
	bool tuned; /* added to the tuner */
	bool prev_valid;
	uint64_t prev_us;
	struct sample_reading *prev; /* allocated while it has a base (tune.c: prev_drop()) */
	/* Retransmitted segments through the interface since the tuner took it, and those of
	 * them that DSACKs showed spurious and the tuner left out (tcpstat_lossy()). */
	uint64_t retrans_segs, retrans_spurious;
	/* tune_pause(): holders of a pause (an `rtltune sweep` each) and the first's reason
	 * (allocated while paused; NULL out of memory); while any holds it, the tuner starts
	 * no trial here. */
	unsigned int paused;
	char *paused_by;
	bool recover; /* the last pause went: roll back what its client left in flight */
	/* The sampler skipped samples of an idle interface before this one (sampler.c): its
	 * deltas span them; counted, not fed to the tuner. */
	bool gap;
	/* The driver's qstats rx-hw-drop-overruns at the last sample (for ring-overruns),
	 * while the driver reports it. */
	uint64_t overruns_prev;
	bool overruns_valid;
};

struct history;
struct iface_signals;

/* Per-knob counts of a managed interface, allocated at its first count (most interfaces
 * never have one): rtltune_tuning_decisions_total (iface_count_decision(); 32 bits: a
 * decision a second for 136 years) and, by outside.c, how often someone else changed
 * each knob (rtltune_knob_external_changes_total). */
struct iface_counts {
	uint32_t decisions[KNOB__COUNT][OUTCOME__COUNT];
	uint64_t external[KNOB__COUNT];
};

/* applier.c: the configured profile's values (1.1 KiB a profile that sets nothing, or no
 * profile, does not need). */
struct iface_want {
	bool wanted[KNOB__COUNT];
	int64_t want[KNOB__COUNT];
};

/* The devices read around a stacked interface: itself, its uppers and its lowers. */
#define IFACE_STACK_LINKS (2 * STACK_MAX + 1)

/* What a stacked interface's traffic gets (iface.c, read with its stack): per knob the
 * smallest value on the path, and how far the uppers let gso_max_size go, with the device
 * that stops it. 1.2 KiB that a bare device (a pod's eth0) does not carry: it gets its
 * own values (iface_eff()). */
struct iface_eff {
	int64_t val[KNOB__COUNT];
	int64_t gso_cap; /* LINK_UNSET: no upper stops a raise */
	char note[192];
};

/* What only a managed interface has, allocated while it is managed. */
struct iface_mgd {
	/* iface.c: the last snapshot (a refresh, or an actuation's read-back), read by
	 * iface_snap(); snap->val: the knobs' values as last read (LINK_UNSET unknown). At
	 * rest (iface_rest()) it is kept deflated in snap_z instead (snap NULL): a veth's
	 * 2 KiB are mostly unknown knobs and zeros, under 300 bytes deflated. snap_stamp
	 * names that deflated copy (iface_snap_peek()'s cache). */
	struct nic *snap;
	unsigned char *snap_z;
	uint32_t snap_zlen;
	uint64_t snap_stamp;
	/* iface.c: the limits the tuner may use (kernel cut by the chip database) with the
	 * chip's quirks. */
	int64_t gso_max, gro_max, mtu_max;
	uint32_t quirks;
	/* iface.c: the device stack around it (docs/stack.md), read with the snapshot; what
	 * local traffic gets of each stacked size (the smallest on the path), and how far the
	 * uppers can go (gso_max_size), with the device that stops them. */
	struct nic_stack *stack;       /* allocated once it is stacked: iface_stack() reads it */
	struct link_info *stack_links; /* IFACE_STACK_LINKS, allocated with stack */
	int n_stack_links;
	struct iface_eff *eff; /* allocated with stack: iface_eff() reads it */
	/* tune_act.c: why the last change did not reach established connections (the route
	 * invalidation failed), NULL when it did; the tuner's verdict names it. */
	char *reroute_note;
	/* iface.c, from the link dump: rtnetlink's counters (the fallback without BPF). */
	struct link_counters link;
	bool have_link;
	struct iface_counts *counts; /* NULL until the first count */
	/* outside.c: knobs someone else changed (left alone), a bit each: iface_manual(). */
	uint64_t manual[(KNOB__COUNT + 63) / 64];
	/* applier.c: what the configured profile sets each knob to (where wanted[]), for
	 * rtltune_knob_drift; allocated when it sets one (NULL: none). */
	struct iface_want *want;
	struct iface_stats stats;      /* sampler.c */
	struct iface_apply apply;      /* applier.c */
	struct iface_tune tune;	       /* tune.c */
	struct history *history;       /* history.c: recent samples for `rtltune report` */
	struct iface_signals *signals; /* signals.c: queue stats, NAPI threads */
};

/* NETNS/IFACE: a pod's interface as every output names it. */
#define IFACE_NAME_MAX (64 + IF_NAMESIZE)
/* The table's keys of pods' interfaces (struct iface.ifindex) start here: their own
 * ifindexes are another namespace's and repeat the daemon's. */
#define IFACE_POD_KEY_BASE 0x40000000

struct iface {
	struct iface *next;
	/* iface.c, from rtnetlink and the interface's snapshot (small fields together: a node
	 * has an entry per pod's veth): */
	int ifindex; /* the table's key: its ifindex, or for a pod's interface one from
		      * IFACE_POD_KEY_BASE up (never a device's here: a mistaken use by ifindex
		      * finds none) */
	int dev_index; /* the device's ifindex in its namespace (what the kernel knows it by) */
	/* As outputs name it: dev, or NETNS/dev (allocated, under IFACE_NAME_MAX). */
	char *name;
	/* The network namespace it is in (netns.h; NULL: the daemon's own), and the device's
	 * name there (the end of name). */
	struct netns *ns;
	const char *dev;
	/* kind, operstate, driver, chip, why: texts many interfaces share, one copy each for
	 * the process (text_shared()), never NULL. */
	const char *kind; /* IFLA_INFO_KIND; "" for hardware */
	const char *operstate;
	const char *driver; /* ethtool -i; "" unknown */
	const char *chip;   /* chip database id; "" none */
	int master;	    /* IFLA_MASTER: the bridge/bond/netvsc it is a port of, 0 none */
	int link;	    /* IFLA_LINK in this netns (a vlan's or macvlan's lower), 0 none */
	unsigned int flags;
	unsigned int carrier_changes;
	uint64_t last_carrier_us;
	uint64_t first_seen_us;
	uint32_t seen_gen; /* resynchronisation that last listed it */
	bool ns_gone;	   /* its namespace was deleted: its records end with it (iface_netns_gone) */
	bool lower_up;
	bool knob_dirty; /* a notification: re-read and compare at the next sample */
	/* iface_stacked()'s cache: whether another interface has it as its master or rides
	 * on it, as of the table's stack generation upper_gen. */
	bool has_upper;
	uint64_t upper_gen;
	/* The rtnetlink knobs as last read; a managed interface has every knob in its snapshot
	 * (iface_knob() reads either): an unmanaged one costs a few hundred bytes. */
	int64_t core_knob[KNOB_FIRST_ETHNL];
	/* iface.c: selection (config interfaces/exclude/drivers/chips) and why; autotune by
	 * iface_set_autotune(). */
	const char *why;
	bool managed;
	bool autotune;
	struct iface_mgd *m; /* NULL while not managed */
};

/*
 * A managed interface's last snapshot. iface_snap() brings one at rest back to stay (what
 * plans, the tuner's environment and the stack are made from); iface_snap_peek() only
 * reads it (outputs: a scrape of 1000 pods at rest inflates each once, into a one-entry
 * cache valid until the next call). Neither fails: out of memory, or before the first
 * read, every knob is unknown.
 */
const struct nic *iface_snap(const struct iface *ifc);
const struct nic *iface_snap_peek(const struct iface *ifc);
/* An idle managed interface (sampler.c): its snapshot kept deflated until read again. */
void iface_rest(struct iface *ifc);
static inline bool iface_at_rest(const struct iface *ifc)
{
	return ifc->m && !ifc->m->snap && ifc->m->snap_z;
}

/* A knob's value as last read: LINK_UNSET when unknown (the ethtool groups and features
 * of an interface that is not managed are not read). The rtnetlink knobs are the same in
 * core_knob and in the snapshot (iface_update() writes both). */
static inline int64_t iface_knob(const struct iface *ifc, int k)
{
	if (k < KNOB_FIRST_ETHNL)
		return ifc->core_knob[k];
	return ifc->m ? iface_snap_peek(ifc)->val[k] : LINK_UNSET;
}

/* Whether someone else changed knob k of managed ifc (outside.c): left alone. */
static inline bool iface_manual(const struct iface *ifc, int k)
{
	return ifc->m->manual[k / 64] >> (k % 64) & 1;
}

static inline void iface_set_manual(struct iface *ifc, int k, bool on)
{
	if (on)
		ifc->m->manual[k / 64] |= 1ull << (k % 64);
	else
		ifc->m->manual[k / 64] &= ~(1ull << (k % 64));
}

/* What local traffic through a managed ifc gets of knob k: the smallest value on its
 * stack as last read, its own on a bare device. */
static inline int64_t iface_eff(const struct iface *ifc, enum knob_id k)
{
	return ifc->m->eff ? ifc->m->eff->val[k] : iface_knob(ifc, k);
}

/* How far its uppers let a gso_max_size raise go (LINK_UNSET: no limit), and why. */
static inline int64_t iface_stack_gso_cap(const struct iface *ifc)
{
	return ifc->m->eff ? ifc->m->eff->gso_cap : LINK_UNSET;
}

static inline const char *iface_stack_note(const struct iface *ifc)
{
	return ifc->m->eff ? ifc->m->eff->note : "";
}

/* Its device stack as last read: an empty one for a bare device (nothing allocated). */
static inline const struct nic_stack *iface_stack(const struct iface *ifc)
{
	static const struct nic_stack none;

	return ifc->m && ifc->m->stack ? ifc->m->stack : &none;
}

/* What happened to an interface; observers get it after the table is updated. */
enum iface_event {
	IFACE_NEW,	/* appeared: identity read, selection made */
	IFACE_RENAMED,	/* ifc->name is the new name */
	IFACE_SELECTED, /* selection re-evaluated; was_managed says what it was */
	IFACE_RELOADED, /* the configuration was reloaded: apply the profile again */
	IFACE_AUTOTUNE, /* autotune switched */
	IFACE_RESET,	/* the driver reset settings rtltuned made (outside.c): apply again */
	IFACE_GONE,	/* removed from the netns; freed after the observers ran */
};

struct iface_change {
	enum iface_event ev;
	bool was_managed;
};

typedef void (*iface_observer)(struct iface *ifc, const struct iface_change *c);
/* Observers run in subscription order (main.c subscribes them at start). */
int iface_subscribe(iface_observer fn);

/* The table, in arrival order. */
struct iface *iface_first(void);
unsigned int iface_count(void);
struct iface *iface_by_index(int ifindex);
/* The interface that is device ifindex of namespace ns (NULL: the daemon's own). */
struct iface *iface_by_dev(const struct netns *ns, int ifindex);
/* The namespace's name of a pod's interface, NULL for the daemon's own. */
const char *iface_netns_name(const struct iface *ifc);
struct iface *iface_by_name(const char *name);

/*
 * The link monitor's reports. iface_link_seen(): a link listed by a dump or announced by
 * an event (only an event can mean a knob changed); counters when the message had them.
 * A resynchronisation brackets a full dump: a link not seen in it is gone.
 */
void iface_link_seen(const struct link_info *li, bool event, const struct link_counters *st);
void iface_link_removed(int ifindex, const char *how);
void iface_sync_begin(void);
void iface_sync_end(void);
/*
 * The same for a pod's interface, device li->ifindex of namespace ns (docs/namespaces.md):
 * reported by daemon/pods.c, which holds ns open while the interface is in the table.
 */
void iface_pod_seen(struct netns *ns, const struct link_info *li, bool event,
		    const struct link_counters *st);
void iface_pod_removed(struct netns *ns, int ifindex, const char *how);
/* Namespace ns was deleted: every interface of it dropped (IFACE_GONE with ns_gone set);
 * how many. */
unsigned int iface_netns_gone(struct netns *ns);

/*
 * The kernel's ways to an interface, in its namespace: a snapshot (by its ifindex there),
 * its rtnetlink socket, its journal identity. Every read and write of a device goes by these
 * (or by plans from the snapshot, which carry its namespace to the actuator).
 */
int iface_snapshot(struct iface *ifc, struct nic *out, struct rterr *err);
struct link_sock *iface_link_sock(struct iface *ifc);
/* Its link now (a targeted RTM_GETLINK), with the counters when st is given: a pod's over
 * its namespace's plain rtnetlink socket (netns_rtnl_fd()), its device sockets left
 * closed. */
struct rtnl_link_stats64;
int iface_read_link(struct iface *ifc, struct link_info *li, struct rtnl_link_stats64 *st,
		    bool *have_st, struct rterr *err);
struct journal_ident;
int iface_ident(struct iface *ifc, struct journal_ident *id, struct rterr *err);

/* After a reload: selection again, and every managed interface gets the profile again. */
void iface_reselect_all(bool reload);
void iface_set_autotune(struct iface *ifc, bool on);

/* The driver put back settings of its own (chip quirk coalesce-reset-by-driver): the
 * observers hear IFACE_RESET. */
void iface_reset_by_driver(struct iface *ifc);

/* Read the interface now (by ifindex); a snapshot taken elsewhere (a read-back) instead. */
void iface_refresh(struct iface *ifc);
void iface_update(struct iface *ifc, const struct nic *nic);
/* How many times iface_update() changed an interface's chip id so far (PM QoS follows the
 * chips without walking the table every sample). */
uint64_t iface_chip_changes(void);
/* Whether ifc is part of a device stack (an upper or a lower, as the table knows it). */
bool iface_stacked(const struct iface *ifc);
/* Read the links of ifc's stack now (by ifindex) into its managed part and recompute the
 * stack and the effective sizes. */
void iface_read_stack(struct iface *ifc);
/* The managed interfaces ifc (an unmanaged upper) carries the traffic of: their names,
 * comma-separated, into buf ("" when none). */
void iface_upper_of(const struct iface *ifc, char *buf, size_t len);
/* Count a decision about knob k / a change someone else made to it (out of memory: not
 * counted). */
void iface_count_decision(struct iface *ifc, enum knob_id k, enum decision_outcome o);
void iface_count_external(struct iface *ifc, enum knob_id k);
/* The counts as they are (0 before the first). */
static inline uint32_t iface_decisions(const struct iface *ifc, int k, int o)
{
	return ifc->m && ifc->m->counts ? ifc->m->counts->decisions[k][o] : 0;
}
static inline uint64_t iface_external(const struct iface *ifc, int k)
{
	return ifc->m && ifc->m->counts ? ifc->m->counts->external[k] : 0;
}

/* At exit: every interface dropped, observers told they are gone. */
void iface_remove_all(void);

#endif
