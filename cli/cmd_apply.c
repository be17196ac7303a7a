// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune apply PROFILE [IFACE...] [--dry-run] / verify PROFILE [IFACE...] / restore [IFACE...]
 * All three plan through lib/plan/plan.c; apply and restore execute through the actuator
 * (lib/actuate/actuate.c), the one code path that changes a NIC.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/actuate.h"

static const char *text_of(json_object *v, char *buf, unsigned int len)
{
	return cli_text_value(v, buf, len);
}

/* "IFACE KNOB OLD -> NEW" per change of one plan's document; skips with their reason;
 * errors last. */
static void render_plan(json_object *p, bool dry)
{
	json_object *ch = json_object_object_get(p, "changes");
	const char *ifname = json_object_get_string(json_object_object_get(p, "ifname"));
	json_object *w = json_object_object_get(p, "warnings");
	json_object *e = json_object_object_get(p, "error");
	json_object *jn = json_object_object_get(p, "journal");
	json_object *up = json_object_object_get(p, "upper_of");
	json_object *rr = json_object_object_get(p, "rerouted");
	json_object *peer = json_object_object_get(p, "peer_of");
	json_object *ns = json_object_object_get(p, "netns");
	char upper[48] = "", name[128];
	size_t printed = 0, j;

	if (up)
		snprintf(upper, sizeof(upper), " (%s of %s)", peer ? "peer" : "upper",
			 json_object_get_string(up));
	/* Another namespace's device: NETNS/IFACE, as rtltuned names it. */
	if (ns) {
		snprintf(name, sizeof(name), "%s/%s", json_object_get_string(ns), ifname);
		ifname = name;
	}

	for (j = 0; j < json_object_array_length(ch); j++) {
		json_object *c = json_object_array_get_idx(ch, j);
		const char *act = json_object_get_string(json_object_object_get(c, "action"));
		const char *knob = json_object_get_string(json_object_object_get(c, "knob"));
		json_object *note = json_object_object_get(c, "note");
		char a[32], b[32];

		if (strcmp(act, "change") == 0) {
			json_object *undone = json_object_object_get(c, "undone");
			json_object *applied = json_object_object_get(c, "applied");
			const char *state = "";

			if (dry)
				state = " (dry run)";
			else if (undone && json_object_get_boolean(undone))
				state = " (undone)";
			else if (applied && !json_object_get_boolean(applied))
				state = " (not applied)";
			printf("%s %s %s -> %s%s%s\n", ifname, knob,
			       text_of(json_object_object_get(c, "old"), a, sizeof(a)),
			       text_of(json_object_object_get(c, "new"), b, sizeof(b)), upper,
			       state);
			printed++;
			/* An upper not raised as far as its lower: which device stops it.
			 */
			if (up && note)
				printf("%s: note: %s\n", ifname, json_object_get_string(note));
		} else if (up && note) {
			/* An upper not raised as far as its lower: which device limits it.
			 */
			printf("%s: note: %s\n", ifname, json_object_get_string(note));
			printed++;
		} else if (strcmp(act, "skip") == 0) {
			printf("%s %s skipped: %s\n", ifname, knob,
			       note ? json_object_get_string(note) : "");
			printed++;
		}
	}
	if (!printed && !e && !up)
		printf("%s: nothing to change\n", ifname);
	if (rr)
		printf("%s: %s\n", ifname, json_object_get_string(rr));
	if (w)
		printf("%s: note: %s\n", ifname, json_object_get_string(w));
	if (e)
		fprintf(stderr, "rtltune: %s\n", json_object_get_string(e));
	if (jn)
		fprintf(stderr,
			"rtltune: %s: restored, but the journal was %s; it keeps the "
			"originals, now the current values: run 'rtltune restore' again "
			"once the state dir is writable\n",
			ifname, json_object_get_string(jn));
}

/* The host's plan first (its host-wide knobs: "host net.core.X OLD -> NEW"), then each
 * interface's. */
