// SPDX-License-Identifier: GPL-2.0-only
/* The tuner's tunables (defaults and why: docs/tuning.md "Tunables") and names. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_priv.h"

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
		.switch_baseline = 4,
		.switch_pairs = 8,
		.false_keep = 0.05,
		.backlog_drop_share = 0.0001,
		.backlog_max = 65536,
		.squeeze_share = 0.0005,
		.budget_max = 4800,
		.budget_usecs_max = 32000,
		.spread_busy_share = 0.5,
		.spread_free_share = 0.2,
		.overrun_share = 0.0001,
		.defer_hard_irqs = 2,
		.defer_gro_flush_ns = 200000,
		.defer_max_rtt_rise = 0.1,
		.defer_min_rtt_rise_us = 50,
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
#define K(n, t, lo, hi)                                                                            \
	{                                                                                          \
#n, t, offsetof(struct tuner_config, n), lo, hi                                    \
	}
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
	K(switch_baseline, CT_UINT, 2, TUNER_MAX_WINDOW),
	K(switch_pairs, CT_UINT, 2, TUNER_MAX_WINDOW / 2),
	K(false_keep, CT_DOUBLE, 1e-6, 0.5),
	K(backlog_drop_share, CT_DOUBLE, 1e-7, 1),
	K(backlog_max, CT_I64, 64, 1 << 24),
	K(squeeze_share, CT_DOUBLE, 1e-7, 1),
	K(budget_max, CT_I64, 64, 1 << 20),
	K(budget_usecs_max, CT_I64, 100, 1000000),
	K(spread_busy_share, CT_DOUBLE, 0.05, 1),
	K(spread_free_share, CT_DOUBLE, 0, 1),
	K(overrun_share, CT_DOUBLE, 1e-7, 1),
	K(defer_hard_irqs, CT_I64, 1, 1000),
	K(defer_gro_flush_ns, CT_I64, 1000, 100000000),
	K(defer_max_rtt_rise, CT_DOUBLE, 0, 10),
	K(defer_min_rtt_rise_us, CT_DOUBLE, 0, 1000000),
#undef K
	{"backoff_initial", CT_MS, offsetof(struct tuner_config, backoff_initial_ms), 1000,
	 7 * 86400000.0},
	{"backoff_max", CT_MS, offsetof(struct tuner_config, backoff_max_ms), 1000,
	 30 * 86400000.0},
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

/* A field as a double (every value a tunable may hold is exact in one) and back. */
static double key_get(const struct tuner_config *c, const struct cfg_key *k)
{
	const void *p = (const unsigned char *)c + k->off;
	unsigned int u;
	int64_t i;
	uint64_t ms;
	double d;

	switch (k->type) {
	case CT_UINT:
		memcpy(&u, p, sizeof(u));
		return u;
	case CT_I64:
		memcpy(&i, p, sizeof(i));
		return (double)i;
	case CT_MS:
		memcpy(&ms, p, sizeof(ms));
		return (double)ms;
	default:
		memcpy(&d, p, sizeof(d));
		return d;
	}
}

static void key_put(struct tuner_config *c, const struct cfg_key *k, double v)
{
	void *p = (unsigned char *)c + k->off;
	unsigned int u = (unsigned int)v;
	int64_t i = (int64_t)v;
	uint64_t ms = (uint64_t)v;

	switch (k->type) {
	case CT_UINT:
		memcpy(p, &u, sizeof(u));
		break;
	case CT_I64:
		memcpy(p, &i, sizeof(i));
		break;
	case CT_MS:
		memcpy(p, &ms, sizeof(ms));
		break;
	default:
		memcpy(p, &v, sizeof(v));
		break;
	}
}

int tuner_config_set(struct tuner_config *cfg, const char *key, const char *value,
		     struct rterr *err)
{
	const struct cfg_key *k = cfg_key_find(key);
	char *end;
	double v, mult = 1;

	if (!k) {
		char names[768] = "";
		size_t used = 0;
		unsigned int i;

		/* The settings there are, as the daemon's own keys are listed. */
		for (i = 0; i < N_CFG_KEYS && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 i ? ", " : "", cfg_keys[i].name);
		return rterr_input(err, "unknown tuner setting '%s' (expected one of %s)", key,
				   names);
	}
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
	key_put(cfg, k, v);
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
	double v;

	if (!k)
		return -ENOENT;
	v = key_get(cfg, k);
	if (k->type == CT_DOUBLE)
		snprintf(buf, len, "%g", v);
	else if (k->type != CT_MS)
		snprintf(buf, len, "%.0f", v);
	else if (fmod(v, 1000))
		snprintf(buf, len, "%.0fms", v);
	else
		snprintf(buf, len, "%.0fs", v / 1000);
	return 0;
}

int tuner_config_check(const struct tuner_config *c, struct rterr *err)
{
	unsigned int i;

	for (i = 0; i < N_CFG_KEYS; i++) {
		const struct cfg_key *k = &cfg_keys[i];
		double v = key_get(c, k);

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
	if (c->switch_pairs * c->judge_slowly_factor > TUNER_MAX_PAIRS)
		return rterr_input(err, "tuner switch_pairs %u x judge_slowly_factor %u exceed %d",
				   c->switch_pairs, c->judge_slowly_factor, TUNER_MAX_PAIRS);
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
		[TUNER_RULE_BACKLOG] = "backlog-drops", [TUNER_RULE_SQUEEZE] = "time-squeeze",
		[TUNER_RULE_RX_SPREAD] = "rx-spread", [TUNER_RULE_RING_OVERRUNS] = "ring-overruns",
		[TUNER_RULE_NAPI_DEFER] = "napi-defer",
	};
	return (unsigned int)r < TUNER_RULE__COUNT ? names[r] : "?";
}

bool tuner_rule_for_host(enum tuner_rule r)
{
	return r == TUNER_RULE_BACKLOG || r == TUNER_RULE_SQUEEZE;
}

bool tuner_rule_is_fix(enum tuner_rule r)
{
	return r == TUNER_RULE_GSO_FAULTS || r == TUNER_RULE_TSO_FAULTS ||
	       r == TUNER_RULE_RING_OVERRUNS || r == TUNER_RULE_BACKLOG || r == TUNER_RULE_SQUEEZE;
}

const char *tuner_dir_name(enum tuner_dir d)
{
	return d == TUNER_UP ? "up" : "down";
}

const char *tuner_outcome_name(enum tuner_action_kind k)
{
	static const char *const names[TUNER_ACTION__COUNT] = {
		[TUNER_NONE] = "none",	       [TUNER_START_TRIAL] = "trial",
		[TUNER_KEEP] = "kept",	       [TUNER_ROLLBACK] = "rolled_back",
		[TUNER_ABANDON] = "abandoned", [TUNER_FAILED] = "failed",
		[TUNER_STEP] = "step",
	};
	return (unsigned int)k < TUNER_ACTION__COUNT ? names[k] : "?";
}

const char *tuner_state_name(enum tuner_state s)
{
	static const char *const names[TUNER_ST__COUNT] = {
		[TUNER_ST_IDLE] = "idle",	  [TUNER_ST_BASELINE] = "baseline",
		[TUNER_ST_APPLYING] = "applying", [TUNER_ST_SETTLE] = "settle",
		[TUNER_ST_OBSERVE] = "observe",	  [TUNER_ST_ROLLING_BACK] = "rolling_back",
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
