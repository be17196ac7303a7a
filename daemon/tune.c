// SPDX-License-Identifier: GPL-2.0-only
/*
 * The autotuner wired into the daemon (docs/tuning.md): lib/tuner.c decides, this file
 * feeds it one sample per managed interface per sample interval and carries out what it
 * says through lib/apply.c, keeping a trial's pre-values in flight in the journal until the
 * verdict, so that a crash mid-trial is rolled back at the next start.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "rtltune/apply.h"
#include "rtltune/tuner.h"
#include "rtltuned.h"

#define TUNE_LOCK_WAIT_MS 300

static struct tuner *tuner;
static uint64_t cpu_ns_delta, cpu_ns_prev;

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

static enum decision_outcome outcome_of(enum tuner_action_kind k)
{
	switch (k) {
	case TUNER_START_TRIAL:
		return OUTCOME_TRIAL;
	case TUNER_KEEP:
		return OUTCOME_KEPT;
	case TUNER_ROLLBACK:
		return OUTCOME_ROLLED_BACK;
	case TUNER_ABANDON:
		return OUTCOME_ABANDONED;
	case TUNER_STEP:
		return OUTCOME_STEP;
	default:
		return OUTCOME_FAILED;
	}
}

/* One decision: counted, logged, and appended to the journal's decision log. */
static void record(struct iface *ifc, const struct tuner_action *a)
{
	struct journal_event ev = {0};
	struct journal *j = NULL;
	struct rterr err = {0};
	char from[24], to[24];

	if (!(a->kind == TUNER_ROLLBACK && a->retry))
		ifc->decisions[a->knob][outcome_of(a->kind)]++;
	rtd.generation++;
	/* knob_value_str() returns "on"/"off" for a feature without touching the buffer. */
	dlog(LOG_NOTICE, ifc->name, "tuner %s %s %s -> %s: %s", tuner_outcome_name(a->kind),
	     knob_name(a->knob),
	     knob_value_str(a->knob, a->n_changes ? a->changes[0].from : LINK_UNSET, from,
			    sizeof(from)),
	     knob_value_str(a->knob, a->n_changes ? a->changes[0].to : LINK_UNSET, to, sizeof(to)),
	     a->reason);
	if (journal_open_timeout(rtd.cfg.state_dir, TUNE_LOCK_WAIT_MS, &j, &err) < 0)
		return;
	ev.ifname = ifc->name;
	ev.knob = (int)a->knob;
	ev.old_value = a->n_changes ? a->changes[0].from : JOURNAL_NO_VALUE;
	ev.new_value = a->n_changes ? a->changes[0].to : JOURNAL_NO_VALUE;
	ev.outcome = tuner_outcome_name(a->kind);
	ev.reason = a->reason;
	ev.actor = "daemon";
	journal_log_append(j, &ev, &err);
	journal_close(j);
}

/*
 * Set the action's values. A trial (START_TRIAL, STEP) stays in flight in the journal with
 * the pre-trial values after apply_execute() ended its own record; a ROLLBACK ends it.
 */
