/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_LOG_H
#define RTLTUNED_LOG_H

#include <json-c/json.h>
#include <net/if.h>
#include <stdint.h>
#include <syslog.h>

/*
 * The daemon's log: every line goes to stderr (with sd-daemon "<N>" priority prefixes
 * when journald reads it) or to syslog when detached, and into a ring that the control
 * socket's "log" request reads and "log follow" streams.
 */
enum dlog_sink { DLOG_STDERR, DLOG_JOURNAL, DLOG_SYSLOG };

struct dlog_entry {
	uint64_t seq; /* 1, 2, ...: gaps tell a follower it fell behind */
	double time;  /* realtime seconds */
	int level;    /* LOG_ERR .. LOG_DEBUG */
	char iface[IF_NAMESIZE];
	char msg[320];
};

#define DLOG_RING 512

/* Once, at start: where lines go, the most verbose level kept, the ring made resident. */
void dlog_init(enum dlog_sink sink, int max_level);
/* On reload (log_level): the level alone; the ring keeps every entry and its seq. */
void dlog_set_level(int max_level);
void dlog(int level, const char *iface, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Entries after seq (0: all held), oldest first, at most max; a JSON array. */
json_object *dlog_since(uint64_t seq, unsigned int max);
json_object *dlog_entry_json(const struct dlog_entry *e);
const char *dlog_level_name(int level);
/* Called for each new entry (the control server pushes it to followers). */
void dlog_set_listener(void (*fn)(const struct dlog_entry *e, void *data), void *data);

#endif
