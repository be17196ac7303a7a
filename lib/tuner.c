// SPDX-License-Identifier: GPL-2.0-only
/*
 * The autotuner's decision core (docs/tuning.md). Rules read a window of samples and
 * propose one change; each change is a trial, judged against the window taken just before
 * it with a criterion that accounts for the noise the samples themselves show (Welch's t
 * on the means plus a minimum effect on the medians; a two-rate test for fault counters).
 * Pure: time comes in as arguments, nothing here does I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "rtltune/tuner.h"

/* GSO_LEGACY_MAX_SIZE: the kernel mirrors sizes up to this into the IPv4 twin. */
#define LEGACY_MAX_SIZE 65536

/* One sample reduced to what the rules and the criterion read. */
struct point {
	double secs;
	unsigned int have;
	double tx_bytes, rx_bytes, tx_pkts, rx_pkts, tx_segs;
	double gso_skbs, gso_at_cap, rx_skbs, gro_at_cap;
	double retrans, drops, busy, timeouts, cpu_ns;
};

/* The newest n points, oldest first. */
struct window {
	struct point p[TUNER_MAX_WINDOW];
	unsigned int n;
};

/* Fault counters, in the order a fix looks at them (the most severe first). */
enum fault { F_TIMEOUTS, F_RETRANS, F_BUSY, F_DROPS, F__COUNT };

static const struct fault_desc {
	const char *name;
	const char *unit;
	unsigned int have;
} faults[F__COUNT] = {
	[F_TIMEOUTS] = { "TX timeouts", "per minute", TUNER_HAVE_TX_FAULTS },
	[F_RETRANS] = { "retransmits", "of segments", TUNER_HAVE_RETRANS },
	[F_BUSY] = { "driver refusals", "of skbs", TUNER_HAVE_TX_FAULTS },
	[F_DROPS] = { "drops", "of packets", TUNER_HAVE_DROPS },
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
	default:
		return p->tx_pkts + p->rx_pkts;
	}
}

/* Which throughput a knob moves: TX offloads the sent bytes, GRO the received ones. */
enum objective { OBJ_TX, OBJ_RX, OBJ_BOTH };

static enum objective knob_objective(enum knob_id k)
{
	switch (k) {
	case KNOB_GRO:
	case KNOB_GRO_MAX_SIZE:
	case KNOB_GRO_IPV4_MAX_SIZE:
		return OBJ_RX;
	case KNOB_MTU:
		return OBJ_BOTH;
	default:
		return OBJ_TX;
	}
}

static const char *objective_name(enum objective o)
{
	return o == OBJ_TX ? "tx throughput" : o == OBJ_RX ? "rx throughput" : "throughput";
}

static double throughput(const struct point *p, enum objective o)
{
	double b = o == OBJ_TX ? p->tx_bytes : o == OBJ_RX ? p->rx_bytes : p->tx_bytes + p->rx_bytes;

	return b / p->secs;
}

enum trial_kind { TRIAL_GAIN, TRIAL_FIX };

struct trial {
	struct tuner_action start;
	/* from: the pre-trial value; to: the value applied now (steps move it). */
	struct tuner_change chg[TUNER_MAX_CHANGES];
	int64_t step_from[TUNER_MAX_CHANGES]; /* values before the step being applied */
	unsigned int steps;
	enum trial_kind kind;
	int fault; /* TRIAL_FIX: the fault it must cure */
	double min_effect;
	struct window base, obs;
	uint64_t started_ms;
};

struct iface {
	struct iface *next;
	int ifindex;
	char ifname[IF_NAMESIZE];
	enum tuner_state state;
	struct window win;		/* the baseline being collected (sliding) */
	int64_t win_knob[KNOB__COUNT];	/* knob values the window was taken with */
	unsigned int count;		/* samples of settle / cooldown */
	bool in_trial;
	bool awaiting;			/* an apply result is due (APPLYING, ROLLING_BACK) */
	struct trial trial;
	struct tuner_action rollback;	/* given again while it keeps failing */
	struct tuner_backoff backoff[KNOB__COUNT][2];
	uint64_t decisions[KNOB__COUNT][TUNER_ACTION__COUNT];
	struct tuner_env env;
	bool have_env;
	uint64_t last_ts_ms;
	bool have_ts;
};

struct tuner {
	struct tuner_config cfg;
	struct iface *ifaces;
	unsigned int active_trials;
	unsigned int next_trial;
};

/* ---- configuration ---------------------------------------------------------------- */

void tuner_config_default(struct tuner_config *c)
{
	*c = (struct tuner_config){
		.baseline_samples = 8,
		.settle_samples = 2,
		.observe_samples = 8,
		.judge_slowly_factor = 3,
		.max_trials = 1,
		.min_effect = 0.05,
		.idle_bytes_per_s = 125000,
		.idle_packets_per_s = 100,
		.cap_share = 0.5,
		.gso_min_skbs_per_s = 100,
		.gro_min_skbs_per_s = 100,
		.gro_on_min_pps = 10000,
		.gso_floor = 16384,
		.fault_ratio = 0.01,
		.fault_cap_share = 0.25,
		.fault_min_events = 20,
		.penalty_z = 3.0,
		.penalty_min_rise = 0.25,
		.fix_z = 2.5,
		.fix_min_fall = 0.5,
		.fix_max_loss = 0.25,
		.collapse = 0.5,
		.mtu_min_bytes_per_s = 1e6,
		.mtu_full_share = 0.8,
		.jumbo_tso_factor = 3,
		.backoff_initial_ms = 300000,
		.backoff_max_ms = 86400000,
	};
}

enum cfg_type { CT_UINT, CT_DOUBLE, CT_I64, CT_MS };

static const struct cfg_key {
	const char *name;
	enum cfg_type type;
	size_t off;
	double min, max;
} cfg_keys[] = {
#define K(n, t, lo, hi) { #n, t, offsetof(struct tuner_config, n), lo, hi }
	K(baseline_samples, CT_UINT, 4, TUNER_MAX_WINDOW),
	K(settle_samples, CT_UINT, 0, TUNER_MAX_WINDOW),
	K(observe_samples, CT_UINT, 3, TUNER_MAX_WINDOW),
	K(judge_slowly_factor, CT_UINT, 1, 16),
	K(max_trials, CT_UINT, 1, 4096),
	K(min_effect, CT_DOUBLE, 0, 0.9),
	K(idle_bytes_per_s, CT_DOUBLE, 0, 1e12),
	K(idle_packets_per_s, CT_DOUBLE, 0, 1e9),
	K(cap_share, CT_DOUBLE, 0.01, 1),
	K(gso_min_skbs_per_s, CT_DOUBLE, 0, 1e9),
	K(gro_min_skbs_per_s, CT_DOUBLE, 0, 1e9),
	K(gro_on_min_pps, CT_DOUBLE, 0, 1e9),
	K(gso_floor, CT_I64, 1024, 524280),
	K(fault_ratio, CT_DOUBLE, 1e-6, 1),
	K(fault_cap_share, CT_DOUBLE, 0, 1),
	K(fault_min_events, CT_UINT, 1, 1000000),
	K(penalty_z, CT_DOUBLE, 1, 20),
	K(penalty_min_rise, CT_DOUBLE, 0, 100),
	K(fix_z, CT_DOUBLE, 1, 20),
	K(fix_min_fall, CT_DOUBLE, 0.01, 1),
	K(fix_max_loss, CT_DOUBLE, 0, 1),
	K(collapse, CT_DOUBLE, 0.05, 0.95),
	K(mtu_min_bytes_per_s, CT_DOUBLE, 0, 1e12),
	K(mtu_full_share, CT_DOUBLE, 0.1, 1),
	K(jumbo_tso_factor, CT_DOUBLE, 1, 100),
#undef K
	{ "backoff_initial", CT_MS, offsetof(struct tuner_config, backoff_initial_ms), 1000,
	  7 * 86400000.0 },
	{ "backoff_max", CT_MS, offsetof(struct tuner_config, backoff_max_ms), 1000,
	  30 * 86400000.0 },
};
#define N_CFG_KEYS (sizeof(cfg_keys) / sizeof(cfg_keys[0]))

unsigned int tuner_config_nkeys(void)
{
	return N_CFG_KEYS;
}

const char *tuner_config_key(unsigned int i)
{
	return i < N_CFG_KEYS ? cfg_keys[i].name : NULL;
}

static const struct cfg_key *cfg_key_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_CFG_KEYS; i++)
		if (strcmp(cfg_keys[i].name, name) == 0)
			return &cfg_keys[i];
	return NULL;
}

int tuner_config_set(struct tuner_config *cfg, const char *key, const char *value,
		     struct rterr *err)
{
	const struct cfg_key *k = cfg_key_find(key);
	char *end;
	double v, mult = 1;