static void render_plans(json_object *doc)
{
	json_object *ifaces = json_object_object_get(doc, "interfaces");
	json_object *host = json_object_object_get(doc, "host");
	size_t i, n = json_object_array_length(ifaces);
	bool dry = json_object_get_boolean(json_object_object_get(doc, "dry_run"));

	if (host)
		render_plan(host, dry);
	for (i = 0; i < n; i++)
		render_plan(json_object_array_get_idx(ifaces, i), dry);
}

/* What apply and verify work on: the selected interfaces and their plans. */
struct run {
	struct cli_ctx *ctx;
	struct actuator *act;
	struct chipdb *db;
	struct link_info *links; /* every link of the netns (forgetting gone devices) */
	int n_links;
	struct nic *nics;
	int n_nics;
	/* Per interface, its plan and its uppers' (plan_stack()): sets[i][0 .. n_set[i]). */
	struct plan (*sets)[PLAN_SET_MAX];
	unsigned int *n_set;
	/* The host's plan when the profile sets a host-wide knob (once per run), else NULL. */
	struct plan *host;
	/* The pods' namespaces the veths' peers are in (rtltuned's `namespaces`). */
	struct cli_peers peers;
};

static void run_free(struct run *r)
{
	actuator_free(r->act);
	chipdb_free(r->db);
	free(r->links);
	free(r->nics);
	free(r->sets);
	free(r->n_set);
	free(r->host);
	cli_peers_free(&r->peers);
}

/* The ethtool groups whose knobs any section of the profile sets, and the knobs around the
 * NIC if it sets one of them: all a plan reads. */
static unsigned int profile_groups(const struct profile *prof)
{
	unsigned int s, k, mask = 0;

	for (s = 0; s < prof->n_sections; s++)
		for (k = 0; k < KNOB__COUNT; k++) {
			const struct knob_desc *d = knob_desc((enum knob_id)k);
			enum knob_value_kind v = prof->sections[s].knobs[k].value.kind;

			if (v == KV_UNSET || v == KV_KEEP)
				continue;
			if (d->backend == KNOB_B_ETHNL)
				mask |= NIC_GROUP_BIT(d->ethnl_group);
			else if (d->backend == KNOB_B_NAPI || d->backend == KNOB_B_QUEUE)
				mask |= NIC_GROUP_AROUND;
		}
	return mask;
}

/* Plan every interface, and the uppers its changes reach, before touching any: bad input
 * changes nothing. Only the groups the profile touches are read. */
static int run_plan(struct run *run, const struct profile *prof, char **names, int n_names,
		    bool allow_none, struct rterr *err)
{
	struct plan_request req = {.profile = prof};
	int i, rc;

	rc = chipdb_load_default(&run->db, err);
	if (rc == 0)
		rc = actuator_new(run->ctx->sysfs_root, &run->act, err);
	if (rc == 0)
		nic_io_read_groups(actuator_io(run->act), profile_groups(prof));
	if (rc == 0)
		rc = cli_select(run->ctx, actuator_io(run->act), names, n_names, false, allow_none,
				&run->links, &run->n_links, &run->nics, &run->n_nics, err);
	if (rc < 0)
		return rc;
	run->sets = calloc((size_t)run->n_nics + 1, sizeof(*run->sets));
	run->n_set = calloc((size_t)run->n_nics + 1, sizeof(*run->n_set));
	if (!run->sets || !run->n_set)
		return rterr_sys(err, ENOMEM, "plan");
	for (i = 0; rc == 0 && i < run->n_nics; i++) {
		struct nic_stack st;

		stack_build(run->links, run->n_links, run->nics[i].link.ifindex, &st);
		/* A veth's peer in a pod rtltuned manages: raised with it, in its run. */
		if (cli_peer_find(run->ctx, run->act, &run->nics[i].link, true, &run->peers, &st,
				  err) < 0) {
			/* A pod on its way out (ENODEV) or refused: the veth is planned without
			 * it, as restore does, and the rest of the run goes on. */
			fprintf(stderr, "rtltune: %s: its veth peer is left out: %s\n",
				run->nics[i].link.ifname, err->msg);
			memset(err, 0, sizeof(*err));
			st.has_peer = false;
		}
		rc = plan_device(&run->nics[i], run->db, &req, &st, run->links, run->n_links,
				 run->sets[i], &run->n_set[i], err);
	}
	/* The host-wide knobs: once, on the host's own plan (skipped with why outside the
	 * initial network namespace). */
	if (rc == 0 && profile_sets_host(prof)) {
		struct nic host;

		run->host = malloc(sizeof(*run->host));
		if (!run->host)
			return rterr_sys(err, ENOMEM, "plan");
		actuator_host_snapshot(run->act, &host);
		rc = plan_profile(prof, &host, NULL, run->host, err);
	}
	return rc;
}

