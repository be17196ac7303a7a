// SPDX-License-Identifier: GPL-2.0-only
/*
 * The INI reader under the chip database, profiles and rtltuned.conf (include/rtltune/
 * inifile.h): inih parses, this file feeds it lines and keeps the count inih does not
 * give its handler. inih numbers its "lines" by reader call, so each call's file line is
 * kept to map inih's error number back.
 */
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rtltune/inifile.h"

#define UTF8_BOM "\xef\xbb\xbf"

static bool note_call(struct inifile *ini)
{
	if (ini->calls + 1 >= ini->cap) {
		unsigned int cap = ini->cap ? 2 * ini->cap : 64;
		unsigned int *grown = realloc(ini->call_line, cap * sizeof(*grown));

		if (!grown)
			return false;
		ini->call_line = grown;
		ini->cap = cap;
	}
	ini->call_line[++ini->calls] = ini->lineno;
	return true;
}

/* inih's reader (fgets-like): the next line, or the next piece of a line too long for str. */
static char *next_line(char *str, int num, void *stream)
{
	struct inifile *ini = stream;
	size_t n;

	if (ini->refused || ini->oom)
		return NULL;
	if (!ini->rest) {
		char *text;

		if (getline(&ini->buf, &ini->buflen, ini->f) < 0)
			return NULL;
		ini->lineno++;
		text = ini->buf;
		if (ini->lineno == 1 && !strncmp(text, UTF8_BOM, strlen(UTF8_BOM)))
			text += strlen(UTF8_BOM);
		ini->max_text = (unsigned int)num - 2;
		ini->too_long = strlen(text) > (size_t)num - 1;
		if (ini->line) {
			text = ini->line(ini, text);
			if (!text) {
				ini->refused = ini->calls + 1;
				return NULL;
			}
		}
		ini->rest = text;
	}
	if (!note_call(ini)) {
		ini->oom = true;
		return NULL;
	}
	n = strlen(ini->rest);
	if (n > (size_t)num - 1)
		n = (size_t)num - 1;
	memcpy(str, ini->rest, n);
	str[n] = '\0';
	ini->rest = ini->rest[n] ? ini->rest + n : NULL;
	return str;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct inifile *ini = user;

	if (ini->key(ini, section, name, value))
		return 1;
	if (!ini->refused)
		ini->refused = ini->calls;
	return 0;
}

int inifile_parse(struct inifile *ini, FILE *f)
{
	int r;

	ini->f = f;
	ini->lineno = 0;
	ini->rest = NULL;
	ini->calls = 0;
	ini->refused = 0;
	ini->oom = false;
	r = ini_parse_stream(next_line, ini, on_key, ini);
	if (r < 0 || ini->oom)
		r = -ENOMEM;
	else if (r > 0 && (!ini->refused || (unsigned int)r < ini->refused))
		r = (int)ini->call_line[r];
	else
		r = 0;
	free(ini->buf);
	free(ini->call_line);
	ini->buf = NULL;
	ini->buflen = 0;
	ini->call_line = NULL;
	ini->cap = 0;
	return r;
}
