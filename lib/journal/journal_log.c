// SPDX-License-Identifier: GPL-2.0-only
/*
 * The decision log (docs/journal.md "The log"): one JSON line per change and decision,
 * appended with one write(2) under the journal's lock, read without it (`rtltune log
 * --journal` and `report` follow it while rtltune writes).
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal_priv.h"
#include "rtltune/testhook.h"

#define LOG_MAGIC   "rtltune-log"
#define LOG_VERSION 1
/* Rotate the log past this size (keeping one old file, log.1). */
#define LOG_MAX_BYTES  (4 << 20)
#define LOG_MAX_LINE   4096
#define LOG_MAX_REASON 1024

static int log_open_check(struct journal *j, struct rterr *err)
{
	char header[32], last, old[sizeof(j->log_path) + 2];
	struct stat st;
	int n;

	for (;;) {
		if (j->log_fd < 0) {
			/* O_RDWR, not O_WRONLY: pread() checks how the last record ended. */
			j->log_fd =
				open(j->log_path,
				     O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
			if (j->log_fd < 0)
				return rterr_sys(err, errno, "cannot open log %s", j->log_path);
		}
		if (fstat(j->log_fd, &st) < 0)
			return rterr_sys(err, errno, "cannot stat log %s", j->log_path);
		if (st.st_size <= LOG_MAX_BYTES)
			break;
		/* Writers hold the lock, so nobody appends to the old file after this. */
		snprintf(old, sizeof(old), "%s.1", j->log_path);
		if (rename(j->log_path, old) < 0)
			return rterr_sys(err, errno, "cannot rotate log %s", j->log_path);
		close(j->log_fd);
		j->log_fd = -1;
	}
	if (st.st_size == 0) {
		n = snprintf(header, sizeof(header), "%s %d\n", LOG_MAGIC, LOG_VERSION);
		n = write_full(j->log_fd, header, n);
		return n ? rterr_sys(err, n, "cannot write log %s", j->log_path) : 0;
	}
	/* A crash mid-append left a partial line: end it, so the next record stays whole. */
	if (pread(j->log_fd, &last, 1, st.st_size - 1) == 1 && last != '\n') {
		n = write_full(j->log_fd, "\n", 1);
		if (n)
			return rterr_sys(err, n, "cannot write log %s", j->log_path);
	}
	return 0;
}

static int log_open(struct journal *j, struct rterr *err)
{
	int r;

	if (j->batch && j->log_checked && j->log_fd >= 0)
		return 0;
	r = log_open_check(j, err);
	j->log_checked = j->batch && r == 0;
	return r;
}

/* One record (line, len bytes, no newline) kept for journal_log_flush(). */
static int log_hold(struct journal *j, const char *line, size_t len)
{
	if (j->log_len + len + 1 > j->log_cap) {
		size_t cap = j->log_cap ? j->log_cap : 4096;
		char *bigger;

		while (cap < j->log_len + len + 1)
			cap *= 2;
		bigger = realloc(j->log_buf, cap);
		if (!bigger)
			return -ENOMEM;
		j->log_buf = bigger;
		j->log_cap = cap;
	}
	memcpy(j->log_buf + j->log_len, line, len);
	j->log_buf[j->log_len + len] = '\n';
	j->log_len += len + 1;
	return 0;
}

static void iso_time(int64_t us, char *buf, size_t len)
{
	time_t secs = us / 1000000;
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

/* A record's value as the log stores it: the raw number, null when there is none. */
static json_object *raw_value_json(int64_t v)
{
	return v == JOURNAL_NO_VALUE ? NULL : json_object_new_int64(v);
}

int journal_log_append(struct journal *j, const struct journal_event *ev, struct rterr *err)
{
	int64_t ts = ev->ts_us ? ev->ts_us : jr_now_us();
	char when[40], reason[LOG_MAX_REASON + 1];
	const char *line;
	json_object *o;
	char *buf;
	size_t len;
	int r;

	if (ev->ifname && *ev->ifname && !jr_ifname_ok(ev->ifname))
		return rterr_input(err, "log: invalid interface name '%s'", ev->ifname);
	if (ev->knob >= KNOB__COUNT || ev->knob < -1)
		return rterr_input(err, "log: invalid knob %d", ev->knob);
	if (!jr_word_ok(ev->outcome, 32) || !jr_word_ok(ev->actor, 16))
		return rterr_input(err, "log: outcome '%s' and actor '%s' must be short words",
				   ev->outcome ? ev->outcome : "", ev->actor ? ev->actor : "");
	r = test_hook("journal_log");
	if (r)
		return rterr_sys(err, r, "cannot append to log %s", j->log_path);
	iso_time(ts, when, sizeof(when));
	o = json_object_new_object();
	if (!o)
		return rterr_sys(err, ENOMEM, "log");
	json_object_object_add(o, "ts_us", json_object_new_int64(ts));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "actor", json_object_new_string(ev->actor));
	json_object_object_add(o, "pid", json_object_new_int(jr_pid()));
	json_object_object_add(
		o, "iface", ev->ifname && *ev->ifname ? json_object_new_string(ev->ifname) : NULL);
	json_object_object_add(o, "knob",
			       ev->knob >= 0 ? json_object_new_string(knob_name(ev->knob)) : NULL);
	json_object_object_add(o, "old", raw_value_json(ev->old_value));
	json_object_object_add(o, "new", raw_value_json(ev->new_value));
	json_object_object_add(o, "outcome", json_object_new_string(ev->outcome));
	if (ev->reason) {
		/* Bounded so one record is one write well under any pipe or line limit. */
		snprintf(reason, sizeof(reason), "%s", ev->reason);
		json_object_object_add(o, "reason", json_object_new_string(reason));
	} else {
		json_object_object_add(o, "reason", NULL);
	}
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	len = strlen(line);
	if (j->batch) {
		r = log_hold(j, line, len);
		json_object_put(o);
		return r ? rterr_sys(err, -r, "log") : 0;
	}
	buf = malloc(len + 2);
	if (!buf) {
		json_object_put(o);
		return rterr_sys(err, ENOMEM, "log");
	}
	memcpy(buf, line, len);
	buf[len++] = '\n';
	json_object_put(o);
	r = log_open(j, err);
	/* One write(2) with O_APPEND: a record is never interleaved with another. */
	if (!r && (r = write_full(j->log_fd, buf, len)))
		rterr_sys(err, r, "cannot append to log %s", j->log_path);
	free(buf);
	return r;
}

int journal_log_flush(struct journal *j, struct rterr *err)
{
	int r;

	if (!j->log_len)
		return 0;
	r = log_open(j, err);
	/* Whole records in one write(2) with O_APPEND: none is interleaved with another, and
	 * a reader following the file takes complete lines only. */
	if (!r && (r = write_full(j->log_fd, j->log_buf, j->log_len)))
		rterr_sys(err, r, "cannot append to log %s", j->log_path);
	j->log_len = 0;
	return r;
}

/* A record as written by journal_log_append(); false for anything else. */
static bool log_record(json_object *o, struct journal_event *ev)
{
	json_object *v;
	const char *s;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(o, json_type_object))
		return false;
	if (!json_object_object_get_ex(o, "ts_us", &v) || !json_object_is_type(v, json_type_int))
		return false;
	ev->ts_us = json_object_get_int64(v);
	if (!json_object_object_get_ex(o, "actor", &v) || !json_object_is_type(v, json_type_string))
		return false;
	ev->actor = json_object_get_string(v);
	if (!json_object_object_get_ex(o, "outcome", &v) ||
	    !json_object_is_type(v, json_type_string))
		return false;
	ev->outcome = json_object_get_string(v);
	if (json_object_object_get_ex(o, "pid", &v) && json_object_is_type(v, json_type_int))
		ev->pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "iface", &v) && json_object_is_type(v, json_type_string))
		ev->ifname = json_object_get_string(v);
	ev->knob = -1;
	if (json_object_object_get_ex(o, "knob", &v) && v) {
		s = json_object_get_string(v);
		if (!json_object_is_type(v, json_type_string) || knob_from_name(s) < 0)
			return false;
		ev->knob = knob_from_name(s);
	}
	ev->old_value = ev->new_value = JOURNAL_NO_VALUE;
	if (json_object_object_get_ex(o, "old", &v) && json_object_is_type(v, json_type_int))
		ev->old_value = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "new", &v) && json_object_is_type(v, json_type_int))
		ev->new_value = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "reason", &v) && json_object_is_type(v, json_type_string))
		ev->reason = json_object_get_string(v);
	return true;
}

