// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpstream: TCP flows for the chip model tests, measured where it counts.
 *
 *	tcpstream serve ADDR PORT [--pidfile FILE] [--rr BYTES] [--concurrent]
 *	tcpstream send ADDR PORT [--seconds S]
 *	tcpstream rr ADDR PORT --size BYTES [--seconds S]
 *
 * serve listens, then forks into the background: when the command returns the port is
 * listening, so a test needs no wait loop. It takes one connection at a time (with
 * --concurrent, a child process each, so that several may overlap), reads to EOF and
 * answers with what it received and how long from the first byte to the last. With
 * --rr it is a request/response server instead (netperf's TCP_RR, which Debian main does
 * not have): for every BYTES it reads it writes BYTES back, until EOF.
 *
 * send streams for S seconds (default 1, fractions allowed: iperf3 3.12 takes whole
 * seconds only, which makes a 76-step MTU sweep too slow), half-closes, waits for the
 * answer and prints one line of "key value" pairs:
 *
 *	bytes B seconds S gbit_s G retrans R segs_out N retrans_ppm P mss M dsack_dups D
 *
 * gbit_s is the receiver's: bytes over first-to-last-byte time, so data still queued in
 * the sender's socket buffer when the clock stops does not count. retrans and segs_out are
 * the connection's own (TCP_INFO tcpi_total_retrans, tcpi_segs_out), not the namespace's.
 * dsack_dups (tcpi_dsack_dups) counts the segments the receiver reported twice (DSACK,
 * RFC 2883): retransmits that were spurious, the original having arrived late. TCP_INFO
 * is read after the server's answer, which follows the last segment, so only a copy still
 * in flight then can miss its DSACK.
 *
 * rr sends a request of BYTES and waits for the whole response, one transaction at a time
 * on one connection (TCP_NODELAY on both ends), for S seconds against a serve --rr BYTES;
 * it prints transactions per second and the latency distribution of the transactions:
 *
 *	transactions N seconds S tps T p50_us A p90_us B p99_us C retrans R segs_out N mss M
 *
 * Every wait is bounded: connect and each send give up after 10 s without progress, the
 * answer after S + 30 s, a response after 10 s, and the server drops a client silent for
 * 30 s.
 * Exit: 0 ok, 2 usage, 3 the system refused or the flow failed (message says which).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL_NAME "tcpstream"
#include "tool.h"

#define BUF_SIZE	 (256 * 1024)
#define IDLE_TIMEOUT_S	 10
#define SERVER_TIMEOUT_S 30

/* One process, one flow at a time: one buffer serves both ends. */
static char buf[BUF_SIZE];

/* The server's answer, network byte order on the wire (both ends are this tool). */
struct answer {
	uint64_t bytes;
	uint64_t first_to_last_ns;
};

static int usage(void)
{
	fprintf(stderr,
		"usage: %s serve ADDR PORT [--pidfile FILE] [--rr BYTES] [--concurrent]\n"
		"       %s send ADDR PORT [--seconds S]\n"
		"       %s rr ADDR PORT --size BYTES [--seconds S]\n",
		TOOL_NAME, TOOL_NAME, TOOL_NAME);
	return 2;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int set_timeout(int fd, int opt, double seconds)
{
	struct timeval tv = {.tv_sec = (time_t)seconds,
			     .tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6)};

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

static int parse_addr(const char *addr, const char *port, struct sockaddr_in *sa)
{
	char *end;
	long p = strtol(port, &end, 10);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (*end || end == port || p <= 0 || p > 65535)
		return fail(2, "port: expected 1..65535, got '%s'", port);
	sa->sin_port = htons((uint16_t)p);
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1)
		return fail(2, "address: expected an IPv4 address, got '%s'", addr);
	return 0;
}

static uint64_t hton64(uint64_t v)
{
	return ((uint64_t)htonl((uint32_t)v) << 32) | htonl((uint32_t)(v >> 32));
}

static void serve_one(int c)
{
	uint64_t bytes = 0, first = 0, last = 0;
	struct answer a;
	ssize_t n;

	set_timeout(c, SO_RCVTIMEO, SERVER_TIMEOUT_S);
	set_timeout(c, SO_SNDTIMEO, SERVER_TIMEOUT_S);
	while ((n = read(c, buf, BUF_SIZE)) > 0) {
		last = now_ns();
		if (!bytes)
			first = last;
		bytes += (uint64_t)n;
	}
	if (n < 0)
		return; /* a client gone silent: no answer, the next one waits */
	a.bytes = hton64(bytes);
	a.first_to_last_ns = hton64(last - first);
	if (write(c, &a, sizeof(a)) != (ssize_t)sizeof(a))
		return;
}

