// SPDX-License-Identifier: GPL-2.0-only
/*
 * The autotuner wired into the daemon (docs/tuning.md): lib/tuner/tuner.c decides, this file
 * keeps it, tracks the managed interfaces in it and feeds it one sample per interface per
 * sample interval; tune_act.c carries out what it says through the actuator, which keeps a
 * trial's pre-values in flight in the journal until the verdict, so that a crash
 * mid-trial is rolled back at the next start.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/cpustat.h"
#include "rtltune/sample.h"
#include "rtltune/tcprtt.h"
#include "rtltune/tcpstat.h"
#include "rtltune/tuner.h"
#include "trust.h"
#include "tune.h"
#include "tune_act.h"
#include "tune_host.h"
#include "signals.h"

static struct tuner *tuner;
static uint64_t cpu_ns_delta, cpu_ns_prev;
/* The CPUs' busy time over the last interval (cpustat_busy_ns()), from readings at
 * cpu_tot_at (monotonic ns). */
static struct cpustat_total cpu_tot_prev;
static uint64_t cpu_tot_at, cpu_busy_delta;
static bool cpu_busy_have;
/* TCP's counters for the namespace at the last sample (tcp_prev), and its retransmitted
 * segments and those DSACKed as spurious over the last two sample intervals (tcp_w_*),
 * the share tcpstat_lossy() takes off; both 0 when unknown. Two intervals: a DSACK comes
 * a round trip after its retransmit, often in the next sample. */
static struct tcpstat tcp_prev;
static bool tcp_prev_valid, tcp_warned;
static uint64_t tcp_d_retrans, tcp_d_dsack, tcp_w_retrans, tcp_w_dsack;

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

/* The previous reading goes (idle, or no longer tuned): 632 bytes an idle pod does not
 * keep. */
static void prev_drop(struct iface_tune *tp)
{
	free(tp->prev);
	tp->prev = NULL;
	tp->prev_valid = false;
}

static void track(struct iface *ifc)
{
	if (!tuner)
		return;
	if (ifc->managed && !ifc->m->tune.tuned) {
		if (tuner_iface_add(tuner, ifc->ifindex, ifc->name) == 0)
			ifc->m->tune.tuned = true;
		ifc->m->tune.prev_valid = false;
		ifc->m->tune.retrans_segs = ifc->m->tune.retrans_spurious = 0;
	}
}

/* No longer managed (or going): a trial in progress is rolled back first. */
static void untrack(struct iface *ifc, const char *why)
{
	struct tuner_action a = {0};

	if (!tuner || !ifc->m || !ifc->m->tune.tuned)
		return;
	if (why && tuner_abort(tuner, ifc->ifindex, now_ms(), why, &a) == 0)
		tune_act(tuner, ifc, &a);
	tuner_iface_remove(tuner, ifc->ifindex);
	ifc->m->tune.tuned = false;
}

void tune_iface_event(struct iface *ifc, const struct iface_change *c)
{
	struct tuner_action a = {0};

	/* Its managed part goes after the observers ran. */
	if (ifc->m && (c->ev == IFACE_GONE || !ifc->managed))
		prev_drop(&ifc->m->tune);
	switch (c->ev) {
	case IFACE_NEW:
	case IFACE_SELECTED:
		if (ifc->managed)
			track(ifc);
		else if (c->was_managed)
			untrack(ifc, "no longer managed");
		break;
	case IFACE_RENAMED:
		if (tuner && ifc->m && ifc->m->tune.tuned)
			tuner_iface_rename(tuner, ifc->ifindex, ifc->name);
		break;
	case IFACE_AUTOTUNE:
		/* After `autotune off`: a trial in progress is rolled back now. */
		if (tuner && ifc->m && ifc->m->tune.tuned && !ifc->autotune &&
		    tuner_abort(tuner, ifc->ifindex, now_ms(), "autotune off", &a) == 0)
			tune_act(tuner, ifc, &a);
		break;
	case IFACE_GONE:
		/* Gone: nothing to roll back on it (the applier forgets its records). */
		untrack(ifc, NULL);
		break;
	default:
		break;
	}
}

