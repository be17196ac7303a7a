// SPDX-License-Identifier: GPL-2.0-only
/*
 * The netdev family's napi-get reply parser (lib/netdev/napi_parse.c) on one input taken as one
 * netlink message. The seeds are real kernel replies (tests/fuzz/capture_napi.py). As in
 * fuzz_ethnl, the message ends exactly where a PROT_NONE page begins (4-byte multiples;
 * others go to an exact-size malloc), so a read past it faults; each input runs twice,
 * the second time with nlmsg_len set to its size. Outputs must be bounded: a parsed reply
 * names its NAPI and device, and every setting is absent or within the napi-set policy.
 */
#include <linux/netlink.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/napi.h"

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
	struct napi_info n;
	int s;

	if (napi_parse_reply(buf, size, &n) < 0)
		return;
	FUZZ_CHECK(n.id >= 0 && n.id <= UINT32_MAX);
	FUZZ_CHECK(n.ifindex >= 0 && n.ifindex <= INT32_MAX);
	FUZZ_CHECK(n.irq == NAPI_ABSENT || (n.irq >= 0 && n.irq <= UINT32_MAX));
	FUZZ_CHECK(n.pid == NAPI_ABSENT || (n.pid >= 0 && n.pid <= UINT32_MAX));
	FUZZ_CHECK(n.set[NAPI_THREADED] == NAPI_ABSENT ||
		   (n.set[NAPI_THREADED] >= 0 && n.set[NAPI_THREADED] <= 2));
	FUZZ_CHECK(n.set[NAPI_DEFER_HARD_IRQS] == NAPI_ABSENT ||
		   (n.set[NAPI_DEFER_HARD_IRQS] >= 0 && n.set[NAPI_DEFER_HARD_IRQS] <= INT32_MAX));
	for (s = NAPI_GRO_FLUSH_TIMEOUT; s < NAPI_SETTING_COUNT; s++)
		FUZZ_CHECK(n.set[s] >= NAPI_ABSENT);
	FUZZ_CHECK(napi_list_has_irq(&n, 1) == (n.irq != NAPI_ABSENT));
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
