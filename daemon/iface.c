// SPDX-License-Identifier: GPL-2.0-only
/*
 * The interface table (iface.h): links as rtnetlink reports them, selection by
 * glob/driver/chip, each interface's snapshot, and the events the other modules follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "iface.h"
#include "log.h"
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/chipdb.h"
#include "rtltune/journal.h"
#include "rtltune/netns.h"
#include "rtltune/texts.h"

/* <linux/if.h> has it but clashes with <net/if.h>; the value is kernel ABI. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1U << 16)
#endif

#define MAX_OBSERVERS 8

static struct iface *ifaces;
static unsigned int n_ifaces;
static uint32_t sync_gen;
static int next_pod_key = IFACE_POD_KEY_BASE;
static iface_observer observers[MAX_OBSERVERS];
static unsigned int n_observers;

/* kind, operstate, driver, chip, why: one copy each for the process (text_shared()). */
#define KIND_MAX 32
#define OPERSTATE_MAX 16
#define DRIVER_MAX 32
#define CHIP_MAX 48
#define WHY_MAX 96

int iface_subscribe(iface_observer fn)
{
	if (n_observers == MAX_OBSERVERS)
		return -ENOSPC;
	observers[n_observers++] = fn;
	return 0;
}

static void tell(struct iface *ifc, enum iface_event ev, bool was_managed)
{
	struct iface_change c = {.ev = ev, .was_managed = was_managed};
	unsigned int i;

	for (i = 0; i < n_observers; i++)
		observers[i](ifc, &c);
}

void iface_reset_by_driver(struct iface *ifc)
{
	tell(ifc, IFACE_RESET, ifc->managed);
}

struct iface *iface_first(void)
{
	return ifaces;
}

unsigned int iface_count(void)
{
	return n_ifaces;
}

struct iface *iface_by_index(int ifindex)
{
	struct iface *i;

	for (i = ifaces; i; i = i->next)
		if (i->ifindex == ifindex)
			return i;
	return NULL;
}

struct iface *iface_by_dev(const struct netns *ns, int ifindex)
{
	struct iface *i;

	for (i = ifaces; i; i = i->next)
		if (i->ns == ns && i->dev_index == ifindex)
			return i;
	return NULL;
}

const char *iface_netns_name(const struct iface *ifc)
{
	return ifc->ns ? netns_name(ifc->ns) : NULL;
}

struct iface *iface_by_name(const char *name)
{
	struct iface *i;

	for (i = ifaces; i; i = i->next)
		if (strcmp(i->name, name) == 0)
			return i;
	return NULL;
}

/* Bumped whenever an interface comes or goes or its master or link changes: what
 * iface_stacked() found by walking the table holds until then (the tuner asks for every
 * managed interface at every sample: 1000 pods made it a walk of 2000 a million times). */
static uint64_t stack_gen = 1;

/* ---- the kernel's ways to an interface ----------------------------------------------- */

int iface_snapshot(struct iface *ifc, struct nic *out, struct rterr *err)
{
	if (!rtd.act)
		return rterr_sys(err, ENODEV, "%s: no actuator", ifc->name);
	return actuator_snapshot_ns(rtd.act, ifc->ns, ifc->dev_index, out, err);
}

struct link_sock *iface_link_sock(struct iface *ifc)
{
	struct rterr err;
	struct nic_io *io;

	if (!ifc->ns)
		return rtd.act ? actuator_link_sock(rtd.act) : NULL;
	io = netns_io(ifc->ns, &err);
	return io ? nic_io_links(io) : NULL;
}

int iface_read_link(struct iface *ifc, struct link_info *li, struct rtnl_link_stats64 *st,
		    bool *have_st, struct rterr *err)
{
	struct link_sock *ls;
	bool none;

	if (!have_st)
		have_st = &none;
	*have_st = false;
	if (ifc->ns)
		return link_get_fd(netns_rtnl_fd(ifc->ns), ifc->dev_index, li, st, have_st, err);
	ls = iface_link_sock(ifc);
	if (!ls)
		return rterr_sys(err, ENOTCONN, "%s: no rtnetlink socket", ifc->name);
	return st ? link_get_index_stats(ls, ifc->dev_index, li, st, have_st, err)
		  : link_get_index(ls, ifc->dev_index, li, err);
}

