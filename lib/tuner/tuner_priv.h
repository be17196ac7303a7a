/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TUNER_PRIV_H
#define RTLTUNE_TUNER_PRIV_H

/*
 * Inside the tuner (include/rtltune/tuner.h is the API): tuner_stats.c (windows, the
 * criterion's statistics, the words of a reason), tuner_rules.c (what to try next),
 * tuner_config.c (tunables and names), tuner.c (interfaces, trials, the state machine),
 * tuner_switchback.c (gains judged by switchback), tuner_trial.c (a trial's ends: keep,
 * rollback, step, retest, backoff). Calls go one way, tuner.c -> tuner_switchback.c ->
 * tuner_trial.c -> tuner_rules.c -> tuner_stats.c, tuner_config.c; the types here are the
 * module's, not tuner.c's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/link.h"
#include "rtltune/tuner.h"

/* GSO_LEGACY_MAX_SIZE: the kernel mirrors sizes up to this into the IPv4 twin. */
#define LEGACY_MAX_SIZE 65536

/* One sample reduced to what the rules and the criterion read. */
struct point {
	double secs;
	unsigned int have;
	double tx_bytes, rx_bytes, tx_pkts, rx_pkts, tx_segs;
	double gso_skbs, gso_at_cap, rx_skbs, gro_at_cap;
	double retrans, drops, busy, timeouts, cpu_ns;
	double cpu_busy_ns;		 /* the CPUs' busy time (TUNER_HAVE_CPU_BUSY) */
	double retrans_skbs;		 /* the retransmissions the segments went out in */
	double backlog_drops, squeezes;	 /* the host's (TUNER_HAVE_SOFTNET) */
	double softirq_max, softirq_min; /* shares of the interval (TUNER_HAVE_SOFTIRQ) */
	int busiest;
	double overruns; /* frames the rx ring had no room for (TUNER_HAVE_OVERRUNS) */
	double rtt_us;	 /* median smoothed TCP RTT (TUNER_HAVE_RTT) */
};

/*
 * The newest n points, oldest first. The storage grows as points come, up to the cap
 * the pusher gives: most interfaces never carry traffic and hold none, the others what
 * the configuration asks (8 points by default), not TUNER_MAX_WINDOW.
 */
struct window {
	struct point *p;
	unsigned int n, size; /* points held, room for */
};

/* Fault counters, in the order a fix looks at them (the most severe first). Ring overruns
 * come last: only ring-overruns cures them (tnr_fault_present() leaves them out, so that
 * they neither call for the TX-side fixes nor hold the gains back), and a trial that makes
 * them rise is rolled back like for any other penalty. */
enum fault { F_TIMEOUTS, F_RETRANS, F_BUSY, F_DROPS, F_BACKLOG, F_SQUEEZE, F_OVERRUNS, F__COUNT };

struct fault_desc {
	const char *name;
	const char *unit;
	unsigned int have; /* enum tuner_have bits it needs */
};
extern const struct fault_desc tnr_faults[F__COUNT];

/*
 * Which throughput a knob moves: TX offloads the sent bytes, GRO the received ones. Where
 * the receive work runs (RPS, threaded NAPI) is judged per busy CPU second instead: moving
 * it to an idle CPU raises throughput by spending that CPU, and a change is worth keeping
 * only when the bytes per CPU spent rise (bench-napi: RPS +41% throughput for +50% CPU).
 */
enum objective { OBJ_TX, OBJ_RX, OBJ_BOTH, OBJ_RX_PER_CPU };

/* The knob table says which traffic a knob moves (knob.h, .dir). */
static inline enum objective tnr_knob_objective(enum knob_id k)
{
	if (k == KNOB_NAPI_THREADED || k == KNOB_RPS_CPUS)
		return OBJ_RX_PER_CPU;
	switch (knob_desc(k)->dir) {
	case KNOB_DIR_RX:
		return OBJ_RX;
	case KNOB_DIR_BOTH:
		return OBJ_BOTH;
	default:
		return OBJ_TX;
	}
}

