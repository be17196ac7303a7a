// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's rules: from a window of samples and the interface's limits, what each rule
 * would try and why, or why not (docs/tuning.md "Rules"); and which one goes first.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rtltune/chipdb.h"
#include "tuner_priv.h"

struct ctx {
	const struct tuner *t;
	const struct iface *ifc;
	const struct tuner_env *env;
	const struct window *w;
	struct agg a;
	int fault; /* fault present in the window, -1 none */
	char fault_text[192];
	uint64_t now;
};

static void cand_init(struct tuner_candidate *c, enum tuner_rule rule, enum knob_id knob,
		      enum tuner_dir dir)
{
	memset(c, 0, sizeof(*c));
	c->rule = rule;
	c->knob = knob;
	c->dir = dir;
	c->status = TUNER_CAND_NO_EVIDENCE;
}

static void __attribute__((format(printf, 3, 4)))
cand_set(struct tuner_candidate *c, enum tuner_cand_status st, const char *fmt, ...)
{
	va_list ap;

	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void cand_change(struct tuner_candidate *c, enum knob_id k, int64_t from, int64_t to)
{
	if (c->n_changes < TUNER_MAX_CHANGES)
		c->changes[c->n_changes++] = (struct tuner_change){k, from, to};
}

/*
 * A size and its IPv4 twin move together (the kernel mirrors sizes up to 64K itself; above
 * that the twin must be set). A pinned twin blocks a change the kernel would mirror into it.
 */
static bool cand_twin(const struct ctx *x, struct tuner_candidate *c, enum knob_id twin, int64_t to)
{
	int64_t cur = x->env->knob[twin];

	if (cur < 0 || cur == to)
		return true;
	if (x->env->pinned[twin] || x->env->manual[twin]) {
		if (to <= LEGACY_MAX_SIZE) {
			cand_set(c, TUNER_CAND_PINNED,
				 "%s is %s and the kernel would move it with %s %" PRId64,
				 knob_name(twin),
				 x->env->manual[twin] ? "changed outside rtltune" : "pinned",
				 knob_name(c->knob), to);
			return false;
		}
		return true;
	}
	cand_change(c, twin, cur, to);
	return true;
}

static bool sampled(const struct ctx *x, unsigned int bits)
{
	return (x->a.have & bits) == bits;
}

static void rule_gso_faults(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GSO_MAX_SIZE], floor = x->t->cfg.gso_floor, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GSO_FAULTS, KNOB_GSO_MAX_SIZE, TUNER_DOWN);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gso_max_size not reported by the kernel");
	if (x->fault < 0)
		return cand_set(c, x->a.have ? TUNER_CAND_NO_EVIDENCE : TUNER_CAND_NO_DATA, "%s",
				x->fault_text);
	if (cur <= floor)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"%s, but gso_max_size %" PRId64 " is at the floor %" PRId64,
				x->fault_text, cur, floor);
	if (!sampled(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "%s; GSO sizes not sampled (BPF probes)",
				x->fault_text);
	rate = x->a.gso_skbs / x->a.secs;
	share = x->a.gso_skbs > 0 ? x->a.gso_at_cap / x->a.gso_skbs : 0;
	if (rate < x->t->cfg.gso_min_skbs_per_s || share < x->t->cfg.fault_cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%s, but only %.0f%% of %.0f GSO skbs/s at the gso_max_size cap "
				"%" PRId64 " (< %.0f%%): a lower cap changes little",
				x->fault_text, share * 100, rate, cur,
				x->t->cfg.fault_cap_share * 100);
	to = cur / 2 > floor ? cur / 2 : floor;
	cand_change(c, KNOB_GSO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GSO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%s with %.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
		 ": try %" PRId64 " (floor %" PRId64 ")",
		 x->fault_text, share * 100, rate, cur, to, floor);
}

static void rule_tso_faults(const struct ctx *x, const struct tuner_candidate *gso,
			    struct tuner_candidate *c)
{
	int64_t tso = x->env->knob[KNOB_TSO];
	bool storm = x->env->quirks & CHIP_Q_TSO_RETRANSMIT_STORM;
	double rate;

