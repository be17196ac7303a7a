// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's decision core against simulated NICs: a model turns the current knob values
 * into a sample (throughput, GSO/GRO shares, faults, with noise from a seeded generator),
 * and the test plays the daemon (applies what the tuner asks, reports the result). Each
 * test states what must and must not happen as numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "rtltune/tuner.h"
#include "tree.h"

#define IFX    7
#define MSS    1448.0
#define MAXLOG 512

struct sim;
typedef void (*model_fn)(struct sim *s, struct tuner_sample *o);

struct sim {
	struct tuner *t;
	struct tuner_env env;
	uint64_t now;
	uint64_t rng;
	model_fn model;
	double noise;		/* relative standard deviation of throughput */
	double outliers;	/* share of samples that land at 0.5x or 1.5x (iperf-style) */
	double drift, drift_ar; /* AR(1) level: standard deviation, lag-1 correlation */
	double level;		/* its current value */
	double wave;		/* amplitude of a slow swing (period 40 samples), relative */
	double burst;		/* chance per sample that a dip starts (other load: 0.4-0.7x) */
	unsigned int burst_left;
	double burst_depth;
	const double *rec; /* a recorded series (bytes/s per sample) replayed instead */
	unsigned int n_rec, rec_pos;
	double base_bps; /* model parameter: bytes/s at the reference setting */
	double param;	 /* model-specific */
	bool fail_apply;
	bool quiet;
	struct tuner_action log[MAXLOG];
	unsigned int n_log;
	unsigned int n_kind[TUNER_ACTION__COUNT];
	unsigned int n_switch;			/* switchback STEPs, not in log or n_kind */
	uint64_t first_ms[TUNER_ACTION__COUNT]; /* when each kind first happened */
};

/* xorshift64*: deterministic noise, the same on every run. */
static double uniform(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static double gauss(struct sim *s)
{
	double u = uniform(s), v = uniform(s);

	return sqrt(-2 * log(u > 1e-12 ? u : 1e-12)) * cos(2 * M_PI * v);
}

/* A throughput with the sim's noise, outliers included. */
static double noisy(struct sim *s, double mean)
{
	double x;

	/* Other load on the host drifts over seconds: successive samples are correlated. */
	if (s->drift > 0)
		s->level = s->drift_ar * s->level +
			   s->drift * sqrt(1 - s->drift_ar * s->drift_ar) * gauss(s);
	x = mean * (1 + s->level + s->noise * gauss(s));
	if (s->rec)
		x = mean * s->rec[s->rec_pos++ % s->n_rec] / s->rec[0];
	if (s->wave > 0)
		x *= 1 + s->wave * sin(2 * M_PI * (double)s->now / 40000.0);
	/* Another job takes the CPU for 1-5 samples. */
	if (s->burst > 0 && !s->burst_left && uniform(s) < s->burst) {
		s->burst_left = 1 + (unsigned int)(uniform(s) * 5);
		s->burst_depth = 0.4 + 0.3 * uniform(s);
	}
	if (s->burst_left) {
		s->burst_left--;
		x *= s->burst_depth;
	}

	if (s->outliers > 0 && uniform(s) < s->outliers)
		x = mean * (uniform(s) < 0.5 ? 0.5 : 1.5);
	return x > 0 ? x : 0;
}

static void env_default(struct tuner_env *e)
{
	int k;

	memset(e, 0, sizeof(*e));
	for (k = 0; k < KNOB__COUNT; k++)
		e->knob[k] = LINK_UNSET;
	e->knob[KNOB_MTU] = 1500;
	e->knob[KNOB_TSO] = 1;
	e->knob[KNOB_GSO] = 1;
	e->knob[KNOB_GRO] = 1;
	e->knob[KNOB_GSO_MAX_SIZE] = 65536;
	e->knob[KNOB_GSO_IPV4_MAX_SIZE] = 65536;
	e->knob[KNOB_GRO_MAX_SIZE] = 65536;
	e->knob[KNOB_GRO_IPV4_MAX_SIZE] = 65536;
	e->knob[KNOB_GSO_MAX_SEGS] = 65535;
	e->gso_max = 524280;
	e->gro_max = 524280;
	e->mtu_max = 9000;
	e->autotune = true;
}

static void sim_init(struct sim *s, model_fn model, const struct tuner_config *cfg)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(tuner_new(cfg, &s->t, &(struct rterr){0}), 0);
	assert_int_equal(tuner_iface_add(s->t, IFX, "sim0"), 0);
	env_default(&s->env);
	s->model = model;
	s->rng = 0x9e3779b97f4a7c15ULL;
	s->now = 1000000;
	s->noise = 0.03;
	s->base_bps = 1e9;
}

static void sim_free(struct sim *s)
{
	tuner_free(s->t);
}

/* Bulk TCP sender: bytes/s, the share of GSO skbs at the cap, retransmits per segment. */
static void bulk_tx(struct sim *s, struct tuner_sample *o, double bps, double at_cap,
		    double retrans)
{
	double gso = (double)s->env.knob[KNOB_GSO_MAX_SIZE];
	double segs = bps / MSS;

	if (s->env.knob[KNOB_TSO] == 0 && gso > 65536)
		gso = 65536;
	o->have = TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS | TUNER_HAVE_DROPS |
		  TUNER_HAVE_TX_FAULTS;
	o->tx_bytes = (uint64_t)bps;
	o->tx_segs = (uint64_t)segs;
	o->tx_gso_skbs = (uint64_t)(bps / (gso * 0.9));
	o->tx_gso_at_cap = (uint64_t)(o->tx_gso_skbs * at_cap);
	o->tx_packets = o->tx_gso_skbs + 10;
	o->rx_packets = (uint64_t)(segs / 2); /* ACKs */
	o->rx_bytes = o->rx_packets * 66;
	o->rx_skbs = o->rx_packets;
	o->tcp_retransmits = (uint64_t)(segs * retrans + (retrans > 0 ? uniform(s) : 0));
}

static void sim_apply(struct sim *s, const struct tuner_action *a)
{
	unsigned int i;

	for (i = 0; i < a->n_changes; i++) {
		s->env.knob[a->changes[i].knob] = a->changes[i].to;
		/* The kernel mirrors sizes up to 64K into the IPv4 twin. */
		if (a->changes[i].knob == KNOB_GSO_MAX_SIZE && a->changes[i].to <= 65536)
			s->env.knob[KNOB_GSO_IPV4_MAX_SIZE] = a->changes[i].to;
		if (a->changes[i].knob == KNOB_GRO_MAX_SIZE && a->changes[i].to <= 65536)
			s->env.knob[KNOB_GRO_IPV4_MAX_SIZE] = a->changes[i].to;
	}
}

static void sim_record(struct sim *s, const struct tuner_action *a)
{
	if (a->kind == TUNER_NONE)
		return;
	assert_true(a->kind < TUNER_ACTION__COUNT);
	if (!s->quiet && getenv("TUNER_TEST_VERBOSE"))
		printf("  t=%6.0fs %-11s %-17s %s %" PRId64 " -> %" PRId64 ": %s\n",
		       (double)(s->now - 1000000) / 1000, tuner_outcome_name(a->kind),
		       tuner_rule_name(a->rule), knob_name(a->changes[0].knob), a->changes[0].from,
		       a->changes[0].to, a->reason);
	/* A switchback's switches are counted apart: the log holds the decisions. */
	if (a->kind == TUNER_STEP && strncmp(a->reason, "switchback", 10) == 0) {
		s->n_switch++;
		return;
	}
	if (!s->n_kind[a->kind])
		s->first_ms[a->kind] = s->now;
	s->n_kind[a->kind]++;
	if (s->n_log < MAXLOG)
		s->log[s->n_log++] = *a;
	assert_string_equal(a->ifname, "sim0");
	assert_true(a->reason[0] != '\0');
}

/* Play the daemon for an action: apply it (or fail), report, handle what comes back. */
static void sim_act(struct sim *s, const struct tuner_action *a)
{
	struct tuner_action back;
	bool ok;

	sim_record(s, a);
	switch (a->kind) {
	case TUNER_START_TRIAL:
	case TUNER_STEP:
	case TUNER_ROLLBACK:
		ok = !s->fail_apply;
		if (ok)
			sim_apply(s, a);
		assert_int_equal(tuner_applied(s->t, IFX, ok, s->now, &back), 0);
		if (back.kind != TUNER_NONE)
			sim_act(s, &back);
		break;
	default:
		break;
	}
}

/* n samples, one per second. */
static void sim_run(struct sim *s, unsigned int n)
{
	struct tuner_sample smp;
	struct tuner_action a;

	while (n--) {
		s->now += 1000;
		memset(&smp, 0, sizeof(smp));
		smp.ts_ms = s->now;
		smp.interval_ms = 1000;
		s->model(s, &smp);
		assert_int_equal(tuner_feed(s->t, IFX, &smp, &s->env, s->now, &a), 0);
		sim_act(s, &a);
	}
}

static unsigned int count_log(const struct sim *s, enum tuner_action_kind kind, enum knob_id knob,
			      enum tuner_dir dir)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n_log; i++)
		if (s->log[i].kind == kind && s->log[i].knob == knob && s->log[i].dir == dir)
			n++;
	return n;
}

static const struct tuner_action *last_of(const struct sim *s, enum tuner_action_kind kind)
{
	int i;

	for (i = (int)s->n_log - 1; i >= 0; i--)
		if (s->log[i].kind == kind)
			return &s->log[i];
	return NULL;
}

/* ---- models ----------------------------------------------------------------------- */

