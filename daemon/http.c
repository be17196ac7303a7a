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
#include <zlib.h>

#include "rtltune/config.h"
#include "log.h"
#include "loop.h"
#include "http.h"
#include "metrics.h"
#include "state.h"

/*
 * Limits, chosen for a scrape endpoint on loopback: Prometheus and node_exporter keep
 * one connection each; 128 leaves room for a load generator and tools, and bounds memory
 * at 128 x 32 KiB. An idle connection goes after 10 s (a scrape interval is >= 15 s, and
 * Prometheus reconnects cheaply), so a stuck client cannot hold a slot for long.
 * libmicrohttpd zeroes a connection's memory after every request (4% of the daemon's CPU
 * under wrk); 8 KiB was measured and rejected: replies/s and p99 did not move beyond
 * noise, and the steady anonymous RSS after wrk rose 3.5 -> 4.1 MiB (bench-daemon, three
 * runs at 8 KiB, the same build at 32 KiB 3.5).
 */
#define HTTP_MAX_CONNECTIONS 128
#define HTTP_CONN_TIMEOUT_S  10
#define HTTP_CONN_MEMORY     (32 * 1024)
#define HTTP_BACKLOG	     128

static uint64_t n_requests;

uint64_t http_request_count(void)
{
	return n_requests;
}

static struct MHD_Daemon *mhd;
static struct ev_io mhd_io = {.fd = -1};
/* The current text, plain and gzip'ed (Prometheus always asks for gzip: 500 KiB of
 * 64 interfaces' histograms shrink ~15x, so a scrape sends 35 KiB). Both are built at
 * most once per change of rtd.generation and shared by every scrape until the next. */
static struct MHD_Response *cached, *cached_gz;
static uint64_t cached_gen = UINT64_MAX, cached_gz_gen = UINT64_MAX;

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
	size_t len;
	char *copy;

	if (cached && cached_gen == rtd.generation)
		return cached;
	copy = metrics_render(&len);
	if (!copy)
		return cached;
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
	MHD_add_response_header(cached, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	cached_gen = rtd.generation;
	return cached;
}

/*
 * The gzip'ed text is built in slices between other events (http_work()), right after
 * each change: first the text itself (RENDER_SLICE_BYTES per slice, whole interfaces),
 * then its deflate (GZ_SLICE_BYTES of input per slice). Rendering 500 KiB in one go takes
 * 1-5 ms and deflating it 2-15 ms on a loaded machine, which would otherwise stall every
 * request that arrives meanwhile. Until a build completes, gzip clients get the previous
 * complete text (at most one sample old). A change while the text is being rendered
 * restarts it, so one text never mixes two samples; once rendered, it is a copy and the
 * deflate goes on.
 */
#define RENDER_SLICE_BYTES (8 * 1024)
#define GZ_SLICE_BYTES	   (8 * 1024)

/*
 * When to build ahead: only in time for the next scrape, not after every change. A
 * Prometheus scraping every 15 s at 1 s samples would otherwise pay 15 builds (5-20 ms of
 * CPU each for 64 interfaces) for every one it fetches. The next scrape is expected one
 * scrape interval (the time between the last two requests) after the last; the text is
 * built from one sample before that until two samples after it (a late scrape); outside
 * that window nothing is built ahead. A scrape that finds the text more than one change
 * old has it built at once, in one go (as the first scrape does): slower for that request,
 * never staler.
 */
static uint64_t last_gz_request_us, gz_interval_us;

static struct {
	bool active;
	uint64_t gen;
	struct metrics_job *job; /* rendering; the deflate starts when it is done */
	char *in, *out;
	size_t in_len, out_cap;
	z_stream zs;
} gzb;

static void gz_build_abort(void)
{
	if (!gzb.active)
		return;
	if (gzb.job)
		metrics_job_free(gzb.job);
	else
		deflateEnd(&gzb.zs);
	free(gzb.in);
	free(gzb.out);
	memset(&gzb, 0, sizeof(gzb));
}

static int gz_build_start(void)
{
	memset(&gzb, 0, sizeof(gzb));
	gzb.job = metrics_job_new();
	if (!gzb.job)
		return -ENOMEM;
	gzb.gen = rtd.generation;
	gzb.active = true;
	return 0;
}

