// SPDX-License-Identifier: GPL-2.0-only
/* Control requests: each builds the JSON document the CLI prints (docs/control-protocol.md). */
#include <errno.h>
#include <json-c/printbuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applier.h"
#include "bpf.h"
#include "ctl.h"
#include "handlers.h"
#include "history.h"
#include "http.h"
#include "iface.h"
#include "log.h"
#include "linkmon.h"
#include "loop.h"
#include "metrics.h"
#include "outside.h"
#include "pmqos.h"
#include "recommend.h"
#include "rtltune/actuate.h"
#include "rtltune/link.h"
#include "rtltune/netns.h"
#include "rtltune/profile.h"
#include "sampler.h"
#include "signals.h"
#include "trust.h"
#include "tune.h"
#include "tune_json.h"

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

static const char *req_str(json_object *req, const char *key)
{
	json_object *o;

	if (!json_object_object_get_ex(req, key, &o) || !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

static int req_bool(json_object *req, const char *key, int dflt)
{
	json_object *o;

	if (!json_object_object_get_ex(req, key, &o))
		return dflt;
	return json_object_get_boolean(o);
}

static json_object *strv_json(const struct strv *sv)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < sv->n; i++)
		json_object_array_add(a, json_object_new_string(sv->v[i]));
	return a;
}

