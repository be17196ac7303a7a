// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF probes as the daemon runs them: opened once at start, one slot per managed
 * interface, read by the sampler. Without BPF (no BTF, no privilege, no tracepoint) the
 * daemon keeps running on rtnetlink link counters and says which probe is missing.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "rtltuned.h"

#include "rtltune/probes.h"

static struct probe_cost costs[PROBE_COUNT];

void bpf_start(void)
{
	struct probes_opts opts = {.max_ifaces = PROBES_DEFAULT_MAX_IFACES, .run_stats = true};
	struct rterr err = {0};
	unsigned int i;

	if (probes_open(&rtd.probes, &opts, &err) < 0) {
		/* BPF_ENABLE_STATS needs CAP_SYS_ADMIN, which the unit does not grant: count
		 * without the probes' run-time cost rather than not at all. */
		struct rterr stats_err = err;

		opts.run_stats = false;
		rterr_clear(&err);
		if (probes_open(&rtd.probes, &opts, &err) == 0) {
			dlog(LOG_NOTICE, NULL,
			     "probe run-time stats off (%s); sysctl kernel.bpf_stats_enabled=1 "
			     "turns them on",
			     stats_err.msg);
			goto opened;
		}
		snprintf(rtd.bpf_error, sizeof(rtd.bpf_error), "%s", err.msg);
		dlog(LOG_WARNING, NULL,
		     "BPF probes unavailable (%s): counting with link counters "
		     "from rtnetlink, no histograms",
		     err.msg);
		rtd.probes = NULL;
		rtd.bpf = false;
		return;
	}
opened:
	rtd.bpf = true;
	rtd.bpf_error[0] = '\0';
	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_status *st = probes_status(rtd.probes, (enum probe_id)i);

		if (st->state == PROBE_MISSING)
			dlog(LOG_WARNING, NULL, "probe %s missing: %s", st->name, st->reason);
	}
	dlog(LOG_INFO, NULL, "BPF probes attached: %u of %u", probes_attached(rtd.probes),
	     (unsigned int)PROBE_COUNT);
}

void bpf_stop(void)
{
	probes_close(rtd.probes);
	rtd.probes = NULL;
	rtd.bpf = false;
}

void bpf_track(struct iface *ifc)
{
	struct rterr err = {0};
	int slot;

	if (!rtd.probes)
		return;
	if (!ifc->managed) {
		bpf_untrack(ifc);
		return;
	}
	if (ifc->probe_slot > 0)
		return;
	slot = probes_select(rtd.probes, ifc->ifindex, &err);
	if (slot < 0) {
		dlog(LOG_WARNING, ifc->name, "not counted by the probes: %s", err.msg);
		return;
	}
	ifc->probe_slot = slot;
	/* The probes count from zero for a new slot: the histograms restart with it. */
	memset(ifc->stats.hist, 0, sizeof(ifc->stats.hist));
}

void bpf_untrack(struct iface *ifc)
{
	struct rterr err = {0};

	if (!rtd.probes || ifc->probe_slot <= 0)
		return;
	if (probes_unselect(rtd.probes, ifc->probe_slot, &err) < 0)
		dlog(LOG_WARNING, ifc->name, "probe slot %d: %s", ifc->probe_slot, err.msg);
	ifc->probe_slot = 0;
}

static const char *reason_name(uint32_t reason)
{
	static char name[48]; /* stat_drop_set() copies it */

	return probes_drop_reason_name(rtd.probes, reason, name, sizeof(name));
}

/* The ifindex each slot was last read for by bpf_read_all(), 0 when not read. */
#define N_SLOTS (PROBES_DEFAULT_MAX_IFACES + 1) /* bpf_start()'s max_ifaces, and the host */
static int slot_read[N_SLOTS];

static int read_slot(int slot, int ifindex, const struct probe_counters *pc, void *arg)
{
	struct iface_stats *s;
	struct iface *ifc;
	unsigned int i;

	for (ifc = rtd.ifaces; ifc && ifc->probe_slot != slot; ifc = ifc->next)
		;
	if (!ifc || ifc->ifindex != ifindex || slot >= N_SLOTS)
		return 0;
	s = &ifc->stats;
	s->hist[SH_TX_SKB_BYTES] = pc->tx_skb_bytes;
	s->hist[SH_TX_GSO_SIZE_BYTES] = pc->tx_gso_size_bytes;
	s->hist[SH_TX_GSO_SEGMENTS] = pc->tx_gso_segments;
	s->hist[SH_RX_FRAME_BYTES] = pc->rx_frame_bytes;
	s->hist[SH_RX_SKB_BYTES] = pc->rx_skb_bytes;
	s->have_hist = true;
	s->counter[SC_TX_PACKETS] = hist_count(&pc->tx_skb_bytes);
	s->counter[SC_TX_BYTES] = pc->tx_skb_bytes.sum;
	s->counter[SC_RX_PACKETS] = hist_count(&pc->rx_frame_bytes);
	s->counter[SC_RX_BYTES] = pc->rx_frame_bytes.sum;
	s->counter[SC_TX_BUSY] = pc->tx_busy;
	s->counter[SC_TX_TIMEOUTS] = pc->tx_timeouts;
	s->counter[SC_TCP_RETRANSMITS] = pc->tcp_retransmits;
	s->counter[SC_TCP_RETRANSMIT_SEGMENTS] = pc->tcp_retransmit_segments;
	for (i = 0; i < SC__COUNT; i++)
		s->have_counter[i] = true;
	for (i = 0; i < pc->n_drop_reasons; i++)
		stat_drop_set(s, reason_name(pc->drop_reasons[i].reason),
			      pc->drop_reasons[i].count);
	slot_read[slot] = ifindex;
	return 0;
}

/*
 * All slots at once: the drops map is walked once per sample, not once per interface
 * (that walk, ~70 syscalls per interface, was most of the daemon's idle CPU).
 */
void bpf_read_all(void)
{
	struct rterr err = {0};

	memset(slot_read, 0, sizeof(slot_read));
	if (rtd.probes)
		probes_read_all(rtd.probes, read_slot, NULL, &err);
}

bool bpf_counted(const struct iface *ifc)
{
	return rtd.probes && ifc->probe_slot > 0 && ifc->probe_slot < N_SLOTS &&
	       slot_read[ifc->probe_slot] == ifc->ifindex;
}

/* Refresh the probes' own cost (sampler, once per run). */
void bpf_read_costs(void)
{
	struct rterr err;
	unsigned int i;

	if (!rtd.probes)
		return;
	for (i = 0; i < PROBE_COUNT; i++)
		if (probes_status(rtd.probes, (enum probe_id)i)->state == PROBE_ATTACHED)
			probes_cost(rtd.probes, (enum probe_id)i, &costs[i], &err);
}

json_object *bpf_status_json(void)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	if (!rtd.probes)
		return a;
	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_status *st = probes_status(rtd.probes, (enum probe_id)i);
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
		json_object_array_add(a, p);
	}
	return a;
}

unsigned int bpf_probe_count(void)
{
	return rtd.probes ? PROBE_COUNT : 0;
}

bool bpf_probe_info(unsigned int i, const char **name, bool *attached, uint64_t *runs,
		    uint64_t *run_ns)
{
	const struct probe_status *st;

	if (!rtd.probes || i >= PROBE_COUNT)
		return false;
	st = probes_status(rtd.probes, (enum probe_id)i);
	*name = st->name;
	*attached = st->state == PROBE_ATTACHED;
	*runs = costs[i].run_count;
	*run_ns = costs[i].run_time_ns;
	return st->state != PROBE_OFF;
}
