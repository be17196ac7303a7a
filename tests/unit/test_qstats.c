// SPDX-License-Identifier: GPL-2.0-only
/*
 * The qstats-get reply parser (lib/netdev/qstats_parse.c) on replies captured from this
 * kernel by tests/fuzz/capture_qstats.py (the host's eth0, virtio_net, read only; the
 * values as MANIFEST lists them), every fixture cut short, and hand-built messages: the
 * 8-byte form of a counter, a newer kernel's unknown attribute, and the malformed ones.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/qstats.h"
#include "tree.h"

#define FIXTURES "tests/unit/fixtures/qstats"

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

/*
 * The value MANIFEST gives for key in the line of file name ("rx-packets=11127"), or -1.
 * The capture wrote it from its own decoding: an independent account of the bytes.
 */
static int64_t manifest(const char *name, const char *key)
{
	size_t len, klen = strlen(key);
	char *text = (char *)tree_read(FIXTURES "/MANIFEST", &len), *line, *p;
	int64_t v = -1;

	assert_non_null(text);
	text = realloc(text, len + 1);
	text[len] = '\0';
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, name, strlen(name)) || line[strlen(name)] != ':')
			continue;
		for (p = strstr(line, key); p; p = strstr(p + 1, key))
			if (p[-1] == ' ' && p[klen] == '=') {
				v = strtoll(p + klen + 1, NULL, 10);
				break;
			}
	}
	free(text);
	return v;
}

static void check_against_manifest(const char *file, const char *entry, const struct qstats *q)
{
	unsigned int s;

	assert_int_equal(q->ifindex, manifest(entry, "ifindex"));
	for (s = 0; s < QSTAT_COUNT; s++) {
		int64_t want = manifest(entry, qstat_name(s));

		if (want < 0) {
			assert_false(q->have & (1u << s));
		} else {
			assert_true(q->have & (1u << s));
			assert_int_equal(q->val[s], (uint64_t)want);
		}
	}
	(void)file;
}

static void test_eth0_device(void **state)
{
	struct blob b = load("eth0_device.msg");
	struct qstats q;

	(void)state;
	assert_int_equal(qstats_parse_reply(b.data, b.len, &q), 0);
	assert_int_equal(q.queue_type, QSTATS_DEVICE);
	/* virtio_net keeps packets, bytes, tx-stop and tx-wake, nothing more. */
	assert_int_equal(q.have, (1u << QSTAT_RX_PACKETS) | (1u << QSTAT_RX_BYTES) |
					 (1u << QSTAT_TX_PACKETS) | (1u << QSTAT_TX_BYTES) |
					 (1u << QSTAT_TX_STOP) | (1u << QSTAT_TX_WAKE));
	assert_true(q.val[QSTAT_RX_PACKETS] > 0 && q.val[QSTAT_RX_BYTES] > q.val[QSTAT_RX_PACKETS]);
	check_against_manifest("eth0_device.msg", "eth0_device.msg", &q);
	free(b.data);
}

static void test_eth0_queues(void **state)
{
	struct blob rx = load("eth0_rx0.msg"), tx = load("eth0_tx0.msg"),
		    dev = load("eth0_device.msg");
	struct qstats qr, qt, qd;

	(void)state;
	assert_int_equal(qstats_parse_reply(rx.data, rx.len, &qr), 0);
	assert_int_equal(qstats_parse_reply(tx.data, tx.len, &qt), 0);
	assert_int_equal(qstats_parse_reply(dev.data, dev.len, &qd), 0);
	assert_int_equal(qr.queue_type, RT_NETDEV_QUEUE_TYPE_RX);
	assert_int_equal(qr.queue_id, 0);
	assert_int_equal(qt.queue_type, RT_NETDEV_QUEUE_TYPE_TX);
	assert_int_equal(qt.queue_id, 0);
	check_against_manifest("eth0_rx0.msg", "eth0_rx0.msg", &qr);
	check_against_manifest("eth0_tx0.msg", "eth0_tx0.msg", &qt);
	/* One queue each way, read in one go: the device's totals are the queues'. */
	assert_int_equal(qr.val[QSTAT_RX_PACKETS], qd.val[QSTAT_RX_PACKETS]);
	assert_int_equal(qt.val[QSTAT_TX_BYTES], qd.val[QSTAT_TX_BYTES]);
	assert_false(qr.have & (1u << QSTAT_TX_PACKETS));
	free(rx.data);
	free(tx.data);
	free(dev.data);
}

