// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune doctor [--json] [IFACE...]: what this host supports and what rtltune would do here
 * (docs/doctor.md). Read-only: every fact is a read (lib/host/hostcheck.c, the interface
 * snapshots, the daemon's config, the chip database and profile), but for the probes'
 * hooks, each tried with a program that does nothing, attached for the time of two system
 * calls. This file builds the one JSON document; doctor_out.c renders it as text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "doctor.h"
#include "rtltune/chipdb.h"
#include "rtltune/config.h"
#include "rtltune/hostcheck.h"
#include "rtltune/hostknob.h"
#include "rtltune/nic.h"
#include "rtltune/plan.h"
#include "rtltune/profile.h"
#include "rtltune/route.h"

static json_object *strv_json(const struct strv *sv)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < sv->n; i++)
		json_object_array_add(a, json_object_new_string(sv->v[i]));
	return a;
}

static json_object *release_json(int major, int minor)
{
	char v[16];

	snprintf(v, sizeof(v), "%d.%d", major, minor);
	return json_object_new_string(v);
}

static json_object *caps_json(const struct hostcheck *hc)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < HC_CAP__COUNT; i++) {
		const struct hc_cap_need *n = hc_cap_need((enum hc_cap)i);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(n->name));
		json_object_object_add(o, "have", json_object_new_boolean(hc->caps.have[i]));
		json_object_object_add(
			o, "missing",
			json_object_new_boolean(hc_cap_missing(&hc->caps, (enum hc_cap)i)));
		json_object_object_add(
			o, "instead",
			n->instead == HC_CAP__COUNT
				? NULL
				: json_object_new_string(hc_cap_need(n->instead)->name));
		json_object_object_add(o, "required", json_object_new_boolean(n->required));
		json_object_object_add(o, "for", json_object_new_string(n->for_what));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *hooks_json(const struct hostcheck *hc)
{
	static const char *const names[2] = {"tp_btf", "raw_tp"};
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < 2; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "type", json_object_new_string(names[i]));
		json_object_object_add(o, "tracepoint",
				       json_object_new_string("net_dev_start_xmit"));
		json_object_object_add(o, "works", json_object_new_boolean(hc->hook_err[i] == 0));
		json_object_object_add(o, "error", cli_json_str(hc->hook_msg[i]));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *tracepoints_json(const struct hostcheck *hc)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < PROBE_COUNT; i++) {
		const struct probe_support *s = &hc->probes[i];
		json_object *o;

		if (i == PROBE_XDP)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(s->name));
		json_object_object_add(o, "rtltuned", json_object_new_boolean(s->rtltuned));
		json_object_object_add(o, "btf", json_object_new_boolean(s->btf));
		json_object_object_add(o, "tracefs",
				       s->tracefs < 0 ? NULL : json_object_new_boolean(s->tracefs));
		json_object_object_add(o, "argument", cli_json_str(s->arg));
		json_object_object_add(o, "has_argument",
				       s->arg ? json_object_new_boolean(s->has_arg) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *netlink_json(const struct hostcheck *hc, const char *ethtool_path)
{
	json_object *nl = json_object_new_object(), *e = json_object_new_object();
	json_object *n = json_object_new_object(), *r = json_object_new_object();

	json_object_object_add(e, "present", json_object_new_boolean(hc->ethtool.present));
	json_object_object_add(
		e, "groups",
		json_object_new_boolean(hc->features[HC_F_ETHTOOL_GROUPS].state == HC_YES));
	json_object_object_add(e, "path", cli_json_str(ethtool_path));
	json_object_object_add(e, "error", cli_json_str(hc->ethtool_error));
	json_object_object_add(nl, "ethtool", e);
	json_object_object_add(n, "present", json_object_new_boolean(hc->netdev.present));
	json_object_object_add(
		n, "napi_get",
		json_object_new_boolean(genl_family_has_op(&hc->netdev, NETDEV_CMD_NAPI_GET_ID)));
	json_object_object_add(
		n, "napi_set",
		json_object_new_boolean(genl_family_has_op(&hc->netdev, NETDEV_CMD_NAPI_SET_ID)));
	json_object_object_add(n, "error", cli_json_str(hc->netdev_error));
	json_object_object_add(nl, "netdev", n);
	json_object_object_add(r, "method",
			       json_object_new_string(hc->route_method == ROUTE_BY_XFRM ? "xfrm"
						      : hc->route_method == ROUTE_BY_RULES
							      ? "rules"
							      : "unknown"));
	json_object_object_add(r, "how", json_object_new_string(hc->route_how));
	json_object_object_add(nl, "route_invalidation", r);
	return nl;
}

static json_object *features_json(const struct hostcheck *hc)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < HC_F__COUNT; i++) {
		const struct hc_feature *f = &hc->features[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "key", json_object_new_string(f->key));
		json_object_object_add(o, "what", json_object_new_string(f->what));
		json_object_object_add(o, "since", release_json(f->major, f->minor));
		json_object_object_add(o, "here", json_object_new_string(hc_state_name(f->state)));
		json_object_object_add(o, "how", json_object_new_string(f->how));
		json_object_object_add(o, "without", json_object_new_string(f->without));
		json_object_object_add(o, "source", json_object_new_string(f->source));
		json_object_array_add(a, o);
	}
	return a;
}

