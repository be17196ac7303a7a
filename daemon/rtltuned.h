/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_H
#define RTLTUNED_H

#include <json-c/json.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "rtltune/journal.h"
#include "rtltune/knob.h"
#include "stats.h"

struct probes;
struct profile;
struct chipdb;

/*
 * rtltuned's state. The daemon is one thread (loop.h), so this is one global that each
 * module reads and the owning module writes.
 */

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

/* One interface of the daemon's network namespace, keyed by ifindex (names move). */
struct iface {
	struct iface *next;
	int ifindex;
	char name[IF_NAMESIZE];
	char kind[32];	 /* IFLA_INFO_KIND; "" for hardware */
	char driver[32]; /* ethtool -i; "" unknown */
	char chip[48];	 /* chip database id; "" none */
	unsigned int flags;
	char operstate[16];
	bool lower_up;
	uint64_t first_seen_us;
	uint32_t seen_dump; /* generation of the last link dump that listed it */

	/* Selection (config interfaces/exclude/drivers/chips) and why. */
	bool managed;
	char why[160];
	bool autotune;

	/* Carrier transitions: many in a short time is a flapping link. */
	unsigned int carrier_changes;
	uint64_t last_carrier_us;

	/* The last profile application. */
	char profile[256];
	int apply_rc; /* 0 ok, negative errno */
	char apply_msg[320];
	double applied_at; /* realtime, 0 never */
	unsigned int applied_changes;
	bool apply_pending;
	uint64_t apply_due_us; /* monotonic: when the pending application runs */

	/* Current knob values as last read (LINK_UNSET unknown). */
	int64_t knob[KNOB__COUNT];
	bool knob_dirty; /* re-read at the next sample */

	uint64_t decisions[KNOB__COUNT][OUTCOME__COUNT];

	/* What the tuner needs beyond the knobs: the effective limits (kernel cut by the chip
	 * database) and quirks, read with the knobs; the counters at the previous sample;
	 * the values before the trial in progress (kept in flight in the journal). */
	int64_t gso_max, gro_max, mtu_max;
	uint32_t quirks;
	bool tuned; /* added to the tuner */
	bool tprev_valid;
	uint64_t tprev_us;
	uint64_t tprev_counter[SC__COUNT];
	uint64_t tprev_drops;
	struct rtl_hist tprev_hist[SH__COUNT];
	bool trial_which[KNOB__COUNT];
	int64_t trial_pre[KNOB__COUNT];

	struct journal_ident jid; /* identity as journaled by our last change */
	bool have_jid;
	int probe_slot; /* probes_select() slot, 0 when not counted by the probes */
	struct iface_stats stats;
};

struct rtd {
	struct rtd_config cfg;
	struct rtd_overrides ov;
	bool foreground;
	double started;	     /* realtime */
	uint64_t started_us; /* monotonic */
	bool stopping;
	unsigned int reloads; /* successful SIGHUP reloads */
	char last_reload_error[512];

	struct iface *ifaces;
	unsigned int n_ifaces;

	/* Where the counters come from: "bpf" when the probes run, else "netlink". */
	bool bpf;
	struct probes *probes;
	char bpf_error[512];

	uint64_t samples; /* sampler runs */
	uint64_t last_sample_us;
	uint64_t sample_cost_us; /* the last run's own time */
	uint64_t metrics_requests;
	uint64_t ctl_requests;
	unsigned int ctl_clients;
	uint64_t generation; /* bumped whenever something /metrics shows changed */

	/* Loaded profile for cfg.profile, or NULL (observing only / failed to load). */
	struct profile *profile;
	struct chipdb *chips;
};

extern struct rtd rtd;

/* iface.c */
struct iface *iface_by_index(int ifindex);
struct iface *iface_by_name(const char *name);
/* Re-evaluate selection of ifc under the current config; returns the new managed state. */
bool iface_select(struct iface *ifc);
void iface_remove(struct iface *ifc);
/* The interface is gone: drop what the daemon keeps about it elsewhere (probe maps,
 * journal records that can never match again). */