static bool set_values(struct iface *ifc, const struct tuner_action *a)
{
	struct apply_opts opts = {
		.op = "trial", .actor = "daemon", .reason = a->reason, .journal_originals = true};
	int64_t targets[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {0};
	const struct chip_entry *chip;
	struct journal_ident id;
	struct journal *j = NULL;
	struct rterr err = {0};
	struct plan plan;
	struct nic nic;
	unsigned int i;
	int r, k;

	for (i = 0; i < a->n_changes; i++) {
		targets[a->changes[i].knob] = a->changes[i].to;
		which[a->changes[i].knob] = true;
	}
	r = nic_snapshot("/sys", ifc->name, &nic, &err);
	if (r == 0 && journal_ident_read(ifc->name, &id, &err) < 0)
		r = -ENODEV;
	if (r < 0)
		goto fail;
	chip = rtd.chips ? chipdb_match_nic(rtd.chips, &nic, NULL) : NULL;
	if (a->kind == TUNER_START_TRIAL) {
		memset(ifc->trial_which, 0, sizeof(ifc->trial_which));
		for (k = 0; k < KNOB__COUNT; k++)
			ifc->trial_pre[k] = nic_knob_value(&nic, (enum knob_id)k);
	}
	if (a->kind != TUNER_ROLLBACK)
		for (k = 0; k < KNOB__COUNT; k++)
			ifc->trial_which[k] |= which[k];
	r = apply_plan_values(&nic, chip, targets, which, "tuner", &plan, &err);
	if (r < 0)
		goto fail;
	r = journal_open_timeout(rtd.cfg.state_dir, TUNE_LOCK_WAIT_MS, &j, &err);
	if (r < 0)
		goto fail;
	/* Until the verdict the trial stays in flight (apply_execute() began it with the
	 * pre-trial values; a step adds its knobs): a crash now is rolled back to them at the
	 * next start. A rollback ends it. */
	opts.keep_inflight = a->kind != TUNER_ROLLBACK;
	r = apply_execute(j, "/sys", &plan, &opts, &err);
	if (r < 0 && journal_inflight_get(j, &id, &(struct journal_inflight){0}) == 0) {
		struct rterr e = {0};

		/* The failed run was undone and ended the record, but the trial's earlier
		 * values may still be on the device until the tuner's rollback succeeds. */
		if (journal_inflight_begin(j, &id, "trial", "daemon", ifc->trial_pre,
					   ifc->trial_which, &e) < 0)
			dlog(LOG_WARNING, ifc->name, "trial not journaled in flight: %s", e.msg);
	}
	journal_close(j);
	iface_refresh(ifc);
	if (r < 0)
		goto fail;
	return true;
fail:
	dlog(LOG_WARNING, ifc->name, "tuner: %s", err.msg);
	return false;
}

static void end_inflight(struct iface *ifc)
{
	struct journal_ident id;
	struct journal *j = NULL;
	struct rterr err = {0};

	if (journal_ident_read(ifc->name, &id, &err) < 0)
		return;
	if (journal_open_timeout(rtd.cfg.state_dir, TUNE_LOCK_WAIT_MS, &j, &err) < 0) {
		dlog(LOG_WARNING, ifc->name, "tuner: %s", err.msg);
		return;
	}
	journal_inflight_end(j, &id, NULL);
	journal_close(j);
}

/* Carry out an action and the ones that follow from its result. */
static void act(struct iface *ifc, struct tuner_action *a)
{
	unsigned int rounds;

	for (rounds = 0; a->kind != TUNER_NONE && rounds < 8; rounds++) {
		struct tuner_action next = {0};
		bool ok;

		record(ifc, a);
		switch (a->kind) {
		case TUNER_START_TRIAL:
		case TUNER_STEP:
		case TUNER_ROLLBACK:
			ok = set_values(ifc, a);
			if (tuner_applied(tuner, ifc->ifindex, ok, now_ms(), &next) < 0)
				return;
			*a = next;
			continue;
		case TUNER_KEEP:
		case TUNER_ABANDON:
			end_inflight(ifc);
			break;
		default:
			break;
		}
		break;
	}
}

void tune_track(struct iface *ifc)
{
	if (!tuner)
		return;
	if (ifc->managed && !ifc->tuned) {
		if (tuner_iface_add(tuner, ifc->ifindex, ifc->name) == 0)
			ifc->tuned = true;
		ifc->tprev_valid = false;
	} else if (!ifc->managed && ifc->tuned) {
		struct tuner_action a = {0};

		if (tuner_abort(tuner, ifc->ifindex, now_ms(), "no longer managed", &a) == 0)
			act(ifc, &a);
		tuner_iface_remove(tuner, ifc->ifindex);
		ifc->tuned = false;
	}
}

void tune_forget(struct iface *ifc)
{
	/* Gone: nothing to roll back on it; the journal entry goes with iface_forget(). */
	if (tuner && ifc->tuned)
		tuner_iface_remove(tuner, ifc->ifindex);
	ifc->tuned = false;
}

void tune_rename(struct iface *ifc)
{
	if (tuner && ifc->tuned)
		tuner_iface_rename(tuner, ifc->ifindex, ifc->name);
}

void tune_autotune_changed(struct iface *ifc)
{
	struct tuner_action a = {0};

	if (!tuner || !ifc->tuned || ifc->autotune)
		return;
	if (tuner_abort(tuner, ifc->ifindex, now_ms(), "autotune off", &a) == 0)
		act(ifc, &a);
}

void tune_sample_begin(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	static long hz;
	uint64_t ns;
	FILE *f;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	f = fopen("/proc/stat", "re");
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait,
		   &irq, &softirq) == 7) {
		/* Kernel time of all CPUs: where the network stack's cost shows. */
		ns = (sys + irq + softirq) * (1000000000ULL / (uint64_t)hz);
		cpu_ns_delta = cpu_ns_prev && ns >= cpu_ns_prev ? ns - cpu_ns_prev : 0;
		cpu_ns_prev = ns;
	}
	fclose(f);
}

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : now;
}

