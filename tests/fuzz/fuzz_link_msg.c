// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTM_NEWLINK parser (link_info_from_msg, lib/link.c) as the link monitor and the link
 * dump feed it: the input is one netlink message, copied into a buffer of exactly its
 * size so a read past the end is caught. Fields come out bounded or LINK_UNSET.
 */
#include "fuzz.h"
#include "rtltune/link.h"

static void check_num(int64_t v)
{
	FUZZ_CHECK(v == LINK_UNSET || (v >= 0 && v <= UINT32_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct link_info li;
	uint8_t *buf = malloc(size ? size : 1);
	int r;

	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	r = link_info_from_msg(buf, size, &li);
	if (r == 0) {
		FUZZ_ASSERT_STR(li.ifname);
		FUZZ_ASSERT_STR(li.kind);
		FUZZ_ASSERT_STR(li.operstate);
		check_num(li.mtu);
		check_num(li.min_mtu);
		check_num(li.max_mtu);
		check_num(li.gso_max_size);
		check_num(li.gso_max_segs);
		check_num(li.gso_ipv4_max_size);
		check_num(li.gro_max_size);
		check_num(li.gro_ipv4_max_size);
		check_num(li.tso_max_size);
		check_num(li.tso_max_segs);
	} else {
		FUZZ_CHECK(r == -EINVAL);
	}
	free(buf);
	return 0;
}
