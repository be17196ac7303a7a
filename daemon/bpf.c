// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF probes as the daemon runs them: opened once at start, one slot per managed
 * interface, read by the sampler. Without BPF (no BTF, no privilege, no tracepoint) the
 * daemon keeps running on rtnetlink link counters and says which probe is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "log.h"
#include "rtltune/netns.h"
#include "state.h"

static struct probes *probes;
static char error_text[512];
static struct probe_cost costs[PROBE_COUNT];

/*
 * The interface counted in each slot (probes_select()), NULL for a free one: the table's
 * record, not an ifindex, since a pod's eth0 has ifindex 2 in its namespace as some
 * device of the node has in the daemon's (the filter keys a slot by the namespace's
 * inode and the ifindex: docs/namespaces.md "The probes in pods"). A record leaves its
 * slot at IFACE_GONE, before the table frees it.
 */
#define N_SLOTS (PROBES_DEFAULT_MAX_IFACES + 1) /* bpf_start()'s max_ifaces, and the host */
static struct iface *slot_iface[N_SLOTS];

/*
 * Managed interfaces that found every slot in use, in the order they came: counted by
 * their link counters meanwhile (the sampler falls back for any interface the probes did
 * not fill), each given the next slot that frees. full: the exhaustion was logged.
 */
static struct iface **waiting;
static unsigned int n_waiting, cap_waiting;
static bool full;
static unsigned int max_slots; /* the maps' interface slots (bpf_start()) */

bool bpf_active(void)
{
	return probes != NULL;
}

const char *bpf_error(void)
{
	return error_text;
}

void bpf_start(void)
{
	/* PROBES_DAEMON_OFF: napi_poll's counts are rtltune trace's alone, and its program
	 * would run on every NAPI poll of the host (on veth's netif_rx path, once per skb: 0.3%
	 * of the busy CPU on the TSO path, docs/probes.md "Cost"). */
	struct probes_opts opts = {.max_ifaces = PROBES_DEFAULT_MAX_IFACES,
				   .run_stats = true,
				   .off = PROBES_DAEMON_OFF};
	struct rterr err = {0};
	unsigned int i, off = 0;
	const char *slots = getenv("RTLTUNE_PROBE_SLOTS");

	/* Test hook: fewer slots, so that running out of them can be tested with a few
	 * interfaces (never more than the table above holds). */
	if (slots && atoi(slots) > 0 && atoi(slots) < PROBES_DEFAULT_MAX_IFACES)
		opts.max_ifaces = (unsigned int)atoi(slots);
	max_slots = opts.max_ifaces;

	/* probes = off: not one BPF program or map, so the host's traffic in every namespace
	 * runs no program of ours (docs/probes.md "Cost"). */
	if (!rtd.cfg.probes) {
		snprintf(error_text, sizeof(error_text), "off: probes = off in %s",
			 rtd.cfg.path[0] ? rtd.cfg.path : "the config");
		dlog(LOG_INFO, NULL,
		     "BPF probes off (probes = off): counting with link counters from rtnetlink, "
		     "no histograms");
		return;
	}
	if (probes_open(&probes, &opts, &err) < 0) {
		/* BPF_ENABLE_STATS needs CAP_SYS_ADMIN, which the unit does not grant: count
		 * without the probes' run-time cost rather than not at all. */
		struct rterr stats_err = err;

		opts.run_stats = false;
		rterr_clear(&err);
		if (probes_open(&probes, &opts, &err) == 0) {
			dlog(LOG_NOTICE, NULL,
			     "probe run-time stats off (%s); sysctl kernel.bpf_stats_enabled=1 "
			     "turns them on",
			     stats_err.msg);
			goto opened;
		}
		snprintf(error_text, sizeof(error_text), "%s", err.msg);
		dlog(LOG_WARNING, NULL,
		     "BPF probes unavailable (%s): counting with link counters "
		     "from rtnetlink, no histograms",
		     err.msg);
		probes = NULL;
		return;
	}
opened:
	error_text[0] = '\0';
	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_status *st = probes_status(probes, (enum probe_id)i);

		if (st->state == PROBE_MISSING)
			dlog(LOG_WARNING, NULL, "probe %s missing: %s", st->name, st->reason);
		off += st->state == PROBE_OFF;
	}
	dlog(LOG_INFO, NULL, "BPF probes attached: %u of %u (%u off)", probes_attached(probes),
	     (unsigned int)PROBE_COUNT - off, off);
}