/* The documents of one interface's set, into the command's array. */
static void add_set_json(json_object *arr, const struct plan *set, unsigned int n, bool executed,
			 const char *error)
{
	json_object *docs = plan_set_json(set, n, executed, error);
	size_t i;

	for (i = 0; i < json_object_array_length(docs); i++)
		json_object_array_add(arr, json_object_get(json_object_array_get_idx(docs, i)));
	json_object_put(docs);
}

/* apply and restore go through rtltuned when it runs in this network namespace
 * (ctl_daemon_here()): the journal has one owner, and the daemon's SO_PEERCRED check
 * decides who may change. */
static bool daemon_here(struct cli_ctx *ctx)
{
	return ctl_daemon_here(ctx->socket_path);
}

/*
 * Send an apply/restore to the daemon and print its answer like a local run's. An apply
 * without IFACE that reaches no interface is the empty selection (exit 4) unless
 * allow_none, as when the CLI selects.
 */
static int via_daemon(struct cli_ctx *ctx, json_object *req, bool check_empty)
{
	json_object *res = NULL, *ifaces;
	struct rterr e = {0};
	int code = EXIT_OK;
	size_t i;

	if (ctl_call(ctx->socket_path, req, &res, &e) < 0) {
		json_object_put(req);
		return cli_fail(ctx, &e);
	}
	json_object_put(req);
	if (check_empty && json_object_object_get_ex(res, "interfaces", &ifaces) &&
	    !json_object_array_length(ifaces)) {
		json_object_put(res);
		e = (struct rterr){.kind = RTERR_EMPTY, .errnum = ENODEV};
		snprintf(e.msg, sizeof(e.msg),
			 "no interface selected: no IFACE given, and rtltuned manages none here "
			 "(rtltune status lists them; --allow-none makes this exit 0)");
		return cli_fail(ctx, &e);
	}
	if (!json_object_object_get_ex(res, "dry_run", NULL))
		json_object_object_add(res, "dry_run", json_object_new_boolean(false));
	if (json_object_object_get_ex(res, "interfaces", &ifaces))
		for (i = 0; i < json_object_array_length(ifaces); i++)
			if (json_object_object_get_ex(json_object_array_get_idx(ifaces, i), "error",
						      NULL))
				code = EXIT_SYSTEM;
	return cli_emit(ctx, res, render_plans, code);
}

/*
 * Forget the journal's records of devices gone from this netns: a host whose containers
 * churn veths would otherwise grow the journal until apply is refused (docs/journal.md
 * "Devices that are gone"). links[] was dumped after journal_open(), so no record is newer
 * than it. Best effort: a state dir that cannot take the write keeps them and the command
 * goes on. What was forgotten goes into doc as "forgotten" (absent when nothing was).
 */
static void forget_gone(json_object *doc, struct journal *j, const struct link_info *links, int n)
{
	struct journal_gone *gone = NULL;
	int *idx = calloc((size_t)n + 1, sizeof(*idx));
	struct rterr e = {0};
	json_object *a;
	int i, k, got;

	if (!idx)
		return;
	for (i = 0; i < n; i++)
		idx[i] = links[i].ifindex;
	got = journal_forget_gone(j, idx, n, "cli", &gone, &e);
	free(idx);
	if (got <= 0)
		return;
	a = json_object_new_array();
	for (i = 0; i < got; i++) {
		const struct journal_entry *ent = &gone[i].entry;
		json_object *o = json_object_new_object(), *orig = json_object_new_object();

		json_object_object_add(o, "ifname", json_object_new_string(ent->id.ifname));
		json_object_object_add(o, "ifindex", json_object_new_int(ent->id.ifindex));
		for (k = 0; k < KNOB__COUNT; k++)
			if (ent->have[k])
				json_object_object_add(
					orig, knob_name((enum knob_id)k),
					knob_value_json((enum knob_id)k, ent->orig[k]));
		json_object_object_add(o, "originals", orig);
		json_object_object_add(o, "inflight",
				       gone[i].had_inflight ? json_object_new_string(gone[i].op.op)
							    : NULL);
		json_object_object_add(o, "reason", json_object_new_string(gone[i].reason));
		json_object_array_add(a, o);
	}
	free(gone);
	json_object_object_add(doc, "forgotten", a);
}