static json_object *opt_str(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

/* The interface a request names, or NULL with err set (unknown name: input error). */
static struct iface *req_iface(json_object *req, bool required, struct rterr *err)
{
	const char *name = req_str(req, "iface");
	struct iface *ifc;

	if (!name) {
		if (required)
			rterr_input(err, "missing \"iface\"");
		return NULL;
	}
	ifc = iface_by_name(name);
	if (!ifc)
		rterr_input(err, "no such interface: %s (not in rtltuned's network namespace)",
			    name);
	return ifc;
}

static json_object *h_hello(struct ctl_request_ctx *rc, struct rterr *err)
{
	json_object *o = json_object_new_object();
	struct stat st;

	json_object_object_add(o, "daemon", json_object_new_string("rtltuned"));
	json_object_object_add(o, "version", json_object_new_string(RTLTUNE_VERSION));
	json_object_object_add(o, "protocol", json_object_new_int(CONTROL_PROTO_VERSION));
	json_object_object_add(o, "uid", json_object_new_int((int)rc->peer->uid));
	json_object_object_add(o, "may_change", json_object_new_boolean(rc->peer->may_change));
	/* The CLI routes apply/restore here only when both see the same links. */
	if (stat("/proc/self/ns/net", &st) == 0)
		json_object_object_add(o, "netns", json_object_new_int64((int64_t)st.st_ino));
	return o;
}

static json_object *daemon_json(void)
{
	const struct rtd_config *c = &rtd.cfg;
	json_object *d = json_object_new_object();

	json_object_object_add(d, "version", json_object_new_string(RTLTUNE_VERSION));
	json_object_object_add(d, "protocol", json_object_new_int(CONTROL_PROTO_VERSION));
	json_object_object_add(d, "pid", json_object_new_int(getpid()));
	json_object_object_add(d, "started", json_object_new_double(rtd.started));
	json_object_object_add(d, "uptime_seconds",
			       json_object_new_double((double)(now_us() - rtd.started_us) / 1e6));
	json_object_object_add(d, "config", opt_str(c->path));
	json_object_object_add(d, "profile", opt_str(c->profile));
	json_object_object_add(d, "profile_loaded", json_object_new_boolean(rtd.profile != NULL));
	json_object_object_add(d, "autotune", json_object_new_boolean(c->autotune));
	json_object_object_add(d, "interfaces", strv_json(&c->interfaces));
	json_object_object_add(d, "namespaces", strv_json(&c->namespaces));
	json_object_object_add(d, "exclude", strv_json(&c->exclude));
	json_object_object_add(d, "drivers", strv_json(&c->drivers));
	json_object_object_add(d, "chips", strv_json(&c->chips));
	json_object_object_add(d, "socket", json_object_new_string(c->socket));
	json_object_object_add(d, "socket_group", json_object_new_string(c->socket_group));
	json_object_object_add(d, "metrics", opt_str(c->metrics));
	json_object_object_add(d, "textfile", opt_str(c->textfile));
	json_object_object_add(d, "sample_interval_seconds",
			       json_object_new_double((double)c->sample_interval_us / 1e6));
	json_object_object_add(d, "restore_on_exit", json_object_new_boolean(c->restore_on_exit));
	json_object_object_add(d, "tune_host", json_object_new_boolean(c->tune_host));
	json_object_object_add(d, "state_dir", json_object_new_string(c->state_dir));
	json_object_object_add(d, "reloads", json_object_new_int((int)rtd.reloads));
	json_object_object_add(d, "last_reload_error", opt_str(rtd.last_reload_error));
	json_object_object_add(d, "source",
			       json_object_new_string(bpf_active() ? "bpf" : "netlink"));
	/* How rings, coalescing, channels, pause and features are read and set. */
	json_object_object_add(d, "ethtool_path",
			       rtd.act ? json_object_new_string(nic_io_path(actuator_io(rtd.act)))
				       : NULL);
	json_object_object_add(d, "probes_setting",
			       json_object_new_string(c->probes ? "on" : "off"));
	json_object_object_add(d, "bpf_error", opt_str(bpf_error()));
	json_object_object_add(d, "probes", bpf_status_json());
	json_object_object_add(d, "pm_qos", pmqos_status_json());
	json_object_object_add(d, "samples", json_object_new_uint64(sampler_samples()));
	json_object_object_add(d, "sample_cost_seconds",
			       json_object_new_double((double)sampler_cost_us() / 1e6));
	/* Full link dumps so far: the first one, then only resynchronisations after lost
	 * events (a healthy monitor keeps the table from events alone). */
	json_object_object_add(d, "link_dumps", json_object_new_uint64(linkmon_dumps()));
	json_object_object_add(d, "clients", json_object_new_int((int)ctl_client_count()));
	json_object_object_add(d, "metrics_requests", json_object_new_uint64(http_request_count()));
	return d;
}

/* Interfaces sorted by ifindex: the table is a list in arrival order. */
static unsigned int sorted_ifaces(struct iface **out, unsigned int max)
{
	unsigned int n = 0, i, j;
	struct iface *ifc;

	for (ifc = iface_first(); ifc && n < max; ifc = ifc->next)
		out[n++] = ifc;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && out[j - 1]->ifindex > out[j]->ifindex; j--) {
			struct iface *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

#define MAX_LIST 4096
static struct iface *list_buf[MAX_LIST];

/* What status, stats and recommend list, by ifindex, into list_buf: the interface the
 * request names (only), else every one (status) or the managed ones. */
static unsigned int listed_ifaces(const struct iface *only, bool managed_only)
{
	unsigned int i, n = 0, all = sorted_ifaces(list_buf, MAX_LIST);

	for (i = 0; i < all; i++)
		if (only ? list_buf[i] == only : !managed_only || list_buf[i]->managed)
			list_buf[n++] = list_buf[i];
	return n;
}

/*
 * A reply's array of interfaces whose objects are built while the reply is written, each
 * freed before the next: a reply about 1000 pods holds one interface's tree at a time, not
 * 1000 (tens of MB of json-c's small objects, whose holes then scattered what the daemon
 * keeps over the whole heap: docs/namespaces.md "Fifth round"). The reply is written when
 * it is queued, at once after the handler (ctl.c): the interfaces are the table's then.
 */
struct lazy_list {
	json_object *(*one)(const struct iface *ifc);
	unsigned int n;
	const struct iface *ifc[];
};

static int lazy_write(json_object *jso, struct printbuf *pb, int level, int flags)
{
	const struct lazy_list *l = json_object_get_userdata(jso);
	unsigned int i;

	(void)level;
	printbuf_strappend(pb, "[");
	for (i = 0; i < l->n; i++) {
		json_object *o = l->one(l->ifc[i]);
		const char *t = o ? json_object_to_json_string_ext(o, flags) : "null";

		if (i)
			printbuf_strappend(pb, ",");
		printbuf_memappend(pb, t, (int)strlen(t));
		json_object_put(o);
	}
	printbuf_strappend(pb, "]");
	return 0;
}

static void lazy_free(json_object *jso, void *userdata)
{
	(void)jso;
	free(userdata);
}

/* The n interfaces of list_buf, each by one(). */
static json_object *lazy_ifaces(json_object *(*one)(const struct iface *ifc), unsigned int n)
{
	json_object *a = json_object_new_array();
	struct lazy_list *l = malloc(sizeof(*l) + n * sizeof(l->ifc[0]));
	unsigned int i;

	if (!l) { /* out of memory: built now */
		for (i = 0; i < n; i++)
			json_object_array_add(a, one(list_buf[i]));
		return a;
	}
	l->one = one;
	l->n = n;
	for (i = 0; i < n; i++)
		l->ifc[i] = list_buf[i];
	json_object_set_serializer(a, lazy_write, l, lazy_free);
	return a;
}

static json_object *knobs_json(const struct iface *ifc)
{
	json_object *o = json_object_new_object();
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		json_object_object_add(o, knob_name((enum knob_id)k),
				       iface_knob(ifc, k) == LINK_UNSET
					       ? NULL
					       : json_object_new_int64(iface_knob(ifc, k)));
	return o;
}

/* The knobs changed outside rtltune and left alone (outside.h), with how often. */
static json_object *manual_json(const struct iface *ifc)
{
	json_object *a = json_object_new_array();
	int k;

	for (k = 0; ifc->m && k < KNOB__COUNT; k++)
		if (iface_manual(ifc, k))
			json_object_array_add(a,
					      json_object_new_string(knob_name((enum knob_id)k)));
	return a;
}

/* The device stack as status shows it: an unmanaged upper says whose traffic it carries;
 * a managed interface lists its uppers and lowers and the sizes local traffic gets. */
static void stack_json(json_object *o, const struct iface *ifc)
{
	json_object *up, *low, *eff;
	char upper_of[256];
	unsigned int i;
	int k;

	iface_upper_of(ifc, upper_of, sizeof(upper_of));
	json_object_object_add(o, "upper_of", opt_str(upper_of));
	if (!ifc->m)
		return;
	up = json_object_new_array();
	low = json_object_new_array();
	for (i = 0; i < iface_stack(ifc)->n_uppers; i++)
		json_object_array_add(up,
				      json_object_new_string(iface_stack(ifc)->uppers[i].li.ifname));
	for (i = 0; i < iface_stack(ifc)->n_lowers; i++)
		json_object_array_add(low,
				      json_object_new_string(iface_stack(ifc)->lowers[i].li.ifname));
	json_object_object_add(o, "uppers", up);
	json_object_object_add(o, "lowers", low);
	eff = json_object_new_object();
	for (k = 0; k < KNOB__COUNT; k++)
		if ((knob_desc((enum knob_id)k)->flags & KNOB_F_STACK) || k == KNOB_GRO_MAX_SIZE)
			json_object_object_add(eff, knob_name((enum knob_id)k),
					       knob_value_json((enum knob_id)k,
							       iface_eff(ifc, (enum knob_id)k)));
	json_object_object_add(o, "effective", eff);
	json_object_object_add(o, "stack_note", opt_str(iface_stack_note(ifc)));
}

static json_object *iface_status_json(const struct iface *ifc)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "ifindex", json_object_new_int(ifc->dev_index));
	json_object_object_add(o, "netns", opt_str(iface_netns_name(ifc)));
	/* The journal's identity of a pod's device: its namespace's cookie (never reused). */
	json_object_object_add(o, "netns_cookie",
			       ifc->ns ? json_object_new_uint64(netns_cookie(ifc->ns)) : NULL);
	json_object_object_add(o, "kind", opt_str(ifc->kind));
	json_object_object_add(o, "driver", opt_str(ifc->driver));
	json_object_object_add(o, "chip", opt_str(ifc->chip));
	json_object_object_add(o, "operstate", json_object_new_string(ifc->operstate));
	json_object_object_add(o, "managed", json_object_new_boolean(ifc->managed));
	json_object_object_add(o, "why", json_object_new_string(ifc->why));
	/* Whether the tuner works on it: never on an interface rtltuned does not manage. */
	json_object_object_add(o, "autotune",
			       json_object_new_boolean(ifc->managed && ifc->autotune));
	json_object_object_add(o, "carrier_changes", json_object_new_int(ifc->carrier_changes));
	json_object_object_add(o, "applied", applier_status_json(ifc));
	json_object_object_add(o, "knobs", knobs_json(ifc));
	json_object_object_add(o, "manual", manual_json(ifc));
	json_object_object_add(o, "tuner", tune_status_json(ifc));
	signals_iface_status_json(ifc, o);
	stack_json(o, ifc);
	return o;
}

