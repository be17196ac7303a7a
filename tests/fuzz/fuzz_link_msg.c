// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_NEWLINK parser (link_info_from_msg, lib/netdev/link.c) as the link monitor and the link
 * dump feed it: the input is one netlink message. Most attribute reads happen inside
 * libnl, which ASan does not instrument, so the message is placed to end exactly where an
 * inaccessible page begins: a read past it faults wherever it happens. (Netlink messages
 * are 4-byte aligned; other sizes go to an exact-size malloc instead.) Fields come out
 * bounded or LINK_UNSET.
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "rtltune/link.h"

#define ARENA_PAGES 4 /* 3 usable pages hold any -max_len the driver uses, then the guard */

static uint8_t *arena;
static size_t page;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, ARENA_PAGES * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED || mprotect(arena + (ARENA_PAGES - 1) * page, page, PROT_NONE))
		abort();
	return 0;
}

static void check_num(int64_t v)
{
	FUZZ_CHECK(v == LINK_UNSET || (v >= 0 && v <= UINT32_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t usable = (ARENA_PAGES - 1) * page;
	bool guarded = size % 4 == 0 && size <= usable;
	uint8_t *buf = guarded ? arena + usable - size : malloc(size ? size : 1);
	struct link_info li;
	int r, k;

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	r = link_info_from_msg(buf, size, &li);
	if (r == 0) {
		FUZZ_ASSERT_STR(li.ifname);
		FUZZ_ASSERT_STR(li.kind);
		FUZZ_ASSERT_STR(li.operstate);
		FUZZ_ASSERT_STR(li.slave_kind);
		check_num(li.min_mtu);
		check_num(li.max_mtu);
		check_num(li.tso_max_size);
		check_num(li.tso_max_segs);
		for (k = 0; k < KNOB__COUNT; k++)
			check_num(link_knob(&li, (enum knob_id)k));
		FUZZ_CHECK(li.master >= 0 && li.link >= 0);
	} else {
		FUZZ_CHECK(r == -EINVAL);
	}
	if (!guarded)
		free(buf);
	return 0;
}