/* ---- what rtltuned would do --------------------------------------------------------- */

/* The daemon's view: its config, profile and chip database, each error kept (the doctor
 * reports it; rtltuned would not start with it). */
struct daemon_view {
	struct rtd_config cfg;
	bool have_file;
	char config_error[1024];
	struct profile *profile;
	char profile_error[1024];
	struct chipdb *chips;
	char chips_error[1024];
};

static void daemon_view_load(struct cli_ctx *ctx, struct daemon_view *v)
{
	struct rterr err = {0};
	const char *path = ctx->daemon_config;

	memset(v, 0, sizeof(*v));
	/* The file rtltuned reads by default may not exist: then it runs on its defaults. */
	if (strcmp(ctx->daemon_config_from, "default") == 0 && access(path, F_OK) < 0)
		path = NULL;
	v->have_file = path != NULL;
	if (config_read(path, &v->cfg, &err) < 0)
		snprintf(v->config_error, sizeof(v->config_error), "%s", err.msg);
	rterr_clear(&err);
	if (chipdb_load_default(&v->chips, &err) < 0)
		snprintf(v->chips_error, sizeof(v->chips_error), "%s", err.msg);
	rterr_clear(&err);
	if (!v->config_error[0] && v->cfg.profile[0] &&
	    profile_load(v->cfg.profile, &v->profile, &err) < 0)
		snprintf(v->profile_error, sizeof(v->profile_error), "%s", err.msg);
}

static void daemon_view_free(struct daemon_view *v)
{
	config_free(&v->cfg);
	profile_free(v->profile);
	chipdb_free(v->chips);
}

static json_object *config_json(const struct cli_ctx *ctx, const struct daemon_view *v)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", json_object_new_string(ctx->daemon_config));
	json_object_object_add(o, "from", json_object_new_string(ctx->daemon_config_from));
	json_object_object_add(o, "exists", json_object_new_boolean(v->have_file));
	json_object_object_add(o, "error", cli_json_str(v->config_error));
	json_object_object_add(o, "interfaces", strv_json(&v->cfg.interfaces));
	json_object_object_add(o, "exclude", strv_json(&v->cfg.exclude));
	json_object_object_add(o, "drivers", strv_json(&v->cfg.drivers));
	json_object_object_add(o, "chips", strv_json(&v->cfg.chips));
	json_object_object_add(o, "profile", cli_json_str(v->cfg.profile));
	json_object_object_add(o, "profile_error", cli_json_str(v->profile_error));
	json_object_object_add(o, "chip_database_error", cli_json_str(v->chips_error));
	json_object_object_add(o, "probes", json_object_new_boolean(v->cfg.probes));
	json_object_object_add(o, "autotune", json_object_new_boolean(v->cfg.autotune));
	json_object_object_add(o, "socket", json_object_new_string(ctx->socket_path));
	return o;
}

/* Which knobs the device takes: a value read is a knob it has; a group whose read the
 * driver refused takes none of its knobs; a feature the driver fixes cannot change. */