	if (!k)
		return rterr_input(err, "unknown tuner setting '%s'", key);
	errno = 0;
	v = strtod(value, &end);
	if (end == value || errno || !isfinite(v))
		goto bad;
	if (k->type == CT_MS) {
		if (strcmp(end, "ms") == 0)
			mult = 1;
		else if (strcmp(end, "s") == 0 || !*end)
			mult = 1000;
		else if (strcmp(end, "m") == 0)
			mult = 60000;
		else if (strcmp(end, "h") == 0)
			mult = 3600000;
		else
			goto bad;
		v *= mult;
	} else if (*end || ((k->type == CT_UINT || k->type == CT_I64) && v != floor(v))) {
		goto bad;
	}
	if (v < k->min || v > k->max)
		goto bad;
	switch (k->type) {
	case CT_UINT:
		*(unsigned int *)((char *)cfg + k->off) = (unsigned int)v;
		break;
	case CT_DOUBLE:
		*(double *)((char *)cfg + k->off) = v;
		break;
	case CT_I64:
		*(int64_t *)((char *)cfg + k->off) = (int64_t)v;
		break;
	case CT_MS:
		*(uint64_t *)((char *)cfg + k->off) = (uint64_t)v;
		break;
	}
	return 0;
bad:
	switch (k->type) {
	case CT_UINT:
	case CT_I64:
		return rterr_input(err, "%s: expected a whole number from %.0f to %.0f, got '%s'",
				   key, k->min, k->max, value);
	case CT_DOUBLE:
		return rterr_input(err, "%s: expected a number from %g to %g, got '%s'", key,
				   k->min, k->max, value);
	default:
		return rterr_input(err,
				   "%s: expected a duration from %.0fs to %.0fh (\"90s\", \"5m\", "
				   "\"1h\", \"500ms\"), got '%s'",
				   key, k->min / 1000, k->max / 3600000, value);
	}
}

int tuner_config_format(const struct tuner_config *cfg, const char *key, char *buf, size_t len)
{
	const struct cfg_key *k = cfg_key_find(key);
	const char *p;

	if (!k)
		return -ENOENT;
	p = (const char *)cfg + k->off;
	switch (k->type) {
	case CT_UINT:
		snprintf(buf, len, "%u", *(const unsigned int *)p);
		break;
	case CT_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)p);
		break;
	case CT_I64:
		snprintf(buf, len, "%" PRId64, *(const int64_t *)p);
		break;
	case CT_MS: {
		uint64_t ms = *(const uint64_t *)p;

		if (ms % 1000)
			snprintf(buf, len, "%" PRIu64 "ms", ms);
		else
			snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
		break;
	}
	}
	return 0;
}

int tuner_config_check(const struct tuner_config *c, struct rterr *err)
{
	unsigned int i;

	for (i = 0; i < N_CFG_KEYS; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		const char *p = (const char *)c + k->off;
		double v = k->type == CT_UINT	  ? *(const unsigned int *)p
			   : k->type == CT_DOUBLE ? *(const double *)p
			   : k->type == CT_I64	  ? (double)*(const int64_t *)p
						  : (double)*(const uint64_t *)p;

		if (!(v >= k->min && v <= k->max))
			return rterr_input(err, "tuner setting %s = %g is outside %g..%g", k->name,
					   v, k->min, k->max);
	}
	if (c->baseline_samples * c->judge_slowly_factor > TUNER_MAX_WINDOW ||
	    c->observe_samples * c->judge_slowly_factor > TUNER_MAX_WINDOW)
		return rterr_input(err,
				   "tuner windows (baseline_samples %u, observe_samples %u) x "
				   "judge_slowly_factor %u exceed %d samples",
				   c->baseline_samples, c->observe_samples, c->judge_slowly_factor,
				   TUNER_MAX_WINDOW);
	if (c->backoff_initial_ms > c->backoff_max_ms)
		return rterr_input(err, "tuner backoff_initial exceeds backoff_max");
	return 0;
}

/* ---- names ------------------------------------------------------------------------ */

const char *tuner_rule_name(enum tuner_rule r)
{
	static const char *const names[TUNER_RULE__COUNT] = {
		[TUNER_RULE_GSO_FAULTS] = "gso-faults", [TUNER_RULE_TSO_FAULTS] = "tso-faults",
		[TUNER_RULE_GSO_AT_CAP] = "gso-at-cap", [TUNER_RULE_GRO_OFF] = "gro-off",
		[TUNER_RULE_GRO_AT_CAP] = "gro-at-cap", [TUNER_RULE_MTU] = "mtu",
	};
	return (unsigned int)r < TUNER_RULE__COUNT ? names[r] : "?";
}

const char *tuner_dir_name(enum tuner_dir d)
{
	return d == TUNER_UP ? "up" : "down";
}

const char *tuner_outcome_name(enum tuner_action_kind k)
{
	static const char *const names[TUNER_ACTION__COUNT] = {
		[TUNER_NONE] = "none",		 [TUNER_START_TRIAL] = "trial",
		[TUNER_KEEP] = "kept",		 [TUNER_ROLLBACK] = "rolled_back",
		[TUNER_ABANDON] = "abandoned", [TUNER_FAILED] = "failed",
		[TUNER_STEP] = "step",
	};
	return (unsigned int)k < TUNER_ACTION__COUNT ? names[k] : "?";
}

const char *tuner_state_name(enum tuner_state s)
{
	static const char *const names[TUNER_ST__COUNT] = {
		[TUNER_ST_IDLE] = "idle",	    [TUNER_ST_BASELINE] = "baseline",
		[TUNER_ST_APPLYING] = "applying",   [TUNER_ST_SETTLE] = "settle",
		[TUNER_ST_OBSERVE] = "observe",	    [TUNER_ST_ROLLING_BACK] = "rolling_back",
		[TUNER_ST_COOLDOWN] = "cooldown",
	};
	return (unsigned int)s < TUNER_ST__COUNT ? names[s] : "?";
}

const char *tuner_cand_status_name(enum tuner_cand_status s)
{
	static const char *const names[TUNER_CAND__COUNT] = {
		[TUNER_CAND_READY] = "ready",
		[TUNER_CAND_NO_EVIDENCE] = "no_evidence",
		[TUNER_CAND_NO_DATA] = "no_data",
		[TUNER_CAND_AT_LIMIT] = "at_limit",
		[TUNER_CAND_NOT_ALLOWED] = "not_allowed",
		[TUNER_CAND_PINNED] = "pinned",
		[TUNER_CAND_BACKOFF] = "backoff",
		[TUNER_CAND_AUTOTUNE_OFF] = "autotune_off",
		[TUNER_CAND_WAITING] = "waiting",
	};
	return (unsigned int)s < TUNER_CAND__COUNT ? names[s] : "?";
}

/* ---- text ------------------------------------------------------------------------- */

static void __attribute__((format(printf, 3, 4))) cat(char *buf, size_t len, const char *fmt, ...)
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
static const char *fmt_bps(double bytes_per_s, char *buf, size_t len)
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

static const char *fmt_fault_rate(enum fault f, double rate, char *buf, size_t len)
{
	if (f == F_TIMEOUTS)
		snprintf(buf, len, "%.2f %s", rate, faults[f].unit);
	else
		snprintf(buf, len, "%.3f%% %s", rate * 100, faults[f].unit);
	return buf;
}

/* "0.010% -> 5.000% of segments" */
static const char *fmt_fault_change(enum fault f, double a, double b, char *buf, size_t len)
{
	if (f == F_TIMEOUTS)
		snprintf(buf, len, "%.2f -> %.2f %s", a, b, faults[f].unit);
	else
		snprintf(buf, len, "%.3f%% -> %.3f%% %s", a * 100, b * 100, faults[f].unit);
	return buf;
}

static double pct(double ratio)
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

static double median_of(const double *v, unsigned int n)
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
	static const double q[] = { 0,	   31.821, 6.965, 4.541, 3.747, 3.365, 3.143, 2.998,
				    2.896, 2.821,  2.764, 2.718, 2.681, 2.650, 2.624, 2.602,
				    2.583, 2.567,  2.552, 2.539, 2.528, 2.518, 2.508, 2.500,
				    2.492, 2.485,  2.479, 2.473, 2.467, 2.462, 2.457 };

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

/* Baseline a vs trial b: means, medians, Welch's t and its critical value. */
struct cmp {
	unsigned int na, nb;
	double ma, mb, meda, medb, t, df, tcrit;
};

static void compare(const double *a, unsigned int na, const double *b, unsigned int nb,
		    struct cmp *c)
{
	double va, vb, se2;

	c->na = na;
	c->nb = nb;
	c->ma = mean_of(a, na);
	c->mb = mean_of(b, nb);
	c->meda = median_of(a, na);
	c->medb = median_of(b, nb);
	va = var_of(a, na, c->ma);
	vb = var_of(b, nb, c->mb);
	se2 = (na ? va / na : 0) + (nb ? vb / nb : 0);
	if (se2 > 0) {
		double da = na > 1 ? (va / na) * (va / na) / (na - 1) : 0;
		double db = nb > 1 ? (vb / nb) * (vb / nb) / (nb - 1) : 0;

		c->t = (c->mb - c->ma) / sqrt(se2);
		c->df = da + db > 0 ? se2 * se2 / (da + db) : (double)(na + nb - 2);
	} else {
		/* No spread at all: any difference is certain, none is none. */
		c->t = c->mb > c->ma ? 1e9 : c->mb < c->ma ? -1e9 : 0;
		c->df = (double)(na + nb - 2);
	}
	c->tcrit = t_critical(c->df);
}