void bpf_stop(void)
{
	probes_close(probes);
	probes = NULL;
	memset(slot_iface, 0, sizeof(slot_iface));
	free(waiting);
	waiting = NULL;
	n_waiting = cap_waiting = 0;
	full = false;
}

static int slot_of(const struct iface *ifc)
{
	int i;

	for (i = 1; i < N_SLOTS; i++)
		if (slot_iface[i] == ifc)
			return i;
	return 0;
}

static int waiting_pos(const struct iface *ifc)
{
	unsigned int i;

	for (i = 0; i < n_waiting; i++)
		if (waiting[i] == ifc)
			return (int)i;
	return -1;
}

static void wait_for_slot(struct iface *ifc)
{
	if (waiting_pos(ifc) >= 0)
		return;
	if (n_waiting == cap_waiting) {
		unsigned int cap = cap_waiting ? 2 * cap_waiting : 16;
		struct iface **grown = realloc(waiting, cap * sizeof(*grown));

		if (!grown)
			return; /* not counted by the probes until its selection changes */
		waiting = grown;
		cap_waiting = cap;
	}
	waiting[n_waiting++] = ifc;
}

static void unwait(const struct iface *ifc)
{
	int i = waiting_pos(ifc);

	if (i < 0)
		return;
	memmove(&waiting[i], &waiting[i + 1], (n_waiting - (unsigned int)i - 1) * sizeof(*waiting));
	n_waiting--;
}

/*
 * A slot for the device, selected in its own namespace: probes_select() keys the filter
 * by the calling thread's namespace (the inode of /proc/thread-self/ns/net, which is the
 * ns.inum the programs read from skb->dev: dev->nd_net.net->ns.inum) and the device's
 * ifindex there, and opens the refusals' rtnetlink socket there. The daemon's own
 * interfaces are selected in its own namespace whatever namespace the thread is in.
 */
static int select_in_ns(struct iface *ifc, struct rterr *err)
{
	struct netns *prev;
	int slot;

	if (netns_switch(ifc->ns, &prev, err) < 0)
		return -1;
	slot = probes_select(probes, ifc->dev_index, err);
	netns_switch(prev, NULL, NULL);
	return slot;
}

static void track(struct iface *ifc)
{
	struct rterr err = {0};
	int slot;

	if (slot_of(ifc) > 0)
		return;
	slot = select_in_ns(ifc, &err);
	if (slot < 0 && err.errnum == ENOSPC) {
		/* Said once per time they run out, not per interface (1000 pods on a node of
		 * 256 slots would be 744 lines). */
		if (!full)
			dlog(LOG_NOTICE, NULL,
			     "probes: all %u interface slots in use: %s and later interfaces "
			     "are counted by their link counters until a slot frees",
			     max_slots, ifc->name);
		full = true;
		wait_for_slot(ifc);
		return;
	}
	if (slot < 0) {
		dlog(LOG_WARNING, ifc->name, "not counted by the probes: %s", err.msg);
		return;
	}
	if (slot >= N_SLOTS || (slot_iface[slot] && slot_iface[slot] != ifc)) {
		/* Another record of the same device (cannot happen: the table has one per
		 * device): leave the slot to the first. */
		dlog(LOG_WARNING, ifc->name, "not counted by the probes: slot %d is %s's", slot,
		     slot < N_SLOTS ? slot_iface[slot]->name : "beyond the table");
		return;
	}
	slot_iface[slot] = ifc;
	unwait(ifc);
}

/* The next waiting interface into a freed slot. */
static void slot_freed(void)
{
	while (n_waiting) {
		struct iface *next = waiting[0];

		unwait(next);
		track(next);
		if (slot_of(next) > 0)
			break;
		if (waiting_pos(next) >= 0)
			return; /* still full */
	}
	if (!n_waiting && full) {
		full = false;
		dlog(LOG_NOTICE, NULL, "probes: every managed interface has a slot again");
	}
}