static json_object *knobs_json(const struct nic *nic)
{
	json_object *o = json_object_new_object(), *groups = json_object_new_object();
	json_object *link_yes = json_object_new_array(), *link_no = json_object_new_array();
	json_object *feat_fixed = json_object_new_array();
	unsigned int n_feat = 0, n_fixed = 0, n_absent = 0;
	int k, g;

	for (k = 0; k < KNOB_FIRST_ETHNL; k++)
		json_object_array_add(nic->val[k] != LINK_UNSET ? link_yes : link_no,
				      json_object_new_string(knob_name((enum knob_id)k)));
	json_object_object_add(o, "link", link_yes);
	json_object_object_add(o, "link_unsupported", link_no);
	for (g = 0; g < ETHNL_GROUP_COUNT; g++) {
		json_object *grp = json_object_new_object(), *yes = json_object_new_array();

		json_object_object_add(grp, "supported",
				       json_object_new_boolean(nic->group_err[g] >= 0));
		json_object_object_add(
			grp, "error",
			nic->group_err[g] < 0 ? json_object_new_string(strerror(-nic->group_err[g]))
					      : NULL);
		for (k = KNOB_FIRST_ETHNL; k < KNOB_FIRST_FEATURE; k++)
			if (knob_desc((enum knob_id)k)->ethnl_group == g &&
			    nic->val[k] != LINK_UNSET)
				json_object_array_add(
					yes, json_object_new_string(knob_name((enum knob_id)k)));
		json_object_object_add(grp, "knobs", yes);
		json_object_object_add(groups, ethnl_group_name((enum ethnl_group)g), grp);
	}
	json_object_object_add(o, "ethtool", groups);
	for (k = KNOB_FIRST_FEATURE; k < KNOB_FIRST_AROUND; k++) {
		if (nic->val[k] == LINK_UNSET) {
			n_absent++;
		} else if (nic->fixed[k]) {
			n_fixed++;
			json_object_array_add(feat_fixed,
					      json_object_new_string(knob_name((enum knob_id)k)));
		} else {
			n_feat++;
		}
	}
	json_object_object_add(o, "features_settable", json_object_new_int((int)n_feat));
	json_object_object_add(o, "features_fixed", feat_fixed);
	json_object_object_add(o, "features_absent", json_object_new_int((int)n_absent));
	link_yes = json_object_new_array();
	for (k = KNOB_FIRST_AROUND; k < KNOB_FIRST_HOST; k++)
		if (nic->val[k] != LINK_UNSET)
			json_object_array_add(link_yes,
					      json_object_new_string(knob_name((enum knob_id)k)));
	json_object_object_add(o, "stack", link_yes);
	return o;
}

static json_object *chip_json(const struct chipdb *db, const struct nic *nic,
			      const struct chip_entry **out)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	json_object *o, *lim, *q;
	const struct chip_entry *e;
	struct chip_why why;
	unsigned int i;

	*out = e = db ? chipdb_match_nic(db, nic, &why) : NULL;
	if (!e)
		return NULL;
	o = json_object_new_object();
	lim = json_object_new_object();
	q = json_object_new_array();
	json_object_object_add(o, "id", json_object_new_string(e->id));
	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(o, "why", json_object_new_string(why.text));
	chip_effective_limits(e, nic, eff);
	for (i = 0; i < CHIP_LIMIT__COUNT; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "value", cli_json_i64(eff[i].value));
		json_object_object_add(l, "kernel", cli_json_i64(eff[i].kernel));
		json_object_object_add(l, "chip", cli_json_i64(eff[i].table));
		json_object_object_add(
			l, "source", json_object_new_string(chip_limit_source_name(eff[i].source)));
		json_object_object_add(lim, chip_limit_name((enum chip_limit)i), l);
	}
	json_object_object_add(o, "limits", lim);
	for (i = 0; i < CHIP_QUIRK_COUNT; i++)
		if (chip_has_quirk(e, (enum chip_quirk)(1u << i)))
			json_object_array_add(q, json_object_new_string(chip_quirk_name(
							 (enum chip_quirk)(1u << i))));
	json_object_object_add(o, "quirks", q);
	return o;
}

/* The changes rtltuned's profile would make on the device itself (apply --dry-run shows
 * the uppers too): the plan's "change" rows, or why it cannot be planned. */
