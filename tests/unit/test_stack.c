// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device stack (lib/netdev/stack.c) and the plans that carry a size through it (plan_stack()):
 * a veth port of a bridge as the kernel sent it (tests/fuzz/corpus/link_msg/dump-1), and
 * RTM_NEWLINK messages built the way the kernel builds them for the devices this machine
 * cannot make: hv_netvsc (no rtnl_link_ops: no IFLA_LINKINFO) with its MANA VF (IFLA_MASTER
 * the netvsc ifindex), matched to their chip entries from the fake sysfs tree of
 * tests/unit/fixtures/chips/sysfs (PCI 1414:00ba).
 */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "captured_link.h"
#include "rtltune/chipdb.h"
#include "rtltune/plan.h"
#include "rtltune/stack.h"

/* Attribute numbers newer than Debian 12's headers (include/uapi/linux/if_link.h). */
#define RT_IFLA_TSO_MAX_SIZE	  59
#define RT_IFLA_GSO_IPV4_MAX_SIZE 63

struct msg {
	unsigned char buf[1024];
	size_t len;
};

static void put(struct msg *m, unsigned short type, const void *data, size_t n)
{
	struct rtattr *a = (struct rtattr *)(m->buf + m->len);

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(n);
	memcpy(RTA_DATA(a), data, n);
	m->len += RTA_ALIGN(a->rta_len);
}

static void put_u32(struct msg *m, unsigned short type, uint32_t v)
{
	put(m, type, &v, sizeof(v));
}

/* An RTM_NEWLINK as rtnl_fill_ifinfo() lays it out, for the attributes the stack reads. */
static void link_of(struct link_info *li, int ifindex, const char *name, const char *kind,
		    int master, int lower, uint32_t gso, uint32_t tso_max)
{
	struct msg m = {.len = NLMSG_LENGTH(sizeof(struct ifinfomsg))};
	struct nlmsghdr *h = (struct nlmsghdr *)m.buf;
	struct ifinfomsg *ifi = NLMSG_DATA(h);

	memset(m.buf, 0, sizeof(m.buf));
	h->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	put(&m, IFLA_IFNAME, name, strlen(name) + 1);
	put_u32(&m, IFLA_MTU, 1500);
	put_u32(&m, IFLA_GSO_MAX_SIZE, gso);
	put_u32(&m, RT_IFLA_GSO_IPV4_MAX_SIZE, gso);
	put_u32(&m, IFLA_GSO_MAX_SEGS, 65535);
	put_u32(&m, RT_IFLA_TSO_MAX_SIZE, tso_max);
	if (master)
		put_u32(&m, IFLA_MASTER, (uint32_t)master);
	if (lower)
		put_u32(&m, IFLA_LINK, (uint32_t)lower);
	if (kind) {
		struct rtattr *nest = (struct rtattr *)(m.buf + m.len);

		m.len += RTA_LENGTH(0);
		put(&m, IFLA_INFO_KIND, kind, strlen(kind) + 1);
		nest->rta_type = IFLA_LINKINFO;
		nest->rta_len = (unsigned short)(m.buf + m.len - (unsigned char *)nest);
	}
	h->nlmsg_len = (uint32_t)m.len;
	assert_int_equal(link_info_from_msg(m.buf, m.len, li), 0);
}

/* The captured veth port, checked to be the port of ifindex 4 and the peer of 3. */
static void captured_port(struct link_info *li)
{
	read_captured_link(li);
	assert_int_equal(li->master, 4);
	assert_int_equal(li->link, 3);
}

static void test_bridge_port(void **state)
{
	struct link_info l[4];
	struct nic_stack st;

	captured_port(&l[0]);
	link_of(&l[1], 3, "v0", "veth", 0, 2, 65536, 524280); /* the peer: not a lower */
	link_of(&l[2], 4, "br0", "bridge", 0, 0, 16384, 524280);
	stack_build(l, 3, l[0].ifindex, &st);
	assert_int_equal(st.n_uppers, 1);
	assert_string_equal(st.uppers[0].li.ifname, "br0");
	assert_int_equal(st.uppers[0].rel, STACK_MASTER);
	assert_int_equal(st.n_lowers, 0);
	/* Local traffic routes over br0 and takes its size. */
	assert_int_equal(stack_effective(&l[0], &st, KNOB_GSO_MAX_SIZE), 16384);
	/* GRO runs in the port: its gro_max_size decides. */
	assert_int_equal(stack_effective_gro(&l[0], &st), 65536);
	stack_build(l, 3, 4, &st);
	assert_int_equal(st.n_uppers, 0);
	assert_int_equal(st.n_lowers, 1);
	assert_string_equal(st.lowers[0].li.ifname, "v1");
	/* The veth peers are not each other's lower. */
	stack_build(l, 3, 3, &st);
	assert_int_equal(st.n_uppers + st.n_lowers, 0);
}

