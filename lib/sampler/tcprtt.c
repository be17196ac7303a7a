// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namespace's TCP RTTs through NETLINK_SOCK_DIAG (tcprtt.h). Nothing here trusts a
 * length: the buffer may come from a capture or a fuzzer as well as the kernel; scalars are
 * read with memcpy, since a buffer need not be aligned.
 */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "rtltune/tcprtt.h"

/* include/net/tcp_states.h */
#define RT_TCP_ESTABLISHED 1

/* tcp_info fields (include/uapi/linux/tcp.h; in the struct since 2.6.x). */
#define TI_END(f) (offsetof(struct tcp_info, f) + sizeof(((struct tcp_info *)0)->f))

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One SOCK_DIAG_BY_FAMILY message (header excluded): its socket's RTT into acc. */
static int one_socket(const uint8_t *p, size_t len, struct tcprtt *acc)
{
	struct inet_diag_msg m;
	bool seen = false;
	size_t off;

	if (len < sizeof(m))
		return -EBADMSG;
	memcpy(&m, p, sizeof(m));
	if (m.idiag_state != RT_TCP_ESTABLISHED)
		return 0;
	acc->sockets++;
	for (off = NLMSG_ALIGN(sizeof(m)); off < len;) {
		uint16_t alen, type;
		const uint8_t *v;
		uint32_t rtt, recv_ms, sent_ms;

		if (len - off < 4)
			return -EBADMSG;
		memcpy(&alen, p + off, sizeof(alen));
		memcpy(&type, p + off + 2, sizeof(type));
		if (alen < 4 || alen > len - off)
			return -EBADMSG;
		v = p + off + 4;
		/* One RTT a socket: a repeated attribute (the kernel sends none) adds nothing. */
		if ((type & NLA_TYPE_MASK) == INET_DIAG_INFO && !seen &&
		    alen - 4u >= TI_END(tcpi_rtt)) {
			seen = true;
			rtt = u32_at(v + offsetof(struct tcp_info, tcpi_rtt));
			recv_ms = u32_at(v + offsetof(struct tcp_info, tcpi_last_data_recv));
			sent_ms = u32_at(v + offsetof(struct tcp_info, tcpi_last_data_sent));
			if (rtt > 0 && acc->n < TCPRTT_MAX &&
			    (!acc->idle_ms || recv_ms <= acc->idle_ms || sent_ms <= acc->idle_ms))
				acc->rtt_us[acc->n++] = rtt;
		}
		off += (size_t)NLA_ALIGN(alen) < len - off ? (size_t)NLA_ALIGN(alen) : len - off;
	}
	return 0;
}

int tcprtt_parse(const void *buf, size_t len, struct tcprtt *acc)
{
	const uint8_t *p = buf;
	struct nlmsghdr h;
	size_t off;
	int err;

	for (off = 0; off < len;) {
		if (len - off < sizeof(h))
			return -EBADMSG;
		memcpy(&h, p + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off)
			return -EBADMSG;
		switch (h.nlmsg_type) {
		case NLMSG_DONE:
			return 1;
		case NLMSG_ERROR:
			if (h.nlmsg_len < sizeof(h) + sizeof(int))
				return -EBADMSG;
			memcpy(&err, p + off + sizeof(h), sizeof(err));
			return err < 0 && err > -4096 ? err : -EBADMSG;
		case SOCK_DIAG_BY_FAMILY:
			err = one_socket(p + off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN, acc);
			if (err < 0)
				return err;
			break;
		default:
			break; /* NLMSG_NOOP and the like */
		}
		off += NLMSG_ALIGN(h.nlmsg_len) < len - off ? NLMSG_ALIGN(h.nlmsg_len) : len - off;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t tcprtt_median(struct tcprtt *acc)
{
	unsigned int n = acc->n < TCPRTT_MAX ? acc->n : TCPRTT_MAX;

	if (!n)
		return 0;
	qsort(acc->rtt_us, n, sizeof(acc->rtt_us[0]), cmp_u32);
	return n % 2 ? acc->rtt_us[n / 2]
		     : (uint32_t)(((uint64_t)acc->rtt_us[n / 2 - 1] + acc->rtt_us[n / 2]) / 2);
}

static int dump_family(int fd, uint8_t family, struct tcprtt *acc, uint8_t *buf, size_t size)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	ssize_t n;
	int r;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = family;
	req.r.sdiag_family = family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_ext = 1u << (INET_DIAG_INFO - 1);
	req.r.idiag_states = 1u << RT_TCP_ESTABLISHED;
	if (send(fd, &req, sizeof(req), 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, buf, size, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EBADMSG;
		r = tcprtt_parse(buf, (size_t)n, acc);
		if (r != 0)
			return r < 0 ? r : 0;
	}
}

int tcprtt_read(struct tcprtt *acc)
{
	static const uint8_t families[] = {AF_INET, AF_INET6};
	struct timeval tv = {.tv_sec = 1};
	size_t size = 65536;
	uint8_t *buf;
	unsigned int i;
	int fd, r = 0;

	acc->sockets = acc->n = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	/* A dump never blocks for long; a kernel that does not answer ends the reading. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	buf = malloc(size);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (i = 0; i < sizeof(families) && r == 0; i++) {
		r = dump_family(fd, families[i], acc, buf, size);
		/* A kernel without IPv6 has no inet6 diag handler: the IPv4 sockets stand. */
		if (r == -ENOENT && families[i] == AF_INET6)
			r = 0;
	}
	free(buf);
	close(fd);
	return r;
}