	cand_init(c, TUNER_RULE_TSO_FAULTS, KNOB_TSO, TUNER_DOWN);
	if (tso < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "TSO state not known");
	if (tso == 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "TSO is off");
	if (x->fault < 0)
		return cand_set(c, x->a.have ? TUNER_CAND_NO_EVIDENCE : TUNER_CAND_NO_DATA, "%s",
				x->fault_text);
	if (!sampled(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "%s; GSO use not sampled (BPF probes)",
				x->fault_text);
	rate = x->a.gso_skbs / x->a.secs;
	if (rate < x->t->cfg.gso_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%s, but only %.0f GSO skbs/s: TSO is barely used", x->fault_text,
				rate);
	cand_change(c, KNOB_TSO, 1, 0);
	if (storm)
		return cand_set(c, TUNER_CAND_READY,
				"%s and the chip is known for TSO retransmit storms "
				"(tso-retransmit-storm): try TSO off first",
				x->fault_text);
	if (gso->status == TUNER_CAND_READY)
		return cand_set(c, TUNER_CAND_WAITING, "%s: lowering gso_max_size comes first",
				x->fault_text);
	cand_set(c, TUNER_CAND_READY,
		 "%s persist and lowering gso_max_size is out (%s: %s): try TSO off", x->fault_text,
		 tuner_cand_status_name(gso->status),
		 gso->status == TUNER_CAND_BACKOFF ? "a lower size did not help"
						   : "see gso-faults");
}

/* Gains wait while faults persist: a fix comes first, and faults make the criterion blind. */
static bool gain_blocked(const struct ctx *x, struct tuner_candidate *c)
{
	if (x->fault < 0)
		return false;
	cand_set(c, TUNER_CAND_NO_EVIDENCE, "not while faults persist: %s", x->fault_text);
	return true;
}

/*
 * The next size a raise of gso_max_size or gro_max_size tries: twice the present, but at
 * least the kernel's default of 64K (GSO_LEGACY_MAX_SIZE, every device's size until a
 * driver, a profile or an admin lowers it; net/core/dev.c, alloc_netdev_mqs()), and at
 * most the limit. Below 64K the halfway steps would each cost a trial of their own (16K ->
 * 32K -> 64K is two, 6-20 s each on one long-lived connection: docs/tuning.md "Step
 * sizes"); a value below the default that is there for a reason shows it as the fault the
 * trial's guards roll back on.
 */
static int64_t size_raise(int64_t cur, int64_t max)
{
	int64_t to = cur * 2 > GSO_LEGACY_MAX_SIZE ? cur * 2 : GSO_LEGACY_MAX_SIZE;

	return to < max ? to : max;
}

static void rule_gso_at_cap(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GSO_MAX_SIZE], max = x->env->gso_max, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GSO_AT_CAP, KNOB_GSO_MAX_SIZE, TUNER_UP);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gso_max_size not reported by the kernel");
	if (x->env->quirks & CHIP_Q_NEEDS_SMALL_GSO)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"chip quirk needs-small-gso: gso_max_size is never raised");
	if (max <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"the chip's gso_max_size limit is unknown: never raised");
	if (cur >= max && x->env->limit_note[0])
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"gso_max_size %" PRId64 " is at the limit: %s", cur,
				x->env->limit_note);
	if (cur >= max)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"gso_max_size %" PRId64 " is at the chip's limit %" PRId64, cur,
				max);
	if (!sampled(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "GSO sizes not sampled (BPF probes)");
	if (gain_blocked(x, c))
		return;
	rate = x->a.gso_skbs / x->a.secs;
	share = x->a.gso_skbs > 0 ? x->a.gso_at_cap / x->a.gso_skbs : 0;
	if (rate < x->t->cfg.gso_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%.0f GSO skbs/s (< %.0f)", rate,
				x->t->cfg.gso_min_skbs_per_s);
	if (share < x->t->cfg.cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
				" (< %.0f%%)",
				share * 100, rate, cur, x->t->cfg.cap_share * 100);
	to = size_raise(cur, max);
	cand_change(c, KNOB_GSO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GSO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
		 " and the chip allows %" PRId64 ": try %" PRId64,
		 share * 100, rate, cur, max, to);
}

/*
 * GRO merges only TCP segments that carry data: a segment without payload flushes the flow
 * (tcp_gro_receive()). Frames averaging less than this are acknowledgements (66 bytes with
 * timestamps) or small messages: a bulk sender's receive side, where GRO has nothing to do.
 */
#define GRO_MIN_FRAME_BYTES 256
/*
 * Frames per skb reaching the stack at or above which they arrive merged already, with GRO
 * off: a peer's GSO skbs handed over whole (veth), LRO. The probes count those skbs' frames
 * (docs/probes.md "RX"), and GRO would have nothing left to merge.
 */
#define GRO_MERGED_FRAMES_PER_SKB 1.5

/*
 * Bulk receive, which rx-spread and napi-defer act on: at least gro_on_min_pps frames/s
 * averaging GRO_MIN_FRAME_BYTES (a bulk sender receives acknowledgements at a high rate:
 * its own receive work is not the load). Else false, and c says why (NO_EVIDENCE).
 */
static bool bulk_receive(const struct ctx *x, struct tuner_candidate *c, double *pps,
			 double *frame)
{
	*pps = x->a.rx_pkts / x->a.secs;
	*frame = x->a.rx_pkts > 0 ? x->a.rx_bytes / x->a.rx_pkts : 0;
	if (*pps < x->t->cfg.gro_on_min_pps) {
		cand_set(c, TUNER_CAND_NO_EVIDENCE, "%.0f frames/s received (< %.0f)", *pps,
			 x->t->cfg.gro_on_min_pps);
		return false;
	}
	if (*frame < GRO_MIN_FRAME_BYTES) {
		cand_set(c, TUNER_CAND_NO_EVIDENCE,
			 "%.0f frames/s received averaging %.0f bytes (< %d): "
			 "acknowledgements or small messages, not bulk receive",
			 *pps, *frame, GRO_MIN_FRAME_BYTES);
		return false;
	}
	return true;
}

