// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics server: libmicrohttpd in external-epoll mode, so it runs on the daemon's
 * own loop and thread (no locking between the sampler and a scrape).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "config.h"
#include "log.h"
#include "loop.h"
#include "metrics.h"
#include "rtltuned.h"

/*
 * Limits, chosen for a scrape endpoint on loopback: Prometheus and node_exporter keep
 * one connection each; 128 leaves room for a load generator and tools, and bounds memory
 * at 128 x 32 KiB. An idle connection goes after 10 s (a scrape interval is >= 15 s, and
 * Prometheus reconnects cheaply), so a stuck client cannot hold a slot for long.
 */
#define HTTP_MAX_CONNECTIONS 128
#define HTTP_CONN_TIMEOUT_S  10
#define HTTP_CONN_MEMORY     (32 * 1024)
#define HTTP_BACKLOG	     128

static struct MHD_Daemon *mhd;
static struct ev_io mhd_io = {.fd = -1};
static struct MHD_Response *cached;
static uint64_t cached_gen = UINT64_MAX;

static const char content_type[] = "text/plain; version=0.0.4; charset=utf-8";

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	dlog(LOG_DEBUG, NULL, "http: %s", msg);
}

static struct MHD_Response *metrics_response(void)
{
	const char *t;
	size_t len;
	char *copy;

	if (cached && cached_gen == rtd.generation)
		return cached;
	t = metrics_text(&len);
	copy = malloc(len ? len : 1);
	if (!copy)
		return cached;
	memcpy(copy, t, len);
	/* In-flight responses keep their own reference: dropping ours frees the old text only
	 * once the last scrape using it has finished. */
	if (cached)
		MHD_destroy_response(cached);
	cached = MHD_create_response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
	if (!cached) {
		free(copy);
		return NULL;
	}
	MHD_add_response_header(cached, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	cached_gen = rtd.generation;
	return cached;
}

static enum MHD_Result simple(struct MHD_Connection *conn, unsigned int status, const char *body,
			      const char *allow)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int request_seen;
	struct MHD_Response *r;

	/* The first call only announces the request. Answering in it makes libmicrohttpd
	 * close the connection after the reply (it cannot know the request body was
	 * read), which would cost every scrape a TCP handshake. */
	if (!*con_cls) {
		*con_cls = &request_seen;
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return simple(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n", "GET, HEAD");
	if (strcmp(url, "/") == 0)
		return simple(conn, MHD_HTTP_OK, "rtltuned: metrics at /metrics\n", NULL);
	if (strcmp(url, "/metrics") != 0)
		return simple(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n", NULL);
	rtd.metrics_requests++;
	r = metrics_response();
	if (!r)
		return MHD_NO;
	return MHD_queue_response(conn, MHD_HTTP_OK, r);
}

void http_run(void)
{
	if (mhd)
		MHD_run(mhd);
}

static void mhd_ready(struct ev_io *io, uint32_t events)
{
	MHD_run(mhd);
}

int http_timeout_ms(void)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (!mhd || MHD_get_timeout(mhd, &ms) != MHD_YES)
		return -1;
	return ms > 60000 ? 60000 : (int)ms;
}

int http_start(const char *addr, struct rterr *err)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6};
	struct sockaddr_in sa4 = {.sin_family = AF_INET};
	const union MHD_DaemonInfo *info;
	unsigned int port, flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct sockaddr *sa;
	char host[64];
	int r;

	if (config_parse_listen(addr, host, sizeof(host), &port) < 0)
		return rterr_input(err, "metrics: expected ADDR:PORT, got '%s'", addr);
	if (inet_pton(AF_INET, host, &sa4.sin_addr) == 1) {
		sa4.sin_port = htons((uint16_t)port);
		sa = (struct sockaddr *)&sa4;
	} else if (inet_pton(AF_INET6, host, &sa6.sin6_addr) == 1) {
		sa6.sin6_port = htons((uint16_t)port);
		sa = (struct sockaddr *)&sa6;
		flags |= MHD_USE_IPv6;
	} else {
		return rterr_input(err, "metrics: '%s' is not an IPv4 or IPv6 address", host);
	}
	/* MHD reports a bind failure through its logger only: keep errno from bind(). */
	errno = 0;
	mhd = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, NULL,
			       MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_CONNECTION_LIMIT,
			       (unsigned int)HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
			       (unsigned int)HTTP_CONN_TIMEOUT_S,
			       MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY,
			       MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)HTTP_BACKLOG,
			       MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (!mhd)
		return rterr_sys(err, errno ? errno : EADDRINUSE, "metrics: cannot listen on %s",
				 addr);
	info = MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info) {
		MHD_stop_daemon(mhd);
		mhd = NULL;
		return rterr_sys(err, ENOTSUP, "metrics: libmicrohttpd without epoll support");
	}
	mhd_io.fd = info->epoll_fd;
	mhd_io.cb = mhd_ready;
	r = loop_add(&mhd_io, EPOLLIN);
	if (r < 0) {
		MHD_stop_daemon(mhd);
		mhd = NULL;
		return rterr_sys(err, -r, "metrics: epoll");
	}
	return 0;
}

void http_stop(void)
{
	if (!mhd)
		return;
	loop_del(&mhd_io);
	MHD_stop_daemon(mhd);
	mhd = NULL;
	if (cached)
		MHD_destroy_response(cached);
	cached = NULL;
	cached_gen = UINT64_MAX;
}
