/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TCPSTAT_H
#define RTLTUNE_TCPSTAT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * TCP's own counters for the reader's network namespace, as nstat(8) reads them from
 * /proc/net/snmp and /proc/net/netstat. The tuner uses them to leave out retransmits
 * that TCP itself found spurious: a receiver that gets a segment twice says so with a
 * DSACK (RFC 2883), and the kernel counts the segments such DSACKs cover
 * (TCPDSACKRecvSegs, where the kernel has it). Reordering on the way (veth's per-CPU
 * backlogs, a bond in balance-rr, ECMP) makes the sender retransmit what was only late;
 * that is no loss, and the kernel undoes its own congestion response for it.
 */
struct tcpstat {
	uint64_t retrans_segs;	  /* Tcp: RetransSegs */
	uint64_t dsack_recv_segs; /* TcpExt: TCPDSACKRecvSegs; 0 without have_dsack */
	bool have_dsack;	  /* the kernel counts TCPDSACKRecvSegs */
};

/*
 * One counter of a /proc/net/snmp or /proc/net/netstat style file: lines come in pairs,
 * "Proto: Name1 Name2 ..." and right after it "Proto: value1 value2 ...". 0 and *out set;
 * -ENODATA when the file has no such protocol, or the protocol no such name; -EBADMSG when
 * the pair is malformed (no values line right after the names, the column asked for
 * missing from it or not an unsigned decimal); -errno when the file cannot be read
 * (-ENOENT: no such file). *out is untouched on error.
 */
int tcpstat_field(const char *path, const char *proto, const char *name, uint64_t *out);

/* Both counters from the two files (paths for tests and the fuzzer; tcpstat_read() uses
 * /proc/net/snmp and /proc/net/netstat). A kernel without TCPDSACKRecvSegs is not an
 * error: have_dsack is false. Otherwise as tcpstat_field(), *out untouched. */
int tcpstat_read_files(const char *snmp, const char *netstat, struct tcpstat *out);
int tcpstat_read(struct tcpstat *out);

/*
 * Of seg retransmitted segments (or retransmissions) counted on one interface over an
 * interval, those not shown spurious: the namespace's share of DSACKed segments in its
 * retransmitted ones over the same interval (d_dsack of d_retrans, at most all of them)
 * taken off, the spurious part rounded down (a fraction of one stays loss). seg unchanged
 * when the namespace retransmitted nothing.
 */
uint64_t tcpstat_lossy(uint64_t seg, uint64_t d_retrans, uint64_t d_dsack);

#endif