static void rule_gro_off(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t gro = x->env->knob[KNOB_GRO];
	double pps, frame;

	cand_init(c, TUNER_RULE_GRO_OFF, KNOB_GRO, TUNER_UP);
	if (gro < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "GRO state not known");
	if (gro > 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "GRO is on");
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (gain_blocked(x, c))
		return;
	pps = x->a.rx_pkts / x->a.secs;
	if (pps < x->t->cfg.gro_on_min_pps)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"GRO is off at %.0f frames/s received (< %.0f)", pps,
				x->t->cfg.gro_on_min_pps);
	if (sampled(x, TUNER_HAVE_GRO) && x->a.rx_skbs > 0 &&
	    x->a.rx_pkts >= GRO_MERGED_FRAMES_PER_SKB * x->a.rx_skbs)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"GRO is off at %.0f frames/s received, but they arrive merged "
				"already, %.1f per skb (the peer's GSO or the NIC's LRO)",
				pps, x->a.rx_pkts / x->a.rx_skbs);
	frame = x->a.rx_pkts > 0 ? x->a.rx_bytes / x->a.rx_pkts : 0;
	if (frame < GRO_MIN_FRAME_BYTES)
		return cand_set(
			c, TUNER_CAND_NO_EVIDENCE,
			"GRO is off at %.0f frames/s received, but they average %.0f bytes "
			"(< %d): acknowledgements or small messages, which GRO does not merge",
			pps, frame, GRO_MIN_FRAME_BYTES);
	cand_change(c, KNOB_GRO, 0, 1);
	cand_set(c, TUNER_CAND_READY,
		 "GRO is off at %.0f frames/s received (>= %.0f) averaging %.0f bytes: try GRO on",
		 pps, x->t->cfg.gro_on_min_pps, frame);
}

static void rule_gro_at_cap(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GRO_MAX_SIZE], max = x->env->gro_max, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GRO_AT_CAP, KNOB_GRO_MAX_SIZE, TUNER_UP);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gro_max_size not reported by the kernel");
	if (x->env->knob[KNOB_GRO] == 0)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "GRO is off");
	if (max <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"the gro_max_size limit is unknown: never raised");
	if (cur >= max)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"gro_max_size %" PRId64 " is at the limit %" PRId64, cur, max);
	if (!sampled(x, TUNER_HAVE_GRO))
		return cand_set(c, TUNER_CAND_NO_DATA, "GRO merge sizes not sampled (BPF probes)");
	if (gain_blocked(x, c))
		return;
	rate = x->a.rx_skbs / x->a.secs;
	share = x->a.rx_skbs > 0 ? x->a.gro_at_cap / x->a.rx_skbs : 0;
	if (rate < x->t->cfg.gro_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%.0f skbs/s after GRO (< %.0f)", rate,
				x->t->cfg.gro_min_skbs_per_s);
	if (share < x->t->cfg.cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%.0f%% of %.0f skbs/s after GRO at the gro_max_size cap %" PRId64
				" (< %.0f%%)",
				share * 100, rate, cur, x->t->cfg.cap_share * 100);
	to = size_raise(cur, max);
	cand_change(c, KNOB_GRO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GRO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%.0f%% of %.0f skbs/s after GRO at the gro_max_size cap %" PRId64
		 " and the limit is %" PRId64 ": try %" PRId64,
		 share * 100, rate, cur, max, to);
}

/*
 * Receive work that saturates one CPU while another has softirq time to spare: spread it.
 * A device with NAPIs gets them threaded (each a kthread the scheduler can move to a free
 * CPU, NAPI's threaded mode since 5.12); one without (veth without GRO or XDP: its frames
 * go through the sending CPU's backlog) gets RPS to the other CPUs (rps_cpus of its rx
 * queues without the busy one: frames then queue to their backlogs). Judged as a gain in
 * rx throughput per busy CPU second (tnr_knob_objective()): a second CPU raises throughput
 * by spending itself, and is kept only when the bytes per CPU spent rise beyond noise.
 */
static void rule_rx_spread(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_config *cfg = &x->t->cfg;
	bool napi = x->env->n_napi > 0;
	enum knob_id k = napi ? KNOB_NAPI_THREADED : KNOB_RPS_CPUS;
	int64_t cur = x->env->knob[k], to;
	double pps, frame;

	cand_init(c, TUNER_RULE_RX_SPREAD, k, TUNER_UP);
	if (x->env->n_napi < 0 || cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "%s not known",
				x->env->n_napi < 0 ? "the device's NAPIs" : knob_name(k));
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (!sampled(x, TUNER_HAVE_SOFTIRQ))
		return cand_set(c, TUNER_CAND_NO_DATA, "softirq time per CPU not sampled");
	if (!sampled(x, TUNER_HAVE_CPU_BUSY))
		return cand_set(c, TUNER_CAND_NO_DATA,
				"the CPUs' busy time not sampled (it judges the trial)");
	if (gain_blocked(x, c))
		return;
	if (cur != 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "%s", napi ? "its NAPIs are threaded"
								    : "rps_cpus is set");
	if (!bulk_receive(x, c, &pps, &frame))
		return;
	if (x->a.softirq_max < cfg->spread_busy_share ||
	    x->a.softirq_min > cfg->spread_free_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"the busiest CPU spends %.0f%% in softirq, the least busy %.0f%% "
				"(spread when >= %.0f%% and <= %.0f%%)",
				x->a.softirq_max * 100, x->a.softirq_min * 100,
				cfg->spread_busy_share * 100, cfg->spread_free_share * 100);
	if (napi) {
		to = 1;
	} else {
		to = x->env->cpus_online;
		if (x->a.busiest >= 0 && x->a.busiest < 63)
			to &= ~((int64_t)1 << x->a.busiest);
		if (to <= 0)
			return cand_set(c, TUNER_CAND_NOT_ALLOWED,
					"no other CPU online to steer frames to");
	}
	cand_change(c, k, 0, to);
	cand_set(c, TUNER_CAND_READY,
		 "receive work at %.0f frames/s holds CPU %d at %.0f%% softirq while the least "
		 "busy CPU spends %.0f%%: try %s",
		 pps, x->a.busiest, x->a.softirq_max * 100, x->a.softirq_min * 100,
		 napi ? "threaded NAPI" : "RPS to the other CPUs");
}

