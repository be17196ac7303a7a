/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_JOURNAL_H
#define RTLTUNE_JOURNAL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * The state journal (docs/journal.md): the original value of every knob rtltune ever
 * changed, per device, so `restore` works after a crash, a SIGKILL or a reboot; the
 * operations in flight, so a crash mid-apply or mid-trial is rolled back at the next
 * start; and an append-only log of decisions for `rtltune log`.
 *
 * Sequence for a change (CLI apply, daemon trial, restore):
 *	journal_open()                       takes the state dir's lock
 *	journal_inflight_begin(pre=current)  durable; also journals originals not yet known
 *	... change the knobs ...
 *	journal_inflight_end()               durable
 *	journal_log_append() per knob
 *	journal_close()                      releases the lock
 * If begin fails (full disk, read-only state dir) the caller must change nothing; only a
 * restore, whose targets are the journaled originals, may go on without its record
 * (journal_set_inflight_optional()).
 */

/* The journal's file in the state dir (docs/journal.md "Files in the state directory"). */
#define JOURNAL_FILE "journal"
/* Default for journal_open(): waiting longer means a stuck holder, worth reporting. */
#define JOURNAL_LOCK_TIMEOUT_MS 10000
/* A value not known or not applicable in a journal_event. */
#define JOURNAL_NO_VALUE INT64_MIN

/*
 * Which device a record belongs to. Names move (rename) and are reused (a veth deleted
 * and re-created), so a record is matched by identity, not name:
 *  - a device with a permanent hardware address (ETHTOOL_GPERMADDR: real NICs,
 *    virtio) is the same device when that address is equal, across rename, netns move
 *    and reboot;
 *  - a device without one (veth, bridges, tunnels) is the same device only within one
 *    boot, one netns and one ifindex (ifindexes are allocated cyclically, not reused).
 * See journal_ident_same() and docs/journal.md "Identity".
 */
struct journal_ident {
	char ifname[IF_NAMESIZE]; /* the name when last seen; informative, never matched on */
	int ifindex;
	uint64_t netns_cookie; /* SO_NETNS_COOKIE; 0 when the kernel has none */
	char perm_addr[64];    /* "aa:bb:cc:dd:ee:ff", "" when the device has none */
	char boot_id[40];      /* /proc/sys/kernel/random/boot_id */
};

/* Fill id for the interface ifname as it is now; -ENODEV when it does not exist. */
int journal_ident_read(const char *ifname, struct journal_ident *id, struct rterr *err);
/*
 * The same for the device with ifindex, whatever its name now (the identity read goes by
 * name, so it is repeated until the name held still); was names it in messages. -ENODEV
 * "interface N (was WAS) disappeared".
 */
int journal_ident_read_index(int ifindex, const char *was, struct journal_ident *id,
			     struct rterr *err);
/* Whether a and b are the same device (rules above). */
bool journal_ident_same(const struct journal_ident *a, const struct journal_ident *b);
/*
 * The host's own identity, for its host-wide knobs (docs/journal.md "The host"): named
 * KNOB_HOST_NAME, ifindex 0 (no device has it), no permanent address, this boot and the
 * caller's netns. Only a process in the initial network namespace changes those knobs, so
 * the records it makes are the initial netns's of this boot; rule 3 matches them exactly
 * there, and never a device's (ifindex > 0) or another boot's.
 */
void journal_ident_host(struct journal_ident *id);
static inline bool journal_ident_is_host(const struct journal_ident *id)
{
	return id->ifindex == 0;
}

struct journal;

/*
 * Open the journal in state_dir (created 0750 if missing), taking its lock; waits at
 * most JOURNAL_LOCK_TIMEOUT_MS for another rtltune process (the error names its pid).
 * A journal file that is torn, hostile or of an unknown version is refused: -EBADMSG, an
 * RTERR_INPUT (errnum EBADMSG) naming file:line and what to do (docs/journal.md "An
 * untrusted journal"); the file is left as it is. A read-only state dir opens (reads
 * work); writes then fail with rterr_sys.
 */