static json_object *h_status(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *only = req_iface(rc->req, false, err);
	json_object *o, *a, *host;

	if (!only && err->kind)
		return NULL;
	o = json_object_new_object();
	a = lazy_ifaces(iface_status_json, listed_ifaces(only, false));
	json_object_object_add(o, "daemon", daemon_json());
	json_object_object_add(o, "journal", trust_status_json());
	/* Host-wide: every namespace's traffic on the CPUs (docs/signals.md). */
	host = signals_host_json();
	tune_host_status_json(host);
	json_object_object_add(o, "host", host);
	json_object_object_add(o, "interfaces", a);
	return o;
}

static json_object *iface_stats_json(const struct iface *ifc)
{
	json_object *o = json_object_new_object(), *rates, *drops, *kv, *dec;
	const struct iface_stats *s;
	int c, h, k, oc;
	unsigned int i;

	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "ifindex", json_object_new_int(ifc->dev_index));
	json_object_object_add(o, "netns", opt_str(iface_netns_name(ifc)));
	json_object_object_add(o, "driver", opt_str(ifc->driver));
	json_object_object_add(o, "managed", json_object_new_boolean(ifc->managed));
	if (!ifc->m)
		return o; /* nothing is sampled for an interface rtltuned does not manage */
	s = &ifc->m->stats;
	rates = json_object_new_object();
	/* Per interface: one without a probe slot (all in use) has its link counters. */
	json_object_object_add(o, "source",
			       json_object_new_string(bpf_counts(ifc) ? "bpf" : "netlink"));
	for (c = 0; c < SC__COUNT; c++) {
		json_object_object_add(o, stat_counter_name(c),
				       s->have_counter[c] ? json_object_new_uint64(s->counter[c])
							  : NULL);
		if (s->have_counter[c])
			json_object_object_add(rates, stat_counter_name(c),
					       json_object_new_double(s->rate[c]));
	}
	for (h = 0; h < SH__COUNT; h++)
		json_object_object_add(o, stat_hist_name(h),
				       s->have_hist ? hist_to_json(&s->h->hist[h]) : NULL);
	drops = json_object_new_object();
	for (i = 0; i < s->n_drops; i++)
		json_object_object_add(drops, s->drops[i].reason,
				       json_object_new_uint64(s->drops[i].count));
	json_object_object_add(o, "drops", drops);
	kv = json_object_new_object();
	dec = json_object_new_object();
	for (k = 0; k < KNOB__COUNT; k++) {
		json_object *per = NULL;

		json_object_object_add(kv, knob_name(k),
				       iface_knob(ifc, k) == LINK_UNSET
					       ? NULL
					       : json_object_new_int64(iface_knob(ifc, k)));
		for (oc = 0; oc < OUTCOME__COUNT; oc++) {
			if (!iface_decisions(ifc, k, oc))
				continue;
			if (!per)
				per = json_object_new_object();
			json_object_object_add(per, decision_outcome_name(oc),
					       json_object_new_uint64(iface_decisions(ifc, k, oc)));
		}
		if (per)
			json_object_object_add(dec, knob_name(k), per);
	}
	json_object_object_add(o, "knob_value", kv);
	json_object_object_add(o, "tuning_decisions", dec);
	signals_iface_json(ifc, o, rates);
	json_object_object_add(o, "rates", rates);
	/* What the rates span, and whether the interface is read every 16th sample only
	 * (idle: docs/daemon.md "Every sample"). */
	json_object_object_add(o, "rate_seconds",
			       s->rate_us ? json_object_new_double((double)s->rate_us / 1e6) : NULL);
	json_object_object_add(o, "idle", json_object_new_boolean(s->idle));
	/* Idle at its own read too: its snapshot kept deflated (iface_rest()). */
	json_object_object_add(o, "at_rest", json_object_new_boolean(iface_at_rest(ifc)));
	return o;
}

