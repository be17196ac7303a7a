// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltuned: applies profiles to interfaces as they appear, keeps the probes counting,
 * answers rtltune on the control socket and serves /metrics (docs/daemon.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "applier.h"
#include "bpf.h"
#include "ctl.h"
#include "handlers.h"
#include "history.h"
#include "http.h"
#include "iface.h"
#include "linkmon.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "notify.h"
#include "outside.h"
#include "pmqos.h"
#include "rtltune/actuate.h"
#include "sampler.h"
#include "state.h"
#include "trust.h"
#include "tune.h"

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

static struct ev_io sig_io = {.fd = -1};
/* A SIGHUP before READY=1 waits: the first sample runs the loop while the daemon is only
 * half set up, and a reload then would race the rest of the start. */
static bool ready, reload_pending;
static int ready_pipe = -1; /* detached start: tells the parent we are ready */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rtltuned [OPTIONS]\n"
		"  --config FILE           config file (default %s; none: built-in defaults)\n"
		"  --foreground            do not detach (systemd runs it so)\n"
		"  --socket PATH           control socket (default %s)\n"
		"  --metrics ADDR:PORT|off /metrics listener (default %s)\n"
		"  --state-dir DIR         journal and state (default %s)\n"
		"  --interfaces GLOB[,GLOB...]  interfaces to manage (virtual ones only by name)\n"
		"  --profile NAME          profile applied to managed interfaces\n"
		"  --no-autotune           do not tune automatically\n"
		"  --version, --help\n",
		RTD_DEFAULT_CONFIG, CONTROL_DEFAULT_SOCKET, RTD_DEFAULT_METRICS, RTLTUNE_STATEDIR);
}

/* journald reads our stderr under systemd: priority prefixes, no program name. */
static void log_setup(int level)
{
	if (getenv("JOURNAL_STREAM"))
		dlog_init(DLOG_JOURNAL, level);
	else if (rtd.foreground)
		dlog_init(DLOG_STDERR, level);
	else
		dlog_init(DLOG_SYSLOG, level);
}

/* After every sample: PM QoS (a refresh can change a chip), the textfile and the one-line
 * status follow it. */
static void sample_done(void)
{
	pmqos_update(false);
	metrics_textfile_write();
	notify_status();
}

/*
 * The interface table's observers, in the order they act on an event: the probes count
 * a managed interface first, the tuner follows it, the applier gives it the profile, the
 * sampler hands memory back after removals, PM QoS follows the managed shallow-idle chips.
 */
static void subscribe_observers(void)
{
	iface_subscribe(bpf_iface_event);
	iface_subscribe(tune_iface_event);
	iface_subscribe(applier_iface_event);
	iface_subscribe(sampler_iface_event);
	iface_subscribe(pmqos_iface_event);
	iface_subscribe(history_iface_event);
}

/* SIGHUP: read everything anew; anything bad keeps the running state whole. */
static void reload(void)
{
	struct rtd_config cfg = {0}, old;
	struct rterr err = {0};
	int r;

	notify_reloading();
	r = config_load(&rtd.ov, &cfg, &err);
	if (r == 0)
		r = state_load_policy(&cfg, &err);
	if (r < 0) {
		dlog(LOG_ERR, NULL, "reload failed, keeping the running configuration: %s",
		     err.msg);
		snprintf(rtd.last_reload_error, sizeof(rtd.last_reload_error), "%s", err.msg);
		config_free(&cfg);
		notify_reloaded();
		return;
	}
	old = rtd.cfg;
	if (strcmp(cfg.socket, old.socket) != 0) {
		dlog(LOG_WARNING, NULL, "socket path change to %s needs a restart; still on %s",
		     cfg.socket, old.socket);
		snprintf(cfg.socket, sizeof(cfg.socket), "%s", old.socket);
	}
	if (cfg.probes != old.probes) {
		dlog(LOG_WARNING, NULL, "probes = %s needs a restart; still %s",
		     cfg.probes ? "on" : "off", old.probes ? "on" : "off");
		cfg.probes = old.probes;
	}
	rtd.cfg = cfg;
	if (cfg.socket_gid != old.socket_gid && ctl_set_group(cfg.socket_gid) < 0)
		dlog(LOG_ERR, NULL, "cannot give the socket to group %s", cfg.socket_group);
	if (strcmp(cfg.metrics, old.metrics) != 0) {
		http_stop();
		if (cfg.metrics[0] && http_start(cfg.metrics, &err) < 0)
			dlog(LOG_ERR, NULL, "%s", err.msg);
	}
	if (cfg.sample_interval_us != old.sample_interval_us)
		sampler_start(sample_done);
	/* New tunables need a new tuner: trials in progress are rolled back first. */
	if (memcmp(&cfg.tuner, &old.tuner, sizeof(cfg.tuner)) != 0) {
		tune_stop("tuner reconfigured");
		if (tune_start(&err) < 0)
			dlog(LOG_ERR, NULL, "tuner: %s", err.msg);
	}
	dlog_set_level(cfg.log_level);
	/* The journal is judged anew (the operator's way back from an untrusted one) and,
	 * trusted, has what a crash left in flight rolled back before any apply. */
	if (trust_check())
		tune_recover_orphans();
	/* Profiles and chips were read anew: apply again (a no-op where nothing changed). */
	iface_reselect_all(true);
	/* cpu_dma_latency may have changed with no interface event; a refused request gets
	 * another try. */
	pmqos_update(true);
	config_free(&old);
	rtd.reloads++;
	rtd.last_reload_error[0] = '\0';
	state_changed();
	dlog(LOG_INFO, NULL, "reloaded %s", cfg.path[0] ? cfg.path : "(built-in defaults)");
	notify_reloaded();
}

