// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes' histogram sampling (bpf/rtltune_abi.h: the same step functions the BPF
 * programs run, here with a simulated clock and random source) and the estimator that
 * turns sampled weights into counts (lib/probes/hist.c: hist_estimate()). What docs/probes.md
 * "Sampling" promises, as numbers: exact below the threshold (bursts and slow rates),
 * samples per second within the target range above it, and bucket estimates within the
 * stated standard error sqrt(4/3 * p * (1 - p) * N * max_gap).
 */
#include <linux/types.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/hist.h"
#include "../../bpf/rtltune_abi.h"

/* One family of one CPU, fed event by event as bpf/rtltune.bpf.c does (sample() and
 * family_add()), with the exact histogram kept beside it. */
struct sim {
	struct rtl_sampler s;
	uint32_t countdown; /* struct rtl_slot_stats keeps it apart from the sampler */
	uint64_t rng;
	uint64_t count, sum, samples;
	uint64_t weights[HIST_BUCKETS];
	uint64_t exact[HIST_BUCKETS];
};

static uint32_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 32);
}

static void sim_event(struct sim *m, uint64_t v, uint64_t now_ns)
{
	unsigned int b = hist_bucket_index(v);
	int clock_needed;
	uint32_t w;

	m->count++;
	m->sum += v;
	m->exact[b]++;
	if (m->countdown > 1) {
		m->countdown--;
		return;
	}
	w = rtl_sample_hit(&m->s, &clock_needed);
	if (clock_needed)
		rtl_sample_block_end(&m->s, now_ns, xorshift(&m->rng));
	m->countdown = rtl_sample_next(&m->s);
	m->weights[b] += w;
	m->samples++;
}

static double max_gap(const struct sim *m)
{
	return m->s.max_shift ? (double)(1U << m->s.max_shift) + 0.5 : 1;
}

/* The stated standard error of bucket b's estimate. */
static double stated_sigma(const struct sim *m, unsigned int b)
{
	double p = (double)m->exact[b] / (double)m->count;

	return sqrt(4.0 / 3.0 * p * (1 - p) * (double)m->count * max_gap(m));
}

/* Sizes 100, 300, 700 and 1500 bytes (buckets 128, 512, 1024, 2048) in a fixed pattern of
 * period 16 with shares 1/16, 3/16, 4/16 and 8/16: a pattern a sampler taking every 2^k-th
 * event would see one phase of. */
static uint64_t pattern(uint64_t i)
{
	static const uint16_t p[16] = {1500, 700, 1500, 300, 1500, 700, 1500, 300,
				       1500, 700, 1500, 300, 1500, 700, 1500, 100};

	return p[i % 16];
}

static void test_retune_thresholds(void **state)
{
	(void)state;
	/* Below RTL_SAMPLE_RATE_MAX (4096) per second: exact stays exact. 4096 events in
	 * one second is that rate; just faster, sampling starts. */
	assert_int_equal(rtl_sample_retune(0, RTL_SAMPLE_BLOCK_EXACT, 1001000000), 0);
	assert_int_equal(rtl_sample_retune(0, RTL_SAMPLE_BLOCK_EXACT, 4000000000ULL), 0);
	assert_int_equal(rtl_sample_retune(0, RTL_SAMPLE_BLOCK_EXACT, 990000000), 1);
	/* 4096 events in 3.4 ms (1.2 M/s): a mean gap of 2^9 brings the samples to 2.3 k/s. */
	assert_int_equal(rtl_sample_retune(0, RTL_SAMPLE_BLOCK_EXACT, 3400000), 9);
	/* A block in no time at all: the cap. */
	assert_int_equal(rtl_sample_retune(0, RTL_SAMPLE_BLOCK_EXACT, 1), RTL_SAMPLE_MAX_SHIFT);
	/* In range (1 k..4 k samples/s): unchanged. */
	assert_int_equal(rtl_sample_retune(5, RTL_SAMPLE_BLOCK, 256000000), 5);
	/* 512 samples in 1.6 s at a mean gap of 2^5 (10 k events/s): a gap of 2^3 brings
	 * the samples back into range; in 2.048 s (8 k events/s), 2^2. */
	assert_int_equal(rtl_sample_retune(5, RTL_SAMPLE_BLOCK, 1600000000), 3);
	assert_int_equal(rtl_sample_retune(5, RTL_SAMPLE_BLOCK, 2048000000), 2);
	/* 512 samples in 20 ms at 2^5 (830 k events/s): a gap of 2^8 (3.2 k samples/s). */
	assert_int_equal(rtl_sample_retune(5, RTL_SAMPLE_BLOCK, 20000000), 8);
	/* Traffic gone for three minutes: exact again. */
	assert_int_equal(rtl_sample_retune(9, RTL_SAMPLE_BLOCK, 180000000000ULL), 0);
}