static inline const char *tnr_objective_name(enum objective o)
{
	return o == OBJ_TX	     ? "tx throughput"
	       : o == OBJ_RX	     ? "rx throughput"
	       : o == OBJ_RX_PER_CPU ? "rx throughput per busy CPU"
				     : "throughput";
}

/* Bytes per second of the objective; per busy CPU second for OBJ_RX_PER_CPU (per second
 * of the interval in a sample without the CPUs' busy time). */
static inline double tnr_throughput(const struct point *p, enum objective o)
{
	double b = o == OBJ_TX				? p->tx_bytes
		   : o == OBJ_RX || o == OBJ_RX_PER_CPU ? p->rx_bytes
							: p->tx_bytes + p->rx_bytes;

	if (o == OBJ_RX_PER_CPU && (p->have & TUNER_HAVE_CPU_BUSY) && p->cpu_busy_ns > 0)
		return b / (p->cpu_busy_ns / 1e9);
	return b / p->secs;
}

enum trial_kind { TRIAL_GAIN, TRIAL_FIX };

/* Pairs a switchback trial may take (switch_pairs x the judge-slowly factor fits). */
#define TUNER_MAX_PAIRS (TUNER_MAX_WINDOW / 2)
/* Differences of adjacent samples at one value that set the scale of a switchback's test:
 * the baseline's pairs, then each block's two samples. */
#define TUNER_NULL_PAIRS TUNER_MAX_WINDOW

/*
 * A gain on a knob the traffic shows at once (docs/tuning.md "Switchback"): one sample at
 * the trial's values (B), then the pre-trial ones (A) and the trial's in blocks of two,
 * B B A A B B A A ..., so that every pair of adjacent samples across a switch, (A before the
 * trial, B 0), (B 1, A 2), (A 3, B 4), ..., gives one difference B - A on a log scale, in
 * alternating order (a trend cancels) and one sample apart (slow drift cancels). The pairs
 * within a block, (B 0, B 1), (A 2, A 3), ..., differ by noise alone: with the baseline's,
 * they measure the spread.
 */
struct switchback {
	unsigned int samples; /* observed since the trial started */
	unsigned int pairs, nulls;
	double d_thr[TUNER_MAX_PAIRS], d_cpu[TUNER_MAX_PAIRS];
	double e_thr[TUNER_NULL_PAIRS], e_cpu[TUNER_NULL_PAIRS];
	double last_thr, last_cpu;    /* log values of the sample before */
	bool cpu;		      /* CPU per byte in every sample: its test runs too */
	int64_t b[TUNER_MAX_CHANGES]; /* the trial's values */
	bool keep_pending; /* kept with the pre-trial values on: the trial's go back first */
	char verdict[640];
};

struct trial {
	struct tuner_action start;
	/* from: the pre-trial value; to: the value applied now (steps move it). */
	struct tuner_change chg[TUNER_MAX_CHANGES];
	int64_t step_from[TUNER_MAX_CHANGES]; /* values before the step being applied */
	unsigned int steps;
	/* A promising gain judged again (verdict()): 1 collecting a fresh baseline at the
	 * pre-trial values, 2 observing the trial's values again; 0 not (yet). */
	unsigned int retest;
	enum trial_kind kind;
	int fault; /* TRIAL_FIX: the fault it must cure */
	double min_effect;
	struct window base, obs;
	uint64_t started_ms;
	int64_t cap; /* ring-overruns: the ring's largest size, where its steps stop */
	bool switchback; /* judged by switchback (sb), not by windows before and after */
	struct switchback sb;
	struct tuner_action rollback; /* given again while it keeps failing */
};

/* The knobs the rules act on (tuner_rules.c: MTU, TSO, GRO, the GSO and GRO sizes; the
 * host's net.core knobs; threaded NAPI, RPS, the rx ring, NAPI deferral) have a slot
 * (test_rule_knobs_in_range checks): per-knob backoff and counts are kept for those; a
 * knob without one would get no backoff and no count. */
