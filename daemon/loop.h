/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_LOOP_H
#define RTLTUNED_LOOP_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The daemon is one thread around one epoll set: every source (netlink, control socket,
 * HTTP, signals, timers) is a file descriptor with a callback, so no state needs locking.
 */
struct ev_io;
typedef void (*ev_cb)(struct ev_io *io, uint32_t events);

struct ev_io {
	int fd;
	ev_cb cb;
	void *data;
	bool registered;
};

int loop_init(void);
void loop_fini(void);
int loop_add(struct ev_io *io, uint32_t events);
int loop_mod(struct ev_io *io, uint32_t events);
void loop_del(struct ev_io *io);
/* Wait up to timeout_ms (-1 forever) and dispatch. Returns events handled or -errno. */
int loop_run_once(int timeout_ms);

/* A periodic timer (timerfd, CLOCK_MONOTONIC). */
struct ev_timer {
	struct ev_io io;
	void (*fire)(struct ev_timer *t);
	void *data;
};
int timer_start(struct ev_timer *t, uint64_t interval_us, uint64_t first_us);
void timer_stop(struct ev_timer *t);

/* Monotonic time in microseconds / realtime in seconds with fraction. */
uint64_t now_us(void);
double now_real(void);

#endif
