// SPDX-License-Identifier: GPL-2.0-only
/* Knob names, types and profile value parsing. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtltune/knob.h"

static const struct {
	const char *name;
	enum knob_type type;
} knobs[KNOB__COUNT] = {
	[KNOB_MTU] = { "mtu", KNOB_T_NUMBER },
	[KNOB_TSO] = { "tso", KNOB_T_BOOL },
	[KNOB_GSO] = { "gso", KNOB_T_BOOL },
	[KNOB_GRO] = { "gro", KNOB_T_BOOL },
	[KNOB_GSO_MAX_SIZE] = { "gso_max_size", KNOB_T_NUMBER },
	[KNOB_GSO_IPV4_MAX_SIZE] = { "gso_ipv4_max_size", KNOB_T_NUMBER },
	[KNOB_GRO_MAX_SIZE] = { "gro_max_size", KNOB_T_NUMBER },
	[KNOB_GRO_IPV4_MAX_SIZE] = { "gro_ipv4_max_size", KNOB_T_NUMBER },
	[KNOB_GSO_MAX_SEGS] = { "gso_max_segs", KNOB_T_NUMBER },
};

const char *knob_name(enum knob_id id)
{
	return (unsigned int)id < KNOB__COUNT ? knobs[id].name : "?";
}

int knob_from_name(const char *name)
{
	int i;

	for (i = 0; i < KNOB__COUNT; i++)
		if (strcmp(knobs[i].name, name) == 0)
			return i;
	return -1;
}

enum knob_type knob_type(enum knob_id id)
{
	return knobs[id].type;
}

int knob_value_parse(enum knob_id id, const char *text, struct knob_value *out, char *why,
		     unsigned int whylen)
{
	unsigned long long v, mult = 1;
	char *end;

	memset(out, 0, sizeof(*out));
	if (strcasecmp(text, "keep") == 0) {
		out->kind = KV_KEEP;
		return 0;
	}
	if (strcasecmp(text, "max") == 0) {
		out->kind = KV_MAX;
		return 0;
	}
	if (knobs[id].type == KNOB_T_BOOL) {
		if (strcasecmp(text, "on") == 0 || strcasecmp(text, "yes") == 0 ||
		    strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0) {
			*out = (struct knob_value){ KV_NUMBER, 1 };
			return 0;
		}
		if (strcasecmp(text, "off") == 0 || strcasecmp(text, "no") == 0 ||
		    strcmp(text, "0") == 0 || strcasecmp(text, "false") == 0) {
			*out = (struct knob_value){ KV_NUMBER, 0 };
			return 0;
		}
		snprintf(why, whylen, "%s expects on, off, max or keep, got '%s'", knobs[id].name,
			 text);
		return -EINVAL;
	}
	if (!isdigit((unsigned char)text[0]))
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		goto bad;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end != '\0' || v > UINT32_MAX / mult)
		goto bad;
	*out = (struct knob_value){ KV_NUMBER, (int64_t)(v * mult) };
	return 0;
bad:
	snprintf(why, whylen,
		 "%s expects a number up to 4294967295 (optional K or M suffix), max or keep, "
		 "got '%s'",
		 knobs[id].name, text);
	return -EINVAL;
}

const char *knob_value_str(enum knob_id id, int64_t value, char *buf, unsigned int len)
{
	if (value < 0)
		return "-";
	if (knobs[id].type == KNOB_T_BOOL)
		return value ? "on" : "off";
	snprintf(buf, len, "%lld", (long long)value);
	return buf;
}