/* The mean moved beyond noise and the median by at least min_effect, upwards. */
static bool cmp_up(const struct cmp *c, double min_effect)
{
	return c->t >= c->tcrit && c->medb >= c->meda * (1 + min_effect) && c->medb > c->meda;
}

static bool cmp_down(const struct cmp *c, double min_effect)
{
	return c->t <= -c->tcrit && c->medb <= c->meda * (1 - min_effect) && c->medb < c->meda;
}

static double tclamp(double t)
{
	return t > 999 ? 999 : t < -999 ? -999 : t;
}

/*
 * Whether events in window b come at a different rate (per exposure) than in a: the
 * conditional test of two Poisson rates. Given k = ka + kb events, kb is binomial with
 * p0 = eb / (ea + eb) when the rates are equal; z > 0 means b's rate is higher.
 */
static double rate_z(double ka, double ea, double kb, double eb)
{
	double k = ka + kb, p0;

	if (k <= 0 || ea <= 0 || eb <= 0)
		return 0;
	p0 = eb / (ea + eb);
	return (kb - k * p0) / sqrt(k * p0 * (1 - p0));
}

/* ---- windows ---------------------------------------------------------------------- */

static void win_push(struct window *w, const struct point *p, unsigned int cap)
{
	if (cap > TUNER_MAX_WINDOW)
		cap = TUNER_MAX_WINDOW;
	while (w->n >= cap && w->n > 0) {
		memmove(&w->p[0], &w->p[1], (w->n - 1) * sizeof(w->p[0]));
		w->n--;
	}
	w->p[w->n++] = *p;
}

static unsigned int win_values(const struct window *w, unsigned int from, unsigned int to,
			       enum objective o, double *v)
{
	unsigned int i, n = 0;

	for (i = from; i < to && i < w->n; i++)
		v[n++] = throughput(&w->p[i], o);
	return n;
}

/* CPU time per byte moved, per sample. */
static unsigned int win_cpu_per_byte(const struct window *w, double *v)
{
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		double bytes = w->p[i].tx_bytes + w->p[i].rx_bytes;

		v[i] = bytes > 0 ? w->p[i].cpu_ns / bytes : 0;
	}
	return w->n;
}

static double win_mean_secs(const struct window *w)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		s += w->p[i].secs;
	return w->n ? s / w->n : 0;
}

/* Sums over a window; have holds only what every sample had. */
struct agg {
	unsigned int n, have;
	double secs, tx_bytes, rx_bytes, tx_pkts, rx_pkts, tx_segs;
	double gso_skbs, gso_at_cap, rx_skbs, gro_at_cap, cpu_ns;
	double ev[F__COUNT], ex[F__COUNT];
};

static void aggregate(const struct window *w, struct agg *a)
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
		for (f = 0; f < F__COUNT; f++) {
			a->ev[f] += fault_events(p, f);
			a->ex[f] += fault_exposure(p, f);
		}
	}
	a->n = w->n;
}

static double agg_rate(const struct agg *a, enum fault f)
{
	return a->ex[f] > 0 ? a->ev[f] / a->ex[f] : 0;
}

static unsigned int fault_min_events(const struct tuner_config *cfg, enum fault f)
{
	/* A TX watchdog firing is a hung queue: one is evidence. */
	return f == F_TIMEOUTS ? 1 : cfg->fault_min_events;
}

/* The most severe fault present in a window, or -1; text describes it (or the absence). */
static int fault_present(const struct tuner_config *cfg, const struct agg *a, char *text,
			 size_t len)
{
	char r[48];
	int f;
	bool any = false;

	text[0] = '\0';
	for (f = 0; f < F__COUNT; f++) {
		double rate = agg_rate(a, f);

		if (!(a->have & faults[f].have))
			continue;
		any = true;
		if (a->ev[f] < fault_min_events(cfg, f))
			continue;
		if (f != F_TIMEOUTS && rate < cfg->fault_ratio)
			continue;
		snprintf(text, len, "%s %s (%.0f in %u samples)", faults[f].name,
			 fmt_fault_rate(f, rate, r, sizeof(r)), a->ev[f], a->n);
		return f;
	}
	if (!any)
		snprintf(text, len, "no fault counters (retransmits, drops, refusals) sampled");
	else if (a->have & TUNER_HAVE_RETRANS)
		snprintf(text, len, "no faults (retransmits %s)",
			 fmt_fault_rate(F_RETRANS, agg_rate(a, F_RETRANS), r, sizeof(r)));
	else
		snprintf(text, len, "no faults");
	return -1;
}

/* ---- interfaces ------------------------------------------------------------------- */

static struct iface *iface_find(const struct tuner *t, int ifindex)
{
	struct iface *i;

	for (i = t->ifaces; i; i = i->next)
		if (i->ifindex == ifindex)
			return i;
	return NULL;
}

static unsigned int factor(const struct tuner_config *cfg, const struct iface *ifc)
{
	return ifc->have_env && (ifc->env.quirks & CHIP_Q_JUDGE_SLOWLY) ? cfg->judge_slowly_factor
									 : 1;
}

static unsigned int baseline_needed(const struct tuner *t, const struct iface *ifc)
{
	return t->cfg.baseline_samples * factor(&t->cfg, ifc);
}

static unsigned int observe_needed(const struct tuner *t, const struct iface *ifc)
{
	return t->cfg.observe_samples * factor(&t->cfg, ifc);
}

static void win_reset(struct iface *ifc, const struct tuner_env *env)
{
	ifc->win.n = 0;
	memcpy(ifc->win_knob, env->knob, sizeof(ifc->win_knob));
}

int tuner_new(const struct tuner_config *cfg, struct tuner **out, struct rterr *err)
{
	struct tuner *t;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return rterr_sys(err, ENOMEM, "tuner");
	if (cfg)
		t->cfg = *cfg;
	else
		tuner_config_default(&t->cfg);
	r = tuner_config_check(&t->cfg, err);
	if (r < 0) {
		free(t);
		return r;
	}
	*out = t;
	return 0;
}

void tuner_free(struct tuner *t)
{
	struct iface *i, *n;

	if (!t)
		return;
	for (i = t->ifaces; i; i = n) {
		n = i->next;
		free(i);
	}
	free(t);
}

const struct tuner_config *tuner_config(const struct tuner *t)
{
	return &t->cfg;
}

int tuner_iface_add(struct tuner *t, int ifindex, const char *ifname)
{
	struct iface *ifc;

	if (iface_find(t, ifindex))
		return -EEXIST;
	ifc = calloc(1, sizeof(*ifc));
	if (!ifc)
		return -ENOMEM;
	ifc->ifindex = ifindex;
	snprintf(ifc->ifname, sizeof(ifc->ifname), "%s", ifname ? ifname : "");
	ifc->state = TUNER_ST_IDLE;
	ifc->next = t->ifaces;
	t->ifaces = ifc;
	return 0;
}

int tuner_iface_remove(struct tuner *t, int ifindex)
{
	struct iface **pp, *ifc;

	for (pp = &t->ifaces; *pp; pp = &(*pp)->next) {
		if ((*pp)->ifindex != ifindex)
			continue;
		ifc = *pp;
		*pp = ifc->next;
		if (ifc->in_trial && t->active_trials)
			t->active_trials--;
		free(ifc);
		return 0;
	}
	return -ENOENT;
}

int tuner_iface_rename(struct tuner *t, int ifindex, const char *ifname)
{
	struct iface *ifc = iface_find(t, ifindex);

	if (!ifc)
		return -ENOENT;
	snprintf(ifc->ifname, sizeof(ifc->ifname), "%s", ifname ? ifname : "");
	return 0;
}

/* ---- backoff ---------------------------------------------------------------------- */

enum backoff_mode {
	BO_REJECT, /* the trial lost or failed: back off, and double the next period */
	BO_ABORT,  /* not judged (traffic stopped, pinned, autotune off): back off, no doubling */
	BO_KEEP,   /* kept: chain freely; a kept fix holds back its reverse for a period */
};

static void backoff_update(const struct tuner_config *cfg, struct iface *ifc, enum knob_id k,
			   enum tuner_dir d, enum backoff_mode mode, uint64_t now)
{
	struct tuner_backoff *b = &ifc->backoff[k][d], *rev;
	uint64_t period = b->period_ms ? b->period_ms : cfg->backoff_initial_ms;

	switch (mode) {
	case BO_REJECT:
		b->until_ms = now + period;
		b->period_ms = period * 2 < cfg->backoff_max_ms ? period * 2 : cfg->backoff_max_ms;
		b->rejected++;
		break;
	case BO_ABORT:
		b->until_ms = now + period;
		b->period_ms = period;
		break;
	case BO_KEEP:
		memset(b, 0, sizeof(*b));
		/* Gains go up, fixes go down: after a kept fix, the gain that undoes it waits
		 * (its own period), so the two never alternate faster than the backoff. */
		if (d == TUNER_DOWN) {
			rev = &ifc->backoff[k][TUNER_UP];
			period = rev->period_ms ? rev->period_ms : cfg->backoff_initial_ms;
			if (rev->until_ms < now + period)
				rev->until_ms = now + period;
		}
		break;
	}
}

/* ---- rules ------------------------------------------------------------------------ */

