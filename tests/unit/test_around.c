// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stack around the NIC: the napi-get reply parser (lib/netdev/napi_parse.c) on replies
 * captured from this kernel by tests/fuzz/capture_napi.py (values as MANIFEST says they
 * were set), every fixture cut short, hand-built malformed messages; CPU lists and masks
 * (lib/base/cpus.c); the knob rows (lib/base/knob.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/cpus.h"
#include "rtltune/knob.h"
#include "rtltune/link.h"
#include "rtltune/napi.h"
#include "tree.h"

#define FIXTURES "tests/unit/fixtures/napi"

struct blob {
	uint8_t *data;
	size_t len;
};

static struct blob load(const char *name)
{
	char rel[256];
	struct blob b;

	snprintf(rel, sizeof(rel), FIXTURES "/%s", name);
	b.data = tree_read(rel, &b.len);
	if (!b.data)
		fail_msg("cannot read %s", rel);
	return b;
}

static int setup(void **state)
{
	(void)state;
	return find_tree(FIXTURES "/MANIFEST") == 0 ? 0 : -1;
}

/* ---- napi-get replies ------------------------------------------------------------------- */

static void test_napi_veth_default(void **state)
{
	struct blob b = load("veth_gro_default.msg");
	struct napi_info n;

	(void)state;
	assert_int_equal(napi_parse_reply(b.data, b.len, &n), 0);
	assert_true(n.id > 0);
	assert_true(n.ifindex > 0);
	assert_int_equal(n.pid, NAPI_ABSENT); /* not threaded: no kthread */
	assert_int_equal(n.set[NAPI_THREADED], 0);
	assert_int_equal(n.set[NAPI_DEFER_HARD_IRQS], 0);
	assert_int_equal(n.set[NAPI_GRO_FLUSH_TIMEOUT], 0);
	assert_int_equal(n.set[NAPI_IRQ_SUSPEND], 0);
	free(b.data);
}

static void test_napi_veth_set(void **state)
{
	struct blob b = load("veth_gro_set.msg");
	struct napi_info n;

	(void)state;
	assert_int_equal(napi_parse_reply(b.data, b.len, &n), 0);
	assert_int_equal(n.set[NAPI_THREADED], 1);
	assert_true(n.pid > 0); /* the NAPI's kthread */
	assert_int_equal(n.set[NAPI_DEFER_HARD_IRQS], 7);
	assert_int_equal(n.set[NAPI_GRO_FLUSH_TIMEOUT], 250000);
	assert_int_equal(n.set[NAPI_IRQ_SUSPEND], 3000000);
	free(b.data);
}

static void test_napi_eth0(void **state)
{
	struct blob b = load("eth0_virtio.msg");
	struct napi_info n;

	(void)state;
	assert_int_equal(napi_parse_reply(b.data, b.len, &n), 0);
	assert_int_equal(n.id, 257); /* docs/kernel.md: eth0's rx queue 0 is napi 257 */
	assert_int_equal(n.set[NAPI_THREADED], 0);
	free(b.data);
}

/* Every fixture cut at every length: refused or parsed, never read past the end. */
static void test_napi_truncated(void **state)
{
	static const char *const names[] = {"veth_gro_default.msg", "veth_gro_set.msg",
					    "eth0_virtio.msg"};
	struct napi_info n;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct blob b = load(names[i]);

		for (len = 0; len < b.len; len++) {
			uint8_t *cut = malloc(len ? len : 1);

			memcpy(cut, b.data, len);
			/* nlmsg_len still says the full size: longer than the buffer. */
			assert_int_equal(napi_parse_reply(cut, len, &n), -EBADMSG);
			free(cut);
		}
		free(b.data);
	}
}

/* nlmsghdr + genlmsghdr + the attributes given, nlmsg_len set. */
static size_t build(uint8_t *buf, const uint8_t *attrs, size_t alen)
{
	uint32_t len = (uint32_t)(20 + alen);

	memset(buf, 0, 20);
	memcpy(buf, &len, 4);
	memcpy(buf + 20, attrs, alen);
	return len;
}

