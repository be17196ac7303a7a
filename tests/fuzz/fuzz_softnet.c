// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/net/softnet_stat's parser (lib/sampler/softnet.c) on the input as the file's text,
 * without a terminating NUL: the text ends where a PROT_NONE page begins, so a read past
 * it faults. Seeds: the file as 6.18 prints it and the older kernels' layouts
 * (tests/fuzz/capture_signals.sh). A parse returns 0 with lines in ascending CPU order, each
 * with the counters its width gives, or -EBADMSG / -E2BIG with nothing.
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/softnet.h"

#define ARENA_PAGES 4
#define MAX_ROWS    64

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t usable = (ARENA_PAGES - 1) * page;
	bool guarded = size <= usable;
	char *buf = guarded ? (char *)arena + usable - size : malloc(size ? size : 1);
	struct softnet_cpu c[MAX_ROWS];
	unsigned int n = 99, i;
	bool named = true;
	int r;

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	r = softnet_parse(buf, size, c, MAX_ROWS, &n, &named);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -E2BIG);
	if (r < 0) {
		FUZZ_CHECK(n == 0 && !named);
	} else {
		FUZZ_CHECK(n >= 1 && n <= MAX_ROWS);
		for (i = 0; i < n; i++) {
			FUZZ_CHECK(c[i].cpu <= SOFTNET_MAX_CPU);
			FUZZ_CHECK(!i || c[i].cpu > c[i - 1].cpu);
			FUZZ_CHECK(named || c[i].cpu == i);
			/* processed, dropped and time_squeeze are in every layout. */
			FUZZ_CHECK((c[i].have & 7) == 7 && c[i].have == c[0].have);
			FUZZ_CHECK(c[i].have >> SOFTNET_COUNTER_COUNT == 0);
			FUZZ_CHECK(c[i].backlog_len >= -1 && c[i].backlog_len <= UINT32_MAX);
			FUZZ_CHECK(!named || c[i].backlog_len >= 0);
		}
	}
	if (!guarded)
		free(buf);
	return 0;
}