static void untrack(struct iface *ifc)
{
	struct rterr err = {0};
	int slot = slot_of(ifc);

	unwait(ifc);
	if (slot <= 0)
		return;
	/* The filter entry goes by its key (namespace inode, ifindex): no need to be in the
	 * namespace, which may be on its way out (pods.c lets it go after this). */
	if (probes_unselect(probes, slot, &err) < 0)
		dlog(LOG_WARNING, ifc->name, "probe slot %d: %s", slot, err.msg);
	slot_iface[slot] = NULL;
	slot_freed();
}

bool bpf_counts(const struct iface *ifc)
{
	return probes && slot_of(ifc) > 0;
}

void bpf_iface_event(struct iface *ifc, const struct iface_change *c)
{
	if (!probes)
		return;
	switch (c->ev) {
	case IFACE_NEW:
	case IFACE_SELECTED:
		if (ifc->managed)
			track(ifc);
		else
			untrack(ifc);
		break;
	case IFACE_GONE:
		untrack(ifc);
		break;
	default:
		break;
	}
}

bool bpf_cpu_drops(const struct probe_cpu_drop **out, unsigned int *n)
{
	if (!probes) {
		*out = NULL;
		*n = 0;
		return false;
	}
	probes_cpu_drops(probes, out, n);
	return true;
}

const char *bpf_drop_reason_name(uint32_t reason, char *buf, size_t len)
{
	return probes_drop_reason_name(probes, reason, buf, len);
}

struct read_ctx {
	bpf_counters_fn fn;
	void *arg;
};

static int read_slot(int slot, int ifindex, const struct probe_counters *pc, void *arg)
{
	struct read_ctx *rc = arg;

	/* The slot's record, not a lookup by ifindex: a pod's repeats the node's. */
	if (slot > 0 && slot < N_SLOTS && slot_iface[slot])
		rc->fn(slot_iface[slot], pc, rc->arg);
	return 0;
}

/*
 * All slots at once: the drops map is walked once per sample, not once per interface
 * (that walk, ~70 syscalls per interface, was most of the daemon's idle CPU).
 */
void bpf_read_all(bpf_counters_fn fn, void *arg)
{
	struct read_ctx rc = {fn, arg};
	struct rterr err = {0};

	if (probes)
		probes_read_all(probes, read_slot, &rc, &err);
}

/* Refresh the probes' own cost (sampler, once per run). */
void bpf_read_costs(void)
{
	struct rterr err;
	unsigned int i;

	if (!probes)
		return;
	for (i = 0; i < PROBE_COUNT; i++)
		if (probes_status(probes, (enum probe_id)i)->state == PROBE_ATTACHED)
			probes_cost(probes, (enum probe_id)i, &costs[i], &err);
}

json_object *bpf_status_json(void)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	if (!probes)
		return a;
	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_status *st = probes_status(probes, (enum probe_id)i);
		json_object *p = json_object_new_object();

		json_object_object_add(p, "name", json_object_new_string(st->name));
		json_object_object_add(p, "state",
				       json_object_new_string(probe_state_name(st->state)));
		json_object_object_add(p, "hook",
				       st->state == PROBE_ATTACHED
					       ? json_object_new_string(probe_hook_name(st->hook))
					       : NULL);
		json_object_object_add(p, "reason",
				       st->reason[0] ? json_object_new_string(st->reason) : NULL);
		json_object_object_add(p, "runs", json_object_new_uint64(costs[i].run_count));
		json_object_object_add(p, "run_seconds",
				       json_object_new_double((double)costs[i].run_time_ns / 1e9));
		/* Events the program missed: it was running on the CPU already (a nested
		 * event of the same hook), so the kernel skipped it (bpf_prog_info). */
		json_object_object_add(p, "recursion_misses",
				       json_object_new_uint64(costs[i].recursion_misses));
		json_object_array_add(a, p);
	}
	return a;
}

unsigned int bpf_probe_count(void)
{
	return probes ? PROBE_COUNT : 0;
}

bool bpf_probe_info(unsigned int i, const char **name, bool *attached, uint64_t *runs,
		    uint64_t *run_ns)
{
	const struct probe_status *st;

	if (!probes || i >= PROBE_COUNT)
		return false;
	st = probes_status(probes, (enum probe_id)i);
	*name = st->name;
	*attached = st->state == PROBE_ATTACHED;
	*runs = costs[i].run_count;
	*run_ns = costs[i].run_time_ns;
	return st->state != PROBE_OFF;
}
