// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU time parsers (lib/sampler/cpustat.c) on the input as text without a terminating
 * NUL, ending where a PROT_NONE page begins: as /proc/stat (per-CPU softirq time) and as
 * /proc/PID/stat (a task's utime + stime), and as /proc/stat's totals (kernel and idle
 * time, CPUs). Seeds from tests/fuzz/capture_signals.sh. Each
 * returns 0 with sane values or -EBADMSG / -E2BIG, nothing read past the text.
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/cpustat.h"

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
	struct cpu_softirq c[MAX_ROWS];
	uint64_t ticks = 7;
	unsigned int n = 99, i;
	int r;

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	r = cpustat_parse_softirq(buf, size, c, MAX_ROWS, &n);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -E2BIG);
	FUZZ_CHECK(n <= MAX_ROWS);
	for (i = 0; r == 0 && i < n; i++) {
		FUZZ_CHECK(c[i].cpu <= CPUSTAT_MAX_CPU);
		FUZZ_CHECK(!i || c[i].cpu > c[i - 1].cpu);
	}
	{
		struct cpustat_total t;

		r = cpustat_parse_total(buf, size, &t);
		FUZZ_CHECK(r == 0 || r == -EBADMSG);
	}
	r = cpustat_parse_task(buf, size, &ticks);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK(r == 0 || ticks == 7);
	if (!guarded)
		free(buf);
	return 0;
}
