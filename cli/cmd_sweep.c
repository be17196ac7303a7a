// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltune sweep IFACE KNOB VALUES [--seconds N] [--settle S] [--svg FILE]: step one knob
 * through VALUES on the traffic that flows, measure each step with the probes (what the
 * tuner measures), then put the value from before the sweep back (docs/sweep.md).
 *
 * Every value is planned before the first change, so bad input changes nothing. Every
 * change goes through the actuator as one operation in flight ("sweep"): the journal holds
 * the pre-sweep values until the end, so after a SIGKILL `rtltune restore` (or rtltuned's
 * next start) puts them back. When rtltuned runs in this network namespace it is asked to
 * pause its tuner on the interface first, for as long as this process holds the control
 * connection open, so no trial falls into a step.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rtltune/control_client.h"
#include "rtltune/actuate.h"
#include "rtltune/cpustat.h"
#include "rtltune/probes.h"
#include "rtltune/sample.h"
#include "rtltune/svg.h"
#include "rtltune/sweep.h"
#include "rtltune/tuner.h"
#include "sweep.h"

struct sweep_ctx {
	struct cli_ctx *cli;
	struct sweep_run run;
	struct actuator *act;
	struct chipdb *db;
	const struct chip_entry *chip;
	struct probes *probes;
	int slot;
	struct ctl_conn *daemon;
	int64_t values[SWEEP_MAX_STEPS];
	unsigned int n_values;
	/* The devices the sweep changed (the interface first, then uppers its sizes reached),
	 * and their place in the stack: what the rollback reads and puts back. */
	int touched[PLAN_SET_MAX], levels[PLAN_SET_MAX];
	unsigned int n_touched;
	bool changed;
	sigset_t sigs;
	int signo;
	struct probe_counters *prev, *now;
	uint64_t prev_cpu;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait secs, or until SIGINT/SIGTERM/SIGHUP (blocked, so none is lost): its number, or 0. */
static int wait_secs(struct sweep_ctx *s, double secs)
{
	double end = now_s() + secs, left;
	struct timespec ts;
	int sig;

	while (!s->signo && (left = end - now_s()) > 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(&s->sigs, NULL, &ts);
		if (sig > 0)
			s->signo = sig;
	}
	return s->signo;
}

/* The counters now: the probes' for the interface and the host's kernel CPU time. */
static int read_now(struct sweep_ctx *s, struct probe_counters *c, uint64_t *cpu, struct rterr *err)
{
	int r = probes_read(s->probes, s->slot, c, err);

	if (r == 0 && cpustat_kernel_ns(cpu) < 0)
		*cpu = 0;
	return r;
}

/* One sample as the tuner counts it (sample_build(): rtltuned's samples the same way). */
static void take_sample(struct sweep_ctx *s, struct sweep_step *st, double secs, uint64_t cpu)
{
	const struct probe_counters *a = s->prev, *b = s->now;
	struct sweep_sample *x = &st->s[st->n++];
	struct sample_reading before, now;
	struct sample_env env = {.cpu_ns = sample_cpu_delta(cpu, s->prev_cpu)};
	struct tuner_sample t;
	struct rtl_hist d;

	sample_reading_from_probes(&before, a);
	sample_reading_from_probes(&now, b);
	sample_build(&t, &before, &now, &env, &x->retrans_segs);
	x->secs = secs;
	x->tx_bytes = t.tx_bytes;
	x->rx_bytes = t.rx_bytes;
	x->tx_packets = t.tx_packets;
	x->rx_packets = t.rx_packets;
	x->tx_segs = t.tx_segs;
	x->drops = t.drops;
	x->tx_busy = t.tx_busy;
	x->cpu_ns = t.cpu_ns;
	hist_delta(&d, &b->tx_skb_bytes, &a->tx_skb_bytes);
	hist_add(&st->tx_skb_bytes, &d);
	hist_delta(&d, &b->rx_skb_bytes, &a->rx_skb_bytes);
	hist_add(&st->rx_skb_bytes, &d);
}

/*
 * Measure one step: n samples of sample_seconds each. With probe, the first sample is the
 * probe window that refuses a sweep without traffic (RTERR_INPUT), before anything changed.
 */
static int measure(struct sweep_ctx *s, struct sweep_step *st, bool probe, struct rterr *err)
{
	unsigned int i, n = (unsigned int)lround(s->run.seconds / s->run.sample_seconds);
	struct tuner_config cfg;
	double t0, t1;
	uint64_t cpu;
	int r;

	tuner_config_default(&cfg);
	r = read_now(s, s->prev, &s->prev_cpu, err);
	t0 = now_s();
	for (i = 0; r == 0 && i < n && i < SWEEP_MAX_SAMPLES; i++) {
		struct probe_counters *t;
		const struct sweep_sample *x;

		if (wait_secs(s, s->run.sample_seconds))
			return 0;
		r = read_now(s, s->now, &cpu, err);
		t1 = now_s();
		if (r < 0)
			break;
		take_sample(s, st, t1 - t0, cpu);
		x = &st->s[st->n - 1];
		/* The tuner's idle rule: below either threshold nothing is measured. */
		if (probe && i == 0 &&
		    ((double)(x->tx_bytes + x->rx_bytes) / x->secs < cfg.idle_bytes_per_s ||
		     (double)(x->tx_packets + x->rx_packets) / x->secs < cfg.idle_packets_per_s))
			return rterr_input(
				err,
				"%s: no traffic in the %.1f s probe window (%.0f bytes/s, %.0f "
				"packets/s; a sweep needs at least %.0f bytes/s and %.0f "
				"packets/s): "
				"it measures the traffic that flows, so start the traffic first",
				s->run.ifname, x->secs,
				(double)(x->tx_bytes + x->rx_bytes) / x->secs,
				(double)(x->tx_packets + x->rx_packets) / x->secs,
				cfg.idle_bytes_per_s, cfg.idle_packets_per_s);
		t = s->prev;
		s->prev = s->now;
		s->now = t;
		s->prev_cpu = cpu;
		t0 = t1;
	}
	return r;
}

static void remember(struct sweep_ctx *s, int ifindex, int level)
{
	unsigned int i;

	for (i = 0; i < s->n_touched; i++)
		if (s->touched[i] == ifindex)
			return;
	if (s->n_touched < PLAN_SET_MAX) {
		s->levels[s->n_touched] = level;
		s->touched[s->n_touched++] = ifindex;
	}
}

/*
 * Plan value for the interface as it is now, with the uppers its size reaches
 * (docs/stack.md), into set[]: the limits refuse here (RTERR_INPUT naming the limit), and
 * a knob the device cannot take is refused with the planner's note.
 */
static int plan_value(struct sweep_ctx *s, int64_t value, struct plan set[PLAN_SET_MAX],
		      unsigned int *n_set, struct rterr *err)
{
	int64_t targets[KNOB__COUNT];
	bool which[KNOB__COUNT] = {false};
	struct link_info *links = NULL;
	struct plan_request req = {
		.targets = targets, .which = which, .src = "sweep", .refuse_skip = true};
	struct nic_stack st;
	struct nic nic;
	int n = 0, r;

	r = actuator_snapshot(s->act, s->run.ifindex, &nic, err);
	if (r < 0)
		return r;
	targets[s->run.knob] = value;
	which[s->run.knob] = true;
	r = link_dump(actuator_link_sock(s->act), &links, &n, err);
	if (r == 0) {
		stack_build(links, n, s->run.ifindex, &st);
		r = plan_device(&nic, s->db, &req, &st, links, n, set, n_set, err);
	}
	free(links);
	return r;
}

/* One step's change, journaled as part of the sweep's one operation in flight. */
static int change_to(struct sweep_ctx *s, int64_t value, unsigned int step, struct rterr *err)
{
	char reason[128];
	struct act_opts opts = {
		.op = "sweep",
		.actor = "cli",
		.outcome = "sweep",
		.reason = reason,
		.journal_originals = true,
		.keep_inflight = true,
	};
	struct plan set[PLAN_SET_MAX];
	struct journal *j = NULL;
	unsigned int n = 0, i;
	int r;

	snprintf(reason, sizeof(reason), "rtltune sweep %s step %u of %u (pid %d)",
		 knob_name(s->run.knob), step, s->n_values, (int)getpid());
	r = journal_open(s->cli->state_dir, &j, err);
	if (r == 0)
		r = plan_value(s, value, set, &n, err);
	if (r == 0)
		r = actuate_set(s->act, j, set, n, &opts, err);
	for (i = 0; i < n; i++)
		if (set[i].n_changes) {
			remember(s, set[i].ifindex, set[i].level);
			s->changed = true;
		}
	journal_close(j);
	return r;
}

/* Back to the values before the sweep: the pre-values its in-flight records hold. */
static int restore_all(struct sweep_ctx *s, struct rterr *err)
{
	struct act_opts opts = {
		.op = "sweep",
		.actor = "cli",
		.outcome = "sweep",
		.reason = "rtltune sweep done: the value from before it put back",
	};
	struct plan *plans = NULL;
	struct nic nics[PLAN_SET_MAX];
	struct journal *j = NULL;
	unsigned int i;
	int r;

	if (!s->changed)
		return 0;
	plans = calloc(PLAN_SET_MAX, sizeof(*plans));
	if (!plans)
		return rterr_sys(err, ENOMEM, "restore");
	r = journal_open(s->cli->state_dir, &j, err);
	for (i = 0; r == 0 && i < s->n_touched; i++)
		r = actuator_snapshot(s->act, s->touched[i], &nics[i], err);
	if (r == 0)
		r = actuate_rollback(s->act, j, nics, s->levels, s->n_touched, &opts, plans, err);
	journal_close(j);
	free(plans);
	return r;
}

/*
 * Ask rtltuned to pause its tuner on the interface while this connection stays open (a
 * trial in progress is rolled back first). A daemon that refuses stops the sweep: a trial
 * could fall into a step.
 */
static int pause_daemon(struct sweep_ctx *s, struct rterr *err)
{
	json_object *req, *res = NULL;
	char reason[96];
	int r;

	if (!ctl_daemon_here(s->cli->socket_path)) {
		s->run.daemon =
			ctl_daemon_running(s->cli->socket_path) ? "other netns" : "not running";
		return 0;
	}
	r = ctl_open(s->cli->socket_path, &s->daemon, err);
	if (r < 0)
		return r;
	snprintf(reason, sizeof(reason), "rtltune sweep %s", knob_name(s->run.knob));
	req = control_request_new("pause");
	json_object_object_add(req, "iface", json_object_new_string(s->run.ifname));
	json_object_object_add(req, "reason", json_object_new_string(reason));
	r = ctl_request(s->daemon, req, &res, err);
	json_object_put(req);
	if (r == 0) {
		json_object *p = NULL;

		json_object_object_get_ex(res, "paused", &p);
		/* An interface rtltuned does not manage has no tuner to pause. */
		s->run.daemon = json_object_get_boolean(p) ? "paused" : "not managing it";
	}
	json_object_put(res);
	if (r < 0) {
		rterr_prefix(err,
			     "rtltuned runs here and did not pause its tuner on %s, so a "
			     "trial could fall into a step: ",
			     s->run.ifname);
		return r;
	}
	return 0;
}

static void resume_daemon(struct sweep_ctx *s)
{
	json_object *req, *res = NULL;
	struct rterr e = {0};

	if (!s->daemon)
		return;
	req = control_request_new("resume");
	json_object_object_add(req, "iface", json_object_new_string(s->run.ifname));
	ctl_request(s->daemon, req, &res, &e);
	json_object_put(req);
	json_object_put(res);
	ctl_close(s->daemon);
	s->daemon = NULL;
}

/*
 * A size knob with an IPv4 twin (gso_max_size, gro_max_size): the kernel moves the twin
 * along only when the size is set to 64K or less (netif_set_gso_max_size()); above that the
 * twin keeps the value it had, and IPv4 traffic is sized by the twin alone. A step above 64K
 * then measures IPv4 at whatever the twin holds, which the user should know before waiting
 * for it.
 */
static void twin_note(struct sweep_ctx *s, const struct nic *nic)
{
	const struct knob_desc *d = knob_desc(s->run.knob);
	int64_t twin = d->twin >= 0 ? nic_knob_value(nic, (enum knob_id)d->twin) : LINK_UNSET;
	char steps[256] = "";
	size_t off = 0;
	unsigned int i, n = 0;

	if (twin == LINK_UNSET)
		return;
	for (i = 0; i < s->n_values; i++) {
		if (s->values[i] <= GSO_LEGACY_MAX_SIZE) {
			twin = s->values[i];
			continue;
		}
		if (off < sizeof(steps))
			off += (size_t)snprintf(steps + off, sizeof(steps) - off,
						"%s%" PRId64 " runs at %" PRId64, n ? ", " : "",
						s->values[i], twin);
		n++;
	}
	if (!n)
		return;
	snprintf(s->run.note, sizeof(s->run.note),
		 "%s above %d leaves %s where it is (the kernel moves it along only up to %d), "
		 "and IPv4 traffic is sized by %s: on IPv4 the step %s; sweep %s to measure IPv4 "
		 "above 64K",
		 d->name, GSO_LEGACY_MAX_SIZE, knob_name((enum knob_id)d->twin),
		 GSO_LEGACY_MAX_SIZE, knob_name((enum knob_id)d->twin), steps,
		 knob_name((enum knob_id)d->twin));
}

/* Every step journals: a journal that cannot be trusted (or locked) refuses the sweep before
 * the reference is measured, not after. */
static int journal_usable(struct sweep_ctx *s, struct rterr *err)
{
	struct journal *j = NULL;
	int r = journal_open(s->cli->state_dir, &j, err);

	journal_close(j);
	return r;
}

/* Everything checked before anything changes: the interface, the knob, every value, the
 * journal. */
static int prepare(struct sweep_ctx *s, const char *ifname, const char *knob, const char *values,
		   struct rterr *err)
{
	struct link_info *all = NULL;
	struct plan *set = NULL;
	struct nic *sel = NULL;
	int k, n_all = 0, n_sel = 0, r;
	char *names[1] = {(char *)ifname};
	unsigned int i, n;

