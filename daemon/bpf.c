// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF probes as the daemon runs them: opened once at start, one slot per managed
 * interface, read by the sampler. Without BPF (no BTF, no privilege, no tracepoint) the
 * daemon keeps running on rtnetlink link counters and says which probe is missing.
 */
#include <stdio.h>
#include <string.h>

#include "bpf.h"
#include "log.h"
#include "state.h"

static struct probes *probes;
static char error_text[512];
static struct probe_cost costs[PROBE_COUNT];

/* The ifindex counted in each slot (probes_select()), 0 for a free one. */
#define N_SLOTS (PROBES_DEFAULT_MAX_IFACES + 1) /* bpf_start()'s max_ifaces, and the host */
static int slot_ifindex[N_SLOTS];

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
	memset(slot_ifindex, 0, sizeof(slot_ifindex));
}

static int slot_of(int ifindex)
{
	int i;

	for (i = 1; i < N_SLOTS; i++)
		if (slot_ifindex[i] == ifindex)
			return i;
	return 0;
}

static void track(struct iface *ifc)
{
	struct rterr err = {0};
	int slot;

	/* The probes know a device by its ifindex alone, which a pod's repeats in its own
	 * namespace: a pod's interface is counted by its link counters (docs/namespaces.md). */
	if (ifc->ns || slot_of(ifc->ifindex) > 0)
		return;
	slot = probes_select(probes, ifc->ifindex, &err);
	if (slot < 0) {
		dlog(LOG_WARNING, ifc->name, "not counted by the probes: %s", err.msg);
		return;
	}
	if (slot < N_SLOTS)
		slot_ifindex[slot] = ifc->ifindex;
}

static void untrack(struct iface *ifc)
{
	struct rterr err = {0};
	int slot = slot_of(ifc->ifindex);

	if (slot <= 0)
		return;
	if (probes_unselect(probes, slot, &err) < 0)
		dlog(LOG_WARNING, ifc->name, "probe slot %d: %s", slot, err.msg);
	slot_ifindex[slot] = 0;
}

bool bpf_counts(int ifindex)
{
	return probes && slot_of(ifindex) > 0;
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

	if (slot > 0 && slot < N_SLOTS && slot_ifindex[slot] == ifindex)
		rc->fn(ifindex, pc, rc->arg);
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
