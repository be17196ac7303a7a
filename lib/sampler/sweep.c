// SPDX-License-Identifier: GPL-2.0-only
/* `rtltune sweep`'s VALUES and the summary of its samples (include/rtltune/sweep.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/link.h"
#include "rtltune/sweep.h"

/* One value as a profile writes it; "max" resolved, "keep" refused. */
static int one_value(enum knob_id k, const char *text, int64_t max, int64_t *out, struct rterr *err)
{
	struct knob_value v;
	char why[256];

	if (knob_value_parse(k, text, &v, why, sizeof(why)) < 0)
		return rterr_input(err, "sweep: %s", why);
	if (v.kind == KV_KEEP)
		return rterr_input(err, "sweep: 'keep' is not a value to measure (%s)",
				   knob_name(k));
	if (v.kind == KV_MAX) {
		if (max == LINK_UNSET)
			return rterr_input(err, "sweep: max: no limit known for %s on this device",
					   knob_name(k));
		*out = max;
		return 0;
	}
	*out = v.num;
	return 0;
}

static int add(int64_t v, int64_t *values, unsigned int *n, unsigned int cap, struct rterr *err)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (values[i] == v)
			return 0;
	if (*n >= cap)
		return rterr_input(err, "sweep: more than %u values", cap);
	values[(*n)++] = v;
	return 0;
}

static int range(enum knob_id k, char *text, int64_t max, int64_t *values, unsigned int *n,
		 unsigned int cap, struct rterr *err)
{
	char *from = text, *to = strchr(text, ':'), *step;
	int64_t a, b, s, v;
	int r;

	step = to ? strchr(to + 1, ':') : NULL;
	if (!to || !step || strchr(step + 1, ':'))
		return rterr_input(err, "sweep: a range is FROM:TO:STEP, got '%s'", text);
	*to++ = '\0';
	*step++ = '\0';
	if (knob_type(k) == KNOB_T_BOOL)
		return rterr_input(err, "sweep: %s is on/off: list the values (on,off)",
				   knob_name(k));
	r = one_value(k, from, max, &a, err);
	if (r == 0)
		r = one_value(k, to, max, &b, err);
	if (r < 0)
		return r;
	if (strcmp(step, "max") == 0 || one_value(k, step, LINK_UNSET, &s, err) < 0 || s <= 0)
		return rterr_input(err, "sweep: STEP of %s:%s:%s must be a positive number", from,
				   to, step);
	if ((a <= b ? b - a : a - b) / s >= (int64_t)cap)
		return rterr_input(err,
				   "sweep: %s:%s:%s has more than %u steps (at most %u values)",
				   from, to, step, cap, cap);
	for (v = a; a <= b ? v <= b : v >= b; v = a <= b ? v + s : v - s) {
		r = add(v, values, n, cap, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int sweep_parse_values(enum knob_id k, const char *text, int64_t max, int64_t *values,
		       unsigned int *n, unsigned int cap, struct rterr *err)
{
	char *copy, *tok, *save = NULL;
	int r = 0;

	*n = 0;
	if (!text || !*text)
		return rterr_input(err, "sweep: no VALUES (a list a,b,c, a range FROM:TO:STEP, "
					"or max)");
	copy = strdup(text);
	if (!copy)
		return rterr_sys(err, ENOMEM, "sweep");
	if (strchr(copy, ':') && strchr(copy, ','))
		r = rterr_input(err, "sweep: VALUES is a list or one range, not both: '%s'", text);
	else if (strchr(copy, ':'))
		r = range(k, copy, max, values, n, cap, err);
	else
		for (tok = strtok_r(copy, ",", &save); tok && r == 0;
		     tok = strtok_r(NULL, ",", &save)) {
			int64_t v;

			r = one_value(k, tok, max, &v, err);
			if (r == 0)
				r = add(v, values, n, cap, err);
		}
	if (r == 0 && *n == 0)
		r = rterr_input(err, "sweep: no values in '%s'", text);
	free(copy);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile of sorted s[0..n) by linear interpolation between ranks. */
static double quantile(const double *s, unsigned int n, double p)
{
	double pos = p * (double)(n - 1);
	unsigned int i = (unsigned int)pos;

	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (s[i + 1] - s[i]) * (pos - (double)i);
}

void sweep_summarize(const double *v, unsigned int n, struct sweep_summary *out)
{
	double *s, sum = 0;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (i = 0; i < n; i++)
		sum += s[i];
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = quantile(s, n, 0.5);
	out->q1 = quantile(s, n, 0.25);
	out->q3 = quantile(s, n, 0.75);
	out->mean = sum / n;
	free(s);
}

int sweep_best(const struct sweep_summary *s, unsigned int n)
{
	unsigned int i;
	int best = n ? 0 : -1;

	for (i = 1; i < n; i++)
		if (s[i].median > s[best].median)
			best = (int)i;
	return best;
}