struct ctx {
	const struct tuner *t;
	const struct iface *ifc;
	const struct tuner_env *env;
	const struct window *w;
	struct agg a;
	int fault; /* fault present in the window, -1 none */
	char fault_text[192];
	uint64_t now;
};

static void cand_init(struct tuner_candidate *c, enum tuner_rule rule, enum knob_id knob,
		      enum tuner_dir dir)
{
	memset(c, 0, sizeof(*c));
	c->rule = rule;
	c->knob = knob;
	c->dir = dir;
	c->status = TUNER_CAND_NO_EVIDENCE;
}

static void __attribute__((format(printf, 3, 4)))
cand_set(struct tuner_candidate *c, enum tuner_cand_status st, const char *fmt, ...)
{
	va_list ap;

	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void cand_change(struct tuner_candidate *c, enum knob_id k, int64_t from, int64_t to)
{
	if (c->n_changes < TUNER_MAX_CHANGES)
		c->changes[c->n_changes++] = (struct tuner_change){ k, from, to };
}

/*
 * A size and its IPv4 twin move together (the kernel mirrors sizes up to 64K itself; above
 * that the twin must be set). A pinned twin blocks a change the kernel would mirror into it.
 */
static bool cand_twin(const struct ctx *x, struct tuner_candidate *c, enum knob_id twin,
		      int64_t to)
{
	int64_t cur = x->env->knob[twin];

	if (cur < 0 || cur == to)
		return true;
	if (x->env->pinned[twin]) {
		if (to <= LEGACY_MAX_SIZE) {
			cand_set(c, TUNER_CAND_PINNED,
				 "%s is pinned and the kernel would move it with %s %" PRId64,
				 knob_name(twin), knob_name(c->knob), to);
			return false;
		}
		return true;
	}
	cand_change(c, twin, cur, to);
	return true;
}

static bool have(const struct ctx *x, unsigned int bits)
{
	return (x->a.have & bits) == bits;
}

static void rule_gso_faults(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GSO_MAX_SIZE], floor = x->t->cfg.gso_floor, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GSO_FAULTS, KNOB_GSO_MAX_SIZE, TUNER_DOWN);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gso_max_size not reported by the kernel");
	if (x->fault < 0)
		return cand_set(c, x->a.have ? TUNER_CAND_NO_EVIDENCE : TUNER_CAND_NO_DATA, "%s",
				x->fault_text);
	if (cur <= floor)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "%s, but gso_max_size %" PRId64
				" is at the floor %" PRId64, x->fault_text, cur, floor);
	if (!have(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "%s; GSO sizes not sampled (BPF probes)",
				x->fault_text);
	rate = x->a.gso_skbs / x->a.secs;
	share = x->a.gso_skbs > 0 ? x->a.gso_at_cap / x->a.gso_skbs : 0;
	if (rate < x->t->cfg.gso_min_skbs_per_s || share < x->t->cfg.fault_cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%s, but only %.0f%% of %.0f GSO skbs/s at the gso_max_size cap "
				"%" PRId64 " (< %.0f%%): a lower cap changes little",
				x->fault_text, share * 100, rate, cur,
				x->t->cfg.fault_cap_share * 100);
	to = cur / 2 > floor ? cur / 2 : floor;
	cand_change(c, KNOB_GSO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GSO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%s with %.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
		 ": try %" PRId64 " (floor %" PRId64 ")",
		 x->fault_text, share * 100, rate, cur, to, floor);
}

static void rule_tso_faults(const struct ctx *x, const struct tuner_candidate *gso,
			    struct tuner_candidate *c)
{
	int64_t tso = x->env->knob[KNOB_TSO];
	bool storm = x->env->quirks & CHIP_Q_TSO_RETRANSMIT_STORM;
	double rate;

	cand_init(c, TUNER_RULE_TSO_FAULTS, KNOB_TSO, TUNER_DOWN);
	if (tso < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "TSO state not known");
	if (tso == 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "TSO is off");
	if (x->fault < 0)
		return cand_set(c, x->a.have ? TUNER_CAND_NO_EVIDENCE : TUNER_CAND_NO_DATA, "%s",
				x->fault_text);
	if (!have(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "%s; GSO use not sampled (BPF probes)",
				x->fault_text);
	rate = x->a.gso_skbs / x->a.secs;
	if (rate < x->t->cfg.gso_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%s, but only %.0f GSO skbs/s: TSO is barely used", x->fault_text,
				rate);
	cand_change(c, KNOB_TSO, 1, 0);
	if (storm)
		return cand_set(c, TUNER_CAND_READY,
				"%s and the chip is known for TSO retransmit storms "
				"(tso-retransmit-storm): try TSO off first",
				x->fault_text);
	if (gso->status == TUNER_CAND_READY)
		return cand_set(c, TUNER_CAND_WAITING, "%s: lowering gso_max_size comes first",
				x->fault_text);
	cand_set(c, TUNER_CAND_READY, "%s persist and lowering gso_max_size is out (%s: %s): try TSO off",
		 x->fault_text, tuner_cand_status_name(gso->status),
		 gso->status == TUNER_CAND_BACKOFF ? "a lower size did not help" : "see gso-faults");
}

/* Gains wait while faults persist: a fix comes first, and faults make the criterion blind. */
static bool gain_blocked(const struct ctx *x, struct tuner_candidate *c)
{
	if (x->fault < 0)
		return false;
	cand_set(c, TUNER_CAND_NO_EVIDENCE, "not while faults persist: %s", x->fault_text);
	return true;
}

static void rule_gso_at_cap(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GSO_MAX_SIZE], max = x->env->gso_max, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GSO_AT_CAP, KNOB_GSO_MAX_SIZE, TUNER_UP);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gso_max_size not reported by the kernel");
	if (x->env->quirks & CHIP_Q_NEEDS_SMALL_GSO)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"chip quirk needs-small-gso: gso_max_size is never raised");
	if (max <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"the chip's gso_max_size limit is unknown: never raised");
	if (cur >= max)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"gso_max_size %" PRId64 " is at the chip's limit %" PRId64, cur,
				max);
	if (!have(x, TUNER_HAVE_GSO))
		return cand_set(c, TUNER_CAND_NO_DATA, "GSO sizes not sampled (BPF probes)");
	if (gain_blocked(x, c))
		return;
	rate = x->a.gso_skbs / x->a.secs;
	share = x->a.gso_skbs > 0 ? x->a.gso_at_cap / x->a.gso_skbs : 0;
	if (rate < x->t->cfg.gso_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%.0f GSO skbs/s (< %.0f)", rate,
				x->t->cfg.gso_min_skbs_per_s);
	if (share < x->t->cfg.cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
				" (< %.0f%%)",
				share * 100, rate, cur, x->t->cfg.cap_share * 100);
	to = cur * 2 < max ? cur * 2 : max;
	cand_change(c, KNOB_GSO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GSO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%.0f%% of %.0f GSO skbs/s at the gso_max_size cap %" PRId64
		 " and the chip allows %" PRId64 ": try %" PRId64,
		 share * 100, rate, cur, max, to);
}

static void rule_gro_off(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t gro = x->env->knob[KNOB_GRO];
	double pps;

	cand_init(c, TUNER_RULE_GRO_OFF, KNOB_GRO, TUNER_UP);
	if (gro < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "GRO state not known");
	if (gro > 0)
		return cand_set(c, TUNER_CAND_AT_LIMIT, "GRO is on");
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (gain_blocked(x, c))
		return;
	pps = x->a.rx_pkts / x->a.secs;
	if (pps < x->t->cfg.gro_on_min_pps)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"GRO is off at %.0f frames/s received (< %.0f)", pps,
				x->t->cfg.gro_on_min_pps);
	cand_change(c, KNOB_GRO, 0, 1);
	cand_set(c, TUNER_CAND_READY, "GRO is off at %.0f frames/s received (>= %.0f): try GRO on",
		 pps, x->t->cfg.gro_on_min_pps);
}

static void rule_gro_at_cap(const struct ctx *x, struct tuner_candidate *c)
{
	int64_t cur = x->env->knob[KNOB_GRO_MAX_SIZE], max = x->env->gro_max, to;
	double rate, share;

	cand_init(c, TUNER_RULE_GRO_AT_CAP, KNOB_GRO_MAX_SIZE, TUNER_UP);
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "gro_max_size not reported by the kernel");
	if (x->env->knob[KNOB_GRO] == 0)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "GRO is off");
	if (max <= 0)
		return cand_set(c, TUNER_CAND_NO_DATA,
				"the gro_max_size limit is unknown: never raised");
	if (cur >= max)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"gro_max_size %" PRId64 " is at the limit %" PRId64, cur, max);
	if (!have(x, TUNER_HAVE_GRO))
		return cand_set(c, TUNER_CAND_NO_DATA, "GRO merge sizes not sampled (BPF probes)");
	if (gain_blocked(x, c))
		return;
	rate = x->a.rx_skbs / x->a.secs;
	share = x->a.rx_skbs > 0 ? x->a.gro_at_cap / x->a.rx_skbs : 0;
	if (rate < x->t->cfg.gro_min_skbs_per_s)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE, "%.0f skbs/s after GRO (< %.0f)", rate,
				x->t->cfg.gro_min_skbs_per_s);
	if (share < x->t->cfg.cap_share)
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"%.0f%% of %.0f skbs/s after GRO at the gro_max_size cap %" PRId64
				" (< %.0f%%)",
				share * 100, rate, cur, x->t->cfg.cap_share * 100);
	to = cur * 2 < max ? cur * 2 : max;
	cand_change(c, KNOB_GRO_MAX_SIZE, cur, to);
	if (!cand_twin(x, c, KNOB_GRO_IPV4_MAX_SIZE, to))
		return;
	cand_set(c, TUNER_CAND_READY,
		 "%.0f%% of %.0f skbs/s after GRO at the gro_max_size cap %" PRId64
		 " and the limit is %" PRId64 ": try %" PRId64,
		 share * 100, rate, cur, max, to);
}

