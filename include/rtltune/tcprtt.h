/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TCPRTT_H
#define RTLTUNE_TCPRTT_H
/*
 * The smoothed RTT of the reader's network namespace's established TCP connections, from
 * a NETLINK_SOCK_DIAG dump (inet_diag: SOCK_DIAG_BY_FAMILY with INET_DIAG_INFO, a struct
 * tcp_info per socket; tcpi_rtt is TCP's srtt in microseconds), as ss(8) -ti reads it.
 * The tuner's latency guard for napi-defer (docs/tuning.md): the median over the sockets
 * that moved data lately. The parser works on a buffer of netlink messages (what one
 * recv() of the dump returns): tested on captured replies and fuzzed.
 */
#include <stddef.h>
#include <stdint.h>

/* Sockets whose RTT one reading keeps (a median over more moves little). */
#define TCPRTT_MAX 2048

struct tcprtt {
	uint32_t idle_ms;	      /* a socket that neither sent nor received data for
				       * longer than this is left out (0: none is) */
	unsigned int sockets;	      /* established sockets the dump listed */
	unsigned int n;		      /* RTTs kept in rtt_us */
	uint32_t rtt_us[TCPRTT_MAX];
};

/*
 * Add the established sockets of one recv()'s worth of dump messages to acc. Every message
 * must fit the buffer, an inet_diag_msg its message and each attribute what is left of it;
 * a tcp_info shorter than tcpi_rtt's end (a kernel before 2.6.x had all of it) is skipped,
 * as is an RTT of 0 (no sample yet). 1 when the dump's NLMSG_DONE was in buf, 0 when more
 * is to come, -EBADMSG for a malformed buffer, the kernel's -errno for an NLMSG_ERROR.
 */
int tcprtt_parse(const void *buf, size_t len, struct tcprtt *acc);
/* The median of the RTTs kept (sorts them), 0 when none. */
uint32_t tcprtt_median(struct tcprtt *acc);
/*
 * Dump the namespace's established TCP sockets (IPv4, then IPv6) into acc (its idle_ms as
 * set, the rest reset). 0, or -errno (the socket, the send, a recv, a malformed reply).
 */
int tcprtt_read(struct tcprtt *acc);

#endif