#define TUNER_KNOBS (LINK_KNOBS + KNOB_HOST_COUNT + 5)

/* The slots after the link and host knobs'. */
static const enum knob_id tnr_extra_knobs[TUNER_KNOBS - LINK_KNOBS - KNOB_HOST_COUNT] = {
	KNOB_NAPI_THREADED, KNOB_RPS_CPUS, KNOB_RING_RX, KNOB_NAPI_DEFER_HARD_IRQS,
	KNOB_GRO_FLUSH_TIMEOUT,
};

/* Knob k's slot in the rows below, -1 for a knob no rule acts on. */
static inline int tnr_knob_slot(enum knob_id k)
{
	if ((unsigned int)k < LINK_KNOBS)
		return (int)k;
	if (knob_is_host(k))
		return LINK_KNOBS + (int)(k - KNOB_FIRST_HOST);
	for (unsigned int i = 0; i < sizeof(tnr_extra_knobs) / sizeof(tnr_extra_knobs[0]); i++)
		if (k == tnr_extra_knobs[i])
			return LINK_KNOBS + KNOB_HOST_COUNT + (int)i;
	return -1;
}

static inline enum knob_id tnr_slot_knob(int slot)
{
	if (slot < LINK_KNOBS)
		return (enum knob_id)slot;
	if (slot < LINK_KNOBS + KNOB_HOST_COUNT)
		return (enum knob_id)(KNOB_FIRST_HOST + slot - LINK_KNOBS);
	return tnr_extra_knobs[slot - LINK_KNOBS - KNOB_HOST_COUNT];
}

/*
 * What feeding an interface keeps: the environment of the last sample and the knob values
 * the baseline window was taken with (2.5 KiB). Allocated at the first feed and let go,
 * with the window's storage, when the interface rests (tuner_iface_rest()): an idle pod
 * of a node's thousand carries none.
 */
struct iface_fed {
	struct tuner_env env;
	int64_t win_knob[KNOB__COUNT];
};

/* What the tuner remembers of an interface once it decided something there: each knob
 * slot's backoff both ways and its decisions counted (1.4 KiB; allocated at the first
 * backoff or decision, kept while the interface is tracked). */
struct iface_memo {
	struct tuner_backoff backoff[TUNER_KNOBS][2];
	uint32_t decisions[TUNER_KNOBS][TUNER_ACTION__COUNT];
};

struct iface {
	struct iface *hnext; /* the next in its bucket of struct tuner's hash */
	int ifindex;
	char ifname[IF_NAMESIZE];
	enum tuner_state state;
	struct window win;     /* the baseline being collected (sliding) */
	struct iface_fed *fed; /* NULL until fed, and again once it rests */
	unsigned int count;    /* samples of settle / cooldown */
	bool in_trial;
	bool awaiting; /* an apply result is due (APPLYING, ROLLING_BACK) */
	/* The trial in progress (or the last one): 3.9 KiB that an interface never tried
	 * (a node's idle pods) does not carry, allocated at its first trial and kept (its
	 * windows' storage outlives a trial). Read only in a trial's states. */
	struct trial *trial;
	/* Kept for the knobs a rule can act on only (TUNER_KNOBS), not every knob. */
	struct iface_memo *memo; /* NULL: nothing decided or backed off here yet */
	uint64_t last_ts_ms;
	bool have_ts;
};

/* The backoff of knob k in direction d; NULL for a knob without a slot, or none yet. */
static inline const struct tuner_backoff *tnr_backoff(const struct iface *ifc, enum knob_id k,
						      enum tuner_dir d)
{
	int slot = tnr_knob_slot(k);

	return slot >= 0 && ifc->memo ? &ifc->memo->backoff[slot][d] : NULL;
}

