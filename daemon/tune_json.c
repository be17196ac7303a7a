// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's state per interface as status and recommend show it (tune_json.h): its
 * state, the samples it has and needs, the trial in progress, and each rule's candidate.
 */
#include "loop.h"
#include "rtltune/actuate.h"
#include "rtltune/nic.h"
#include "tune_host.h"
#include "tune.h"
#include "tune_json.h"

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
	const struct tuner *tuner = tune_tuner();
	struct tuner_iface_info info;
	json_object *o, *r;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned ||
	    tuner_iface_info(tuner, ifc->ifindex, &info) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(info.state)));
	json_object_object_add(o, "paused_by",
			       ifc->m->tune.paused ? json_object_new_string(tune_paused_by(ifc))
						   : NULL);
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
	r = json_object_new_object();
	json_object_object_add(r, "counted", json_object_new_uint64(ifc->m->tune.retrans_segs));
	json_object_object_add(r, "spurious",
			       json_object_new_uint64(ifc->m->tune.retrans_spurious));
	json_object_object_add(o, "retransmit_segments", r);
	return o;
}

/* A recommendation of the tuner's: state, samples, summary and the candidates of the
 * rules that apply (the host's on the host, a device's on a device). */
static json_object *recommendation_json(const struct tuner_recommendation *rec, bool host)
{
	json_object *o, *cands;
	unsigned int i;

	o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(tuner_state_name(rec->state)));
	json_object_object_add(o, "samples", json_object_new_int((int)rec->samples));
	json_object_object_add(o, "needed", json_object_new_int((int)rec->needed));
	json_object_object_add(o, "summary", json_object_new_string(rec->summary));
	cands = json_object_new_array();
	for (i = 0; i < TUNER_RULE__COUNT; i++) {
		const struct tuner_candidate *c = &rec->cands[i];
		json_object *co;

		if (tuner_rule_for_host(c->rule) != host)
			continue;
		co = json_object_new_object();
		json_object_object_add(co, "rule",
				       json_object_new_string(tuner_rule_name(c->rule)));
		json_object_object_add(co, "status",
				       json_object_new_string(tuner_cand_status_name(c->status)));
		json_object_object_add(co, "knob", json_object_new_string(knob_name(c->knob)));
		json_object_object_add(co, "dir", json_object_new_string(tuner_dir_name(c->dir)));
		json_object_object_add(co, "changes", changes_json(c->changes, c->n_changes));
		json_object_object_add(co, "reason", json_object_new_string(c->reason));
		json_object_object_add(co, "next", json_object_new_boolean((int)i == rec->next));
		json_object_array_add(cands, co);
	}
	json_object_object_add(o, "candidates", cands);
	return o;
}

json_object *tune_recommend_json(const struct iface *ifc)
{
	const struct tuner *tuner = tune_tuner();
	struct tuner_recommendation rec;
	struct tuner_env env;

	if (!tuner || !ifc->m || !ifc->m->tune.tuned)
		return NULL;
	/* A resting interface's environment is the one its next sample would give. */
	tune_env(ifc, &env);
	if (tuner_recommend_env(tuner, ifc->ifindex, &env, now_us() / 1000, &rec) < 0)
		return NULL;
	return recommendation_json(&rec, false);
}

json_object *tune_host_recommend_json(void)
{
	const struct tuner *tuner = tune_tuner();
	struct tuner_recommendation rec;

	if (!tuner || !tune_host_tracked(NULL) ||
	    tuner_recommend(tuner, TUNER_HOST, now_us() / 1000, &rec) < 0)
		return NULL;
	return recommendation_json(&rec, true);
}

/* The host's part of status: the host-wide knobs as read now (null where this daemon
 * cannot read them) and its tuner state, or why the host is not tuned. */
void tune_host_status_json(json_object *host)
{
	const struct tuner *tuner = tune_tuner();
	json_object *knobs = json_object_new_object(), *o;
	struct tuner_iface_info info;
	const char *why = "";
	struct nic snap;
	int k;

	/* No actuator (the control socket's fuzzer): nothing of the host is read. */
	for (k = 0; k < KNOB__COUNT; k++)
		snap.val[k] = LINK_UNSET;
	if (rtd.act)
		actuator_host_snapshot(rtd.act, &snap);
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++)
		json_object_object_add(knobs, knob_name((enum knob_id)k),
				       snap.val[k] != LINK_UNSET ? json_object_new_int64(snap.val[k])
								 : NULL);
	json_object_object_add(host, "knobs", knobs);
	if (!tuner || !tune_host_tracked(&why) ||
	    tuner_iface_info(tuner, TUNER_HOST, &info) < 0) {
		o = json_object_new_object();
		json_object_object_add(o, "state", json_object_new_string("off"));
		json_object_object_add(o, "why",
				       json_object_new_string(!tuner ? "autotune is off" : why));
		json_object_object_add(o, "trial", NULL);
		json_object_object_add(host, "tuner", o);
		return;
	}
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
	json_object_object_add(host, "tuner", o);
}
