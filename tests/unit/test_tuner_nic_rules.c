// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's rules for the NIC's receive path (lib/tuner/tuner_rules.c, docs/tuning.md
 * "Rules"): ring-overruns, a fix that doubles ring_rx toward the ring's max while the
 * driver's qstats count frames dropped for a full ring, kept when they fall; napi-defer,
 * a gain that defers a device's interrupts (napi_defer_hard_irqs with gro_flush_timeout)
 * under bulk receive, kept only when CPU per byte falls while throughput holds, rolled back
 * when the median TCP RTT rises (the latency guard). Simulated devices, one sample a second.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/knob.h"
#include "rtltune/link.h"
#include "rtltune/tuner.h"

#define IFX 7
#define BPS 1e9 /* bytes/s received */

struct nsim {
	struct tuner *t;
	struct tuner_env env;
	uint64_t now, rng;
	/* ring-overruns: the ring that stops the overruns (2% of frames below it), or none
	 * (overruns_stay); whether the driver's qstats have the counter. */
	int64_t ring_needed;
	bool overruns_stay, no_overruns;
	/* napi-defer: with the deferral on, CPU time and throughput by these factors, the
	 * median TCP RTT up by rtt_add microseconds; rtt 0: not sampled. */
	double defer_cpu, defer_thr, rtt, rtt_add;
	int64_t max_ring_seen;
	unsigned int n_kind[TUNER_ACTION__COUNT];
	struct tuner_action last[TUNER_ACTION__COUNT];
	unsigned int steps;
};

static double uniform(struct nsim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (double)((s->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static void nsim_init(struct nsim *s)
{
	int k;

	memset(s, 0, sizeof(*s));
	assert_int_equal(tuner_new(NULL, &s->t, &(struct rterr){0}), 0);
	assert_int_equal(tuner_iface_add(s->t, IFX, "nic0"), 0);
	for (k = 0; k < KNOB__COUNT; k++)
		s->env.knob[k] = LINK_UNSET;
	s->env.autotune = true;
	s->env.n_napi = -1;
	s->env.napi_irq = -1;
	s->rng = 0x9e3779b97f4a7c15ULL;
	s->now = 1000000;
	s->defer_cpu = s->defer_thr = 1;
}

/* A NIC with a 256-entry rx ring of at most 4096 (ring-overruns). */
static void nsim_ring(struct nsim *s, int64_t needed)
{
	s->env.knob[KNOB_RING_RX] = 256;
	s->env.ring_rx_max = 4096;
	s->ring_needed = needed;
}

/* A NIC whose one NAPI has an IRQ, nothing deferred, RTT sampled (napi-defer). */
static void nsim_defer(struct nsim *s)
{
	s->env.n_napi = 1;
	s->env.napi_irq = 1;
	s->env.knob[KNOB_NAPI_DEFER_HARD_IRQS] = 0;
	s->env.knob[KNOB_GRO_FLUSH_TIMEOUT] = 0;
	s->rtt = 200;
}

static void model(struct nsim *s, struct tuner_sample *o)
{
	bool deferred = s->env.knob[KNOB_NAPI_DEFER_HARD_IRQS] > 0;
	double bps = BPS * (deferred ? s->defer_thr : 1) * (1 + 0.03 * (uniform(s) - 0.5));
	double frames = bps / 1400, share;
	int64_t ring = s->env.knob[KNOB_RING_RX];

	o->have = TUNER_HAVE_CPU;
	o->rx_bytes = (uint64_t)bps;
	o->rx_packets = (uint64_t)frames;
	o->tx_bytes = (uint64_t)(frames / 2 * 66);
	o->tx_packets = (uint64_t)(frames / 2);
	o->cpu_ns =
		(uint64_t)(8e8 * (deferred ? s->defer_cpu : 1) * (1 + 0.03 * (uniform(s) - 0.5)));
	if (ring > s->max_ring_seen)
		s->max_ring_seen = ring;
	if (ring > 0 && !s->no_overruns) {
		share = s->overruns_stay || ring < s->ring_needed ? 0.02 : 0.0;
		o->have |= TUNER_HAVE_OVERRUNS;
		o->rx_overruns = (uint64_t)(frames * share + uniform(s) * 2);
	}
	if (s->rtt > 0) {
		o->have |= TUNER_HAVE_RTT;
		o->tcp_rtt_us = (uint32_t)((s->rtt + (deferred ? s->rtt_add : 0)) *
					   (1 + 0.1 * (uniform(s) - 0.5)));
	}
}

static void act(struct nsim *s, const struct tuner_action *a)
{
	struct tuner_action back;
	unsigned int i;

	if (a->kind == TUNER_NONE)
		return;
	if (getenv("TUNER_TEST_VERBOSE"))
		printf("  %-11s %-14s %s %" PRId64 " -> %" PRId64 ": %s\n",
		       tuner_outcome_name(a->kind), tuner_rule_name(a->rule),
		       knob_name(a->changes[0].knob), a->changes[0].from, a->changes[0].to,
		       a->reason);
	s->n_kind[a->kind]++;
	s->last[a->kind] = *a;
	if (a->kind == TUNER_STEP)
		s->steps++;
	if (a->kind != TUNER_START_TRIAL && a->kind != TUNER_STEP && a->kind != TUNER_ROLLBACK)
		return;
	for (i = 0; i < a->n_changes; i++)
		s->env.knob[a->changes[i].knob] = a->changes[i].to;
	assert_int_equal(tuner_applied(s->t, IFX, true, s->now, &back), 0);
	act(s, &back);
}

static void run(struct nsim *s, unsigned int n)
{
	struct tuner_sample smp;
	struct tuner_action a;

	while (n--) {
		s->now += 1000;
		memset(&smp, 0, sizeof(smp));
		smp.ts_ms = s->now;
		smp.interval_ms = 1000;
		model(s, &smp);
		assert_int_equal(tuner_feed(s->t, IFX, &smp, &s->env, s->now, &a), 0);
		act(s, &a);
	}
}

static enum tuner_cand_status status_of(struct nsim *s, enum tuner_rule r, char *reason, size_t len)
{
	struct tuner_recommendation rec;

	assert_int_equal(tuner_recommend(s->t, IFX, s->now, &rec), 0);
	if (reason)
		snprintf(reason, len, "%s", rec.cands[r].reason);
	return rec.cands[r].status;
}

/* 2% of frames overrun a ring of 256, none at 512: one trial doubles it, kept. */
static void test_ring_raised_and_kept(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 512);
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.last[TUNER_START_TRIAL].rule, TUNER_RULE_RING_OVERRUNS);
	assert_int_equal(s.last[TUNER_START_TRIAL].knob, KNOB_RING_RX);
	assert_int_equal(s.last[TUNER_START_TRIAL].n_changes, 1);
	assert_int_equal(s.last[TUNER_START_TRIAL].changes[0].to, 512);
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 0);
	assert_non_null(strstr(s.last[TUNER_KEEP].reason, "ring overruns fell"));
	assert_int_equal(s.env.knob[KNOB_RING_RX], 512);
	tuner_free(s.t);
}

