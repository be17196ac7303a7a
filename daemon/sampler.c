// SPDX-License-Identifier: GPL-2.0-only
/*
 * The periodic sampler: sums the probes' per-CPU maps, asks rtnetlink for the link
 * counters (one dump, which also resynchronizes the interface table), then turns the
 * cumulative values into rates and window slots and refreshes what changed.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "rtltune/link.h"
#include "rtltuned.h"

static struct ev_timer tick;
static uint64_t run_start_us;
static bool running;
static unsigned int removed_since_trim;
static uint64_t last_trim_us;
#define TRIM_INTERVAL_US 5000000

static void fill_from_link(struct iface *ifc)
{
	struct iface_stats *s = &ifc->stats;

	if (!s->have_link)
		return;
	s->counter[SC_TX_PACKETS] = s->link.tx_packets;
	s->counter[SC_RX_PACKETS] = s->link.rx_packets;
	s->counter[SC_TX_BYTES] = s->link.tx_bytes;
	s->counter[SC_RX_BYTES] = s->link.rx_bytes;
	s->have_counter[SC_TX_PACKETS] = s->have_counter[SC_RX_PACKETS] = true;
	s->have_counter[SC_TX_BYTES] = s->have_counter[SC_RX_BYTES] = true;
	stat_drop_set(s, "rx_dropped", s->link.rx_dropped);
	stat_drop_set(s, "tx_dropped", s->link.tx_dropped);
}

/*
 * The probes' counters of every interface are read in one pass when the sample starts
 * (bpf_read_all(): well under a millisecond for 64 interfaces). The rest per interface
 * (knob re-reads, rates, the tuner) done in one go could stall every scrape and request
 * that arrives meanwhile (the /metrics p99), so it goes in slices of SAMPLE_SLICE_US, in
 * ifindex order, between other events. The sample's generation is bumped once at the
 * end, so /metrics never serves a half.
 */
#define SAMPLE_SLICE_US 1500

static bool finishing;
static int cursor; /* last ifindex done in this sample */
static uint64_t sample_now, busy_us;

static struct iface *next_managed(int after)
{
	struct iface *ifc, *best = NULL;

	for (ifc = rtd.ifaces; ifc; ifc = ifc->next)
		if (ifc->managed && ifc->ifindex > after && (!best || ifc->ifindex < best->ifindex))
			best = ifc;
	return best;
}

static void sample_done(void)
{
	uint64_t now = now_us();

	bpf_read_costs();
	rtd.samples++;
	rtd.last_sample_us = sample_now;
	rtd.generation++;
	metrics_textfile_write();
	busy_us += now_us() - now;
	rtd.sample_cost_us = busy_us;
	finishing = false;
	running = false;
	notify_status();
	/* Bursts (200 veths that come and go, 50 clients at once) leave freed memory in
	 * the middle of the heap, which free() never returns: hand it back so RSS comes
	 * down to where it was. Cheap (a walk of the free lists), so at most every 5 s. */
	if (removed_since_trim || now - last_trim_us >= TRIM_INTERVAL_US) {
		malloc_trim(0);
		removed_since_trim = 0;
		last_trim_us = now;
	}
}

uint64_t sampler_step(void)
{
	uint64_t start, slot_us = rtd.cfg.sample_interval_us * SAMPLE_SLOT_SAMPLES;
	struct iface *ifc;

	if (!finishing)
		return UINT64_MAX;
	start = now_us();
	while ((ifc = next_managed(cursor))) {
		/* An interface the probes cannot count (no free slot) falls back alone. */
		if (!bpf_counted(ifc))
			fill_from_link(ifc);
		if (ifc->knob_dirty)
			iface_refresh(ifc);
		stat_advance(&ifc->stats, sample_now, slot_us);
		ifc->stats.valid = true;
		tune_sample(ifc, sample_now);
		cursor = ifc->ifindex;
		if (now_us() - start >= SAMPLE_SLICE_US) {
			busy_us += now_us() - start;
			return 0;
		}
	}
	busy_us += now_us() - start;
	sample_done();
	return UINT64_MAX;
}

static void sample_finish(int err)
{
	finishing = true;
	cursor = 0;
	/* One timestamp for the whole sample: rates use the time the counters were read. */
	sample_now = now_us();
	busy_us += sample_now - run_start_us;
	bpf_read_all();
	busy_us += now_us() - sample_now;
	tune_sample_begin();
	sampler_step();
}

void sampler_note_removal(void)
{
	removed_since_trim++;
}

#define DUMP_EVERY 10

static bool link_counters_needed(void)
{
	struct iface *ifc;

	for (ifc = rtd.ifaces; ifc; ifc = ifc->next)
		if (ifc->managed && ifc->probe_slot <= 0)
			return true;
	return false;
}

static void sample_run(void)
{
	int r;

	if (running)
		return; /* the previous one is still in progress: skip, do not pile up */
	running = true;
	busy_us = 0;
	run_start_us = now_us();
	/* The dump brings link counters (needed only where the probes do not count) and
	 * resynchronizes the table (events already keep it current): with every managed
	 * interface counted by the probes, one dump in DUMP_EVERY samples is enough. */
	if (!link_counters_needed() && rtd.samples % DUMP_EVERY != 0) {
		sample_finish(0);
		return;
	}
	r = linkmon_dump(sample_finish);
	if (r < 0) {
		/* No link counters this round; the probes' counters are still worth taking. */
		sample_finish(r);
	}
}

static void tick_fire(struct ev_timer *t)
{
	sample_run();
}

int sampler_start(void)
{
	tick.fire = tick_fire;
	return timer_start(&tick, rtd.cfg.sample_interval_us, rtd.cfg.sample_interval_us);
}

void sampler_stop(void)
{
	timer_stop(&tick);
}

void sampler_kick(void)
{
	uint64_t deadline = now_us() + 2000000;

	sample_run();
	while (running && now_us() < deadline)
		if (sampler_step() != 0)
			loop_run_once(100);
}