/* MANA-like: throughput grows with gso_max_size, flattening past 128K; skbs fill the cap. */
static void m_gso_gain(struct sim *s, struct tuner_sample *o)
{
	double g = (double)s->env.knob[KNOB_GSO_MAX_SIZE];
	double f = g <= 16384	 ? 1.0
		   : g <= 32768	 ? 1.6
		   : g <= 65536	 ? 2.0
		   : g <= 131072 ? 2.3
				 : 2.32;

	bulk_tx(s, o, noisy(s, s->base_bps * f), 0.9, 0);
}

/* Nothing any knob does matters: bulk at the cap, throughput pure noise. */
static void m_no_gain(struct sim *s, struct tuner_sample *o)
{
	bool gro = s->env.knob[KNOB_GRO] != 0;

	bulk_tx(s, o, noisy(s, s->base_bps), 0.9, 0);
	o->rx_packets = 20000; /* high RX frame rate, so GRO rules look too */
	o->rx_bytes = 20000 * 1514ULL;
	o->rx_skbs = gro ? 2000 : 20000; /* with GRO off each frame is an skb */
	o->rx_gro_at_cap = gro ? 1800 : 0;
}

/* fec/RTL8126-like: skbs above param bytes get mangled (5% retransmits); TSO off cures. */
static void m_tso_faults(struct sim *s, struct tuner_sample *o)
{
	double g = (double)s->env.knob[KNOB_GSO_MAX_SIZE];
	bool tso = s->env.knob[KNOB_TSO] != 0;
	bool bad = tso && (s->param <= 0 || g > s->param);

	bulk_tx(s, o, noisy(s, s->base_bps * (bad ? 0.4 : 1.0)), 0.8, bad ? 0.05 : 0.0001);
}

/*
 * A TSO engine that mangles 5% of the bursts above param bytes (tests/tools/faultinj): the
 * loss per segment is the same at 64K and 32K, but 32K has twice the bursts and loses twice
 * as often per byte: throughput falls to 0.4x there, 0.8x at 64K; below param it is cured.
 */
static void m_burst_faults(struct sim *s, struct tuner_sample *o)
{
	double g = (double)s->env.knob[KNOB_GSO_MAX_SIZE];
	bool bad = g > s->param;

	bulk_tx(s, o,
		noisy(s, s->base_bps * (!bad	    ? 1.0
					: g > 32768 ? 0.8
						    : 0.4)),
		0.8, bad ? 0.05 : 0.0001);
}

/* Raising gso_max_size above 64K gains 30% but brings retransmits (a broken BIG TCP path). */
static void m_big_gso_retrans(struct sim *s, struct tuner_sample *o)
{
	double g = (double)s->env.knob[KNOB_GSO_MAX_SIZE];

	bulk_tx(s, o, noisy(s, s->base_bps * (g > 65536 ? 1.3 : 1.0)), 0.9, g > 65536 ? 0.03 : 0.0);
}

/* A TX queue that hangs (watchdog) with skbs above 32K. */
static void m_timeouts(struct sim *s, struct tuner_sample *o)
{
	bool bad = s->env.knob[KNOB_GSO_MAX_SIZE] > 32768;

	bulk_tx(s, o, noisy(s, s->base_bps * (bad ? 0.7 : 1.0)), 0.8, 0);
	o->tx_timeouts = bad && (s->now / 1000) % 2 ? 1 : 0;
}

/* Above 64K the throughput collapses without a single fault counted. */
static void m_collapse(struct sim *s, struct tuner_sample *o)
{
	bool bad = s->env.knob[KNOB_GSO_MAX_SIZE] > 65536;

	bulk_tx(s, o, noisy(s, s->base_bps * (bad ? 0.3 : 1.0)), 0.9, 0);
}

/* Above 16K big bursts collapse TCP (the fec seed): a sample of lossy bursts, then one
 * of a retransmission timeout, a few retransmitted segments and little else, below the
 * idle thresholds. */
static void m_rto_collapse(struct sim *s, struct tuner_sample *o)
{
	if (s->env.knob[KNOB_GSO_MAX_SIZE] <= 16384 || s->env.knob[KNOB_TSO] == 0)
		return bulk_tx(s, o, noisy(s, s->base_bps), 0.9, 0.0001);
	if ((s->now / 1000) % 2)
		return bulk_tx(s, o, noisy(s, 0.03 * s->base_bps), 0.9, 0.3);
	bulk_tx(s, o, 60000, 0.9, 0);
	o->tx_packets = 40;
	o->tx_segs = 45;
	o->rx_packets = 20;
	o->rx_bytes = 20 * 66;
	o->tcp_retransmits = 30;
}

/* Nothing on the wire but a keepalive now and then. */
static void m_idle(struct sim *s, struct tuner_sample *o)
{
	o->have = TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS;
	o->tx_packets = uniform(s) < 0.1 ? 1 : 0;
	o->tx_bytes = o->tx_packets * 66;
	o->tx_segs = o->tx_packets;
}

/* A receiver: frames at param/s; GRO on gains 20% of rx throughput. */
static void m_rx(struct sim *s, struct tuner_sample *o)
{
	bool gro = s->env.knob[KNOB_GRO] > 0;
	double gmax = (double)s->env.knob[KNOB_GRO_MAX_SIZE];
	double bps = noisy(s, s->base_bps * (gro ? 1.2 : 1.0) * (gro && gmax > 65536 ? 1.15 : 1));

	o->have = TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS | TUNER_HAVE_DROPS;
	o->rx_packets = (uint64_t)(bps / 1514);
	o->rx_bytes = (uint64_t)bps;
	o->rx_skbs = gro ? (uint64_t)(bps / (gmax * 0.95)) : o->rx_packets;
	o->rx_gro_at_cap = gro ? (uint64_t)(o->rx_skbs * 0.9) : 0;
	o->tx_packets = o->rx_packets / 2;
	o->tx_segs = o->tx_packets;
	o->tx_bytes = o->tx_packets * 66;
}

/* A receiver with GRO off whose frames come merged already: a veth peer's 64 KiB GSO skbs
 * handed over whole (or LRO), 44 frames per skb; GRO on changes nothing. */
static void m_rx_merged(struct sim *s, struct tuner_sample *o)
{
	double bps = noisy(s, s->base_bps);

	o->have = TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS | TUNER_HAVE_DROPS;
	o->rx_packets = (uint64_t)(bps / 1514);
	o->rx_bytes = (uint64_t)bps;
	o->rx_skbs = o->rx_packets / 44;
	o->tx_packets = o->rx_packets / 2;
	o->tx_segs = o->tx_packets;
	o->tx_bytes = o->tx_packets * 66;
}

/* A bulk sender at the chip's gso limit: what it receives is its flows' ACKs. */
static void m_sender_acks(struct sim *s, struct tuner_sample *o)
{
	bulk_tx(s, o, noisy(s, s->base_bps), 0.9, 0);
}

/* Knuth's Poisson draw: small means only. */
static unsigned int poisson(struct sim *s, double mean)
{
	double l = exp(-mean), p = uniform(s);
	unsigned int k = 0;

	while (p > l) {
		k++;
		p *= uniform(s);
	}
	return k;
}

/* No gain, background loss: about param retransmissions a second, each resending a lost
 * skb of 40 segments, whatever the knobs. */
static void m_clumped_loss(struct sim *s, struct tuner_sample *o)
{
	bulk_tx(s, o, noisy(s, s->base_bps), 0.9, 0);
	o->tcp_retransmit_skbs = poisson(s, s->param);
	o->tcp_retransmits = 40 * o->tcp_retransmit_skbs;
}

/* Long-lived connections: they keep the GSO size they connected with (param), whatever
 * gso_max_size says now; above it, none of their skbs reaches the new cap's bucket. */
static void m_long_lived(struct sim *s, struct tuner_sample *o)
{
	bulk_tx(s, o, noisy(s, s->base_bps), 0.9, 0);
	if ((double)s->env.knob[KNOB_GSO_MAX_SIZE] > s->param) {
		o->tx_gso_skbs = (uint64_t)((double)o->tx_bytes / (s->param * 0.9));
		o->tx_gso_at_cap = 0;
		o->tx_packets = o->tx_gso_skbs + 10;
	}
}

/* One step of gain: throughput 1 + param times higher at any gso_max_size above 16384. */
static void m_step_gain(struct sim *s, struct tuner_sample *o)
{
	double f = s->env.knob[KNOB_GSO_MAX_SIZE] > 16384 ? 1 + s->param : 1;

	bulk_tx(s, o, noisy(s, s->base_bps * f), 0.9, 0);
}

/* Full 1500-byte frames; a jumbo MTU gains param (relative). */
static void m_mtu(struct sim *s, struct tuner_sample *o)
{
	double mtu = (double)s->env.knob[KNOB_MTU];

	bulk_tx(s, o, noisy(s, s->base_bps * (mtu > 1500 ? 1 + s->param : 1)), 0.2, 0);
	/* average wire segment ~ MTU */
	o->tx_segs = (uint64_t)((double)o->tx_bytes / (mtu + 14));
}

/* Full frames at a throughput the application fixes; a jumbo MTU cuts CPU per byte by
 * param (relative). */
static void m_mtu_cpu(struct sim *s, struct tuner_sample *o)
{
	double mtu = (double)s->env.knob[KNOB_MTU];
	double bps = noisy(s, s->base_bps);

	bulk_tx(s, o, bps, 0.2, 0);
	o->tx_segs = (uint64_t)((double)o->tx_bytes / (mtu + 14));
	o->have |= TUNER_HAVE_CPU;
	o->cpu_ns = (uint64_t)(bps * (mtu > 1500 ? 1 - s->param : 1.0) * (1 + 0.02 * gauss(s)));
}

