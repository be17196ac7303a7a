/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_METRICS_H
#define RTLTUNED_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * Prometheus text exposition format 0.0.4 (docs/metrics.md). The HTTP server renders once
 * per change of rtd.generation and serves that response to every scrape until the next
 * change: a scrape costs a send, not a walk over every interface and histogram.
 */

/* The exposition text now: malloc'ed, the caller frees it; NULL on ENOMEM. */
char *metrics_render(size_t *len);
/* Write the textfile (cfg.textfile) atomically when configured and stale. */
void metrics_textfile_write(void);

/* HTTP server (http.c). addr is "HOST:PORT". */
int http_start(const char *addr, struct rterr *err);
void http_stop(void);
/* Milliseconds until libmicrohttpd needs to run for its timeouts, or -1. */
int http_timeout_ms(void);
void http_run(void);
/* Background work (the gzip'ed text after a change), one slice; true when more remains. */
bool http_work(void);

#endif