/* Retransmits that reordering caused are not loss: the receiver got the segment twice
 * and said so with a DSACK (docs/tuning.md "Spurious retransmits"). */
static void tcp_sample(void)
{
	uint64_t d_retrans = 0, d_dsack = 0;
	struct tcpstat t;
	int rc = tcpstat_read(&t);

	if (rc < 0 || !t.have_dsack) {
		if (!tcp_warned)
			dlog(LOG_INFO, NULL,
			     "TCP's DSACK count unavailable (%s): the tuner takes every "
			     "retransmit for loss, spurious ones included",
			     rc < 0 ? strerror(-rc) : "no TCPDSACKRecvSegs in /proc/net/netstat");
		tcp_warned = true;
	} else {
		if (tcp_prev_valid) {
			d_retrans = counter_delta(t.retrans_segs, tcp_prev.retrans_segs);
			d_dsack = counter_delta(t.dsack_recv_segs, tcp_prev.dsack_recv_segs);
		}
		tcp_prev = t;
		tcp_prev_valid = true;
	}
	tcp_w_retrans = tcp_d_retrans + d_retrans;
	tcp_w_dsack = tcp_d_dsack + d_dsack;
	tcp_d_retrans = d_retrans;
	tcp_d_dsack = d_dsack;
}

/* The CPUs' softirq shares of the last interval (signals.c), for rx-spread: the busiest
 * and the least busy online CPU, and the online CPUs as a mask (CPUs below 63). */
static struct {
	bool have;
	uint32_t max_ppm, min_ppm;
	int busiest;
	int64_t online;
} sirq;

static void softirq_sample(void)
{
	unsigned int i, n = 0;
	double max = -1, min = 2;

	sirq.online = 0;
	for (i = 0; i < signals_cpu_count(); i++) {
		const struct cpu_signals *c = signals_cpu(i);

		if (!c->online || !c->have_softirq)
			continue;
		n++;
		if (c->cpu < 63)
			sirq.online |= (int64_t)1 << c->cpu;
		if (c->softirq_share > max) {
			max = c->softirq_share;
			sirq.busiest = (int)c->cpu;
		}
		if (c->softirq_share < min)
			min = c->softirq_share;
	}
	/* One CPU has nothing to spread to; none means /proc/stat was not read. */
	sirq.have = n >= 2 && !signals_missing("softirq")[0];
	sirq.max_ppm = sirq.have ? (uint32_t)(fmin(max, 1) * 1e6) : 0;
	sirq.min_ppm = sirq.have ? (uint32_t)(fmin(min, 1) * 1e6) : 0;
}

/*
 * napi-defer's latency guard: the median smoothed RTT of the namespace's TCP connections
 * that moved data in the last two sample intervals (tcprtt.h), read at most once a sample
 * and only when an interface wants it (wants_rtt()): one NETLINK_SOCK_DIAG dump.
 */
static struct {
	struct tcprtt *acc;
	bool read, have, warned;
	uint32_t median_us;
} rtt;

static void rtt_sample(void)
{
	int r;

	rtt.read = true;
	rtt.have = false;
	if (!rtt.acc && !(rtt.acc = calloc(1, sizeof(*rtt.acc))))
		return;
	rtt.acc->idle_ms = (uint32_t)(2 * rtd.cfg.sample_interval_us / 1000);
	r = tcprtt_read(rtt.acc);
	if (r < 0) {
		if (!rtt.warned)
			dlog(LOG_INFO, NULL,
			     "TCP RTT unavailable (NETLINK_SOCK_DIAG: %s): napi-defer has no latency "
			     "guard and is not tried",
			     strerror(-r));
		rtt.warned = true;
		return;
	}
	rtt.median_us = tcprtt_median(rtt.acc);
	rtt.have = rtt.median_us > 0;
}

