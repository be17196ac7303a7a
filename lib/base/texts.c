// SPDX-License-Identifier: GPL-2.0-only
/* Texts many records share, one copy each for the process (include/rtltune/texts.h). */
#include <stdlib.h>
#include <string.h>

#include "rtltune/texts.h"

const char *text_shared(const char *s, size_t max)
{
	static char **texts;
	static unsigned int n_texts, cap_texts;
	size_t len = max ? strnlen(s, max - 1) : 0;
	unsigned int i;
	char *t;

	for (i = 0; i < n_texts; i++)
		if (strncmp(texts[i], s, len) == 0 && texts[i][len] == '\0')
			return texts[i];
	if (n_texts == cap_texts) {
		unsigned int cap = cap_texts ? 2 * cap_texts : 16;
		char **grown = realloc(texts, cap * sizeof(*grown));

		if (!grown)
			return "";
		texts = grown;
		cap_texts = cap;
	}
	if (!(t = strndup(s, len)))
		return "";
	texts[n_texts++] = t;
	return t;
}