/*
 * The next rx ring size ring-overruns tries: twice the present one, up to the ring's max
 * (a ring of 0 or less: unknown, never raised). A bigger ring holds a longer burst before
 * the NIC drops (what qstats rx-hw-drop-overruns counts); its cost is memory and the
 * cache the descriptors' buffers take, and on many drivers a ring change restarts the
 * device (a brief loss of link that the trial's observation sees).
 */
int64_t tnr_ring_next(int64_t cur, int64_t max)
{
	if (cur <= 0 || max <= 0 || cur >= max)
		return cur;
	return cur * 2 < max ? cur * 2 : max;
}

/* The device's ring overflows: a fix that doubles ring_rx toward its max, stepping on
 * within the trial until the overruns fall (like the host's fixes). */
static void rule_ring_overruns(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_config *cfg = &x->t->cfg;
	int64_t cur = x->env->knob[KNOB_RING_RX], max = x->env->ring_rx_max, to;
	double rate = tnr_agg_rate(&x->a, F_OVERRUNS);
	char f[160], r[48];

	cand_init(c, TUNER_RULE_RING_OVERRUNS, KNOB_RING_RX, TUNER_UP);
	if (cur <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "ring_rx not reported by the driver");
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (!sampled(x, TUNER_HAVE_OVERRUNS))
		return cand_set(c, TUNER_CAND_NO_DATA,
				"ring overruns not sampled (the driver's qstats have no "
				"rx-hw-drop-overruns)");
	snprintf(f, sizeof(f), "ring overruns %s (%.0f in %u samples)",
		 tnr_fmt_fault_rate(F_OVERRUNS, rate, r, sizeof(r)), x->a.ev[F_OVERRUNS], x->a.n);
	if (x->a.occ[F_OVERRUNS] < tnr_fault_min_events(cfg, F_OVERRUNS) ||
	    rate < cfg->overrun_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%s: below %.3f%% or %u overruns", f,
				cfg->overrun_share * 100,
				tnr_fault_min_events(cfg, F_OVERRUNS));
	if (max <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"%s, but the ring's max size is unknown: never raised", f);
	to = tnr_ring_next(cur, max);
	if (to <= cur)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"%s, but ring_rx %" PRId64 " is at the ring's max %" PRId64, f, cur,
				max);
	cand_change(c, KNOB_RING_RX, cur, to);
	cand_set(c, TUNER_CAND_READY, "%s: try ring_rx %" PRId64 " (max %" PRId64 ")", f, to,
		 max);
}

/*
 * Bulk receive on a device whose NAPIs its interrupts schedule: defer the interrupts
 * (napi_defer_hard_irqs: polls with no work before the IRQ is re-armed, gro_flush_timeout:
 * the timer that polls meanwhile), so that one poll takes more frames and the CPU takes
 * fewer interrupts per byte. The price is latency (a frame can wait for the timer): judged
 * as a gain on CPU per byte while throughput holds, rolled back when the median TCP RTT
 * rises (the latency guard); never tried without an RTT to guard with. Devices without
 * interrupts (veth: its NAPI is scheduled by the sender) have nothing to defer.
 */
static void rule_napi_defer(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_config *cfg = &x->t->cfg;
	int64_t defer = x->env->knob[KNOB_NAPI_DEFER_HARD_IRQS];
	int64_t flush = x->env->knob[KNOB_GRO_FLUSH_TIMEOUT];
	double pps, frame;

	cand_init(c, TUNER_RULE_NAPI_DEFER, KNOB_NAPI_DEFER_HARD_IRQS, TUNER_UP);
	if (x->env->n_napi == 0)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"the device has no NAPI: nothing to defer");
	if (x->env->napi_irq < 0 || x->env->n_napi < 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"not known whether the device's NAPIs have interrupts");
	if (x->env->napi_irq == 0)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"its NAPIs have no interrupt (napi-get names no IRQ: a veth's is "
				"scheduled by its peer): nothing to defer");
	if (defer < 0 || flush < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "%s not known",
				defer < 0 ? "napi_defer_hard_irqs" : "gro_flush_timeout");
	if (defer != 0 || flush != 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"interrupts already deferred (napi_defer_hard_irqs %" PRId64
				", gro_flush_timeout %" PRId64 " ns)",
				defer, flush);
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (!sampled(x, TUNER_HAVE_CPU))
		return cand_set(c, TUNER_CAND_NO_DATA, "CPU time not sampled");
	if (!sampled(x, TUNER_HAVE_RTT))
		return cand_set(c, TUNER_CAND_NO_DATA, "no latency guard: TCP RTT not sampled");
	if (gain_blocked(x, c))
		return;
	if (!bulk_receive(x, c, &pps, &frame))
		return;
	cand_change(c, KNOB_NAPI_DEFER_HARD_IRQS, 0, cfg->defer_hard_irqs);
	cand_change(c, KNOB_GRO_FLUSH_TIMEOUT, 0, cfg->defer_gro_flush_ns);
	cand_set(c, TUNER_CAND_READY,
		 "bulk receive at %.0f frames/s averaging %.0f bytes on interrupts: try "
		 "napi_defer_hard_irqs %" PRId64 " with gro_flush_timeout %" PRId64
		 " ns (kept for less CPU per byte; rolled back if the median TCP RTT rises "
		 "%.0f%% and %.0f us)",
		 pps, frame, cfg->defer_hard_irqs, cfg->defer_gro_flush_ns,
		 cfg->defer_max_rtt_rise * 100, cfg->defer_min_rtt_rise_us);
}