/* Read or write exactly len bytes; false on EOF, an error or a timeout. */
static bool xfer(int fd, bool rd, char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = rd ? read(fd, p, len) : write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Request/response: BYTES back for every BYTES read, until EOF. */
static void serve_rr(int c, size_t bytes)
{
	int one = 1;

	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_timeout(c, SO_RCVTIMEO, SERVER_TIMEOUT_S);
	set_timeout(c, SO_SNDTIMEO, SERVER_TIMEOUT_S);
	while (xfer(c, true, buf, bytes) && xfer(c, false, buf, bytes))
		;
}

static int cmd_serve(const struct sockaddr_in *sa, const char *pidfile, size_t rr, bool concurrent)
{
	int one = 1, fd, c, devnull;
	FILE *pf;
	pid_t pid;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(3, "socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return fail(3, "bind: %s", strerror(errno));
	if (listen(fd, 16) < 0)
		return fail(3, "listen: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return fail(3, "fork: %s", strerror(errno));
	if (pid > 0) {
		if (pidfile) {
			pf = fopen(pidfile, "w");
			if (!pf || fprintf(pf, "%d\n", (int)pid) < 0 || fclose(pf) != 0) {
				kill(pid, SIGTERM);
				return fail(3, "pidfile %s: %s", pidfile, strerror(errno));
			}
		}
		return 0;
	}
	setsid();
	devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	/* --concurrent: a child per connection, so that loops of connections may overlap. A
	 * child lands on whichever CPU is idle, which changes how veth's two ends share the
	 * CPUs: the default keeps the one receiving process the measurements were made with. */
	if (concurrent)
		signal(SIGCHLD, SIG_IGN);
	for (;;) {
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			_exit(3);
		}
		pid = concurrent ? fork() : -1; /* a fork that fails serves here */
		if (pid > 0) {
			close(c);
			continue;
		}
		if (pid == 0)
			close(fd);
		if (rr)
			serve_rr(c, rr);
		else
			serve_one(c);
		if (pid == 0)
			_exit(0);
		close(c);
	}
}

static int cmd_send(const struct sockaddr_in *sa, double seconds)
{
	uint64_t start, stop, sent = 0;
	struct tcp_info ti = {0};
	socklen_t len = sizeof(ti);
	double secs, gbit;
	size_t got = 0;
	struct answer a;
	ssize_t n;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(3, "socket: %s", strerror(errno));
	set_timeout(fd, SO_SNDTIMEO, IDLE_TIMEOUT_S);
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return fail(3, "connect: %s", strerror(errno));
	start = now_ns();
	stop = start + (uint64_t)(seconds * 1e9);
	while (now_ns() < stop) {
		n = write(fd, buf, BUF_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(3, "send after %llu bytes: %s%s", (unsigned long long)sent,
				    strerror(errno),
				    errno == EAGAIN ? " (no progress for 10 s)" : "");
		sent += (uint64_t)n;
	}
	if (shutdown(fd, SHUT_WR) < 0)
		return fail(3, "shutdown: %s", strerror(errno));
	set_timeout(fd, SO_RCVTIMEO, seconds + SERVER_TIMEOUT_S);
	while (got < sizeof(a)) {
		n = read(fd, (char *)&a + got, sizeof(a) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(3, "no answer from the server after %llu bytes sent: %s",
				    (unsigned long long)sent,
				    n == 0 ? "connection closed" : strerror(errno));
		got += (size_t)n;
	}
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return fail(3, "TCP_INFO: %s", strerror(errno));
	close(fd);
	a.bytes = hton64(a.bytes);
	a.first_to_last_ns = hton64(a.first_to_last_ns);
	if (a.bytes != sent)
		return fail(3, "server received %llu bytes of %llu sent",
			    (unsigned long long)a.bytes, (unsigned long long)sent);
	secs = (double)a.first_to_last_ns / 1e9;
	gbit = secs > 0 ? (double)a.bytes * 8 / secs / 1e9 : 0;
	printf("bytes %llu seconds %.6f gbit_s %.4f retrans %u segs_out %u retrans_ppm %llu "
	       "mss %u dsack_dups %u\n",
	       (unsigned long long)a.bytes, secs, gbit, ti.tcpi_total_retrans, ti.tcpi_segs_out,
	       ti.tcpi_segs_out
		       ? (unsigned long long)ti.tcpi_total_retrans * 1000000ull / ti.tcpi_segs_out
		       : 0ull,
	       ti.tcpi_snd_mss, ti.tcpi_dsack_dups);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted values. */
static double pct_us(const uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n);

	return n ? (double)v[i ? i - 1 : 0] / 1e3 : 0;
}

/* Latencies kept for the percentiles: the first 4M transactions (BSS, touched as used). */
#define RR_MAX_LATENCIES (1u << 22)
static uint64_t lat[RR_MAX_LATENCIES];

static int cmd_rr(const struct sockaddr_in *sa, size_t bytes, double seconds)
{
	struct tcp_info ti = {0};
	socklen_t len = sizeof(ti);
	uint64_t start, stop, t0, t1;
	size_t n = 0, kept;
	int fd, one = 1;
	double secs;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(3, "socket: %s", strerror(errno));
	set_timeout(fd, SO_SNDTIMEO, IDLE_TIMEOUT_S);
	set_timeout(fd, SO_RCVTIMEO, IDLE_TIMEOUT_S);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return fail(3, "connect: %s", strerror(errno));
	memset(buf, 'r', bytes);
	start = now_ns();
	stop = start + (uint64_t)(seconds * 1e9);
	for (t0 = start; t0 < stop; t0 = t1) {
		if (!xfer(fd, false, buf, bytes))
			return fail(3, "request %zu: %s", n + 1,
				    errno == EAGAIN ? "no progress for 10 s" : strerror(errno));
		if (!xfer(fd, true, buf, bytes))
			return fail(3, "response %zu: %s", n + 1,
				    errno == EAGAIN ? "none within 10 s"
				    : errno	    ? strerror(errno)
						    : "connection closed");
		t1 = now_ns();
		if (n < RR_MAX_LATENCIES)
			lat[n] = t1 - t0;
		n++;
	}
	secs = (double)(t0 - start) / 1e9;
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return fail(3, "TCP_INFO: %s", strerror(errno));
	close(fd);
	kept = n < RR_MAX_LATENCIES ? n : RR_MAX_LATENCIES;
	qsort(lat, kept, sizeof(*lat), cmp_u64);
	printf("transactions %zu seconds %.6f tps %.1f p50_us %.1f p90_us %.1f p99_us %.1f "
	       "retrans %u segs_out %u mss %u\n",
	       n, secs, secs > 0 ? (double)n / secs : 0, pct_us(lat, kept, 0.5),
	       pct_us(lat, kept, 0.9), pct_us(lat, kept, 0.99), ti.tcpi_total_retrans,
	       ti.tcpi_segs_out, ti.tcpi_snd_mss);
	return 0;
}

/* BYTES of --rr and --size: 1 to the buffer's size. */
static int parse_bytes(const char *opt, const char *arg, size_t *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 1 || v > BUF_SIZE)
		return fail(2, "%s: expected 1..%d bytes, got '%s'", opt, BUF_SIZE, arg);
	*out = (size_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	size_t rr = 0, size = 0;
	bool concurrent = false;
	struct sockaddr_in sa;
	double seconds = 1;
	char *end;
	int i, r;

	if (argc < 4)
		return usage();
	r = parse_addr(argv[2], argv[3], &sa);
	if (r)
		return r;
	for (i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--pidfile") == 0 && i + 1 < argc &&
		    strcmp(argv[1], "serve") == 0) {
			pidfile = argv[++i];
		} else if (strcmp(argv[i], "--concurrent") == 0 && strcmp(argv[1], "serve") == 0) {
			concurrent = true;
		} else if (strcmp(argv[i], "--rr") == 0 && i + 1 < argc &&
			   strcmp(argv[1], "serve") == 0) {
			r = parse_bytes("--rr", argv[++i], &rr);
			if (r)
				return r;
		} else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
			   strcmp(argv[1], "rr") == 0) {
			r = parse_bytes("--size", argv[++i], &size);
			if (r)
				return r;
		} else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc &&
			   strcmp(argv[1], "serve") != 0) {
			seconds = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(seconds > 0 && seconds <= 3600))
				return fail(2, "--seconds: expected 0 < S <= 3600, got '%s'",
					    argv[i]);
		} else {
			return usage();
		}
	}
	if (strcmp(argv[1], "serve") == 0)
		return cmd_serve(&sa, pidfile, rr, concurrent);
	if (strcmp(argv[1], "send") == 0)
		return cmd_send(&sa, seconds);
	if (strcmp(argv[1], "rr") == 0) {
		if (!size)
			return fail(2, "rr: --size BYTES is required");
		return cmd_rr(&sa, size, seconds);
	}
	return usage();
}