static int gz_deflate_start(void)
{
	gzb.in = metrics_job_take(gzb.job, &gzb.in_len);
	gzb.job = NULL;
	/* Level 1: most of the gain of level 9 at a fraction of the time. */
	if (deflateInit2(&gzb.zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	gzb.out_cap = deflateBound(&gzb.zs, gzb.in_len);
	gzb.out = malloc(gzb.out_cap);
	if (!gzb.out) {
		deflateEnd(&gzb.zs);
		return -ENOMEM;
	}
	gzb.zs.next_in = (Bytef *)gzb.in;
	gzb.zs.next_out = (Bytef *)gzb.out;
	gzb.zs.avail_out = (uInt)gzb.out_cap;
	return 0;
}

/* One slice of rendering; true when the text is complete and the deflate set up. */
static bool gz_render_step(size_t slice)
{
	int r;

	if (gzb.gen != rtd.generation) {
		/* Interfaces may have gone, and the text so far is of the older sample. */
		metrics_job_free(gzb.job);
		gzb.job = metrics_job_new();
		if (!gzb.job) {
			memset(&gzb, 0, sizeof(gzb));
			return false;
		}
		gzb.gen = rtd.generation;
	}
	r = metrics_job_step(gzb.job, slice);
	if (r == 0)
		return false;
	if (r < 0 || gz_deflate_start() < 0) {
		dlog(LOG_ERR, NULL, "out of memory rendering /metrics");
		if (gzb.job)
			metrics_job_free(gzb.job);
		free(gzb.in);
		memset(&gzb, 0, sizeof(gzb));
		return false;
	}
	return true;
}

/* One slice; true when the build is complete (and swapped in) or failed. */
static bool gz_build_step(size_t slice)
{
	size_t left;
	int flush, r;
	struct MHD_Response *resp;

	if (gzb.job) {
		if (!gz_render_step(slice == SIZE_MAX / 2 ? slice : RENDER_SLICE_BYTES))
			return !gzb.active;
		if (slice != SIZE_MAX / 2)
			return false; /* the deflate in the next slices */
	}
	left = gzb.in_len - (size_t)((char *)gzb.zs.next_in - gzb.in);
	flush = left <= slice ? Z_FINISH : Z_NO_FLUSH;
	gzb.zs.avail_in = (uInt)(left <= slice ? left : slice);
	r = deflate(&gzb.zs, flush);
	if (flush != Z_FINISH && r == Z_OK)
		return false;
	if (r != Z_STREAM_END) {
		dlog(LOG_ERR, NULL, "metrics: gzip failed (%d)", r);
		gz_build_abort();
		return true;
	}
	resp = MHD_create_response_from_buffer(gzb.zs.total_out, gzb.out, MHD_RESPMEM_MUST_FREE);
	deflateEnd(&gzb.zs);
	free(gzb.in);
	if (!resp) {
		free(gzb.out);
		memset(&gzb, 0, sizeof(gzb));
		return true;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (cached_gz)
		MHD_destroy_response(cached_gz);
	cached_gz = resp;
	cached_gz_gen = gzb.gen;
	memset(&gzb, 0, sizeof(gzb));
	return true;
}

bool http_work(void)
{
	/* A stale uncompressed text is dropped, not kept until the next plain scrape (with a
	 * Prometheus asking for gzip, that is never): 500 KiB for 64 interfaces. Scrapes
	 * still sending it hold their own reference. */
	if (cached && cached_gen != rtd.generation) {
		MHD_destroy_response(cached);
		cached = NULL;
		cached_gen = UINT64_MAX;
	}
	if (!gzb.active) {
		uint64_t now = now_us(), sample = rtd.cfg.sample_interval_us;
		uint64_t next = last_gz_request_us + gz_interval_us;

		if (!last_gz_request_us || cached_gz_gen == rtd.generation)
			return false;
		if (now + sample < next || now > next + 2 * sample)
			return false; /* no scrape due before the next sample, or none coming */
		if (gz_build_start() < 0)
			return false;
	}
	return !gz_build_step(GZ_SLICE_BYTES);
}

static struct MHD_Response *metrics_response_gz(void)
{
	uint64_t now = now_us();

	if (last_gz_request_us)
		gz_interval_us = now - last_gz_request_us;
	last_gz_request_us = now;
	/* Current, or one change old: then the current one is built (or goes on being built)
	 * between other events, for the next scrape. */
	if (cached_gz && (cached_gz_gen == rtd.generation || cached_gz_gen + 1 == rtd.generation)) {
		if (!gzb.active && cached_gz_gen != rtd.generation)
			gz_build_start();
		return cached_gz;
	}
	/* The first scrape, or one after a quiet spell: build now, in one go. */
	if (!gzb.active && gz_build_start() < 0)
		return cached_gz;
	while (!gz_build_step(SIZE_MAX / 2))
		;
	return cached_gz;
}

static bool accepts_gzip(struct MHD_Connection *conn)
{
	const char *ae =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return ae && strstr(ae, "gzip") && !strstr(ae, "gzip;q=0");
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
	n_requests++;
	r = accepts_gzip(conn) ? metrics_response_gz() : NULL;
	if (!r)
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
	if (cached_gz)
		MHD_destroy_response(cached_gz);
	gz_build_abort();
	last_gz_request_us = 0;
	cached = cached_gz = NULL;
	cached_gen = cached_gz_gen = UINT64_MAX;
}
