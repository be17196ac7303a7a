/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TUNER_H
#define RTLTUNE_TUNER_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * The autotuner's decision core (docs/tuning.md): turns per-interval samples into trials
 * (propose, apply, observe, keep or roll back). Pure logic: no I/O, no clock reads (time
 * is passed in, monotonic milliseconds); after tuner_iface_add() it allocates only as an
 * interface's windows grow and at its first trial (out of memory: -ENOMEM, no trial). The
 * daemon owns sampling, the journal and the actuator (actuate.h); the tuner only says what to do.
 *
 * Daemon wiring, per managed interface (one thread; the tuner is not thread-safe):
 *	tuner_iface_add()                 when the interface is managed
 *	tuner_iface_rename/remove()       as rtnetlink reports
 *	every sample interval:
 *	  tuner_feed(sample, env, now) -> action; act on it:
 *	  TUNER_START_TRIAL  set every changes[i].knob to changes[i].to through apply
 *	                     (op "trial": the journal keeps the pre-values in flight until
 *	                     the verdict), then tuner_applied(ok)
 *	  TUNER_KEEP         end the in-flight trial; log
 *	  TUNER_ROLLBACK     set every changes[i].knob to changes[i].to (the pre-trial
 *	                     values), end the in-flight trial, log, then tuner_applied(ok)
 *	  TUNER_STEP         the trial goes on one step further (a fix that did not cure
 *	                     yet: gso_max_size halved again; a switchback switching between
 *	                     the trial's and the pre-trial values): set changes[i].knob to
 *	                     changes[i].to like START_TRIAL, keeping the in-flight trial
 *	                     (its pre-values stay the first ones), then tuner_applied(ok)
 *	  TUNER_ABANDON      someone else changed the knob mid-trial: end the in-flight
 *	                     trial, change nothing, log
 *	  TUNER_FAILED       (from tuner_applied(ok = false)) nothing changed; log
 *	tuner_abort()      on shutdown or `autotune off`: a ROLLBACK when a trial is applied
 *	tuner_recommend()  for `rtltune recommend`: what it would try next and why
 *	tuner_iface_info() for `status`: state, trial, backoff, decision counts
 * Every action except NONE is a decision record: log it (journal_log_append with
 * tuner_outcome_name() as the outcome) and, unless .retry, count
 * rtltune_tuning_decisions_total{knob = knob_name(action.knob),
 * outcome = tuner_outcome_name(action.kind)}.
 */

/* What a sample carries beyond packets and bytes (the netlink fallback has only those). */
enum tuner_have {
	TUNER_HAVE_GSO = 1u << 0,	/* tx_segs, tx_gso_skbs, tx_gso_at_cap */
	TUNER_HAVE_GRO = 1u << 1,	/* rx_skbs, rx_gro_at_cap */
	TUNER_HAVE_RETRANS = 1u << 2,	/* tcp_retransmits */
	TUNER_HAVE_DROPS = 1u << 3,	/* drops */
	TUNER_HAVE_TX_FAULTS = 1u << 4, /* tx_busy, tx_timeouts */
	TUNER_HAVE_CPU = 1u << 5,	/* cpu_ns */
	TUNER_HAVE_SOFTNET = 1u << 6,	/* backlog_drops, time_squeeze (the host's samples) */
	TUNER_HAVE_SOFTIRQ = 1u << 7,	/* softirq_max_ppm, softirq_min_ppm, softirq_busiest */
	TUNER_HAVE_CPU_BUSY = 1u << 8,	/* cpu_busy_ns */
	TUNER_HAVE_OVERRUNS = 1u << 9,	/* rx_overruns (the driver's qstats) */
	TUNER_HAVE_RTT = 1u << 10,	/* tcp_rtt_us */
};

/*
 * The host's pseudo-interface: the host-wide knobs (net.core.*) are tuned on it, from
 * samples of the whole host (softnet_stat summed over the CPUs) that the daemon feeds
 * under this ifindex, which no device has. Only the host rules look at it (backlog drops,
 * time squeeze), and they look at nothing else.
 */
#define TUNER_HOST 0

/* Counter deltas over one sample interval of one interface. */
struct tuner_sample {
	uint64_t ts_ms;	      /* monotonic, end of the interval */
	uint32_t interval_ms; /* span of the deltas; 0: since the previous sample's ts_ms */
	unsigned int have;    /* enum tuner_have bits */
	uint64_t tx_packets;  /* skbs handed to the driver */
	uint64_t tx_bytes;
	uint64_t tx_segs;    /* wire segments: a GSO skb counts its gso_segs */
	uint64_t rx_packets; /* frames as the driver delivered them (GSO skbs: their segments) */
	uint64_t rx_bytes;
	uint64_t tx_gso_skbs;	/* GSO skbs handed to the driver */
	uint64_t tx_gso_at_cap; /* of those, at/near gso_max_size (top log2 bucket <= cap) */
	uint64_t rx_skbs;	/* skbs after GRO */
	uint64_t rx_gro_at_cap; /* of those, merged up to at/near gro_max_size */
	/* Retransmitted segments attributed to the interface, less those TCP found spurious
	 * (the rtltuned sampler takes off the namespace's DSACKed share: tcpstat_lossy()). */
	uint64_t tcp_retransmits;
	/* The retransmissions those segments went out in (skbs; after a loss TCP resends a
	 * GSO skb of many segments at once). 0: unknown, every segment counts as one. */
	uint64_t tcp_retransmit_skbs;
	uint64_t drops;
	uint64_t tx_busy;     /* driver refusals (NETDEV_TX_BUSY) */
	uint64_t tx_timeouts; /* TX watchdog */
	uint64_t cpu_ns;      /* kernel CPU time (system + irq + softirq, all CPUs) */
	/* The host's samples (TUNER_HOST): rx_packets are the packets the CPUs' receive
	 * softirqs processed (softnet_stat), rx_bytes what the managed interfaces received. */
	uint64_t backlog_drops; /* packets a full per-CPU backlog dropped (CPU_BACKLOG) */
	uint64_t time_squeeze;	/* NET_RX runs that ran out of budget with work left */
	/* The CPUs' softirq time over the interval, in millionths of it: the busiest CPU's
	 * (and its number) and the least busy one's (host-wide: every device's receive work). */
	uint32_t softirq_max_ppm, softirq_min_ppm;
	int32_t softirq_busiest;
	/* Busy time of all online CPUs over the interval: elapsed time less the idle time
	 * /proc/stat gives them (on a tickless kernel from the idle clock, so short bursts of
	 * softirq work on an otherwise idle CPU count, which the tick-sampled cpu_ns misses). */
	uint64_t cpu_busy_ns;
	/* Frames the device dropped because its receive ring was full (qstats
	 * rx-hw-drop-overruns, the netdev family; drivers that keep it). */
	uint64_t rx_overruns;
	/* Median smoothed RTT of the namespace's established TCP connections at the end of
	 * the interval, microseconds (a latency guard for the NAPI deferral trial). */
	uint32_t tcp_rtt_us;
};

/* The interface as it is now, and what the tuner may do to it. Passed with every sample. */
struct tuner_env {
	int64_t knob[KNOB__COUNT]; /* current values, LINK_UNSET (-1) when unknown */
	/* Effective limits (chip_effective_limits(): kernel cut by the chip database);
	 * <= 0 when unknown, and then the knob is never raised. */
	int64_t gso_max; /* largest gso_max_size (tso_max_size, BIG TCP per the chip) */
	int64_t gro_max; /* largest gro_max_size */
	int64_t mtu_max; /* max_mtu */
	/* The rx ring's largest size (ethtool's rings rx_max): where ring-overruns stops. */
	int64_t ring_rx_max;
	/* The admin's allowed_mtu range; 0..0 (the default) means MTU is never touched. */
	int64_t allowed_mtu_min, allowed_mtu_max;
	uint32_t quirks; /* enum chip_quirk bits of the matched entry */
	/* Why gso_max is lower than the chip allows, when a device above it stops a raise
	 * ("br0 (upper of ta) caps at 65536: its port tap0 has gso_max_size 65536"), or why
	 * the last change did not reach established connections (their routes could not be
	 * invalidated), else "". A raise that goes unused names it. */
	char limit_note[192];
	bool pinned[KNOB__COUNT]; /* don't touch (config pins, ethtool "fixed" features) */
	/* Changed outside rtltune and left to whoever did it (docs/daemon.md "Hands off"):
	 * never tried, and a trial of it ends at once without a rollback (TUNER_ABANDON). */
	bool manual[KNOB__COUNT];
	bool autotune; /* `autotune on|off IFACE`, --no-autotune */
	/* The device's NAPIs (-1: not known; 0: it delivers through the CPUs' backlogs) and
	 * the online CPUs (bit n: CPU n, for CPUs below 63), for rx-spread. */
	int n_napi;
	int64_t cpus_online;
	/* Whether the device's NAPIs are driven by hardware interrupts (napi-get names an
	 * IRQ): 1 yes, 0 no (veth), -1 not known. */
	int napi_irq;
};

/*
 * Tunables, with their defaults (tuner_config_default()) and why in docs/tuning.md.
 * tuner_config_set() parses one by name for the daemon's [tuner] config section.
 */
struct tuner_config {
	unsigned int baseline_samples;	  /* 8: samples before a trial */
	unsigned int settle_samples;	  /* 2: ignored after a change (queues drain, TCP adapts) */
	unsigned int observe_samples;	  /* 8: samples judged after the change */
	unsigned int judge_slowly_factor; /* 3: windows x this on judge-slowly chips */
	unsigned int max_trials;	  /* 1: trials at once over all interfaces */
	double min_effect;		  /* 0.05: smallest relative gain kept (medians) */
	double idle_bytes_per_s;	  /* 125000: below this and idle_packets_per_s: idle */
	double idle_packets_per_s;	  /* 100 */
	double cap_share;		  /* 0.5: share of skbs at the cap that calls for a raise */
	double gso_min_skbs_per_s;	  /* 100: GSO skbs/s before GSO rules look at the shares */
	double gro_min_skbs_per_s;	  /* 100 */
	double gro_on_min_pps;		  /* 10000: frames/s received that call for GRO on */
	int64_t gso_floor;		  /* 16384: gso_max_size is never lowered below this */
	double fault_ratio;		  /* 0.01: retransmits/segments, drops/packets, busy/skbs */
	double fault_cap_share;		  /* 0.25: share of GSO skbs at the cap to blame GSO size */
	unsigned int fault_min_events;	  /* 20: events in a window before a ratio counts */
	double penalty_z;		  /* 3.0: z of a penalty rise that rolls back at once */
	double penalty_min_rise;	  /* 0.25: relative rise of a penalty rate that counts */
	double fix_z;			  /* 2.5: z of the fall a fix must show */
	double fix_min_fall;		  /* 0.5: relative fall of the fault rate a fix must show */
	double fix_max_loss;		  /* 0.25: throughput a fix may cost and still be kept */
	double collapse;		  /* 0.5: throughput median below (1 - this) x baseline */
	double mtu_min_bytes_per_s;	  /* 1e6: traffic before the MTU rule looks */
	double mtu_full_share;		  /* 0.8: average frame / MTU that counts as full */
	double jumbo_tso_factor;	  /* 3: min_effect x this when jumbo turns TSO off */
	unsigned int switch_baseline;	  /* 4: samples before a switchback trial */
	unsigned int switch_pairs;	  /* 8: most pairs a switchback trial takes */
	double false_keep;		  /* 0.05: bound on keeping a gain below min_effect */
	double backlog_drop_share;	  /* 0.0001: backlog drops / packets that call for a raise */
	int64_t backlog_max;		  /* 65536: netdev_max_backlog is never raised above this */
	double squeeze_share;		  /* 0.0005: time squeezes / packets that call for a raise */
	int64_t budget_max;		  /* 4800: netdev_budget is never raised above this */
	int64_t budget_usecs_max;	  /* 32000: nor netdev_budget_usecs above this */
	double spread_busy_share;	  /* 0.5: busiest CPU's softirq share that is saturation */
	double spread_free_share;	  /* 0.2: another CPU's softirq share that leaves it free */
	double overrun_share;		  /* 0.0001: ring overruns / frames that call for a raise */
	int64_t defer_hard_irqs;	  /* 2: napi_defer_hard_irqs napi-defer tries */
	int64_t defer_gro_flush_ns;	  /* 200000: gro_flush_timeout it tries with them */
	double defer_max_rtt_rise;	  /* 0.1: median TCP RTT rise that rolls back... */
	double defer_min_rtt_rise_us;	  /* 50: ...when at least this many microseconds */
	uint64_t backoff_initial_ms;	  /* 300000: after the first rejected trial */
	uint64_t backoff_max_ms;	  /* 86400000: doubling stops here */
};

void tuner_config_default(struct tuner_config *cfg);
/* Consistency (window sizes fit TUNER_MAX_WINDOW, ratios in range): RTERR_INPUT. */
int tuner_config_check(const struct tuner_config *cfg, struct rterr *err);
/*
 * Set the tunable named key ("observe_samples", "min_effect", "backoff_initial") from
 * text: counts, decimals, durations with ms/s/m/h suffix. RTERR_INPUT naming the key,
 * the expected form and the range; the caller prefixes file:line.
 */
int tuner_config_set(struct tuner_config *cfg, const char *key, const char *value,
		     struct rterr *err);
/* Iterate the tunables: names for i < tuner_config_nkeys(), value as text into buf. */
unsigned int tuner_config_nkeys(void);
const char *tuner_config_key(unsigned int i);
int tuner_config_format(const struct tuner_config *cfg, const char *key, char *buf, size_t len);

/* Longest window (samples) a configuration may ask for, judge-slowly factor included. */
#define TUNER_MAX_WINDOW 64

enum tuner_rule {
	TUNER_RULE_GSO_FAULTS, /* faults with big GSO skbs -> lower gso_max_size */
	TUNER_RULE_TSO_FAULTS, /* faults persist (or chip quirk) -> TSO off */
	TUNER_RULE_GSO_AT_CAP, /* GSO skbs pile up at the cap -> raise gso_max_size */
	TUNER_RULE_GRO_OFF,    /* high frame rate received with GRO off -> GRO on */
	TUNER_RULE_GRO_AT_CAP, /* merged skbs pile up at gro_max_size -> raise it */
	TUNER_RULE_MTU,	       /* full frames, admin allowed a larger MTU -> raise it */
	TUNER_RULE_RX_SPREAD,  /* receive work holds one CPU, another is free -> threaded
				* NAPI (a device with NAPIs) or RPS (one without) */
	/* The NIC's receive path: the rx ring overflows (qstats) -> raise ring_rx (a fix);
	 * bulk receive on interrupts -> napi_defer_hard_irqs with gro_flush_timeout, kept for
	 * less CPU per byte, rolled back on a rise of the median TCP RTT (a gain). */
	TUNER_RULE_RING_OVERRUNS,
	TUNER_RULE_NAPI_DEFER,
	/* The host's (TUNER_HOST) rules: fixes that raise a host-wide knob. */
	TUNER_RULE_BACKLOG, /* per-CPU backlogs overflow -> raise netdev_max_backlog */
	TUNER_RULE_SQUEEZE, /* NET_RX runs out of budget -> raise netdev_budget(_usecs) */
	TUNER_RULE__COUNT
};
const char *tuner_rule_name(enum tuner_rule r); /* "gso-faults", ... */
/* The next value the host's rules try for host knob k from cur: doubling (from at least
 * 64) up to the knob's cap in cfg (backlog_max, budget_max, budget_usecs_max); cur when
 * it is at the cap. */
int64_t tuner_host_next(const struct tuner_config *cfg, enum knob_id k, int64_t cur);
/* A fix (a fault must fall: gso-faults, tso-faults, ring-overruns and the host's rules),
 * not a gain. */
bool tuner_rule_is_fix(enum tuner_rule r);
/* One of the host's rules (TUNER_HOST), which a device never runs, nor the host a device's. */
bool tuner_rule_for_host(enum tuner_rule r);

enum tuner_dir { TUNER_DOWN, TUNER_UP };
const char *tuner_dir_name(enum tuner_dir d); /* "down", "up" */

enum tuner_action_kind {
	TUNER_NONE,
	TUNER_START_TRIAL,
	TUNER_KEEP,
	TUNER_ROLLBACK,
	TUNER_ABANDON,
	TUNER_FAILED,
	TUNER_STEP,
	TUNER_ACTION__COUNT
};
/* The decision log's outcome and the metric label: "trial", "kept", "rolled_back",
 * "abandoned", "failed", "step" ("none" for TUNER_NONE). */
const char *tuner_outcome_name(enum tuner_action_kind k);

#define TUNER_MAX_CHANGES 2 /* a size and its IPv4 twin */

struct tuner_change {
	enum knob_id knob;
	int64_t from, to; /* the action sets knob to `to` (KEEP/ABANDON/FAILED: informative) */
};

struct tuner_action {
	enum tuner_action_kind kind;
	uint64_t ts_ms;
	unsigned int trial; /* number of the trial it belongs to (per tuner, from 1) */
	bool retry;	    /* a ROLLBACK given again after a failed one: count it once */
	int ifindex;
	char ifname[IF_NAMESIZE];
	enum tuner_rule rule;
	enum knob_id knob; /* the rule's knob: metric label and backoff key with dir */
	enum tuner_dir dir;
	/* START_TRIAL, STEP, ROLLBACK: what to set now. KEEP, ABANDON: from the pre-trial
	 * value to the trial's last one. FAILED: the change that was refused. */
	struct tuner_change changes[TUNER_MAX_CHANGES];
	unsigned int n_changes;
	char reason[640]; /* for people, with the numbers */
};

enum tuner_state {
	TUNER_ST_IDLE,	       /* no traffic: nothing collected */
	TUNER_ST_BASELINE,     /* collecting (and sliding) the baseline window */
	TUNER_ST_APPLYING,     /* START_TRIAL or STEP given, waiting for tuner_applied() */
	TUNER_ST_SETTLE,       /* change applied, samples ignored */
	TUNER_ST_OBSERVE,      /* collecting the trial's window */
	TUNER_ST_ROLLING_BACK, /* ROLLBACK given, waiting for (or retrying after) tuner_applied() */
	TUNER_ST_COOLDOWN,     /* after a rollback or failure, samples ignored */
	TUNER_ST__COUNT
};
const char *tuner_state_name(enum tuner_state s); /* "idle", "baseline", ... */

struct tuner;

/* A tuner with configuration cfg (NULL: defaults). RTERR_INPUT for a bad configuration. */
int tuner_new(const struct tuner_config *cfg, struct tuner **out, struct rterr *err);
void tuner_free(struct tuner *t); /* NULL is fine */
const struct tuner_config *tuner_config(const struct tuner *t);

/* Start tracking an interface (-EEXIST when tracked, -ENOMEM). */
int tuner_iface_add(struct tuner *t, int ifindex, const char *ifname);
/* Stop: its state, trial and backoff are forgotten (the journal holds what was in flight). */
int tuner_iface_remove(struct tuner *t, int ifindex);
int tuner_iface_rename(struct tuner *t, int ifindex, const char *ifname);
/*
 * The interface is idle and will not be fed for a while (its samples are skipped): out of
 * a trial and its cooldown, the tuner lets go of what only feeding needs (the baseline
 * window and the last environment, 2.5 KiB and up) and is idle there; the next feed starts
 * a new baseline, as after any gap. Its backoffs and decisions stay. -ENOENT: not tracked.
 */
int tuner_iface_rest(struct tuner *t, int ifindex);

/*
 * One sample of interface ifindex taken at now_ms, with the interface's current env.
 * Fills *out (kind TUNER_NONE when there is nothing to do). At most one action per call.
 * -ENOENT for an interface not added; -EINVAL for a NULL argument; -ENOMEM when a window
 * could not grow (that sample is left out).
 */
int tuner_feed(struct tuner *t, int ifindex, const struct tuner_sample *s,
	       const struct tuner_env *env, uint64_t now_ms, struct tuner_action *out);
/*
 * The result of the last START_TRIAL, STEP or ROLLBACK. A failed START_TRIAL yields a
 * TUNER_FAILED record in *out (and a backoff); a failed STEP a ROLLBACK to the pre-trial
 * values in *out (act on it as on any); a failed ROLLBACK is given again at the next
 * tuner_feed(). -EALREADY when no apply was awaited.
 */
int tuner_applied(struct tuner *t, int ifindex, bool ok, uint64_t now_ms, struct tuner_action *out);
/*
 * End the interface's trial now (daemon shutdown, `autotune off`, the interface going
 * away): a ROLLBACK when a change is applied or being applied (then tuner_applied()), else
 * TUNER_NONE. why goes into the reason.
 */
int tuner_abort(struct tuner *t, int ifindex, uint64_t now_ms, const char *why,
		struct tuner_action *out);

enum tuner_cand_status {
	TUNER_CAND_READY,	/* would start now */
	TUNER_CAND_NO_EVIDENCE, /* the samples do not call for it */
	TUNER_CAND_NO_DATA,	/* the samples lack what the rule needs (no probes, no samples) */
	TUNER_CAND_AT_LIMIT,	/* already at the chip's limit, the floor or the allowed range */
	TUNER_CAND_NOT_ALLOWED, /* configuration or chip quirk forbids it */
	TUNER_CAND_PINNED,
	TUNER_CAND_BACKOFF, /* rejected recently: backoff_until_ms */
	TUNER_CAND_AUTOTUNE_OFF,
	TUNER_CAND_WAITING, /* evidence is there; window not full, traffic not steady, busy */
	TUNER_CAND__COUNT
};
const char *tuner_cand_status_name(enum tuner_cand_status s); /* "ready", "no_evidence", ... */

struct tuner_candidate {
	enum tuner_rule rule;
	enum tuner_cand_status status;
	enum knob_id knob;
	enum tuner_dir dir;
	struct tuner_change changes[TUNER_MAX_CHANGES];
	unsigned int n_changes; /* 0 when the rule has no target */
	uint64_t backoff_until_ms;
	char reason[384];
};

struct tuner_recommendation {
	enum tuner_state state;
	unsigned int samples, needed; /* window collected / required */
	int next; /* index in cands of what it would try next (first ready or waiting), -1 */
	struct tuner_candidate cands[TUNER_RULE__COUNT]; /* in rule priority order */
	char summary[512]; /* one sentence: the trial in progress, or the next step and why */
};

/* What the tuner would do next on ifindex and why, from its last samples and env. */
int tuner_recommend(const struct tuner *t, int ifindex, uint64_t now_ms,
		    struct tuner_recommendation *out);
/* The same, with env: the interface's environment as the caller reads it now, used when the
 * tuner holds none (not fed yet, or resting: tuner_iface_rest()); NULL: every knob unknown. */
int tuner_recommend_env(const struct tuner *t, int ifindex, const struct tuner_env *env,
			uint64_t now_ms, struct tuner_recommendation *out);

struct tuner_backoff {
	uint64_t until_ms;     /* no trial of (knob, dir) before this; 0 none */
	uint64_t period_ms;    /* the next rejection backs off this long (0: initial) */
	unsigned int rejected; /* rejected trials since the last kept one */
};

struct tuner_iface_info {
	int ifindex;
	char ifname[IF_NAMESIZE];
	enum tuner_state state;
	unsigned int samples, needed; /* of the current window / settle / cooldown */
	bool in_trial;
	struct tuner_action trial; /* the trial in progress: its START_TRIAL, with changes
				    * from the pre-trial values to the ones applied now */
	uint64_t trial_started_ms;
	struct tuner_backoff backoff[KNOB__COUNT][2];	      /* [knob][enum tuner_dir] */
	uint32_t decisions[KNOB__COUNT][TUNER_ACTION__COUNT]; /* actions given, by kind */
};
int tuner_iface_info(const struct tuner *t, int ifindex, struct tuner_iface_info *out);
/* The interface's state alone (enum tuner_state), cheap enough per sample; -ENOENT. */
int tuner_iface_state(const struct tuner *t, int ifindex);

#endif
