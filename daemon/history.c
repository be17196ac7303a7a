// SPDX-License-Identifier: GPL-2.0-only
/* Recent samples and outside changes per managed interface, for `rtltune report`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "loop.h"
#include "rtltune/journal.h"

/* The rates of a sample, in the order of the reply's columns after time and seconds. */
enum { P_TXB, P_RXB, P_TXP, P_RXP, P_SEGS, P_RTX, P_DROPS, N_RATES };

/* One sample: rates over its interval (bytes, packets, segments sent, segments
 * retransmitted, drops per second). Floats: a chart needs 7 digits, not 17. */
struct history_sample {
	double time; /* realtime, end of the interval */
	float secs;
	float rate[N_RATES];
};

struct history_external {
	double time;
	int knob;
	int64_t old_value, new_value;
};

/* A ring of samples that grows as they come, up to its bound: a short-lived interface
 * costs little. */
struct ring {
	struct history_sample *s;
	unsigned int cap, n, head; /* head: the oldest when the ring is full */
};

/* The coarse row being built from the samples leaving the fine ring. */
struct fold_acc {
	double sum[N_RATES], secs, time;
	unsigned int n;
};

struct history {
	/* The last HISTORY_FINE samples as they came; before them, coarse rows of
	 * HISTORY_FOLD samples each; acc folds the samples leaving fine into the next row
	 * (allocated at the first: an idle interface's fine ring never fills). */
	struct ring fine, coarse;
	struct fold_acc *acc;
	struct history_external *ext; /* allocated at the first outside change */
	unsigned int n_ext, ext_head;
	/* The cumulative counts of the previous sample. */
	bool prev_valid;
	uint64_t prev_us;
	uint64_t prev[8];
};

static struct history *history_of(struct iface *ifc)
{
	if (!ifc->m)
		return NULL;
	if (!ifc->m->history)
		ifc->m->history = calloc(1, sizeof(struct history));
	return ifc->m->history;
}

static void history_free(struct iface *ifc)
{
	if (ifc->m && ifc->m->history) {
		free(ifc->m->history->fine.s);
		free(ifc->m->history->coarse.s);
		free(ifc->m->history->ext);
		free(ifc->m->history->acc);
		free(ifc->m->history);
		ifc->m->history = NULL;
	}
}

void history_iface_event(struct iface *ifc, const struct iface_change *c)
{
	if (c->ev == IFACE_GONE || (c->ev == IFACE_SELECTED && !ifc->managed))
		history_free(ifc);
}

/* Append x to r (bound max); when full, the oldest is copied to *out (if given) and its
 * place taken. false when the ring cannot grow to hold anything. */
static bool ring_push(struct ring *r, unsigned int max, const struct history_sample *x,
		      struct history_sample *out, bool *evicted)
{
	struct history_sample *s;
	unsigned int cap;

	*evicted = false;
	if (r->n == r->cap && r->cap < max) {
		cap = r->cap ? r->cap * 2 : 2; /* an idle interface holds a row or two */
		if (cap > max)
			cap = max;
		s = realloc(r->s, cap * sizeof(*s));
		if (s) {
			r->s = s;
			r->cap = cap;
		}
	}
	if (!r->cap)
		return false;
	if (r->n < r->cap) {
		r->s[r->n++] = *x;
		return true;
	}
	/* Full: the oldest goes (a ring only fills once it has grown to its bound). */
	if (out)
		*out = r->s[r->head];
	*evicted = true;
	r->s[r->head] = *x;
	r->head = (r->head + 1) % r->cap;
	return true;
}

/* The row of r that is back rows before the newest (0: the newest), NULL when none. */
static struct history_sample *ring_newest(struct ring *r, unsigned int back)
{
	if (back >= r->n)
		return NULL;
	return &r->s[r->n < r->cap ? r->n - 1 - back : (r->head + r->cap - 1 - back) % r->cap];
}

/* A row of no traffic to speak of: a trickle (STAT_TRICKLE packets a second at most),
 * nothing retransmitted or dropped. The sampler reads such an interface as idle too. */
static bool trickle(const struct history_sample *x)
{
	return x->rate[P_TXP] + x->rate[P_RXP] <= STAT_TRICKLE && x->rate[P_RTX] == 0 &&
	       x->rate[P_DROPS] == 0;
}

/* x joins row r: the time-weighted means of both, ending where x ends. */
static void row_join(struct history_sample *r, const struct history_sample *x)
{
	double secs = (double)r->secs + x->secs;
	unsigned int i;

	for (i = 0; secs > 0 && i < N_RATES; i++)
		r->rate[i] = (float)(((double)r->rate[i] * r->secs + (double)x->rate[i] * x->secs) /
				     secs);
	r->time = x->time;
	r->secs = (float)secs;
}

