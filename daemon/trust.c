// SPDX-License-Identifier: GPL-2.0-only
/* The journal's verdict (trust.h): whether rtltuned may change anything. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "state.h"
#include "trust.h"

/*
 * At start and on reload the daemon's loop waits this long for a CLI run holding the
 * lock (an apply of 64 interfaces holds it ~0.1 s); past it the verdict stays as it was.
 */
#define TRUST_LOCK_WAIT_MS 1000

static bool untrusted;
static char reason[sizeof(((struct rterr *)0)->msg)];
static char file[PATH_MAX];

static void name_file(void)
{
	snprintf(file, sizeof(file), "%s/" JOURNAL_FILE, rtd.cfg.state_dir);
}

/* The file was refused (err: journal_open()'s -EBADMSG): one error in the log per reason. */
static void distrust(const struct rterr *err)
{
	bool known = untrusted && strcmp(reason, err->msg) == 0;

	untrusted = true;
	snprintf(reason, sizeof(reason), "%s", err->msg);
	name_file();
	state_changed();
	if (known)
		return;
	dlog(LOG_ERR, NULL, "%s", reason);
	dlog(LOG_WARNING, NULL,
	     "observing only until the journal is trusted: no profile application, restore, "
	     "tuner trial or rollback (a trial in progress and what a crash left in flight "
	     "stay as they are)");
}

bool trust_check(void)
{
	struct journal *j = NULL;
	struct rterr err = {0};
	int r;

	r = journal_open_timeout(rtd.cfg.state_dir, TRUST_LOCK_WAIT_MS, &j, &err);
	journal_close(j);
	if (r == -EBADMSG) {
		distrust(&err);
		return false;
	}
	if (r < 0) {
		dlog(LOG_WARNING, NULL, "cannot check the journal: %s", err.msg);
		return !untrusted;
	}
	if (untrusted) {
		untrusted = false;
		reason[0] = '\0';
		state_changed();
		dlog(LOG_NOTICE, NULL, "journal %s trusted again: changes resume", file);
	}
	name_file();
	return true;
}

bool trust_ok(void)
{
	return !untrusted;
}

int trust_journal_open(int timeout_ms, struct journal **j, struct rterr *err)
{
	int r;

	*j = NULL;
	if (untrusted) {
		/* The same words the CLI prints for the same file. */
		rterr_input(err, "%s", reason);
		err->errnum = EBADMSG;
		return -EBADMSG;
	}
	r = journal_open_timeout(rtd.cfg.state_dir, timeout_ms, j, err);
	if (r == -EBADMSG)
		distrust(err);
	return r;
}

json_object *trust_status_json(void)
{
	json_object *o = json_object_new_object();

	if (!file[0])
		name_file();
	json_object_object_add(o, "state", json_object_new_string(untrusted ? "untrusted" : "ok"));
	json_object_object_add(o, "reason", untrusted ? json_object_new_string(reason) : NULL);
	json_object_object_add(o, "file", json_object_new_string(file));
	return o;
}