/* Throughput fixed by the application; CPU per byte falls with bigger GSO. */
static void m_cpu(struct sim *s, struct tuner_sample *o)
{
	double g = (double)s->env.knob[KNOB_GSO_MAX_SIZE];
	double bps = noisy(s, s->base_bps);

	bulk_tx(s, o, bps, 0.9, 0);
	o->have |= TUNER_HAVE_CPU;
	o->cpu_ns = (uint64_t)(bps * (g > 65536 ? 0.6 : 1.0) * (1 + 0.02 * gauss(s)));
}

/* ---- tests ------------------------------------------------------------------------ */

/* GSO skbs pile up at 16K and the chip allows 512K: raised stepwise, kept while it pays;
 * the first raise goes to the kernel's default 64K at once (size_raise()). */
static void test_gso_raise_kept(void **state)
{
	struct sim s;
	const struct tuner_action *a;
	unsigned int i;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	sim_run(&s, 60);
	a = &s.log[0];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->rule, TUNER_RULE_GSO_AT_CAP);
	assert_int_equal(a->changes[0].from, 16384);
	assert_int_equal(a->changes[0].to, 65536);
	/* A switchback trial starts on the rule's evidence in 4 samples (switch_baseline). */
	assert_int_equal(s.first_ms[TUNER_START_TRIAL], 1000000 + 4 * 1000);
	assert_non_null(strstr(a->reason, "at the gso_max_size cap 16384"));
	/* 16K -> 64K (+100%) -> 128K (+15%) kept; 256K (+1%) rolled back. */
	assert_int_equal(count_log(&s, TUNER_KEEP, KNOB_GSO_MAX_SIZE, TUNER_UP), 2);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 131072);
	/* Above 64K the IPv4 twin is set explicitly. */
	assert_int_equal(s.env.knob[KNOB_GSO_IPV4_MAX_SIZE], 131072);
	a = last_of(&s, TUNER_ROLLBACK);
	assert_non_null(a);
	assert_int_equal(a->changes[0].from, 262144);
	assert_int_equal(a->changes[0].to, 131072);
	assert_non_null(strstr(a->reason, "Bayes factor"));
	a = &s.log[1];
	assert_int_equal(a->kind, TUNER_KEEP);
	assert_non_null(strstr(a->reason, "a gain beyond noise"));
	assert_non_null(strstr(a->reason, "pairs), Bayes factor"));
	/* Each keep within 8 pairs of its trial; chained keeps need no new baseline. */
	for (i = 0; i < s.n_log; i++)
		if (s.log[i].kind == TUNER_KEEP) {
			assert_true(s.log[i].ts_ms - s.log[i - 1].ts_ms <= 17000);
			assert_true(i + 1 == s.n_log ||
				    s.log[i + 1].ts_ms - s.log[i].ts_ms == 1000);
		}
	assert_true(s.n_switch >= 3);
	/* Converged well within 60 s of traffic. */
	assert_true(s.first_ms[TUNER_ROLLBACK] - 1000000 <= 60000);
	/* Backoff: nothing more for a while. */
	i = s.n_log;
	sim_run(&s, 240);
	assert_int_equal(s.n_log, i);
	sim_free(&s);
}

/* Pure noise with iperf-style outliers: every trial rolled back, then backed off. */
static void test_noise_rolled_back_and_backoff(void **state)
{
	struct tuner_config cfg;
	struct tuner_iface_info info;
	struct sim s;
	unsigned int i;
	int k;

	tuner_config_default(&cfg);
	sim_init(&s, m_no_gain, &cfg);
	s.noise = 0.10;
	s.outliers = 0.1;
	s.env.knob[KNOB_GRO] = 0; /* 20000 frames/s received: gro-off applies too */
	sim_run(&s, 2 * 3600);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], s.n_kind[TUNER_ROLLBACK]);
	/* Both candidate knobs were tried, at least twice over two hours... */
	assert_true(count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP) >= 2);
	assert_true(count_log(&s, TUNER_START_TRIAL, KNOB_GRO, TUNER_UP) >= 2);
	/* ...and never twice within a backoff period: 5 min, doubling each time. */
	for (k = 0; k < KNOB__COUNT; k++) {
		uint64_t prev = 0, period = 300000;

		for (i = 0; i < s.n_log; i++) {
			if (s.log[i].kind != TUNER_START_TRIAL || s.log[i].knob != (enum knob_id)k)
				continue;
			if (prev) {
				assert_true(s.log[i].ts_ms - prev >= period);
				period *= 2;
			}
			prev = s.log[i].ts_ms;
		}
	}
	/* Two hours: trials at ~0, 5, 15, 35, 75 min per knob, no more. */
	assert_true(count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP) <= 5);
	assert_int_equal(tuner_iface_info(s.t, IFX, &info), 0);
	assert_true(info.backoff[KNOB_GSO_MAX_SIZE][TUNER_UP].rejected >= 2);
	assert_true(info.backoff[KNOB_GSO_MAX_SIZE][TUNER_UP].period_ms >= 1200000);
	assert_int_equal(info.decisions[KNOB_GSO_MAX_SIZE][TUNER_KEEP], 0);
	sim_free(&s);
}

/*
 * 20 seeds of 1200 samples with nothing to gain, each simulator shaped by setup(): how
 * many trials started and how many were kept (each a false keep).
 */
static void no_gain_seeds(void (*setup)(struct sim *s), unsigned int *trials, unsigned int *keeps)
{
	struct tuner_config cfg;
	unsigned int seed;
	struct sim s;

	tuner_config_default(&cfg);
	cfg.backoff_initial_ms = 30000;
	cfg.backoff_max_ms = 30000;
	*trials = *keeps = 0;
	for (seed = 1; seed <= 20; seed++) {
		sim_init(&s, m_no_gain, &cfg);
		s.quiet = true;
		s.rng ^= seed * 0x2545F4914F6CDD1DULL;
		setup(&s);
		s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
		sim_run(&s, 1200);
		*trials += s.n_kind[TUNER_START_TRIAL];
		*keeps += s.n_kind[TUNER_KEEP];
		sim_free(&s);
	}
}

static void setup_noisy(struct sim *s)
{
	s->noise = 0.2;
	s->outliers = 0.1;
}

/* Many seeds of noise: a no-gain trial is (almost) never kept. */
static void test_noise_false_keep_rate(void **state)
{
	unsigned int trials, keeps;

	no_gain_seeds(setup_noisy, &trials, &keeps);
	print_message("no-gain trials %u, kept %u\n", trials, keeps);
	assert_true(trials >= 200);
	/* These no-gain trials go by switchback now: 4 of 1082 kept (0.4%); allow 2%. */
	assert_true(keeps * 50 <= trials);
}

static void setup_drifting(struct sim *s)
{
	s->noise = 0.05;
	s->drift = 0.2;
	s->drift_ar = 0.85;
}

/*
 * Drifting throughput (an AR(1) level with lag-1 correlation 0.85 at the sample interval,
 * as bulk TCP shows on a loaded host) and no gain: Welch's t on correlated samples
 * overstates the evidence. Measured: 90 of 1088 trials kept (8.3%) with the plain test,
 * 40 of 1200 (3.3%) with the variances corrected for the autocorrelation; switchback, where
 * drift cancels in adjacent pairs: 3 of 1086 (0.3%). At most 4%.
 */
static void test_drift_false_keep_rate(void **state)
{
	unsigned int trials, keeps;

	no_gain_seeds(setup_drifting, &trials, &keeps);
	print_message("drifting no-gain trials %u, kept %u\n", trials, keeps);
	assert_true(trials >= 200);
	assert_true(keeps * 25 <= trials);
}

/*
 * Background loss in bursts (35 retransmitted skbs of 40 segments a second, 0.2% of the
 * segments; the same before and after every change): a burst is one occurrence, not 40,
 * so a trial is rarely rolled back for "retransmits rose" (measured: 8 of 601, where z is
 * checked after every observed sample; at most 2%). Counting the segments as independent
 * events, 78 of 617 were.
 */
static void test_clumped_retransmits_no_penalty(void **state)
{
	unsigned int seed, trials = 0, rose = 0, i;
	struct tuner_config cfg;
	struct sim s;

	tuner_config_default(&cfg);
	cfg.backoff_initial_ms = 30000;
	cfg.backoff_max_ms = 30000;
	for (seed = 1; seed <= 20; seed++) {
		sim_init(&s, m_clumped_loss, &cfg);
		s.quiet = true;
		s.rng ^= seed * 0x2545F4914F6CDD1DULL;
		s.param = 35;
		s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
		sim_run(&s, 1200);
		trials += s.n_kind[TUNER_START_TRIAL];
		for (i = 0; i < s.n_log; i++)
			if (s.log[i].kind == TUNER_ROLLBACK && strstr(s.log[i].reason, " rose: "))
				rose++;
		sim_free(&s);
	}
	print_message("trials under clumped background loss %u, rolled back for a rise %u\n",
		      trials, rose);
	assert_true(trials >= 200);
	assert_true(rose * 50 <= trials);
}

/*
 * A real gain in noisy samples (16K -> 32K: +60%, 20% noise per sample): kept in the first
 * switchback trial in at least 34 of 40 runs (measured: 36; the window-judged criterion
 * kept 35 at its first look and needed a second look for the rest).
 */
static void test_noisy_gain_retested(void **state)
{
	unsigned int seed, kept = 0, runs = 40, i;
	struct sim s;

	for (seed = 1; seed <= runs; seed++) {
		sim_init(&s, m_gso_gain, NULL);
		s.quiet = true;
		s.rng ^= seed * 0x2545F4914F6CDD1DULL;
		s.noise = 0.2;
		s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
		sim_run(&s, 60);
		for (i = 0; i < s.n_log; i++) {
			if (s.log[i].kind == TUNER_KEEP || s.log[i].kind == TUNER_ROLLBACK) {
				kept += s.log[i].kind == TUNER_KEEP;
				break;
			}
		}
		assert_true(count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP) >= 1);
		sim_free(&s);
	}
	print_message("noisy +60%%: first trial kept in %u of %u runs\n", kept, runs);
	assert_true(kept * 40 >= runs * 34);
}

