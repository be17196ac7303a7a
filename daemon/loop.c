// SPDX-License-Identifier: GPL-2.0-only
/* The epoll loop and timerfd timers. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

static int epfd = -1;

int loop_init(void)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	return epfd < 0 ? -errno : 0;
}

void loop_fini(void)
{
	if (epfd >= 0)
		close(epfd);
	epfd = -1;
}

int loop_add(struct ev_io *io, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = io};

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, io->fd, &ev) < 0)
		return -errno;
	io->registered = true;
	return 0;
}

int loop_mod(struct ev_io *io, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = io};

	return epoll_ctl(epfd, EPOLL_CTL_MOD, io->fd, &ev) < 0 ? -errno : 0;
}

/*
 * A callback may free another source that is still in this batch (a client closed by a
 * broadcast, say). Sources unregister before they are freed, so each later event of the
 * batch is checked against the deleted set before dispatch.
 */
#define LOOP_BATCH 64
static struct epoll_event batch[LOOP_BATCH];
static int batch_n, batch_i;

static void forget_in_batch(struct ev_io *io)
{
	int i;

	for (i = batch_i + 1; i < batch_n; i++)
		if (batch[i].data.ptr == io)
			batch[i].data.ptr = NULL;
}

void loop_del(struct ev_io *io)
{
	if (io->registered && io->fd >= 0)
		epoll_ctl(epfd, EPOLL_CTL_DEL, io->fd, NULL);
	io->registered = false;
	forget_in_batch(io);
}

int loop_run_once(int timeout_ms)
{
	int n = epoll_wait(epfd, batch, LOOP_BATCH, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	batch_n = n;
	for (batch_i = 0; batch_i < n; batch_i++) {
		struct ev_io *io = batch[batch_i].data.ptr;

		if (io)
			io->cb(io, batch[batch_i].events);
	}
	batch_n = 0;
	return n;
}

static void timer_cb(struct ev_io *io, uint32_t events)
{
	struct ev_timer *t = (struct ev_timer *)io;
	uint64_t expirations;

	/* Missed expirations collapse into one run: a sampler never runs twice back to back. */
	if (read(io->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	t->fire(t);
}

int timer_start(struct ev_timer *t, uint64_t interval_us, uint64_t first_us)
{
	struct itimerspec its = {
		.it_interval = {.tv_sec = interval_us / 1000000,
				.tv_nsec = (interval_us % 1000000) * 1000},
		.it_value = {.tv_sec = first_us / 1000000, .tv_nsec = (first_us % 1000000) * 1000},
	};
	int r;

	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	if (!t->io.registered) {
		t->io.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (t->io.fd < 0)
			return -errno;
		t->io.cb = timer_cb;
		r = loop_add(&t->io, EPOLLIN);
		if (r < 0) {
			close(t->io.fd);
			t->io.fd = -1;
			return r;
		}
	}
	return timerfd_settime(t->io.fd, 0, &its, NULL) < 0 ? -errno : 0;
}

void timer_stop(struct ev_timer *t)
{
	if (!t->io.registered)
		return;
	loop_del(&t->io);
	close(t->io.fd);
	t->io.fd = -1;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
