// SPDX-License-Identifier: GPL-2.0-only
/*
 * reroute_cost: what route_invalidate() costs (docs/stack.md "Cost"), for make bench.
 *
 *   reroute_cost 4|6 NSOCKETS ROUNDS
 *
 * Opens NSOCKETS established TCP connections over loopback (a listener that never
 * accepts), then per round: a 1-byte send on every socket (warm), the same again (the
 * control: what a send costs with the route cached), route_invalidate(), and the same
 * again (each socket finds its dst stale and looks its route up at that send). Prints one
 * JSON object: the medians over the rounds of the invalidation call and of the extra time
 * per socket (third loop minus second), and the control's spread (second minus first).
 * Run it in a network namespace of its own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtltune/route.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Nanoseconds for one 1-byte send on each of the n sockets. */
static double send_all(const int *fd, int n)
{
	double t0 = now_ns();
	int i;

	for (i = 0; i < n; i++)
		if (send(fd[i], "x", 1, MSG_DONTWAIT) != 1) {
			fprintf(stderr, "reroute_cost: send: %s\n", strerror(errno));
			exit(1);
		}
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	int fam, n, rounds, lfd, one = 1, i, r;
	double *call, *extra, *ctl;
	struct rlimit rl;
	char how[256];
	int *fd;

	if (argc != 4 || (strcmp(argv[1], "4") && strcmp(argv[1], "6")) ||
	    (n = atoi(argv[2])) < 1 || (rounds = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: reroute_cost 4|6 NSOCKETS ROUNDS\n");
		return 2;
	}
	fam = argv[1][0] == '4' ? AF_INET : AF_INET6;
	rl.rlim_cur = rl.rlim_max = (rlim_t)n * 2 + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("reroute_cost: RLIMIT_NOFILE");
		return 1;
	}
	if (fam == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	}
	lfd = socket(fam, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, sl) < 0 || listen(lfd, n) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&ss, &sl) < 0) {
		perror("reroute_cost: listener");
		return 1;
	}
	fd = calloc((size_t)n, sizeof(*fd));
	call = calloc((size_t)rounds, sizeof(*call));
	extra = calloc((size_t)rounds, sizeof(*extra));
	ctl = calloc((size_t)rounds, sizeof(*ctl));
	if (!fd || !call || !extra || !ctl)
		return 1;
	for (i = 0; i < n; i++) {
		fd[i] = socket(fam, SOCK_STREAM, 0);
		if (fd[i] < 0 || connect(fd[i], (struct sockaddr *)&ss, sl) < 0) {
			fprintf(stderr, "reroute_cost: connection %d: %s\n", i, strerror(errno));
			return 1;
		}
		setsockopt(fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	for (r = 0; r < rounds; r++) {
		struct rterr err = {0};
		double a, b, c, t0;

		a = send_all(fd, n);
		b = send_all(fd, n);
		t0 = now_ns();
		if (route_invalidate(ROUTE_IPV4 | ROUTE_IPV6, how, sizeof(how), &err) < 0) {
			fprintf(stderr, "reroute_cost: %s\n", err.msg);
			return 1;
		}
		call[r] = now_ns() - t0;
		c = send_all(fd, n);
		extra[r] = (c - b) / n;
		ctl[r] = (b - a) / n;
	}
	printf("{\"family\":%d,\"sockets\":%d,\"rounds\":%d,\"invalidate_us\":%.1f,"
	       "\"per_socket_extra_ns\":%.0f,\"control_ns\":%.0f,\"how\":\"%s\"}\n",
	       fam == AF_INET ? 4 : 6, n, rounds, median(call, rounds) / 1e3,
	       median(extra, rounds), median(ctl, rounds), how);
	return 0;
}