/* The time-weighted means of the folded samples, as one row. */
static struct history_sample acc_row(const struct fold_acc *acc)
{
	struct history_sample x = {.time = acc->time, .secs = (float)acc->secs};
	unsigned int i;

	for (i = 0; i < N_RATES; i++)
		x.rate[i] = acc->secs > 0 ? (float)(acc->sum[i] / acc->secs) : 0;
	return x;
}

/* A sample that left the fine ring joins the coarse row being built (out of memory: the
 * coarse rows miss it). */
static void fold(struct history *h, struct history_sample *old)
{
	struct fold_acc *acc = h->acc;
	struct history_sample row;
	unsigned int i;
	bool evicted;

	if (!acc && !(acc = h->acc = calloc(1, sizeof(*acc))))
		return;
	for (i = 0; i < N_RATES; i++)
		acc->sum[i] += (double)old->rate[i] * old->secs;
	acc->secs += old->secs;
	acc->time = old->time;
	if (++acc->n < HISTORY_FOLD)
		return;
	row = acc_row(acc);
	ring_push(&h->coarse, HISTORY_COARSE, &row, NULL, &evicted);
	memset(acc, 0, sizeof(*acc));
}

void history_sample(struct iface *ifc, uint64_t now_us)
{
	static const struct rtl_hist no_hist;
	const struct iface_stats *st = ifc->m ? &ifc->m->stats : NULL;
	struct history *h = history_of(ifc);
	struct history_sample x, old, *last, *prev;
	const struct rtl_hist *g;
	uint64_t cur[8] = {0};
	double secs;
	unsigned int i;
	bool evicted;

	if (!h || !st)
		return;
	g = st->have_hist ? &st->h->hist[SH_TX_GSO_SEGMENTS] : &no_hist;
	cur[P_TXB] = st->counter[SC_TX_BYTES];
	cur[P_RXB] = st->counter[SC_RX_BYTES];
	cur[P_TXP] = st->counter[SC_TX_PACKETS];
	cur[P_RXP] = st->counter[SC_RX_PACKETS];
	/* A GSO skb leaves as gso_segs segments, any other as one (as the tuner counts). */
	cur[P_SEGS] = cur[P_TXP] - (hist_count(g) <= cur[P_TXP] ? hist_count(g) : 0) + g->sum;
	cur[P_RTX] = st->counter[SC_TCP_RETRANSMIT_SEGMENTS];
	for (i = 0; i < st->n_drops; i++)
		cur[P_DROPS] += st->drops[i].count;
	secs = h->prev_valid ? (double)(now_us - h->prev_us) / 1e6 : 0;
	if (secs > 0) {
		x = (struct history_sample){.time = now_real(), .secs = (float)secs};
		for (i = 0; i < N_RATES; i++)
			x.rate[i] = cur[i] >= h->prev[i]
					    ? (float)((double)(cur[i] - h->prev[i]) / secs)
					    : 0;
		/* A quiet stretch (no traffic, or a trickle) is two rows, however long: its
		 * first sample as it came (a chart drops there, not along a slope to the
		 * stretch's end) and one row of the rest's time-weighted means (its packets and
		 * bytes stay counted). An idle interface's history, a node's idle pods, stays a
		 * few rows. */
		last = ring_newest(&h->fine, 0);
		prev = ring_newest(&h->fine, 1);
		if (last && prev && trickle(last) && trickle(prev) && trickle(&x))
			row_join(last, &x);
		else if (ring_push(&h->fine, HISTORY_FINE, &x, &old, &evicted) && evicted)
			fold(h, &old);
	}
	memcpy(h->prev, cur, sizeof(h->prev));
	h->prev_us = now_us;
	h->prev_valid = true;
}

void history_external(struct iface *ifc, enum knob_id k, int64_t old_value, int64_t new_value)
{
	struct history *h = history_of(ifc);
	struct history_external *e;

	if (!h)
		return;
	if (!h->ext && !(h->ext = calloc(HISTORY_EXTERNAL, sizeof(*h->ext))))
		return;
	if (h->n_ext < HISTORY_EXTERNAL) {
		e = &h->ext[h->n_ext++];
	} else {
		e = &h->ext[h->ext_head];
		h->ext_head = (h->ext_head + 1) % HISTORY_EXTERNAL;
	}
	*e = (struct history_external){now_real(), (int)k, old_value, new_value};
}