/*
 * Long-lived flows with drifting throughput (AR(1) 0.85 as in test_drift_false_keep_rate):
 * a raise their skbs never use is never kept (600 trials, 0 kept; judged on throughput
 * alone, 17 of 227 were).
 */
static void test_unused_raise_never_kept(void **state)
{
	unsigned int seed, trials = 0, keeps = 0, unused = 0, i;
	struct tuner_config cfg;
	struct sim s;

	tuner_config_default(&cfg);
	cfg.backoff_initial_ms = 30000;
	cfg.backoff_max_ms = 30000;
	for (seed = 1; seed <= 20; seed++) {
		sim_init(&s, m_long_lived, &cfg);
		s.quiet = true;
		s.rng ^= seed * 0x2545F4914F6CDD1DULL;
		s.noise = 0.05;
		s.drift = 0.2;
		s.drift_ar = 0.85;
		s.param = 16384;
		s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
		sim_run(&s, 1200);
		trials += count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP);
		keeps += s.n_kind[TUNER_KEEP];
		for (i = 0; i < s.n_log; i++)
			unused += s.log[i].kind == TUNER_ROLLBACK &&
				  strstr(s.log[i].reason, "did not reach the traffic");
		sim_free(&s);
	}
	print_message("unused raises: %u trials, %u kept, %u rolled back as unused\n", trials,
		      keeps, unused);
	assert_true(trials >= 200);
	assert_int_equal(keeps, 0);
	assert_true(unused * 10 >= trials * 9);
}

/* ---- switchback: error rates over many seeds ----------------------------------------- */

struct scenario {
	const char *name;
	double noise, drift, drift_ar, wave, burst, outliers;
	const char *recorded; /* tests/unit/fixtures/tuner/NAME: bytes/s, one 1 s sample a line */
};

static const struct scenario scenarios[] = {
	{"white noise 10%", 0.10, 0, 0, 0, 0, 0, NULL},
	{"AR(1) 0.5, 15%", 0.03, 0.15, 0.5, 0, 0, 0, NULL},
	{"AR(1) 0.7, 15%", 0.03, 0.15, 0.7, 0, 0, 0, NULL},
	{"AR(1) 0.9, 20%", 0.03, 0.20, 0.9, 0, 0, 0, NULL},
	{"swing +-20% / 40 s", 0.05, 0, 0, 0.2, 0, 0, NULL},
	{"bursts and outliers", 0.05, 0, 0, 0, 0.05, 0.05, NULL},
	{"recorded, 16384", 0, 0, 0, 0, 0, 0, "longlived-16384.txt"},
	{"recorded, 65536", 0, 0, 0, 0, 0, 0, "longlived-65536.txt"},
};

static double rec_buf[2][1024];
static unsigned int rec_n[2];

static void sim_scenario(struct sim *s, const struct scenario *sc, unsigned int seed)
{
	unsigned int i = (unsigned int)(sc - scenarios) % 2;

	s->quiet = true;
	s->rng ^= seed * 0x2545F4914F6CDD1DULL;
	s->noise = sc->noise;
	s->drift = sc->drift;
	s->drift_ar = sc->drift_ar;
	s->wave = sc->wave;
	s->burst = sc->burst;
	s->outliers = sc->outliers;
	if (sc->recorded) {
		s->rec = rec_buf[i];
		s->n_rec = rec_n[i];
		s->rec_pos = (seed * 37) % rec_n[i]; /* each seed replays from elsewhere */
	}
	s->env.knob[KNOB_GSO_MAX_SIZE] = s->env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
}

static bool load_recorded(const struct scenario *sc)
{
	unsigned int i = (unsigned int)(sc - scenarios) % 2;
	char path[PATH_MAX + 64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/tuner/%s", tree, sc->recorded);
	f = fopen(path, "r");
	if (!f)
		return false;
	rec_n[i] = 0;
	while (rec_n[i] < 1024 && fgets(line, sizeof(line), f))
		if (line[0] != '#' && sscanf(line, "%lf", &rec_buf[i][rec_n[i]]) == 1 &&
		    rec_buf[i][rec_n[i]] > 0)
			rec_n[i]++;
	fclose(f);
	return rec_n[i] >= 100;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The switchback's error rates where the statistics are hardest: no-gain trials (A/A: the
 * knob changes nothing) and a real +25% gain, under white noise, AR(1) drift at 0.5-0.9,
 * a slow swing, bursts of other load, and series recorded on the development VM (one iperf3
 * connection on veth, per-second throughput). Printed per scenario; bounded overall.
 */
static void test_switchback_error_rates(void **state)
{
	unsigned int sc_i, seed, aa_trials = 0, aa_keeps = 0, g_runs = 0, g_kept = 0;
	unsigned int g_extended = 0, most_pairs = 0;
	uint64_t all_ttk[512];
	unsigned int n_all = 0;
	struct tuner_config cfg;
	struct sim s;

	tuner_config_default(&cfg);
	cfg.backoff_initial_ms = 30000;
	cfg.backoff_max_ms = 30000;
	print_message("%-22s %14s %10s %14s %12s\n", "scenario", "A/A kept", "+25% kept",
		      "time to keep", "(median, p90)");
	for (sc_i = 0; sc_i < sizeof(scenarios) / sizeof(scenarios[0]); sc_i++) {
		const struct scenario *sc = &scenarios[sc_i];
		unsigned int trials = 0, keeps = 0, kept = 0, runs = 50, n = 0, i;
		uint64_t ttk[64];

		if (sc->recorded && !load_recorded(sc))
			fail_msg("recorded series %s not found under %s", sc->recorded, tree);
		for (seed = 1; seed <= 20; seed++) {
			sim_init(&s, m_no_gain, &cfg);
			sim_scenario(&s, sc, seed);
			sim_run(&s, 600);
			trials += count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP);
			keeps += count_log(&s, TUNER_KEEP, KNOB_GSO_MAX_SIZE, TUNER_UP);
			for (i = 0; i < s.n_log; i++) {
				const char *of = strstr(s.log[i].reason, "mean of ");

				if (of && atoi(of + 8) > (int)most_pairs)
					most_pairs = (unsigned int)atoi(of + 8);
			}
			sim_free(&s);
		}
		for (seed = 1; seed <= runs; seed++) {
			const struct tuner_action *st = NULL;

			sim_init(&s, m_step_gain, &cfg);
			sim_scenario(&s, sc, seed + 1000);
			s.param = 0.25;
			s.env.gso_max = 32768;
			sim_run(&s, 60);
			for (i = 0; i < s.n_log; i++) {
				if (s.log[i].kind == TUNER_START_TRIAL && !st)
					st = &s.log[i];
				if (st && s.log[i].kind == TUNER_KEEP) {
					const char *of = strstr(s.log[i].reason, "mean of ");

					ttk[n++] = s.log[i].ts_ms - st->ts_ms;
					if (of && atoi(of + 8) > (int)cfg.switch_pairs)
						g_extended++;
					break;
				}
				if (st && s.log[i].kind == TUNER_ROLLBACK)
					break;
			}
			sim_free(&s);
		}
		kept = n;
		qsort(ttk, n, sizeof(ttk[0]), cmp_u64);
		for (i = 0; i < n && n_all < 512; i++)
			all_ttk[n_all++] = ttk[i];
		print_message("%-22s %5u of %4u %5u of %u %9.1f s %7.1f s\n", sc->name, keeps,
			      trials, kept, runs, n ? (double)ttk[n / 2] / 1000 : -1,
			      n ? (double)ttk[n * 9 / 10] / 1000 : -1);
		aa_trials += trials;
		aa_keeps += keeps;
		g_runs += runs;
		g_kept += kept;
		/* Each scenario: at most 2% of no-gain trials kept. */
		/* Each scenario within the guaranteed bound, false_keep (5%). */
		assert_true(keeps * 20 <= trials);
	}
	qsort(all_ttk, n_all, sizeof(all_ttk[0]), cmp_u64);
	print_message("all: A/A %u of %u kept (%.2f%%); +25%% kept in %u of %u first trials, "
		      "median %.1f s after the trial started\n",
		      aa_keeps, aa_trials, 100.0 * aa_keeps / aa_trials, g_kept, g_runs,
		      n_all ? (double)all_ttk[n_all / 2] / 1000 : -1);
	/* The pair limit grows only for a lean to a gain, and to twice switch_pairs at most
	 * (switch_pairs_extended()); some of the gains are kept past switch_pairs. */
	print_message("most pairs in a no-gain trial: %u (limit %u, extended %u); +25%% kept "
		      "after more than %u pairs: %u\n",
		      most_pairs, cfg.switch_pairs, 2 * cfg.switch_pairs, cfg.switch_pairs,
		      g_extended);
	assert_true(most_pairs <= 2 * cfg.switch_pairs);
	assert_true(g_extended > 0);
	assert_true(aa_trials >= 1000);
	assert_true(aa_keeps * 100 <= aa_trials);
	/* +25% in noise of 10-20% per sample: kept in three of four first trials, in 8 s. */
	assert_true(g_kept * 100 >= g_runs * 70);
	assert_true(n_all && all_ttk[n_all / 2] <= 10000);
}

