// SPDX-License-Identifier: GPL-2.0-only
/*
 * Decision log reader (journal_log_read, lib/journal/journal_log.c), as `rtltune log --follow` runs
 * it: the input is split in two; the first part is the log, read to its end, then the
 * second part is appended (a writer still at work, or a crash's partial line) and read
 * from the cursor. Records handed out are well-formed; a cursor only moves forward.
 */
#include "fuzz.h"
#include "rtltune/journal.h"

static char state[PATH_MAX], lpath[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_path(state, sizeof(state), "state");
	if (mkdir(state, 0750) && errno != EEXIST)
		abort();
	snprintf(lpath, sizeof(lpath), "%s/log", state);
	return 0;
}

static int on_event(const struct journal_event *ev, void *arg)
{
	unsigned int *n = arg;

	FUZZ_CHECK(ev->outcome && ev->actor);
	FUZZ_CHECK(ev->knob >= -1 && ev->knob < KNOB__COUNT);
	/* Touch every string so ASan sees reads past their ends. */
	(void)strlen(ev->outcome);
	(void)strlen(ev->actor);
	if (ev->ifname)
		(void)strlen(ev->ifname);
	if (ev->reason)
		(void)strlen(ev->reason);
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_log_cursor cur = {0};
	size_t split = size ? data[0] : 0;
	struct rterr err = {0};
	unsigned int n = 0;
	off_t before;
	int fd, r;

	if (size) {
		data++;
		size--;
	}
	split = split * size / 255;
	fuzz_write_file(lpath, data, split);
	r = journal_log_read(state, &cur, on_event, &n, &err);
	if (r < 0) {
		FUZZ_CHECK(err.kind != RTERR_NONE && err.msg[0]);
		return 0;
	}
	FUZZ_CHECK((unsigned int)r == n && cur.offset >= 0 && (size_t)cur.offset <= split);

	fd = open(lpath, O_WRONLY | O_APPEND | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data + split, size - split) == (ssize_t)(size - split));
	close(fd);
	before = cur.offset;
	n = 0;
	r = journal_log_read(state, &cur, on_event, &n, &err);
	if (r >= 0)
		FUZZ_CHECK((unsigned int)r == n && cur.offset >= before && (size_t)cur.offset <= size);
	return 0;
}