static json_object *names_json(char **names, int n)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

struct apply_opts {
	bool dry_run, allow_none;
};

static const struct cli_option apply_options[] = {
	CLI_FLAG(struct apply_opts, dry_run, "dry-run", 0,
		 "print what would change and what max resolves to; change nothing"),
	CLI_FLAG(struct apply_opts, allow_none, "allow-none", 0,
		 "exit 0, not 4, when no interface is selected"),
	CLI_OPTIONS_END,
};

/* verify takes the same selection option. */
static const struct cli_option verify_options[] = {
	CLI_FLAG(struct apply_opts, allow_none, "allow-none", 0,
		 "exit 0, not 4, when no interface is selected"),
	CLI_OPTIONS_END,
};

static int cmd_apply(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct apply_opts *o = ctx->opts;
	struct act_opts opts = {.op = "apply", .actor = "cli", .journal_originals = true};
	struct act_item *items = NULL;
	struct run run = {.ctx = ctx};
	struct profile *prof = NULL;
	struct journal *j = NULL;
	struct rterr err = {0};
	bool dry = o->dry_run;
	char **names = argv + 2;
	const char *pname = argv[1];
	json_object *doc, *ifaces;
	unsigned int n_items = 0;
	int i, n_names = argc - 2, rc, code = EXIT_OK;

	cli_dedupe_names(names, &n_names);
	rc = profile_load(pname, &prof, &err);
	if (rc == 0 && daemon_here(ctx)) {
		/* Validated here (bad input exits 2 before anything is sent); the daemon gets
		 * the file itself, so the caller's RTLTUNE_PROFILE_PATH still decides. */
		char path[PATH_MAX];
		json_object *req = control_request_new("apply");

		json_object_object_add(
			req, "profile",
			json_object_new_string(realpath(prof->path, path) ? path : prof->path));
		json_object_object_add(req, "dry_run", json_object_new_boolean(dry));
		if (n_names)
			json_object_object_add(req, "ifaces", names_json(names, n_names));
		profile_free(prof);
		return via_daemon(ctx, req, !n_names && !o->allow_none);
	}
	/* The lock first: a plan made from a snapshot taken before another rtltune changed
	 * the link would skip knobs it believes are already right. */
	if (rc == 0 && !dry)
		rc = journal_open(ctx->state_dir, &j, &err);
	if (rc == 0)
		rc = run_plan(&run, prof, names, n_names, o->allow_none, &err);
	if (rc < 0) {
		journal_close(j);
		profile_free(prof);
		run_free(&run);
		return cli_fail(ctx, &err);
	}
	doc = json_object_new_object();
	ifaces = json_object_new_array();
	json_object_object_add(doc, "profile", json_object_new_string(prof->name));
	json_object_object_add(doc, "dry_run", json_object_new_boolean(dry));
	if (!dry)
		forget_gone(doc, j, run.links, run.n_links);
	/* Every interface in one run, the host first when planned: two journal writes in all
	 * (actuate_run()). */
	items = calloc((size_t)run.n_nics + 2, sizeof(*items));
	if (!items) {
		rterr_sys(&err, ENOMEM, "apply");
		code = cli_fail(ctx, &err);
		goto out;
	}
	if (run.host)
		items[n_items++] = (struct act_item){.plans = run.host, .n = 1};
	for (i = 0; i < run.n_nics; i++)
		items[n_items++] = (struct act_item){.plans = run.sets[i], .n = run.n_set[i]};
	if (!dry && actuate_run(run.act, j, items, n_items, &opts, &err) < 0 && err.kind) {
		code = cli_fail(ctx, &err);
		goto out;
	}
	for (i = 0; i < (int)n_items; i++) {
		const struct act_item *it = &items[i];
		bool failed = !dry && it->rc < 0;
		json_object *arr = ifaces;

		if (it->plans == run.host)
			arr = json_object_new_array();
		if (failed) {
			cli_explain(ctx, &items[i].err);
			code = it->err.kind == RTERR_INPUT ? EXIT_USAGE : EXIT_SYSTEM;
		}
		add_set_json(arr, it->plans, it->n, !dry, failed ? it->err.msg : NULL);
		/* The host's plan is no interface's: its own key. */
		if (arr != ifaces) {
			json_object_object_add(doc, "host",
					       json_object_get(json_object_array_get_idx(arr, 0)));
			json_object_put(arr);
		}
	}
	json_object_object_add(doc, "interfaces", ifaces);
	code = cli_emit(ctx, doc, render_plans, code);
	doc = NULL;
out:
	json_object_put(doc);
	free(items);
	journal_close(j);
	profile_free(prof);
	run_free(&run);
	return code;
}