static void test_gap_range(void **state)
{
	uint64_t rng = 88172645463325252ULL, total = 0;
	uint32_t g, lo = UINT32_MAX, hi = 0;
	unsigned int i;

	(void)state;
	assert_int_equal(rtl_sample_gap(0, 12345), 1);
	for (i = 0; i < 100000; i++) {
		g = rtl_sample_gap(4, xorshift(&rng));
		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
		total += g;
	}
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 32);
	/* Mean 16.5 (uniform on 1..32). */
	assert_true(fabs((double)total / 100000 - 16.5) < 0.1);
}

/* Bursts below a block stay exact at any rate: every event weight 1, in its bucket. */
static void test_burst_exact(void **state)
{
	struct sim m = {.rng = 1};
	uint64_t i;

	(void)state;
	/* 4095 events in 4 us: a million times the threshold rate, yet below one block. */
	for (i = 0; i < RTL_SAMPLE_BLOCK_EXACT - 1; i++)
		sim_event(&m, pattern(i), 1000000 + i);
	assert_int_equal(m.s.shift, 0);
	assert_int_equal(m.samples, m.count);
	assert_memory_equal(m.weights, m.exact, sizeof(m.exact));
}

/* A steady rate below the threshold (3 k/s for 33 s) stays exact. */
static void test_slow_rate_exact(void **state)
{
	struct sim m = {.rng = 1};
	uint64_t i;

	(void)state;
	for (i = 0; i < 100000; i++)
		sim_event(&m, pattern(i), 1000 + i * 333333);
	assert_int_equal(m.s.max_shift, 0);
	assert_memory_equal(m.weights, m.exact, sizeof(m.exact));
}

/* 1.2 M events/s for 1 s: sampling starts within the first block (4096 exact samples)
 * and then keeps the sample rate within 1 k..4 k per second; the weights add up to the
 * count within one gap. */
static void test_rate_adaptation(void **state)
{
	struct sim m = {.rng = 7};
	uint64_t i, n = 1200000, w = 0;
	unsigned int b;

	(void)state;
	for (i = 0; i < n; i++)
		sim_event(&m, pattern(i), 1000000 + i * 833);
	assert_true(m.s.shift >= 8 && m.s.shift <= 10);
	assert_true(m.samples >= 4096 + 1024 && m.samples <= 4096 + 4096 + RTL_SAMPLE_BLOCK);
	for (b = 0; b < HIST_BUCKETS; b++)
		w += m.weights[b];
	assert_true(w <= m.count && m.count - w < (2U << m.s.shift));
}

/*
 * The stated error, tested where a naive sampler fails (a period-16 pattern) over many
 * independent runs at 1 M events/s: no bucket estimate beyond 4 sigma, and at most 5% of
 * them beyond 2 sigma (a normal error would put 4.6% there; the bound is conservative).
 */