/* Retransmits with skbs above 16K: gso_max_size stepped down 64K -> 32K -> 16K, kept. */
static void test_faults_lower_gso_stepwise(void **state)
{
	const struct tuner_action *a;
	struct sim s;

	sim_init(&s, m_tso_faults, NULL);
	s.param = 16384;
	sim_run(&s, 60);
	a = &s.log[0];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->rule, TUNER_RULE_GSO_FAULTS);
	assert_int_equal(a->dir, TUNER_DOWN);
	assert_int_equal(a->changes[0].to, 32768);
	assert_non_null(strstr(a->reason, "retransmits 5.0"));
	a = &s.log[1];
	assert_int_equal(a->kind, TUNER_STEP);
	assert_int_equal(a->changes[0].from, 32768);
	assert_int_equal(a->changes[0].to, 16384);
	assert_non_null(strstr(a->reason, "did not fall"));
	a = &s.log[2];
	assert_int_equal(a->kind, TUNER_KEEP);
	assert_int_equal(a->changes[0].from, 65536); /* from the pre-trial value */
	assert_int_equal(a->changes[0].to, 16384);
	assert_non_null(strstr(a->reason, "retransmits fell"));
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	assert_int_equal(s.env.knob[KNOB_TSO], 1);
	/* Within 60 s, and nothing tries to raise it again right away. */
	assert_true(s.first_ms[TUNER_KEEP] - 1000000 <= 60000);
	sim_run(&s, 240);
	assert_int_equal(count_log(&s, TUNER_START_TRIAL, KNOB_GSO_MAX_SIZE, TUNER_UP), 0);
	sim_free(&s);
}

/* The step at 32K costs half the throughput and does not cure: the fix steps on to 16K
 * (cured, kept) instead of rolling back on the collapse. */
static void test_faults_step_through_worse(void **state)
{
	struct sim s;

	sim_init(&s, m_burst_faults, NULL);
	s.param = 16384;
	sim_run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_STEP], 1);
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 0);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	assert_non_null(strstr(last_of(&s, TUNER_KEEP)->reason, "retransmits fell"));
	sim_free(&s);
}

/*
 * The fault appears while the baseline is collected: the fix waits until the window holds
 * the fault alone (its halves agree), so neither the fault's ramp reads as a rise caused by
 * the change nor the pre-fault throughput as the fix's cost. Then 64K -> 32K -> 16K, kept.
 */
static void test_fault_appearing_waits(void **state)
{
	struct tuner_recommendation rec;
	uint64_t on;
	struct sim s;

	sim_init(&s, m_burst_faults, NULL);
	s.env.gso_max = 65536; /* nothing to raise */
	s.param = 1e9;	       /* no fault yet */
	sim_run(&s, 20);
	on = s.now;
	s.param = 16384;
	sim_run(&s, 3);
	assert_int_equal(s.n_log, 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_non_null(strstr(rec.summary, "retransmits not steady"));
	sim_run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_true(s.first_ms[TUNER_START_TRIAL] - on >= 5000);
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 0);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	sim_free(&s);
}

/* The tuner keeps backoff and counts for the knobs with a slot only (lib/tuner/tuner_priv.h
 * TUNER_KNOBS: below KNOB_FIRST_ETHNL, the host's, napi_threaded, rps_cpus, ring_rx and
 * the NAPI deferral's two): every rule's candidate and every change it carries stays there. */
static bool has_slot(enum knob_id k)
{
	return (unsigned int)k < KNOB_FIRST_ETHNL || knob_is_host(k) || k == KNOB_NAPI_THREADED ||
	       k == KNOB_RPS_CPUS || k == KNOB_RING_RX || k == KNOB_NAPI_DEFER_HARD_IRQS ||
	       k == KNOB_GRO_FLUSH_TIMEOUT;
}

static void test_rule_knobs_in_range(void **state)
{
	struct tuner_recommendation rec;
	unsigned int i, j;
	struct sim s;

	sim_init(&s, m_burst_faults, NULL);
	s.param = 16384;
	sim_run(&s, 30);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	for (i = 0; i < TUNER_RULE__COUNT; i++) {
		assert_true(has_slot(rec.cands[i].knob));
		for (j = 0; j < rec.cands[i].n_changes; j++)
			assert_true(has_slot(rec.cands[i].changes[j].knob));
	}
	sim_free(&s);
}

/* Faults at any GSO size while TSO is on: the gso chain rolls back, then TSO off is kept. */
static void test_faults_then_tso_off(void **state)
{
	const struct tuner_action *a;
	struct sim s;

	sim_init(&s, m_tso_faults, NULL);
	s.param = 0; /* any size */
	sim_run(&s, 120);
	assert_int_equal(count_log(&s, TUNER_STEP, KNOB_GSO_MAX_SIZE, TUNER_DOWN), 1);
	assert_int_equal(count_log(&s, TUNER_ROLLBACK, KNOB_GSO_MAX_SIZE, TUNER_DOWN), 1);
	a = &s.log[2];
	assert_int_equal(a->kind, TUNER_ROLLBACK);
	assert_int_equal(a->changes[0].from, 16384);
	assert_int_equal(a->changes[0].to, 65536); /* back to the pre-trial value at once */
	a = &s.log[3];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->rule, TUNER_RULE_TSO_FAULTS);
	assert_non_null(strstr(a->reason, "a lower size did not help"));
	a = &s.log[4];
	assert_int_equal(a->kind, TUNER_KEEP);
	assert_int_equal(a->rule, TUNER_RULE_TSO_FAULTS);
	assert_int_equal(a->knob, KNOB_TSO);
	assert_int_equal(s.env.knob[KNOB_TSO], 0);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 65536);
	sim_free(&s);
}

/* The chip quirk tso-retransmit-storm (RTL8126 reports): TSO off is tried first. */
static void test_storm_quirk_tso_first(void **state)
{
	struct sim s;

	sim_init(&s, m_tso_faults, NULL);
	s.param = 16384;
	s.env.quirks = CHIP_Q_TSO_RETRANSMIT_STORM;
	sim_run(&s, 40);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(s.log[0].knob, KNOB_TSO);
	assert_non_null(strstr(s.log[0].reason, "tso-retransmit-storm"));
	assert_int_equal(s.log[1].kind, TUNER_KEEP);
	assert_int_equal(s.env.knob[KNOB_TSO], 0);
	sim_free(&s);
}

/* A raise that brings retransmits is rolled back at once, not at the end of the window. */
static void test_retrans_rise_rolls_back_early(void **state)
{
	const struct tuner_action *a;
	struct sim s;

	sim_init(&s, m_big_gso_retrans, NULL);
	sim_run(&s, 40);
	a = &s.log[0];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->changes[0].to, 131072);
	a = &s.log[1];
	assert_int_equal(a->kind, TUNER_ROLLBACK);
	assert_non_null(strstr(a->reason, "retransmits rose"));
	/* Settle (2) + the first observed sample: 3 s after the start, not 10. */
	assert_true(a->ts_ms - s.log[0].ts_ms <= 3000);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 65536);
	assert_int_equal(s.env.knob[KNOB_GSO_IPV4_MAX_SIZE], 65536);
	sim_run(&s, 200);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	sim_free(&s);
}

/* TX timeouts with big skbs: lowered, kept once none fire while observed. */
static void test_timeouts_fix(void **state)
{
	struct sim s;

	sim_init(&s, m_timeouts, NULL);
	sim_run(&s, 30);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(s.log[0].rule, TUNER_RULE_GSO_FAULTS);
	assert_non_null(strstr(s.log[0].reason, "TX timeouts"));
	assert_int_equal(s.log[1].kind, TUNER_KEEP);
	assert_non_null(strstr(s.log[1].reason, "TX timeouts fell"));
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 32768);
	sim_free(&s);
}

/* A collapse with no fault counted is rolled back after three samples, not ten. */
static void test_collapse_rolls_back_early(void **state)
{
	struct sim s;

	sim_init(&s, m_collapse, NULL);
	sim_run(&s, 30);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(s.log[1].kind, TUNER_ROLLBACK);
	/* The pairs show it worse, or three trial samples a collapse, whichever first. */
	assert_true(strstr(s.log[1].reason, "collapsed") || strstr(s.log[1].reason, ": worse"));
	assert_true(s.log[1].ts_ms - s.log[0].ts_ms <= 5 * 1000);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 65536);
	sim_free(&s);
}

/* A flow collapsed into retransmission timeouts is below the idle thresholds but not idle:
 * its retransmits keep the window, and a fix is tried and kept where the flow recovers.
 * An idle link stays idle (test_idle_nothing). */
static void test_collapse_not_idle(void **state)
{
	struct sim s;

	sim_init(&s, m_rto_collapse, NULL);
	sim_run(&s, 90);
	assert_true(s.n_log >= 2);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(s.log[0].dir, TUNER_DOWN);
	assert_non_null(strstr(s.log[0].reason, "retransmits"));
	assert_int_equal(last_of(&s, TUNER_KEEP)->dir, TUNER_DOWN);
	assert_true(s.env.knob[KNOB_GSO_MAX_SIZE] <= 16384 || s.env.knob[KNOB_TSO] == 0);
	sim_free(&s);
}