static void rule_mtu(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_env *e = x->env;
	int64_t cur = e->knob[KNOB_MTU], hi = e->allowed_mtu_max;
	double bps, tx_frame, rx_frame, full;
	char b[32];

	cand_init(c, TUNER_RULE_MTU, KNOB_MTU, TUNER_UP);
	if (e->allowed_mtu_max <= 0)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"no allowed_mtu range configured: the L2 domain decides the MTU");
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "MTU not known");
	if (e->mtu_max > 0 && hi > e->mtu_max)
		hi = e->mtu_max;
	if (cur >= hi)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"MTU %" PRId64 " is at the top of allowed_mtu %" PRId64 "..%" PRId64
				" (max_mtu %" PRId64 ")",
				cur, e->allowed_mtu_min, e->allowed_mtu_max, e->mtu_max);
	if (hi < e->allowed_mtu_min)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"allowed_mtu %" PRId64 "..%" PRId64 " is above max_mtu %" PRId64,
				e->allowed_mtu_min, e->allowed_mtu_max, e->mtu_max);
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (gain_blocked(x, c))
		return;
	bps = (x->a.tx_bytes + x->a.rx_bytes) / x->a.secs;
	tx_frame = x->a.tx_segs > 0 ? x->a.tx_bytes / x->a.tx_segs : 0;
	rx_frame = x->a.rx_pkts > 0 ? x->a.rx_bytes / x->a.rx_pkts : 0;
	full = x->t->cfg.mtu_full_share * (double)cur;
	if (bps < x->t->cfg.mtu_min_bytes_per_s || (tx_frame < full && rx_frame < full))
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"frames average %.0f bytes sent, %.0f received at %s: not full "
				"MTU-%" PRId64 " frames in bulk",
				tx_frame, rx_frame, tnr_fmt_bps(bps, b, sizeof(b)), cur);
	cand_change(c, KNOB_MTU, cur, hi);
	cand_set(c, TUNER_CAND_READY,
		 "full frames (average %.0f bytes sent, %.0f received, MTU %" PRId64
		 ") at %s; allowed_mtu %" PRId64 "..%" PRId64 ": try %" PRId64,
		 tx_frame, rx_frame, cur, tnr_fmt_bps(bps, b, sizeof(b)), e->allowed_mtu_min,
		 e->allowed_mtu_max, hi);
	/* The driver turns TSO off itself above 1500; the trial says so, so that the journal
	 * holds TSO's value from before and a rollback sets it back after the MTU (and a
	 * device that does not do it itself, a test's veth taken for the chip, does the same). */
	if (hi > 1500 && (e->quirks & CHIP_Q_JUMBO_DISABLES_TSO) && e->knob[KNOB_TSO] > 0) {
		cand_change(c, KNOB_TSO, e->knob[KNOB_TSO], 0);
		tnr_cat(c->reason, sizeof(c->reason),
			" (this chip turns TSO off above 1500: kept only for a gain of %.0f%%)",
			x->t->cfg.min_effect * x->t->cfg.jumbo_tso_factor * 100);
	}
}

/* Pins, autotune and backoff, over what the rules found. */
/* ---- the host's rules ---------------------------------------------------------------- */

/* Whether the host's window shows fault f at or above its threshold; text says it. */
static bool host_fault(const struct ctx *x, enum fault f, char *text, size_t len)
{
	const struct tuner_config *cfg = &x->t->cfg;
	double rate = tnr_agg_rate(&x->a, f);
	char r[48];

	snprintf(text, len, "%s %s (%.0f in %u samples)", tnr_faults[f].name,
		 tnr_fmt_fault_rate(f, rate, r, sizeof(r)), x->a.ev[f], x->a.n);
	return x->a.occ[f] >= tnr_fault_min_events(cfg, f) &&
	       rate >= tnr_fault_threshold(cfg, f);
}

int64_t tnr_host_cap(const struct tuner_config *cfg, enum knob_id k)
{
	switch (k) {
	case KNOB_NETDEV_MAX_BACKLOG:
		return cfg->backlog_max;
	case KNOB_NETDEV_BUDGET:
		return cfg->budget_max;
	case KNOB_NETDEV_BUDGET_USECS:
		return cfg->budget_usecs_max;
	default:
		return 0;
	}
}

/*
 * The next value of a host knob a fix tries: twice the present one (from at least 64), up
 * to its cap. Doubling reaches any depth a burst needs in a few trials (the backlog a
 * 45-frame burst overflows at 32 takes it at 64), and each step's cost stays bounded by
 * the one before: a backlog's packets wait in it, a budget's run holds the CPU.
 */