int iface_ident(struct iface *ifc, struct journal_ident *id, struct rterr *err)
{
	struct netns *prev;
	int r = netns_switch(ifc->ns, &prev, err);

	if (r < 0)
		return r;
	r = journal_ident_read_index(ifc->dev_index, ifc->dev, id, err);
	netns_switch(prev, NULL, NULL);
	return r;
}

/* The device sockets of ifc's namespace, with the thread in it (*prev to go back to), or
 * NULL. */
static struct nic_io *io_enter(struct netns *ns, struct netns **prev)
{
	struct rterr err;
	struct nic_io *io;

	*prev = NULL;
	if (!rtd.act)
		return NULL;
	io = ns ? netns_io(ns, &err) : actuator_io(rtd.act);
	if (!io || netns_switch(ns, prev, &err) < 0)
		return NULL;
	return io;
}

/* ---- snapshot ---------------------------------------------------------------------- */

/* Bumped whenever an interface's chip id changes (iface_chip_changes()). */
static uint64_t chip_changes;

uint64_t iface_chip_changes(void)
{
	return chip_changes;
}

/*
 * A snapshot at rest. Deflated raw (no zlib header: the length is kept beside it), at
 * level 1 with a 4 KiB window (the whole struct) and small hash tables: 20 KiB of state
 * for the process, not the 256 KiB of zlib's defaults. Runs only (Z_RLE): a snapshot is
 * mostly repeated unknown knobs and zeros (and, XORed with the first at rest, a pod's
 * veth differs from it in a few fields: 26 bytes), smaller than with string matching at
 * the same speed. libbpf links zlib already.
 */
#define SNAP_ZBITS 12
#define SNAP_ZMEM 5

static z_stream zdef, zinf;
static bool zdef_ok, zinf_ok;
static uint64_t snap_stamps;

/* Every knob unknown: what a snapshot reads before the first read, or out of memory. */
static const struct nic *snap_unknown(void)
{
	static struct nic none;
	static bool init;
	int k;

	if (!init) {
		for (k = 0; k < KNOB__COUNT; k++)
			none.val[k] = LINK_UNSET;
		init = true;
	}
	return &none;
}

/*
 * What snapshots at rest are kept against: the first one that rested, for the process's
 * life. A node's pods' snapshots differ from each other in a few fields (ifindex, name,
 * address, counters): deflated as their bytes XOR this one's they are mostly zero runs,
 * 26 bytes instead of 242. NULL until the first rest (or out of memory: kept as
 * they are).
 */
static unsigned char *snap_ref;

static void snap_xor(unsigned char *p)
{
	size_t i;

	for (i = 0; i < sizeof(struct nic); i++)
		p[i] ^= snap_ref[i];
}

static int snap_inflate(const struct iface_mgd *m, struct nic *out)
{
	int r;

	if (!zinf_ok) {
		if (inflateInit2(&zinf, -SNAP_ZBITS) != Z_OK)
			return -ENOMEM;
		zinf_ok = true;
	} else if (inflateReset(&zinf) != Z_OK) {
		return -EIO;
	}
	zinf.next_in = m->snap_z;
	zinf.avail_in = m->snap_zlen;
	zinf.next_out = (unsigned char *)out;
	zinf.avail_out = sizeof(*out);
	r = inflate(&zinf, Z_FINISH) == Z_STREAM_END && zinf.total_out == sizeof(*out) ? 0 : -EIO;
	if (r == 0)
		snap_xor((unsigned char *)out);
	return r;
}