static void signal_cb(struct ev_io *io, uint32_t events)
{
	struct signalfd_siginfo si;

	while (read(io->fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			dlog(LOG_INFO, NULL, "%s: stopping", strsignal((int)si.ssi_signo));
			rtd.stopping = true;
			break;
		case SIGHUP:
			if (ready)
				reload();
			else
				reload_pending = true;
			break;
		}
	}
}

static int signals_setup(void)
{
	sigset_t set;
	int r;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	sig_io.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_io.fd < 0)
		return -errno;
	sig_io.cb = signal_cb;
	r = loop_add(&sig_io, EPOLLIN);
	return r;
}

/*
 * Without --foreground: fork and start a session, but the parent exits only once the
 * daemon is ready (or with the daemon's own exit code when it failed to start), so a
 * script that runs `rtltuned && rtltune status` never races the socket.
 */
static int detach(void)
{
	int fds[2], status, devnull;
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		if (read(fds[0], &c, 1) == 1)
			_exit(0);
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
			_exit(WEXITSTATUS(status));
		_exit(3);
	}
	close(fds[0]);
	setsid();
	ready_pipe = fds[1];
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		close(devnull);
	}
	if (chdir("/") < 0) {
		/* "/" always exists */
	}
	return 0;
}

static void tell_parent_ready(void)
{
	int devnull;

	if (ready_pipe < 0)
		return;
	if (write(ready_pipe, "1", 1) < 0) {
		/* the parent is gone: nobody to tell */
	}
	close(ready_pipe);
	ready_pipe = -1;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDERR_FILENO);
		close(devnull);
	}
}