/*
 * Whether ifc needs the RTT: its NAPIs have interrupts (napi-defer can apply) and either
 * nothing is deferred yet (the rule's baseline) or its napi-defer trial is running. The
 * daemon's own namespace only: a pod's sockets are in another.
 */
static bool wants_rtt(const struct iface *ifc)
{
	struct tuner_iface_info *info;
	bool in;

	if (ifc->ifindex >= IFACE_POD_KEY_BASE || iface_snap_peek(ifc)->napi_irq != 1 ||
	    !ifc->autotune)
		return false;
	if (iface_eff(ifc, KNOB_NAPI_DEFER_HARD_IRQS) == 0 &&
	    iface_eff(ifc, KNOB_GRO_FLUSH_TIMEOUT) == 0)
		return true;
	info = malloc(sizeof(*info));
	in = info && tuner_iface_info(tuner, ifc->ifindex, info) == 0 && info->in_trial &&
	     info->trial.rule == TUNER_RULE_NAPI_DEFER;
	free(info);
	return in;
}

void tune_sample_begin(void)
{
	struct cpustat_total tot;
	uint64_t now;

	rtt.read = false;
	if (tuner) {
		tcp_sample();
		softirq_sample();
	}
	/* Kernel time of all CPUs: where the network stack's cost shows; and their busy time
	 * from the idle clock, which rx-spread's trials are judged per (tick samples miss
	 * short softirq bursts on a CPU woken from idle: docs/kernel.md F43). */
	now = now_us() * 1000;
	if (cpustat_total_ns(&tot) < 0) {
		cpu_busy_have = false;
		cpu_tot_prev.cpus = 0;
		return;
	}
	cpu_ns_delta = sample_cpu_delta(tot.kernel, cpu_ns_prev);
	cpu_ns_prev = tot.kernel;
	cpu_busy_have = now > cpu_tot_at &&
			cpustat_busy_ns(&cpu_tot_prev, &tot, now - cpu_tot_at, &cpu_busy_delta);
	cpu_tot_prev = tot;
	cpu_tot_at = now;
}

/* The interface's totals as the sampler stored them (sampler.c). */
static void reading_of(const struct iface_stats *st, struct sample_reading *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->tx_packets = st->counter[SC_TX_PACKETS];
	r->tx_bytes = st->counter[SC_TX_BYTES];
	r->rx_packets = st->counter[SC_RX_PACKETS];
	r->rx_bytes = st->counter[SC_RX_BYTES];
	r->have_probes = st->have_hist;
	if (st->have_hist) {
		r->tx_skb_bytes = st->h->hist[SH_TX_SKB_BYTES];
		r->tx_gso_segments = st->h->hist[SH_TX_GSO_SEGMENTS];
		r->rx_skb_bytes = st->h->hist[SH_RX_SKB_BYTES];
	}
	r->tcp_retransmits = st->counter[SC_TCP_RETRANSMITS];
	r->tcp_retransmit_segments = st->counter[SC_TCP_RETRANSMIT_SEGMENTS];
	for (i = 0; i < st->n_drops; i++)
		r->drops += st->drops[i].count;
	r->tx_busy = st->counter[SC_TX_BUSY];
	r->tx_timeouts = st->counter[SC_TX_TIMEOUTS];
}

/* The driver's count of frames its full rx ring dropped (qstats rx-hw-drop-overruns, read
 * by signals.c this sample); false when the driver reports none. */
static bool overruns_of(const struct iface *ifc, uint64_t *v)
{
	const struct iface_signals *sg = signals_of(ifc);

	if (!sg || !sg->have_qstats || !(sg->qstats.have & (1u << QSTAT_RX_HW_DROP_OVERRUNS)))
		return false;
	*v = sg->qstats.val[QSTAT_RX_HW_DROP_OVERRUNS];
	return true;
}