static json_object *h_stats(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *only = req_iface(rc->req, false, err);
	json_object *o, *a;

	if (!only && err->kind)
		return NULL;
	o = json_object_new_object();
	a = lazy_ifaces(iface_stats_json, listed_ifaces(only, true));
	json_object_object_add(o, "time", json_object_new_double(now_real()));
	json_object_object_add(o, "interval_seconds",
			       json_object_new_double((double)rtd.cfg.sample_interval_us / 1e6));
	json_object_object_add(o, "source",
			       json_object_new_string(bpf_active() ? "bpf" : "netlink"));
	json_object_object_add(o, "interfaces", a);
	/* Host-wide, per CPU (every namespace's traffic): docs/signals.md. */
	json_object_object_add(o, "cpus", signals_cpus_json());
	json_object_object_add(o, "cpu_named", json_object_new_boolean(signals_cpu_named()));
	return o;
}

static json_object *h_hist(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *ifc = req_iface(rc->req, true, err);
	const char *what = req_str(rc->req, "what");
	struct rtl_hist win;
	json_object *o;
	int h;

	if (!ifc)
		return NULL;
	if (!what) {
		rterr_input(err, "missing \"what\"");
		return NULL;
	}
	h = stat_hist_from_name(what);
	if (h < 0) {
		rterr_input(err,
			    "unknown histogram '%.64s' (expected tx_skb_bytes, tx_gso_size_bytes, "
			    "tx_gso_segments, rx_frame_bytes or rx_skb_bytes)",
			    what);
		return NULL;
	}
	if (!ifc->m || !ifc->m->stats.have_hist) {
		rterr_sys(err, ENODATA, "%s: no histograms: %s", ifc->name,
			  !ifc->m	   ? "not managed"
			  : bpf_error()[0] ? bpf_error()
					   : "link counters only");
		return NULL;
	}
	stat_window_sum(&ifc->m->stats, h, &win);
	o = json_object_new_object();
	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "what", json_object_new_string(what));
	json_object_object_add(o, "hist", hist_to_json(&ifc->m->stats.h->hist[h]));
	json_object_object_add(o, "window", hist_to_json(&win));
	json_object_object_add(o, "window_seconds",
			       json_object_new_double((double)rtd.cfg.sample_interval_us *
						      SAMPLE_SLOT_SAMPLES * STAT_WINDOW_SLOTS /
						      1e6));
	return o;
}

