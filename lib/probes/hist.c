// SPDX-License-Identifier: GPL-2.0-only
/* Log2 histograms (include/rtltune/hist.h): bucket maths, JSON form, BCC-style text. */
#include <errno.h>
#include <inttypes.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/hist.h"
#include "../../bpf/rtltune_abi.h"

_Static_assert(HIST_BUCKETS == RTL_HIST_BUCKETS, "hist.h and bpf/rtltune_abi.h disagree");
_Static_assert(HIST_LOG2_BUCKETS == RTL_HIST_LOG2_BUCKETS, "hist.h and rtltune_abi.h disagree");

uint64_t hist_bucket_le(unsigned int i)
{
	if (i < HIST_LOG2_BUCKETS)
		return 1ULL << i;
	return HIST_LAST_LE;
}

unsigned int hist_bucket_index(uint64_t v)
{
	/* The kernel's sizes are u32, so the last bucket's le (2^32) bounds them all. */
	return rtl_hist_index(v);
}

uint64_t hist_count(const struct rtl_hist *h)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		n += h->buckets[i];
	return n;
}

uint64_t hist_max_le(const struct rtl_hist *h)
{
	int i;

	for (i = HIST_BUCKETS - 1; i >= 0; i--)
		if (h->buckets[i])
			return hist_bucket_le((unsigned int)i);
	return 0;
}

uint64_t hist_count_above(const struct rtl_hist *h, uint64_t bound)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		if (hist_bucket_le(i) > bound)
			n += h->buckets[i];
	return n;
}

void hist_add(struct rtl_hist *dst, const struct rtl_hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->sum += src->sum;
}

void hist_delta(struct rtl_hist *dst, const struct rtl_hist *now, const struct rtl_hist *before)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] = counter_delta(now->buckets[i], before->buckets[i]);
	dst->sum = counter_delta(now->sum, before->sum);
}

/* Share n out over the buckets in proportion to w (total wsum > 0), largest remainder. */
static void share_out(uint64_t *dst, const uint64_t *w, uint64_t wsum, uint64_t n)
{
	unsigned __int128 rem[HIST_BUCKETS];
	uint64_t given = 0;
	unsigned int i, best;

	for (i = 0; i < HIST_BUCKETS; i++) {
		unsigned __int128 x = (unsigned __int128)n * w[i];

		dst[i] += (uint64_t)(x / wsum);
		given += (uint64_t)(x / wsum);
		rem[i] = x % wsum;
	}
	/* At most HIST_BUCKETS - 1 left over: one each to the largest remainders. */
	while (given < n) {
		best = 0;
		for (i = 1; i < HIST_BUCKETS; i++)
			if (rem[i] > rem[best])
				best = i;
		dst[best]++;
		rem[best] = 0;
		given++;
	}
}

void hist_estimate(struct hist_estimator *e, uint64_t count, uint64_t sum,
		   const uint64_t weights[HIST_BUCKETS], int sampled)
{
	uint64_t gained[HIST_BUCKETS], gained_sum = 0, have, n;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		if (weights[i] < e->weights[i])
			break;
	if (count < e->count || i < HIST_BUCKETS)
		memset(e, 0, sizeof(*e));
	if (!sampled) {
		/* Every event has its bucket: report the buckets as counted (a read racing
		 * with an update may see a count one ahead of its bucket; the next catches up). */
		memcpy(e->est.buckets, weights, sizeof(e->est.buckets));
	} else {
		have = hist_count(&e->est);
		n = count > have ? count - have : 0; /* events not yet in a bucket */
		for (i = 0; i < HIST_BUCKETS; i++) {
			gained[i] = weights[i] - e->weights[i];
			gained_sum += gained[i];
		}
		if (n && gained_sum) {
			share_out(e->est.buckets, gained, gained_sum, n);
		} else if (n) {
			/* No sample since the last call: the new events' mean says where. */
			uint64_t mean = sum > e->sum ? (sum - e->sum) / (count - e->count ?: 1) : 0;

			e->est.buckets[hist_bucket_index(mean)] += n;
		}
	}
	memcpy(e->weights, weights, sizeof(e->weights));
	e->count = count;
	e->sum = sum;
	e->est.sum = sum;
}