int journal_open(const char *state_dir, struct journal **j, struct rterr *err);
int journal_open_timeout(const char *state_dir, int timeout_ms, struct journal **j,
			 struct rterr *err);
/* Release the lock and free; NULL is fine. */
void journal_close(struct journal *j);
/* The journal file's path (for messages). */
const char *journal_path(const struct journal *j);

/* Originals of one device. */
struct journal_entry {
	struct journal_ident id; /* as last recorded */
	int64_t since;		 /* unix time the first original was recorded */
	bool have[KNOB__COUNT];
	int64_t orig[KNOB__COUNT];
};

/*
 * Record originals of device id for the knobs in which[] (values[] are the current,
 * unchanged values), before changing them. Knobs already journaled for this device keep
 * their first value. Durable (fsync, rename, fsync dir) on return. Fails with rterr_sys
 * (ENOSPC, EROFS, EIO, ...) and then the caller must change nothing. A renamed device's
 * entry follows it (its name is updated). A value of -1 (LINK_UNSET: the kernel does not
 * report the knob) is skipped; any other value outside the knob's range (0/1, or
 * 0..UINT32_MAX) is refused with RTERR_INPUT.
 */
int journal_record_originals(struct journal *j, const struct journal_ident *id,
			     const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
			     struct rterr *err);
/*
 * Originals of device id: returns 1 and fills values/have, or 0 when nothing is
 * journaled for it. When nothing matches id but an entry for a *different* device with
 * the same name exists (re-created, or another device renamed to this name), returns
 * -ESTALE with an RTERR_INPUT message saying so: never restore another device's values.
 */
int journal_get_originals(struct journal *j, const struct journal_ident *id,
			  int64_t values[KNOB__COUNT], bool have[KNOB__COUNT], struct rterr *err);
/* Drop the originals in which[] (NULL: all) of device id, after a successful restore. */
int journal_forget(struct journal *j, const struct journal_ident *id, const bool which[KNOB__COUNT],
		   struct rterr *err);
/*
 * After a restore set device id's knobs in which[] (NULL: all) back to their originals:
 * forget those originals and end the operation in flight on the device, whoever began it,
 * in one durable write. Never one without the other: an interrupted operation's record
 * left behind once its originals are gone would, at rtltuned's next start, roll the device
 * back to values no restore can undo. On failure (rterr_sys: ENOSPC, EROFS, ...) both stay;
 * that is harmless, since the originals now equal the current values and the next restore
 * is a no-op that then removes them.
 */
int journal_restore_done(struct journal *j, const struct journal_ident *id,
			 const bool which[KNOB__COUNT], struct rterr *err);
/*
 * What a restore tells the user when journal_restore_done() failed with failed:
 * "not updated: ERRNO TEXT (state dir DIR)", and the operation still in flight on device
 * id, if any. One text for the CLI and rtltuned.
 */
void journal_restore_note(struct journal *j, const struct journal_ident *id,
			  const struct rterr *failed, char *buf, size_t len);
/* Every entry, including devices gone or renamed. Valid until the next change or close. */
int journal_entries(struct journal *j, const struct journal_entry **entries);

/* An operation in progress on one device: an apply, a trial or a restore. */
struct journal_inflight {
	struct journal_ident id;
	char op[16];	/* "apply", "trial", "restore" */
	char actor[16]; /* "cli", "daemon" */
	pid_t pid;
	uint64_t pid_start; /* /proc/PID/stat starttime: tells a reused pid */
	int64_t since;	    /* unix time */
	bool which[KNOB__COUNT];
	int64_t pre[KNOB__COUNT]; /* values before the operation: what a rollback restores */
	bool orphaned;		  /* computed on open: its process is gone (crash, reboot) */
};