/*
 * Deliver the complete lines of fd after cur->offset. *stop is set when cb asked to
 * stop. Returns records delivered or a negative errno.
 */
static int log_read_fd(int fd, const char *path, struct journal_log_cursor *cur,
		       int (*cb)(const struct journal_event *ev, void *arg), void *arg, bool *stop,
		       struct rterr *err)
{
	char chunk[65536], *line = NULL;
	size_t used = 0, cap = 0;
	int delivered = 0, r = 0;
	ssize_t got;

	for (;;) {
		char *nl, *start;

		got = pread(fd, chunk, sizeof(chunk), cur->offset + used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = rterr_sys(err, errno, "cannot read log %s", path);
			break;
		}
		if (got == 0)
			break;
		if (used + got + 1 > cap) {
			char *bigger = realloc(line, used + got + 1);

			if (!bigger) {
				r = rterr_sys(err, ENOMEM, "%s", path);
				break;
			}
			line = bigger;
			cap = used + got + 1;
		}
		memcpy(line + used, chunk, got);
		used += got;
		line[used] = '\0';
		start = line;
		while ((nl = memchr(start, '\n', line + used - start))) {
			size_t llen = nl - start;
			struct journal_event ev;
			json_object *o = NULL;

			*nl = '\0';
			cur->line++;
			if (cur->line == 1) {
				unsigned int ver;
				char extra;

				if (sscanf(start, LOG_MAGIC " %u%c", &ver, &extra) != 1) {
					r = rterr_input(err,
							"%s:1: not an rtltune log (first line "
							"must be '%s %d')",
							path, LOG_MAGIC, LOG_VERSION);
				} else if (ver != LOG_VERSION) {
					r = rterr_input(err,
							"%s:1: unknown log version %u (this "
							"rtltune reads %d)",
							path, ver, LOG_VERSION);
				}
				if (r) {
					cur->line = 0;
					goto out;
				}
			} else if (llen) {
				if (llen <= LOG_MAX_LINE && !memchr(start, '\0', llen))
					o = json_tokener_parse(start);
				if (o && log_record(o, &ev)) {
					delivered++;
					cur->offset += nl + 1 - start;
					start = nl + 1;
					*stop = cb(&ev, arg) != 0;
					json_object_put(o);
					if (*stop)
						goto out;
					continue;
				}
				json_object_put(o);
				if (!cur->skipped++)
					cur->first_bad = cur->line;
			}
			cur->offset += nl + 1 - start;
			start = nl + 1;
		}
		/* Keep the partial last line (a record being appended right now). */
		memmove(line, start, line + used - start);
		used = line + used - start;
		if (used > LOG_MAX_LINE + 1) {
			/* No newline in sight: not a record; skip it like any unreadable one. */
			if (!cur->skipped++)
				cur->first_bad = cur->line + 1;
			cur->offset += used;
			used = 0;
		}
	}
out:
	free(line);
	return r ? r : delivered;
}

