/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_HTTP_H
#define RTLTUNED_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * The /metrics HTTP server (libmicrohttpd, docs/metrics.md): loopback by default, one
 * rendering per change shared by every scrape, gzip when asked.
 */
/* addr is "HOST:PORT". */
int http_start(const char *addr, struct rterr *err);
void http_stop(void);
/* Milliseconds until libmicrohttpd needs to run for its timeouts, or -1. */
int http_timeout_ms(void);
void http_run(void);
/* Background work (the next text and its gzip after a change), one slice; true when more
 * remains. */
bool http_work(void);

/* Scrapes answered since start. */
uint64_t http_request_count(void);

#endif
