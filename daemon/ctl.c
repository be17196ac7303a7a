// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket server: non-blocking accept, one bounded line buffer per client,
 * queued replies written as the client reads them, SO_PEERCRED checked once per client.
 */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"
#include "loop.h"
#include "state.h"

struct ctl_client {
	struct ev_io io;
	struct ctl_client *next;
	struct ctl_peer peer;
	struct linebuf in;
	char *out;
	size_t out_len, out_off, out_cap;
	bool follow;
	uint64_t follow_seq;
	bool closing; /* flush what is queued, then close */
	uint32_t events;
	void (*on_close)(struct ctl_client *c); /* what a request asked for while connected */
};

static ctl_lookup_fn lookup_handler;
static unsigned int n_clients;
static uint64_t n_requests;

unsigned int ctl_client_count(void)
{
	return n_clients;
}

uint64_t ctl_request_count(void)
{
	return n_requests;
}

static struct ev_io listen_io = {.fd = -1};
static char listen_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static gid_t sock_gid;
static struct ctl_client *clients;

const char *ctl_path(void)
{
	return listen_path;
}

void ctl_client_on_close(struct ctl_client *c, void (*fn)(struct ctl_client *c))
{
	c->on_close = fn;
}

static void client_free(struct ctl_client *c)
{
	struct ctl_client **pp;

	if (c->on_close)
		c->on_close(c);
	for (pp = &clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	loop_del(&c->io);
	close(c->io.fd);
	linebuf_free(&c->in);
	free(c->out);
	free(c);
	n_clients--;
}

static void client_set_events(struct ctl_client *c)
{
	uint32_t ev = 0;

	/* A client being closed gets EPOLLOUT even with nothing queued: the flush closes it. */
	if (c->out_len > c->out_off || c->closing)
		ev |= EPOLLOUT;
	/* Stop reading a client that does not read its replies: requests wait in the
	 * kernel's socket buffer instead of growing ours. */
	if (!c->closing && c->out_len - c->out_off < CTL_OUT_PAUSE)
		ev |= EPOLLIN;
	if (ev != c->events) {
		loop_mod(&c->io, ev);
		c->events = ev;
	}
}

/* Write what is queued; returns -1 when the client went away (and was freed). */
static int client_flush(struct ctl_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->io.fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			client_free(c);
			return -1;
		}
		c->out_off += (size_t)n;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		if (c->closing) {
			client_free(c);
			return -1;
		}
		/* A burst (a big stats reply) should not pin memory for the client's life, nor
		 * the heap: the reply's JSON tree and text (megabytes for a status of 1000
		 * interfaces) go back to the system now, not at the sampler's next trim. */
		if (c->out_cap > 256 * 1024) {
			free(c->out);
			c->out = NULL;
			c->out_cap = 0;
			malloc_trim(0);
		}
	}
	client_set_events(c);
	return 0;
}

static int client_queue(struct ctl_client *c, json_object *msg)
{
	size_t len;
	char *line = control_serialize(msg, &len);

	if (!line)
		return -ENOMEM;
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len - c->out_off + len > CTL_OUT_MAX) {
		free(line);
		return -ENOBUFS;
	}
	if (c->out_len + len > c->out_cap) {
		size_t cap;
		char *grown;

		if (c->out_off) {
			memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + len)
			cap *= 2;
		grown = realloc(c->out, cap);
		if (!grown) {
			free(line);
			return -ENOMEM;
		}
		c->out = grown;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, line, len);
	c->out_len += len;
	free(line);
	return 0;
}

static void reply_error(struct ctl_client *c, enum rterr_kind kind, int errnum, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));
static void reply_error(struct ctl_client *c, enum rterr_kind kind, int errnum, const char *fmt,
			...)
{
	struct rterr err = {.kind = kind, .errnum = errnum};
	json_object *rep;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	rep = control_reply_error(&err);
	client_queue(c, rep);
	json_object_put(rep);
}