/* The environment of the last sample fed; NULL before the first (or after a rest). */
static inline const struct tuner_env *tnr_env(const struct iface *ifc)
{
	return ifc->fed ? &ifc->fed->env : NULL;
}

/* ifc's memo, allocated at the first call; NULL out of memory (nothing is remembered). */
struct iface_memo *tnr_memo(struct iface *ifc);

struct tuner {
	struct tuner_config cfg;
	/* The interfaces by ifindex: n_buckets (a power of two, grown to at least one per
	 * interface), each a chain through hnext. Every call names an interface by ifindex,
	 * and a node of 1000 pods feeds 1000 a second: no walk of a list. */
	struct iface **buckets;
	unsigned int n_buckets, n_ifaces;
	unsigned int active_trials;
	unsigned int next_trial;
};

/* Baseline a vs trial b: means, medians, Welch's t and its critical value. */
struct cmp {
	unsigned int na, nb;
	double ma, mb, meda, medb, t, df, tcrit;
	double rho; /* lag-1 autocorrelation the variances were corrected for */
};

/* Sums over a window; have holds only what every sample had. */
struct agg {
	unsigned int n, have;
	double secs, tx_bytes, rx_bytes, tx_pkts, rx_pkts, tx_segs;
	double gso_skbs, gso_at_cap, rx_skbs, gro_at_cap, cpu_ns;
	double softirq_max, softirq_min; /* time-weighted means of the samples' shares */
	int busiest;			 /* the busiest CPU of the newest sample */
	double ev[F__COUNT], ex[F__COUNT];
	/* Independent occurrences behind ev: retransmitted segments come in bursts (one
	 * retransmitted skb resends many), so their count is far from Poisson. */
	double occ[F__COUNT];
};

/* tuner_stats.c */
void tnr_cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *tnr_fmt_bps(double bytes_per_s, char *buf, size_t len);
const char *tnr_fmt_fault_rate(enum fault f, double rate, char *buf, size_t len);
const char *tnr_fmt_fault_change(enum fault f, double a, double b, char *buf, size_t len);
double tnr_pct(double ratio);
double tnr_median_of(const double *v, unsigned int n);
void tnr_compare(const double *a, unsigned int na, const double *b, unsigned int nb, struct cmp *c);
bool tnr_cmp_up(const struct cmp *c, double min_effect);
bool tnr_cmp_down(const struct cmp *c, double min_effect);
double tnr_tclamp(double t);
double tnr_rate_z(double ka, double ea, double kb, double eb);
double tnr_fault_z(const struct agg *a, const struct agg *b, enum fault f);
int tnr_win_push(struct window *w, const struct point *p, unsigned int cap);
int tnr_win_copy(struct window *dst, const struct window *src);
void tnr_win_free(struct window *w);
unsigned int tnr_win_values(const struct window *w, unsigned int from, unsigned int to,
			    enum objective o, double *v);
unsigned int tnr_win_cpu_per_byte(const struct window *w, double *v);
double tnr_win_mean_secs(const struct window *w);
void tnr_aggregate(const struct window *w, struct agg *a);
double tnr_agg_rate(const struct agg *a, enum fault f);
unsigned int tnr_fault_min_events(const struct tuner_config *cfg, enum fault f);
/* The rate from which fault f counts: fault_ratio, the host's shares; 0 for timeouts. */
double tnr_fault_threshold(const struct tuner_config *cfg, enum fault f);
int tnr_fault_present(const struct tuner_config *cfg, const struct agg *a, char *text, size_t len);
double tnr_pair_bf(const double *e, unsigned int m, const double *d, unsigned int n, double shift,
		   double g, double *mean);

/* tuner_rules.c */
/* A host knob's cap (backlog_max, ...) and the next value a fix tries (doubling, capped). */
int64_t tnr_host_cap(const struct tuner_config *cfg, enum knob_id k);
int64_t tnr_host_next(const struct tuner_config *cfg, enum knob_id k, int64_t cur);
/* The rx ring size ring-overruns tries next from cur: doubling up to max. */
int64_t tnr_ring_next(int64_t cur, int64_t max);
int tnr_evaluate(const struct tuner *t, const struct iface *ifc, const struct tuner_env *env,
		 const struct window *w, uint64_t now, struct tuner_candidate cands[]);