static void test_estimate_error(void **state)
{
	unsigned int run, b, beyond2 = 0, checked = 0;
	struct hist_estimator e;
	uint64_t i;

	(void)state;
	for (run = 0; run < 100; run++) {
		struct sim m = {.rng = 0x9E3779B97F4A7C15ULL * (run + 1)};

		for (i = 0; i < 300000; i++)
			sim_event(&m, pattern(i + run), 1000000 + i * 1000);
		memset(&e, 0, sizeof(e));
		hist_estimate(&e, m.count, m.sum, m.weights, m.s.max_shift > 0);
		assert_true(m.s.max_shift > 0);
		assert_int_equal(hist_count(&e.est), m.count);
		assert_int_equal(e.est.sum, m.sum);
		for (b = 0; b < HIST_BUCKETS; b++) {
			double err = fabs((double)e.est.buckets[b] - (double)m.exact[b]);
			double sigma = stated_sigma(&m, b);

			if (!m.exact[b]) {
				assert_int_equal(e.est.buckets[b], 0);
				continue;
			}
			checked++;
			if (err > 4 * sigma + 1)
				fail_msg("run %u bucket %u: %llu estimated for %llu (sigma %.1f)",
					 run, b, (unsigned long long)e.est.buckets[b],
					 (unsigned long long)m.exact[b], sigma);
			beyond2 += err > 2 * sigma + 1;
		}
	}
	assert_int_equal(checked, 400);
	assert_true(beyond2 <= checked / 20);
}

/*
 * Read many times while counting (the daemon samples every second): buckets never go
 * down, always add up to the exact count, and end within the stated error.
 */
static void test_estimate_reads(void **state)
{
	struct sim m = {.rng = 3};
	struct hist_estimator e = {0};
	struct rtl_hist before = {0};
	unsigned int b;
	uint64_t i;

	(void)state;
	for (i = 0; i < 2000000; i++) {
		sim_event(&m, pattern(i), 1000000 + i * 700);
		if (i % 9973 == 0) {
			hist_estimate(&e, m.count, m.sum, m.weights, m.s.max_shift > 0);
			assert_int_equal(hist_count(&e.est), m.count);
			for (b = 0; b < HIST_BUCKETS; b++)
				assert_true(e.est.buckets[b] >= before.buckets[b]);
			before = e.est;
		}
	}
	hist_estimate(&e, m.count, m.sum, m.weights, 1);
	for (b = 0; b < HIST_BUCKETS; b++)
		assert_true(fabs((double)e.est.buckets[b] - (double)m.exact[b]) <=
			    4 * stated_sigma(&m, b) + 1);
}

/* Without sampling the estimator reports the buckets as counted, and from the first
 * sampled read on it continues from them. */
static void test_estimate_exact_then_sampled(void **state)
{
	struct hist_estimator e = {0};
	uint64_t w[HIST_BUCKETS] = {0};

	(void)state;
	w[7] = 3;
	w[11] = 5;
	hist_estimate(&e, 8, 3 * 100 + 5 * 1500, w, 0);
	assert_int_equal(e.est.buckets[7], 3);
	assert_int_equal(e.est.buckets[11], 5);
	assert_int_equal(e.est.sum, 3 * 100 + 5 * 1500);
	/* 100 more events, sampled: weights gained 20 in bucket 11 and 80 in bucket 7. */
	w[7] += 80;
	w[11] += 20;
	hist_estimate(&e, 108, 9000, w, 1);
	assert_int_equal(e.est.buckets[7], 83);
	assert_int_equal(e.est.buckets[11], 25);
	/* 10 more, no sample in between: placed by their mean (150 bytes: bucket 8). */
	hist_estimate(&e, 118, 10500, w, 1);
	assert_int_equal(e.est.buckets[8], 10);
	assert_int_equal(hist_count(&e.est), 118);
	/* Counters reset (a slot selected again): start over. */
	memset(w, 0, sizeof(w));
	w[3] = 2;
	hist_estimate(&e, 2, 10, w, 0);
	assert_int_equal(e.est.buckets[3], 2);
	assert_int_equal(hist_count(&e.est), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retune_thresholds),
		cmocka_unit_test(test_gap_range),
		cmocka_unit_test(test_burst_exact),
		cmocka_unit_test(test_slow_rate_exact),
		cmocka_unit_test(test_rate_adaptation),
		cmocka_unit_test(test_estimate_error),
		cmocka_unit_test(test_estimate_reads),
		cmocka_unit_test(test_estimate_exact_then_sampled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