/* A number as the chart needs it: digits enough, not json-c's 17. */
static json_object *num(double v, const char *fmt)
{
	char buf[48];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

static json_object *event_json(double t, const char *actor, int knob, int64_t old_value,
			       int64_t new_value, const char *outcome, const char *reason)
{
	json_object *o = json_object_new_object();
	bool known = knob >= 0 && knob < KNOB__COUNT;

	json_object_object_add(o, "time", num(t, "%.6f"));
	json_object_object_add(o, "actor", actor ? json_object_new_string(actor) : NULL);
	json_object_object_add(
		o, "knob", known ? json_object_new_string(knob_name((enum knob_id)knob)) : NULL);
	json_object_object_add(o, "old",
			       known && old_value != JOURNAL_NO_VALUE
				       ? knob_value_json((enum knob_id)knob, old_value)
				       : NULL);
	json_object_object_add(o, "new",
			       known && new_value != JOURNAL_NO_VALUE
				       ? knob_value_json((enum knob_id)knob, new_value)
				       : NULL);
	json_object_object_add(o, "outcome", json_object_new_string(outcome));
	json_object_object_add(o, "reason", reason ? json_object_new_string(reason) : NULL);
	return o;
}

struct log_filter {
	const char *ifname;
	double since;
	json_object *events;
};

/* The decisions about one knob of this interface (not the records about no knob, such as
 * "rerouted", which follow a change they do not add to). */
static int log_event(const struct journal_event *ev, void *arg)
{
	struct log_filter *f = arg;
	double t = (double)ev->ts_us / 1e6;

	if (t >= f->since && ev->knob >= 0 && ev->ifname && strcmp(ev->ifname, f->ifname) == 0)
		json_object_array_add(f->events,
				      event_json(t, ev->actor, ev->knob, ev->old_value,
						 ev->new_value, ev->outcome, ev->reason));
	return 0;
}

static void add_row(json_object *rows, const struct history_sample *x, double since)
{
	json_object *r;
	unsigned int i;

	if (x->time < since)
		return;
	r = json_object_new_array();
	json_object_array_add(r, num(x->time, "%.3f"));
	json_object_array_add(r, num(x->secs, "%.3f"));
	for (i = 0; i < N_RATES; i++)
		json_object_array_add(r, num(x->rate[i], "%.7g"));
	json_object_array_add(rows, r);
}

static void ring_rows(json_object *rows, const struct ring *r, double since)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		add_row(rows, &r->s[(r->head + i) % r->cap], since);
}

static int by_time(const void *a, const void *b)
{
	double x = json_object_get_double(json_object_object_get(*(json_object *const *)a, "time"));
	double y = json_object_get_double(json_object_object_get(*(json_object *const *)b, "time"));

	return x < y ? -1 : x > y;
}

json_object *history_json(const struct iface *ifc, double since, struct rterr *err)
{
	static const char *const columns[] = {
		"time",
		"seconds",
		"tx_bytes_per_s",
		"rx_bytes_per_s",
		"tx_packets_per_s",
		"rx_packets_per_s",
		"tx_segments_per_s",
		"tcp_retransmit_segments_per_s",
		"drops_per_s",
	};
	const struct history *h = ifc->m ? ifc->m->history : NULL;
	json_object *o, *cols, *rows, *events;
	struct journal_log_cursor cur = {0};
	struct log_filter f;
	unsigned int i;

	events = json_object_new_array();
	f = (struct log_filter){ifc->name, since, events};
	if (rtd.cfg.state_dir[0] &&
	    journal_log_read(rtd.cfg.state_dir, &cur, log_event, &f, err) < 0) {
		json_object_put(events);
		return NULL;
	}
	o = json_object_new_object();
	cols = json_object_new_array();
	rows = json_object_new_array();
	for (i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		json_object_array_add(cols, json_object_new_string(columns[i]));
	/* Oldest first: the coarse rows, the one being folded, the samples as they came. */
	if (h) {
		ring_rows(rows, &h->coarse, since);
		if (h->acc && h->acc->n) {
			struct history_sample partial = acc_row(h->acc);

			add_row(rows, &partial, since);
		}
		ring_rows(rows, &h->fine, since);
	}
	for (i = 0; h && i < h->n_ext; i++) {
		const struct history_external *e = &h->ext[(h->ext_head + i) % HISTORY_EXTERNAL];

		if (e->time >= since)
			json_object_array_add(events,
					      event_json(e->time, NULL, e->knob, e->old_value,
							 e->new_value, "external",
							 "changed outside rtltune"));
	}
	json_object_array_sort(events, by_time);
	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "managed", json_object_new_boolean(ifc->m != NULL));
	json_object_object_add(o, "interval_seconds",
			       json_object_new_double((double)rtd.cfg.sample_interval_us / 1e6));
	json_object_object_add(o, "max_samples", json_object_new_int(HISTORY_SAMPLES));
	json_object_object_add(o, "full_resolution_samples", json_object_new_int(HISTORY_FINE));
	json_object_object_add(o, "samples_per_older_row", json_object_new_int(HISTORY_FOLD));
	json_object_object_add(o, "since", since > 0 ? num(since, "%.3f") : NULL);
	json_object_object_add(o, "now", num(now_real(), "%.3f"));
	json_object_object_add(o, "columns", cols);
	json_object_object_add(o, "samples", rows);
	json_object_object_add(o, "events", events);
	return o;
}
