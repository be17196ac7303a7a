// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's sample from two readings (lib/sampler/sample.c), the one builder rtltuned
 * and `rtltune sweep` share: rates of a steady interval, wire segments of GSO skbs, skbs
 * at the caps, the DSACKed share of retransmits, a reading without the probes, and a
 * counter that went backwards (what it counted since its restart, never 0 or a wrap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/sample.h"

/* n values of v into h. */
static void put(struct rtl_hist *h, uint64_t v, uint64_t n)
{
	h->buckets[hist_bucket_index(v)] += n;
	h->sum += v * n;
}

/* A reading with 1000 skbs sent so far: 800 of 1448 bytes, 200 GSO skbs of 64K in 45
 * segments each; 500 frames received, merged into 100 skbs of 32K. */
static void reading(struct sample_reading *r, uint64_t scale)
{
	memset(r, 0, sizeof(*r));
	r->have_probes = true;
	put(&r->tx_skb_bytes, 1448, 800 * scale);
	put(&r->tx_skb_bytes, 65536, 200 * scale);
	put(&r->tx_gso_segments, 45, 200 * scale);
	put(&r->rx_skb_bytes, 32768, 100 * scale);
	r->tx_packets = hist_count(&r->tx_skb_bytes);
	r->tx_bytes = r->tx_skb_bytes.sum;
	r->rx_packets = 500 * scale;
	r->rx_bytes = 500 * 1500 * scale;
	r->tcp_retransmits = 4 * scale;
	r->tcp_retransmit_segments = 90 * scale;
	r->drops = 7 * scale;
	r->tx_busy = 3 * scale;
	r->tx_timeouts = 1 * scale;
}

static void test_steady(void **state)
{
	struct sample_reading a, b;
	struct sample_env env = {.interval_us = 1000500, .cpu_ns = 12345};
	struct tuner_sample s;
	uint64_t seg;

	reading(&a, 1);
	reading(&b, 3); /* the interval added twice the first reading */
	sample_build(&s, &a, &b, &env, &seg);
	assert_int_equal(s.interval_ms, 1000);
	assert_int_equal(s.have, TUNER_HAVE_CPU | TUNER_HAVE_GSO | TUNER_HAVE_GRO |
					 TUNER_HAVE_RETRANS | TUNER_HAVE_DROPS |
					 TUNER_HAVE_TX_FAULTS);
	assert_int_equal(s.tx_packets, 2000);
	assert_int_equal(s.tx_bytes, 2 * (800 * 1448 + 200 * 65536));
	assert_int_equal(s.rx_packets, 1000);
	assert_int_equal(s.rx_bytes, 1000 * 1500);
	assert_int_equal(s.tx_gso_skbs, 400);
	/* 1600 skbs of one segment, 400 of 45 */
	assert_int_equal(s.tx_segs, 1600 + 400 * 45);
	assert_int_equal(s.rx_skbs, 200);
	assert_int_equal(s.tcp_retransmits, 180);
	assert_int_equal(seg, 180);
	assert_int_equal(s.tcp_retransmit_skbs, 8);
	assert_int_equal(s.drops, 14);
	assert_int_equal(s.tx_busy, 6);
	assert_int_equal(s.tx_timeouts, 2);
	assert_int_equal(s.cpu_ns, 12345);
	/* No cap given: nothing counted at it. */
	assert_int_equal(s.tx_gso_at_cap, 0);
	assert_int_equal(s.rx_gro_at_cap, 0);
}

static void test_caps(void **state)
{
	struct sample_reading a, b;
	struct sample_env env = {.interval_us = 1000000};
	struct tuner_sample s;

	reading(&a, 1);
	reading(&b, 2);
	/* 64K skbs sit in the bucket of a 65536 cap; 1448-byte ones do not. */
	env.gso_max_size = 65536;
	env.gro_max_size = 65536;
	sample_build(&s, &a, &b, &env, NULL);
	assert_int_equal(s.tx_gso_at_cap, 200);
	/* 32K skbs are below the bucket of a 64K GRO cap. */
	assert_int_equal(s.rx_gro_at_cap, 0);
	env.gro_max_size = 32768;
	sample_build(&s, &a, &b, &env, NULL);
	assert_int_equal(s.rx_gro_at_cap, 100);
	/* At the cap never counts more than the GSO skbs (a 1448 cap takes every skb). */
	env.gso_max_size = 1448;
	sample_build(&s, &a, &b, &env, NULL);
	assert_int_equal(s.tx_gso_at_cap, s.tx_gso_skbs);
}

static void test_spurious(void **state)
{
	struct sample_reading a, b;
	struct sample_env env = {.interval_us = 1000000, .ns_retrans = 1000, .ns_dsack = 750};
	struct tuner_sample s;
	uint64_t seg;

	reading(&a, 1);
	reading(&b, 2);
	sample_build(&s, &a, &b, &env, &seg);
	/* 90 segments, three quarters of the namespace's DSACKed: 90 - 67 stay loss. */
	assert_int_equal(seg, 90);
	assert_int_equal(s.tcp_retransmits, 23);
	/* 4 retransmissions, 4 - 3 */
	assert_int_equal(s.tcp_retransmit_skbs, 1);
	/* Every retransmit DSACKed: no loss, and no retransmission left. */
	env.ns_dsack = 1000;
	sample_build(&s, &a, &b, &env, &seg);
	assert_int_equal(s.tcp_retransmits, 0);
	assert_int_equal(s.tcp_retransmit_skbs, 0);
}

static void test_no_probes(void **state)
{
	struct sample_reading a = {.tx_packets = 10, .tx_bytes = 15000, .rx_packets = 4},
			      b = {.tx_packets = 110, .tx_bytes = 165000, .rx_packets = 24};
	struct sample_env env = {.interval_us = 250000, .cpu_ns = 9};
	struct tuner_sample s;
	uint64_t seg = 99;

	sample_build(&s, &a, &b, &env, &seg);
	assert_int_equal(s.have, TUNER_HAVE_CPU);
	assert_int_equal(s.interval_ms, 250);
	assert_int_equal(s.tx_packets, 100);
	assert_int_equal(s.tx_bytes, 150000);
	assert_int_equal(s.rx_packets, 20);
	/* Without the probes' GSO counts every packet is one segment. */
	assert_int_equal(s.tx_segs, 100);
	assert_int_equal(s.tcp_retransmits, 0);
	assert_int_equal(seg, 0);
}

/*
 * A counter that went backwards restarted (a probe slot cleared, a driver that zeroed its
 * statistics): the interval gets what it counted since the restart. rtltuned counted so
 * (daemon/tune.c), `rtltune sweep` read it as 0; 0 would make an interval with traffic
 * and loss look idle and lossless.
 */
static void test_counter_reset(void **state)
{
	struct sample_reading a, b;
	struct sample_env env = {.interval_us = 1000000};
	struct tuner_sample s;
	uint64_t seg;

	reading(&a, 5);
	reading(&b, 1); /* restarted: everything below what a had */
	sample_build(&s, &a, &b, &env, &seg);
	assert_int_equal(s.tx_packets, 1000);
	assert_int_equal(s.tx_bytes, 800 * 1448 + 200 * 65536);
	assert_int_equal(s.rx_packets, 500);
	assert_int_equal(s.tx_gso_skbs, 200);
	assert_int_equal(s.tx_segs, 800 + 200 * 45);
	assert_int_equal(seg, 90);
	assert_int_equal(s.tcp_retransmits, 90);
	assert_int_equal(s.drops, 7);
	assert_int_equal(s.tx_busy, 3);
	/* Only one counter restarted: the others count as usual. */
	reading(&a, 1);
	reading(&b, 2);
	a.drops = 1000;
	sample_build(&s, &a, &b, &env, &seg);
	assert_int_equal(s.drops, 14);
	assert_int_equal(s.tx_packets, 1000);
	assert_int_equal(counter_delta(5, 9), 5);
	assert_int_equal(counter_delta(9, 5), 4);
	assert_int_equal(counter_delta(UINT64_MAX, 0), UINT64_MAX);
}

/* The host's CPU time is a sum over online CPUs, which a CPU going offline takes its time
 * out of: a drop is unknown (0), not the whole time since boot. So is a first reading. */
static void test_cpu_delta(void **state)
{
	assert_int_equal(sample_cpu_delta(3000, 1000), 2000);
	assert_int_equal(sample_cpu_delta(1000, 3000), 0);
	assert_int_equal(sample_cpu_delta(3000, 0), 0);
}

static void test_from_probes(void **state)
{
	struct probe_counters pc;
	struct sample_reading r;

	memset(&pc, 0, sizeof(pc));
	put(&pc.tx_skb_bytes, 1500, 10);
	put(&pc.rx_frame_bytes, 60, 4);
	put(&pc.rx_skb_bytes, 120, 2);
	put(&pc.tx_gso_segments, 3, 1);
	pc.drops = 5;
	pc.tx_busy = 6;
	pc.tx_timeouts = 7;
	pc.tcp_retransmits = 8;
	pc.tcp_retransmit_segments = 9;
	sample_reading_from_probes(&r, &pc);
	assert_true(r.have_probes);
	assert_int_equal(r.tx_packets, 10);
	assert_int_equal(r.tx_bytes, 15000);
	/* Received frames as the driver delivered them, not the skbs after GRO. */
	assert_int_equal(r.rx_packets, 4);
	assert_int_equal(r.rx_bytes, 240);
	assert_int_equal(hist_count(&r.rx_skb_bytes), 2);
	assert_int_equal(r.tx_gso_segments.sum, 3);
	assert_int_equal(r.drops, 5);
	assert_int_equal(r.tx_busy, 6);
	assert_int_equal(r.tx_timeouts, 7);
	assert_int_equal(r.tcp_retransmits, 8);
	assert_int_equal(r.tcp_retransmit_segments, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),	      cmocka_unit_test(test_caps),
		cmocka_unit_test(test_spurious),      cmocka_unit_test(test_no_probes),
		cmocka_unit_test(test_counter_reset), cmocka_unit_test(test_cpu_delta),
		cmocka_unit_test(test_from_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
