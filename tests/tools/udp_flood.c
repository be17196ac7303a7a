// SPDX-License-Identifier: GPL-2.0-only
/*
 * udp_flood [-g SIZE] [-b BYTES] DST_IP PORT COUNT PAYLOAD...: send COUNT UDP datagrams
 * to DST_IP:PORT as fast as sendmmsg(2) goes, their payload sizes cycling through the
 * PAYLOAD list in order. With -g each send is cut into datagrams of SIZE bytes, the last
 * one what remains (UDP_SEGMENT: one GSO skb per send, which a veth peer receives whole).
 * With -b the socket's send buffer is BYTES (SO_SNDBUFFORCE, past net.core.wmem_max, which
 * stays as it is): a veth peer's skbs stay charged to the sender until the receiving CPU
 * frees them, so the send buffer bounds how many wait in that CPU's backlog
 * (tests/integration/signals_softnet.sh overflows it).
 * Traffic above the probes' sampling threshold with a known, periodic size pattern (a
 * sampler that took every 2^k-th event would see one phase of it), for
 * tests/integration/probes_sampling.sh. Prints the number sent; exit 1 on an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH	    64
#define MAX_PAYLOAD 1472  /* one datagram in a 1500-byte MTU */
#define MAX_GSO	    65000 /* one GSO send */
#define MAX_PATTERN 64

int main(int argc, char **argv)
{
	static char payload[MAX_GSO];
	struct sockaddr_in dst = {.sin_family = AF_INET};
	unsigned int pattern[MAX_PATTERN], n_pattern, i;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	unsigned long count, sent = 0;
	unsigned int max = MAX_PAYLOAD;
	int fd, n, gso = 0, sndbuf = 0;

	while (argc > 2 && (strcmp(argv[1], "-g") == 0 || strcmp(argv[1], "-b") == 0)) {
		if (argv[1][1] == 'b') {
			sndbuf = atoi(argv[2]);
			if (sndbuf <= 0) {
				fprintf(stderr, "udp_flood: send buffer %s not a size\n", argv[2]);
				return 2;
			}
		} else {
			gso = atoi(argv[2]);
			if (gso <= 0 || gso > MAX_PAYLOAD) {
				fprintf(stderr, "udp_flood: GSO size %s not in 1..%d\n", argv[2],
					MAX_PAYLOAD);
				return 2;
			}
			max = MAX_GSO;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 5 || argc - 4 > MAX_PATTERN) {
		fprintf(stderr,
			"usage: udp_flood [-g SIZE] [-b BYTES] DST_IP PORT COUNT PAYLOAD... (at "
			"most "
			"%d)\n",
			MAX_PATTERN);
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "udp_flood: bad address %s\n", argv[1]);
		return 2;
	}
	dst.sin_port = htons((unsigned short)atoi(argv[2]));
	count = strtoul(argv[3], NULL, 10);
	n_pattern = (unsigned int)(argc - 4);
	for (i = 0; i < n_pattern; i++) {
		pattern[i] = (unsigned int)atoi(argv[4 + i]);
		if (pattern[i] > max) {
			fprintf(stderr, "udp_flood: payload %u above %u\n", pattern[i], max);
			return 2;
		}
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udp_flood: socket");
		return 1;
	}
	if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0) {
		perror("udp_flood: SO_SNDBUFFORCE");
		return 1;
	}
	if (gso && setsockopt(fd, SOL_UDP, UDP_SEGMENT, &gso, sizeof(gso)) < 0) {
		perror("udp_flood: UDP_SEGMENT");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = payload;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}
	while (sent < count) {
		unsigned int batch = count - sent < BATCH ? (unsigned int)(count - sent) : BATCH;

		for (i = 0; i < batch; i++)
			iov[i].iov_len = pattern[(sent + i) % n_pattern];
		n = sendmmsg(fd, msgs, batch, 0);
		if (n < 0) {
			/* ICMP errors from the closed port surface as ECONNREFUSED only on
			 * connected sockets; a full socket buffer as ENOBUFS: try again. */
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			perror("udp_flood: sendmmsg");
			return 1;
		}
		sent += (unsigned long)n;
	}
	printf("%lu\n", sent);
	close(fd);
	return 0;
}
