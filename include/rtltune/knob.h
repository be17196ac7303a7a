/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_KNOB_H
#define RTLTUNE_KNOB_H

#include <stdbool.h>
#include <stdint.h>

/* The knobs a profile can set (SPEC "Knobs a profile can set"), in apply order. */
enum knob_id {
	KNOB_MTU,
	KNOB_TSO,
	KNOB_GSO,
	KNOB_GRO,
	KNOB_GSO_MAX_SIZE, /* before the IPv4 twin: setting it <= 64K moves gso_ipv4 too */
	KNOB_GSO_IPV4_MAX_SIZE,
	KNOB_GRO_MAX_SIZE,
	KNOB_GRO_IPV4_MAX_SIZE,
	KNOB_GSO_MAX_SEGS,
	KNOB__COUNT
};

enum knob_type { KNOB_T_NUMBER, KNOB_T_BOOL };

/* A profile's value for a knob. */
enum knob_value_kind {
	KV_UNSET = 0, /* not mentioned: same as keep */
	KV_KEEP,
	KV_NUMBER, /* also on=1/off=0 for booleans */
	KV_MAX,    /* resolved per interface from kernel limits and chip quirks */
};

struct knob_value {
	enum knob_value_kind kind;
	int64_t num;
};

/* Name ("gso_max_size") <-> id. */
const char *knob_name(enum knob_id id);
int knob_from_name(const char *name); /* -1 when unknown */
enum knob_type knob_type(enum knob_id id);

/*
 * Parse a profile value for knob id: a number (decimal, with optional K/M suffix in
 * 1024s), on/off (booleans), "max" or "keep". Returns 0 or -EINVAL with a message in
 * why (what was expected).
 */
int knob_value_parse(enum knob_id id, const char *text, struct knob_value *out, char *why,
		     unsigned int whylen);

/* A current value as people read it: "on"/"off" for booleans, the number otherwise,
 * "-" for unknown (negative). */
const char *knob_value_str(enum knob_id id, int64_t value, char *buf, unsigned int len);

#endif