const struct nic *iface_snap_peek(const struct iface *ifc)
{
	static struct nic cache;
	static uint64_t cached; /* the stamp of the copy in cache, 0 none */
	const struct iface_mgd *m = ifc->m;

	if (m->snap)
		return m->snap;
	if (!m->snap_z)
		return snap_unknown();
	if (cached != m->snap_stamp) {
		cached = 0;
		if (snap_inflate(m, &cache) < 0) {
			dlog(LOG_ERR, ifc->name, "its snapshot at rest could not be read back");
			return snap_unknown();
		}
		cached = m->snap_stamp;
	}
	return &cache;
}

const struct nic *iface_snap(const struct iface *ifc)
{
	struct iface_mgd *m = ifc->m;
	struct nic *nic;

	if (m->snap || !m->snap_z)
		return m->snap ? m->snap : snap_unknown();
	nic = malloc(sizeof(*nic));
	if (!nic)
		return iface_snap_peek(ifc); /* out of memory: read, still at rest */
	if (snap_inflate(m, nic) < 0) {
		free(nic);
		return iface_snap_peek(ifc); /* says why */
	}
	free(m->snap_z);
	m->snap_z = NULL;
	m->snap = nic;
	return nic;
}

/* Its snapshot deflated into m->snap_z (out of memory: kept as it is). */
static void snap_deflate(struct iface_mgd *m)
{
	static unsigned char buf[2 * sizeof(struct nic)], delta[sizeof(struct nic)];
	unsigned char *z;

	if (!snap_ref) {
		if (!(snap_ref = malloc(sizeof(struct nic))))
			return;
		memcpy(snap_ref, m->snap, sizeof(struct nic));
	}
	if (!zdef_ok) {
		if (deflateInit2(&zdef, 1, Z_DEFLATED, -SNAP_ZBITS, SNAP_ZMEM, Z_RLE) != Z_OK)
			return;
		zdef_ok = true;
	} else if (deflateReset(&zdef) != Z_OK) {
		return;
	}
	memcpy(delta, m->snap, sizeof(delta));
	snap_xor(delta);
	zdef.next_in = delta;
	zdef.avail_in = sizeof(delta);
	zdef.next_out = buf;
	zdef.avail_out = sizeof(buf);
	if (deflate(&zdef, Z_FINISH) != Z_STREAM_END || !(z = malloc(zdef.total_out)))
		return; /* kept as it is */
	memcpy(z, buf, zdef.total_out);
	m->snap_zlen = (uint32_t)zdef.total_out;
	m->snap_z = z;
	m->snap_stamp = ++snap_stamps;
	free(m->snap);
	m->snap = NULL;
}

/*
 * Whether every managed interface of pod namespace ns rests: then its device sockets
 * (rtnetlink, ethtool: 0.7 KiB and two descriptors a pod) close too, since the sampler
 * reads its interfaces over the namespace's plain rtnetlink socket (iface_read_link());
 * what acts on one (a refresh, a plan, a read-back) opens them again (netns_io()).
 */
static bool ns_at_rest(const struct netns *ns)
{
	const struct iface *y;

	for (y = ifaces; y; y = y->next)
		if (y->ns == ns && y->m && !iface_at_rest(y))
			return false;
	return true;
}

void iface_rest(struct iface *ifc)
{
	struct iface_mgd *m = ifc->m;

	if (!m)
		return;
	if (m->snap)
		snap_deflate(m);
	/* Also when it rested before, and something opened the sockets since. */
	if (!m->snap && ifc->ns && netns_io_is_open(ifc->ns) && ns_at_rest(ifc->ns))
		netns_io_close(ifc->ns);
}