static void put_attr(uint8_t **p, uint16_t type, const void *v, uint16_t vlen)
{
	uint16_t len = (uint16_t)(4 + vlen);

	memcpy(*p, &len, 2);
	memcpy(*p + 2, &type, 2);
	memcpy(*p + 4, v, vlen);
	*p += (len + 3) & ~3;
}

static void test_napi_malformed(void **state)
{
	uint8_t attrs[128], buf[160], *p;
	uint32_t id = 9, ifx = 3, big = 0x80000000u, odd = 5;
	uint64_t ns = 5000000000ull;
	struct napi_info n;

	(void)state;
	/* The 8-byte uint form of a timeout (values above 4 s need it). */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_ID, &id, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, &ns, 8);
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, (size_t)(p - attrs)), &n), 0);
	assert_int_equal(n.set[NAPI_GRO_FLUSH_TIMEOUT], 5000000000ll);
	assert_int_equal(n.set[NAPI_THREADED], NAPI_ABSENT); /* a kernel before 6.17 */
	/* defer-hard-irqs beyond the kernel's S32_MAX policy. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_ID, &id, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_DEFER_HARD_IRQS, &big, 4);
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, (size_t)(p - attrs)), &n),
			 -EBADMSG);
	/* A value of 5 bytes; an attribute longer than the message; no NAPI id. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_ID, &id, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_THREADED, &ns, 5);
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, (size_t)(p - attrs)), &n),
			 -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_ID, &id, 4);
	attrs[8] = 200; /* the next header's length */
	attrs[10] = RT_NETDEV_A_NAPI_IFINDEX;
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, 16), &n), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_THREADED, &odd, 4);
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, (size_t)(p - attrs)), &n),
			 -EBADMSG);
}

/*
 * Whether a device's NAPIs run on interrupts (napi-get's irq attribute, rtltuned's
 * env.napi_irq for napi-defer): the captured veth and virtio_net replies name none (a
 * veth's NAPI is scheduled by its peer; this kernel's virtio_net does not tie its NAPIs to
 * their vectors); a reply with one, as a NIC whose driver calls netif_napi_set_irq() sends
 * it (the u32 after the id and ifindex), does.
 */
static void test_napi_irq(void **state)
{
	static const char *const names[] = {"veth_gro_default.msg", "veth_gro_set.msg",
					    "eth0_virtio.msg"};
	uint32_t id = 513, ifx = 2, irq = 41;
	uint8_t attrs[64], buf[96], *p;
	struct napi_info list[4];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct blob b = load(names[i]);

		assert_int_equal(napi_parse_reply(b.data, b.len, &list[i]), 0);
		assert_int_equal(list[i].irq, NAPI_ABSENT);
		free(b.data);
	}
	assert_int_equal(napi_list_has_irq(list, 3), 0);
	assert_int_equal(napi_list_has_irq(list, 0), 0); /* no NAPI: nothing on interrupts */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_NAPI_ID, &id, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_NAPI_IRQ, &irq, 4);
	assert_int_equal(napi_parse_reply(buf, build(buf, attrs, (size_t)(p - attrs)), &list[3]),
			 0);
	assert_int_equal(list[3].irq, 41);
	assert_int_equal(napi_list_has_irq(list, 4), 1);
	assert_int_equal(napi_list_has_irq(&list[3], 1), 1);
}

/* ---- CPU sets ------------------------------------------------------------------------------ */

static void test_cpus_parse(void **state)
{
	static const struct {
		const char *text;
		int64_t mask;
	} ok[] = {
		{"0-3,8", 0x10f}, {"0", 1}, {"1", 2},	       {"0x3", 3}, {"0XfF", 0xff},
		{"none", 0},	  {"", 0},  {"62", 1ll << 62}, {"2,0", 5}, {"0-62", INT64_MAX},
		{"0x0", 0},
	};
	static const char *const bad[] = {"63", "0-63", "3-1", "x",   "0,",
					  ",1", "1-",	"0x",  "0xg", "0x8000000000000000",
					  "-1", "1 2"};
	char why[200], buf[64];
	int64_t m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		m = -1;
		assert_int_equal(cpus_parse(ok[i].text, &m, why, sizeof(why)), 0);
		assert_int_equal(m, ok[i].mask);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cpus_parse(bad[i], &m, why, sizeof(why)) != -EINVAL)
			fail_msg("'%s' was taken as a CPU set", bad[i]);
	assert_int_equal(cpus_parse("64", &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "above 62"));
	assert_string_equal(cpus_format(0x10f, buf, sizeof(buf)), "0-3,8");
	assert_string_equal(cpus_format(0, buf, sizeof(buf)), "none");
	assert_string_equal(cpus_format(0x15, buf, sizeof(buf)), "0,2,4");
	assert_string_equal(cpus_format(INT64_MAX, buf, sizeof(buf)), "0-62");
}

