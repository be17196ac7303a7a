// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's log sink and the ring behind `rtltune log`. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "loop.h"

static enum dlog_sink sink = DLOG_STDERR;
static int max_level = LOG_INFO;
static struct dlog_entry ring[DLOG_RING];
static uint64_t next_seq = 1;
static void (*listener)(const struct dlog_entry *e, void *data);
static void *listener_data;
static bool in_listener;

void dlog_init(enum dlog_sink s, int level)
{
	sink = s;
	max_level = level;
	/* Touch the ring now: its pages count from the start, so RSS does not creep up as
	 * the first 512 messages arrive and then stay (an apparent leak). Only while it holds
	 * nothing: what it holds is what `rtltune log` shows. */
	if (next_seq == 1)
		memset(ring, 0, sizeof(ring));
	if (s == DLOG_SYSLOG)
		openlog("rtltuned", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void dlog_set_level(int level)
{
	max_level = level;
}

void dlog_set_listener(void (*fn)(const struct dlog_entry *e, void *data), void *data)
{
	listener = fn;
	listener_data = data;
}

const char *dlog_level_name(int level)
{
	static const char *const names[] = {"emerg",   "alert",	 "crit", "error",
					    "warning", "notice", "info", "debug"};

	return level >= 0 && level <= LOG_DEBUG ? names[level] : "info";
}

void dlog(int level, const char *iface, const char *fmt, ...)
{
	struct dlog_entry *e;
	va_list ap;

	if (level > max_level)
		return;
	e = &ring[next_seq % DLOG_RING];
	memset(e, 0, sizeof(*e));
	e->seq = next_seq++;
	e->time = now_real();
	e->level = level;
	if (iface)
		snprintf(e->iface, sizeof(e->iface), "%s", iface);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);

	switch (sink) {
	case DLOG_JOURNAL:
		fprintf(stderr, "<%d>%s%s%s\n", level, iface ? iface : "", iface ? ": " : "",
			e->msg);
		break;
	case DLOG_SYSLOG:
		syslog(level, "%s%s%s", iface ? iface : "", iface ? ": " : "", e->msg);
		break;
	default:
		fprintf(stderr, "rtltuned: %s%s%s\n", iface ? iface : "", iface ? ": " : "",
			e->msg);
		break;
	}
	/* A listener that logs (a follower dropped for being slow) must not recurse. */
	if (listener && !in_listener) {
		in_listener = true;
		listener(e, listener_data);
		in_listener = false;
	}
}

json_object *dlog_entry_json(const struct dlog_entry *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "seq", json_object_new_uint64(e->seq));
	json_object_object_add(o, "time", json_object_new_double(e->time));
	json_object_object_add(o, "level", json_object_new_string(dlog_level_name(e->level)));
	json_object_object_add(o, "iface", e->iface[0] ? json_object_new_string(e->iface) : NULL);
	json_object_object_add(o, "message", json_object_new_string(e->msg));
	return o;
}

json_object *dlog_since(uint64_t seq, unsigned int max)
{
	json_object *arr = json_object_new_array();
	uint64_t first = next_seq > DLOG_RING ? next_seq - DLOG_RING : 1, s;

	if (seq + 1 > first)
		first = seq + 1;
	if (max && next_seq - first > max)
		first = next_seq - max;
	for (s = first; s < next_seq; s++)
		json_object_array_add(arr, dlog_entry_json(&ring[s % DLOG_RING]));
	return arr;
}
