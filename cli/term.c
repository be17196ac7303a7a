// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one place bytes leave rtltune for a terminal. stdout and stderr are replaced by
 * streams that escape control bytes (include/rtltune/escape.h) on their way to fd 1 and
 * fd 2, so no message built from a file's or the kernel's text (a profile line that did not
 * parse, a comment, a firmware version, an interface name) can move the cursor, ring the
 * bell or rewrite the screen, whichever command printed it and however.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/escape.h"
#include "term.h"

struct term {
	int fd;
	bool json;
	bool carry;
};

static struct term out_term = {.fd = 1}, err_term = {.fd = 2};

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term *t = cookie;
	char esc[1024 * ESCAPE_MAX_GROWTH];
	size_t done = 0;

	while (done < size) {
		size_t n = size - done < 1024 ? size - done : 1024;
		size_t len = escape_controls(esc, buf + done, n, t->json, &t->carry);

		if (write_all(t->fd, esc, len) < 0)
			return done ? (ssize_t)done : -1;
		done += n;
	}
	return (ssize_t)size;
}

static int term_close(void *cookie)
{
	struct term *t = cookie;
	char tail[ESCAPE_MAX_GROWTH];

	return write_all(t->fd, tail, escape_flush(tail, &t->carry));
}

static FILE *term_open(struct term *t, int mode)
{
	cookie_io_functions_t io = {.write = term_write, .close = term_close};
	FILE *f = fopencookie(t, "w", io);

	if (f)
		setvbuf(f, NULL, mode, BUFSIZ);
	return f;
}

void cli_term_init(void)
{
	FILE *o = term_open(&out_term, isatty(1) ? _IOLBF : _IOFBF);
	FILE *e = term_open(&err_term, _IOLBF);

	/* Without memory for a stream the plain one stays: output beats no output. */
	if (o)
		stdout = o;
	if (e)
		stderr = e;
}

void cli_term_json(bool json)
{
	fflush(stdout);
	out_term.json = json;
}

void cli_term_raw(const char *seq)
{
	fflush(stdout);
	write_all(out_term.fd, seq, strlen(seq));
}