static void test_macvlan(void **state)
{
	struct link_info l[3];
	struct nic_stack st;

	link_of(&l[0], 5, "w0", "veth", 0, 6, 65536, 524280);
	link_of(&l[1], 7, "mw0", "macvlan", 0, 5, 16384, 524280);
	link_of(&l[2], 8, "mw1", "macvlan", 0, 5, 32768, 524280);
	l[2].link_netns = true; /* moved into a container's netns: its ifindex is not ours */
	stack_build(l, 3, 5, &st);
	assert_int_equal(st.n_uppers, 1);
	assert_string_equal(st.uppers[0].li.ifname, "mw0");
	assert_int_equal(st.uppers[0].rel, STACK_OVER);
	stack_build(l, 3, 7, &st);
	assert_int_equal(st.n_lowers, 1);
	assert_string_equal(st.lowers[0].li.ifname, "w0");
}

static void base_plan(const struct link_info *li, int64_t gso, struct plan *p)
{
	int64_t targets[KNOB__COUNT] = {0};
	bool which[KNOB__COUNT] = {false};
	struct rterr err = {0};
	struct nic nic;

	nic_from_link_only(li, &nic);
	targets[KNOB_GSO_MAX_SIZE] = targets[KNOB_GSO_IPV4_MAX_SIZE] = gso;
	which[KNOB_GSO_MAX_SIZE] = which[KNOB_GSO_IPV4_MAX_SIZE] = true;
	assert_int_equal(plan_values(&nic, NULL, targets, which, "test", p, &err), 0);
}

static void test_plan_through_bridge(void **state)
{
	static struct plan base, set[PLAN_SET_MAX];
	struct link_info l[4];
	struct rterr err = {0};
	struct nic_stack st;
	int64_t want[KNOB__COUNT];
	unsigned int n, k;

	captured_port(&l[0]);
	link_of(&l[1], 4, "br0", "bridge", 0, 0, 16384, 524280);
	stack_build(l, 2, l[0].ifindex, &st);
	/* A raise of the port goes to the bridge above it. */
	base_plan(&l[0], 524280, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(set[1].level, 1);
	assert_string_equal(set[1].upper_of, "v1");
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].action, PLAN_CHANGE);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 524280);
	assert_int_equal(set[1].items[KNOB_GSO_IPV4_MAX_SIZE].target, 524280);
	assert_string_equal(plan_src(&set[1], KNOB_GSO_MAX_SIZE), "upper of v1");

	/* Another port that cannot take more stops the bridge there, and says so. */
	link_of(&l[2], 9, "p0", "veth", 4, 10, 32768, 524280);
	stack_build(l, 3, l[0].ifindex, &st);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 3, false, set, &n, &err), 0);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 32768);
	assert_string_equal(
		plan_note(&set[1], KNOB_GSO_MAX_SIZE),
		"gso_max_size raised to 32768 only: its port p0 has gso_max_size 32768");

	/* A decrease brings the bridge down with the port (no upper above its lower). */
	link_of(&l[1], 4, "br0", "bridge", 0, 0, 524280, 524280);
	stack_build(l, 2, l[0].ifindex, &st);
	base_plan(&l[0], 16384, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 16384);

	/* The tuner asks for an effective size: the bridge gets that, not the port's more. */
	link_of(&l[1], 4, "br0", "bridge", 0, 0, 16384, 524280);
	stack_build(l, 2, l[0].ifindex, &st);
	for (k = 0; k < KNOB__COUNT; k++)
		want[k] = LINK_UNSET;
	want[KNOB_GSO_MAX_SIZE] = want[KNOB_GSO_IPV4_MAX_SIZE] = 32768;
	base_plan(&l[0], 65536, &base); /* the port keeps its own 65536 */
	assert_int_equal(plan_stack(&base, want, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 32768);
}

/* A pod's eth0, the veth peer of the node's port v1 in another namespace: planned with the
 * port as an upper of it (after it), both ways, within its own tso_max_size. */
static void test_plan_peer(void **state)
{
	static struct plan base, set[PLAN_SET_MAX];
	struct netns *pod = (struct netns *)&state; /* any pointer: never entered here */
	struct link_info l[2], peer;
	struct rterr err = {0};
	struct nic_stack st;
	unsigned int n;

	captured_port(&l[0]);
	link_of(&l[1], 4, "br0", "bridge", 0, 0, 16384, 524280);
	link_of(&peer, 2, "eth0", "veth", 0, 0, 16384, 65536);
	stack_build(l, 2, l[0].ifindex, &st);
	assert_false(st.has_peer);
	stack_set_peer(&st, pod, &peer);
	assert_true(st.has_peer);
	assert_int_equal(st.peer.below, l[0].ifindex);
	/* A raise: the bridge, then the peer, capped at its own 65536 with a note. */
	base_plan(&l[0], 524280, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_ptr_equal(set[2].ns, pod);
	assert_ptr_equal(set[0].ns, NULL);
	assert_int_equal(set[2].level, 1);
	assert_string_equal(set[2].upper_of, "v1");
	assert_string_equal(plan_src(&set[2], KNOB_GSO_MAX_SIZE), "peer of v1");
	assert_int_equal(set[2].items[KNOB_GSO_MAX_SIZE].action, PLAN_CHANGE);
	assert_int_equal(set[2].items[KNOB_GSO_MAX_SIZE].target, 65536);
	assert_string_equal(plan_note(&set[2], KNOB_GSO_MAX_SIZE),
			    "gso_max_size raised to 65536 only: its own tso_max_size");
	/* A decrease: the peer comes down with the port (its skbs would be cut there). */
	link_of(&peer, 2, "eth0", "veth", 0, 0, 65536, 524280);
	stack_set_peer(&st, pod, &peer);
	base_plan(&l[0], 8192, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(set[n - 1].items[KNOB_GSO_MAX_SIZE].target, 8192);
	/* Already where the port goes: nothing to change. */
	link_of(&peer, 2, "eth0", "veth", 0, 0, 8192, 524280);
	stack_set_peer(&st, pod, &peer);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, false, set, &n, &err), 0);
	assert_int_equal(set[n - 1].n_changes, 0);
}

