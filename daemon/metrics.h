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

/*
 * The same text in steps, for rendering between other events. A job walks the interfaces
 * it saw at metrics_job_new(): the caller must drop it (metrics_job_free()) as soon as
 * rtd.generation changes, which also keeps one text from mixing two samples.
 */
struct metrics_job;
struct metrics_job *metrics_job_new(void); /* NULL on ENOMEM */
/* About `slice` more bytes (whole interfaces); 1 when complete, 0 when not, -ENOMEM. */
int metrics_job_step(struct metrics_job *j, size_t slice);
/* The complete text (malloc'ed, the caller frees it); frees the job. */
char *metrics_job_take(struct metrics_job *j, size_t *len);
void metrics_job_free(struct metrics_job *j);
/* Write the textfile (cfg.textfile) atomically when configured and stale. */
void metrics_textfile_write(void);

#endif