static json_object *h_log(struct ctl_request_ctx *rc, struct rterr *err)
{
	json_object *o = json_object_new_object(), *since, *max;
	uint64_t seq = 0;
	unsigned int n = 0;

	if (json_object_object_get_ex(rc->req, "since", &since))
		seq = (uint64_t)json_object_get_int64(since);
	if (json_object_object_get_ex(rc->req, "max", &max))
		n = (unsigned int)json_object_get_int(max);
	json_object_object_add(o, "entries", dlog_since(seq, n));
	if (req_bool(rc->req, "follow", 0)) {
		json_object *arr;
		size_t len;

		json_object_object_get_ex(o, "entries", &arr);
		len = json_object_array_length(arr);
		rc->follow = true;
		rc->follow_seq = seq;
		if (len) {
			json_object *last = json_object_array_get_idx(arr, len - 1), *s;

			json_object_object_get_ex(last, "seq", &s);
			rc->follow_seq = (uint64_t)json_object_get_int64(s);
		}
	}
	json_object_object_add(o, "follow", json_object_new_boolean(rc->follow));
	return o;
}

/*
 * The tuner works on managed interfaces only: a switch for any other would be shown and
 * never acted on. The refusal names the selection rule that left it out (docs/daemon.md
 * "Which interfaces are managed").
 */
