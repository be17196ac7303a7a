// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltuned's control server as a peer reaches it (daemon/ctl.c, handlers.c, linked with
 * every daemon object but main.c): the input is the byte stream one client sends. A real
 * listening socket and the daemon's own event loop carry it, so framing, the line bound,
 * JSON parsing, version and command checks, argument checks of every handler and reply
 * queueing all run as in rtltuned. The daemon has no interfaces (the link monitor is not
 * started), so no request can change a NIC. Every reply is one JSON object per line with
 * "v": 1 and "ok" (or a log "event"), and the server never answers more lines than it got.
 */
#include <json-c/json.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ctl.h"
#include "fuzz.h"
#include "handlers.h"
#include "log.h"
#include "loop.h"
#include "state.h"

static char sock_path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rtd_overrides ov = {.autotune = 0};
	char conf[PATH_MAX], state[PATH_MAX];
	struct rterr err = {0};
	int r;

	unsetenv("RTLTUNE_SOCKET");
	unsetenv("RTLTUNE_STATE_DIR");
	fuzz_write_file(fuzz_path(conf, sizeof(conf), "rtltuned.conf"),
			(const uint8_t *)"[daemon]\nmetrics = off\n", 23);
	ov.config = conf;
	ov.socket = fuzz_path(sock_path, sizeof(sock_path), "ctl.sock");
	ov.state_dir = fuzz_path(state, sizeof(state), "state");
	/* Profiles and chips from an empty directory: a request naming one finds nothing. */
	setenv("RTLTUNE_PROFILE_PATH", fuzz_dir(), 1);
	setenv("RTLTUNE_CHIP_PATH", fuzz_dir(), 1);
	dlog_init(DLOG_STDERR, LOG_CRIT);
	r = config_load(&ov, &rtd.cfg, &err);
	/* The default socket group is root's, which only root may chown to: a user's
	 * `make check` replays this target too. Root's run is unchanged (its gid is 0). */
	rtd.cfg.socket_gid = getegid();
	if (r < 0 || loop_init() < 0 ||
	    ctl_start(rtd.cfg.socket, rtd.cfg.socket_gid, handlers_find, &err) < 0) {
		fprintf(stderr, "fuzz_ctl: setup: %s\n", err.msg);
		abort();
	}
	rtd.started = now_real();
	rtd.started_us = now_us();
	return 0;
}

static void check_reply(const char *line)
{
	json_object *o = json_tokener_parse(line), *v;

	FUZZ_CHECK(o && json_object_is_type(o, json_type_object));
	FUZZ_CHECK(json_object_object_get_ex(o, "v", &v) && json_object_get_int(v) == 1);
	FUZZ_CHECK(json_object_object_get_ex(o, "ok", &v) ||
		   json_object_object_get_ex(o, "event", &v));
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	static char out[1 << 20];
	size_t got = 0, sent = 0, i, start, lines_in = 0, lines_out = 0;
	int fd, idle = 0;
	bool eof = false;

	if (size > 64 * 1024)
		return -1;
	for (i = 0; i < size; i++)
		lines_in += data[i] == '\n';
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	FUZZ_CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	/* Feed, let the loop dispatch, read replies, until the server closes or stalls. */
	while (!eof && idle < 50) {
		ssize_t n;
		bool progress = false;

		if (sent < size) {
			n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
			if (n > 0) {
				sent += (size_t)n;
				progress = true;
			}
			if (sent == size)
				shutdown(fd, SHUT_WR);
		} else if (!size) {
			shutdown(fd, SHUT_WR);
		}
		if (loop_run_once(0) > 0)
			progress = true;
		n = recv(fd, out + got, sizeof(out) - 1 - got, 0);
		if (n == 0)
			eof = true;
		else if (n > 0) {
			got += (size_t)n;
			progress = true;
		} else if (errno != EAGAIN && errno != ECONNRESET) {
			break;
		}
		if (got == sizeof(out) - 1)
			break; /* a follower's stream; enough */
		idle = progress ? 0 : idle + 1;
	}
	close(fd);
	/* Let the server see the close and free the client. */
	for (i = 0; i < 4; i++)
		loop_run_once(0);
	out[got] = '\0';
	for (start = 0, i = 0; i < got; i++) {
		if (out[i] != '\n')
			continue;
		out[i] = '\0';
		check_reply(out + start);
		lines_out++;
		start = i + 1;
	}
	/* One reply per request line, plus one for an unterminated or oversized last line. */
	FUZZ_CHECK(lines_out <= lines_in + 1 + (got == sizeof(out) - 1 ? SIZE_MAX / 2 : 0));
	return 0;
}
