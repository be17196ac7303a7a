/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_HIST_H
#define RTLTUNE_HIST_H

#include <json-c/json.h>
#include <stdint.h>

/*
 * Log2 histograms as the probes count them (bpf/rtltune_abi.h holds the same layout).
 * Buckets are labelled by their upper bound, Prometheus-style: a value v lands in the
 * first bucket whose le >= v. Bucket i holds (2^(i-1), 2^i] for i = 0..20 (bucket 0 holds
 * 0 and 1), so le runs 1, 2, 4, ... 1048576 (1 MiB, above the 512 KiB BIG TCP limit); the
 * last bucket holds everything above that up to 2^32 and is labelled 4294967296, which
 * bounds every u32 the kernel reports. Counts are integers: exact, or, for the probes'
 * histograms above their sampling threshold, an estimate from a sample (hist_estimate()).
 */
#define HIST_BUCKETS	  22
#define HIST_LOG2_BUCKETS 21 /* buckets 0..20: le = 2^i */
#define HIST_LAST_LE	  4294967296ULL

struct rtl_hist {
	uint64_t buckets[HIST_BUCKETS]; /* per bucket, not cumulative */
	uint64_t sum;			/* sum of the values counted */
};

/* Upper bound (le) of bucket i. */
uint64_t hist_bucket_le(unsigned int i);
/* The bucket a value lands in; the same function the BPF programs run. */
unsigned int hist_bucket_index(uint64_t v);
/* Number of values counted (sum of the buckets). */
uint64_t hist_count(const struct rtl_hist *h);
/* Largest le among non-empty buckets, 0 when empty: "no value above this". */
uint64_t hist_max_le(const struct rtl_hist *h);
/* Values counted in buckets with le > bound, i.e. values certainly above bound when bound
 * is itself a bucket label. */
uint64_t hist_count_above(const struct rtl_hist *h, uint64_t bound);
void hist_add(struct rtl_hist *dst, const struct rtl_hist *src);
/* A counter's growth from before to now. A counter that went backwards restarted (its
 * probe slot cleared, a driver that zeroed its statistics): what it counted since, now. */
static inline uint64_t counter_delta(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : now;
}
/* dst = now - before, bucket by bucket (for rates between two snapshots), each bucket and
 * the sum by counter_delta(). */
void hist_delta(struct rtl_hist *dst, const struct rtl_hist *now, const struct rtl_hist *before);

/*
 * Sampled buckets turned into counts a reader can use (docs/probes.md "Sampling"). The
 * probes count every event's count and sum exactly but weight the buckets from a sample.
 * Feed hist_estimate() the cumulative exact count and sum and the cumulative bucket
 * weights of a family, each time they are read; e->est is then the histogram to report:
 * - while the weights are exact (sampled says no event was skipped) it is the weights;
 * - otherwise its buckets add up to the exact count, the events counted since the last
 *   call shared out by the weights gained since (largest remainder; by their mean value
 *   when no sample came in), so no bucket ever goes down between calls and deltas
 *   between two snapshots, or Prometheus rates, stay meaningful.
 * The sum is the exact sum. A count or weight that went backwards starts over.
 */
struct hist_estimator {
	uint64_t count;			/* exact count at the last call */
	uint64_t sum;			/* exact sum at the last call */
	uint64_t weights[HIST_BUCKETS]; /* cumulative weights at the last call */
	struct rtl_hist est;
};
void hist_estimate(struct hist_estimator *e, uint64_t count, uint64_t sum,
		   const uint64_t weights[HIST_BUCKETS], int sampled);

/*
 * The SPEC's JSON form: {"buckets": [[le, count], ...], "sum": S, "count": N}, with
 * per-bucket counts. Only the run from the first to the last non-empty bucket is listed
 * (zeros inside the run are kept), so an empty histogram has "buckets": [].
 */
json_object *hist_to_json(const struct rtl_hist *h);
/* Back from that form (for renderers that only hold the JSON, e.g. the `hist` command).
 * Returns -EINVAL when the object is not a histogram or an le is not a bucket label. */
int hist_from_json(json_object *obj, struct rtl_hist *h);

/*
 * BCC-style text histogram (biolatency's layout: value range, count, '*' bars scaled to
 * the largest bucket), rows from the first to the last non-empty bucket. unit names the
 * value column ("bytes", "segments"). Returns a malloc'ed string ("" for an empty
 * histogram), NULL on ENOMEM. Rows are indented by indent spaces.
 */
char *hist_render(const struct rtl_hist *h, const char *unit, unsigned int indent);

#endif