static int refuse_unmanaged(const struct iface *ifc, const char *what, struct rterr *err)
{
	char upper_of[256];

	iface_upper_of(ifc, upper_of, sizeof(upper_of));
	if (upper_of[0])
		return rterr_input(err,
				   "%s: %s refused: rtltuned does not manage it (%s); it is tuned "
				   "as the upper of %s: switch autotune there",
				   ifc->name, what, ifc->why, upper_of);
	return rterr_input(err, "%s: %s refused: rtltuned does not manage it (%s)", ifc->name, what,
			   ifc->why);
}

static json_object *h_autotune(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *ifc = req_iface(rc->req, true, err);
	json_object *on, *o;

	if (!ifc)
		return NULL;
	if (!json_object_object_get_ex(rc->req, "on", &on) ||
	    !json_object_is_type(on, json_type_boolean)) {
		rterr_input(err, "missing \"on\": true or false");
		return NULL;
	}
	if (!ifc->managed) {
		refuse_unmanaged(ifc, json_object_get_boolean(on) ? "autotune on" : "autotune off",
				 err);
		return NULL;
	}
	if (ifc->autotune != json_object_get_boolean(on)) {
		dlog(LOG_NOTICE, ifc->name, "autotune %s (by uid %u)",
		     json_object_get_boolean(on) ? "on" : "off", (unsigned int)rc->peer->uid);
		iface_set_autotune(ifc, json_object_get_boolean(on));
	}
	/* On, even when it already was: what was changed outside rtltune is taken back. */
	if (json_object_get_boolean(on))
		outside_clear(ifc, NULL);
	o = json_object_new_object();
	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "autotune", json_object_new_boolean(ifc->autotune));
	return o;
}

static json_object *h_recommend(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *only = req_iface(rc->req, false, err);
	json_object *o, *a;
	unsigned int i, n;

	if (!only && err->kind)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	n = listed_ifaces(only, true);
	for (i = 0; i < n; i++)
		json_object_array_add(a, recommend_json(list_buf[i]));
	json_object_object_add(o, "interfaces", a);
	/* The host-wide knobs are no interface's: with every interface, not one. */
	if (!only)
		json_object_object_add(o, "host", recommend_host_json());
	return o;
}

/* Whether req names no interface: no "ifaces" array, or an empty one (every managed one). */
static bool req_all(json_object *req)
{
	json_object *arr;

	return !json_object_object_get_ex(req, "ifaces", &arr) ||
	       !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) == 0;
}

/* Interfaces an apply/restore request names ("ifaces": [...], each once), else the managed
 * ones. */
static int req_targets(json_object *req, struct iface **out, unsigned int max, struct rterr *err)
{
	json_object *arr = NULL;
	unsigned int n = 0, i, len;
	struct iface *ifc;

	if (req_all(req)) {
		unsigned int all = sorted_ifaces(out, max);

		for (i = 0; i < all; i++)
			if (out[i]->managed)
				out[n++] = out[i];
		return (int)n;
	}
	json_object_object_get_ex(req, "ifaces", &arr);
	len = (unsigned int)json_object_array_length(arr);
	for (i = 0; i < len && n < max; i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(arr, i));

		unsigned int k;

		ifc = name ? iface_by_name(name) : NULL;
		if (!ifc)
			return rterr_input(err, "no such interface: %s", name ? name : "(null)");
		/* A name given twice is applied (and journaled) once. */
		for (k = 0; k < n && out[k] != ifc; k++)
			;
		if (k == n)
			out[n++] = ifc;
	}
	return (int)n;
}

/* An interface's documents: one, or its own and its uppers' (applier_set_json()). */
static void add_docs(json_object *arr, json_object *one)
{
	size_t i;

	if (!json_object_is_type(one, json_type_array)) {
		json_object_array_add(arr, one);
		return;
	}
	for (i = 0; i < json_object_array_length(one); i++)
		json_object_array_add(arr, json_object_get(json_object_array_get_idx(one, i)));
	json_object_put(one);
}