void tune_sample(struct iface *ifc, uint64_t now)
{
	struct iface_tune *tp;
	struct sample_reading now_r;
	struct tuner_sample s = {0};
	struct tuner_env env;
	struct tuner_action a = {0};
	uint64_t seg, ovr = 0;
	bool ovr_valid;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned)
		return;
	if (ifc->m->tune.recover) {
		ifc->m->tune.recover = false;
		tune_recover_orphans(ifc);
	}
	/* Uppers' sizes change without a notification (rtnetlink sends none for them). */
	if (iface_stacked(ifc))
		iface_read_stack(ifc);
	tp = &ifc->m->tune;
	reading_of(&ifc->m->stats, &now_r);
	ovr_valid = overruns_of(ifc, &ovr);
	if (tp->prev_valid) {
		struct sample_env se = {
			.interval_us = now - tp->prev_us,
			.cpu_ns = cpu_ns_delta,
			.cpu_busy_ns = cpu_busy_delta,
			.have_busy = cpu_busy_have,
			.gso_max_size = iface_eff(ifc, KNOB_GSO_MAX_SIZE),
			.gro_max_size = iface_knob(ifc, KNOB_GRO_MAX_SIZE),
			.ns_retrans = tcp_w_retrans,
			.ns_dsack = tcp_w_dsack,
		};

		sample_build(&s, tp->prev, &now_r, &se, &seg);
		s.ts_ms = now / 1000;
		if (sirq.have) {
			s.have |= TUNER_HAVE_SOFTIRQ;
			s.softirq_max_ppm = sirq.max_ppm;
			s.softirq_min_ppm = sirq.min_ppm;
			s.softirq_busiest = sirq.busiest;
		}
		if (wants_rtt(ifc)) {
			if (!rtt.read)
				rtt_sample();
			if (rtt.have) {
				s.have |= TUNER_HAVE_RTT;
				s.tcp_rtt_us = rtt.median_us;
			}
		}
		/* The ring's overruns since the last sample, where the driver counts them. */
		if (ovr_valid && tp->overruns_valid) {
			s.have |= TUNER_HAVE_OVERRUNS;
			s.rx_overruns = counter_delta(ovr, tp->overruns_prev);
		}
		tune_host_add_traffic(&s);
		tp->retrans_segs += seg;
		tp->retrans_spurious += seg - s.tcp_retransmits;
	}
	tp->overruns_prev = ovr;
	tp->overruns_valid = ovr_valid;
	/* A sample spanning skipped ones (an idle interface, sampler.c) is counted above,
	 * not fed: the tuner's points each span one interval. Until it has traffic again the
	 * tuner holds nothing for it but its backoffs and counts (tuner_iface_rest()), and
	 * this reading is no base either: the next read of an idle interface spans skipped
	 * samples again. The first read after it is the base of the next. */
	if (tp->gap) {
		tuner_iface_rest(tuner, ifc->ifindex);
		prev_drop(tp);
		tp->gap = false;
		return;
	}
	if (!tp->prev && !(tp->prev = malloc(sizeof(*tp->prev)))) {
		tp->prev_valid = false; /* out of memory: no base, no point */
		return;
	}
	*tp->prev = now_r;
	tp->prev_us = now;
	if (!tp->prev_valid) {
		tp->prev_valid = true;
		return;
	}
	tune_env(ifc, &env);
	if (tuner_feed(tuner, ifc->ifindex, &s, &env, now / 1000, &a) == 0)
		tune_act(tuner, ifc, &a);
}