/* Two minutes without traffic: no action at all, and recommend says why. */
static void test_idle_nothing(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	sim_init(&s, m_idle, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = 16384;
	s.env.knob[KNOB_GRO] = 0;
	s.env.allowed_mtu_min = 1500;
	s.env.allowed_mtu_max = 9000;
	sim_run(&s, 120);
	assert_int_equal(s.n_log, 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.state, TUNER_ST_IDLE);
	assert_int_equal(rec.next, -1);
	assert_non_null(strstr(rec.summary, "no traffic"));
	sim_free(&s);
}

/* Interfaces by ifindex (a hash): a node's 1000 pods (consecutive keys from 0x40000000)
 * among devices and the host, found, renamed and removed each exactly. */
static void test_many_interfaces(void **state)
{
	struct tuner_iface_info *info = malloc(sizeof(*info));
	struct rterr err = {0};
	struct tuner *t;
	char name[IF_NAMESIZE];
	int i;

	assert_non_null(info);
	assert_int_equal(tuner_new(NULL, &t, &err), 0);
	assert_int_equal(tuner_iface_state(t, 2), -ENOENT);
	assert_int_equal(tuner_iface_add(t, TUNER_HOST, "host"), 0);
	for (i = 1; i <= 64; i++)
		assert_int_equal(tuner_iface_add(t, i, "dev"), 0);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(tuner_iface_add(t, 0x40000000 + i, name), 0);
	}
	assert_int_equal(tuner_iface_add(t, 0x40000000 + 500, "again"), -EEXIST);
	assert_int_equal(tuner_iface_add(t, 7, "again"), -EEXIST);
	for (i = 0; i < 1000; i += 2)
		assert_int_equal(tuner_iface_remove(t, 0x40000000 + i), 0);
	assert_int_equal(tuner_iface_remove(t, 0x40000000), -ENOENT);
	assert_int_equal(tuner_iface_rename(t, 0x40000000 + 999, "renamed"), 0);
	for (i = 0; i < 1000; i++) {
		int r = tuner_iface_info(t, 0x40000000 + i, info);

		if (i % 2 == 0) {
			assert_int_equal(r, -ENOENT);
			assert_int_equal(tuner_iface_state(t, 0x40000000 + i), -ENOENT);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(info->ifindex, 0x40000000 + i);
		snprintf(name, sizeof(name), i == 999 ? "renamed" : "p%d", i);
		assert_string_equal(info->ifname, name);
		assert_int_equal(tuner_iface_state(t, 0x40000000 + i), TUNER_ST_IDLE);
	}
	for (i = 0; i <= 64; i++)
		assert_int_equal(tuner_iface_state(t, i), TUNER_ST_IDLE);
	tuner_free(t);
	free(info);
}

/* An idle interface rests (tuner_iface_rest()): in a trial nothing changes; out of one it
 * is idle with an empty window, its decisions and backoffs kept, and feeding starts over
 * (the backoff still holds it back). Unknown interfaces: -ENOENT. */
static void test_rest(void **state)
{
	struct tuner_iface_info *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct tuner_recommendation rec;
	unsigned int n;
	struct sim s;

	assert_non_null(a);
	assert_non_null(b);
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	for (n = 0; n < 60 && s.n_log == 0; n++)
		sim_run(&s, 1);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(tuner_iface_info(s.t, IFX, a), 0);
	assert_true(a->in_trial);
	assert_int_equal(tuner_iface_rest(s.t, IFX), 0);
	assert_int_equal(tuner_iface_info(s.t, IFX, b), 0);
	assert_true(b->in_trial);
	assert_int_equal(b->state, a->state);
	assert_int_equal(b->samples, a->samples);

	/* Two raises kept, the third rolled back and backed off (test_gso_raise_kept). */
	sim_run(&s, 120);
	assert_int_equal(count_log(&s, TUNER_KEEP, KNOB_GSO_MAX_SIZE, TUNER_UP), 2);
	assert_int_equal(tuner_iface_info(s.t, IFX, a), 0);
	assert_false(a->in_trial);
	assert_true(a->samples > 0);
	assert_true(a->backoff[KNOB_GSO_MAX_SIZE][TUNER_UP].until_ms > s.now);
	assert_int_equal(tuner_iface_rest(s.t, IFX), 0);
	assert_int_equal(tuner_iface_info(s.t, IFX, b), 0);
	assert_int_equal(b->state, TUNER_ST_IDLE);
	assert_int_equal(b->samples, 0);
	assert_memory_equal(b->decisions, a->decisions, sizeof(a->decisions));
	assert_memory_equal(b->backoff, a->backoff, sizeof(a->backoff));
	/* What recommend says while it rests comes from the environment given (here gso_max_size
	 * pinned), not from unknown knobs; without one, every knob is unknown. */
	s.env.pinned[KNOB_GSO_MAX_SIZE] = true;
	assert_int_equal(tuner_recommend_env(s.t, IFX, &s.env, s.now, &rec), 0);
	assert_int_equal(rec.cands[TUNER_RULE_GSO_AT_CAP].status, TUNER_CAND_PINNED);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_not_equal(rec.cands[TUNER_RULE_GSO_AT_CAP].status, TUNER_CAND_PINNED);
	s.env.pinned[KNOB_GSO_MAX_SIZE] = false;

	n = s.n_log;
	sim_run(&s, 30);
	assert_int_equal(s.n_log, n);
	assert_int_equal(tuner_iface_info(s.t, IFX, b), 0);
	assert_true(b->samples > 0);
	assert_int_equal(tuner_iface_rest(s.t, IFX + 1), -ENOENT);
	sim_free(&s);
	free(a);
	free(b);
}

/* Pins, autotune off, and both changing mid-trial. */
static void test_pins_and_autotune(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	/* gso_max_size pinned: no GSO trial, and recommend says it is pinned. */
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.env.pinned[KNOB_GSO_MAX_SIZE] = true;
	sim_run(&s, 120);
	assert_int_equal(s.n_log, 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.cands[TUNER_RULE_GSO_AT_CAP].status, TUNER_CAND_PINNED);
	sim_free(&s);

	/* The IPv4 twin pinned: a raise to <= 64K would move it, so none. */
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.env.pinned[KNOB_GSO_IPV4_MAX_SIZE] = true;
	sim_run(&s, 60);
	assert_int_equal(s.n_log, 0);
	sim_free(&s);

	/* Autotune off: nothing; recommend still tells what it would do. */
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.env.autotune = false;
	sim_run(&s, 120);
	assert_int_equal(s.n_log, 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.cands[TUNER_RULE_GSO_AT_CAP].status, TUNER_CAND_AUTOTUNE_OFF);
	assert_non_null(strstr(rec.cands[TUNER_RULE_GSO_AT_CAP].reason, "try 65536"));
	assert_int_equal(rec.next, TUNER_RULE_GSO_AT_CAP);
	assert_non_null(strstr(rec.summary, "next (autotune_off): gso_max_size 16384 -> 65536"));
	/* Turned on: the baseline is there, the trial starts at once. */
	s.env.autotune = true;
	sim_run(&s, 1);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	/* Off again mid-trial: rolled back at the next sample. */
	sim_run(&s, 3);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 65536);
	s.env.autotune = false;
	sim_run(&s, 1);
	assert_int_equal(last_of(&s, TUNER_ROLLBACK)->changes[0].to, 16384);
	assert_non_null(strstr(last_of(&s, TUNER_ROLLBACK)->reason, "autotune turned off"));
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	sim_run(&s, 120);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	sim_free(&s);

	/* Pinned mid-trial: rolled back too. */
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	sim_run(&s, 5);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	s.env.pinned[KNOB_GSO_MAX_SIZE] = true;
	sim_run(&s, 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	sim_free(&s);
}

/* Whatever the samples say, no proposal leaves the limits. */
static void test_limits_never_exceeded(void **state)
{
	unsigned int seed, i, checked = 0;
	struct sim s;

	/* A 64000-byte TSO limit (r8169): 16K -> 32K -> 64000, never more. */
	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.env.gso_max = 64000;
	sim_run(&s, 300);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 64000);
	for (i = 0; i < s.n_log; i++)
		assert_true(s.log[i].changes[0].to <= 64000);
	sim_free(&s);

	/* No allowed_mtu range: the MTU is never proposed, whatever the gain. */
	sim_init(&s, m_mtu, NULL);
	s.param = 0.5;
	sim_run(&s, 300);
	assert_int_equal(count_log(&s, TUNER_START_TRIAL, KNOB_MTU, TUNER_UP), 0);
	assert_int_equal(s.env.knob[KNOB_MTU], 1500);
	sim_free(&s);

	/* Random environments and traffic: every change stays inside its limits. */
	for (seed = 1; seed <= 40; seed++) {
		sim_init(&s,
			 seed % 3 == 0	 ? m_tso_faults
			 : seed % 3 == 1 ? m_gso_gain
					 : m_mtu,
			 NULL);
		s.quiet = true;
		s.rng ^= seed * 0x9E3779B97F4A7C15ULL;
		s.param = seed % 2 ? 0.3 : 16384;
		s.noise = 0.05 * (seed % 5);
		s.env.gso_max = (int64_t)(16384 + uniform(&s) * 600000);
		s.env.gro_max = (int64_t)(65536 + uniform(&s) * 500000);
		s.env.mtu_max = 1500 + (int64_t)(uniform(&s) * 8000);
		s.env.allowed_mtu_min = seed % 4 ? 1500 : 0;
		s.env.allowed_mtu_max = seed % 4 ? 1500 + (int64_t)(uniform(&s) * 10000) : 0;
		s.env.knob[KNOB_GSO_MAX_SIZE] = 16384 << (seed % 4);
		if (s.env.knob[KNOB_GSO_MAX_SIZE] > s.env.gso_max)
			s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.gso_max;
		s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = s.env.knob[KNOB_GSO_MAX_SIZE];
		sim_run(&s, 600);
		for (i = 0; i < s.n_log; i++) {
			const struct tuner_action *a = &s.log[i];
			unsigned int c;

			for (c = 0; c < a->n_changes; c++) {
				int64_t to = a->changes[c].to, from = a->changes[c].from;

				if (a->kind != TUNER_START_TRIAL && a->kind != TUNER_STEP)
					continue;
				checked++;
				switch (a->changes[c].knob) {
				case KNOB_GSO_MAX_SIZE:
				case KNOB_GSO_IPV4_MAX_SIZE:
					assert_true(to <= s.env.gso_max);
					if (to < from)
						assert_true(to >= 16384);
					break;
				case KNOB_GRO_MAX_SIZE:
				case KNOB_GRO_IPV4_MAX_SIZE:
					assert_true(to <= s.env.gro_max);
					break;
				case KNOB_MTU:
					assert_true(s.env.allowed_mtu_max > 0);
					assert_true(to <= s.env.allowed_mtu_max);
					assert_true(to <= s.env.mtu_max);
					assert_true(to >= s.env.allowed_mtu_min);
					break;
				default:
					break;
				}
			}
		}
		sim_free(&s);
	}
	assert_true(checked >= 40);
}

