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
#include "pods.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "notify.h"
#include "outside.h"
#include "pmqos.h"
#include "rtltune/actuate.h"
#include "rtltune/control_client.h"
#include "sampler.h"
#include "signals.h"
#include "state.h"
#include "trust.h"
#include "tune.h"
#include "tune_act.h"

#ifndef RTLTUNE_VERSION
#define RTLTUNE_VERSION "0.1.0"
#endif

static struct ev_io sig_io = {.fd = -1};
/* A SIGHUP before READY=1 waits: the first sample runs the loop while the daemon is only
 * half set up, and a reload then would race the rest of the start. */
static bool ready, reload_pending;
static int ready_pipe = -1; /* detached start: tells the parent we are ready */
/* What this run does: be the daemon, or one of the unit's helpers (--reload,
 * --prepare-socket). */
static enum { RUN_DAEMON, RUN_RELOAD, RUN_PREPARE_SOCKET } run_mode;

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
		"  --reload                make the running rtltuned reload; wait for the result\n"
		"  --prepare-socket        give /run/rtltune to socket_group (ExecStartPre=+)\n"
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
 * sampler hands memory back after removals, PM QoS follows the managed shallow-idle chips,
 * the history and the signals (queue stats, NAPI threads) go with the managed part.
 */
static void subscribe_observers(void)
{
	iface_subscribe(bpf_iface_event);
	iface_subscribe(tune_iface_event);
	iface_subscribe(applier_iface_event);
	iface_subscribe(sampler_iface_event);
	iface_subscribe(pmqos_iface_event);
	iface_subscribe(history_iface_event);
	iface_subscribe(signals_iface_event);
}

/*
 * SIGHUP, and the control socket's "reload" (rtltuned --reload, the unit's ExecReload=):
 * read everything anew. Anything bad keeps the running state whole and is returned in err
 * ("reload failed, keeping the running configuration: FILE:LINE: ...").
 */
