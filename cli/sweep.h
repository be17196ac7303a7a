/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_SWEEP_H
#define RTLTUNE_CLI_SWEEP_H

#include <json-c/json.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/hist.h"
#include "rtltune/knob.h"

/*
 * rtltune sweep (docs/sweep.md): cmd_sweep.c measures, sweep_out.c presents. What was
 * measured becomes one JSON document (sweep_doc()); the table, `--json` and the chart are
 * all drawn from it, so they never disagree.
 */

/* Samples kept per step (the spread the table and the chart show). */
#define SWEEP_MAX_SAMPLES 64

/* One sample interval: deltas of the probes' counters over it. */
struct sweep_sample {
	double secs;
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets;
	uint64_t tx_segs;      /* wire segments: a GSO skb counts its gso_segs */
	uint64_t retrans_segs; /* TCP segments retransmitted through the interface */
	uint64_t drops, tx_busy;
	uint64_t cpu_ns; /* host kernel CPU time (cpustat.h) */
};

struct sweep_step {
	int64_t value;
	bool original; /* the value before the sweep, measured first without a change */
	unsigned int n;
	struct sweep_sample s[SWEEP_MAX_SAMPLES];
	struct rtl_hist tx_skb_bytes, rx_skb_bytes; /* over the step's samples */
};

struct sweep_run {
	char ifname[IF_NAMESIZE];
	int ifindex;
	enum knob_id knob;
	double seconds, settle_seconds, sample_seconds;
	int64_t original;
	struct sweep_step *steps; /* steps[0] is the original value */
	unsigned int n_steps;	  /* measured so far */
	const char *daemon;	  /* "paused", "not running", "other netns" */
	bool restored;
	const char *interrupted; /* the signal's name, or NULL */
	char restore_error[1024];
	char note[512]; /* said before the sweep and with its result: the IPv4 twin's cap */
};

/* The document of a run: `--json` prints it; the text and the chart are drawn from it. */
json_object *sweep_doc(const struct sweep_run *r);
void sweep_render_text(json_object *doc);
/* The chart of doc (svg.h): the knob's throughput with each step's spread, the original
 * and the best value marked, written to path. */
int sweep_write_svg(json_object *doc, const char *path, struct rterr *err);

#endif