static void render_verify(json_object *doc)
{
	json_object *diffs = json_object_object_get(doc, "differences");
	size_t i, n = json_object_array_length(diffs);

	for (i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(diffs, i);
		char a[32], b[32];

		printf("%s %s is %s, profile wants %s (%s)\n",
		       json_object_get_string(json_object_object_get(d, "ifname")),
		       json_object_get_string(json_object_object_get(d, "knob")),
		       text_of(json_object_object_get(d, "current"), a, sizeof(a)),
		       text_of(json_object_object_get(d, "wanted"), b, sizeof(b)),
		       json_object_get_string(json_object_object_get(d, "source")));
	}
	if (!n)
		printf("%s: all %d interface(s) match\n",
		       json_object_get_string(json_object_object_get(doc, "profile")),
		       json_object_get_int(json_object_object_get(doc, "checked")));
}

/* The knobs plan would change, as verify's differences; how many. */
static int plan_diffs(json_object *diffs, const struct plan *pl)
{
	int k, n = 0;

	for (k = 0; k < KNOB__COUNT; k++) {
		const struct plan_item *it = &pl->items[k];
		json_object *d;

		if (it->action != PLAN_CHANGE)
			continue;
		d = json_object_new_object();
		json_object_object_add(d, "ifname", json_object_new_string(pl->ifname));
		json_object_object_add(d, "knob",
				       json_object_new_string(knob_name((enum knob_id)k)));
		json_object_object_add(d, "current", knob_value_json((enum knob_id)k, it->cur));
		json_object_object_add(d, "wanted", knob_value_json((enum knob_id)k, it->target));
		json_object_object_add(d, "source", cli_json_str(plan_src(pl, (enum knob_id)k)));
		json_object_array_add(diffs, d);
		n++;
	}
	return n;
}

static int cmd_verify(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct apply_opts *o = ctx->opts;
	struct run run = {.ctx = ctx};
	struct profile *prof = NULL;
	struct rterr err = {0};
	json_object *doc, *diffs;
	unsigned int u;
	int i, rc, ndiff = 0;

	rc = profile_load(argv[1], &prof, &err);
	if (rc == 0)
		rc = run_plan(&run, prof, argv + 2, argc - 2, o->allow_none, &err);
	if (rc < 0) {
		profile_free(prof);
		run_free(&run);
		return cli_fail(ctx, &err);
	}
	doc = json_object_new_object();
	diffs = json_object_new_array();
	json_object_object_add(doc, "profile", json_object_new_string(prof->name));
	json_object_object_add(doc, "checked", json_object_new_int(run.n_nics));
	/* The host-wide knobs the profile sets, as "host" (once; nothing outside the initial
	 * network namespace, where they are skipped). */
	if (run.host)
		ndiff += plan_diffs(diffs, run.host);
	for (i = 0; i < run.n_nics; i++)
		for (u = 0; u < run.n_set[i]; u++)
			ndiff += plan_diffs(diffs, &run.sets[i][u]);
	json_object_object_add(doc, "match", json_object_new_boolean(ndiff == 0));
	json_object_object_add(doc, "differences", diffs);
	profile_free(prof);
	run_free(&run);
	return cli_emit(ctx, doc, render_verify, ndiff ? EXIT_DIFF : EXIT_OK);
}

