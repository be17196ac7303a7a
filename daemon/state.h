/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_STATE_H
#define RTLTUNED_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/config.h"
#include "rtltune/err.h"

struct actuator;
struct chipdb;
struct profile;

/*
 * The daemon-wide state every module reads: the configuration in force, the profile and
 * chip database loaded for it, and the actuator (its sockets) every change goes through.
 * main.c writes the configuration (start, SIGHUP); state_load_policy() the profile and
 * chips. Everything a module owns lives in that module (docs/architecture.md).
 */
struct rtd {
	struct rtd_config cfg;
	struct rtd_overrides ov;
	bool foreground;
	double started;	     /* realtime */
	uint64_t started_us; /* monotonic */
	bool stopping;
	unsigned int reloads; /* successful SIGHUP reloads */
	char last_reload_error[512];
	/* The profile for cfg.profile, or NULL (observing only / failed to load). */
	struct profile *profile;
	struct chipdb *chips;
	struct actuator *act;
	/* Bumped whenever something /metrics shows changed: state_changed(). */
	uint64_t generation;
};

extern struct rtd rtd;

/* Something /metrics, the textfile or status shows changed. */
void state_changed(void);
/* (Re)load cfg's profile and the chip database into rtd; keeps the old ones on error. */
int state_load_policy(const struct rtd_config *cfg, struct rterr *err);
void state_free(void);

/* Outcomes of rtltune_tuning_decisions_total: profile applications, then the tuner's. */
enum decision_outcome {
	OUTCOME_APPLIED,
	OUTCOME_FAILED,
	OUTCOME_ROLLED_BACK,
	OUTCOME_KEPT,
	OUTCOME_TRIAL,
	OUTCOME_ABANDONED,
	OUTCOME_STEP,
	OUTCOME__COUNT
};
const char *decision_outcome_name(enum decision_outcome o);

#endif