/*
 * Begin an operation on device id that will change the knobs in which[] from pre[].
 * Also records pre[] as originals where none are journaled yet (one durable write for
 * both; -1 values are skipped as in journal_record_originals). The same process may
 * begin again on the same device: knobs are added, earlier pre-values kept. Another live
 * process's operation on the device: -EBUSY (rterr_sys) naming it. An orphaned one (its
 * process died) is adopted the same way: its older pre-values are kept, so a crash of
 * this operation too still rolls back to before the first. A caller that wants to roll
 * the orphan back first (the daemon at start-up) checks journal_inflight_list() before.
 */
int journal_inflight_begin(struct journal *j, const struct journal_ident *id, const char *op,
			   const char *actor, const int64_t pre[KNOB__COUNT],
			   const bool which[KNOB__COUNT], struct rterr *err);
/* End the operation on device id (whoever began it); 0 also when there was none. */
int journal_inflight_end(struct journal *j, const struct journal_ident *id, struct rterr *err);
/*
 * Make in-flight records best effort on this handle, for a restore: when the state dir
 * cannot take the write (ENOSPC, EROFS, EDQUOT, EIO), journal_inflight_begin() and
 * journal_inflight_end() return 0 without writing, the journal in memory kept equal to the
 * one on disk. begin still fails when it would have to journal a new original, and for
 * every other error (EBUSY, a bad value, ENOMEM). Safe for a restore because its targets
 * are originals already durable: an interrupted restore leaves them in the journal and a
 * second one finishes the job. docs/journal.md "Restore on a state dir that cannot be
 * written".
 */
void journal_set_inflight_optional(struct journal *j, bool optional);

/*
 * Many changes, one durable write: between journal_batch_begin() and a journal_batch_flush()
 * every change of the journal (originals, in-flight records begun and ended, devices
 * forgotten) stays in memory, and the flush writes them all in one commit. An apply of many
 * interfaces journals every originals and in-flight record, flushes (durable before the
 * first change, as one write), changes the devices, ends the records and flushes again with
 * last set, which also ends the batch. A failed flush puts memory back to the last durable
 * point and returns the error (the in-flight-optional rules of a restore apply to the batch
 * as a whole). The last flush does not fsync the directory: should a power loss undo its
 * rename, the records it ended are in flight again and the next start rolls them back,
 * as after a crash just before it; everything else is as durable as ever.
 */
int journal_batch_begin(struct journal *j, struct rterr *err);
int journal_batch_flush(struct journal *j, bool last, struct rterr *err);
/*
 * The last in-flight write skipped on this handle: its errno (0 when none was skipped)
 * and, when err is not NULL, its message.
 */
int journal_inflight_skipped(const struct journal *j, struct rterr *err);
/* The operation on device id: 1 and *out filled, or 0. */
int journal_inflight_get(struct journal *j, const struct journal_ident *id,
			 struct journal_inflight *out);
/* Every operation in the journal (check .orphaned at start-up). Valid until next change. */
int journal_inflight_list(struct journal *j, const struct journal_inflight **ops);

/*
 * Devices that are gone (docs/journal.md "Devices that are gone"). The records of a device
 * without a permanent address can only ever match that device in the boot, netns and
 * ifindex they name (identity rule 3); once no link in that netns has the ifindex any more
 * they are dead weight, and a host whose containers churn veths would grow its journal to
 * the 4 MiB limit, where every apply is refused. What a caller knows of where it runs:
 */
struct journal_here {
	char boot_id[40];      /* this boot; "" judges nothing */
	uint64_t netns_cookie; /* the caller's netns; 0 (unknown) judges nothing */
	const int *ifindexes;  /* every link in that netns, listed while holding the lock */
	int n_ifindexes;
};

/*
 * The decision alone, on the tables given (no I/O, for tests): sets ent_gone[i] and
 * op_gone[i] for each entry and in-flight record of a device gone from here. Only devices
 * without a permanent address, recorded in this boot and this netns, under an ifindex not
 * in here->ifindexes. An entry whose device has a live in-flight record (not .orphaned) is
 * kept, and the record too; an orphaned record goes with its device (journal_forget_gone()
 * counts the caller's own records as orphaned: it ends them). Returns how many flags it
 * set.
 */