void iface_update(struct iface *ifc, const struct nic *nic)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const struct chip_entry *chip = NULL;

	ifc->driver = text_shared(nic->have_drvinfo ? nic->drv.driver : "", DRIVER_MAX);
	if (rtd.chips)
		chip = chipdb_match_nic(rtd.chips, nic, NULL);
	if (strcmp(ifc->chip, chip ? chip->id : "") != 0)
		chip_changes++;
	ifc->chip = text_shared(chip ? chip->id : "", CHIP_MAX);
	memcpy(ifc->core_knob, nic->val, sizeof(ifc->core_knob));
	if (ifc->master != nic->link.master ||
	    ifc->link != (nic->link.link_netns ? 0 : nic->link.link))
		stack_gen++;
	ifc->master = nic->link.master;
	ifc->link = nic->link.link_netns ? 0 : nic->link.link;
	ifc->knob_dirty = false;
	if (ifc->m && !ifc->m->snap && !(ifc->m->snap = malloc(sizeof(*nic))))
		dlog(LOG_ERR, ifc->name, "out of memory keeping its snapshot");
	if (ifc->m && ifc->m->snap) {
		free(ifc->m->snap_z);
		ifc->m->snap_z = NULL;
		*ifc->m->snap = *nic;
		ifc->m->snap->ns = ifc->ns;
		chip_effective_limits(chip, nic, eff);
		ifc->m->gso_max = eff[CHIP_LIMIT_GSO_MAX_SIZE].value;
		ifc->m->gro_max = eff[CHIP_LIMIT_GRO_MAX_SIZE].value;
		ifc->m->mtu_max = eff[CHIP_LIMIT_MAX_MTU].value;
		ifc->m->quirks = chip ? chip->quirks : 0;
		if (ifc->m->eff) {
			memcpy(ifc->m->eff->val, nic->val, sizeof(ifc->m->eff->val));
			ifc->m->eff->gso_cap = LINK_UNSET;
			ifc->m->eff->note[0] = '\0';
		}
		if (ifc->m->stack)
			memset(ifc->m->stack, 0, sizeof(*ifc->m->stack));
		ifc->m->n_stack_links = 0;
		if (iface_stacked(ifc))
			iface_read_stack(ifc);
	}
	state_changed();
}

bool iface_stacked(const struct iface *ifc)
{
	const struct iface *y;
	struct iface *self = (struct iface *)ifc; /* the cache is no part of what it is */

	if (ifc->master || (ifc->link && stack_kind_rides_on_link(ifc->kind)))
		return true;
	if (ifc->upper_gen == stack_gen)
		return ifc->has_upper;
	self->upper_gen = stack_gen;
	self->has_upper = false;
	for (y = ifaces; y; y = y->next)
		if (y->ns == ifc->ns && (y->master == ifc->dev_index ||
					 (y->link == ifc->dev_index && stack_kind_rides_on_link(y->kind)))) {
			self->has_upper = true;
			break;
		}
	return ifc->has_upper;
}

/* The table's neighbours of x in a stack: its master, what rides on it, its ports, the
 * device it rides on. */
static void mgd_free(struct iface_mgd *m)
{
	if (m) {
		stat_free(&m->stats);
		free(m->snap);
		free(m->snap_z);
		free(m->counts);
		free(m->stack);
		free(m->stack_links);
		free(m->eff);
		free(m->want);
		free(m->apply.profile);
		free(m->apply.msg);
		free(m->reroute_note);
		free(m->tune.paused_by);
	}
	free(m);
}

/* A stack is within one namespace: its links are ifindexes there. */
static bool neighbour(const struct iface *x, const struct iface *y)
{
	return y != x && y->ns == x->ns &&
	       (x->master == y->dev_index || y->master == x->dev_index ||
		(y->link == x->dev_index && stack_kind_rides_on_link(y->kind)) ||
		(x->link == y->dev_index && stack_kind_rides_on_link(x->kind)));
}

