// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NETLINK_SOCK_DIAG reply parser (lib/sampler/tcprtt.c) on one input taken as what one
 * recv() of the dump returned. The seeds are real kernel replies
 * (tests/fuzz/capture_tcprtt.py). As in fuzz_napi, the buffer ends exactly where a
 * PROT_NONE page begins (4-byte multiples; others go to an exact-size malloc), so a read
 * past it faults. Outputs must be bounded: no more RTTs kept than sockets counted, nor than
 * the array holds, and the median one of them.
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/tcprtt.h"

#define ARENA_PAGES 4

static uint8_t *arena;
static size_t page;
static struct tcprtt acc;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, ARENA_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + (ARENA_PAGES - 1) * page, page, PROT_NONE))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t usable = (ARENA_PAGES - 1) * page;
	bool guarded = size % 4 == 0 && size <= usable;
	uint8_t *buf = guarded ? arena + usable - size : malloc(size ? size : 1);
	uint32_t med, lo = UINT32_MAX, hi = 0;
	unsigned int i;
	int r;

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	memset(&acc, 0, sizeof(acc));
	acc.idle_ms = size % 2 ? 1000 : 0;
	r = tcprtt_parse(buf, size, &acc);
	FUZZ_CHECK(r <= 1 && r > -4096);
	FUZZ_CHECK(acc.n <= acc.sockets && acc.n <= TCPRTT_MAX);
	for (i = 0; i < acc.n; i++) {
		FUZZ_CHECK(acc.rtt_us[i] > 0);
		lo = acc.rtt_us[i] < lo ? acc.rtt_us[i] : lo;
		hi = acc.rtt_us[i] > hi ? acc.rtt_us[i] : hi;
	}
	med = tcprtt_median(&acc);
	FUZZ_CHECK(acc.n ? med >= lo && med <= hi : med == 0);
	if (!guarded)
		free(buf);
	return 0;
}