/*
 * Restore one interface (and the uppers its changes reached) from the journaled originals,
 * adding their documents to arr; false when nothing is journaled.
 */
static bool restore_one(const struct cli_ctx *ctx, struct actuator *act, struct journal *j,
			const struct nic *nic, const struct link_info *links, int n_links,
			struct cli_peers *pp, json_object *arr, int *code)
{
	struct plan plans[PLAN_SET_MAX];
	struct rterr e = {0};
	char note[sizeof(e.msg)];
	struct nic_stack st;
	unsigned int n = 1;
	int r;

	stack_build(links, n_links, nic->link.ifindex, &st);
	size_t first = json_object_array_length(arr);

	/* Its veth peer in a pod, when a change of it reached there (whatever rtltuned manages
	 * now: what has originals goes back). */
	if (cli_peer_find(ctx, act, &nic->link, false, pp, &st, &e) < 0)
		st.has_peer = false;
	memset(&e, 0, sizeof(e));

	r = actuate_restore(act, j, nic, &st, "cli", plans, &n, note, sizeof(note), &e);
	if (r == 0)
		return false;
	if (r < 0)
		cli_explain(ctx, &e);
	add_set_json(arr, plans, n, true, r < 0 ? e.msg : NULL);
	if (r < 0)
		*code = e.kind == RTERR_INPUT ? EXIT_USAGE : EXIT_SYSTEM;
	else if (note[0])
		json_object_object_add(json_object_array_get_idx(arr, first), "journal",
				       json_object_new_string(note));
	return true;
}

/*
 * The host-wide knobs back to their originals, into doc's "host" (restore without IFACE).
 * The host's record is this netns's and boot's (journal_ident_host()): outside the initial
 * network namespace, which alone changes them, there is none.
 */
static void restore_host(const struct cli_ctx *ctx, struct actuator *act, struct journal *j,
			 json_object *doc, int *code)
{
	struct plan plans[PLAN_SET_MAX];
	struct rterr e = {0};
	char note[sizeof(e.msg)];
	unsigned int n = 1;
	json_object *arr;
	struct nic host;
	int r;

	actuator_host_snapshot(act, &host);
	r = actuate_restore(act, j, &host, NULL, "cli", plans, &n, note, sizeof(note), &e);
	if (r == 0)
		return;
	if (r < 0) {
		cli_explain(ctx, &e);
		*code = e.kind == RTERR_INPUT ? EXIT_USAGE : EXIT_SYSTEM;
	}
	arr = plan_set_json(plans, n, true, r < 0 ? e.msg : NULL);
	if (r > 0 && note[0])
		json_object_object_add(json_object_array_get_idx(arr, 0), "journal",
				       json_object_new_string(note));
	json_object_object_add(doc, "host", json_object_get(json_object_array_get_idx(arr, 0)));
	json_object_put(arr);
}

/* Whether the journal holds originals for link li (by identity: renamed ones count). */
static bool journaled(struct journal *j, const struct link_info *li)
{
	int64_t orig[KNOB__COUNT];
	bool have[KNOB__COUNT];
	struct journal_ident id;

	return journal_ident_read_index(li->ifindex, li->ifname, &id, NULL) == 0 &&
	       journal_get_originals(j, &id, orig, have, NULL) != 0;
}

