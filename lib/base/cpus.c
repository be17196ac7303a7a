// SPDX-License-Identifier: GPL-2.0-only
/* CPU sets as knob values (cpus.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtltune/cpus.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex digits (commas between 32-bit words allowed when kernel_words) into a mask. */
static int parse_hex(const char *s, int64_t *mask, int kernel_words)
{
	uint64_t m = 0;
	int digits = 0, d;

	for (; *s && *s != '\n'; s++) {
		if (*s == ',' && kernel_words)
			continue;
		d = hexval(*s);
		if (d < 0)
			return -EINVAL;
		/* Leading zeroes cost nothing; a set bit beyond 62 is out of range. */
		if (m >> 59)
			return -ERANGE;
		m = m << 4 | (uint64_t)d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	if (m >> CPUS_MAX)
		return -ERANGE;
	*mask = (int64_t)m;
	return 0;
}

int cpus_parse_kernel(const char *text, int64_t *mask)
{
	return parse_hex(text, mask, 1);
}

static int cpu_number(const char **p, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpus_parse(const char *text, int64_t *mask, char *why, size_t whylen)
{
	const char *p = text;
	uint64_t m = 0;
	unsigned long a, b;
	int r;

	if (!*text || strcasecmp(text, "none") == 0) {
		*mask = 0;
		return 0;
	}
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		r = parse_hex(text + 2, mask, 0);
		if (r == -ERANGE)
			goto range;
		if (r < 0)
			goto bad;
		return 0;
	}
	for (;;) {
		if (cpu_number(&p, &a) < 0)
			goto bad;
		b = a;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &b) < 0 || b < a)
				goto bad;
		}
		if (b >= CPUS_MAX)
			goto range;
		for (; a <= b; a++)
			m |= 1ull << a;
		if (*p == '\0')
			break;
		if (*p++ != ',')
			goto bad;
	}
	*mask = (int64_t)m;
	return 0;
range:
	snprintf(why, whylen, "'%s' names a CPU above %d (rtltune holds CPUs 0 to %d)", text,
		 CPUS_MAX - 1, CPUS_MAX - 1);
	return -EINVAL;
bad:
	snprintf(why, whylen, "expects CPUs as a list (0-3,8), a hex mask (0xf) or none, got '%s'",
		 text);
	return -EINVAL;
}

const char *cpus_format(int64_t mask, char *buf, size_t len)
{
	size_t used = 0;
	int c = 0, end;

	if (mask <= 0) {
		snprintf(buf, len, "%s", mask == 0 ? "none" : "-");
		return buf;
	}
	buf[0] = '\0';
	while (c < CPUS_MAX) {
		if (!(mask >> c & 1)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < CPUS_MAX && (mask >> (end + 1) & 1); end++)
			;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 end > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, end);
		c = end + 1;
	}
	return buf;
}
