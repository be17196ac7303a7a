// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's windows and statistics: per-sample points, sums over a window, Welch's t
 * with a minimum effect on medians for throughput and CPU, the two-rate test for fault
 * counters (docs/tuning.md "The criterion"), and the words reasons are made of.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_priv.h"

const struct fault_desc tnr_faults[F__COUNT] = {
	[F_TIMEOUTS] = {"TX timeouts", "per minute", TUNER_HAVE_TX_FAULTS},
	[F_RETRANS] = {"retransmits", "of segments", TUNER_HAVE_RETRANS},
	[F_BUSY] = {"driver refusals", "of skbs", TUNER_HAVE_TX_FAULTS},
	[F_DROPS] = {"drops", "of packets", TUNER_HAVE_DROPS},
	[F_BACKLOG] = {"backlog drops", "of packets", TUNER_HAVE_SOFTNET},
	[F_SQUEEZE] = {"time squeezes", "per packet", TUNER_HAVE_SOFTNET},
	[F_OVERRUNS] = {"ring overruns", "of frames", TUNER_HAVE_OVERRUNS},
};

static double fault_events(const struct point *p, enum fault f)
{
	switch (f) {
	case F_TIMEOUTS:
		return p->timeouts;
	case F_RETRANS:
		return p->retrans;
	case F_BUSY:
		return p->busy;
	case F_BACKLOG:
		return p->backlog_drops;
	case F_SQUEEZE:
		return p->squeezes;
	case F_OVERRUNS:
		return p->overruns;
	default:
		return p->drops;
	}
}

/* What a fault count is relative to: per wire segment, skb, packet; timeouts per minute. */
static double fault_exposure(const struct point *p, enum fault f)
{
	switch (f) {
	case F_TIMEOUTS:
		return p->secs / 60.0;
	case F_RETRANS:
		return p->tx_segs;
	case F_BUSY:
		return p->tx_pkts;
	case F_BACKLOG: /* the packets that reached a backlog: processed or dropped */
		return p->rx_pkts + p->backlog_drops;
	case F_SQUEEZE:
		return p->rx_pkts;
	case F_OVERRUNS: /* the frames that reached the ring: received or dropped there */
		return p->rx_pkts + p->overruns;
	default:
		return p->tx_pkts + p->rx_pkts;
	}
}

double tnr_fault_threshold(const struct tuner_config *cfg, enum fault f)
{
	switch (f) {
	case F_TIMEOUTS:
		return 0; /* one is a fault */
	case F_BACKLOG:
		return cfg->backlog_drop_share;
	case F_SQUEEZE:
		return cfg->squeeze_share;
	case F_OVERRUNS:
		return cfg->overrun_share;
	default:
		return cfg->fault_ratio;
	}
}

/* ---- text ------------------------------------------------------------------------- */

void tnr_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Bytes per second as people quote link speeds. */
const char *tnr_fmt_bps(double bytes_per_s, char *buf, size_t len)
{
	double b = bytes_per_s * 8;

	if (b >= 1e9)
		snprintf(buf, len, "%.2f Gbit/s", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, len, "%.1f Mbit/s", b / 1e6);
	else
		snprintf(buf, len, "%.0f kbit/s", b / 1e3);
	return buf;
}

const char *tnr_fmt_fault_rate(enum fault f, double rate, char *buf, size_t len)
{
	if (f == F_TIMEOUTS)
		snprintf(buf, len, "%.2f %s", rate, tnr_faults[f].unit);
	else
		snprintf(buf, len, "%.3f%% %s", rate * 100, tnr_faults[f].unit);
	return buf;
}

/* "0.010% -> 5.000% of segments" */
const char *tnr_fmt_fault_change(enum fault f, double a, double b, char *buf, size_t len)
{
	if (f == F_TIMEOUTS)
		snprintf(buf, len, "%.2f -> %.2f %s", a, b, tnr_faults[f].unit);
	else
		snprintf(buf, len, "%.3f%% -> %.3f%% %s", a * 100, b * 100, tnr_faults[f].unit);
	return buf;
}

double tnr_pct(double ratio)
{
	return (ratio - 1) * 100;
}

/* ---- statistics ------------------------------------------------------------------- */

static double mean_of(const double *v, unsigned int n)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

static double var_of(const double *v, unsigned int n, double m)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n > 1 ? s / (n - 1) : 0;
}

