/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_ERR_H
#define RTLTUNE_ERR_H

#include <errno.h>

/*
 * lib/ never prints and never exits: it returns a negative errno and fills a struct rterr
 * that the caller prints once. The kind maps straight onto the CLI's exit codes (SPEC).
 */
enum rterr_kind {
	RTERR_NONE = 0,
	RTERR_DIFF = 1,	  /* a check found differences */
	RTERR_INPUT = 2,  /* usage or bad input: file:line or argument named in msg */
	RTERR_SYSTEM = 3, /* the kernel refused: msg carries strerror and any limit */
	RTERR_EMPTY = 4,  /* a selection matched nothing: msg says which rule left nothing */
};

struct rterr {
	enum rterr_kind kind;
	int errnum; /* positive errno, 0 when not applicable */
	char msg[1024];
};

/* Bad input: fills msg and returns -EINVAL. */
int rterr_input(struct rterr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Kernel/system refusal: msg gets ": <strerror(errnum)>" appended; returns -errnum. */
int rterr_sys(struct rterr *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix an existing message with more context ("eth0: " + msg). */
void rterr_prefix(struct rterr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rterr_clear(struct rterr *e);

#endif