/* The host-wide knobs of an apply (once, whichever interfaces it names): "host". */
static int host_apply(json_object *req, uid_t uid, json_object **host, struct rterr *err)
{
	const char *profile = req_str(req, "profile");
	struct profile *p = NULL;
	char why[320];
	int r;

	*host = NULL;
	if (profile && profile_load(profile, &p, err) < 0)
		return -EINVAL;
	if (!p && !rtd.profile)
		return 0; /* each interface says it */
	snprintf(why, sizeof(why), "profile %s, requested by uid %u",
		 p ? p->name : rtd.profile->name, (unsigned int)uid);
	r = applier_host_apply(p ? p : rtd.profile, req_bool(req, "dry_run", 0), why, host, err);
	profile_free(p);
	/* A failure is in the document; without one, the request fails. */
	return r < 0 && !*host ? r : 0;
}

static json_object *h_apply(struct ctl_request_ctx *rc, struct rterr *err)
{
	const char *profile = req_str(rc->req, "profile");
	bool dry_run = req_bool(rc->req, "dry_run", 0);
	json_object *o, *a, *host = NULL;
	int n, i;

	n = req_targets(rc->req, list_buf, MAX_LIST, err);
	if (n < 0)
		return NULL;
	if (host_apply(rc->req, rc->peer->uid, &host, err) < 0)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *one = NULL;

		if (applier_apply_request(list_buf[i], profile, dry_run, rc->peer->uid, &one, err) <
			    0 &&
		    !one) {
			json_object_put(a);
			json_object_put(host);
			return NULL;
		}
		add_docs(a, one);
	}
	o = json_object_new_object();
	json_object_object_add(o, "profile",
			       profile	     ? json_object_new_string(profile)
			       : rtd.profile ? json_object_new_string(rtd.profile->name)
					     : NULL);
	json_object_object_add(o, "dry_run", json_object_new_boolean(dry_run));
	if (host)
		json_object_object_add(o, "host", host);
	json_object_object_add(o, "interfaces", a);
	return o;
}

static json_object *h_restore(struct ctl_request_ctx *rc, struct rterr *err)
{
	json_object *o, *a, *host = NULL;
	int n, i;

	n = req_targets(rc->req, list_buf, MAX_LIST, err);
	if (n < 0)
		return NULL;
	/* Without "ifaces" (rtltune restore without IFACE), the host-wide knobs too. */
	if (req_all(rc->req) && applier_host_restore(rc->peer->uid, &host, err) < 0 && !host)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *one = NULL;

		if (applier_restore_request(list_buf[i], rc->peer->uid, &one, err) < 0 && !one) {
			json_object_put(a);
			json_object_put(host);
			return NULL;
		}
		add_docs(a, one);
	}
	o = json_object_new_object();
	if (host)
		json_object_object_add(o, "host", host);
	json_object_object_add(o, "interfaces", a);
	return o;
}

static json_object *h_history(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *ifc = req_iface(rc->req, true, err);
	json_object *since;
	double t = 0;

	if (!ifc)
		return NULL;
	if (json_object_object_get_ex(rc->req, "since", &since)) {
		if (!json_object_is_type(since, json_type_int) &&
		    !json_object_is_type(since, json_type_double)) {
			rterr_input(err, "\"since\" is a Unix time (a number)");
			return NULL;
		}
		t = json_object_get_double(since);
	}
	if (!ifc->m) {
		rterr_sys(err, ENODATA, "%s: no history: not managed (%s)", ifc->name, ifc->why);
		return NULL;
	}
	return history_json(ifc, t, err);
}

/*
 * Pauses (`rtltune sweep`): the tuner stops trying anything on an interface for as long as
 * the client that asked holds its connection open, or until it resumes. A client killed
 * mid-sweep lets go with its connection: its operation in flight is then rolled back
 * (tune_pause()).
 */
#define MAX_PAUSES 256
static struct pause_hold {
	struct ctl_client *client;
	int ifindex;
} holds[MAX_PAUSES];

static void hold_release(struct pause_hold *h)
{
	struct iface *ifc = iface_by_index(h->ifindex);

	h->client = NULL;
	if (!ifc)
		return;
	tune_pause(ifc, false, NULL);
	/* What the sweep (or the rollback of one that died) left is rtltuned's known state. */
	outside_adopt(ifc);
	if (ifc->m && !ifc->m->tune.paused)
		dlog(LOG_NOTICE, ifc->name, "tuner resumed");
}