/* Values at or near the cap: in the log2 bucket holding cap or above it. */
static uint64_t at_cap(const struct rtl_hist *h, int64_t cap)
{
	if (cap <= 0)
		return 0;
	return hist_count_above(h, hist_bucket_le(hist_bucket_index((uint64_t)cap)) / 2);
}

void tune_sample(struct iface *ifc, uint64_t now)
{
	const struct iface_stats *st = &ifc->stats;
	struct tuner_sample s = {0};
	struct tuner_env env = {0};
	struct tuner_action a = {0};
	struct rtl_hist d[SH__COUNT];
	uint64_t drops = 0;
	unsigned int i;
	int k;

	if (!tuner || !ifc->tuned)
		return;
	for (i = 0; i < st->n_drops; i++)
		drops += st->drops[i].count;
	if (ifc->tprev_valid) {
		for (i = 0; i < SH__COUNT; i++)
			hist_delta(&d[i], &st->hist[i], &ifc->tprev_hist[i]);
		s.ts_ms = now / 1000;
		s.interval_ms = (uint32_t)((now - ifc->tprev_us) / 1000);
		s.tx_packets = delta(st->counter[SC_TX_PACKETS], ifc->tprev_counter[SC_TX_PACKETS]);
		s.tx_bytes = delta(st->counter[SC_TX_BYTES], ifc->tprev_counter[SC_TX_BYTES]);
		s.rx_packets = delta(st->counter[SC_RX_PACKETS], ifc->tprev_counter[SC_RX_PACKETS]);
		s.rx_bytes = delta(st->counter[SC_RX_BYTES], ifc->tprev_counter[SC_RX_BYTES]);
		s.cpu_ns = cpu_ns_delta;
		s.have = TUNER_HAVE_CPU;
		if (st->have_hist) {
			s.have |= TUNER_HAVE_GSO | TUNER_HAVE_GRO | TUNER_HAVE_RETRANS |
				  TUNER_HAVE_DROPS | TUNER_HAVE_TX_FAULTS;
			s.tx_gso_skbs = hist_count(&d[SH_TX_GSO_SEGMENTS]);
			/* A GSO skb leaves as gso_segs segments, any other as one. */
			s.tx_segs = s.tx_packets -
				    (s.tx_gso_skbs <= s.tx_packets ? s.tx_gso_skbs : 0) +
				    d[SH_TX_GSO_SEGMENTS].sum;
			s.tx_gso_at_cap = at_cap(&d[SH_TX_SKB_BYTES], ifc->knob[KNOB_GSO_MAX_SIZE]);
			if (s.tx_gso_at_cap > s.tx_gso_skbs)
				s.tx_gso_at_cap = s.tx_gso_skbs;
			s.rx_skbs = hist_count(&d[SH_RX_SKB_BYTES]);
			s.rx_gro_at_cap = at_cap(&d[SH_RX_SKB_BYTES], ifc->knob[KNOB_GRO_MAX_SIZE]);
			/* Segments, not retransmit events: after a loss TCP resends a whole GSO
			 * skb (up to 45 segments at 64K), so events per segment sent understate
			 * the loss (0.16% counted where TcpRetransSegs/OutSegs said 5.2%). */
			s.tcp_retransmits = delta(st->counter[SC_TCP_RETRANSMIT_SEGMENTS],
						  ifc->tprev_counter[SC_TCP_RETRANSMIT_SEGMENTS]);
			s.tcp_retransmit_skbs = delta(st->counter[SC_TCP_RETRANSMITS],
						      ifc->tprev_counter[SC_TCP_RETRANSMITS]);
			s.drops = delta(drops, ifc->tprev_drops);
			s.tx_busy = delta(st->counter[SC_TX_BUSY], ifc->tprev_counter[SC_TX_BUSY]);
			s.tx_timeouts = delta(st->counter[SC_TX_TIMEOUTS],
					      ifc->tprev_counter[SC_TX_TIMEOUTS]);
		} else {
			s.tx_segs = s.tx_packets;
		}
	}
	memcpy(ifc->tprev_hist, st->hist, sizeof(ifc->tprev_hist));
	memcpy(ifc->tprev_counter, st->counter, sizeof(ifc->tprev_counter));
	ifc->tprev_drops = drops;
	ifc->tprev_us = now;
	if (!ifc->tprev_valid) {
		ifc->tprev_valid = true;
		return;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		env.knob[k] = ifc->knob[k];
		env.pinned[k] = rtd.cfg.pin[k];
	}
	env.gso_max = ifc->gso_max;
	env.gro_max = ifc->gro_max;
	env.mtu_max = ifc->mtu_max;
	env.allowed_mtu_min = rtd.cfg.allowed_mtu_min;
	env.allowed_mtu_max = rtd.cfg.allowed_mtu_max;
	env.quirks = ifc->quirks;
	env.autotune = ifc->autotune;
	if (tuner_feed(tuner, ifc->ifindex, &s, &env, now / 1000, &a) == 0)
		act(ifc, &a);
}