bool tnr_unsteady(const struct tuner_config *cfg, const struct window *w, enum objective o,
		  char *why, size_t len);
bool tnr_fault_unsteady(const struct tuner_config *cfg, const struct window *w,
			enum tuner_rule rule, char *why, size_t len);
/* The fault a rule of its own cures (the host's and ring-overruns: F_BACKLOG, F_SQUEEZE,
 * F_OVERRUNS); -1 for the TX-side fixes, which take the worst present. */
int tnr_rule_own_fault(enum tuner_rule rule);
int tnr_rule_fault(const struct tuner_config *cfg, enum tuner_rule rule, const struct agg *a,
		   char *text, size_t len);

enum backoff_mode {
	BO_REJECT, /* the trial lost or failed: back off, and double the next period */
	BO_ABORT,  /* not judged (traffic stopped, pinned, autotune off): back off, no doubling */
	BO_KEEP,   /* kept: chain freely; a kept fix holds back its reverse for a period */
};

/* tuner.c: what a trial's judges share */
unsigned int tnr_factor(const struct tuner_config *cfg, const struct iface *ifc);
void tnr_action_from_trial(const struct iface *ifc, const struct trial *tr,
			   enum tuner_action_kind kind, uint64_t now, struct tuner_action *out);
void tnr_count(struct iface *ifc, const struct tuner_action *a);
void tnr_give_rollback(struct tuner *t, struct iface *ifc, enum backoff_mode mode, uint64_t now,
		       const char *reason, struct tuner_action *out);
void tnr_give_keep(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		   struct tuner_action *out);
void tnr_penalty_summary(const struct agg *a, const struct agg *b, int skip, char *buf, size_t len);
bool tnr_observe_early(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out);
bool tnr_raise_unused(const struct tuner_config *cfg, const struct trial *tr,
		      const struct tuner_env *env, const struct agg *ob, char *why, size_t len);

/* tuner_switchback.c */
bool tnr_switchback_fits(const struct tuner_candidate *c);
unsigned int tnr_switch_baseline_needed(const struct tuner *t, const struct iface *ifc);
unsigned int tnr_switch_pairs_max(const struct tuner *t, const struct iface *ifc);
unsigned int tnr_switch_pairs_now(const struct tuner *t, const struct iface *ifc);
void tnr_switchback_begin(struct trial *tr, const struct tuner_candidate *c);
void tnr_feed_switchback(struct tuner *t, struct iface *ifc, const struct point *p, uint64_t now,
			 struct tuner_action *out);

/* tuner_trial.c: a trial's ends, for tuner.c and tuner_switchback.c */
void tnr_describe_cmp(const char *what, const struct cmp *c, bool bps, char *buf, size_t len);
bool tnr_can_step(const struct tuner_config *cfg, const struct trial *tr, bool cured);
void tnr_give_step(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		   struct tuner_action *out);
bool tnr_promising(const struct trial *tr, const struct cmp *thr);
void tnr_give_retest(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		     struct tuner_action *out);
void tnr_backoff_update(const struct tuner_config *cfg, struct iface *ifc, enum knob_id k,
			enum tuner_dir d, enum backoff_mode mode, uint64_t now);
void tnr_trial_end(struct tuner *t, struct iface *ifc);
/* napi-defer's latency guard on tr's windows: 1 tripped, 0 held, -1 no RTT; why says it. */
int tnr_rtt_guard(const struct tuner_config *cfg, const struct trial *tr, char *why, size_t len);
uint64_t tnr_backoff_left_s(const struct iface *ifc, enum knob_id k, enum tuner_dir d,
			    uint64_t now);

#endif
