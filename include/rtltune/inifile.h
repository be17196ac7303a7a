/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_INIFILE_H
#define RTLTUNE_INIFILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * One INI reader, inih underneath, for the chip database, profiles and rtltuned.conf: every
 * callback knows the file and the line it is on (the packaged inih gives its handler no line
 * number, and counts reader calls, not lines). The reader
 *   - reads whole lines of any length and numbers them from 1;
 *   - takes a UTF-8 byte-order mark off line 1 before anyone sees it;
 *   - hands each line to the caller's line callback first, which may judge it (indented
 *     lines, section headers, over-long lines), rewrite it in place (comments, blanks) or
 *     stop the reading;
 *   - gives inih a line longer than inih's buffer in buffer-sized pieces, all on the line
 *     they came from, unless the line callback refused it;
 *   - stops at the first refusal, and says whether inih's own syntax error came before it.
 */
struct inifile {
	/* Set by the caller. */
	const char *path;
	void *user;
	/*
	 * The line as read (its newline kept, line 1 without a byte-order mark), which may be
	 * edited in place. Returns what inih gets: text, a part of it, or an empty string for a
	 * line inih need not see; NULL stops the reading (the caller has noted why). May be
	 * NULL: every line as read.
	 */
	char *(*line)(struct inifile *ini, char *text);
	/* inih's handler, on ini->line: nonzero to go on, 0 refuses (the reading stops). */
	int (*key)(struct inifile *ini, const char *section, const char *name, const char *value);

	/* Kept by the reader, for the callbacks. */
	unsigned int lineno;   /* the line being read, from 1 */
	unsigned int max_text; /* characters of a line that fit inih's buffer with a newline */
	bool too_long;	       /* the line as read, newline included, does not fit inih's buffer */

	/* The reader's own. */
	FILE *f;
	char *buf, *rest; /* the line read; what of it inih has not had yet */
	size_t buflen;
	unsigned int *call_line; /* inih's line numbers (one per reader call) to file lines */
	unsigned int calls, cap;
	unsigned int refused; /* inih's number of the line a callback refused (0: none) */
	bool oom;
};

/*
 * Read f to its end, or to the first refusal by a callback. Returns 0 when inih found
 * nothing wrong before a refusal (the caller's callbacks say whether they refused), the
 * file line of inih's own syntax error when it came before any refusal (> 0: a line that is
 * not [section], key = value or a comment; a parser whose refusal names an earlier line,
 * such as a section's header, compares the two), or -ENOMEM.
 */
int inifile_parse(struct inifile *ini, FILE *f);

#endif