void iface_read_stack(struct iface *ifc)
{
	struct iface_mgd *m = ifc->m;
	const struct iface *seen[IFACE_STACK_LINKS], *y;
	const struct nic *sn;
	int n = 0, next, i;
	unsigned int u;

	if (!m || !rtd.act)
		return;
	if (!m->stack && !(m->stack = calloc(1, sizeof(*m->stack))))
		return; /* out of memory: read as a bare device */
	if (!m->stack_links) {
		m->stack_links = calloc(IFACE_STACK_LINKS, sizeof(*m->stack_links));
		if (!m->stack_links)
			return;
	}
	if (!m->eff && !(m->eff = malloc(sizeof(*m->eff))))
		return;
	/* The devices within reach of ifc (breadth first, bounded), each read by ifindex. */
	seen[n++] = ifc;
	for (next = 0; next < n; next++)
		for (y = ifaces; y && n < (int)(sizeof(seen) / sizeof(seen[0])); y = y->next) {
			for (i = 0; i < n && seen[i] != y; i++)
				;
			if (i == n && neighbour(seen[next], y))
				seen[n++] = y;
		}
	m->n_stack_links = 0;
	for (i = 0; i < n; i++) {
		struct link_sock *ls = iface_link_sock(ifc);
		struct rterr err;

		if (ls && link_get_index(ls, seen[i]->dev_index, &m->stack_links[m->n_stack_links],
					 &err) == 0)
			m->n_stack_links++;
	}
	stack_build(m->stack_links, m->n_stack_links, ifc->dev_index, m->stack);
	sn = iface_snap(ifc);
	for (i = 0; i < KNOB__COUNT; i++)
		m->eff->val[i] = knob_desc((enum knob_id)i)->flags & KNOB_F_STACK
					 ? stack_effective(&sn->link, m->stack, (enum knob_id)i)
					 : iface_knob(ifc, i);
	m->eff->val[KNOB_GRO_MAX_SIZE] = stack_effective_gro(&sn->link, m->stack);
	/* How far the uppers let a raise go, and which device stops it. */
	m->eff->gso_cap = LINK_UNSET;
	m->eff->note[0] = '\0';
	for (u = 0; u < m->stack->n_uppers; u++) {
		const struct stack_dev *d = &m->stack->uppers[u];
		char why[128];
		int64_t cap = stack_upper_cap(m->stack_links, m->n_stack_links, &d->li, d->below,
					      KNOB_GSO_MAX_SIZE, why, sizeof(why));

		if (cap == LINK_UNSET ||
		    (m->eff->gso_cap != LINK_UNSET && cap >= m->eff->gso_cap))
			continue;
		m->eff->gso_cap = cap;
		snprintf(m->eff->note, sizeof(m->eff->note), "%s (upper of %s) caps at %lld: %s",
			 d->li.ifname, ifc->name, (long long)cap,
			 why[0] ? why : "its own tso_max_size");
	}
}

void iface_upper_of(const struct iface *ifc, char *buf, size_t len)
{
	const struct iface *y;
	size_t used = 0;
	unsigned int u;

	buf[0] = '\0';
	for (y = ifaces; y; y = y->next)
		for (u = 0; y->m && y->ns == ifc->ns && u < iface_stack(y)->n_uppers; u++)
			if (iface_stack(y)->uppers[u].li.ifindex == ifc->dev_index) {
				used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
							 "%s%s", used ? "," : "", y->name);
				break;
			}
}

void iface_refresh(struct iface *ifc)
{
	struct rterr err;
	struct nic nic;

	if (!rtd.act || iface_snapshot(ifc, &nic, &err) < 0)
		return; /* gone meanwhile: the DELLINK event removes it */
	iface_update(ifc, &nic);
}

static struct iface_counts *counts_of(struct iface *ifc, unsigned int k)
{
	if (!ifc->m || k >= KNOB__COUNT)
		return NULL;
	if (!ifc->m->counts)
		ifc->m->counts = calloc(1, sizeof(*ifc->m->counts));
	return ifc->m->counts;
}

void iface_count_decision(struct iface *ifc, enum knob_id k, enum decision_outcome o)
{
	struct iface_counts *c = (unsigned int)o < OUTCOME__COUNT ? counts_of(ifc, k) : NULL;

	if (!c)
		return;
	c->decisions[k][o]++;
	state_changed();
}

void iface_count_external(struct iface *ifc, enum knob_id k)
{
	struct iface_counts *c = counts_of(ifc, k);

	if (c)
		c->external[k]++;
}

/* ---- selection --------------------------------------------------------------------- */

