// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's state dir (journal_priv.h): the lock, loading, the atomic commit of the
 * in-memory tables (temp file, fsync, rename, fsync dir) and their snapshots.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal_priv.h"
#include "rtltune/testhook.h"

static void sleep_us(int64_t us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
/*
 * Make the in-memory journal the one on disk: temp file, fsync, rename over, fsync dir.
 * A crash at any point leaves either the old or the new file, never a mix. Without
 * sync_dir the rename may not survive a power loss (the old file comes back): only for
 * the write that ends a batch's in-flight records, where the old file means what a crash
 * just before the write would have meant (the operation is rolled back at the next start).
 */
static int commit(struct journal *j, bool *visible, bool sync_dir, struct rterr *err)
{
	const char *step = "write";
	size_t len;
	char *buf = jr_serialize(j, &len);
	int fd = -1, r;

	if (!buf)
		return rterr_sys(err, ENOMEM, "cannot build journal %s", j->path);
	r = test_hook("journal_write");
	if (!r) {
		fd = open(j->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
		r = fd < 0 ? -errno : write_full(fd, buf, len);
	}
	free(buf);
	if (!r) {
		step = "fsync";
		r = test_hook("journal_fsync");
		if (!r && fsync(fd) < 0)
			r = -errno;
	}
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r) {
		step = "rename";
		r = test_hook("journal_rename");
		if (!r && rename(j->tmp_path, j->path) < 0)
			r = -errno;
	}
	if (r) {
		if (fd >= 0)
			unlink(j->tmp_path);
		return rterr_sys(err, r, "cannot %s journal %s (nothing changed)", step,
				 strcmp(step, "rename") ? j->tmp_path : j->path);
	}
	if (sync_dir && fsync(j->dir_fd) < 0) {
		/* The new file is in place, so memory keeps matching it; durability is unsure. */
		*visible = true;
		return rterr_sys(err, errno, "cannot fsync state dir %s", j->dir);
	}
	test_hook("journal_committed");
	return 0;
}

int jr_snapshot_take(struct journal *j, struct jr_snapshot *s, struct rterr *err)
{
	s->n_ents = j->n_ents;
	s->n_ops = j->n_ops;
	s->ents = malloc((j->n_ents + 1) * sizeof(*s->ents));
	s->ops = malloc((j->n_ops + 1) * sizeof(*s->ops));
	if (!s->ents || !s->ops) {
		free(s->ents);
		free(s->ops);
		return rterr_sys(err, ENOMEM, "%s", j->path);
	}
	/* An empty journal has NULL arrays: memcpy() from NULL is undefined even for 0. */
	if (j->n_ents)
		memcpy(s->ents, j->ents, j->n_ents * sizeof(*s->ents));
	if (j->n_ops)
		memcpy(s->ops, j->ops, j->n_ops * sizeof(*s->ops));
	return 0;
}

void jr_snapshot_drop(struct jr_snapshot *s)
{
	free(s->ents);
	free(s->ops);
	s->ents = NULL;
	s->ops = NULL;
}

void jr_snapshot_restore(struct journal *j, struct jr_snapshot *s)
{
	/* The arrays only grew since the snapshot, so they are large enough (and may still
	 * be NULL when the snapshot was empty). */
	if (s->n_ents)
		memcpy(j->ents, s->ents, s->n_ents * sizeof(*s->ents));
	if (s->n_ops)
		memcpy(j->ops, s->ops, s->n_ops * sizeof(*s->ops));
	j->n_ents = s->n_ents;
	j->n_ops = s->n_ops;
	jr_snapshot_drop(s);
}

void jr_mark_take(struct journal *j, const struct journal_ident *id, struct jr_mark *m)
{
	struct journal_entry *e = jr_find_entry(j, id);
	struct journal_inflight *op = jr_find_op(j, id);

	m->n_ents = j->n_ents;
	m->n_ops = j->n_ops;
	m->ent = e ? (int)(e - j->ents) : -1;
	m->op = op ? (int)(op - j->ops) : -1;
	if (e)
		m->ent_was = *e;
	if (op)
		m->op_was = *op;
}

void jr_mark_restore(struct journal *j, const struct jr_mark *m)
{
	j->n_ents = m->n_ents;
	j->n_ops = m->n_ops;
	if (m->ent >= 0)
		j->ents[m->ent] = m->ent_was;
	if (m->op >= 0)
		j->ops[m->op] = m->op_was;
}

int jr_commit_or_undo(struct journal *j, struct jr_snapshot *s, struct rterr *err)
{
	bool visible = false;
	int r;

	if (j->batch) {
		/* journal_batch_flush() writes it, or goes back to its own snapshot. */
		jr_snapshot_drop(s);
		j->batch_dirty = j->batch_needs_disk = true;
		return 0;
	}
	r = commit(j, &visible, true, err);
	if (r && !visible)
		jr_snapshot_restore(j, s);
	else
		jr_snapshot_drop(s);
	return r;
}

int journal_batch_begin(struct journal *j, struct rterr *err)
{
	int r;

	if (j->batch)
		return 0;
	r = jr_snapshot_take(j, &j->batch_snap, err);
	if (r)
		return r;
	j->batch = true;
	j->batch_dirty = j->batch_needs_disk = false;
	return 0;
}

/*
 * Write what the batch changed. A failure goes back to the tables as they were at the last
 * durable point. On a handle where in-flight records are optional (a restore), a state dir
 * that cannot take the write is noted and memory goes back the same way, unless the batch
 * journals new originals, which nothing may do without.
 */
int journal_batch_flush(struct journal *j, bool last, struct rterr *err)
{
	struct rterr e = {0};
	bool visible = false;
	int r = 0;

	if (!j->batch)
		return 0;
	if (j->batch_dirty) {
		r = commit(j, &visible, !last, &e);
		if (r && !visible) {
			jr_snapshot_restore(j, &j->batch_snap);
			if (!last && jr_snapshot_take(j, &j->batch_snap, &e) < 0)
				last = true;
		} else if (!last) {
			jr_snapshot_drop(&j->batch_snap);
			if (jr_snapshot_take(j, &j->batch_snap, &e) < 0)
				last = true;
		}
	}
	if (r && !j->batch_needs_disk && j->inflight_optional &&
	    (r == -ENOSPC || r == -EROFS || r == -EDQUOT || r == -EIO)) {
		j->inflight_skip = e;
		r = 0;
	} else if (r && err) {
		*err = e;
	}
	j->batch_dirty = j->batch_needs_disk = false;
	if (last) {
		journal_log_flush(j, NULL);
		jr_snapshot_drop(&j->batch_snap);
		j->batch = false;
		j->log_checked = false;
	}
	return r;
}

static int load_journal(struct journal *j, struct rterr *err)
{
	struct stat st;
	char *buf;
	ssize_t got = 0;
	size_t len = 0;
	int fd, r;

	fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return rterr_sys(err, errno, "cannot open journal %s", j->path);
	if (fstat(fd, &st) < 0) {
		r = rterr_sys(err, errno, "cannot stat journal %s", j->path);
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > JOURNAL_MAX_BYTES) {
		close(fd);
		return jr_untrusted(err, j->path, 1,
				    S_ISREG(st.st_mode) ? "larger than 4 MiB"
							: "not a regular file");
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return rterr_sys(err, ENOMEM, "%s", j->path);
	}
	while (len < (size_t)st.st_size) {
		got = read(fd, buf + len, st.st_size - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += got;
	}
	if (got < 0)
		r = rterr_sys(err, errno, "cannot read journal %s", j->path);
	else
		r = jr_parse(j, buf, len, err);
	free(buf);
	close(fd);
	return r;
}

/* ---- open / close ----------------------------------------------------------------- */

static int mkdir_state(const char *dir, struct rterr *err)
{
	char path[PATH_MAX], *p;
	struct stat st;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return rterr_sys(err, ENOTDIR, "state dir %s", dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return rterr_sys(err, errno, "cannot create %s for state dir %s", path,
					 dir);
		*p = '/';
	}
	if (mkdir(path, 0750) < 0 && errno != EEXIST)
		return rterr_sys(err, errno, "cannot create state dir %s", dir);
	return 0;
}

static void lock_holder(const char *lock_path, char *buf, size_t len)
{
	char pidbuf[32], path[64], comm[32] = "";
	int pid;

	snprintf(buf, len, "another process");
	if (jr_read_small_file(lock_path, pidbuf, sizeof(pidbuf)) <= 0 ||
	    sscanf(pidbuf, "%d", &pid) != 1 || pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (jr_read_small_file(path, comm, sizeof(comm)) > 0)
		comm[strcspn(comm, "\n")] = '\0';
	snprintf(buf, len, "pid %d%s%s%s", pid, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
}

static int lock_state(struct journal *j, int timeout_ms, struct rterr *err)
{
	int64_t deadline = jr_mono_us() + (timeout_ms > 0 ? timeout_ms : 0) * 1000LL;
	bool writable = true;
	char holder[96], pid[24];
	int fd;

	fd = open(j->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0 && (errno == EROFS || errno == EACCES)) {
		/* Readers still work on a read-only state dir; no writer can exist there. */
		writable = false;
		fd = open(j->lock_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == ENOENT)
			return 0;
	}
	if (fd < 0)
		return rterr_sys(err, errno, "cannot open lock %s", j->lock_path);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		int64_t left = deadline - jr_mono_us();

		if (e == EINTR)
			continue;
		if (e != EWOULDBLOCK || left <= 0) {
			e = e == EWOULDBLOCK ? EBUSY : e;

			close(fd);
			lock_holder(j->lock_path, holder, sizeof(holder));
			if (e != EBUSY)
				return rterr_sys(err, e, "cannot lock %s", j->lock_path);
			return rterr_sys(err, e,
					 "state dir %s is locked by %s; gave up after %d ms",
					 j->dir, holder, timeout_ms);
		}
		/* flock has no timeout: poll, at most 10 ms late, never early. */
		sleep_us(left < 10000 ? left : 10000);
	}
	if (writable) {
		snprintf(pid, sizeof(pid), "%d\n", (int)jr_pid());
		if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, strlen(pid), 0) < 0) {
			/* Only informative (names the holder to waiters); the flock is the lock. */
		}
	}
	j->lock_fd = fd;
	return 0;
}

int journal_open_timeout(const char *state_dir, int timeout_ms, struct journal **jp,
			 struct rterr *err)
{
	struct journal *j;
	int i, r;

	*jp = NULL;
	if (!state_dir || !*state_dir)
		return rterr_input(err, "empty state directory");
	if (strlen(state_dir) >= PATH_MAX)
		return rterr_input(err, "state directory path too long: %.64s...", state_dir);
	j = calloc(1, sizeof(*j));
	if (!j)
		return rterr_sys(err, ENOMEM, "journal");
	j->dir_fd = j->lock_fd = j->log_fd = -1;
	snprintf(j->dir, sizeof(j->dir), "%s", state_dir);
	snprintf(j->path, sizeof(j->path), "%s/" JOURNAL_FILE, state_dir);
	snprintf(j->tmp_path, sizeof(j->tmp_path), "%s/" JOURNAL_FILE ".tmp", state_dir);
	snprintf(j->lock_path, sizeof(j->lock_path), "%s/lock", state_dir);
	snprintf(j->log_path, sizeof(j->log_path), "%s/log", state_dir);
	r = mkdir_state(state_dir, err);
	if (r)
		goto fail;
	j->dir_fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dir_fd < 0) {
		r = rterr_sys(err, errno, "cannot open state dir %s", state_dir);
		goto fail;
	}
	r = lock_state(j, timeout_ms, err);
	if (r)
		goto fail;
	test_hook("journal_locked");
	r = load_journal(j, err);
	if (r)
		goto fail;
	for (i = 0; i < j->n_ops; i++)
		j->ops[i].orphaned = !jr_op_alive(&j->ops[i]);
	*jp = j;
	return 0;
fail:
	journal_close(j);
	return r;
}

int journal_open(const char *state_dir, struct journal **j, struct rterr *err)
{
	return journal_open_timeout(state_dir, JOURNAL_LOCK_TIMEOUT_MS, j, err);
}

void journal_close(struct journal *j)
{
	if (!j)
		return;
	journal_log_flush(j, NULL);
	free(j->log_buf);
	if (j->log_fd >= 0)
		close(j->log_fd);
	if (j->lock_fd >= 0)
		close(j->lock_fd); /* releases the flock */
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	if (j->batch)
		jr_snapshot_drop(&j->batch_snap);
	free(j->ents);
	free(j->ops);
	free(j);
}

const char *journal_path(const struct journal *j)
{
	return j->path;
}
