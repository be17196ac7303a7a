/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_SAMPLE_H
#define RTLTUNE_SAMPLE_H
/*
 * The tuner's sample from two readings of an interface: what rtltuned feeds the tuner and
 * what `rtltune sweep` measures a step by, computed in one place so the two agree.
 *
 * A counter that went backwards restarted (a probe slot cleared for a new interface, a
 * driver that zeroes its statistics when reconfigured): the interval gets what it counted
 * since (counter_delta(), hist.h), the part of the interval's traffic seen after the
 * restart. Reading it as 0 would make the interval look idle and hide the loss counted
 * since. The host's CPU time is not such a counter: it is a sum over the online CPUs,
 * which drops a CPU's whole time when the CPU goes offline; there a drop gives 0.
 */
#include <stdbool.h>
#include <stdint.h>

#include "rtltune/hist.h"
#include "rtltune/probes.h"
#include "rtltune/tuner.h"

/* One reading of an interface's totals. */
struct sample_reading {
	uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
	/* The probes counted (else only the four totals above, from the link's statistics):
	 * the sample has the rest when the later reading has it. */
	bool have_probes;
	struct rtl_hist tx_skb_bytes;	 /* skbs handed to the driver */
	struct rtl_hist tx_gso_segments; /* GSO skbs: gso_segs */
	struct rtl_hist rx_skb_bytes;	 /* skbs after GRO */
	uint64_t tcp_retransmits, tcp_retransmit_segments;
	uint64_t drops, tx_busy, tx_timeouts;
};

/* What the sample is judged against, besides the two readings. */
struct sample_env {
	uint64_t interval_us; /* between the readings */
	uint64_t cpu_ns; /* the host's kernel CPU time over the interval (sample_cpu_delta()) */
	/* The CPUs' busy time over the interval (cpustat_busy_ns()), when have_busy. */
	uint64_t cpu_busy_ns;
	bool have_busy;
	/* The caps skbs are counted against (0: none counted at the cap). */
	int64_t gso_max_size, gro_max_size;
	/* The namespace's retransmitted segments and those DSACKed as spurious over the
	 * window tcpstat_lossy() takes (0, 0: every retransmit is loss). */
	uint64_t ns_retrans, ns_dsack;
};

/* The probes' counters as a reading. */
void sample_reading_from_probes(struct sample_reading *r, const struct probe_counters *pc);
/* The host's kernel CPU time between two cpustat_kernel_ns() readings (0 for an unknown
 * earlier one: before == 0). */
uint64_t sample_cpu_delta(uint64_t now, uint64_t before);
/*
 * *s from the readings before and now (ts_ms left to the caller). *retrans_segs (may be
 * NULL) gets the retransmitted segments counted, before tcpstat_lossy() took the spurious
 * share off.
 */
void sample_build(struct tuner_sample *s, const struct sample_reading *before,
		  const struct sample_reading *now, const struct sample_env *env,
		  uint64_t *retrans_segs);

#endif