/* A receiver at 80k frames/s with GRO off: GRO on, kept; then merged skbs at the cap. */
static void test_gro_on_then_raise(void **state)
{
	const struct tuner_action *a;
	struct sim s;

	sim_init(&s, m_rx, NULL);
	s.env.knob[KNOB_GRO] = 0;
	s.base_bps = 120e6; /* ~80k frames/s of 1514 bytes */
	sim_run(&s, 60);
	a = &s.log[0];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->rule, TUNER_RULE_GRO_OFF);
	assert_non_null(strstr(a->reason, "frames/s received"));
	assert_int_equal(s.log[1].kind, TUNER_KEEP);
	assert_non_null(strstr(s.log[1].reason, "rx throughput"));
	assert_int_equal(s.env.knob[KNOB_GRO], 1);
	/* Merged skbs pile up at 64K: gro_max_size raised, with its IPv4 twin. */
	a = &s.log[2];
	assert_int_equal(a->kind, TUNER_START_TRIAL);
	assert_int_equal(a->rule, TUNER_RULE_GRO_AT_CAP);
	assert_int_equal(a->changes[0].knob, KNOB_GRO_MAX_SIZE);
	assert_int_equal(a->changes[0].to, 131072);
	assert_int_equal(a->n_changes, 2);
	assert_int_equal(a->changes[1].knob, KNOB_GRO_IPV4_MAX_SIZE);
	assert_int_equal(s.log[3].kind, TUNER_KEEP);
	assert_int_equal(s.env.knob[KNOB_GRO_MAX_SIZE], 131072);
	assert_int_equal(s.env.knob[KNOB_GRO_IPV4_MAX_SIZE], 131072);
	sim_free(&s);
}

/* An r8169-like chip: allowed_mtu 1500-9000, max_mtu 9194, a jumbo MTU turns TSO off. */
static void sim_init_jumbo_tso(struct sim *s, model_fn model, double param)
{
	sim_init(s, model, NULL);
	s->param = param;
	s->env.allowed_mtu_min = 1500;
	s->env.allowed_mtu_max = 9000;
	s->env.mtu_max = 9194;
	s->env.quirks = CHIP_Q_JUMBO_DISABLES_TSO;
}

/* MTU inside allowed_mtu: kept for a 10% gain, except on a jumbo-disables-tso chip. */
static void test_mtu_allowed_and_jumbo_tso(void **state)
{
	struct sim s;

	sim_init(&s, m_mtu, NULL);
	s.param = 0.10;
	s.env.allowed_mtu_min = 1500;
	s.env.allowed_mtu_max = 9000;
	s.env.mtu_max = 9194;
	sim_run(&s, 40);
	assert_int_equal(s.log[0].rule, TUNER_RULE_MTU);
	assert_int_equal(s.log[0].changes[0].to, 9000);
	assert_int_equal(s.log[1].kind, TUNER_KEEP);
	assert_int_equal(s.env.knob[KNOB_MTU], 9000);
	sim_free(&s);

	sim_init_jumbo_tso(&s, m_mtu, 0.10);
	sim_run(&s, 40);
	assert_int_equal(s.log[0].rule, TUNER_RULE_MTU);
	assert_non_null(strstr(s.log[0].reason, "turns TSO off"));
	/* TSO off is part of the trial (the driver does it anyway) and comes back with it. */
	assert_int_equal(s.log[0].n_changes, 2);
	assert_int_equal(s.log[0].changes[1].knob, KNOB_TSO);
	assert_int_equal(s.log[0].changes[1].to, 0);
	assert_int_equal(s.log[1].kind, TUNER_ROLLBACK);
	assert_int_equal(s.env.knob[KNOB_MTU], 1500);
	assert_int_equal(s.env.knob[KNOB_TSO], 1);
	sim_free(&s);

	/* The range is cut by max_mtu. */
	sim_init(&s, m_mtu, NULL);
	s.param = 0.3;
	s.env.allowed_mtu_min = 1500;
	s.env.allowed_mtu_max = 16000;
	s.env.mtu_max = 4074;
	sim_run(&s, 40);
	assert_int_equal(s.log[0].changes[0].to, 4074);
	sim_free(&s);
}

/* The jumbo MTU that turns TSO off must gain 3 x min_effect on CPU per byte too, when
 * throughput cannot move: 8% cheaper (beyond the 2% noise) is rolled back as below the
 * 15%, 40% cheaper kept; each verdict names the 15%. */
static void test_jumbo_tso_cpu(void **state)
{
	static const double gain[] = {0.08, 0.40};
	struct sim s;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		sim_init_jumbo_tso(&s, m_mtu_cpu, gain[i]);
		sim_run(&s, 40);
		assert_int_equal(s.log[0].rule, TUNER_RULE_MTU);
		assert_int_equal(s.log[1].kind, i ? TUNER_KEEP : TUNER_ROLLBACK);
		assert_non_null(strstr(s.log[1].reason, "CPU"));
		assert_non_null(strstr(s.log[1].reason, i ? "cheaper beyond noise (at least 15%)"
							  : "cheaper, but below the 15% required"));
		assert_int_equal(s.env.knob[KNOB_MTU], i ? 9000 : 1500);
		sim_free(&s);
	}
}

/* Application-limited traffic: throughput cannot move, CPU per byte decides. */
static void test_cpu_per_byte(void **state)
{
	struct sim s;

	sim_init(&s, m_cpu, NULL);
	sim_run(&s, 30);
	assert_int_equal(s.log[0].kind, TUNER_START_TRIAL);
	assert_int_equal(s.log[1].kind, TUNER_KEEP);
	assert_non_null(strstr(s.log[1].reason, "CPU"));
	assert_non_null(strstr(s.log[1].reason, "cheaper beyond noise (at least 5%)"));
	sim_free(&s);
}

/* The kernel refuses the change: FAILED, nothing changed, backed off. */
static void test_apply_failure(void **state)
{
	struct tuner_iface_info info;
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.fail_apply = true;
	sim_run(&s, 120);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_FAILED], 1);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	assert_int_equal(tuner_iface_info(s.t, IFX, &info), 0);
	assert_false(info.in_trial);
	assert_int_equal(info.backoff[KNOB_GSO_MAX_SIZE][TUNER_UP].rejected, 1);
	assert_int_equal(info.decisions[KNOB_GSO_MAX_SIZE][TUNER_FAILED], 1);
	sim_free(&s);
}

/* A failed rollback is asked for again at every sample until it succeeds. */
static void test_rollback_retried(void **state)
{
	struct tuner_sample smp = {.interval_ms = 1000, .have = 0};
	struct tuner_iface_info info;
	struct tuner_action a;
	struct sim s;

	sim_init(&s, m_big_gso_retrans, NULL);
	sim_run(&s, 4);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 131072);
	s.fail_apply = true;
	sim_run(&s, 1); /* the switchback's first sample shows the rise: rollback fails */
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 131072);
	sim_run(&s, 2);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 3);
	assert_true(s.log[s.n_log - 1].retry);
	s.fail_apply = false;
	sim_run(&s, 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 4);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 65536);
	/* Counted once for the metric. */
	assert_int_equal(tuner_iface_info(s.t, IFX, &info), 0);
	assert_int_equal(info.decisions[KNOB_GSO_MAX_SIZE][TUNER_ROLLBACK], 1);
	/* Done: no further rollback. */
	smp.ts_ms = s.now + 1000;
	assert_int_equal(tuner_feed(s.t, IFX, &smp, &s.env, s.now + 1000, &a), 0);
	assert_int_equal(a.kind, TUNER_NONE);
	sim_free(&s);
}

/* Someone else sets the knob mid-trial: the trial is abandoned, the value left alone. */
static void test_abandon_on_outside_change(void **state)
{
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	sim_run(&s, 5); /* switchback trial at 4, observing */
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 8192;
	sim_run(&s, 1);
	assert_int_equal(s.n_kind[TUNER_ABANDON], 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 0);
	assert_non_null(strstr(last_of(&s, TUNER_ABANDON)->reason, "outside the tuner"));
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 8192);
	sim_free(&s);
}

/* tuner_abort (shutdown) mid-trial gives the rollback; with no trial, nothing. */
static void test_abort(void **state)
{
	struct tuner_action a;
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	assert_int_equal(tuner_abort(s.t, IFX, s.now, "shutdown", &a), 0);
	assert_int_equal(a.kind, TUNER_NONE);
	sim_run(&s, 5);
	assert_int_equal(tuner_abort(s.t, IFX, s.now, "daemon stopping", &a), 0);
	assert_int_equal(a.kind, TUNER_ROLLBACK);
	assert_int_equal(a.changes[0].to, 16384);
	assert_string_equal(a.reason, "daemon stopping");
	sim_act(&s, &a);
	assert_int_equal(s.env.knob[KNOB_GSO_MAX_SIZE], 16384);
	sim_free(&s);
}