int journal_gone_select(const struct journal_entry *ents, int n_ents,
			const struct journal_inflight *ops, int n_ops,
			const struct journal_here *here, bool *ent_gone, bool *op_gone);

/* What journal_forget_gone() removed for one device. */
struct journal_gone {
	struct journal_entry entry; /* its originals; none in have[] when it had only a record */
	bool had_inflight;
	struct journal_inflight op; /* the orphaned record ended with it, when had_inflight */
	char reason[96];	    /* why, as the log says it */
};

/*
 * Forget, in one durable write, the records of devices gone from the caller's netns:
 * journal_gone_select() with this boot, this netns and ifindexes[] (every link the caller
 * listed after journal_open(), so no record can be newer than the list), each absence
 * confirmed by the kernel once more (SIOCGIFNAME). Logs one "forgotten" record per
 * original (its value as `old`, so the log still holds it) and per orphaned record, actor
 * actor. For commands that write the journal anyway (apply, restore), never read-only ones.
 * Returns the number of devices forgotten with *gone (malloc'ed; free() it) when not NULL,
 * 0 when there were none (no write), or a negative errno when the write failed (full or
 * read-only state dir): then memory and disk keep every record, which only costs space,
 * and the caller goes on (only a failed fsync of the directory after the rename leaves
 * them forgotten, and logged).
 */
int journal_forget_gone(struct journal *j, const int *ifindexes, int n_ifindexes, const char *actor,
			struct journal_gone **gone, struct rterr *err);
/*
 * The same for every device of the network namespace with cookie netns_cookie, which is
 * gone (the caller knows: it was deleted): every record of this boot there without a
 * permanent address, and the operations in flight on them, forgotten and logged as
 * journal_forget_gone() does ("device gone with its network namespace").
 */
int journal_forget_netns(struct journal *j, uint64_t netns_cookie, const char *actor,
			 struct journal_gone **gone, struct rterr *err);

/*
 * One record of the decision/apply log. outcome (< 32 bytes) and actor (< 16) are
 * lowercase words ([a-z0-9_-]); reason is free text (cut at 1024 bytes).
 */
struct journal_event {
	int64_t ts_us; /* CLOCK_REALTIME microseconds; 0 on append means now */
	const char *ifname;
	int knob;	   /* enum knob_id, or -1 for an event about no single knob */
	int64_t old_value; /* JOURNAL_NO_VALUE when not applicable */
	int64_t new_value;
	const char *outcome; /* "applied", "not_applied", "failed", "rolled_back", "kept", ... */
	const char *reason;  /* why; may be NULL */
	const char *actor;   /* "cli" or "daemon" */
	pid_t pid;	     /* filled on append */
};

/*
 * Append one record (one write(2); not fsynced: the journal, not the log, is durable).
 * Within a batch the records wait in memory for journal_log_flush() (at the latest the
 * batch's last flush, or journal_close()), which writes them with one write(2): the
 * actuator flushes after each operation's records, where it used to write them one by one.
 */
int journal_log_append(struct journal *j, const struct journal_event *ev, struct rterr *err);
int journal_log_flush(struct journal *j, struct rterr *err);

/*
 * Where a reader stands in the log; zero it to start at the beginning. Reading needs no
 * lock, so `rtltune log --follow` never blocks an apply.
 */
struct journal_log_cursor {
	off_t offset;
	dev_t dev;
	ino_t ino;
	unsigned int line;	/* lines consumed so far */
	unsigned int skipped;	/* unreadable records skipped (a crash mid-append) */
	unsigned int first_bad; /* line of the first of them */
};

/*
 * Deliver every complete record after *cur to cb (in order), then advance *cur. Stops
 * early when cb returns non-zero. Follows a rotation (log -> log.1). Returns the number
 * of records delivered, or a negative errno (a log of an unknown version: RTERR_INPUT
 * naming file:line). A missing log is an empty one.
 */
int journal_log_read(const char *state_dir, struct journal_log_cursor *cur,
		     int (*cb)(const struct journal_event *ev, void *arg), void *arg,
		     struct rterr *err);

#endif
