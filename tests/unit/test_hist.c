// SPDX-License-Identifier: GPL-2.0-only
/* Log2 histograms: bucket bounds (the BPF programs' function), JSON form, text rendering. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/hist.h"

/* The rule, independently: the smallest 2^i >= v (v <= 1 -> bucket 0), then the last. */
static unsigned int reference_index(uint64_t v)
{
	unsigned int i = 0;

	while (i < HIST_LOG2_BUCKETS && (1ULL << i) < v)
		i++;
	return i;
}

static void test_bucket_labels(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < HIST_LOG2_BUCKETS; i++)
		assert_int_equal(hist_bucket_le(i), 1ULL << i);
	assert_int_equal(hist_bucket_le(HIST_BUCKETS - 1), 4294967296ULL);
	assert_int_equal(hist_bucket_le(20), 1048576);
}

static void test_bucket_index(void **state)
{
	static const struct {
		uint64_t v;
		unsigned int i;
	} cases[] = {
		{0, 0},	      {1, 0},	     {2, 1},	    {3, 2},
		{4, 2},	      {5, 3},	     {64, 6},	    {65, 7},
		{1500, 11},   {1514, 11},    {2048, 11},    {2049, 12},
		{9014, 14},   {16384, 14},   {16385, 15},   {65535, 16},
		{65536, 16},  {65537, 17},   {524280, 19},  {524288, 19},
		{524289, 20}, {1048576, 20}, {1048577, 21}, {0xffffffffULL, 21},
	};
	unsigned int i;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(hist_bucket_index(cases[i].v), cases[i].i);
		/* le >= v, and the previous bucket's le < v. */
		assert_true(hist_bucket_le(cases[i].i) >= cases[i].v);
		if (cases[i].i > 0)
			assert_true(hist_bucket_le(cases[i].i - 1) < cases[i].v);
	}
	/* Every power of two and its neighbours up to 2^32, against the reference rule. */
	for (i = 0; i <= 32; i++) {
		for (v = (1ULL << i) - 1; v <= (1ULL << i) + 1; v++) {
			if (v > 0xffffffffULL)
				break;
			assert_int_equal(hist_bucket_index(v), reference_index(v));
		}
	}
	for (v = 0; v < 70000; v++)
		assert_int_equal(hist_bucket_index(v), reference_index(v));
}

static void fill(struct rtl_hist *h, const uint64_t *vals, size_t n)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++) {
		h->buckets[hist_bucket_index(vals[i])]++;
		h->sum += vals[i];
	}
}

static void test_count_max_above(void **state)
{
	static const uint64_t vals[] = {42, 64, 65, 1514, 1514, 65226};
	struct rtl_hist h, d, twice;

	(void)state;
	fill(&h, vals, 6);
	assert_int_equal(hist_count(&h), 6);
	assert_int_equal(h.sum, 42 + 64 + 65 + 1514 * 2 + 65226);
	assert_int_equal(hist_max_le(&h), 65536);
	assert_int_equal(hist_count_above(&h, 2048), 1);
	assert_int_equal(hist_count_above(&h, 64), 4);
	memset(&d, 0, sizeof(d));
	assert_int_equal(hist_max_le(&d), 0);
	assert_int_equal(hist_count(&d), 0);

	twice = h;
	hist_add(&twice, &h);
	assert_int_equal(hist_count(&twice), 12);
	hist_delta(&d, &twice, &h);
	assert_memory_equal(&d, &h, sizeof(h));
	/* A counter that went backwards (reset) gives the new value, never a wrap. */
	hist_delta(&d, &h, &twice);
	assert_memory_equal(&d, &h, sizeof(h));
}

static void test_json(void **state)
{
	static const uint64_t vals[] = {42, 43, 64, 1024, 1025, 1514};
	struct rtl_hist h, back;
	json_object *o;

	(void)state;
	fill(&h, vals, 6);
	o = hist_to_json(&h);
	/* Per-bucket counts from the first to the last non-empty bucket, zeros inside kept. */
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"buckets\":[[64,3],[128,0],[256,0],[512,0],[1024,1],[2048,2]],"
			    "\"sum\":3712,\"count\":6}");
	assert_int_equal(hist_from_json(o, &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));
	json_object_put(o);

	memset(&h, 0, sizeof(h));
	o = hist_to_json(&h);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"buckets\":[],\"sum\":0,\"count\":0}");
	json_object_put(o);

	/* The last bucket survives the round trip with its 2^32 label. */
	h.buckets[HIST_BUCKETS - 1] = 2;
	h.sum = 3000000000ULL;
	o = hist_to_json(&h);
	assert_int_equal(hist_from_json(o, &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));
	json_object_put(o);

	/* Not bucket labels, not histograms. */
	o = json_tokener_parse("{\"buckets\":[[100,1]],\"sum\":1,\"count\":1}");
	assert_int_equal(hist_from_json(o, &back), -EINVAL);
	json_object_put(o);
	o = json_tokener_parse("{\"buckets\":[[64]],\"sum\":1}");
	assert_int_equal(hist_from_json(o, &back), -EINVAL);
	json_object_put(o);
	o = json_tokener_parse("[1,2]");
	assert_int_equal(hist_from_json(o, &back), -EINVAL);
	json_object_put(o);
}

static void test_render(void **state)
{
	static const uint64_t vals[] = {42, 1514, 1514, 1514, 1514};
	struct rtl_hist h;
	char *text;

	(void)state;
	fill(&h, vals, 5);
	text = hist_render(&h, "bytes", 2);
	assert_non_null(text);
	assert_string_equal(text, "                     bytes : count      distribution\n"
				  "          33 -> 64         : 1          |**********             "
				  "                 |\n"
				  "          65 -> 128        : 0          |                       "
				  "                 |\n"
				  "         129 -> 256        : 0          |                       "
				  "                 |\n"
				  "         257 -> 512        : 0          |                       "
				  "                 |\n"
				  "         513 -> 1024       : 0          |                       "
				  "                 |\n"
				  "        1025 -> 2048       : 4          "
				  "|****************************************|\n");
	free(text);

	/* One value among millions still shows a star. */
	memset(&h, 0, sizeof(h));
	h.buckets[0] = 1;
	h.buckets[1] = 10000000;
	text = hist_render(&h, "segments", 0);
	assert_non_null(strstr(text, "         0 -> 1          : 1          |*    "));
	free(text);

	memset(&h, 0, sizeof(h));
	text = hist_render(&h, "bytes", 0);
	assert_string_equal(text, "");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_labels),	cmocka_unit_test(test_bucket_index),
		cmocka_unit_test(test_count_max_above), cmocka_unit_test(test_json),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