void iface_forget(struct iface *ifc);
/* The interface's current knob values and identity (ethtool, chip), read now. */
void iface_refresh(struct iface *ifc);
/* Schedule the configured profile on ifc after delay_us (0: at the next loop turn). */
void iface_schedule_apply(struct iface *ifc, uint64_t delay_us);
/* Run due applications; returns microseconds until the next one is due, or UINT64_MAX. */
uint64_t iface_run_pending(void);
json_object *iface_status_json(const struct iface *ifc);

/*
 * apply.c: the daemon's call sites into lib/apply.c (the code `rtltune apply` runs).
 * daemon_apply_profile() applies the configured profile (hotplug, start, reload);
 * the request variants serve the control socket and fill *out with the same document
 * `rtltune apply/restore --json` prints for one interface.
 */
int daemon_apply_profile(struct iface *ifc, struct rterr *err);
int daemon_apply_request(struct iface *ifc, const char *profile, bool dry_run, uid_t uid,
			 json_object **out, struct rterr *err);
int daemon_restore_request(struct iface *ifc, uid_t uid, json_object **out, struct rterr *err);
/* Restore every interface the daemon changed (restore_on_exit). */
void daemon_restore_all(void);
/* (Re)load cfg.profile and the chip database into rtd; keeps the old ones on error. */
int daemon_load_profile_and_chips(const struct rtd_config *cfg, struct rterr *err);

/* tune.c: the autotuner (lib/tuner.c) wired to samples, the journal and lib/apply.c. */
int tune_start(struct rterr *err);
/* Roll back trials in progress (shutdown, reconfiguration) and free the tuner. */
void tune_stop(const char *why);
/* Follow ifc: added when managed, aborted and removed when not (or gone). */
void tune_track(struct iface *ifc);
void tune_forget(struct iface *ifc);
void tune_rename(struct iface *ifc);
/* After `autotune off`: a trial in progress is rolled back now. */
void tune_autotune_changed(struct iface *ifc);
/* Host CPU time for this sample (once per sample, before the interfaces). */
void tune_sample_begin(void);
/* Feed ifc's sample (its stats are current) and act on what the tuner says. */
void tune_sample(struct iface *ifc, uint64_t now_us);
/* Operations a crash left in flight: their pre-values put back (start-up). */
void tune_recover_orphans(void);
json_object *tune_status_json(const struct iface *ifc);
json_object *tune_recommend_json(const struct iface *ifc);

/* bpf.c: the probes (lib/probes.c) as the daemon runs them. */
void bpf_start(void);
void bpf_stop(void);
/* Count (or stop counting) ifc according to ifc->managed. */
void bpf_track(struct iface *ifc);
void bpf_untrack(struct iface *ifc);
/* Read every counted interface's counters into its stats in one pass (once per sample). */
void bpf_read_all(void);
/* Whether the last bpf_read_all() filled ifc->stats; false when the probes do not count it. */
bool bpf_counted(const struct iface *ifc);
/* Refresh the probes' own run time and count (once per sample). */
void bpf_read_costs(void);
/* Probe list for status. */
json_object *bpf_status_json(void);
/* Probe i (0 .. bpf_probe_count() - 1) for /metrics; false for one not asked for. */
unsigned int bpf_probe_count(void);
bool bpf_probe_info(unsigned int i, const char **name, bool *attached, uint64_t *runs,
		    uint64_t *run_ns);

/* sampler.c */
/* Samples per window slot: the tuner's window is STAT_WINDOW_SLOTS * this many samples. */
#define SAMPLE_SLOT_SAMPLES 4
int sampler_start(void);
void sampler_stop(void);
/* Continue a sample in progress for one time slice: 0 when more remains, else
 * UINT64_MAX. The main loop calls it every turn. */
uint64_t sampler_step(void);
/* Run one sample now and wait for it (bounded): startup, tests. */
void sampler_kick(void);
/* An interface went away: memory can be handed back after the next sample. */
void sampler_note_removal(void);

#include "notify.h"

#endif
