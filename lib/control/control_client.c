// SPDX-License-Identifier: GPL-2.0-only
/* Control socket client (rtltune, rtltuned --reload): connect, one JSON line out, JSON lines
 * back. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rtltune/control_client.h"

static char socket_lookup[1024];

void ctl_explain_socket(const char *looked_at)
{
	snprintf(socket_lookup, sizeof(socket_lookup), "%s", looked_at);
}

struct ctl_conn {
	int fd;
	struct linebuf in;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

int ctl_open(const char *path, struct ctl_conn **out, struct rterr *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ctl_conn *c;
	int fd;

	*out = NULL;
	if (strlen(path) >= sizeof(sa.sun_path))
		return rterr_input(err, "socket path longer than %zu bytes: %s",
				   sizeof(sa.sun_path) - 1, path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rterr_sys(err, errno, "socket(AF_UNIX)");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		/* EACCES is not "not running": the daemon is there, the caller may not talk. */
		if (e == EACCES || e == EPERM)
			return rterr_sys(err, e,
					 "cannot connect to rtltuned at %s (not in the "
					 "socket's group?)",
					 path);
		rterr_sys(err, e, "rtltuned is not running (connect %s", path);
		/* rterr_sys appended ": strerror"; close the parenthesis after it. */
		strncat(err->msg, ")", sizeof(err->msg) - strlen(err->msg) - 1);
		if (socket_lookup[0]) {
			size_t n = strlen(err->msg);

			snprintf(err->msg + n, sizeof(err->msg) - n,
				 "\n  looked at: %s\n  elsewhere: --socket PATH or RTLTUNE_SOCKET=PATH; "
				 "the daemon's config: --config FILE or RTLTUNE_CONFIG=FILE",
				 socket_lookup);
		}
		return -e;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return rterr_sys(err, ENOMEM, "control connection");
	}
	c->fd = fd;
	memcpy(c->path, path, strlen(path) + 1);
	linebuf_init(&c->in, CONTROL_MAX_REPLY);
	*out = c;
	return 0;
}

void ctl_close(struct ctl_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	linebuf_free(&c->in);
	free(c);
}

int ctl_send(struct ctl_conn *c, json_object *msg, struct rterr *err)
{
	size_t len, off = 0;
	char *line = control_serialize(msg, &len);

	if (!line)
		return rterr_sys(err, ENOMEM, "request");
	while (off < len) {
		ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(line);
			return rterr_sys(err, errno, "send to rtltuned at %s", c->path);
		}
		off += (size_t)n;
	}
	free(line);
	return 0;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ctl_recv(struct ctl_conn *c, json_object **msg, int timeout_ms, struct rterr *err)
{
	long long deadline = timeout_ms < 0 ? -1 : mono_ms() + timeout_ms;
	char *line, *dst;
	size_t room;
	int r;

	*msg = NULL;
	for (;;) {
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		int wait = -1;
		ssize_t n;

		r = linebuf_next(&c->in, &line);
		if (r >= 0) {
			struct rterr perr;

			if (control_parse_line(line, (size_t)r, msg, &perr) < 0)
				return rterr_sys(err, EPROTO, "rtltuned sent a bad line (%s)",
						 perr.msg);
			return 0;
		}
		if (r == -EMSGSIZE || linebuf_reserve(&c->in, &dst, &room) < 0)
			return rterr_sys(err, EMSGSIZE, "reply from rtltuned longer than %d bytes",
					 CONTROL_MAX_REPLY);
		if (deadline >= 0) {
			long long left = deadline - mono_ms();

			if (left <= 0)
				return rterr_sys(err, ETIMEDOUT,
						 "no reply from rtltuned at %s within "
						 "%d ms",
						 c->path, timeout_ms);
			wait = (int)left;
		}
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rterr_sys(err, errno, "poll");
		if (r == 0)
			continue;
		n = recv(c->fd, dst, room, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rterr_sys(err, errno, "read from rtltuned at %s", c->path);
		if (n == 0)
			return rterr_sys(err, ECONNRESET, "rtltuned closed the connection");
		linebuf_commit(&c->in, (size_t)n);
	}
}

int ctl_request(struct ctl_conn *c, json_object *req, json_object **result, struct rterr *err)
{
	json_object *reply;
	int r;

	*result = NULL;
	r = ctl_send(c, req, err);
	if (r < 0)
		return r;
	/* Events of an earlier follow request are not replies: skip them. */
	do {
		r = ctl_recv(c, &reply, CTL_REPLY_TIMEOUT_MS, err);
		if (r < 0)
			return r;
		if (!json_object_object_get_ex(reply, "event", NULL))
			break;
		json_object_put(reply);
	} while (1);
	r = control_reply_parse(reply, result, err);
	json_object_put(reply);
	return r;
}

int ctl_call(const char *path, json_object *req, json_object **result, struct rterr *err)
{
	struct ctl_conn *c;
	int r;

	*result = NULL;
	r = ctl_open(path, &c, err);
	if (r < 0)
		return r;
	r = ctl_request(c, req, result, err);
	ctl_close(c);
	return r;
}

bool ctl_daemon_running(const char *path)
{
	struct ctl_conn *c;
	struct rterr err;

	if (ctl_open(path, &c, &err) < 0)
		return false;
	ctl_close(c);
	return true;
}

bool ctl_daemon_here(const char *path)
{
	json_object *req, *res = NULL, *ns;
	struct rterr e = {0};
	struct stat st;
	bool same = false;

	if (stat("/proc/self/ns/net", &st) < 0 || !ctl_daemon_running(path))
		return false;
	req = control_request_new("hello");
	if (ctl_call(path, req, &res, &e) == 0 && json_object_object_get_ex(res, "netns", &ns))
		same = (uint64_t)json_object_get_int64(ns) == (uint64_t)st.st_ino;
	json_object_put(req);
	json_object_put(res);
	return same;
}