static void rule_mtu(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_env *e = x->env;
	int64_t cur = e->knob[KNOB_MTU], hi = e->allowed_mtu_max;
	double bps, tx_frame, rx_frame, full;
	char b[32];

	cand_init(c, TUNER_RULE_MTU, KNOB_MTU, TUNER_UP);
	if (e->allowed_mtu_max <= 0)
		return cand_set(c, TUNER_CAND_NOT_ALLOWED,
				"no allowed_mtu range configured: the L2 domain decides the MTU");
	if (cur < 0)
		return cand_set(c, TUNER_CAND_NO_DATA, "MTU not known");
	if (e->mtu_max > 0 && hi > e->mtu_max)
		hi = e->mtu_max;
	if (cur >= hi)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"MTU %" PRId64 " is at the top of allowed_mtu %" PRId64 "..%" PRId64
				" (max_mtu %" PRId64 ")",
				cur, e->allowed_mtu_min, e->allowed_mtu_max, e->mtu_max);
	if (hi < e->allowed_mtu_min)
		return cand_set(c, TUNER_CAND_AT_LIMIT,
				"allowed_mtu %" PRId64 "..%" PRId64 " is above max_mtu %" PRId64,
				e->allowed_mtu_min, e->allowed_mtu_max, e->mtu_max);
	if (!x->a.n)
		return cand_set(c, TUNER_CAND_NO_DATA, "no samples");
	if (gain_blocked(x, c))
		return;
	bps = (x->a.tx_bytes + x->a.rx_bytes) / x->a.secs;
	tx_frame = x->a.tx_segs > 0 ? x->a.tx_bytes / x->a.tx_segs : 0;
	rx_frame = x->a.rx_pkts > 0 ? x->a.rx_bytes / x->a.rx_pkts : 0;
	full = x->t->cfg.mtu_full_share * (double)cur;
	if (bps < x->t->cfg.mtu_min_bytes_per_s || (tx_frame < full && rx_frame < full))
		return cand_set(c, TUNER_CAND_NO_EVIDENCE,
				"frames average %.0f bytes sent, %.0f received at %s: not full "
				"MTU-%" PRId64 " frames in bulk",
				tx_frame, rx_frame, fmt_bps(bps, b, sizeof(b)), cur);
	cand_change(c, KNOB_MTU, cur, hi);
	cand_set(c, TUNER_CAND_READY,
		 "full frames (average %.0f bytes sent, %.0f received, MTU %" PRId64
		 ") at %s; allowed_mtu %" PRId64 "..%" PRId64 ": try %" PRId64,
		 tx_frame, rx_frame, cur, fmt_bps(bps, b, sizeof(b)), e->allowed_mtu_min,
		 e->allowed_mtu_max, hi);
	if (hi > 1500 && (e->quirks & CHIP_Q_JUMBO_DISABLES_TSO) && e->knob[KNOB_TSO] > 0)
		cat(c->reason, sizeof(c->reason),
		    " (this chip turns TSO off above 1500: kept only for a gain of %.0f%%)",
		    x->t->cfg.min_effect * x->t->cfg.jumbo_tso_factor * 100);
}

/* Pins, autotune and backoff, over what the rules found. */
static void cand_gate(const struct ctx *x, struct tuner_candidate *c)
{
	const struct tuner_backoff *b = &x->ifc->backoff[c->knob][c->dir];
	unsigned int i;

	if (x->env->pinned[c->knob]) {
		cand_set(c, TUNER_CAND_PINNED, "%s is pinned", knob_name(c->knob));
		return;
	}
	for (i = 0; i < c->n_changes; i++)
		if (x->env->pinned[c->changes[i].knob]) {
			cand_set(c, TUNER_CAND_PINNED, "%s is pinned",
				 knob_name(c->changes[i].knob));
			return;
		}
	if (c->status != TUNER_CAND_READY && c->status != TUNER_CAND_WAITING)
		return;
	if (b->until_ms > x->now) {
		char why[sizeof(c->reason)];

		snprintf(why, sizeof(why), "%s", c->reason);
		cand_set(c, TUNER_CAND_BACKOFF, "backing off %s %s for %" PRIu64 "s more (%u rejected): %s",
			 knob_name(c->knob), tuner_dir_name(c->dir), (b->until_ms - x->now + 999) / 1000,
			 b->rejected, why);
		c->backoff_until_ms = b->until_ms;
		return;
	}
	if (!x->env->autotune)
		cand_set(c, TUNER_CAND_AUTOTUNE_OFF, "autotune is off (%s)", c->reason);
}

/* Every rule over window w, in cands[rule]; returns the index of the one to try, or -1. */
static int evaluate(const struct tuner *t, const struct iface *ifc, const struct tuner_env *env,
		    const struct window *w, uint64_t now, struct tuner_candidate cands[])
{
	/* Selection order: fixes before gains; a storm-prone chip loses TSO first. */
	static const enum tuner_rule order[] = { TUNER_RULE_GSO_FAULTS, TUNER_RULE_TSO_FAULTS,
						 TUNER_RULE_GSO_AT_CAP, TUNER_RULE_GRO_OFF,
						 TUNER_RULE_GRO_AT_CAP, TUNER_RULE_MTU };
	struct ctx x = { .t = t, .ifc = ifc, .env = env, .w = w, .now = now };
	unsigned int i;
	int r;

	aggregate(w, &x.a);
	x.fault = x.a.n ? fault_present(&t->cfg, &x.a, x.fault_text, sizeof(x.fault_text)) : -1;
	if (!x.a.n)
		snprintf(x.fault_text, sizeof(x.fault_text), "no samples");
	rule_gso_faults(&x, &cands[TUNER_RULE_GSO_FAULTS]);
	cand_gate(&x, &cands[TUNER_RULE_GSO_FAULTS]);
	rule_tso_faults(&x, &cands[TUNER_RULE_GSO_FAULTS], &cands[TUNER_RULE_TSO_FAULTS]);
	cand_gate(&x, &cands[TUNER_RULE_TSO_FAULTS]);
	rule_gso_at_cap(&x, &cands[TUNER_RULE_GSO_AT_CAP]);
	rule_gro_off(&x, &cands[TUNER_RULE_GRO_OFF]);
	rule_gro_at_cap(&x, &cands[TUNER_RULE_GRO_AT_CAP]);
	rule_mtu(&x, &cands[TUNER_RULE_MTU]);
	for (i = TUNER_RULE_GSO_AT_CAP; i < TUNER_RULE__COUNT; i++)
		cand_gate(&x, &cands[i]);
	if ((env->quirks & CHIP_Q_TSO_RETRANSMIT_STORM) &&
	    cands[TUNER_RULE_TSO_FAULTS].status == TUNER_CAND_READY)
		return TUNER_RULE_TSO_FAULTS;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		r = order[i];
		if (cands[r].status == TUNER_CAND_READY)
			return r;
	}
	return -1;
}

/*
 * Whether the traffic itself moved within the baseline: its halves differ beyond noise.
 * A trial started then would credit the knob with the traffic's change.
 */
static bool unsteady(const struct tuner_config *cfg, const struct window *w, enum objective o,
		     char *why, size_t len)
{
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	unsigned int h = w->n / 2, na, nb;
	struct cmp c;
	char x[32], y[32];

	na = win_values(w, 0, h, o, a);
	nb = win_values(w, h, w->n, o, b);
	compare(a, na, b, nb, &c);
	if (!cmp_up(&c, cfg->min_effect) && !cmp_down(&c, cfg->min_effect))
		return false;
	snprintf(why, len, "traffic not steady: %s %s in the first half of the window, %s in the second",
		 objective_name(o), fmt_bps(c.meda, x, sizeof(x)), fmt_bps(c.medb, y, sizeof(y)));
	return true;
}

/* ---- trials ----------------------------------------------------------------------- */

static void action_from_trial(const struct iface *ifc, const struct trial *tr,
			      enum tuner_action_kind kind, uint64_t now, struct tuner_action *out)
{
	*out = tr->start;
	out->kind = kind;
	out->ts_ms = now;
	memcpy(out->changes, tr->chg, sizeof(out->changes));
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->reason[0] = '\0';
}

static void count(struct iface *ifc, const struct tuner_action *a)
{
	if (a->kind != TUNER_NONE && (unsigned int)a->knob < KNOB__COUNT)
		ifc->decisions[a->knob][a->kind]++;
}