/* As net-sysfs.c prints them (bitmap_print_to_pagebuf): 32-bit words, commas. */
static void test_cpus_kernel(void **state)
{
	int64_t m;

	(void)state;
	assert_int_equal(cpus_parse_kernel("3\n", &m), 0);
	assert_int_equal(m, 3);
	assert_int_equal(cpus_parse_kernel("00000000,00000000,00000001,0000000f\n", &m), 0);
	assert_int_equal(m, 0x10000000fll);
	assert_int_equal(cpus_parse_kernel("80000000,00000000\n", &m), -ERANGE);
	assert_int_equal(cpus_parse_kernel("1,00000000,00000000\n", &m), -ERANGE);
	assert_int_equal(cpus_parse_kernel("\n", &m), -EINVAL);
	assert_int_equal(cpus_parse_kernel("zz\n", &m), -EINVAL);
}

/* ---- the rows -------------------------------------------------------------------------- */

static void test_rows(void **state)
{
	static const char *const names[] = {
		"napi_threaded", "napi_defer_hard_irqs", "gro_flush_timeout", "irq_suspend_timeout",
		"rps_cpus",	 "rps_flow_cnt",	 "xps_cpus"};
	struct knob_value v;
	char why[256];
	size_t i;

	(void)state;
	assert_int_equal(KNOB_AROUND_COUNT, sizeof(names) / sizeof(names[0]));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int k = knob_from_name(names[i]);

		assert_int_equal(k, KNOB_FIRST_AROUND + (int)i);
		assert_false(knob_is_feature((enum knob_id)k));
		assert_non_null(strstr(knob_names_list(), names[i]));
	}
	assert_int_equal(knob_desc(KNOB_NAPI_THREADED)->backend, KNOB_B_NAPI);
	assert_int_equal(knob_desc(KNOB_GRO_FLUSH_TIMEOUT)->sub, NAPI_GRO_FLUSH_TIMEOUT);
	assert_int_equal(knob_desc(KNOB_XPS_CPUS)->backend, KNOB_B_QUEUE);
	/* Parsing as profiles write them. */
	assert_int_equal(knob_value_parse(KNOB_RPS_CPUS, "0-1", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 3);
	assert_int_equal(knob_value_parse(KNOB_XPS_CPUS, "0x2", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 2);
	assert_int_equal(knob_value_parse(KNOB_RPS_CPUS, "0-99", &v, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "rps_cpus"));
	assert_int_equal(knob_value_parse(KNOB_RPS_FLOW_CNT, "4K", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 4096);
	assert_int_equal(knob_value_parse(KNOB_RPS_FLOW_CNT, "100", &v, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "power of two"));
	assert_false(knob_value_valid(KNOB_RPS_FLOW_CNT, 100));
	assert_true(knob_value_valid(KNOB_RPS_FLOW_CNT, 128));
	assert_int_equal(
		knob_value_parse(KNOB_NAPI_DEFER_HARD_IRQS, "2147483648", &v, why, sizeof(why)),
		-EINVAL);
	assert_int_equal(knob_value_parse(KNOB_NAPI_THREADED, "on", &v, why, sizeof(why)), 0);
	assert_int_equal(v.num, 1);
	assert_string_equal(knob_value_str(KNOB_RPS_CPUS, 5, why, sizeof(why)), "0,2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_napi_veth_default),
		cmocka_unit_test(test_napi_veth_set),
		cmocka_unit_test(test_napi_eth0),
		cmocka_unit_test(test_napi_truncated),
		cmocka_unit_test(test_napi_malformed),
		cmocka_unit_test(test_napi_irq),
		cmocka_unit_test(test_cpus_parse),
		cmocka_unit_test(test_cpus_kernel),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