int64_t tnr_host_next(const struct tuner_config *cfg, enum knob_id k, int64_t cur)
{
	int64_t cap = tnr_host_cap(cfg, k), to = cur < 32 ? 64 : cur * 2;

	return cur >= cap ? cur : to < cap ? to : cap;
}

int64_t tuner_host_next(const struct tuner_config *cfg, enum knob_id k, int64_t cur)
{
	return tnr_host_next(cfg, k, cur);
}

static void rule_backlog(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_config *cfg = &x->t->cfg;
	int64_t cur = x->env->knob[KNOB_NETDEV_MAX_BACKLOG], to;
	char f[160];

	cand_init(c, TUNER_RULE_BACKLOG, KNOB_NETDEV_MAX_BACKLOG, TUNER_UP);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "net.core.netdev_max_backlog not readable");
	if (!sampled(x, TUNER_HAVE_SOFTNET))
		return cand_set(c, TUNER_CAND_NO_DATA, "softnet_stat not sampled");
	if (!host_fault(x, F_BACKLOG, f, sizeof(f)))
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%s: below %.3f%% or %u drops", f,
				cfg->backlog_drop_share * 100,
				tnr_fault_min_events(cfg, F_BACKLOG));
	to = tnr_host_next(cfg, KNOB_NETDEV_MAX_BACKLOG, cur);
	if (to <= cur)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"%s, but net.core.netdev_max_backlog %" PRId64
				" is at the cap %" PRId64 " (backlog_max)",
				f, cur, cfg->backlog_max);
	cand_change(c, KNOB_NETDEV_MAX_BACKLOG, cur, to);
	cand_set(c, TUNER_CAND_READY,
		 "%s: try net.core.netdev_max_backlog %" PRId64 " (cap %" PRId64 ")", f, to,
		 cfg->backlog_max);
}

/* Out of budget: the packet count and the time limit are raised together (a run stops at
 * whichever comes first); one at its cap, the other alone. */
static void rule_squeeze(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_config *cfg = &x->t->cfg;
	int64_t b = x->env->knob[KNOB_NETDEV_BUDGET], u = x->env->knob[KNOB_NETDEV_BUDGET_USECS];
	int64_t bt, ut;
	char f[160];

	cand_init(c, TUNER_RULE_SQUEEZE, KNOB_NETDEV_BUDGET, TUNER_UP);
	if (b < 0 || u < 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"net.core.netdev_budget(_usecs) not readable");
	if (!sampled(x, TUNER_HAVE_SOFTNET))
		return cand_set(c, TUNER_CAND_NO_DATA, "softnet_stat not sampled");
	if (!host_fault(x, F_SQUEEZE, f, sizeof(f)))
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%s: below %.3f%% or %u squeezes", f,
				cfg->squeeze_share * 100, tnr_fault_min_events(cfg, F_SQUEEZE));
	bt = tnr_host_next(cfg, KNOB_NETDEV_BUDGET, b);
	ut = tnr_host_next(cfg, KNOB_NETDEV_BUDGET_USECS, u);
	if (bt <= b && ut <= u)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"%s, but net.core.netdev_budget %" PRId64 " and _usecs %" PRId64
				" are at their caps (budget_max, budget_usecs_max)",
				f, b, u);
	if (bt > b)
		cand_change(c, KNOB_NETDEV_BUDGET, b, bt);
	else
		c->knob = KNOB_NETDEV_BUDGET_USECS;
	if (ut > u)
		cand_change(c, KNOB_NETDEV_BUDGET_USECS, u, ut);
	cand_set(c, TUNER_CAND_READY,
		 "%s: try net.core.netdev_budget %" PRId64 ", netdev_budget_usecs %" PRId64, f,
		 bt, ut);
}

/* A rule of the other kind (the host's on a device, a device's on the host): listed as
 * not applying, never tried. */
static void rule_elsewhere(const struct ctx *x, enum tuner_rule r, struct tuner_candidate *c)
{
	static const enum knob_id knob[TUNER_RULE__COUNT] = {
		[TUNER_RULE_GSO_FAULTS] = KNOB_GSO_MAX_SIZE, [TUNER_RULE_TSO_FAULTS] = KNOB_TSO,
		[TUNER_RULE_GSO_AT_CAP] = KNOB_GSO_MAX_SIZE, [TUNER_RULE_GRO_OFF] = KNOB_GRO,
		[TUNER_RULE_GRO_AT_CAP] = KNOB_GRO_MAX_SIZE, [TUNER_RULE_MTU] = KNOB_MTU,
		[TUNER_RULE_RX_SPREAD] = KNOB_NAPI_THREADED,
		[TUNER_RULE_RING_OVERRUNS] = KNOB_RING_RX,
		[TUNER_RULE_NAPI_DEFER] = KNOB_NAPI_DEFER_HARD_IRQS,
		[TUNER_RULE_BACKLOG] = KNOB_NETDEV_MAX_BACKLOG,
		[TUNER_RULE_SQUEEZE] = KNOB_NETDEV_BUDGET,
	};

	/* The TX-side fixes lower a size or turn TSO off; every other rule raises. */
	cand_init(c, r, knob[r],
		  r == TUNER_RULE_GSO_FAULTS || r == TUNER_RULE_TSO_FAULTS ? TUNER_DOWN : TUNER_UP);
	cand_set(c, TUNER_CAND_NOT_ALLOWED, "%s",
		 x->ifc->ifindex == TUNER_HOST ? "a device's rule" : "a host-wide rule");
}