static void handle_line(struct ctl_client *c, const char *line, size_t len)
{
	const struct ctl_handler *h;
	struct ctl_request_ctx rc = {.client = c, .peer = &c->peer};
	json_object *req, *o, *result, *rep;
	struct rterr err = {0};
	const char *cmd;

	n_requests++;
	if (!len)
		return;
	if (control_parse_line(line, len, &req, &err) < 0) {
		reply_error(c, RTERR_INPUT, EINVAL,
			    "bad request: %s (one {\"v\": %d, \"cmd\": ...} per line)", err.msg,
			    CONTROL_PROTO_VERSION);
		return;
	}
	if (!json_object_is_type(req, json_type_object)) {
		reply_error(c, RTERR_INPUT, EINVAL,
			    "request is not a JSON object (one {\"v\": %d, \"cmd\": ...} per line)",
			    CONTROL_PROTO_VERSION);
		json_object_put(req);
		return;
	}
	if (!json_object_object_get_ex(req, "v", &o) || !json_object_is_type(o, json_type_int) ||
	    json_object_get_int(o) < 1 || json_object_get_int(o) > CONTROL_PROTO_VERSION) {
		reply_error(c, RTERR_INPUT, EPROTONOSUPPORT,
			    "unsupported protocol version (this rtltuned speaks \"v\": 1 to %d)",
			    CONTROL_PROTO_VERSION);
		json_object_put(req);
		return;
	}
	if (!json_object_object_get_ex(req, "cmd", &o) ||
	    !json_object_is_type(o, json_type_string)) {
		reply_error(c, RTERR_INPUT, EINVAL, "request without \"cmd\"");
		json_object_put(req);
		return;
	}
	cmd = json_object_get_string(o);
	h = lookup_handler ? lookup_handler(cmd) : NULL;
	if (!h) {
		reply_error(
			c, RTERR_INPUT, EINVAL,
			"unknown command '%.64s' (expected hello, status, stats, hist, log, "
			"recommend, history, autotune, apply, restore, pause, resume or reload)",
			cmd);
	} else if (h->changes && !c->peer.may_change) {
		reply_error(
			c, RTERR_SYSTEM, EPERM,
			"%s changes settings and needs root (you are uid %u): permission denied",
			h->cmd, (unsigned int)c->peer.uid);
		dlog(LOG_NOTICE, NULL, "refused %s from uid %u (pid %d): needs root", h->cmd,
		     (unsigned int)c->peer.uid, (int)c->peer.pid);
	} else {
		rc.req = req;
		result = h->fn(&rc, &err);
		rep = result ? control_reply_ok(result) : control_reply_error(&err);
		if (client_queue(c, rep) < 0)
			c->closing = true;
		json_object_put(rep);
		if (result && rc.follow) {
			c->follow = true;
			c->follow_seq = rc.follow_seq;
		}
	}
	json_object_put(req);
}