	k = knob_from_name(knob);
	if (k < 0)
		return rterr_input(err, "sweep: unknown knob '%s' (knobs: %s)", knob,
				   knob_names_list());
	/* A sweep judges one interface's traffic by one of its knobs. */
	if (knob_is_host((enum knob_id)k))
		return rterr_input(err,
				   "sweep: %s is host-wide, no knob of %s (a profile's [knobs] "
				   "sets it for the host)",
				   knob, ifname);
	s->run.knob = (enum knob_id)k;
	r = chipdb_load_default(&s->db, err);
	if (r == 0)
		r = actuator_new(s->cli->sysfs_root, &s->act, err);
	if (r < 0)
		return r;
	nic_io_read_groups(actuator_io(s->act),
			   knob_desc(s->run.knob)->backend == KNOB_B_ETHNL
				   ? NIC_GROUP_BIT(knob_desc(s->run.knob)->ethnl_group)
			   : knob_desc(s->run.knob)->backend == KNOB_B_NAPI ||
					   knob_desc(s->run.knob)->backend == KNOB_B_QUEUE
				   ? NIC_GROUP_AROUND
				   : 0);
	r = cli_select(s->cli, actuator_io(s->act), names, 1, true, false, &all, &n_all, &sel,
		       &n_sel, err);
	free(all);
	if (r < 0)
		return r;
	snprintf(s->run.ifname, sizeof(s->run.ifname), "%s", sel[0].link.ifname);
	s->run.ifindex = sel[0].link.ifindex;
	s->chip = chipdb_match_nic(s->db, &sel[0], NULL);
	s->run.original = nic_knob_value(&sel[0], s->run.knob);
	r = sweep_parse_values(s->run.knob, values, plan_knob_max(s->run.knob, &sel[0], s->chip),
			       s->values, &s->n_values, SWEEP_MAX_STEPS - 1, err);
	if (r == 0)
		twin_note(s, &sel[0]);
	free(sel);
	if (r < 0)
		return r;
	set = calloc(PLAN_SET_MAX, sizeof(*set));
	if (!set)
		return rterr_sys(err, ENOMEM, "plan");
	for (i = 0; r == 0 && i < s->n_values; i++)
		r = plan_value(s, s->values[i], set, &n, err);
	free(set);
	if (r < 0 && err->kind == RTERR_INPUT)
		rterr_prefix(err, "sweep refused, nothing changed: ");
	if (r == 0)
		r = journal_usable(s, err);
	return r;
}

static void ctx_free(struct sweep_ctx *s)
{
	resume_daemon(s);
	probes_close(s->probes);
	actuator_free(s->act);
	chipdb_free(s->db);
	free(s->run.steps);
	free(s->prev);
	free(s->now);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

static int run_steps(struct sweep_ctx *s, struct rterr *err)
{
	unsigned int i;
	int r;

	/* The value before the sweep, first: the reference, and the probe window. */
	s->run.steps[0] = (struct sweep_step){.value = s->run.original, .original = true};
	r = measure(s, &s->run.steps[0], true, err);
	if (r < 0 || s->signo)
		return r;
	s->run.n_steps = 1;
	for (i = 0; i < s->n_values && !s->signo; i++) {
		struct sweep_step *st = &s->run.steps[s->run.n_steps];
		char v[32];

		*st = (struct sweep_step){.value = s->values[i]};
		if (!s->cli->json)
			fprintf(stderr, "step %u/%u: %s %s\n", i + 1, s->n_values,
				knob_name(s->run.knob),
				knob_value_str(s->run.knob, s->values[i], v, sizeof(v)));
		r = change_to(s, s->values[i], i + 1, err);
		if (r < 0)
			return r;
		if (wait_secs(s, s->run.settle_seconds))
			break;
		r = measure(s, st, false, err);
		if (r < 0)
			return r;
		if (!s->signo)
			s->run.n_steps++;
	}
	return 0;
}

struct sweep_opts {
	double seconds, settle;
	const char *svg;
};

static const struct cli_option sweep_options[] = {
	CLI_SECONDS(struct sweep_opts, seconds, "seconds", 0, "N", 0.2, 3600,
		    "measure each step for N seconds, 3 by default"),
	CLI_SECONDS(struct sweep_opts, settle, "settle", 0, "S", 0, 600,
		    "seconds to wait after each change, 1 by default"),
	CLI_STRING(struct sweep_opts, svg, "svg", 0, "FILE",
		   "write a chart of throughput against the value"),
	CLI_OPTIONS_END,
};

static int cmd_sweep(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct sweep_opts *o = ctx->opts;
	struct sweep_ctx s = {.cli = ctx,
			      .run = {.seconds = o->seconds, .settle_seconds = o->settle}};
	struct rterr err = {0}, rerr = {0};
	const char *svg = o->svg;
	json_object *doc;
	sigset_t old;
	int r, code = EXIT_OK;

	/* The chart's path, before a sweep that may take minutes is run for it. */
	if (svg && svg_check_writable(svg, &err) < 0) {
		rterr_prefix(&err, "sweep refused, nothing changed: ");
		return cli_fail(ctx, &err);
	}
	/* Samples of 0.5 s, at least 3 per step: the spread needs more than one. */
	s.run.sample_seconds =
		s.run.seconds / fmax(3, fmin(SWEEP_MAX_SAMPLES, round(s.run.seconds / 0.5)));

	/* Blocked before anything changes: a Ctrl-C still restores. */
	sigemptyset(&s.sigs);
	sigaddset(&s.sigs, SIGINT);
	sigaddset(&s.sigs, SIGTERM);
	sigaddset(&s.sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &s.sigs, &old);

	r = prepare(&s, argv[1], argv[2], argv[3], &err);
	if (r == 0 && s.run.note[0] && !ctx->json)
		fprintf(stderr, "rtltune: note: %s\n", s.run.note);
	if (r == 0) {
		struct probes_opts po = {.max_ifaces = 1};

		s.run.steps = calloc((size_t)s.n_values + 1, sizeof(*s.run.steps));
		s.prev = malloc(sizeof(*s.prev));
		s.now = malloc(sizeof(*s.now));
		if (!s.run.steps || !s.prev || !s.now)
			r = rterr_sys(&err, ENOMEM, "sweep");
		if (r == 0)
			r = probes_open(&s.probes, &po, &err);
		if (r == 0)
			r = s.slot = probes_select(s.probes, s.run.ifindex, &err);
	}
	if (r >= 0)
		r = pause_daemon(&s, &err);
	if (r >= 0)
		r = run_steps(&s, &err);
	if (restore_all(&s, &rerr) < 0)
		snprintf(s.run.restore_error, sizeof(s.run.restore_error), "%s", rerr.msg);
	else
		s.run.restored = s.changed;
	resume_daemon(&s);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r < 0 && !s.run.n_steps) {
		if (s.run.restore_error[0])
			fprintf(stderr, "rtltune: %s: restoring: %s\n", s.run.ifname,
				s.run.restore_error);
		code = cli_fail(ctx, &err);
		ctx_free(&s);
		return code;
	}
	if (s.signo)
		s.run.interrupted = signal_name(s.signo);
	doc = sweep_doc(&s.run);
	if (r < 0) {
		/* Failed midway: what was measured is shown, with why it stopped. */
		json_object_object_add(doc, "error", json_object_new_string(err.msg));
		code = err.kind == RTERR_INPUT ? EXIT_USAGE : EXIT_SYSTEM;
	}
	if (s.run.restore_error[0] || s.run.interrupted)
		code = EXIT_SYSTEM;
	if (svg && sweep_write_svg(doc, svg, &err) < 0) {
		json_object_object_add(doc, "svg_error", json_object_new_string(err.msg));
		code = EXIT_SYSTEM;
	} else {
		json_object_object_add(doc, "svg", svg ? json_object_new_string(svg) : NULL);
	}
	ctx_free(&s);
	return cli_emit(ctx, doc, sweep_render_text, code);
}

static const struct sweep_opts sweep_defaults = {.seconds = 3, .settle = 1};

CLI_COMMAND(sweep, .name = "sweep", .args = "IFACE KNOB VALUES",
	    .help = "step one knob through values on the traffic that flows, measure, restore",
	    .details = "VALUES: a list a,b,c (as a profile writes values: 16K, on, max), a range\n"
		       "FROM:TO:STEP, or max. Needs traffic on IFACE (docs/sweep.md).",
	    .example = "sweep eth0 gso_max_size 16K,32K,64K --svg gso.svg",
	    .options = sweep_options, .opts_size = sizeof(struct sweep_opts),
	    .opts_init = &sweep_defaults,
	    .needs = CLI_NEEDS_NET_ADMIN | CLI_NEEDS_BPF | CLI_NEEDS_STATE, .run = cmd_sweep);