int journal_log_read(const char *state_dir, struct journal_log_cursor *cur,
		     int (*cb)(const struct journal_event *ev, void *arg), void *arg,
		     struct rterr *err)
{
	char path[PATH_MAX + 16], old[PATH_MAX + 16];
	int fd, r, total = 0;
	struct stat st;
	bool stop = false;

	snprintf(path, sizeof(path), "%s/log", state_dir);
	snprintf(old, sizeof(old), "%s/log.1", state_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : rterr_sys(err, errno, "cannot open log %s", path);
	if (fstat(fd, &st) < 0) {
		r = rterr_sys(err, errno, "cannot stat log %s", path);
		close(fd);
		return r;
	}
	if (cur->ino && (cur->ino != st.st_ino || cur->dev != st.st_dev)) {
		/* Rotated since the last call: finish the old file first. */
		int ofd = open(old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		struct stat ost;

		if (ofd >= 0 && fstat(ofd, &ost) == 0 && ost.st_ino == cur->ino &&
		    ost.st_dev == cur->dev) {
			r = log_read_fd(ofd, old, cur, cb, arg, &stop, err);
			if (r < 0 || stop) {
				close(ofd);
				close(fd);
				return r;
			}
			total += r;
		}
		if (ofd >= 0)
			close(ofd);
		cur->offset = 0;
		cur->line = 0;
	} else if (cur->offset > st.st_size) {
		cur->offset = 0; /* replaced by a shorter file */
		cur->line = 0;
	}
	cur->dev = st.st_dev;
	cur->ino = st.st_ino;
	r = log_read_fd(fd, path, cur, cb, arg, &stop, err);
	close(fd);
	return r < 0 ? r : total + r;
}