static json_object *plan_changes_json(const struct daemon_view *v, const struct nic *nic,
				      const struct chip_entry *chip, json_object *o)
{
	json_object *doc, *changes, *out = json_object_new_array();
	struct plan *plan = calloc(1, sizeof(*plan));
	struct rterr err = {0};
	size_t i;

	if (!plan || plan_profile(v->profile, nic, chip, plan, &err) < 0) {
		json_object_object_add(o, "plan_error",
				       json_object_new_string(plan ? err.msg : "out of memory"));
		free(plan);
		return out;
	}
	doc = plan_json(plan, false);
	changes = json_object_object_get(doc, "changes");
	for (i = 0; i < json_object_array_length(changes); i++) {
		json_object *c = json_object_array_get_idx(changes, i);
		const char *action = json_object_get_string(json_object_object_get(c, "action"));

		if (action && strcmp(action, "change") == 0)
			json_object_array_add(out, json_object_get(c));
	}
	json_object_put(doc);
	free(plan);
	return out;
}

static json_object *iface_json(const struct daemon_view *v, const struct nic *nic)
{
	json_object *o = json_object_new_object();
	const struct chip_entry *chip;
	struct config_link l;
	char why[256];
	bool managed;

	json_object_object_add(o, "ifname", json_object_new_string(nic->link.ifname));
	json_object_object_add(o, "ifindex", json_object_new_int(nic->link.ifindex));
	json_object_object_add(o, "driver",
			       cli_json_str(nic->have_drvinfo ? nic->drv.driver : NULL));
	json_object_object_add(o, "kind", cli_json_str(nic->link.kind));
	json_object_object_add(o, "chip", chip_json(v->chips, nic, &chip));
	json_object_object_add(o, "knobs", knobs_json(nic));
	l = (struct config_link){.name = nic->link.ifname,
				 .flags = nic->link.flags,
				 .kind = nic->link.kind,
				 .driver = nic->have_drvinfo ? nic->drv.driver : "",
				 .chip = chip ? chip->id : ""};
	managed = config_selects(&v->cfg, &l, why, sizeof(why));
	json_object_object_add(o, "managed", json_object_new_boolean(managed));
	json_object_object_add(o, "why", json_object_new_string(why));
	json_object_object_add(o, "profile",
			       managed && v->profile ? json_object_new_string(v->cfg.profile)
						     : NULL);
	if (managed && v->profile)
		json_object_object_add(o, "would_change", plan_changes_json(v, nic, chip, o));
	return o;
}

/* What stops rtltuned from running with its probes here, one line each. */
/*
 * The host-wide knobs (net.core.*): their values, whether this process can change them
 * (only from the initial network namespace: hostknob.h) and whether rtltuned's config
 * lets it tune them (tune_host).
 */
static json_object *host_json(const struct daemon_view *v)
{
	json_object *o = json_object_new_object(), *knobs = json_object_new_object();
	struct nic *host = calloc(1, sizeof(*host));
	char why[256] = "", buf[256];
	int k, scope;

	scope = host_scope(host_proc_sys(), why, sizeof(why));
	json_object_object_add(o, "reachable", json_object_new_boolean(scope == 0));
	json_object_object_add(o, "why", scope ? json_object_new_string(why) : NULL);
	if (host)
		host_snapshot(host_proc_sys(), host);
	for (k = KNOB_FIRST_HOST; k < KNOB__COUNT; k++) {
		json_object *e = json_object_new_object();
		bool known = host && host->val[k] != LINK_UNSET;

		json_object_object_add(e, "value",
				       known ? json_object_new_int64(host->val[k]) : NULL);
		json_object_object_add(
			e, "why",
			!known && host ? json_object_new_string(host_why(host, (enum knob_id)k, buf,
									  sizeof(buf)))
				       : NULL);
		json_object_object_add(knobs, knob_name((enum knob_id)k), e);
	}
	json_object_object_add(o, "knobs", knobs);
	json_object_object_add(o, "tune_host", json_object_new_boolean(v->cfg.tune_host));
	free(host);
	return o;
}

static json_object *missing_json(const struct hostcheck *hc, const struct daemon_view *v)
{
	json_object *a = json_object_new_array();
	char lines[HC_MISSING_MAX][HC_MISSING_LEN];
	unsigned int i, n = hostcheck_missing(hc, lines);

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(lines[i]));
	if (v->config_error[0])
		json_object_array_add(a, json_object_new_string(v->config_error));
	if (v->chips_error[0])
		json_object_array_add(a, json_object_new_string(v->chips_error));
	if (v->profile_error[0])
		json_object_array_add(a, json_object_new_string(v->profile_error));
	return a;
}