static int fail(const struct rterr *err)
{
	fprintf(stderr, "rtltuned: %s\n", err->msg);
	return err->kind == RTERR_INPUT ? 2 : 3;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"foreground", no_argument, NULL, 'f'},
		{"socket", required_argument, NULL, 's'},
		{"metrics", required_argument, NULL, 'm'},
		{"state-dir", required_argument, NULL, 'd'},
		{"interfaces", required_argument, NULL, 'i'},
		{"profile", required_argument, NULL, 'p'},
		{"no-autotune", no_argument, NULL, 'A'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	rtd.ov.autotune = -1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "c:fh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			rtd.ov.config = optarg;
			break;
		case 'f':
			rtd.foreground = true;
			break;
		case 's':
			rtd.ov.socket = optarg;
			break;
		case 'm':
			rtd.ov.metrics = optarg;
			break;
		case 'd':
			rtd.ov.state_dir = optarg;
			break;
		case 'i':
			rtd.ov.interfaces = optarg;
			break;
		case 'p':
			rtd.ov.profile = optarg;
			break;
		case 'A':
			rtd.ov.autotune = 0;
			break;
		case 'V':
			printf("rtltuned %s\n", RTLTUNE_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr,
				"rtltuned: unknown option or missing value: '%s' (see --help)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtltuned: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static int run(void)
{
	struct rterr err = {0};
	uint64_t next_apply;
	int timeout, r;

	rtd.started = now_real();
	rtd.started_us = now_us();
	if (loop_init() < 0 || signals_setup() < 0) {
		rterr_sys(&err, errno, "event loop setup");
		return fail(&err);
	}
	if (mkdir(rtd.cfg.state_dir, 0750) < 0 && errno != EEXIST) {
		rterr_sys(&err, errno, "cannot create state directory %s", rtd.cfg.state_dir);
		return fail(&err);
	}
	r = state_load_policy(&rtd.cfg, &err);
	if (r == 0)
		r = actuator_new("/sys", &rtd.act, &err);
	if (r < 0)
		return fail(&err);
	subscribe_observers();
	bpf_start();
	r = ctl_start(rtd.cfg.socket, rtd.cfg.socket_gid, handlers_find, &err);
	if (r < 0)
		goto out;
	if (rtd.cfg.metrics[0]) {
		r = http_start(rtd.cfg.metrics, &err);
		if (r < 0)
			goto out;
	}
	r = linkmon_start();
	if (r < 0) {
		rterr_sys(&err, -r, "rtnetlink link monitor");
		goto out;
	}
	r = outside_start(&err);
	if (r < 0)
		goto out;
	r = sampler_start(sample_done);
	if (r < 0) {
		rterr_sys(&err, -r, "sampler timer");
		goto out;
	}
	/* The first dump fills the interface table and the probe slots before READY=1. */
	sampler_kick();
	/* Before any change: a journal that cannot be trusted stops them all; one that can
	 * has a trial or apply a crash left in flight rolled back first. */
	if (trust_check())
		tune_recover_orphans();
	r = tune_start(&err);
	if (r < 0)
		goto out;
	iface_reselect_all(false);
	dlog(trust_ok() ? LOG_INFO : LOG_WARNING, NULL,
	     "ready: socket %s, metrics %s, %s, ethtool via %s, profile %s%s", rtd.cfg.socket,
	     rtd.cfg.metrics[0] ? rtd.cfg.metrics : "off",
	     bpf_active() ? "BPF probes" : "link counters", nic_io_path(actuator_io(rtd.act)),
	     rtd.cfg.profile[0] ? rtd.cfg.profile : "none",
	     trust_ok() ? "" : "; observing only: the journal is untrusted (rtltune status)");
	notify_ready();
	tell_parent_ready();
	ready = true;
	if (reload_pending)
		reload();

	while (!rtd.stopping) {
		next_apply = applier_run_pending();
		if (sampler_step() == 0 || http_work())
			next_apply = 0;
		timeout = http_timeout_ms();
		if (next_apply != UINT64_MAX) {
			int ms = (int)((next_apply + 999) / 1000);

			if (timeout < 0 || ms < timeout)
				timeout = ms;
		}
		r = loop_run_once(timeout);
		if (r < 0) {
			rterr_sys(&err, -r, "epoll_wait");
			goto out;
		}
		/* Every turn, not only when its epoll fd is ready: after closing idle
		 * connections at its limit, libmicrohttpd re-arms its listening socket only
		 * in a later run, and the backlog would wait for the next timeout. */
		http_run();
	}
	r = 0;
out:
	notify_stopping();
	tune_stop("rtltuned stopping");
	if (rtd.stopping && rtd.cfg.restore_on_exit)
		applier_restore_all();
	/* Released with its own reason in the log; the gone events of iface_remove_all()
	 * below find it stopped. */
	pmqos_stop();
	/* Settings stay as they are (unless restore_on_exit): the probes go, the NICs keep
	 * their tuning. */
	bpf_stop();
	http_stop();
	ctl_stop();
	sampler_stop();
	outside_stop();
	linkmon_stop();
	iface_remove_all();
	state_free();
	config_free(&rtd.cfg);
	if (r < 0)
		return fail(&err);
	dlog(LOG_INFO, NULL, "stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct rterr err = {0};

	/* Fixed thresholds: glibc otherwise raises the mmap threshold after the first big
	 * free, and the /metrics text of a burst of interfaces would then stay on the heap
	 * for good. Big buffers are mmap'ed and unmapped when freed; the heap top is
	 * trimmed early. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 256 * 1024);
	if (parse_args(argc, argv) < 0)
		return 2;
	if (config_load(&rtd.ov, &rtd.cfg, &err) < 0)
		return fail(&err);
	log_setup(rtd.cfg.log_level);
	if (!rtd.foreground && detach() < 0) {
		rterr_sys(&err, errno, "cannot detach");
		return fail(&err);
	}
	return run();
}
