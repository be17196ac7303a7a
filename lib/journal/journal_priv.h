/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_JOURNAL_PRIV_H
#define RTLTUNE_JOURNAL_PRIV_H

/*
 * Inside the journal (include/rtltune/journal.h is the API; docs/journal.md the format and
 * the rules). One file per concern, each calling only files listed before it:
 *	journal_base.c       clocks, small files, table look-ups, validators, live processes
 *	journal_format.c     the text format: parser and serializer
 *	journal_ident.c      device identity (which record is which device)
 *	journal_store.c      the state dir: lock, load, atomic commit, in-memory tables
 *	journal_originals.c  originals: record, look up, forget, restore done
 *	journal_inflight.c   operations in flight and their processes
 *	journal_log.c        the decision log (JSON Lines): append and read
 *	journal_gone.c       records of devices gone from their netns
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtltune/journal.h"
#include "rtltune/paths.h"

/* LINK_UNSET (rtltune/link.h): a value the kernel does not report. */
#define JOURNAL_UNKNOWN (-1)

#define JOURNAL_MAGIC	"rtltune-journal"
#define JOURNAL_VERSION 1
/* Far beyond any real host (a few hundred bytes per device); more is not ours. */
#define JOURNAL_MAX_BYTES (4 << 20)

/* Copy of the tables, so a failed commit leaves memory as the disk is. */
struct jr_snapshot {
	struct journal_entry *ents;
	struct journal_inflight *ops;
	int n_ents, n_ops;
};

struct journal {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	char tmp_path[PATH_MAX + 16];
	char lock_path[PATH_MAX + 16];
	char log_path[PATH_MAX + 16];
	int dir_fd;
	int lock_fd; /* -1: read-only state dir without a lock file, nobody can write */
	int log_fd;
	struct journal_entry *ents;
	int n_ents;
	struct journal_inflight *ops;
	int n_ops;
	bool inflight_optional;	    /* journal_set_inflight_optional() */
	struct rterr inflight_skip; /* the last in-flight write skipped */
	/* journal_batch_begin(): commits are deferred to journal_batch_flush(); the tables as
	 * they were at the last durable point, to go back to when a flush fails; whether
	 * anything is pending, and whether any of it may not be skipped (new originals). */
	bool batch, batch_dirty, batch_needs_disk;
	/* Within a batch (the lock held throughout, so no other writer) the log's end was
	 * checked once: its next records append without another fstat and pread. */
	bool log_checked;
	struct jr_snapshot batch_snap;
	/* Within a batch, records appended to the log wait here for journal_log_flush(): one
	 * write(2) for an operation's records rather than one each. */
	char *log_buf;
	size_t log_len, log_cap;
};

/* journal_base.c (calls no other file of the module) */
int64_t jr_now_us(void);  /* CLOCK_REALTIME */
int64_t jr_mono_us(void); /* CLOCK_MONOTONIC */
int jr_read_small_file(const char *path, char *buf, size_t len);
int jr_grow(void *arr, int n, size_t size);
pid_t jr_pid(void); /* getpid(), asked once per process (a forked child asks again) */
bool jr_ifname_ok(const char *s);
bool jr_word_ok(const char *s, size_t max);
bool jr_perm_addr_ok(const char *s);
bool jr_boot_id_ok(const char *s);
bool jr_host_ok(const struct journal_ident *id); /* the host's record: its name, no address */
const char *jr_boot_id(void);
struct journal_entry *jr_find_entry(struct journal *j, const struct journal_ident *id);
struct journal_inflight *jr_find_op(struct journal *j, const struct journal_ident *id);
void jr_drop_op(struct journal *j, struct journal_inflight *op);
uint64_t jr_proc_start_time(pid_t pid);
bool jr_op_alive(const struct journal_inflight *op);

/* journal_format.c */
/*
 * The refusal of a journal that cannot be trusted (journal.h): RTERR_INPUT, errnum
 * EBADMSG, naming path:line and what to do; returns -EBADMSG.
 */
int jr_untrusted(struct rterr *err, const char *path, unsigned int line, const char *what);
/* Parse the whole file (buf holds len bytes, modified) into j's tables; jr_untrusted(). */
int jr_parse(struct journal *j, char *buf, size_t len, struct rterr *err);
/* The file j's tables make (malloc'ed), or NULL on ENOMEM. */
char *jr_serialize(struct journal *j, size_t *len);

/* journal_store.c */
int jr_snapshot_take(struct journal *j, struct jr_snapshot *s, struct rterr *err);
/* Put the snapshot back (a change that will not be committed) and free it. */
void jr_snapshot_restore(struct journal *j, struct jr_snapshot *s);
void jr_snapshot_drop(struct jr_snapshot *s);
/* Commit j's tables durably; on failure put the snapshot back. Frees it either way. */
int jr_commit_or_undo(struct journal *j, struct jr_snapshot *s, struct rterr *err);
/*
 * What a change of one device's records needs to go back on (jr_mark_restore()) when it
 * fails or turns out to change nothing, without copying the tables: such a change only
 * appends records or modifies that device's own entry and operation. Only in a batch,
 * where nothing is written until journal_batch_flush() (which has its own snapshot).
 */
struct jr_mark {
	int n_ents, n_ops;
	int ent, op; /* the device's entry and operation (index), -1 when it had none */
	struct journal_entry ent_was;
	struct journal_inflight op_was;
};
void jr_mark_take(struct journal *j, const struct journal_ident *id, struct jr_mark *m);
void jr_mark_restore(struct journal *j, const struct jr_mark *m);

/* journal_ident.c */
uint64_t jr_netns_cookie(void); /* the caller's netns, 0 when unknown */
bool jr_ident_equal(const struct journal_ident *a, const struct journal_ident *b);
void jr_ident_describe(const struct journal_ident *id, char *buf, size_t len);

/* journal_originals.c */
int jr_check_ident(const struct journal_ident *id, struct rterr *err);
int jr_check_values(const struct journal_ident *id, const int64_t values[KNOB__COUNT],
		    const bool which[KNOB__COUNT], struct rterr *err);
bool jr_originals_cover(struct journal *j, const struct journal_ident *id,
			const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT]);
int jr_stage_originals(struct journal *j, const struct journal_ident *id,
		       const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
		       bool *changed, struct rterr *err);
bool jr_drop_originals(struct journal *j, struct journal_entry *e, const bool which[KNOB__COUNT]);

/* journal_inflight.c */
bool jr_op_mine(const struct journal_inflight *op);

#endif