static void cand_gate(const struct ctx *x, struct tuner_candidate *c)
{
	static const struct tuner_backoff none;
	const struct tuner_backoff *b = tnr_backoff(x->ifc, c->knob, c->dir) ?: &none;
	unsigned int i;

	for (i = 0; i <= c->n_changes; i++) {
		enum knob_id k = i ? c->changes[i - 1].knob : c->knob;

		if (x->env->manual[k]) {
			cand_set(c, TUNER_CAND_PINNED,
				 "%s was changed outside rtltune: left alone until `rtltune "
				 "autotune on` or `rtltune apply`",
				 knob_name(k));
			return;
		}
		if (x->env->pinned[k]) {
			cand_set(c, TUNER_CAND_PINNED, "%s is pinned", knob_name(k));
			return;
		}
	}
	if (c->status != TUNER_CAND_READY && c->status != TUNER_CAND_WAITING)
		return;
	if (b->until_ms > x->now) {
		char why[sizeof(c->reason)];

		snprintf(why, sizeof(why), "%s", c->reason);
		cand_set(c, TUNER_CAND_BACKOFF,
			 "backing off %s %s for %" PRIu64 "s more (%u rejected): %s",
			 knob_name(c->knob), tuner_dir_name(c->dir),
			 (b->until_ms - x->now + 999) / 1000, b->rejected, why);
		c->backoff_until_ms = b->until_ms;
		return;
	}
	if (!x->env->autotune) {
		char why[sizeof(c->reason)];

		snprintf(why, sizeof(why), "%s", c->reason);
		cand_set(c, TUNER_CAND_AUTOTUNE_OFF, "autotune is off (%s)", why);
	}
}

/* Every rule over window w, in cands[rule]; returns the index of the one to try, or -1.
 * The host (TUNER_HOST) has its own rules, a device the rest. */
int tnr_evaluate(const struct tuner *t, const struct iface *ifc, const struct tuner_env *env,
		 const struct window *w, uint64_t now, struct tuner_candidate cands[])
{
	/* Selection order: fixes before gains; a storm-prone chip loses TSO first; the ring's
	 * overruns after the TX-side faults (those lose what was sent, and a ring change may
	 * restart the device); gains that cost nothing but CPU before the deferral, which
	 * costs latency; the host's drops before its squeezes (a drop loses the packet, a
	 * squeeze delays it). */
	static const enum tuner_rule order[] = {
		TUNER_RULE_GSO_FAULTS,	TUNER_RULE_TSO_FAULTS, TUNER_RULE_RING_OVERRUNS,
		TUNER_RULE_GSO_AT_CAP,	TUNER_RULE_GRO_OFF,    TUNER_RULE_GRO_AT_CAP,
		TUNER_RULE_MTU,		TUNER_RULE_RX_SPREAD,  TUNER_RULE_NAPI_DEFER,
		TUNER_RULE_BACKLOG,	TUNER_RULE_SQUEEZE};
	struct ctx x = {.t = t, .ifc = ifc, .env = env, .w = w, .now = now};
	bool host = ifc->ifindex == TUNER_HOST;
	unsigned int i;
	int r;

	tnr_aggregate(w, &x.a);
	x.fault = x.a.n ? tnr_fault_present(&t->cfg, &x.a, x.fault_text, sizeof(x.fault_text)) : -1;
	if (!x.a.n)
		snprintf(x.fault_text, sizeof(x.fault_text), "no samples");
	for (i = 0; i < TUNER_RULE__COUNT; i++)
		if (tuner_rule_for_host((enum tuner_rule)i) != host)
			rule_elsewhere(&x, (enum tuner_rule)i, &cands[i]);
	if (host) {
		rule_backlog(&x, &cands[TUNER_RULE_BACKLOG]);
		cand_gate(&x, &cands[TUNER_RULE_BACKLOG]);
		rule_squeeze(&x, &cands[TUNER_RULE_SQUEEZE]);
		cand_gate(&x, &cands[TUNER_RULE_SQUEEZE]);
	} else {
		rule_gso_faults(&x, &cands[TUNER_RULE_GSO_FAULTS]);
		cand_gate(&x, &cands[TUNER_RULE_GSO_FAULTS]);
		rule_tso_faults(&x, &cands[TUNER_RULE_GSO_FAULTS], &cands[TUNER_RULE_TSO_FAULTS]);
		cand_gate(&x, &cands[TUNER_RULE_TSO_FAULTS]);
		rule_gso_at_cap(&x, &cands[TUNER_RULE_GSO_AT_CAP]);
		rule_gro_off(&x, &cands[TUNER_RULE_GRO_OFF]);
		rule_gro_at_cap(&x, &cands[TUNER_RULE_GRO_AT_CAP]);
		rule_mtu(&x, &cands[TUNER_RULE_MTU]);
		rule_rx_spread(&x, &cands[TUNER_RULE_RX_SPREAD]);
		rule_ring_overruns(&x, &cands[TUNER_RULE_RING_OVERRUNS]);
		rule_napi_defer(&x, &cands[TUNER_RULE_NAPI_DEFER]);
		for (i = TUNER_RULE_GSO_AT_CAP; i <= TUNER_RULE_NAPI_DEFER; i++)
			cand_gate(&x, &cands[i]);
		if ((env->quirks & CHIP_Q_TSO_RETRANSMIT_STORM) &&
		    cands[TUNER_RULE_TSO_FAULTS].status == TUNER_CAND_READY)
			return TUNER_RULE_TSO_FAULTS;
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		r = order[i];
		if (cands[r].status == TUNER_CAND_READY)
			return r;
	}
	return -1;
}