void tune_env(const struct iface *ifc, struct tuner_env *env)
{
	/* Read only: an interface at rest stays so with traffic (one inflate a sample, 3 us;
	 * its knobs read through the same cache). */
	const struct nic *sn = iface_snap_peek(ifc);
	int k;

	memset(env, 0, sizeof(*env));
	for (k = 0; k < KNOB__COUNT; k++) {
		/* What the traffic gets: the smallest value on the device stack. */
		env->knob[k] = iface_eff(ifc, (enum knob_id)k);
		/* Pinned by the admin, or fixed by the driver ("[fixed]"). */
		env->pinned[k] = rtd.cfg.pin[k] || sn->fixed[k];
		env->manual[k] = iface_manual(ifc, k);
	}
	env->gso_max = ifc->m->gso_max;
	if (iface_stack_gso_cap(ifc) != LINK_UNSET && iface_stack_gso_cap(ifc) < env->gso_max) {
		env->gso_max = iface_stack_gso_cap(ifc);
		snprintf(env->limit_note, sizeof(env->limit_note), "%s", iface_stack_note(ifc));
	} else if (ifc->m->reroute_note) {
		snprintf(env->limit_note, sizeof(env->limit_note), "%s", ifc->m->reroute_note);
	}
	env->gro_max = ifc->m->gro_max;
	env->mtu_max = ifc->m->mtu_max;
	env->ring_rx_max = nic_max(sn, KNOB_RING_RX);
	env->allowed_mtu_min = rtd.cfg.allowed_mtu_min;
	env->allowed_mtu_max = rtd.cfg.allowed_mtu_max;
	env->quirks = ifc->m->quirks;
	env->n_napi = sn->n_napi;
	env->napi_irq = sn->napi_irq;
	env->cpus_online = sirq.online;
	/* Paused (a sweep measures), or a journal that cannot record originals: samples go
	 * on, trials do not. */
	env->autotune = ifc->autotune && !ifc->m->tune.paused && trust_ok();
}

bool tune_idle(const struct iface *ifc)
{
	const struct iface_tune *tp;

	if (!ifc->m)
		return false;
	tp = &ifc->m->tune;
	if (tp->paused || tp->recover)
		return false;
	return !tuner || !tp->tuned || tuner_iface_state(tuner, ifc->ifindex) == TUNER_ST_IDLE;
}

void tune_gap(struct iface *ifc)
{
	if (ifc->m)
		ifc->m->tune.gap = true;
}

int tune_start(struct rterr *err)
{
	struct iface *ifc;
	int r;

	r = tuner_new(&rtd.cfg.tuner, &tuner, err);
	if (r < 0)
		return r;
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		if (ifc->managed)
			track(ifc);
	tune_host_start(tuner);
	return 0;
}

void tune_sample_end(uint64_t now)
{
	tune_host_sample(tuner, now);
}

void tune_stop(const char *why)
{
	struct iface *ifc;

	if (!tuner)
		return;
	for (ifc = iface_first(); ifc; ifc = ifc->next)
		untrack(ifc, why);
	tune_host_stop(tuner, why);
	tuner_free(tuner);
	tuner = NULL;
	free(rtt.acc);
	rtt.acc = NULL;
}

int tune_pause(struct iface *ifc, bool on, const char *by)
{
	struct iface_tune *tp;
	struct tuner_action a = {0};
	char why[160];

	if (!ifc->m)
		return -ENOENT;
	tp = &ifc->m->tune;
	if (!on) {
		if (tp->paused && --tp->paused == 0) {
			free(tp->paused_by);
			tp->paused_by = NULL;
			/* Its operation ended, or its process died with it in flight: looked at
			 * by the next sample, since a killed client's socket closes before the
			 * kernel has made it a zombie, and until then its record is a live one. */
			tp->recover = true;
			tp->prev_valid = false;
		}
		return 0;
	}
	if (!tp->paused++)
		tp->paused_by = strdup(by);
	snprintf(why, sizeof(why), "tuner paused by %s", by);
	if (tuner && tp->tuned && tuner_abort(tuner, ifc->ifindex, now_ms(), why, &a) == 0 &&
	    a.kind != TUNER_NONE) {
		tune_act(tuner, ifc, &a);
		return 1;
	}
	return 0;
}

const struct tuner *tune_tuner(void)
{
	return tuner;
}
