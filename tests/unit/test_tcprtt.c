// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NETLINK_SOCK_DIAG reply parser (lib/sampler/tcprtt.c, napi-defer's latency guard) on
 * a dump captured by tests/fuzz/capture_tcprtt.py (iperf3 between two namespaces over a
 * veth pair: its control and data connections, the RTTs as MANIFEST lists them), every
 * fixture cut short, and hand-built messages: a socket idle too long, a tcp_info too short,
 * an NLMSG_ERROR, malformed lengths; the median.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtltune/tcprtt.h"
#include "tree.h"

#define FIXTURES "tests/unit/fixtures/tcprtt"

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

/* The IPv4 dump: two established sockets (iperf3's control and data connections, the
 * client's side) with RTTs 40 and 43 us, then DONE in the next recv; IPv6: DONE alone. */
static void test_captured(void **state)
{
	struct blob a = load("inet_iperf3_0.msg"), b = load("inet_iperf3_1.msg");
	struct blob c = load("inet6_iperf3_0.msg");
	struct tcprtt acc = {0};

	(void)state;
	assert_int_equal(tcprtt_parse(a.data, a.len, &acc), 0);
	assert_int_equal(acc.sockets, 2);
	assert_int_equal(acc.n, 2);
	assert_int_equal(tcprtt_parse(b.data, b.len, &acc), 1);
	assert_int_equal(tcprtt_parse(c.data, c.len, &acc), 1);
	assert_int_equal(acc.sockets, 2);
	assert_int_equal(tcprtt_median(&acc), 41); /* (40 + 43) / 2, rounded down */
	assert_int_equal(acc.rtt_us[0], 40);
	assert_int_equal(acc.rtt_us[1], 43);
	free(a.data);
	free(b.data);
	free(c.data);
}

/* Every fixture cut at every length: refused, or parsed as far as whole messages go (a
 * buffer cut between messages is a recv's end), never read past the end. */
static void test_truncated(void **state)
{
	static const char *const names[] = {"inet_iperf3_0.msg", "inet_iperf3_1.msg",
					    "inet6_iperf3_0.msg"};
	struct tcprtt acc;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct blob b = load(names[i]);

		for (len = 1; len < b.len; len++) {
			uint8_t *cut = malloc(len);
			int r;

			memcpy(cut, b.data, len);
			memset(&acc, 0, sizeof(acc));
			r = tcprtt_parse(cut, len, &acc);
			assert_true(r == -EBADMSG || r == 0);
			assert_true(acc.n <= 2);
			free(cut);
		}
		free(b.data);
	}
}

/* One SOCK_DIAG_BY_FAMILY message: state, and a tcp_info of info_len bytes with rtt and
 * last data received/sent (ms ago). */
static size_t put_sock(uint8_t *p, uint8_t state, size_t info_len, uint32_t rtt,
		       uint32_t recv_ms, uint32_t sent_ms)
{
	struct tcp_info ti;
	struct inet_diag_msg m;
	struct nlmsghdr h = {.nlmsg_type = SOCK_DIAG_BY_FAMILY};
	uint16_t alen = (uint16_t)(4 + info_len), type = INET_DIAG_INFO;

	memset(&ti, 0, sizeof(ti));
	memset(&m, 0, sizeof(m));
	m.idiag_family = 2;
	m.idiag_state = state;
	ti.tcpi_rtt = rtt;
	ti.tcpi_last_data_recv = recv_ms;
	ti.tcpi_last_data_sent = sent_ms;
	h.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)) + alen);
	memcpy(p, &h, sizeof(h));
	memcpy(p + NLMSG_HDRLEN, &m, sizeof(m));
	memcpy(p + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)), &alen, 2);
	memcpy(p + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)) + 2, &type, 2);
	memcpy(p + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(m)) + 4, &ti, info_len);
	return NLMSG_ALIGN(h.nlmsg_len);
}

static void test_built(void **state)
{
	uint8_t buf[4096];
	struct nlmsghdr h;
	struct tcprtt acc;
	size_t n = 0;
	int e = -EPERM;

	(void)state;
	memset(buf, 0, sizeof(buf));
	memset(&acc, 0, sizeof(acc));
	acc.idle_ms = 2000;
	n += put_sock(buf + n, 1, sizeof(struct tcp_info), 300, 10, 50000);  /* receiving */
	n += put_sock(buf + n, 1, sizeof(struct tcp_info), 100, 90000, 5);   /* sending */
	n += put_sock(buf + n, 1, sizeof(struct tcp_info), 900, 60000, 60000); /* idle: out */
	n += put_sock(buf + n, 1, sizeof(struct tcp_info), 0, 1, 1);	      /* no RTT yet */
	n += put_sock(buf + n, 8, sizeof(struct tcp_info), 700, 1, 1);	      /* CLOSE_WAIT */
	n += put_sock(buf + n, 1, 40, 500, 1, 1); /* tcp_info cut before tcpi_rtt */
	assert_int_equal(tcprtt_parse(buf, n, &acc), 0);
	assert_int_equal(acc.sockets, 5);
	assert_int_equal(acc.n, 2);
	assert_int_equal(tcprtt_median(&acc), 200);
	acc.n = 3;
	acc.rtt_us[2] = 1000;
	assert_int_equal(tcprtt_median(&acc), 300);
	acc.n = 0;
	assert_int_equal(tcprtt_median(&acc), 0);

	/* NLMSG_ERROR carries the kernel's errno. */
	h = (struct nlmsghdr){.nlmsg_len = NLMSG_HDRLEN + 4, .nlmsg_type = NLMSG_ERROR};
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + NLMSG_HDRLEN, &e, 4);
	assert_int_equal(tcprtt_parse(buf, NLMSG_HDRLEN + 4, &acc), -EPERM);
	/* A message longer than the buffer; an attribute longer than its message; a message
	 * too short for an inet_diag_msg. */
	n = put_sock(buf, 1, sizeof(struct tcp_info), 300, 1, 1);
	assert_int_equal(tcprtt_parse(buf, n - 4, &acc), -EBADMSG);
	buf[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct inet_diag_msg))] = 0xff;
	buf[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct inet_diag_msg)) + 1] = 0x0f;
	assert_int_equal(tcprtt_parse(buf, n, &acc), -EBADMSG);
	h = (struct nlmsghdr){.nlmsg_len = NLMSG_HDRLEN + 8, .nlmsg_type = SOCK_DIAG_BY_FAMILY};
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(tcprtt_parse(buf, NLMSG_HDRLEN + 8, &acc), -EBADMSG);
	h.nlmsg_len = 4;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(tcprtt_parse(buf, 16, &acc), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_built),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