int tnr_rule_own_fault(enum tuner_rule rule)
{
	switch (rule) {
	case TUNER_RULE_BACKLOG:
		return F_BACKLOG;
	case TUNER_RULE_SQUEEZE:
		return F_SQUEEZE;
	case TUNER_RULE_RING_OVERRUNS:
		return F_OVERRUNS;
	default:
		return -1;
	}
}

/* The fault fix rule must cure: the host's rules and ring-overruns name theirs, the TX-side
 * fixes take the most severe one present in a (-1: none; text says it). */
int tnr_rule_fault(const struct tuner_config *cfg, enum tuner_rule rule, const struct agg *a,
		   char *text, size_t len)
{
	int f = tnr_rule_own_fault(rule);

	if (f < 0)
		return tnr_fault_present(cfg, a, text, len);
	snprintf(text, len, "%s", tnr_faults[f].name);
	return (a->have & tnr_faults[f].have) && a->occ[f] >= tnr_fault_min_events(cfg, f) &&
			       tnr_agg_rate(a, f) >= tnr_fault_threshold(cfg, f)
		       ? (int)f
		       : -1;
}

/*
 * Whether the fault a fix is called for is itself changing within the baseline: its rate
 * differs clearly between the window's halves (as much as a penalty's rise or a fix's fall
 * must). A fault that just appeared, or is fading, makes the baseline's rate a mix of
 * before and after: the fix would be judged against a rate that is not the fault's, and the
 * fault's own ramp would read as a rise caused by the change (the demo: a baseline of 1.4%
 * retransmits taken across the fault's start, 5.2% right after; the fix rolled back).
 */
bool tnr_fault_unsteady(const struct tuner_config *cfg, const struct window *w,
			enum tuner_rule rule, char *why, size_t len)
{
	struct window h1 = {.p = w->p, .n = w->n / 2, .size = w->n / 2};
	struct window h2 = {.p = w->p + w->n / 2, .n = w->n - w->n / 2, .size = w->n - w->n / 2};
	char text[192], x[64];
	struct agg all, a, b;
	double ra, rb, z;
	int f;

	tnr_aggregate(w, &all);
	f = tnr_rule_fault(cfg, rule, &all, text, sizeof(text));
	if (f < 0 || f == F_TIMEOUTS)
		return false;
	tnr_aggregate(&h1, &a);
	tnr_aggregate(&h2, &b);
	ra = tnr_agg_rate(&a, f);
	rb = tnr_agg_rate(&b, f);
	z = tnr_fault_z(&a, &b, f);
	if (!(z >= cfg->penalty_z && rb > ra * (1 + cfg->penalty_min_rise)) &&
	    !(z <= -cfg->fix_z && rb < ra * (1 - cfg->fix_min_fall)))
		return false;
	snprintf(why, len,
		 "%s not steady: %s from the first half of the window to the second (waiting for "
		 "a window of the fault alone)",
		 tnr_faults[f].name, tnr_fmt_fault_change(f, ra, rb, x, sizeof(x)));
	return true;
}

/*
 * Whether the traffic itself moved within the baseline: its halves differ beyond noise.
 * A trial started then would credit the knob with the traffic's change.
 */
bool tnr_unsteady(const struct tuner_config *cfg, const struct window *w, enum objective o,
		  char *why, size_t len)
{
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	unsigned int h = w->n / 2, na, nb;
	struct cmp c;
	char x[32], y[32];

	na = tnr_win_values(w, 0, h, o, a);
	nb = tnr_win_values(w, h, w->n, o, b);
	tnr_compare(a, na, b, nb, &c);
	if (!tnr_cmp_up(&c, cfg->min_effect) && !tnr_cmp_down(&c, cfg->min_effect))
		return false;
	snprintf(why, len,
		 "traffic not steady: %s %s in the first half of the window, %s in the second",
		 tnr_objective_name(o), tnr_fmt_bps(c.meda, x, sizeof(x)),
		 tnr_fmt_bps(c.medb, y, sizeof(y)));
	return true;
}

/* A decision about tr on ifc at now: the trial's start action, its changes, no reason yet. */
void tnr_action_from_trial(const struct iface *ifc, const struct trial *tr,
			   enum tuner_action_kind kind, uint64_t now, struct tuner_action *out)
{
	*out = tr->start;
	out->kind = kind;
	out->ts_ms = now;
	memcpy(out->changes, tr->chg, sizeof(out->changes));
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->reason[0] = '\0';
}

struct iface_memo *tnr_memo(struct iface *ifc)
{
	if (!ifc->memo)
		ifc->memo = calloc(1, sizeof(*ifc->memo));
	return ifc->memo;
}

/* Count a decision in ifc's per-knob tallies. */
void tnr_count(struct iface *ifc, const struct tuner_action *a)
{
	int slot = tnr_knob_slot(a->knob);

	if (a->kind != TUNER_NONE && slot >= 0 && tnr_memo(ifc))
		ifc->memo->decisions[slot][a->kind]++;
}