/* The trial ends without a rollback (kept, failed, abandoned). */
static void trial_end(struct tuner *t, struct iface *ifc)
{
	if (ifc->in_trial && t->active_trials)
		t->active_trials--;
	ifc->in_trial = false;
	ifc->awaiting = false;
}

/* Give a rollback to the pre-trial values; the trial ends when tuner_applied(ok) says so. */
static void give_rollback(struct tuner *t, struct iface *ifc, enum backoff_mode mode,
			  uint64_t now, const char *reason, struct tuner_action *out)
{
	const struct trial *tr = &ifc->trial;
	unsigned int i;

	action_from_trial(ifc, tr, TUNER_ROLLBACK, now, out);
	for (i = 0; i < out->n_changes; i++) {
		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = tr->chg[i].from;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
	backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, mode, now);
	ifc->rollback = *out;
	ifc->state = TUNER_ST_ROLLING_BACK;
	ifc->awaiting = true;
	count(ifc, out);
}

/* Penalty rates in base vs obs; a clear rise of any is a rollback. */
static bool penalty_rose(const struct tuner_config *cfg, const struct agg *a, const struct agg *b,
			 char *why, size_t len)
{
	char x[64];
	int f;

	for (f = 0; f < F__COUNT; f++) {
		double ra = agg_rate(a, f), rb = agg_rate(b, f), z;

		if (!(a->have & b->have & faults[f].have))
			continue;
		if (b->ev[f] < fault_min_events(cfg, f) || rb <= ra * (1 + cfg->penalty_min_rise))
			continue;
		z = rate_z(a->ev[f], a->ex[f], b->ev[f], b->ex[f]);
		/* A hung TX queue where the baseline had none needs no statistics. */
		if (!(f == F_TIMEOUTS && a->ev[f] == 0) && z < cfg->penalty_z)
			continue;
		snprintf(why, len, "%s rose: %s (%.0f in %u samples, z %.1f)", faults[f].name,
			 fmt_fault_change(f, ra, rb, x, sizeof(x)), b->ev[f], b->n, tclamp(z));
		return true;
	}
	return false;
}

/* "; retransmits 0.010% -> 0.020% of segments" for the reason of a verdict; skip: the
 * fault already described (a fix's own), or -1. */
static void penalty_summary(const struct agg *a, const struct agg *b, int skip, char *buf,
			    size_t len)
{
	char x[64];
	int f;

	for (f = 0; f < F__COUNT; f++) {
		if (f == skip || !(a->have & b->have & faults[f].have))
			continue;
		if (f != F_RETRANS && a->ev[f] == 0 && b->ev[f] == 0)
			continue;
		cat(buf, len, "; %s %s", faults[f].name,
		    fmt_fault_change(f, agg_rate(a, f), agg_rate(b, f), x, sizeof(x)));
	}
}

static void describe_cmp(const char *what, const struct cmp *c, bool bps, char *buf, size_t len)
{
	char x[32], y[32];

	if (bps) {
		fmt_bps(c->ma, x, sizeof(x));
		fmt_bps(c->mb, y, sizeof(y));
	} else {
		snprintf(x, sizeof(x), "%.3g ns/byte", c->ma);
		snprintf(y, sizeof(y), "%.3g ns/byte", c->mb);
	}
	cat(buf, len, "%s %s -> %s (%+.1f%%, medians %+.1f%%), Welch t %.1f vs %.2f over %u+%u samples",
	    what, x, y, c->ma > 0 ? pct(c->mb / c->ma) : 0, c->meda > 0 ? pct(c->medb / c->meda) : 0,
	    tclamp(c->t), c->tcrit, c->na, c->nb);
}