/* The config's globs, drivers and chips (lib/control/config.c, shared with rtltune doctor). */
static bool select_iface(struct iface *ifc)
{
	struct config_link l = {.name = ifc->dev,
				.netns = iface_netns_name(ifc),
				.flags = ifc->flags,
				.kind = ifc->kind,
				.driver = ifc->driver,
				.chip = ifc->chip};

	char why[WHY_MAX];
	bool sel = config_selects(&rtd.cfg, &l, why, sizeof(why));

	ifc->why = text_shared(why, sizeof(why));
	return sel;
}

/*
 * Select ifc again and tell the observers. Becoming managed allocates its managed part
 * (and reads it, so the tuner has limits); ceasing frees it after the observers let go.
 */
static void reselect(struct iface *ifc)
{
	bool was = ifc->managed, now = select_iface(ifc);

	if (now && !ifc->m) {
		ifc->m = calloc(1, sizeof(*ifc->m));
		if (!ifc->m) {
			dlog(LOG_ERR, ifc->name, "out of memory managing the interface");
			ifc->why = text_shared("out of memory", WHY_MAX);
			now = false;
		}
	}
	ifc->managed = now;
	if (now && !was)
		iface_refresh(ifc);
	if (now != was)
		state_changed();
	tell(ifc, IFACE_SELECTED, was);
	if (!now && ifc->m) {
		mgd_free(ifc->m);
		ifc->m = NULL;
	}
}

void iface_reselect_all(bool reload)
{
	struct iface *ifc;

	for (ifc = ifaces; ifc; ifc = ifc->next) {
		bool was = ifc->managed;

		reselect(ifc);
		if (ifc->managed != was)
			dlog(LOG_INFO, ifc->name, "%s", ifc->managed ? "now managed" : ifc->why);
		if (reload && ifc->managed)
			tell(ifc, IFACE_RELOADED, was);
	}
}

void iface_set_autotune(struct iface *ifc, bool on)
{
	if (ifc->autotune == on)
		return;
	ifc->autotune = on;
	state_changed();
	tell(ifc, IFACE_AUTOTUNE, ifc->managed);
}

/* ---- lifecycle --------------------------------------------------------------------- */

/* A device joined or left a stack: the managed interfaces next to it read theirs again
 * (those stacked now, and those that were: theirs empties). A bare device reads none: its
 * stack would be 5.7 KiB of nothing, on each of a node's thousand pods. */
static void restack_neighbours(struct iface *ifc)
{
	struct iface *y;

	for (y = ifaces; y; y = y->next)
		if (y->m && (y == ifc || neighbour(ifc, y) || neighbour(y, ifc)) &&
		    (y->m->stack || iface_stacked(y)))
			iface_read_stack(y);
}

/* ifc->name: the device's name, NETNS/ before it for a pod's; ifc->dev its end. -ENOMEM
 * leaves the name as it was. */
static int set_name(struct iface *ifc, const char *dev)
{
	const char *ns = ifc->ns ? netns_name(ifc->ns) : NULL;
	size_t dl = strnlen(dev, IF_NAMESIZE - 1);
	size_t pl = ns ? strnlen(ns, IFACE_NAME_MAX - IF_NAMESIZE - 1) + 1 : 0;
	char *n = realloc(ifc->name, pl + dl + 1);

	if (!n)
		return -ENOMEM;
	if (pl) {
		memcpy(n, ns, pl - 1);
		n[pl - 1] = '/';
	}
	memcpy(n + pl, dev, dl);
	n[pl + dl] = '\0';
	ifc->name = n;
	ifc->dev = n + pl;
	return 0;
}

static struct iface *link_new(struct netns *ns, const struct link_info *li)
{
	struct iface *ifc = calloc(1, sizeof(*ifc));
	struct netns *prev;
	struct nic_io *io;
	struct nic nic;
	int k;

