// SPDX-License-Identifier: GPL-2.0-only
/*
 * The netdev family's qstats-get reply parser (lib/netdev/qstats_parse.c) on one input taken
 * as one netlink message. The seeds are real kernel replies (tests/fuzz/capture_qstats.py).
 * As in fuzz_napi, the message ends exactly where a PROT_NONE page begins (4-byte
 * multiples; others go to an exact-size malloc), so a read past it faults; each input runs
 * twice, the second time with nlmsg_len set to its size. Outputs must be bounded: a parsed
 * reply names its device, is a device's or an rx or tx queue's, and only counters the
 * kernel's enum has are set.
 */
#include <linux/netlink.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/qstats.h"

#define ARENA_PAGES 4

static uint8_t *arena;
static size_t page;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, ARENA_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + (ARENA_PAGES - 1) * page, page, PROT_NONE))
		abort();
	return 0;
}

static void run(const uint8_t *buf, size_t size)
{
	struct qstats q;
	unsigned int s;

	if (qstats_parse_reply(buf, size, &q) < 0)
		return;
	FUZZ_CHECK(q.ifindex >= 1);
	FUZZ_CHECK(q.queue_type == QSTATS_DEVICE || q.queue_type == RT_NETDEV_QUEUE_TYPE_RX ||
		   q.queue_type == RT_NETDEV_QUEUE_TYPE_TX);
	FUZZ_CHECK(q.queue_type != QSTATS_DEVICE || q.queue_id == 0);
	FUZZ_CHECK((q.have >> QSTAT_COUNT) == 0);
	for (s = 0; s < QSTAT_COUNT; s++)
		FUZZ_CHECK((q.have >> s) & 1 || q.val[s] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t usable = (ARENA_PAGES - 1) * page;
	bool guarded = size % 4 == 0 && size <= usable;
	uint8_t *buf = guarded ? arena + usable - size : malloc(size ? size : 1);

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	run(buf, size);
	/* Again with nlmsg_len equal to the bytes there: the last attribute then ends at the
	 * guard page without the fuzzer having to find the length that matches. */
	if (size >= NLMSG_HDRLEN) {
		uint32_t mlen = (uint32_t)size;

		memcpy(buf, &mlen, sizeof(mlen));
		run(buf, size);
	}
	if (!guarded)
		free(buf);
	return 0;
}
