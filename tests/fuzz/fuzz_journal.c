// SPDX-License-Identifier: GPL-2.0-only
/*
 * Journal reader (lib/journal/journal_*.c): the input is the state directory's `journal` file. A
 * torn or hostile file is refused as untrusted (-EBADMSG) with a file:line message, never
 * half-trusted. A file
 * that is accepted must survive a rewrite: the writer's output of what the reader took
 * in is read back by the reader with the same entries (nothing lost, nothing invented).
 */
#include "fuzz.h"
#include "rtltune/journal.h"

static char state[PATH_MAX], jpath[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* Fault/delay hooks would make runs differ; they are for the integration tests. */
	unsetenv("RTLTUNE_TEST_FAULT");
	unsetenv("RTLTUNE_TEST_DELAY");
	fuzz_path(state, sizeof(state), "state");
	if (mkdir(state, 0750) && errno != EEXIST)
		abort();
	snprintf(jpath, sizeof(jpath), "%s/journal", state);
	return 0;
}

static void check_loaded(struct journal *j, int *n_ents, int *n_ops)
{
	const struct journal_entry *ents;
	const struct journal_inflight *ops;
	int64_t values[KNOB__COUNT];
	bool have[KNOB__COUNT];
	struct rterr err = {0};
	struct journal_inflight op;
	int i, k;

	*n_ents = journal_entries(j, &ents);
	*n_ops = journal_inflight_list(j, &ops);
	FUZZ_CHECK(*n_ents >= 0 && *n_ops >= 0);
	for (i = 0; i < *n_ents; i++) {
		FUZZ_ASSERT_STR(ents[i].id.ifname);
		FUZZ_ASSERT_STR(ents[i].id.perm_addr);
		FUZZ_ASSERT_STR(ents[i].id.boot_id);
		/* Every accepted entry is found again by its own identity. */
		FUZZ_CHECK(journal_get_originals(j, &ents[i].id, values, have, &err) == 1);
		for (k = 0; k < KNOB__COUNT; k++)
			FUZZ_CHECK(!have[k] || (values[k] >= 0 && values[k] <= UINT32_MAX));
	}
	for (i = 0; i < *n_ops; i++) {
		FUZZ_ASSERT_STR(ops[i].op);
		FUZZ_ASSERT_STR(ops[i].actor);
		FUZZ_CHECK(journal_inflight_get(j, &ops[i].id, &op) == 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_ident fresh = {.ifindex = 424242, .netns_cookie = 1};
	int64_t values[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {0};
	struct journal *j = NULL;
	struct rterr err = {0};
	int n_ents, n_ops, n2_ents, n2_ops, r;

	fuzz_write_file(jpath, data, size);
	r = journal_open_timeout(state, 1000, &j, &err);
	if (r < 0) {
		/* Refused as untrusted (or out of memory), with the file:line message. */
		FUZZ_CHECK(!j && err.msg[0]);
		FUZZ_CHECK(r == -ENOMEM ||
			   (r == -EBADMSG && err.kind == RTERR_INPUT && err.errnum == EBADMSG));
		return 0;
	}
	check_loaded(j, &n_ents, &n_ops);

	/* Rewrite: one more device's originals forces the whole file out again. */
	snprintf(fresh.ifname, sizeof(fresh.ifname), "fz0");
	which[KNOB_MTU] = true;
	values[KNOB_MTU] = 1500;
	r = journal_record_originals(j, &fresh, values, which, &err);
	FUZZ_CHECK(r == 0);
	journal_close(j);

	j = NULL;
	rterr_clear(&err);
	r = journal_open_timeout(state, 1000, &j, &err);
	if (r < 0) {
		fprintf(stderr, "fuzz: the journal's own rewrite was refused: %s\n", err.msg);
		abort();
	}
	check_loaded(j, &n2_ents, &n2_ops);
	FUZZ_CHECK(n2_ents == n_ents + 1 && n2_ops == n_ops);
	journal_close(j);
	return 0;
}