	if (!ifc) {
		dlog(LOG_ERR, li->ifname, "out of memory tracking a new interface");
		return NULL;
	}
	ifc->driver = ifc->chip = ifc->why = "";
	ifc->ns = ns;
	ifc->dev_index = li->ifindex;
	if (set_name(ifc, li->ifname) < 0) {
		dlog(LOG_ERR, li->ifname, "out of memory tracking a new interface");
		free(ifc);
		return NULL;
	}
	ifc->ifindex = ns ? next_pod_key++ : li->ifindex;
	ifc->kind = text_shared(li->kind, KIND_MAX);
	ifc->master = li->master;
	ifc->link = li->link_netns ? 0 : li->link;
	stack_gen++;
	ifc->flags = li->flags;
	ifc->lower_up = li->flags & IFF_LOWER_UP;
	ifc->operstate = text_shared(li->operstate[0] ? li->operstate : "unknown", OPERSTATE_MAX);
	ifc->first_seen_us = now_us();
	ifc->autotune = rtd.cfg.autotune;
	ifc->seen_gen = sync_gen;
	for (k = 0; k < KNOB_FIRST_ETHNL; k++)
		ifc->core_knob[k] = LINK_UNSET;
	ifc->next = ifaces;
	ifaces = ifc;
	n_ifaces++;
	/* Identity (driver, chip) decides selection: read it (not the ethtool groups nor the
	 * NAPI and queue settings, which only a managed interface needs: a host of 1000
	 * unmanaged veths stays cheap). A pod's is read in its namespace. */
	io = io_enter(ns, &prev);
	if (io) {
		nic_io_read_groups(io, 0);
		nic_from_link(io, li, &nic);
		nic_io_read_groups(io, NIC_GROUPS_ALL);
	} else {
		nic_from_link_only(li, &nic);
	}
	nic.ns = ns;
	iface_update(ifc, &nic);
	ifc->managed = io && select_iface(ifc);
	if (!io)
		ifc->why = text_shared("its namespace could not be entered", WHY_MAX);
	if (ifc->managed) {
		ifc->m = calloc(1, sizeof(*ifc->m));
		if (!ifc->m) {
			ifc->managed = false;
			ifc->why = text_shared("out of memory", WHY_MAX);
		} else {
			for (k = 0; k < ETHNL_GROUP_COUNT; k++)
				nic_read_group(io, (enum ethnl_group)k, &nic);
			nic_read_around(io, &nic);
			iface_update(ifc, &nic);
		}
	}
	if (io)
		netns_switch(prev, NULL, NULL);
	/* It starts at rest (what acts on it brings it back). A node's pods come in
	 * bursts, and what one lets go here the next one takes. */
	iface_rest(ifc);
	restack_neighbours(ifc);
	dlog(LOG_INFO, ifc->name, "new interface (ifindex %d%s%s%s%s), %s", ifc->dev_index,
	     ifc->kind[0] ? ", " : "", ifc->kind, ifc->driver[0] ? ", driver " : "", ifc->driver,
	     ifc->managed ? "managed" : ifc->why);
	tell(ifc, IFACE_NEW, false);
	return ifc;
}

static void link_renamed(struct iface *ifc, const char *name)
{
	bool was = ifc->managed;
	char old[IFACE_NAME_MAX];

	snprintf(old, sizeof(old), "%s", ifc->name);
	if (set_name(ifc, name) < 0) {
		dlog(LOG_ERR, ifc->name, "out of memory: renamed to %s, still named by its old name",
		     name);
		return;
	}
	dlog(LOG_INFO, ifc->name, "renamed from %s", old);
	state_changed();
	tell(ifc, IFACE_RENAMED, was);
	reselect(ifc);
	if (was && !ifc->managed)
		dlog(LOG_INFO, ifc->name, "no longer managed: %s (settings left as they are)",
		     ifc->why);
}

static void carrier(struct iface *ifc, bool lower_up)
{
	uint64_t now = now_us();

	ifc->carrier_changes++;
	/* Two transitions within 10 s read as flapping: say so, once per burst. */
	if (ifc->carrier_changes > 1 && now - ifc->last_carrier_us < 10000000)
		dlog(LOG_NOTICE, ifc->name, "link flapping: carrier %s (%u changes)",
		     lower_up ? "up" : "down", ifc->carrier_changes);
	else
		dlog(LOG_INFO, ifc->name, "carrier %s", lower_up ? "up" : "down");
	ifc->last_carrier_us = now;
	ifc->lower_up = lower_up;
}