static int cmd_doctor(struct cli_ctx *ctx, int argc, char **argv)
{
	json_object *doc, *ifaces, *missing, *verdict;
	struct link_info *links = NULL;
	struct hostcheck *hc = calloc(1, sizeof(*hc));
	struct daemon_view view;
	struct nic_io *io = NULL;
	struct rterr err = {0};
	struct nic *nics = NULL;
	int n = 0, n_links = 0, i, r;

	if (!hc) {
		rterr_sys(&err, ENOMEM, "doctor");
		return cli_fail(ctx, &err);
	}
	r = nic_io_open(ctx->sysfs_root, &io, &err);
	if (r == 0)
		r = cli_select(ctx, io, argv + 1, argc - 1, true, true, &links, &n_links, &nics, &n,
			       &err);
	if (r < 0) {
		nic_io_close(io);
		free(hc);
		return cli_fail(ctx, &err);
	}
	hostcheck_run(hc);
	daemon_view_load(ctx, &view);

	doc = json_object_new_object();
	json_object_object_add(doc, "read_only", json_object_new_boolean(true));
	json_object_object_add(doc, "kernel", json_object_new_object());
	json_object_object_add(json_object_object_get(doc, "kernel"), "release",
			       json_object_new_string(hc->release));
	json_object_object_add(json_object_object_get(doc, "kernel"), "btf",
			       json_object_new_boolean(hc->btf));
	json_object_object_add(doc, "capabilities", caps_json(hc));
	json_object_object_add(doc, "capabilities_error", cli_json_str(hc->caps_error));
	json_object_object_add(doc, "hooks", hooks_json(hc));
	json_object_object_add(doc, "tracepoints", tracepoints_json(hc));
	json_object_object_add(doc, "tracepoints_error", cli_json_str(hc->probes_error));
	json_object_object_add(doc, "netlink", netlink_json(hc, nic_io_path(io)));
	json_object_object_add(doc, "features", features_json(hc));
	json_object_object_add(doc, "config", config_json(ctx, &view));
	json_object_object_add(doc, "host", host_json(&view));
	ifaces = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(ifaces, iface_json(&view, &nics[i]));
	json_object_object_add(doc, "interfaces", ifaces);
	missing = missing_json(hc, &view);
	verdict = json_object_new_object();
	json_object_object_add(verdict, "can_run_with_probes",
			       json_object_new_boolean(json_object_array_length(missing) == 0));
	json_object_object_add(verdict, "missing", missing);
	json_object_object_add(verdict, "probes_setting",
			       json_object_new_string(view.cfg.probes ? "on" : "off"));
	json_object_object_add(doc, "rtltuned", verdict);
	r = json_object_array_length(missing) ? EXIT_SYSTEM : EXIT_OK;

	daemon_view_free(&view);
	nic_io_close(io);
	free(nics);
	free(links);
	free(hc);
	return cli_emit(ctx, doc, doctor_render, r);
}

CLI_COMMAND(doctor, .name = "doctor", .args = "[IFACE...]",
	    .help = "what this host supports and what rtltune would do here (read-only)",
	    .details =
		    "The kernel and its BTF, this process's capabilities (what each is needed\n"
		    "for), the probes' hooks (tp_btf, raw_tp) tried for real, each tracepoint\n"
		    "the probes use, the ethtool and netdev netlink families, the route\n"
		    "invalidation call, per kernel feature the release that brought it, and\n"
		    "per interface (every link, or the ones named) the knobs it takes, the chip\n"
		    "entry that limits it, whether rtltuned would manage it with its config\n"
		    "(--config FILE or RTLTUNE_CONFIG, else " RTD_DEFAULT_CONFIG ")\n"
		    "and what its profile would change; the host-wide net.core knobs and\n"
		    "whether they can be changed from here.\n"
		    "Read-only: it changes no setting. The hooks are tried with a program that\n"
		    "does nothing, loaded and attached for the time of two system calls, then\n"
		    "removed. Exit status 0 when rtltuned can run with its probes here, 3 with\n"
		    "what is missing.",
	    .example = "doctor eth0", .run = cmd_doctor);