/* Checks after every observed sample: a penalty rise or a collapse ends the trial now. */
static bool observe_early(struct tuner *t, struct iface *ifc, uint64_t now,
			  struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = &ifc->trial;
	enum objective o = knob_objective(tr->start.knob);
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	char why[sizeof(out->reason)] = "", x[32], y[32];
	struct agg ab, ob;
	unsigned int na, nb;

	aggregate(&tr->base, &ab);
	aggregate(&tr->obs, &ob);
	if (penalty_rose(cfg, &ab, &ob, why, sizeof(why))) {
		give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	if (tr->obs.n < 3)
		return false;
	na = win_values(&tr->base, 0, tr->base.n, o, a);
	nb = win_values(&tr->obs, 0, tr->obs.n, o, b);
	if (median_of(b, nb) < (1 - cfg->collapse) * median_of(a, na)) {
		snprintf(why, sizeof(why), "%s collapsed: %s -> %s (medians, %u samples)",
			 objective_name(o), fmt_bps(median_of(a, na), x, sizeof(x)),
			 fmt_bps(median_of(b, nb), y, sizeof(y)), nb);
		give_rollback(t, ifc, BO_REJECT, now, why, out);
		return true;
	}
	return false;
}

/*
 * A fix that did not cure (and did not cost throughput) goes one step further within the
 * same trial: gso_max_size halves again down to the floor, each step judged against the
 * pre-trial baseline; only when the floor does not cure either is it all rolled back.
 * A step that would not cure is never kept on its own (it would cost for nothing).
 */
static bool can_step(const struct tuner_config *cfg, const struct trial *tr, const struct cmp *thr)
{
	return tr->start.rule == TUNER_RULE_GSO_FAULTS && tr->chg[0].to > cfg->gso_floor &&
	       !cmp_down(thr, cfg->fix_max_loss);
}

static void give_step(struct tuner *t, struct iface *ifc, uint64_t now, const char *why,
		      struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	int64_t to = tr->chg[0].to / 2 > t->cfg.gso_floor ? tr->chg[0].to / 2 : t->cfg.gso_floor;
	unsigned int i;

	action_from_trial(ifc, tr, TUNER_STEP, now, out);
	for (i = 0; i < tr->start.n_changes; i++) {
		tr->step_from[i] = tr->chg[i].to;
		out->changes[i].from = tr->chg[i].to;
		out->changes[i].to = to;
		tr->chg[i].to = to;
	}
	tr->steps++;
	snprintf(out->reason, sizeof(out->reason), "%s; step %u: %s %" PRId64 " -> %" PRId64, why,
		 tr->steps, knob_name(tr->chg[0].knob), out->changes[0].from, to);
	tr->obs.n = 0;
	ifc->state = TUNER_ST_APPLYING;
	ifc->awaiting = true;
	ifc->count = 0;
	count(ifc, out);
}

static void verdict(struct tuner *t, struct iface *ifc, uint64_t now, struct tuner_action *out)
{
	const struct tuner_config *cfg = &t->cfg;
	struct trial *tr = &ifc->trial;
	enum objective o = knob_objective(tr->start.knob);
	double a[TUNER_MAX_WINDOW], b[TUNER_MAX_WINDOW];
	char why[sizeof(out->reason)] = "", x[64];
	struct agg ab, ob;
	struct cmp thr, cpu;
	bool keep = false;

	aggregate(&tr->base, &ab);
	aggregate(&tr->obs, &ob);
	compare(a, win_values(&tr->base, 0, tr->base.n, o, a), b,
		win_values(&tr->obs, 0, tr->obs.n, o, b), &thr);
	if (tr->kind == TRIAL_FIX) {
		int f = tr->fault;
		double ra = agg_rate(&ab, f), rb = agg_rate(&ob, f);
		double z = rate_z(ab.ev[f], ab.ex[f], ob.ev[f], ob.ex[f]);
		bool fell = z <= -cfg->fix_z && rb <= ra * (1 - cfg->fix_min_fall);

		snprintf(why, sizeof(why), "%s %s %s (z %.1f vs -%.1f, at least -%.0f%%); ",
			 faults[f].name, fell ? "fell" : "did not fall enough:",
			 fmt_fault_change(f, ra, rb, x, sizeof(x)), tclamp(z), cfg->fix_z,
			 cfg->fix_min_fall * 100);
		describe_cmp(objective_name(o), &thr, true, why, sizeof(why));
		if (fell && cmp_down(&thr, cfg->fix_max_loss))
			cat(why, sizeof(why), "; costs more than %.0f%% throughput",
			    cfg->fix_max_loss * 100);
		else
			keep = fell;
	} else if (cmp_up(&thr, tr->min_effect)) {
		describe_cmp(objective_name(o), &thr, true, why, sizeof(why));
		cat(why, sizeof(why), ": a gain beyond noise (at least %.0f%%)",
		    tr->min_effect * 100);
		keep = true;
	} else if (cmp_down(&thr, cfg->min_effect)) {
		describe_cmp(objective_name(o), &thr, true, why, sizeof(why));
		cat(why, sizeof(why), ": worse");
	} else if ((ab.have & ob.have & TUNER_HAVE_CPU) && ab.cpu_ns > 0) {
		/* Throughput did not move (not saturated, or at line rate): CPU per byte decides. */
		compare(a, win_cpu_per_byte(&tr->base, a), b, win_cpu_per_byte(&tr->obs, b), &cpu);
		describe_cmp(objective_name(o), &thr, true, why, sizeof(why));
		cat(why, sizeof(why), ", same; ");
		describe_cmp("CPU", &cpu, false, why, sizeof(why));
		keep = cmp_down(&cpu, tr->min_effect);
		cat(why, sizeof(why), keep ? ": cheaper beyond noise" : ": no gain beyond noise");
	} else {
		describe_cmp(objective_name(o), &thr, true, why, sizeof(why));
		if (thr.t >= thr.tcrit)
			cat(why, sizeof(why), ": a gain below the %.0f%% required",
			    tr->min_effect * 100);
		else
			cat(why, sizeof(why), ": no gain beyond noise (at least %.0f%%)",
			    tr->min_effect * 100);
	}
	penalty_summary(&ab, &ob, tr->kind == TRIAL_FIX ? tr->fault : -1, why, sizeof(why));
	if (!keep && can_step(cfg, tr, &thr)) {
		give_step(t, ifc, now, why, out);
		return;
	}
	if (!keep) {
		give_rollback(t, ifc, BO_REJECT, now, why, out);
		return;
	}
	action_from_trial(ifc, tr, TUNER_KEEP, now, out);
	snprintf(out->reason, sizeof(out->reason), "%s", why);
	backoff_update(cfg, ifc, tr->start.knob, tr->start.dir, BO_KEEP, now);
	count(ifc, out);
	trial_end(t, ifc);
	/* The observed window was taken with the kept value: it is the next baseline. */
	ifc->win = tr->obs;
	memcpy(ifc->win_knob, ifc->env.knob, sizeof(ifc->win_knob));
	ifc->state = TUNER_ST_BASELINE;
}

static void start_trial(struct tuner *t, struct iface *ifc, const struct tuner_env *env,
			const struct tuner_candidate *c, uint64_t now, struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	char why[192];
	struct agg a;

	memset(tr, 0, sizeof(*tr));
	tr->base = ifc->win;
	tr->kind = c->dir == TUNER_DOWN ? TRIAL_FIX : TRIAL_GAIN;
	aggregate(&tr->base, &a);
	tr->fault = tr->kind == TRIAL_FIX ? fault_present(&t->cfg, &a, why, sizeof(why)) : -1;
	if (tr->kind == TRIAL_FIX && tr->fault < 0)
		tr->fault = F_RETRANS;
	tr->min_effect = t->cfg.min_effect;
	if (c->knob == KNOB_MTU && (env->quirks & CHIP_Q_JUMBO_DISABLES_TSO) &&
	    env->knob[KNOB_TSO] > 0 && c->changes[0].to > 1500)
		tr->min_effect *= t->cfg.jumbo_tso_factor;
	tr->started_ms = now;

	memset(out, 0, sizeof(*out));
	out->kind = TUNER_START_TRIAL;
	out->ts_ms = now;
	out->trial = ++t->next_trial;
	out->ifindex = ifc->ifindex;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->rule = c->rule;
	out->knob = c->knob;
	out->dir = c->dir;
	memcpy(out->changes, c->changes, sizeof(out->changes));
	out->n_changes = c->n_changes;
	snprintf(out->reason, sizeof(out->reason), "%s: %s", tuner_rule_name(c->rule), c->reason);
	tr->start = *out;
	memcpy(tr->chg, c->changes, sizeof(tr->chg));

	ifc->in_trial = true;
	ifc->awaiting = true;
	ifc->state = TUNER_ST_APPLYING;
	ifc->count = 0;
	t->active_trials++;
	count(ifc, out);
}

/* ---- feeding ---------------------------------------------------------------------- */

/* The sample as a point; false when it cannot be rated (no interval known yet). */
static bool to_point(struct iface *ifc, const struct tuner_sample *s, struct point *p)
{
	uint64_t ms = s->interval_ms;

	if (!ms && ifc->have_ts && s->ts_ms > ifc->last_ts_ms)
		ms = s->ts_ms - ifc->last_ts_ms;
	ifc->last_ts_ms = s->ts_ms;
	ifc->have_ts = true;
	if (!ms)
		return false;
	memset(p, 0, sizeof(*p));
	p->secs = (double)ms / 1000.0;
	p->have = s->have;
	p->tx_bytes = (double)s->tx_bytes;
	p->rx_bytes = (double)s->rx_bytes;
	p->tx_pkts = (double)s->tx_packets;
	p->rx_pkts = (double)s->rx_packets;
	/* Without GSO data every skb is a segment as far as the rates can tell. */
	p->tx_segs = (s->have & TUNER_HAVE_GSO) && s->tx_segs ? (double)s->tx_segs : p->tx_pkts;
	p->gso_skbs = (double)s->tx_gso_skbs;
	p->gso_at_cap = (double)s->tx_gso_at_cap;
	p->rx_skbs = (double)s->rx_skbs;
	p->gro_at_cap = (double)s->rx_gro_at_cap;
	p->retrans = (double)s->tcp_retransmits;
	p->drops = (double)s->drops;
	p->busy = (double)s->tx_busy;
	p->timeouts = (double)s->tx_timeouts;
	p->cpu_ns = (double)s->cpu_ns;
	return true;
}

static bool active(const struct tuner_config *cfg, const struct point *p)
{
	return (p->tx_bytes + p->rx_bytes) / p->secs >= cfg->idle_bytes_per_s &&
	       (p->tx_pkts + p->rx_pkts) / p->secs >= cfg->idle_packets_per_s;
}

/* A sample spanning much longer than the window's: the daemon stalled or the host slept. */
static bool gap(const struct window *w, const struct point *p)
{
	return w->n && p->secs > 3 * win_mean_secs(w);
}

/* During settle/observe: why the trial cannot go on, with the action to take; 0 none. */
static enum tuner_action_kind trial_interrupted(const struct iface *ifc,
						const struct tuner_env *env, bool check_values,
						char *why, size_t len)
{
	const struct trial *tr = &ifc->trial;
	unsigned int i;

	if (!env->autotune) {
		snprintf(why, len, "autotune turned off during the trial");
		return TUNER_ROLLBACK;
	}
	for (i = 0; i < tr->start.n_changes; i++) {
		const struct tuner_change *c = &tr->chg[i];

		if (env->pinned[c->knob]) {
			snprintf(why, len, "%s pinned during the trial", knob_name(c->knob));
			return TUNER_ROLLBACK;
		}
		if (check_values && env->knob[c->knob] != c->to) {
			snprintf(why, len,
				 "%s changed outside the tuner during the trial (%" PRId64
				 " instead of %" PRId64 "): left as found",
				 knob_name(c->knob), env->knob[c->knob], c->to);
			return TUNER_ABANDON;
		}
	}
	return TUNER_NONE;
}

static void feed_trial(struct tuner *t, struct iface *ifc, const struct tuner_env *env,
		       const struct point *p, bool usable, uint64_t now, struct tuner_action *out)
{
	struct trial *tr = &ifc->trial;
	char why[sizeof(out->reason)];
	enum tuner_action_kind k;

	k = trial_interrupted(ifc, env, ifc->state == TUNER_ST_OBSERVE, why, sizeof(why));
	if (k == TUNER_ROLLBACK)
		return give_rollback(t, ifc, BO_ABORT, now, why, out);
	if (k == TUNER_ABANDON) {
		action_from_trial(ifc, tr, TUNER_ABANDON, now, out);
		snprintf(out->reason, sizeof(out->reason), "%s", why);
		backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_ABORT, now);
		count(ifc, out);
		trial_end(t, ifc);
		win_reset(ifc, env);
		ifc->state = TUNER_ST_IDLE;
		return;
	}
	if (!usable)
		return;
	if (!active(&t->cfg, p))
		return give_rollback(t, ifc, BO_ABORT, now,
				     "traffic stopped during the trial: cannot judge", out);
	if (gap(&tr->base, p))
		return give_rollback(t, ifc, BO_ABORT, now,
				     "sampling gap during the trial: cannot judge", out);
	if (ifc->state == TUNER_ST_SETTLE) {
		if (++ifc->count >= t->cfg.settle_samples)
			ifc->state = TUNER_ST_OBSERVE;
		return;
	}
	win_push(&tr->obs, p, TUNER_MAX_WINDOW);
	if (observe_early(t, ifc, now, out))
		return;
	if (tr->obs.n >= observe_needed(t, ifc))
		verdict(t, ifc, now, out);
}

static bool knobs_moved(const struct iface *ifc, const struct tuner_env *env)
{
	return memcmp(ifc->win_knob, env->knob, sizeof(ifc->win_knob)) != 0;
}