static void client_cb(struct ev_io *io, uint32_t events)
{
	struct ctl_client *c = io->data;
	char *dst, *line;
	size_t room;
	ssize_t n;
	int r;

	if (events & EPOLLOUT) {
		if (client_flush(c) < 0)
			return;
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	if (linebuf_reserve(&c->in, &dst, &room) < 0) {
		reply_error(c, RTERR_INPUT, EMSGSIZE, "request longer than %d bytes",
			    CONTROL_MAX_REQUEST);
		c->closing = true;
		client_flush(c);
		return;
	}
	n = recv(c->io.fd, dst, room, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		client_free(c);
		return;
	}
	linebuf_commit(&c->in, (size_t)n);
	while ((r = linebuf_next(&c->in, &line)) >= 0) {
		handle_line(c, line, (size_t)r);
		if (c->closing || c->out_len - c->out_off >= CTL_OUT_PAUSE)
			break;
	}
	if (r == -EMSGSIZE) {
		reply_error(c, RTERR_INPUT, EMSGSIZE, "request longer than %d bytes",
			    CONTROL_MAX_REQUEST);
		c->closing = true;
	}
	client_flush(c);
}

static void peer_check(int fd, struct ctl_peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t groups[256];
	unsigned int i, n;

	memset(p, 0, sizeof(*p));
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return;
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->may_change = cred.uid == 0;
	/* The socket file's 0660 mode already keeps others out; this holds if someone
	 * loosens it, and covers clients that inherited an fd. */
	p->may_read = cred.uid == 0 || cred.uid == geteuid() || cred.gid == sock_gid;
	if (p->may_read)
		return;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return;
	n = len / sizeof(gid_t);
	for (i = 0; i < n; i++)
		if (groups[i] == sock_gid)
			p->may_read = true;
}

static void listen_cb(struct ev_io *io, uint32_t events)
{
	struct ctl_client *c;
	int fd;

	/* Drain the backlog: 50 clients connecting at once arrive in one wakeup. */
	while ((fd = accept4(io->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (n_clients >= CTL_MAX_CLIENTS) {
			static const char busy[] =
				"{\"v\":1,\"ok\":false,\"error\":\"rtltuned: too many clients\","
				"\"errno\":16,\"exit_code\":3}\n";

			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				/* nothing more to tell a client we cannot serve */
			}
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->io.fd = fd;
		c->io.cb = client_cb;
		c->io.data = c;
		linebuf_init(&c->in, CONTROL_MAX_REQUEST);
		peer_check(fd, &c->peer);
		c->events = EPOLLIN;
		if (loop_add(&c->io, EPOLLIN) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = clients;
		clients = c;
		n_clients++;
		if (!c->peer.may_read) {
			reply_error(c, RTERR_SYSTEM, EACCES,
				    "uid %u is not in the socket's group %s: permission denied",
				    (unsigned int)c->peer.uid, rtd.cfg.socket_group);
			c->closing = true;
			client_flush(c);
		}
	}
}

/* Push a new log entry to every follower. */
static void log_listener(const struct dlog_entry *e, void *data)
{
	struct ctl_client *c, *next;

	for (c = clients; c; c = next) {
		json_object *ev;

		next = c->next;
		if (!c->follow || c->closing || e->seq <= c->follow_seq)
			continue;
		ev = json_object_new_object();
		json_object_object_add(ev, "v", json_object_new_int(CONTROL_PROTO_VERSION));
		json_object_object_add(ev, "event", json_object_new_string("log"));
		json_object_object_add(ev, "entry", dlog_entry_json(e));
		c->follow_seq = e->seq;
		if (client_queue(c, ev) < 0) {
			/* A follower this far behind is not reading: drop it rather than
			 * buffer without bound. */
			c->closing = true;
			c->out_len = c->out_off = 0;
		}
		json_object_put(ev);
		/* Only arm EPOLLOUT: writing here could free a client whose callback is
		 * running (a handler that logs). */
		client_set_events(c);
	}
}

static int socket_in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return 0;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return r;
}

static int mkdir_parents(const char *path)
{
	char dir[PATH_MAX], *p;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int ctl_set_group(gid_t gid)
{
	struct stat st;

	sock_gid = gid;
	if (!listen_path[0])
		return 0;
	/* A socket bound in a setgid directory of the group (the unit's, prepared by
	 * rtltuned --prepare-socket) already belongs to it: no chown(2), which the unit
	 * neither grants (CAP_CHOWN) nor lets through its system call filter. */
	if (lstat(listen_path, &st) < 0)
		return -errno;
	if (st.st_gid != gid && chown(listen_path, (uid_t)-1, gid) < 0)
		return -errno;
	if (chmod(listen_path, 0660) < 0)
		return -errno;
	return 0;
}

int ctl_start(const char *path, gid_t gid, ctl_lookup_fn lookup, struct rterr *err)
{
	lookup_handler = lookup;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return rterr_input(err, "socket path longer than %zu bytes: %s",
				   sizeof(sa.sun_path) - 1, path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	r = mkdir_parents(path);
	if (r < 0)
		return rterr_sys(err, -r, "cannot create the directory of %s", path);
	if (socket_in_use(&sa))
		return rterr_sys(err, EADDRINUSE, "another rtltuned answers on %s", path);
	/* A socket file nobody answers on is a leftover of a crash; anything else at the
	 * path (a mistyped --socket naming the config file) is not ours to delete. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return rterr_input(
				err, "%s exists and is not a socket: refusing to replace it", path);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rterr_sys(err, errno, "socket(AF_UNIX)");
	/* Created 0600 and widened after chown: never briefly open to others. */
	mode_t old = umask(0177);

	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = rterr_sys(err, errno, "bind %s", path);
		close(fd);
		return r;
	}
	snprintf(listen_path, sizeof(listen_path), "%s", path);
	r = ctl_set_group(gid);
	if (r < 0) {
		r = rterr_sys(err, -r, "set group %u and mode 0660 on %s", (unsigned int)gid, path);
		if (r == -EPERM)
			strncat(err->msg,
				" (under the shipped unit rtltuned may not chown: its "
				"ExecStartPre, rtltuned --prepare-socket, makes the "
				"directory setgid to the group)",
				sizeof(err->msg) - strlen(err->msg) - 1);
		goto fail;
	}
	if (listen(fd, 128) < 0) {
		r = rterr_sys(err, errno, "listen %s", path);
		goto fail;
	}
	listen_io.fd = fd;
	listen_io.cb = listen_cb;
	r = loop_add(&listen_io, EPOLLIN);
	if (r < 0) {
		r = rterr_sys(err, -r, "epoll");
		goto fail;
	}
	dlog_set_listener(log_listener, NULL);
	return 0;
fail:
	close(fd);
	unlink(path);
	listen_path[0] = '\0';
	return r;
}

void ctl_stop(void)
{
	while (clients)
		client_free(clients);
	if (listen_io.fd >= 0) {
		loop_del(&listen_io);
		close(listen_io.fd);
		listen_io.fd = -1;
	}
	dlog_set_listener(NULL, NULL);
	if (listen_path[0])
		unlink(listen_path);
	listen_path[0] = '\0';
}
