/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TEST_CAPTURED_LINK_H
#define RTLTUNE_TEST_CAPTURED_LINK_H
/*
 * A link as the kernel sent it: the RTM_NEWLINK of tests/fuzz/corpus/link_msg/dump-1, the
 * veth port v1 (ifindex 2) of a bridge (IFLA_MASTER 4), its peer IFLA_LINK 3. For unit
 * tests that include cmocka.h first; find_tree() must have found the tree.
 */
#include <stdlib.h>

#include "rtltune/link.h"
#include "tree.h"

#define CAPTURED_LINK "tests/fuzz/corpus/link_msg/dump-1"

static inline void read_captured_link(struct link_info *li)
{
	size_t n;
	unsigned char *buf = tree_read(CAPTURED_LINK, &n);

	assert_non_null(buf);
	assert_int_equal(link_info_from_msg(buf, n, li), 0);
	free(buf);
}

#endif