static int cmd_restore(struct cli_ctx *ctx, int argc, char **argv)
{
	struct actuator *act = NULL;
	struct rterr err = {0};
	struct journal *j = NULL;
	struct link_info *links = NULL;
	struct cli_peers pp = {0};
	json_object *doc, *ifaces;
	int i, k, n = 0, n_named = argc - 1, code = EXIT_OK;

	cli_dedupe_names(argv + 1, &n_named);
	argc = 1 + n_named;
	if (daemon_here(ctx)) {
		json_object *req = control_request_new("restore");

		if (argc > 1)
			json_object_object_add(req, "ifaces", names_json(argv + 1, argc - 1));
		return via_daemon(ctx, req, false);
	}
	if (journal_open(ctx->state_dir, &j, &err) < 0)
		return cli_fail(ctx, &err);
	/* Its targets are originals already durable: a full or read-only state dir must not
	 * keep the interface changed (docs/journal.md). */
	journal_set_inflight_optional(j, true);
	if (actuator_new(ctx->sysfs_root, &act, &err) < 0 ||
	    link_dump(actuator_link_sock(act), &links, &n, &err) < 0) {
		journal_close(j);
		actuator_free(act);
		return cli_fail(ctx, &err);
	}
	for (i = 1; i < argc; i++) {
		if (cli_find_link(links, n, argv[i]) < 0) {
			journal_close(j);
			actuator_free(act);
			free(links);
			return cli_usage_error(ctx, "no such interface: %s", argv[i]);
		}
	}
	doc = json_object_new_object();
	ifaces = json_object_new_array();
	json_object_object_add(doc, "dry_run", json_object_new_boolean(false));
	forget_gone(doc, j, links, n);
	if (argc < 2)
		restore_host(ctx, act, j, doc, &code);
	/* The named ones, else every current interface the journal knows (renamed ones are
	 * found by identity); only those are read beyond the dump. */
	for (k = 0; k < n; k++) {
		bool named = false, done = false;
		struct nic nic;

		for (i = 1; i < argc && !named; i++)
			named = strcmp(links[k].ifname, argv[i]) == 0;
		if (argc >= 2 && !named)
			continue;
		if (journaled(j, &links[k])) {
			nic_from_link(actuator_io(act), &links[k], &nic);
			done = restore_one(ctx, act, j, &nic, links, n, &pp, ifaces, &code);
		}
		if (!done && named) {
			json_object *pj = json_object_new_object();

			json_object_object_add(pj, "ifname",
					       json_object_new_string(links[k].ifname));
			json_object_object_add(pj, "changes", json_object_new_array());
			json_object_array_add(ifaces, pj);
		}
	}
	json_object_object_add(doc, "interfaces", ifaces);
	journal_close(j);
	cli_peers_free(&pp);
	actuator_free(act);
	free(links);
	return cli_emit(ctx, doc, render_plans, code);
}

CLI_COMMAND(apply, .name = "apply", .args = "PROFILE [IFACE...]",
	    .help = "apply a profile now (all-or-nothing per interface)",
	    .details =
		    "Without IFACE: every interface backed by a device (lo, veth, bridges only by\n"
		    "name). A PROFILE containing '/' is a file. Prints IFACE KNOB OLD -> NEW per\n"
		    "change, or why a knob was skipped. The host-wide knobs a profile sets\n"
		    "(net.core.*) go once, as host, from the initial network namespace only.",
	    .example = "apply throughput eth0 --dry-run", .options = apply_options,
	    .opts_size = sizeof(struct apply_opts), .needs = CLI_NEEDS_NET_ADMIN | CLI_NEEDS_STATE,
	    .run = cmd_apply);
CLI_COMMAND(verify, .name = "verify", .args = "PROFILE [IFACE...]",
	    .help = "exit 0 when interfaces match the profile, 1 with the differences",
	    .details = "Without IFACE: every interface backed by a device, as apply selects them.",
	    .example = "verify throughput eth0", .options = verify_options,
	    .opts_size = sizeof(struct apply_opts), .run = cmd_verify);
CLI_COMMAND(restore, .name = "restore", .args = "[IFACE...]",
	    .help = "back to the values recorded before rtltune first changed them",
	    .details = "Without IFACE: every interface the journal holds originals for, and the\n"
		       "host-wide knobs (net.core.*) when an apply changed them.",
	    .example = "restore eth0", .needs = CLI_NEEDS_NET_ADMIN | CLI_NEEDS_STATE,
	    .run = cmd_restore);
