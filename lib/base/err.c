// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rtltune/err.h"

int rterr_input(struct rterr *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -EINVAL;
	e->kind = RTERR_INPUT;
	e->errnum = EINVAL;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rterr_sys(struct rterr *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (errnum < 0)
		errnum = -errnum;
	if (!e)
		return -errnum;
	e->kind = RTERR_SYSTEM;
	e->errnum = errnum;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(errnum));
	return -errnum;
}

void rterr_prefix(struct rterr *e, const char *fmt, ...)
{
	char prefix[256], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s%s", prefix, old);
}

void rterr_clear(struct rterr *e)
{
	if (!e)
		return;
	e->kind = RTERR_NONE;
	e->errnum = 0;
	e->msg[0] = '\0';
}