static void link_seen(struct netns *ns, const struct link_info *li, bool event,
		      const struct link_counters *st)
{
	struct iface *ifc = iface_by_dev(ns, li->ifindex);
	const char *operstate = li->operstate[0] ? li->operstate : "unknown";

	if (!ifc) {
		ifc = link_new(ns, li);
		if (!ifc)
			return;
	} else {
		if (li->ifname[0] && strcmp(li->ifname, ifc->dev) != 0)
			link_renamed(ifc, li->ifname);
		if ((bool)(li->flags & IFF_LOWER_UP) != ifc->lower_up)
			carrier(ifc, li->flags & IFF_LOWER_UP);
		if (strcmp(ifc->operstate, operstate) != 0) {
			ifc->operstate = text_shared(operstate, OPERSTATE_MAX);
			state_changed();
		}
		ifc->flags = li->flags;
		/* A port enslaved or released: its stack changed, read it again. */
		if (li->master != ifc->master) {
			int was = ifc->master;

			ifc->master = li->master;
			stack_gen++;
			ifc->knob_dirty = true;
			restack_neighbours(ifc);
			/* The upper it left has one lower fewer. */
			if (was && iface_by_dev(ns, was))
				restack_neighbours(iface_by_dev(ns, was));
		}
		/* Only a notification can mean a knob changed (set by us, ip, ethtool, the
		 * driver: a feature change is announced with RTM_NEWLINK too). Dump replies
		 * must not trigger a re-read of every interface every sample. */
		if (event)
			ifc->knob_dirty = true;
	}
	ifc->seen_gen = sync_gen;
	if (st && ifc->m) {
		ifc->m->link = *st;
		ifc->m->have_link = true;
	}
}

void iface_link_seen(const struct link_info *li, bool event, const struct link_counters *st)
{
	link_seen(NULL, li, event, st);
}

void iface_pod_seen(struct netns *ns, const struct link_info *li, bool event,
		    const struct link_counters *st)
{
	link_seen(ns, li, event, st);
}

static void iface_free(struct iface *ifc)
{
	struct iface **pp;

	tell(ifc, IFACE_GONE, ifc->managed);
	for (pp = &ifaces; *pp; pp = &(*pp)->next) {
		if (*pp == ifc) {
			*pp = ifc->next;
			n_ifaces--;
			break;
		}
	}
	mgd_free(ifc->m);
	free(ifc->name);
	free(ifc);
	stack_gen++;
	state_changed();
}

static void link_removed(struct netns *ns, int ifindex, const char *how)
{
	struct iface *ifc = iface_by_dev(ns, ifindex);

	if (!ifc)
		return;
	dlog(LOG_INFO, ifc->name, "interface %s (ifindex %d)", how, ifc->dev_index);
	iface_free(ifc);
}

void iface_link_removed(int ifindex, const char *how)
{
	link_removed(NULL, ifindex, how);
}

void iface_pod_removed(struct netns *ns, int ifindex, const char *how)
{
	link_removed(ns, ifindex, how);
}

unsigned int iface_netns_gone(struct netns *ns)
{
	struct iface *ifc, *next;
	unsigned int n = 0;

	for (ifc = ifaces; ifc; ifc = next) {
		next = ifc->next;
		if (ifc->ns != ns)
			continue;
		ifc->ns_gone = true;
		iface_free(ifc);
		n++;
	}
	return n;
}

void iface_sync_begin(void)
{
	sync_gen++;
}

void iface_sync_end(void)
{
	struct iface *ifc, *next;

	/* A dump is of the daemon's own namespace: pods' interfaces are pods.c's. */
	for (ifc = ifaces; ifc; ifc = next) {
		next = ifc->next;
		if (!ifc->ns && ifc->seen_gen != sync_gen)
			iface_link_removed(ifc->dev_index, "vanished (missed event)");
	}
}

void iface_remove_all(void)
{
	while (ifaces)
		iface_free(ifaces);
}