int tune_start(struct rterr *err)
{
	struct iface *ifc;
	int r;

	r = tuner_new(&rtd.cfg.tuner, &tuner, err);
	if (r < 0)
		return r;
	for (ifc = rtd.ifaces; ifc; ifc = ifc->next)
		tune_track(ifc);
	return 0;
}

void tune_stop(const char *why)
{
	struct iface *ifc;

	if (!tuner)
		return;
	for (ifc = rtd.ifaces; ifc; ifc = ifc->next) {
		struct tuner_action a = {0};

		if (!ifc->tuned)
			continue;
		if (tuner_abort(tuner, ifc->ifindex, now_ms(), why, &a) == 0)
			act(ifc, &a);
		ifc->tuned = false;
	}
	tuner_free(tuner);
	tuner = NULL;
}

/*
 * Every knob the operation touched is at its journaled original: a restore ran after the
 * operation died but could not clear its record (an unwritable state dir: docs/journal.md).
 * Rolling back to the operation's pre-values would undo that restore. Either nothing of
 * the operation is left on the device or a restore came after it; in both cases there is
 * nothing to roll back. Any knob away from its original (or not readable) says roll back.
 */
static bool at_originals(struct journal *j, const struct iface *ifc,
			 const struct journal_inflight *op)
{
	int64_t orig[KNOB__COUNT];
	bool have[KNOB__COUNT];
	struct rterr err = {0};
	struct nic nic;
	int k;

	if (journal_get_originals(j, &op->id, orig, have, &err) <= 0)
		return false;
	if (nic_snapshot("/sys", ifc->name, &nic, &err) < 0)
		return false;
	for (k = 0; k < KNOB__COUNT; k++) {
		int64_t cur;

		if (!op->which[k])
			continue;
		cur = nic_knob_value(&nic, (enum knob_id)k);
		if (!have[k] || cur == LINK_UNSET || cur != orig[k])
			return false;
	}
	return true;
}

/*
 * journal.h: an operation whose process is gone must be rolled back (its pre-values set)
 * before anything else touches the device. A trial the daemon was running when it was
 * killed is the common case; an `rtltune apply` killed mid-way is handled the same way.
 */