/* The chip entry a snapshot of driver drv with the fake sysfs device sysdev matches. */
static const struct chip_entry *chip_of(const struct chipdb *db, const char *drv,
					const char *sysdev, struct nic *nic)
{
	char sysfs[PATH_MAX + 64];

	snprintf(sysfs, sizeof(sysfs), "%s/tests/unit/fixtures/chips/sysfs", tree);
	nic->have_drvinfo = true;
	snprintf(nic->drv.driver, sizeof(nic->drv.driver), "%s", drv);
	if (sysdev)
		assert_int_equal(pci_ident_read(sysfs, sysdev, &nic->pci), 0);
	return chipdb_match_nic(db, nic, NULL);
}

static void test_netvsc_and_mana(void **state)
{
	static struct plan base, set[PLAN_SET_MAX];
	char chips[PATH_MAX + 16];
	const char *dirs[2] = {chips, NULL};
	const struct chip_entry *vf_chip, *netvsc_chip;
	struct chipdb *db = NULL;
	struct link_info l[2];
	struct rterr err = {0};
	struct nic_stack st;
	struct nic vf, nv;
	unsigned int n;

	snprintf(chips, sizeof(chips), "%s/chips", tree);
	assert_int_equal(chipdb_load_dirs(dirs, &db, &err), 0);
	/* netvsc in the VF datapath: its tso_max_size follows the VF's (netvsc_vf_changed()). */
	link_of(&l[0], 2, "eth0", NULL, 0, 0, 65536, 524280);
	link_of(&l[1], 3, "enP1s1", NULL, 2, 0, 65536, 524280);
	nic_from_link_only(&l[1], &vf);
	nic_from_link_only(&l[0], &nv);
	vf_chip = chip_of(db, "mana", "mana0", &vf);
	netvsc_chip = chip_of(db, "hv_netvsc", NULL, &nv);
	assert_non_null(vf_chip);
	assert_non_null(netvsc_chip);
	assert_string_equal(vf_chip->id, "mana");
	assert_string_equal(netvsc_chip->id, "hv_netvsc");
	assert_true(chip_has_quirk(vf_chip, CHIP_Q_TUNE_WITH_MASTER));
	assert_true(chip_has_quirk(netvsc_chip, CHIP_Q_TUNE_WITH_MASTER));

	/* The VF managed: BIG TCP on the VF reaches netvsc, where local sockets route. */
	stack_build(l, 2, 3, &st);
	assert_int_equal(st.n_uppers, 1);
	assert_string_equal(st.uppers[0].li.ifname, "eth0");
	base_plan(&l[1], 524280, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, true, set, &n, &err), 0);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 524280);

	/* netvsc managed: the pair is tuned together, the VF raised first (level -1). */
	stack_build(l, 2, 2, &st);
	assert_int_equal(st.n_lowers, 1);
	base_plan(&l[0], 524280, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2,
				    chip_has_quirk(netvsc_chip, CHIP_Q_TUNE_WITH_MASTER), set, &n,
				    &err),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(set[1].level, -1);
	assert_string_equal(set[1].ifname, "enP1s1");
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].target, 524280);

	/* Back on the synthetic path netvsc's ceiling is the host's LSO limit: a raise of the
	 * VF stops there, saying so. */
	link_of(&l[0], 2, "eth0", NULL, 0, 0, 62780, 62780);
	stack_build(l, 2, 3, &st);
	base_plan(&l[1], 524280, &base);
	assert_int_equal(plan_stack(&base, NULL, &st, l, 2, true, set, &n, &err), 0);
	assert_int_equal(set[1].items[KNOB_GSO_MAX_SIZE].action, PLAN_KEEP);
	assert_string_equal(plan_note(&set[1], KNOB_GSO_MAX_SIZE),
			    "gso_max_size raised to 62780 only: its own tso_max_size");
	chipdb_free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bridge_port),	    cmocka_unit_test(test_macvlan),
		cmocka_unit_test(test_plan_through_bridge), cmocka_unit_test(test_plan_peer),
		cmocka_unit_test(test_netvsc_and_mana),
	};

	if (find_tree(CAPTURED_LINK) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