static void holds_of_closed(struct ctl_client *c)
{
	unsigned int i;

	for (i = 0; i < MAX_PAUSES; i++)
		if (holds[i].client == c)
			hold_release(&holds[i]);
}

static struct pause_hold *hold_find(struct ctl_client *c, int ifindex)
{
	unsigned int i;

	for (i = 0; i < MAX_PAUSES; i++)
		if (holds[i].client == c && holds[i].ifindex == ifindex)
			return &holds[i];
	return NULL;
}

static json_object *pause_json(const struct iface *ifc, bool rolled_back)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "managed", json_object_new_boolean(ifc->m != NULL));
	json_object_object_add(o, "paused", json_object_new_boolean(ifc->m && ifc->m->tune.paused));
	json_object_object_add(o, "paused_by",
			       ifc->m && ifc->m->tune.paused
				       ? json_object_new_string(tune_paused_by(ifc))
				       : NULL);
	json_object_object_add(o, "rolled_back", json_object_new_boolean(rolled_back));
	return o;
}

static json_object *h_pause(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *ifc = req_iface(rc->req, true, err);
	const char *reason = req_str(rc->req, "reason");
	struct pause_hold *h;
	char by[96];
	int r = 0;

	if (!ifc)
		return NULL;
	if (!hold_find(rc->client, ifc->ifindex)) {
		for (h = holds; h < holds + MAX_PAUSES && h->client; h++)
			;
		if (h == holds + MAX_PAUSES) {
			rterr_sys(err, EBUSY, "%s: %u pauses held already", ifc->name, MAX_PAUSES);
			return NULL;
		}
		snprintf(by, sizeof(by), "%.64s", reason ? reason : "a client");
		snprintf(by + strlen(by), sizeof(by) - strlen(by), " (uid %u, pid %d)",
			 (unsigned int)rc->peer->uid, (int)rc->peer->pid);
		*h = (struct pause_hold){.client = rc->client, .ifindex = ifc->ifindex};
		ctl_client_on_close(rc->client, holds_of_closed);
		r = tune_pause(ifc, true, by);
		dlog(LOG_NOTICE, ifc->name, "tuner paused by %s%s", by,
		     r == 1 ? ": the trial in progress was rolled back" : "");
	}
	return pause_json(ifc, r == 1);
}

static json_object *h_resume(struct ctl_request_ctx *rc, struct rterr *err)
{
	struct iface *ifc = req_iface(rc->req, true, err);
	struct pause_hold *h;

	if (!ifc)
		return NULL;
	h = hold_find(rc->client, ifc->ifindex);
	if (h)
		hold_release(h);
	return pause_json(ifc, false);
}

static int (*reload_fn)(struct rterr *err);

void handlers_set_reload(int (*fn)(struct rterr *err))
{
	reload_fn = fn;
}

/* "reload": what SIGHUP does, answered once it is done: the reload count, or why the
 * running configuration stayed (a file's FILE:LINE). */
static json_object *h_reload(struct ctl_request_ctx *rc, struct rterr *err)
{
	json_object *o;

	dlog(LOG_INFO, NULL, "reload requested by uid %u (pid %d)", (unsigned int)rc->peer->uid,
	     (int)rc->peer->pid);
	if (!reload_fn) {
		rterr_sys(err, ENOTSUP, "this rtltuned cannot reload on request");
		return NULL;
	}
	if (reload_fn(err) < 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "reloads", json_object_new_int((int)rtd.reloads));
	json_object_object_add(o, "config", opt_str(rtd.cfg.path));
	return o;
}

static const struct ctl_handler handlers[] = {
	{"hello", false, h_hello},     {"status", false, h_status},
	{"stats", false, h_stats},     {"hist", false, h_hist},
	{"log", false, h_log},	       {"recommend", false, h_recommend},
	{"history", false, h_history}, {"autotune", true, h_autotune},
	{"apply", true, h_apply},      {"restore", true, h_restore},
	{"pause", true, h_pause},      {"resume", true, h_resume},
	{"reload", true, h_reload},
};

const struct ctl_handler *handlers_find(const char *cmd)
{
	unsigned int i;

	for (i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (strcmp(handlers[i].cmd, cmd) == 0)
			return &handlers[i];
	return NULL;
}