/* First and last non-empty bucket; returns false when the histogram is empty. */
static int hist_span(const struct rtl_hist *h, unsigned int *lo, unsigned int *hi)
{
	int i;

	for (i = 0; i < HIST_BUCKETS && !h->buckets[i]; i++)
		;
	if (i == HIST_BUCKETS)
		return 0;
	*lo = (unsigned int)i;
	for (i = HIST_BUCKETS - 1; !h->buckets[i]; i--)
		;
	*hi = (unsigned int)i;
	return 1;
}

json_object *hist_to_json(const struct rtl_hist *h)
{
	json_object *obj = json_object_new_object(), *buckets = json_object_new_array();
	unsigned int lo, hi, i;

	if (hist_span(h, &lo, &hi)) {
		for (i = lo; i <= hi; i++) {
			json_object *pair = json_object_new_array();

			json_object_array_add(pair,
					      json_object_new_int64((int64_t)hist_bucket_le(i)));
			json_object_array_add(pair, json_object_new_int64((int64_t)h->buckets[i]));
			json_object_array_add(buckets, pair);
		}
	}
	json_object_object_add(obj, "buckets", buckets);
	json_object_object_add(obj, "sum", json_object_new_int64((int64_t)h->sum));
	json_object_object_add(obj, "count", json_object_new_int64((int64_t)hist_count(h)));
	return obj;
}

int hist_from_json(json_object *obj, struct rtl_hist *h)
{
	json_object *buckets, *sum;
	size_t i, n;

	memset(h, 0, sizeof(*h));
	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "buckets", &buckets) ||
	    !json_object_is_type(buckets, json_type_array) ||
	    !json_object_object_get_ex(obj, "sum", &sum))
		return -EINVAL;
	h->sum = (uint64_t)json_object_get_int64(sum);
	n = json_object_array_length(buckets);
	for (i = 0; i < n; i++) {
		json_object *pair = json_object_array_get_idx(buckets, i);
		uint64_t le;
		unsigned int b;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			return -EINVAL;
		le = (uint64_t)json_object_get_int64(json_object_array_get_idx(pair, 0));
		b = hist_bucket_index(le);
		if (hist_bucket_le(b) != le)
			return -EINVAL;
		h->buckets[b] +=
			(uint64_t)json_object_get_int64(json_object_array_get_idx(pair, 1));
	}
	return 0;
}

#define BAR_WIDTH 40

char *hist_render(const struct rtl_hist *h, const char *unit, unsigned int indent)
{
	unsigned int lo, hi, i, j, stars;
	uint64_t max = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	out = open_memstream(&buf, &len);
	if (!out)
		return NULL;
	if (hist_span(h, &lo, &hi)) {
		for (i = lo; i <= hi; i++)
			if (h->buckets[i] > max)
				max = h->buckets[i];
		/* biolatency's layout; the range shows exactly what the bucket holds:
		 * (previous le, le], so bucket 1024 reads "513 -> 1024". */
		fprintf(out, "%*s%24s : %-10s distribution\n", indent, "", unit, "count");
		for (i = lo; i <= hi; i++) {
			uint64_t low = i == 0 ? 0 : hist_bucket_le(i - 1) + 1;

			stars = (unsigned int)(h->buckets[i] * BAR_WIDTH / max);
			if (h->buckets[i] && !stars)
				stars = 1; /* a non-empty bucket never looks empty */
			fprintf(out, "%*s%10" PRIu64 " -> %-10" PRIu64 " : %-10" PRIu64 " |",
				indent, "", low, hist_bucket_le(i), h->buckets[i]);
			for (j = 0; j < BAR_WIDTH; j++)
				fputc(j < stars ? '*' : ' ', out);
			fputs("|\n", out);
		}
	}
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