/* A ring of 2048 needed: the trial doubles on within itself (512, 1024, 2048), kept. */
static void test_ring_steps(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 2048);
	run(&s, 90);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.steps, 2);
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	assert_int_equal(s.env.knob[KNOB_RING_RX], 2048);
	tuner_free(s.t);
}

/* More than the ring's max needed: stepped up to the max, never beyond; nothing cured, so
 * rolled back to 256 and backed off. At the max already: at_limit, no trial. */
static void test_ring_capped_and_rolled_back(void **state)
{
	char why[384];
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 1 << 20);
	s.env.ring_rx_max = 1024;
	run(&s, 120);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.steps, 1); /* 512, 1024 */
	assert_int_equal(s.max_ring_seen, 1024);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_non_null(strstr(s.last[TUNER_ROLLBACK].reason, "ring overruns did not fall"));
	assert_int_equal(s.env.knob[KNOB_RING_RX], 256);
	assert_int_equal(status_of(&s, TUNER_RULE_RING_OVERRUNS, NULL, 0), TUNER_CAND_BACKOFF);
	tuner_free(s.t);

	nsim_init(&s);
	nsim_ring(&s, 1 << 20);
	s.env.knob[KNOB_RING_RX] = 4096;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_RING_OVERRUNS, why, sizeof(why)),
			 TUNER_CAND_AT_LIMIT);
	assert_non_null(strstr(why, "at the ring's max 4096"));
	tuner_free(s.t);
}

/* Overruns no ring size cures (the CPU cannot keep up): stepped to 4096, rolled back. */
static void test_ring_no_cure(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 0);
	s.overruns_stay = true;
	run(&s, 150);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_int_equal(s.max_ring_seen, 4096);
	assert_int_equal(s.env.knob[KNOB_RING_RX], 256);
	tuner_free(s.t);
}

