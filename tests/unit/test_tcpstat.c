// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP's namespace counters (lib/sampler/tcpstat.c): /proc/net/snmp and /proc/net/netstat as
 * captured from a namespace on Linux 6.18 after one iperf3 second with the ends on two
 * CPUs (tests/unit/fixtures/tcpstat: 11746 segments retransmitted, 10577 of them
 * DSACKed), the same files cut and mangled, and the share of retransmits left as loss.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtltune/tcpstat.h"
#include "tree.h"

static char dir[] = "/tmp/test_tcpstat.XXXXXX";

static const char *fixture(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static unsigned int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/tests/unit/fixtures/tcpstat/%s", tree, name);
	return b;
}

/* A file of text in the test's directory; its path. */
static const char *file_of(const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_captured(void **state)
{
	struct tcpstat t;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(tcpstat_read_files(fixture("snmp"), fixture("netstat"), &t), 0);
	assert_int_equal(t.retrans_segs, 11746);
	assert_true(t.have_dsack);
	assert_int_equal(t.dsack_recv_segs, 10577);
	/* Other columns of the same lines, and another protocol's pair in between. */
	assert_int_equal(tcpstat_field(fixture("snmp"), "Tcp", "RtoAlgorithm", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(tcpstat_field(fixture("snmp"), "Udp", "InDatagrams", &v), 0);
	assert_int_equal(tcpstat_field(fixture("netstat"), "TcpExt", "SyncookiesSent", &v), 0);
	assert_int_equal(v, 0);
	/* Tcp's MaxConn is -1: only the column asked for is parsed. */
	assert_int_equal(tcpstat_field(fixture("snmp"), "Tcp", "MaxConn", &v), -EBADMSG);
	/* "Tcp" is not a prefix match of "TcpExt", nor "Ip" of "IpExt". */
	assert_int_equal(tcpstat_field(fixture("netstat"), "Tcp", "RetransSegs", &v), -ENODATA);
	assert_int_equal(tcpstat_field(fixture("netstat"), "Ip", "InOctets", &v), -ENODATA);
}

static void test_missing(void **state)
{
	const char *snmp = fixture("snmp");
	struct tcpstat t = {.retrans_segs = 7};
	uint64_t v = 99;

	(void)state;
	assert_int_equal(tcpstat_field(snmp, "Tcp", "NoSuchCounter", &v), -ENODATA);
	assert_int_equal(tcpstat_field(snmp, "Sctp", "RetransSegs", &v), -ENODATA);
	assert_int_equal(v, 99);
	assert_int_equal(tcpstat_field("/nonexistent/snmp", "Tcp", "RetransSegs", &v), -ENOENT);
	assert_int_equal(tcpstat_read_files("/nonexistent", fixture("netstat"), &t), -ENOENT);
	/* No netstat file is not a kernel without the counter: an error. */
	assert_int_equal(tcpstat_read_files(snmp, "/nonexistent", &t), -ENOENT);
	assert_int_equal(t.retrans_segs, 7);
	/* A kernel without TCPDSACKRecvSegs: no DSACK count, not an error. */
	assert_int_equal(
		tcpstat_read_files(snmp, file_of("old", "TcpExt: DelayedACKs\nTcpExt: 5\n"), &t),
		0);
	assert_false(t.have_dsack);
	assert_int_equal(t.dsack_recv_segs, 0);
	assert_int_equal(t.retrans_segs, 11746);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"Tcp: A RetransSegs\n",				     /* no values line */
		"Tcp: A RetransSegs\nTcp: 1\n",			     /* values line too short */
		"Tcp: A RetransSegs\nTcp: 1 -2\n",		     /* negative */
		"Tcp: A RetransSegs\nTcp: 1 12x\n",		     /* not a number */
		"Tcp: A RetransSegs\nTcp: 1 +3\n",		     /* sign */
		"Tcp: A RetransSegs\nTcp: 1 99999999999999999999\n", /* beyond 64 bits */
		"Tcp: A RetransSegs\nUdp: 1 2\n",		     /* another protocol's line */
		"Tcp: A RetransSegs\nUdp: 1 2\nTcp: 1 2\n",	     /* ... before the values */
	};
	uint64_t v = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = tcpstat_field(file_of("bad", bad[i]), "Tcp", "RetransSegs", &v);

		if (rc != -EBADMSG || v != 42)
			fail_msg("'%s': %d, %llu", bad[i], rc, (unsigned long long)v);
	}
	/* Extra spaces and a line without its newline still read. */
	assert_int_equal(
		tcpstat_field(file_of("ok", "Tcp:  A  RetransSegs\nTcp: 1  18446744073709551615"),
			      "Tcp", "RetransSegs", &v),
		0);
	assert_true(v == UINT64_MAX);
}

static void test_lossy(void **state)
{
	(void)state;
	/* The namespace's share taken off: 10577 of 11746 DSACKed, 1000 on the interface. */
	assert_int_equal(tcpstat_lossy(1000, 11746, 10577), 100);
	assert_int_equal(tcpstat_lossy(1000, 11746, 0), 1000);
	/* Nothing retransmitted in the namespace (the interface's count leads it): as is. */
	assert_int_equal(tcpstat_lossy(52, 0, 0), 52);
	assert_int_equal(tcpstat_lossy(52, 0, 9), 52);
	/* More DSACKed than retransmitted: none lost. */
	assert_int_equal(tcpstat_lossy(52, 40, 41), 0);
	assert_int_equal(tcpstat_lossy(0, 40, 20), 0);
	/* The spurious part rounded down: a fraction of a segment stays loss. */
	assert_int_equal(tcpstat_lossy(3, 4, 1), 3); /* 0.75 spurious */
	assert_int_equal(tcpstat_lossy(3, 4, 3), 1); /* 2.25 */
	assert_int_equal(tcpstat_lossy(1, 2, 1), 1);
	assert_int_equal(tcpstat_lossy(UINT64_MAX, UINT64_MAX, UINT64_MAX - 1), 1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ok", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/old", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lossy),
	};

	if (find_tree("tests/unit/fixtures/tcpstat/netstat") < 0) {
		fprintf(stderr, "test_tcpstat: fixtures not found (set RTLTUNE_SRCDIR)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
