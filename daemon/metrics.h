/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_METRICS_H
#define RTLTUNED_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "rtltune/err.h"

/*
 * Prometheus text exposition format 0.0.4 (docs/metrics.md). The text is rendered once
 * per change of rtd.generation and served from that copy: a scrape costs a memcpy, not a
 * walk over every interface and histogram.
 */

/* The current exposition text (rendered if stale); valid until the next call. */
const char *metrics_text(size_t *len);
/* Write the textfile (cfg.textfile) atomically when configured and stale. */
void metrics_textfile_write(void);

/* HTTP server (http.c). addr is "HOST:PORT". */
int http_start(const char *addr, struct rterr *err);
void http_stop(void);
/* Milliseconds until libmicrohttpd needs to run for its timeouts, or -1. */
int http_timeout_ms(void);
void http_run(void);

#endif
