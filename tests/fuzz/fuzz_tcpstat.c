// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP's namespace counters (lib/sampler/tcpstat.c): the input stands for /proc/net/snmp and for
 * /proc/net/netstat at once. Whatever it holds, a read returns 0 with the values or a
 * negative errno (-ENODATA: no such counter; -EBADMSG: malformed), and on an error
 * leaves what it was given as it was.
 */
#include "fuzz.h"
#include "rtltune/tcpstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	static const char *const names[][2] = {{"Tcp", "RetransSegs"},
					       {"TcpExt", "TCPDSACKRecvSegs"},
					       {"Tcp", "MaxConn"},
					       {"Ip", "X"}};
	struct tcpstat t = {.retrans_segs = 7, .dsack_recv_segs = 8, .have_dsack = true};
	uint64_t v;
	size_t i;
	int rc;

	if (!path[0])
		fuzz_path(path, sizeof(path), "snmp");
	fuzz_write_file(path, data, size);
	rc = tcpstat_read_files(path, path, &t);
	FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EBADMSG);
	if (rc < 0)
		FUZZ_CHECK(t.retrans_segs == 7 && t.dsack_recv_segs == 8 && t.have_dsack);
	else
		FUZZ_CHECK(t.have_dsack || t.dsack_recv_segs == 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		v = 42;
		rc = tcpstat_field(path, names[i][0], names[i][1], &v);
		FUZZ_CHECK(rc == 0 || rc == -ENODATA || rc == -EBADMSG);
		FUZZ_CHECK(rc == 0 || v == 42);
	}
	return 0;
}