/* A driver whose qstats lack rx-hw-drop-overruns: no_data, never tried. Few overruns: no
 * evidence. Unknown max: never raised. */
static void test_ring_no_data(void **state)
{
	char why[384];
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 512);
	s.no_overruns = true;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_RING_OVERRUNS, why, sizeof(why)),
			 TUNER_CAND_NO_DATA);
	assert_non_null(strstr(why, "rx-hw-drop-overruns"));
	tuner_free(s.t);

	nsim_init(&s);
	nsim_ring(&s, 256);
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_RING_OVERRUNS, NULL, 0), TUNER_CAND_NO_EVIDENCE);
	tuner_free(s.t);

	nsim_init(&s);
	nsim_ring(&s, 512);
	s.env.ring_rx_max = 0;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_RING_OVERRUNS, NULL, 0), TUNER_CAND_NO_DATA);
	tuner_free(s.t);
}

/* Deferral saves 30% CPU, throughput and RTT hold: both knobs in one trial, kept. */
static void test_defer_kept(void **state)
{
	const struct tuner_action *a;
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_defer(&s);
	s.defer_cpu = 0.7;
	s.rtt_add = 5;
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	a = &s.last[TUNER_START_TRIAL];
	assert_int_equal(a->rule, TUNER_RULE_NAPI_DEFER);
	assert_int_equal(a->n_changes, 2);
	assert_int_equal(a->changes[0].knob, KNOB_NAPI_DEFER_HARD_IRQS);
	assert_int_equal(a->changes[0].to, 2);
	assert_int_equal(a->changes[1].knob, KNOB_GRO_FLUSH_TIMEOUT);
	assert_int_equal(a->changes[1].to, 200000);
	assert_int_equal(s.n_kind[TUNER_STEP], 0); /* windows, not switchback */
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 0);
	assert_non_null(strstr(s.last[TUNER_KEEP].reason, "held"));
	assert_non_null(strstr(s.last[TUNER_KEEP].reason, "cheaper beyond noise"));
	assert_int_equal(s.env.knob[KNOB_NAPI_DEFER_HARD_IRQS], 2);
	assert_int_equal(s.env.knob[KNOB_GRO_FLUSH_TIMEOUT], 200000);
	/* Deferred now: nothing more to try. */
	assert_int_equal(status_of(&s, TUNER_RULE_NAPI_DEFER, NULL, 0), TUNER_CAND_AT_LIMIT);
	tuner_free(s.t);
}

/* CPU per byte falls, but the median RTT goes 200 -> 450 us: the guard rolls it back as
 * soon as it trips. */
static void test_defer_rtt_guard(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_defer(&s);
	s.defer_cpu = 0.6;
	s.rtt_add = 250;
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_non_null(strstr(s.last[TUNER_ROLLBACK].reason, "latency guard tripped"));
	/* As soon as it trips: settle (2) and three observed samples, not the full window. */
	assert_true(s.last[TUNER_ROLLBACK].ts_ms - s.last[TUNER_START_TRIAL].ts_ms <= 6000);
	assert_int_equal(s.env.knob[KNOB_NAPI_DEFER_HARD_IRQS], 0);
	assert_int_equal(s.env.knob[KNOB_GRO_FLUSH_TIMEOUT], 0);
	tuner_free(s.t);

	/* A relative rise the absolute floor ignores: 20 -> 30 us (+50%, but 10 us). */
	nsim_init(&s);
	nsim_defer(&s);
	s.rtt = 20;
	s.rtt_add = 10;
	s.defer_cpu = 0.7;
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_KEEP], 1);
	tuner_free(s.t);
}

/* Throughput falls 20% (CPU per byte falls too): worse, rolled back. No saving: rolled
 * back. */
static void test_defer_throughput_falls(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_defer(&s);
	s.defer_cpu = 0.6;
	s.defer_thr = 0.8;
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_non_null(strstr(s.last[TUNER_ROLLBACK].reason, "worse"));
	assert_int_equal(s.env.knob[KNOB_NAPI_DEFER_HARD_IRQS], 0);
	tuner_free(s.t);

	nsim_init(&s);
	nsim_defer(&s);
	run(&s, 60);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.n_kind[TUNER_KEEP], 0);
	assert_int_equal(s.n_kind[TUNER_ROLLBACK], 1);
	assert_non_null(strstr(s.last[TUNER_ROLLBACK].reason, "no saving beyond noise"));
	tuner_free(s.t);
}