double tnr_median_of(const double *v, unsigned int n)
{
	double s[TUNER_MAX_WINDOW];
	unsigned int i, j;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && s[j - 1] > x; j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * One-sided 99% quantiles of Student's t by degrees of freedom: the critical value of a
 * Welch test. 99% rather than the textbook 95%: a tuner runs many trials over its life,
 * and a change kept on noise stays. A fractional df rounds down (the larger value).
 */
static double t_critical(double df)
{
	static const double q[] = {0,	  31.821, 6.965, 4.541, 3.747, 3.365, 3.143, 2.998,
				   2.896, 2.821,  2.764, 2.718, 2.681, 2.650, 2.624, 2.602,
				   2.583, 2.567,  2.552, 2.539, 2.528, 2.518, 2.508, 2.500,
				   2.492, 2.485,  2.479, 2.473, 2.467, 2.462, 2.457};

	if (!(df >= 1))
		return q[1];
	if (df < 31)
		return q[(int)df];
	if (df < 40)
		return 2.457;
	if (df < 60)
		return 2.423;
	if (df < 120)
		return 2.390;
	return 2.358;
}

/*
 * Lag-1 autocorrelation of the samples, pooled over both windows (each around its own
 * mean, so a step between them is not mistaken for it), 0..0.9; 0 for windows too short to
 * tell (the baseline's halves in the steadiness check). Samples of real traffic are not
 * independent: other load on the host and TCP's own dynamics drift over seconds (bulk TCP
 * on the 2-core development VM under load: 0.6 to 0.9 at 500 ms samples), and Welch's t on
 * such samples overstates the evidence.
 */
static double lag1_autocorr(const double *a, unsigned int na, double ma, const double *b,
			    unsigned int nb, double mb)
{
	double num = 0, den = 0, n, r;
	unsigned int i;

	for (i = 0; i < na; i++) {
		den += (a[i] - ma) * (a[i] - ma);
		if (i + 1 < na)
			num += (a[i] - ma) * (a[i + 1] - ma);
	}
	for (i = 0; i < nb; i++) {
		den += (b[i] - mb) * (b[i] - mb);
		if (i + 1 < nb)
			num += (b[i] - mb) * (b[i + 1] - mb);
	}
	n = (na + nb) / 2.0;
	if (den <= 0 || n < 6)
		return 0;
	/* Around a mean of n samples the estimate r is biased low by about (1 + 3 rho) / n
	 * (Kendall): undone here, or strong drift would look mild. */
	r = (n * (num / den) + 1) / (n - 3);
	return r < 0 ? 0 : r > 0.9 ? 0.9 : r;
}

/*
 * Welch's t on the means, each window's variance scaled by (1 + r) / (1 - r) for the lag-1
 * autocorrelation r: the variance of a mean of correlated samples. The degrees of freedom
 * stay those of the sample counts: cutting them to the effective sample size as well counts
 * the correlation twice at these window sizes (on recorded bulk TCP traces: real gains of
 * 40-100% kept in 58% of trials instead of 84%, for 1.2% instead of 1.8% kept on noise).
 */
void tnr_compare(const double *a, unsigned int na, const double *b, unsigned int nb, struct cmp *c)
{
	double va, vb, se2, k;

	c->na = na;
	c->nb = nb;
	c->ma = mean_of(a, na);
	c->mb = mean_of(b, nb);
	c->meda = tnr_median_of(a, na);
	c->medb = tnr_median_of(b, nb);
	va = var_of(a, na, c->ma);
	vb = var_of(b, nb, c->mb);
	c->rho = lag1_autocorr(a, na, c->ma, b, nb, c->mb);
	k = (1 + c->rho) / (1 - c->rho);
	se2 = (na ? va / na : 0) + (nb ? vb / nb : 0);
	if (se2 > 0) {
		double da = na > 1 ? (va / na) * (va / na) / (na - 1) : 0;
		double db = nb > 1 ? (vb / nb) * (vb / nb) / (nb - 1) : 0;

		c->t = (c->mb - c->ma) / sqrt(se2 * k);
		c->df = da + db > 0 ? se2 * se2 / (da + db) : (double)(na + nb - 2);
	} else {
		/* No spread at all: any difference is certain, none is none. */
		c->t = c->mb > c->ma ? 1e9 : c->mb < c->ma ? -1e9 : 0;
		c->df = (double)(na + nb - 2);
	}
	c->tcrit = t_critical(c->df);
}

/* The mean moved beyond noise and the median by at least min_effect, upwards. */
bool tnr_cmp_up(const struct cmp *c, double min_effect)
{
	return c->t >= c->tcrit && c->medb >= c->meda * (1 + min_effect) && c->medb > c->meda;
}

bool tnr_cmp_down(const struct cmp *c, double min_effect)
{
	return c->t <= -c->tcrit && c->medb <= c->meda * (1 - min_effect) && c->medb < c->meda;
}

double tnr_tclamp(double t)
{
	return t > 999 ? 999 : t < -999 ? -999 : t;
}

/*
 * Whether events in window b come at a different rate (per exposure) than in a: the
 * conditional test of two Poisson rates. Given k = ka + kb events, kb is binomial with
 * p0 = eb / (ea + eb) when the rates are equal; z > 0 means b's rate is higher.
 */
double tnr_rate_z(double ka, double ea, double kb, double eb)
{
	double k = ka + kb, p0;

	if (k <= 0 || ea <= 0 || eb <= 0)
		return 0;
	p0 = eb / (ea + eb);
	return (kb - k * p0) / sqrt(k * p0 * (1 - p0));
}

/*
 * tnr_rate_z() for fault f in windows a and b, on independent occurrences: a burst of c
 * segments retransmitted at once (one lost GSO skb) makes the segment count's variance c
 * times its mean, so z on segments is sqrt(c) too large. c: segments per retransmission,
 * pooled over both windows. Without the correction, background loss on veth (0.004% ->
 * 0.010% of segments, 112 segments in a few dozen retransmissions) read as z 6.3 and
 * rolled a gain back.
 */
double tnr_fault_z(const struct agg *a, const struct agg *b, enum fault f)
{
	double occ = a->occ[f] + b->occ[f], c;

	c = occ > 0 ? (a->ev[f] + b->ev[f]) / occ : 1;
	return tnr_rate_z(a->ev[f], a->ex[f], b->ev[f], b->ex[f]) / sqrt(c > 1 ? c : 1);
}

/* ---- windows ---------------------------------------------------------------------- */

/* Room for at least n points (doubling, but never past TUNER_MAX_WINDOW). */
static int win_reserve(struct window *w, unsigned int n)
{
	unsigned int size = w->size ? w->size : 4;
	struct point *p;

	if (n <= w->size)
		return 0;
	if (n > TUNER_MAX_WINDOW)
		return -EINVAL;
	while (size < n)
		size *= 2;
	if (size > TUNER_MAX_WINDOW)
		size = TUNER_MAX_WINDOW;
	p = reallocarray(w->p, size, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->p = p;
	w->size = size;
	return 0;
}

int tnr_win_push(struct window *w, const struct point *p, unsigned int cap)
{
	if (cap > TUNER_MAX_WINDOW)
		cap = TUNER_MAX_WINDOW;
	while (w->n >= cap && w->n > 0) {
		memmove(&w->p[0], &w->p[1], (w->n - 1) * sizeof(w->p[0]));
		w->n--;
	}
	if (win_reserve(w, w->n + 1) < 0)
		return -ENOMEM;
	w->p[w->n++] = *p;
	return 0;
}

/* dst's own storage, the points of src. */
int tnr_win_copy(struct window *dst, const struct window *src)
{
	if (win_reserve(dst, src->n) < 0)
		return -ENOMEM;
	if (src->n)
		memcpy(dst->p, src->p, src->n * sizeof(src->p[0]));
	dst->n = src->n;
	return 0;
}

void tnr_win_free(struct window *w)
{
	free(w->p);
	memset(w, 0, sizeof(*w));
}

unsigned int tnr_win_values(const struct window *w, unsigned int from, unsigned int to,
			    enum objective o, double *v)
{
	unsigned int i, n = 0;

	for (i = from; i < to && i < w->n; i++)
		v[n++] = tnr_throughput(&w->p[i], o);
	return n;
}

/* CPU time per byte moved, per sample. */
unsigned int tnr_win_cpu_per_byte(const struct window *w, double *v)
{
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		double bytes = w->p[i].tx_bytes + w->p[i].rx_bytes;

		v[i] = bytes > 0 ? w->p[i].cpu_ns / bytes : 0;
	}
	return w->n;
}

double tnr_win_mean_secs(const struct window *w)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		s += w->p[i].secs;
	return w->n ? s / w->n : 0;
}