static void test_truncated(void **state)
{
	static const char *const names[] = {"eth0_device.msg", "eth0_rx0.msg", "eth0_tx0.msg"};
	struct qstats q;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct blob b = load(names[i]);

		for (len = 0; len < b.len; len++) {
			uint8_t *cut = malloc(len ? len : 1);

			memcpy(cut, b.data, len);
			/* nlmsg_len still says the full size: longer than the buffer. */
			assert_int_equal(qstats_parse_reply(cut, len, &q), -EBADMSG);
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

#define PARSE(buf, attrs, p, q)                                                                    \
	qstats_parse_reply(buf, build(buf, attrs, (size_t)((p) - (attrs))), q)

static void test_built(void **state)
{
	uint8_t attrs[160], buf[200], *p;
	uint32_t ifx = 7, rx = 0, tx = 1, two = 2, qid = 3, big32 = 0x80000000u, small = 42;
	uint64_t big = 5000000000ull;
	struct qstats q;

	(void)state;
	/* The 8-byte uint form, a counter a newer kernel adds (attribute 40): skipped. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_TYPE, &tx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_ID, &qid, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_RX_PACKETS + QSTAT_TX_BYTES, &big, 8);
	put_attr(&p, RT_NETDEV_A_QSTATS_RX_PACKETS + QSTAT_TX_STOP, &small, 4);
	put_attr(&p, 40, &small, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), 0);
	assert_int_equal(q.ifindex, 7);
	assert_int_equal(q.queue_type, RT_NETDEV_QUEUE_TYPE_TX);
	assert_int_equal(q.queue_id, 3);
	assert_int_equal(q.val[QSTAT_TX_BYTES], 5000000000ull);
	assert_int_equal(q.val[QSTAT_TX_STOP], 42);
	assert_int_equal(q.have, (1u << QSTAT_TX_BYTES) | (1u << QSTAT_TX_STOP));
	/* The last counter the kernel has, tx-wake (attribute 34). */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, 34, &small, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), 0);
	assert_int_equal(q.val[QSTAT_TX_WAKE], 42);
	assert_int_equal(q.queue_type, QSTATS_DEVICE);
	/* No device; a queue type without its id; an id without its type; a type 2. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_RX_PACKETS, &small, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_TYPE, &rx, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_ID, &qid, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_TYPE, &two, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_QUEUE_ID, &qid, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	/* An ifindex beyond INT32_MAX, or of 8 bytes; a counter of 5 bytes. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &big32, 4);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &big, 8);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	put_attr(&p, RT_NETDEV_A_QSTATS_RX_PACKETS, &big, 5);
	assert_int_equal(PARSE(buf, attrs, p, &q), -EBADMSG);
	/* An attribute header claiming more than the message has. */
	p = attrs;
	put_attr(&p, RT_NETDEV_A_QSTATS_IFINDEX, &ifx, 4);
	attrs[8] = 200;
	attrs[10] = RT_NETDEV_A_QSTATS_RX_PACKETS;
	assert_int_equal(qstats_parse_reply(buf, build(buf, attrs, 16), &q), -EBADMSG);
}

static void test_names(void **state)
{
	unsigned int s;

	(void)state;
	for (s = 0; s < QSTAT_COUNT; s++) {
		char key[64];
		size_t i;

		/* The key is the family's name with '_' for '-'. */
		snprintf(key, sizeof(key), "%s", qstat_name(s));
		for (i = 0; key[i]; i++)
			if (key[i] == '-')
				key[i] = '_';
		assert_string_equal(qstat_key(s), key);
		assert_true(strlen(qstat_help(s)) > 10);
		assert_int_equal(qstat_is_bytes(s), strstr(qstat_name(s), "bytes") != NULL);
	}
	assert_string_equal(qstat_name(QSTAT_RX_HW_DROPS), "rx-hw-drops");
	assert_string_equal(qstat_name(QSTAT_TX_WAKE), "tx-wake");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eth0_device), cmocka_unit_test(test_eth0_queues),
		cmocka_unit_test(test_truncated),   cmocka_unit_test(test_built),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
