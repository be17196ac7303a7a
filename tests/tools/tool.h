/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the test tools (chipmodel, faultinj, tcpstream) report a failure: one line on stderr,
 * "TOOL_NAME: message", and the exit code for main() to return (2 usage, 3 the system
 * refused). A tool defines TOOL_NAME, its program's name, before including this.
 *
 * Static functions in a header because every C file in tests/tools is its own program.
 */
#ifndef RTLTUNE_TESTS_TOOL_H
#define RTLTUNE_TESTS_TOOL_H

#ifndef TOOL_NAME
#error "define TOOL_NAME (the program's name in its messages) before including tool.h"
#endif

#include <stdarg.h>
#include <stdio.h>

static inline int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", TOOL_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

#endif