void tnr_aggregate(const struct window *w, struct agg *a)
{
	unsigned int i, f;

	memset(a, 0, sizeof(*a));
	a->have = w->n ? ~0u : 0;
	for (i = 0; i < w->n; i++) {
		const struct point *p = &w->p[i];

		a->have &= p->have;
		a->secs += p->secs;
		a->tx_bytes += p->tx_bytes;
		a->rx_bytes += p->rx_bytes;
		a->tx_pkts += p->tx_pkts;
		a->rx_pkts += p->rx_pkts;
		a->tx_segs += p->tx_segs;
		a->gso_skbs += p->gso_skbs;
		a->gso_at_cap += p->gso_at_cap;
		a->rx_skbs += p->rx_skbs;
		a->gro_at_cap += p->gro_at_cap;
		a->cpu_ns += p->cpu_ns;
		a->softirq_max += p->softirq_max * p->secs;
		a->softirq_min += p->softirq_min * p->secs;
		a->busiest = p->busiest;
		for (f = 0; f < F__COUNT; f++) {
			a->ev[f] += fault_events(p, f);
			a->ex[f] += fault_exposure(p, f);
			a->occ[f] += f == F_RETRANS ? p->retrans_skbs : fault_events(p, f);
		}
	}
	a->n = w->n;
	if (a->secs > 0) {
		a->softirq_max /= a->secs;
		a->softirq_min /= a->secs;
	}
}