static int reload(struct rterr *err)
{
	struct rtd_config cfg = {0}, old;
	char why[sizeof(err->msg)];
	int r;

	notify_reloading();
	r = config_load(&rtd.ov, &cfg, err);
	if (r == 0)
		r = state_load_policy(&cfg, err);
	if (r < 0) {
		dlog(LOG_ERR, NULL, "reload failed, keeping the running configuration: %s",
		     err->msg);
		snprintf(rtd.last_reload_error, sizeof(rtd.last_reload_error), "%s", err->msg);
		snprintf(why, sizeof(why), "%s", err->msg);
		snprintf(err->msg, sizeof(err->msg),
			 "reload failed, keeping the running configuration: %s", why);
		config_free(&cfg);
		notify_reloaded();
		return r;
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
	/* Under the shipped unit (no CAP_CHOWN) this fails: the unit's ExecStartPre gives the
	 * directory to the group at start, so a new group takes a restart. */
	if (cfg.socket_gid != old.socket_gid && (r = ctl_set_group(cfg.socket_gid)) < 0)
		dlog(LOG_ERR, NULL, "cannot give the socket to group %s: %s (restart rtltuned)",
		     cfg.socket_group, strerror(-r));
	if (strcmp(cfg.metrics, old.metrics) != 0) {
		http_stop();
		if (cfg.metrics[0] && http_start(cfg.metrics, err) < 0)
			dlog(LOG_ERR, NULL, "%s", err->msg);
	}
	if (cfg.sample_interval_us != old.sample_interval_us)
		sampler_start(sample_done);
	/* New tunables need a new tuner: trials in progress are rolled back first. */
	if (memcmp(&cfg.tuner, &old.tuner, sizeof(cfg.tuner)) != 0) {
		tune_stop("tuner reconfigured");
		if (tune_start(err) < 0)
			dlog(LOG_ERR, NULL, "tuner: %s", err->msg);
	}
	dlog_set_level(cfg.log_level);
	/* The journal is judged anew (the operator's way back from an untrusted one) and,
	 * trusted, has what a crash left in flight rolled back before any apply. */
	if (trust_check())
		tune_recover_orphans(NULL);
	/* Namespaces selected anew; profiles and chips were read anew: apply again (a no-op
	 * where nothing changed). */
	pods_reload();
	iface_reselect_all(true);
	applier_host_schedule();
	/* cpu_dma_latency may have changed with no interface event; a refused request gets
	 * another try. */
	pmqos_update(true);
	config_free(&old);
	rtd.reloads++;
	rtd.last_reload_error[0] = '\0';
	state_changed();
	dlog(LOG_INFO, NULL, "reloaded %s", cfg.path[0] ? cfg.path : "(built-in defaults)");
	notify_reloaded();
	memset(err, 0, sizeof(*err));
	return 0;
}

/* The control socket's "reload": answered when the reload is done. */
static int reload_request(struct rterr *err)
{
	if (!ready)
		return rterr_sys(err, EAGAIN,
				 "rtltuned is still starting: reload once it is ready");
	return reload(err);
}

static void signal_cb(struct ev_io *io, uint32_t events)
{
	struct signalfd_siginfo si;
	struct rterr err = {0};

	while (read(io->fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			dlog(LOG_INFO, NULL, "%s: stopping", strsignal((int)si.ssi_signo));
			rtd.stopping = true;
			break;
		case SIGHUP:
			if (ready)
				reload(&err);
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
		{"reload", no_argument, NULL, 'R'},
		{"prepare-socket", no_argument, NULL, 'P'},
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
		case 'R':
			run_mode = RUN_RELOAD;
			break;
		case 'P':
			run_mode = RUN_PREPARE_SOCKET;
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
	handlers_set_reload(reload_request);
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
	/* The pods' namespaces (namespaces = ...): their interfaces join the table now. Not
	 * allowed to (a unit without the drop-in): said, and the daemon's own namespace is
	 * tuned all the same, as after a reload (pods_reload()). */
	pods_start_or_say();
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
		tune_recover_orphans(NULL);
	r = tune_start(&err);
	if (r < 0)
		goto out;
	iface_reselect_all(false);
	applier_host_schedule();
	dlog(trust_ok() ? LOG_INFO : LOG_WARNING, NULL,
	     "ready: socket %s, metrics %s, %s, ethtool via %s, profile %s%s", rtd.cfg.socket,
	     rtd.cfg.metrics[0] ? rtd.cfg.metrics : "off",
	     bpf_active() ? "BPF probes" : "link counters", nic_io_path(actuator_io(rtd.act)),
	     rtd.cfg.profile[0] ? rtd.cfg.profile : "none",
	     trust_ok() ? "" : "; observing only: the journal is untrusted (rtltune status)");
	notify_ready();
	tell_parent_ready();
	ready = true;
	if (reload_pending) {
		struct rterr reload_err = {0};

		reload(&reload_err);
	}

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
	pods_stop();
	iface_remove_all();
	state_free();
	config_free(&rtd.cfg);
	if (r < 0)
		return fail(&err);
	dlog(LOG_INFO, NULL, "stopped");
	return 0;
}

/*
 * rtltuned --reload (the unit's ExecReload=): the running daemon reloads through its
 * control socket, and this exits with the outcome: 0, or the daemon's error (FILE:LINE)
 * and 2 or 3, so that `systemctl reload` fails visibly on a broken file while the daemon
 * keeps its state. The socket is the one the config names, with the same flags and
 * environment as the daemon's; when the file cannot be read, --socket, $RTLTUNE_SOCKET or
 * the default, and the daemon then reports the file's error itself.
 */
static int reload_daemon(void)
{
	struct rtd_config cfg = {0};
	struct rterr err = {0}, cfg_err = {0};
	json_object *req, *res = NULL, *o;
	struct ctl_conn *c;
	const char *path;
	bool have_cfg;
	int r;

	have_cfg = config_load(&rtd.ov, &cfg, &cfg_err) == 0;
	if (have_cfg)
		path = cfg.socket;
	else if (rtd.ov.socket)
		path = rtd.ov.socket;
	else if (!(path = getenv("RTLTUNE_SOCKET")) || !*path)
		path = CONTROL_DEFAULT_SOCKET;
	r = ctl_open(path, &c, &err);
	if (r < 0) {
		if (!have_cfg)
			fprintf(stderr, "rtltuned: %s\n", cfg_err.msg);
		config_free(&cfg);
		return fail(&err);
	}
	req = control_request_new("reload");
	r = ctl_request(c, req, &res, &err);
	json_object_put(req);
	ctl_close(c);
	config_free(&cfg);
	if (r < 0)
		return fail(&err);
	printf("rtltuned: reloaded %s\n", json_object_object_get_ex(res, "config", &o) && o
						  ? json_object_get_string(o)
						  : "(built-in defaults)");
	json_object_put(res);
	return 0;
}

/*
 * rtltuned --prepare-socket (the unit's ExecStartPre=+, root outside the sandbox, before
 * it): makes the socket's directory, /run/rtltune, root's and socket_group's with the
 * setgid bit (02750), so the socket rtltuned binds there belongs to the group from the
 * start and the daemon needs neither CAP_CHOWN nor chown(2). Only that directory: a
 * socket elsewhere is the daemon's business, and with a group other than root it then
 * needs CAP_CHOWN, which the unit does not grant: refused here, with the reason.
 */
static int prepare_socket(void)
{
	char dir[PATH_MAX], *slash;
	struct rterr err = {0};
	struct stat st;
	int e = 0;

	snprintf(dir, sizeof(dir), "%s", rtd.cfg.socket);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (!slash || strcmp(dir, CONTROL_RUNTIME_DIR) != 0) {
		if (rtd.cfg.socket_gid == 0)
			return 0;
		rterr_input(
			&err,
			"socket %s with socket_group %s: only %s is given to a group before the "
			"start (rtltuned has no CAP_CHOWN under the unit): put the socket there",
			rtd.cfg.socket, rtd.cfg.socket_group, CONTROL_RUNTIME_DIR);
		return fail(&err);
	}
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		rterr_sys(&err, errno, "cannot create %s", dir);
		return fail(&err);
	}
	if (lstat(dir, &st) < 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	if (e) {
		rterr_sys(&err, e, "%s", dir);
		return fail(&err);
	}
	if (chown(dir, 0, rtd.cfg.socket_gid) < 0 || chmod(dir, 02750) < 0) {
		rterr_sys(&err, errno, "give %s to group %s", dir, rtd.cfg.socket_group);
		return fail(&err);
	}
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
	if (run_mode == RUN_RELOAD)
		return reload_daemon();
	if (config_load(&rtd.ov, &rtd.cfg, &err) < 0)
		return fail(&err);
	if (run_mode == RUN_PREPARE_SOCKET)
		return prepare_socket();
	log_setup(rtd.cfg.log_level);
	if (!rtd.foreground && detach() < 0) {
		rterr_sys(&err, errno, "cannot detach");
		return fail(&err);
	}
	return run();
}