/* One trial at a time over all interfaces (max_trials 1). */
static void test_one_trial_at_a_time(void **state)
{
	struct tuner_sample smp;
	struct tuner_action a, b, back;
	struct sim s;
	unsigned int i, concurrent = 0, trials_b = 0;
	struct tuner_iface_info ia, ib;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	assert_int_equal(tuner_iface_add(s.t, 8, "sim1"), 0);
	assert_int_equal(tuner_iface_add(s.t, 8, "sim1"), -EEXIST);
	for (i = 0; i < 60; i++) {
		s.now += 1000;
		memset(&smp, 0, sizeof(smp));
		smp.ts_ms = s.now;
		smp.interval_ms = 1000;
		s.model(&s, &smp);
		assert_int_equal(tuner_feed(s.t, IFX, &smp, &s.env, s.now, &a), 0);
		sim_act(&s, &a);
		/* sim1 sees the same traffic but never gets its apply result while sim0 runs */
		assert_int_equal(tuner_feed(s.t, 8, &smp, &s.env, s.now, &b), 0);
		if (b.kind == TUNER_START_TRIAL) {
			trials_b++;
			assert_int_equal(tuner_applied(s.t, 8, false, s.now, &back), 0);
		}
		tuner_iface_info(s.t, IFX, &ia);
		tuner_iface_info(s.t, 8, &ib);
		if (ia.in_trial && ib.in_trial)
			concurrent++;
	}
	assert_int_equal(concurrent, 0);
	assert_true(s.n_kind[TUNER_START_TRIAL] >= 2);
	assert_int_equal(tuner_iface_rename(s.t, 8, "renamed"), 0);
	assert_int_equal(tuner_iface_remove(s.t, 8), 0);
	assert_int_equal(tuner_iface_remove(s.t, 8), -ENOENT);
	assert_int_equal(tuner_feed(s.t, 8, &smp, &s.env, s.now, &b), -ENOENT);
	(void)trials_b;
	sim_free(&s);
}

/* Unsteady traffic (a flow doubling halfway through the baseline) does not delay a
 * switchback trial: drift cancels in its pairs (window-judged gains, the MTU, still wait). */
static void test_unsteady_waits(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.noise = 0.01;
	s.base_bps = 0.5e9;
	sim_run(&s, 2);
	s.base_bps = 1e9; /* doubles halfway through the baseline */
	sim_run(&s, 2);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_true(s.n_kind[TUNER_KEEP] + s.n_kind[TUNER_ROLLBACK] <= 1);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_non_null(strstr(rec.summary, "switchback"));
	sim_free(&s);
}

/* GRO off on a bulk sender: 345k ACKs/s received, but GRO never merges them: no trial. */
static void test_gro_off_acks_only(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	sim_init(&s, m_sender_acks, NULL);
	s.env.knob[KNOB_GRO] = 0;
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 524280;
	sim_run(&s, 60);
	assert_int_equal(s.n_log, 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.cands[TUNER_RULE_GRO_OFF].status, TUNER_CAND_NO_EVIDENCE);
	assert_non_null(strstr(rec.cands[TUNER_RULE_GRO_OFF].reason, "acknowledgements"));
	sim_free(&s);
}

/* GRO off, but the frames arrive merged already (44 per skb): GRO has nothing to do. */
static void test_gro_off_merged_already(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	sim_init(&s, m_rx_merged, NULL);
	s.env.knob[KNOB_GRO] = 0;
	sim_run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.cands[TUNER_RULE_GRO_OFF].status, TUNER_CAND_NO_EVIDENCE);
	assert_non_null(
		strstr(rec.cands[TUNER_RULE_GRO_OFF].reason, "merged already, 44.0 per skb"));
	sim_free(&s);
}

/* Judge-slowly chips get windows three times as long. */
static void test_judge_slowly(void **state)
{
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	s.env.quirks = CHIP_Q_JUDGE_SLOWLY;
	sim_run(&s, 60);
	/* Switchback: a baseline of 4 x 3 samples, and its 12 noise pairs give the test its
	 * scale at once (3% noise, +60%: kept within two pairs). */
	assert_int_equal(s.first_ms[TUNER_START_TRIAL], 1000000 + 12 * 1000);
	assert_true(s.first_ms[TUNER_KEEP] - s.first_ms[TUNER_START_TRIAL] <= 5 * 1000);
	sim_free(&s);
}

/* recommend: the next step with its numbers, and every rule's status. */
static void test_recommend(void **state)
{
	struct tuner_recommendation rec;
	struct sim s;

	sim_init(&s, m_gso_gain, NULL);
	s.env.knob[KNOB_GSO_MAX_SIZE] = s.env.knob[KNOB_GSO_IPV4_MAX_SIZE] = 16384;
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.next, -1);
	sim_run(&s, 3);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_int_equal(rec.state, TUNER_ST_BASELINE);
	assert_int_equal(rec.samples, 3);
	assert_int_equal(rec.needed, 8);
	assert_non_null(strstr(rec.summary, "collecting a baseline (3/8 samples)"));
	assert_int_equal(rec.cands[TUNER_RULE_GSO_AT_CAP].status, TUNER_CAND_WAITING);
	assert_int_equal(rec.cands[TUNER_RULE_MTU].status, TUNER_CAND_NOT_ALLOWED);
	assert_int_equal(rec.cands[TUNER_RULE_GRO_OFF].status, TUNER_CAND_AT_LIMIT);
	assert_int_equal(rec.cands[TUNER_RULE_GSO_FAULTS].status, TUNER_CAND_NO_EVIDENCE);
	assert_int_equal(rec.cands[TUNER_RULE_TSO_FAULTS].status, TUNER_CAND_NO_EVIDENCE);
	sim_run(&s, 3);
	assert_int_equal(tuner_recommend(s.t, IFX, s.now, &rec), 0);
	assert_non_null(strstr(rec.summary, "in progress (gso-at-cap, switchback)"));
	assert_non_null(strstr(rec.summary, "gso_max_size 65536 against 16384"));
	sim_free(&s);
}

/* Configuration: defaults, parsing with units, ranges, cross checks. */
static void test_config(void **state)
{
	struct tuner_config c;
	struct rterr e = {0};
	struct tuner *t;
	char buf[64];
	unsigned int i;

	tuner_config_default(&c);
	assert_int_equal(tuner_config_check(&c, &e), 0);
	assert_int_equal(tuner_config_set(&c, "observe_samples", "12", &e), 0);
	assert_int_equal(c.observe_samples, 12);
	assert_int_equal(tuner_config_set(&c, "backoff_initial", "2m", &e), 0);
	assert_int_equal(c.backoff_initial_ms, 120000);
	assert_int_equal(tuner_config_set(&c, "backoff_max", "500ms", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "backoff_max: expected a duration"));
	assert_int_equal(tuner_config_set(&c, "min_effect", "0.1", &e), 0);
	assert_true(fabs(c.min_effect - 0.1) < 1e-12);
	assert_int_equal(tuner_config_set(&c, "min_effect", "lots", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "min_effect: expected a number from 0 to 0.9, got 'lots'"));
	assert_int_equal(tuner_config_set(&c, "baseline_samples", "2", &e), -EINVAL);
	assert_int_equal(tuner_config_set(&c, "baseline_samples", "8.5", &e), -EINVAL);
	assert_int_equal(tuner_config_set(&c, "nosuch", "1", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown tuner setting 'nosuch'"));
	assert_int_equal(tuner_config_format(&c, "backoff_initial", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "120s");
	for (i = 0; i < tuner_config_nkeys(); i++)
		assert_int_equal(tuner_config_format(&c, tuner_config_key(i), buf, sizeof(buf)), 0);
	assert_null(tuner_config_key(i));
	/* Windows x judge-slowly factor must fit. */
	assert_int_equal(tuner_config_set(&c, "baseline_samples", "30", &e), 0);
	assert_int_equal(tuner_config_check(&c, &e), -EINVAL);
	assert_int_equal(tuner_new(&c, &t, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "exceed 64 samples"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gso_raise_kept),
		cmocka_unit_test(test_noise_rolled_back_and_backoff),
		cmocka_unit_test(test_noise_false_keep_rate),
		cmocka_unit_test(test_drift_false_keep_rate),
		cmocka_unit_test(test_clumped_retransmits_no_penalty),
		cmocka_unit_test(test_noisy_gain_retested),
		cmocka_unit_test(test_unused_raise_never_kept),
		cmocka_unit_test(test_switchback_error_rates),
		cmocka_unit_test(test_faults_lower_gso_stepwise),
		cmocka_unit_test(test_faults_step_through_worse),
		cmocka_unit_test(test_fault_appearing_waits),
		cmocka_unit_test(test_rule_knobs_in_range),
		cmocka_unit_test(test_faults_then_tso_off),
		cmocka_unit_test(test_storm_quirk_tso_first),
		cmocka_unit_test(test_retrans_rise_rolls_back_early),
		cmocka_unit_test(test_timeouts_fix),
		cmocka_unit_test(test_collapse_rolls_back_early),
		cmocka_unit_test(test_idle_nothing),
		cmocka_unit_test(test_collapse_not_idle),
		cmocka_unit_test(test_pins_and_autotune),
		cmocka_unit_test(test_limits_never_exceeded),
		cmocka_unit_test(test_gro_on_then_raise),
		cmocka_unit_test(test_mtu_allowed_and_jumbo_tso),
		cmocka_unit_test(test_jumbo_tso_cpu),
		cmocka_unit_test(test_cpu_per_byte),
		cmocka_unit_test(test_apply_failure),
		cmocka_unit_test(test_rollback_retried),
		cmocka_unit_test(test_abandon_on_outside_change),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_one_trial_at_a_time),
		cmocka_unit_test(test_unsteady_waits),
		cmocka_unit_test(test_gro_off_acks_only),
		cmocka_unit_test(test_gro_off_merged_already),
		cmocka_unit_test(test_judge_slowly),
		cmocka_unit_test(test_recommend),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_many_interfaces),
		cmocka_unit_test(test_rest),
	};

	if (find_tree("tests/unit/fixtures/tuner") < 0) {
		fprintf(stderr, "test_tuner: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	/* TUNER_TEST_ONLY=test_name runs one test (with TUNER_TEST_VERBOSE, its decisions). */
	if (getenv("TUNER_TEST_ONLY"))
		cmocka_set_test_filter(getenv("TUNER_TEST_ONLY"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