int tuner_feed(struct tuner *t, int ifindex, const struct tuner_sample *s,
	       const struct tuner_env *env, uint64_t now, struct tuner_action *out)
{
	struct tuner_candidate cands[TUNER_RULE__COUNT];
	struct iface *ifc;
	struct point p;
	bool usable;
	char why[256];
	int r;

	if (!t || !s || !env || !out)
		return -EINVAL;
	ifc = iface_find(t, ifindex);
	if (!ifc)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->kind = TUNER_NONE;
	ifc->env = *env;
	ifc->have_env = true;
	usable = to_point(ifc, s, &p);

	switch (ifc->state) {
	case TUNER_ST_APPLYING:
		return 0;
	case TUNER_ST_ROLLING_BACK:
		if (!ifc->awaiting) {
			/* The last rollback failed: the journal keeps the trial in flight, and
			 * the tuner keeps asking until the pre-trial values are back. */
			*out = ifc->rollback;
			out->ts_ms = now;
			ifc->awaiting = true;
			count(ifc, out);
		}
		return 0;
	case TUNER_ST_SETTLE:
	case TUNER_ST_OBSERVE:
		feed_trial(t, ifc, env, &p, usable, now, out);
		return 0;
	case TUNER_ST_COOLDOWN:
		if (usable && ++ifc->count >= t->cfg.settle_samples) {
			win_reset(ifc, env);
			ifc->state = TUNER_ST_IDLE;
		}
		return 0;
	default:
		break;
	}
	if (!usable)
		return 0;
	if (knobs_moved(ifc, env) || gap(&ifc->win, &p) || !active(&t->cfg, &p)) {
		win_reset(ifc, env);
		if (!active(&t->cfg, &p)) {
			ifc->state = TUNER_ST_IDLE;
			return 0;
		}
	}
	win_push(&ifc->win, &p, baseline_needed(t, ifc));
	ifc->state = TUNER_ST_BASELINE;
	if (ifc->win.n < baseline_needed(t, ifc) || !env->autotune ||
	    t->active_trials >= t->cfg.max_trials)
		return 0;
	r = evaluate(t, ifc, env, &ifc->win, now, cands);
	if (r < 0)
		return 0;
	if (cands[r].dir == TUNER_UP &&
	    unsteady(&t->cfg, &ifc->win, knob_objective(cands[r].knob), why, sizeof(why)))
		return 0;
	start_trial(t, ifc, env, &cands[r], now, out);
	return 0;
}

int tuner_applied(struct tuner *t, int ifindex, bool ok, uint64_t now,
		  struct tuner_action *out)
{
	struct iface *ifc = t ? iface_find(t, ifindex) : NULL;
	struct trial *tr;

	if (!ifc)
		return -ENOENT;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->kind = TUNER_NONE;
	}
	if (!ifc->awaiting)
		return -EALREADY;
	tr = &ifc->trial;
	ifc->awaiting = false;
	if (ifc->state == TUNER_ST_APPLYING) {
		if (ok) {
			if (!tr->steps)
				tr->started_ms = now;
			ifc->state = TUNER_ST_SETTLE;
			ifc->count = 0;
			return 0;
		}
		if (tr->steps) {
			struct tuner_action rb;
			unsigned int i;

			/* apply undid the step itself: the previous step's values are on. */
			for (i = 0; i < tr->start.n_changes; i++)
				tr->chg[i].to = tr->step_from[i];
			give_rollback(t, ifc, BO_REJECT, now,
				      "the next step could not be applied: back to the pre-trial "
				      "values",
				      &rb);
			if (out)
				*out = rb;
			return 0;
		}
		backoff_update(&t->cfg, ifc, tr->start.knob, tr->start.dir, BO_REJECT, now);
		if (out) {
			action_from_trial(ifc, tr, TUNER_FAILED, now, out);
			snprintf(out->reason, sizeof(out->reason),
				 "the change could not be applied (nothing changed); backing off "
				 "%" PRIu64 "s",
				 (ifc->backoff[tr->start.knob][tr->start.dir].until_ms - now) / 1000);
			count(ifc, out);
		}
		trial_end(t, ifc);
	} else if (ifc->state == TUNER_ST_ROLLING_BACK) {
		if (!ok)
			return 0; /* given again at the next sample */
		trial_end(t, ifc);
	} else {
		return -EALREADY;
	}
	ifc->state = TUNER_ST_COOLDOWN;
	ifc->count = 0;
	return 0;
}

int tuner_abort(struct tuner *t, int ifindex, uint64_t now, const char *why,
		struct tuner_action *out)
{
	struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->kind = TUNER_NONE;
	switch (ifc->state) {
	case TUNER_ST_APPLYING:
	case TUNER_ST_SETTLE:
	case TUNER_ST_OBSERVE:
		give_rollback(t, ifc, BO_ABORT, now, why && *why ? why : "trial aborted", out);
		break;
	case TUNER_ST_ROLLING_BACK:
		*out = ifc->rollback;
		out->ts_ms = now;
		ifc->awaiting = true;
		count(ifc, out);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- introspection ---------------------------------------------------------------- */

int tuner_recommend(const struct tuner *t, int ifindex, uint64_t now,
		    struct tuner_recommendation *out)
{
	const struct iface *ifc = t ? iface_find(t, ifindex) : NULL;
	struct tuner_env none;
	const struct tuner_env *env;
	const struct trial *tr;
	char why[256];
	unsigned int i;
	int next;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->state = ifc->state;
	out->next = -1;
	if (ifc->have_env) {
		env = &ifc->env;
	} else {
		memset(&none, 0, sizeof(none));
		for (i = 0; i < KNOB__COUNT; i++)
			none.knob[i] = LINK_UNSET;
		env = &none;
	}
	out->samples = ifc->win.n;
	out->needed = baseline_needed(t, ifc);
	next = evaluate(t, ifc, env, &ifc->win, now, out->cands);
	tr = &ifc->trial;

	if (ifc->in_trial) {
		const struct tuner_change *c = &tr->chg[0];

		snprintf(out->summary, sizeof(out->summary),
			 "trial %u in progress (%s, %s): %s %" PRId64 " -> %" PRId64
			 ", observed %u/%u samples",
			 tr->start.trial, tuner_rule_name(tr->start.rule),
			 tuner_state_name(ifc->state), knob_name(c->knob), c->from, c->to,
			 tr->obs.n, observe_needed(t, ifc));
		out->samples = tr->obs.n;
		out->needed = observe_needed(t, ifc);
	}
	/* What feed would add before starting: a full window, steady traffic, a free slot. */
	why[0] = '\0';
	if (!ifc->in_trial && ifc->state != TUNER_ST_BASELINE)
		snprintf(why, sizeof(why), "%s", ifc->state == TUNER_ST_IDLE
							  ? "no traffic"
							  : "settling after the last trial");
	else if (!ifc->in_trial && ifc->win.n < out->needed)
		snprintf(why, sizeof(why), "collecting a baseline (%u/%u samples)", ifc->win.n,
			 out->needed);
	else if (!ifc->in_trial && t->active_trials >= t->cfg.max_trials)
		snprintf(why, sizeof(why), "another interface's trial is running (max_trials %u)",
			 t->cfg.max_trials);
	else if (next >= 0 && out->cands[next].dir == TUNER_UP)
		unsteady(&t->cfg, &ifc->win, knob_objective(out->cands[next].knob), why,
			 sizeof(why));
	if (next >= 0 && (why[0] || ifc->in_trial)) {
		struct tuner_candidate *c = &out->cands[next];
		char r[sizeof(c->reason)];

		snprintf(r, sizeof(r), "%s", c->reason);
		c->status = TUNER_CAND_WAITING;
		snprintf(c->reason, sizeof(c->reason), "%s (waiting: %s)", r,
			 ifc->in_trial ? "a trial is in progress" : why);
	}
	if (next < 0)
		for (i = 0; i < TUNER_RULE__COUNT && next < 0; i++)
			if (out->cands[i].status == TUNER_CAND_WAITING)
				next = (int)i;
	out->next = next;
	if (ifc->in_trial)
		return 0;
	if (next >= 0) {
		const struct tuner_candidate *c = &out->cands[next];

		snprintf(out->summary, sizeof(out->summary), "next%s%s%s: %s %" PRId64 " -> %" PRId64
			 " (%s): %s",
			 c->status == TUNER_CAND_READY ? "" : " (",
			 c->status == TUNER_CAND_READY ? "" : tuner_cand_status_name(c->status),
			 c->status == TUNER_CAND_READY ? "" : ")", knob_name(c->changes[0].knob),
			 c->changes[0].from, c->changes[0].to, tuner_rule_name(c->rule), c->reason);
	} else {
		snprintf(out->summary, sizeof(out->summary), "nothing to try%s%s",
			 why[0] ? ": " : "", why);
	}
	return 0;
}

int tuner_iface_info(const struct tuner *t, int ifindex, struct tuner_iface_info *out)
{
	const struct iface *ifc = t ? iface_find(t, ifindex) : NULL;

	if (!ifc || !out)
		return ifc ? -EINVAL : -ENOENT;
	memset(out, 0, sizeof(*out));
	out->ifindex = ifc->ifindex;
	snprintf(out->ifname, sizeof(out->ifname), "%s", ifc->ifname);
	out->state = ifc->state;
	switch (ifc->state) {
	case TUNER_ST_SETTLE:
	case TUNER_ST_COOLDOWN:
		out->samples = ifc->count;
		out->needed = t->cfg.settle_samples;
		break;
	case TUNER_ST_OBSERVE:
		out->samples = ifc->trial.obs.n;
		out->needed = observe_needed(t, ifc);
		break;
	default:
		out->samples = ifc->win.n;
		out->needed = baseline_needed(t, ifc);
		break;
	}
	out->in_trial = ifc->in_trial;
	if (ifc->in_trial) {
		out->trial = ifc->trial.start;
		memcpy(out->trial.changes, ifc->trial.chg, sizeof(out->trial.changes));
		out->trial_started_ms = ifc->trial.started_ms;
	}
	memcpy(out->backoff, ifc->backoff, sizeof(out->backoff));
	memcpy(out->decisions, ifc->decisions, sizeof(out->decisions));
	return 0;
}