/* Only on interrupts, and only with the latency guard. */
static void test_defer_preconditions(void **state)
{
	char why[384];
	struct nsim s;

	(void)state;
	/* A veth: no IRQ. */
	nsim_init(&s);
	nsim_defer(&s);
	s.env.napi_irq = 0;
	s.defer_cpu = 0.5;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_NAPI_DEFER, why, sizeof(why)),
			 TUNER_CAND_NOT_ALLOWED);
	assert_non_null(strstr(why, "no interrupt"));
	tuner_free(s.t);

	/* Not known. */
	nsim_init(&s);
	nsim_defer(&s);
	s.env.napi_irq = -1;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_NAPI_DEFER, NULL, 0), TUNER_CAND_NO_DATA);
	tuner_free(s.t);

	/* No RTT sampled: refused. */
	nsim_init(&s);
	nsim_defer(&s);
	s.rtt = 0;
	s.defer_cpu = 0.5;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_NAPI_DEFER, why, sizeof(why)),
			 TUNER_CAND_NO_DATA);
	assert_non_null(strstr(why, "no latency guard: TCP RTT not sampled"));
	tuner_free(s.t);

	/* Already deferred (by someone's gro_flush_timeout): at_limit. */
	nsim_init(&s);
	nsim_defer(&s);
	s.env.knob[KNOB_GRO_FLUSH_TIMEOUT] = 20000;
	run(&s, 30);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 0);
	assert_int_equal(status_of(&s, TUNER_RULE_NAPI_DEFER, NULL, 0), TUNER_CAND_AT_LIMIT);
	tuner_free(s.t);
}

/* Overruns and deferral together: the fix goes first. */
static void test_fix_before_gain(void **state)
{
	struct nsim s;

	(void)state;
	nsim_init(&s);
	nsim_ring(&s, 512);
	nsim_defer(&s);
	s.defer_cpu = 0.7;
	run(&s, 12);
	assert_int_equal(s.n_kind[TUNER_START_TRIAL], 1);
	assert_int_equal(s.last[TUNER_START_TRIAL].rule, TUNER_RULE_RING_OVERRUNS);
	tuner_free(s.t);
}

static void test_names_and_config(void **state)
{
	struct tuner_config cfg;
	char buf[32];

	(void)state;
	assert_string_equal(tuner_rule_name(TUNER_RULE_RING_OVERRUNS), "ring-overruns");
	assert_string_equal(tuner_rule_name(TUNER_RULE_NAPI_DEFER), "napi-defer");
	assert_true(tuner_rule_is_fix(TUNER_RULE_RING_OVERRUNS));
	assert_false(tuner_rule_is_fix(TUNER_RULE_NAPI_DEFER));
	assert_false(tuner_rule_for_host(TUNER_RULE_RING_OVERRUNS));
	assert_false(tuner_rule_for_host(TUNER_RULE_NAPI_DEFER));
	tuner_config_default(&cfg);
	assert_int_equal(tuner_config_set(&cfg, "overrun_share", "0.001", &(struct rterr){0}), 0);
	assert_int_equal(tuner_config_set(&cfg, "defer_hard_irqs", "5", &(struct rterr){0}), 0);
	assert_int_equal(tuner_config_set(&cfg, "defer_gro_flush_ns", "50000", &(struct rterr){0}),
			 0);
	assert_int_equal(tuner_config_set(&cfg, "defer_max_rtt_rise", "0.2", &(struct rterr){0}),
			 0);
	assert_int_equal(tuner_config_set(&cfg, "defer_min_rtt_rise_us", "100", &(struct rterr){0}),
			 0);
	assert_int_not_equal(tuner_config_set(&cfg, "defer_hard_irqs", "0", &(struct rterr){0}), 0);
	assert_int_equal(tuner_config_format(&cfg, "defer_gro_flush_ns", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "50000");
	assert_int_equal(tuner_config_check(&cfg, &(struct rterr){0}), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_raised_and_kept),
		cmocka_unit_test(test_ring_steps),
		cmocka_unit_test(test_ring_capped_and_rolled_back),
		cmocka_unit_test(test_ring_no_cure),
		cmocka_unit_test(test_ring_no_data),
		cmocka_unit_test(test_defer_kept),
		cmocka_unit_test(test_defer_rtt_guard),
		cmocka_unit_test(test_defer_throughput_falls),
		cmocka_unit_test(test_defer_preconditions),
		cmocka_unit_test(test_fix_before_gain),
		cmocka_unit_test(test_names_and_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