void tune_recover_orphans(void)
{
	const struct journal_inflight *ops;
	struct journal *j = NULL;
	struct rterr err = {0};
	struct iface *ifc;
	int n, i, k;

	if (journal_open_timeout(rtd.cfg.state_dir, TUNE_LOCK_WAIT_MS, &j, &err) < 0)
		return;
	n = journal_inflight_list(j, &ops);
	for (i = 0; i < n; i++) {
		struct journal_inflight op = ops[i];
		struct journal_event ev = {0};
		struct journal_ident id;
		bool failed = false;

		if (!op.orphaned)
			continue;
		for (ifc = rtd.ifaces; ifc; ifc = ifc->next)
			if (journal_ident_read(ifc->name, &id, NULL) == 0 &&
			    journal_ident_same(&op.id, &id))
				break;
		if (!ifc)
			continue; /* not here (another netns, unplugged): left for later */
		if (at_originals(j, ifc, &op)) {
			if (journal_inflight_end(j, &op.id, &err) < 0) {
				/* Kept in memory as on disk: the next start tries again. */
				dlog(LOG_ERR, ifc->name, "ending an interrupted %s: %s", op.op,
				     err.msg);
				continue;
			}
			dlog(LOG_NOTICE, ifc->name,
			     "the %s that was in flight when %s (pid %d) stopped left nothing to "
			     "roll back: every knob it touched is at its original",
			     op.op, op.actor, (int)op.pid);
			n = journal_inflight_list(j, &ops);
			i = -1;
			continue;
		}
		for (k = 0; k < KNOB__COUNT; k++) {
			if (!op.which[k])
				continue;
			if (apply_knob_set(ifc->name, ifc->ifindex, (enum knob_id)k, op.pre[k],
					   &err) < 0) {
				dlog(LOG_ERR, ifc->name, "rolling back an interrupted %s: %s",
				     op.op, err.msg);
				failed = true;
			}
		}
		if (failed)
			continue;
		if (journal_inflight_end(j, &op.id, &err) < 0) {
			/* Rolled back; the record stays (memory as on disk) and the next start
			 * sets the same pre-values again, which changes nothing. */
			dlog(LOG_ERR, ifc->name, "ending an interrupted %s: %s", op.op, err.msg);
			continue;
		}
		dlog(LOG_NOTICE, ifc->name,
		     "rolled back the %s that was in flight when %s (pid %d) "
		     "stopped",
		     op.op, op.actor, (int)op.pid);
		ev.ifname = ifc->name;
		ev.knob = -1;
		ev.old_value = ev.new_value = JOURNAL_NO_VALUE;
		ev.outcome = "rolled_back";
		ev.reason = strcmp(op.op, "trial") == 0
				    ? "trial in flight when the daemon stopped"
				    : "operation in flight when its process stopped";
		ev.actor = "daemon";
		journal_log_append(j, &ev, NULL);
		ifc->knob_dirty = true;
		/* journal_inflight_list()'s array is invalid after a change: list again. */
		n = journal_inflight_list(j, &ops);
		i = -1;
	}
	journal_close(j);
}

static json_object *changes_json(const struct tuner_change *c, unsigned int n)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "knob", json_object_new_string(knob_name(c[i].knob)));
		json_object_object_add(o, "from", json_object_new_int64(c[i].from));
		json_object_object_add(o, "to", json_object_new_int64(c[i].to));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *tune_status_json(const struct iface *ifc)
{
	struct tuner_iface_info info;
	json_object *o;

	if (!tuner || !ifc->tuned || tuner_iface_info(tuner, ifc->ifindex, &info) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(info.state)));
	json_object_object_add(o, "samples", json_object_new_int((int)info.samples));
	json_object_object_add(o, "needed", json_object_new_int((int)info.needed));
	if (info.in_trial) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "rule",
				       json_object_new_string(tuner_rule_name(info.trial.rule)));
		json_object_object_add(t, "knob",
				       json_object_new_string(knob_name(info.trial.knob)));
		json_object_object_add(t, "changes",
				       changes_json(info.trial.changes, info.trial.n_changes));
		json_object_object_add(t, "reason", json_object_new_string(info.trial.reason));
		json_object_object_add(o, "trial", t);
	} else {
		json_object_object_add(o, "trial", NULL);
	}
	return o;
}

json_object *tune_recommend_json(const struct iface *ifc)
{
	struct tuner_recommendation rec;
	json_object *o, *cands;
	unsigned int i;

	if (!tuner || !ifc->tuned || tuner_recommend(tuner, ifc->ifindex, now_ms(), &rec) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(rec.state)));
	json_object_object_add(o, "samples", json_object_new_int((int)rec.samples));
	json_object_object_add(o, "needed", json_object_new_int((int)rec.needed));
	json_object_object_add(o, "summary", json_object_new_string(rec.summary));
	cands = json_object_new_array();
	for (i = 0; i < TUNER_RULE__COUNT; i++) {
		const struct tuner_candidate *c = &rec.cands[i];
		json_object *co = json_object_new_object();

		json_object_object_add(co, "rule",
				       json_object_new_string(tuner_rule_name(c->rule)));
		json_object_object_add(co, "status",
				       json_object_new_string(tuner_cand_status_name(c->status)));
		json_object_object_add(co, "knob", json_object_new_string(knob_name(c->knob)));
		json_object_object_add(co, "dir", json_object_new_string(tuner_dir_name(c->dir)));
		json_object_object_add(co, "changes", changes_json(c->changes, c->n_changes));
		json_object_object_add(co, "reason", json_object_new_string(c->reason));
		json_object_object_add(co, "next", json_object_new_boolean((int)i == rec.next));
		json_object_array_add(cands, co);
	}
	json_object_object_add(o, "candidates", cands);
	return o;
}