double tnr_agg_rate(const struct agg *a, enum fault f)
{
	return a->ex[f] > 0 ? a->ev[f] / a->ex[f] : 0;
}

unsigned int tnr_fault_min_events(const struct tuner_config *cfg, enum fault f)
{
	/* A TX watchdog firing is a hung queue: one is evidence. */
	return f == F_TIMEOUTS ? 1 : cfg->fault_min_events;
}

/* The most severe fault present in a window, or -1; text describes it (or the absence). */
int tnr_fault_present(const struct tuner_config *cfg, const struct agg *a, char *text, size_t len)
{
	char r[48], r2[48];
	int f;
	bool any = false;

	text[0] = '\0';
	for (f = 0; f < F__COUNT; f++) {
		double rate = tnr_agg_rate(a, f);

		if (f == F_OVERRUNS || !(a->have & tnr_faults[f].have))
			continue;
		any = true;
		if (a->occ[f] < tnr_fault_min_events(cfg, f))
			continue;
		if (rate < tnr_fault_threshold(cfg, (enum fault)f))
			continue;
		snprintf(text, len, "%s %s (%.0f in %u samples)", tnr_faults[f].name,
			 tnr_fmt_fault_rate(f, rate, r, sizeof(r)), a->ev[f], a->n);
		return f;
	}
	if (!any)
		snprintf(text, len, "no fault counters (retransmits, drops, refusals) sampled");
	else if (a->have & TUNER_HAVE_SOFTNET)
		snprintf(text, len, "no faults (backlog drops %s, time squeezes %s)",
			 tnr_fmt_fault_rate(F_BACKLOG, tnr_agg_rate(a, F_BACKLOG), r, sizeof(r)),
			 tnr_fmt_fault_rate(F_SQUEEZE, tnr_agg_rate(a, F_SQUEEZE), r2, sizeof(r2)));
	else if (a->have & TUNER_HAVE_RETRANS)
		snprintf(text, len, "no faults (retransmits %s)",
			 tnr_fmt_fault_rate(F_RETRANS, tnr_agg_rate(a, F_RETRANS), r, sizeof(r)));
	else
		snprintf(text, len, "no faults");
	return -1;
}

/* ---- switchback ------------------------------------------------------------------- */

/*
 * The evidence that paired differences d (each the trial's value against the pre-trial
 * one in adjacent blocks, on a log scale) have a mean other than shift, as a Bayes factor:
 * H1 "mean shift + delta sigma, delta ~ N(0, g)" against H0 "mean shift", with sigma
 * unknown and the scale-invariant prior 1/sigma under both, so nothing about the noise
 * level is assumed. e are m differences of the same kind known to have mean 0 (the
 * baseline's adjacent samples, both at the pre-trial value): they count for the spread
 * only. In closed form (the normal prior integrates out; Gönen, Johnson, Lu and Westfall,
 * The American Statistician 59, 2005, for m = 0):
 *	BF = (1 + n g)^(-1/2) (S / (S - n^2 mean^2 g / (1 + n g)))^((m + n) / 2)
 * with S the sum of squares of e and of d - shift. Under H0 it is a nonnegative
 * martingale however sigma is (it depends on the data only through their direction, where
 * both hypotheses put the right Haar prior on the scale), so by Ville's inequality the
 * chance that it ever reaches 1/alpha, at any number of pairs, is at most alpha; its sign
 * is symmetric, so reaching it with a positive mean has at most alpha / 2.
 */
double tnr_pair_bf(const double *e, unsigned int m, const double *d, unsigned int n, double shift,
		   double g, double *mean)
{
	double s = 0, sum = 0, sub, x, cap = 0;
	unsigned int i;

	for (i = 0; i < m; i++)
		s += e[i] * e[i];
	/* A jump of other load (the host's, a flow starting) between the two samples of a pair
	 * makes the differences heavy-tailed: one pair counts at most three times the spread
	 * of the noise-only ones, so no single pair carries the evidence of several. */
	if (m >= 2)
		cap = 3 * sqrt(s / m);
	for (i = 0; i < n; i++) {
		x = d[i] - shift;
		if (cap > 0 && fabs(x) > cap)
			x = x > 0 ? cap : -cap;
		s += x * x;
		sum += x;
	}
	*mean = n ? sum / n : 0;
	if (!n || s <= 0)
		return 1;
	sub = sum * sum * g / (1 + n * g);
	if (s - sub <= s * 1e-12)
		return 1e12;
	return exp(-0.5 * log(1 + n * g) + (m + n) / 2.0 * (log(s) - log(s - sub)));
}
