// SPDX-License-Identifier: GPL-2.0-only
/* Control bytes made visible before they reach a terminal (include/rtltune/escape.h). */
#include <stdio.h>

#include "rtltune/escape.h"

static size_t put_escape(char *dst, unsigned char c, bool json)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	dst[k++] = '\\';
	if (json) {
		dst[k++] = 'u';
		dst[k++] = '0';
		dst[k++] = '0';
	} else {
		dst[k++] = 'x';
	}
	dst[k++] = hex[c >> 4];
	dst[k++] = hex[c & 15];
	return k;
}

size_t escape_controls(char *dst, const char *src, size_t n, bool json, bool *carry)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (*carry) {
			*carry = false;
			if (c >= 0x80 && c <= 0x9f) {
				/* U+0080..U+009F: a C1 control */
				if (!json)
					k += put_escape(dst + k, 0xc2, false);
				k += put_escape(dst + k, c, json);
				continue;
			}
			dst[k++] = (char)0xc2;
		}
		if (c == 0xc2)
			*carry = true;
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			k += put_escape(dst + k, c, json);
		else
			dst[k++] = (char)c;
	}
	return k;
}

size_t escape_flush(char *dst, bool *carry)
{
	if (!*carry)
		return 0;
	*carry = false;
	dst[0] = (char)0xc2;
	return 1;
}
