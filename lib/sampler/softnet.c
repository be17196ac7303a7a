// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/net/softnet_stat (include/rtltune/softnet.h). The parser takes the text as bytes
 * (a capture or a fuzzer's input as well as the file) and trusts none of it: a column
 * must be hexadecimal and fit 32 bits, every line as wide as the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtltune/softnet.h"

/* 0-based columns (softnet.h lists them 1-based). */
#define COL_PROCESSED	 0
#define COL_DROPPED	 1
#define COL_TIME_SQUEEZE 2
#define COL_RECEIVED_RPS 9
#define COL_FLOW_LIMIT	 10
#define COL_BACKLOG_LEN	 11
#define COL_CPU		 12
#define COL_KNOWN	 15

static const struct {
	const char *name;
	unsigned int col;
} counters[SOFTNET_COUNTER_COUNT] = {
	[SOFTNET_PROCESSED] = {"processed", COL_PROCESSED},
	[SOFTNET_DROPPED] = {"dropped", COL_DROPPED},
	[SOFTNET_TIME_SQUEEZE] = {"time_squeeze", COL_TIME_SQUEEZE},
	[SOFTNET_RECEIVED_RPS] = {"received_rps", COL_RECEIVED_RPS},
	[SOFTNET_FLOW_LIMIT] = {"flow_limit", COL_FLOW_LIMIT},
};

const char *softnet_counter_name(enum softnet_counter c)
{
	return (unsigned int)c < SOFTNET_COUNTER_COUNT ? counters[c].name : "?";
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The columns of one line [p, end) into col[] (the first COL_KNOWN kept); their count, or
 * -EBADMSG for a column that is not 1 to 8 hexadecimal digits.
 */
static int split_line(const char *p, const char *end, uint32_t col[COL_KNOWN])
{
	int ncol = 0;

	while (p < end) {
		uint32_t v = 0;
		int digits = 0, d;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		for (; p < end && (d = hex_digit(*p)) >= 0; p++, digits++) {
			if (digits == 8)
				return -EBADMSG;
			v = v << 4 | (uint32_t)d;
		}
		if (!digits || (p < end && *p != ' ' && *p != '\t'))
			return -EBADMSG;
		if (ncol < COL_KNOWN)
			col[ncol] = v;
		if (ncol == 4096) /* a line no kernel prints: not worth counting further */
			return -EBADMSG;
		ncol++;
	}
	return ncol;
}

int softnet_parse(const char *text, size_t len, struct softnet_cpu *out, unsigned int max,
		  unsigned int *n, bool *cpu_named)
{
	const char *p = text, *end = text + len;
	int width = -1;
	unsigned int rows = 0;

	*n = 0;
	*cpu_named = false;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		uint32_t col[COL_KNOWN] = {0};
		struct softnet_cpu *c;
		unsigned int i;
		int ncol;

		if (!eol)
			eol = end; /* the last line's newline may be missing */
		ncol = split_line(p, eol, col);
		p = eol + 1;
		if (ncol < 0)
			return ncol;
		if (ncol == 0) {
			/* An empty line only as the very end of the text. */
			if (p < end)
				return -EBADMSG;
			break;
		}
		if (width < 0)
			width = ncol;
		if (ncol != width || ncol < SOFTNET_MIN_COLUMNS)
			return -EBADMSG;
		if (rows == max)
			return -E2BIG;
		c = &out[rows];
		memset(c, 0, sizeof(*c));
		for (i = 0; i < SOFTNET_COUNTER_COUNT; i++)
			if ((int)counters[i].col < ncol) {
				c->v[i] = col[counters[i].col];
				c->have |= 1u << i;
			}
		c->backlog_len = ncol > COL_BACKLOG_LEN ? (int64_t)col[COL_BACKLOG_LEN] : -1;
		/* Before 5.10 the CPU is the line's position among the online CPUs. */
		c->cpu = ncol > COL_CPU ? col[COL_CPU] : rows;
		if (c->cpu > SOFTNET_MAX_CPU || (rows && c->cpu <= out[rows - 1].cpu))
			return -EBADMSG;
		rows++;
	}
	if (!rows)
		return -EBADMSG;
	*n = rows;
	*cpu_named = width > COL_CPU;
	return 0;
}

int softnet_read(const char *path, struct softnet_cpu *out, unsigned int max, unsigned int *n,
		 bool *cpu_named)
{
	/* 136 bytes a CPU: a page holds 30 CPUs, larger hosts take a few reads more. */
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap), *grown;
	int fd, r;

	*n = 0;
	*cpu_named = false;
	if (!buf)
		return -ENOMEM;
	fd = open(path ? path : "/proc/net/softnet_stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(buf);
		return r;
	}
	for (;;) {
		ssize_t got;

		if (len == cap) {
			grown = realloc(buf, cap * 2);
			if (!grown) {
				r = -ENOMEM;
				goto out;
			}
			buf = grown;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	r = softnet_parse(buf, len, out, max, n, cpu_named);
out:
	free(buf);
	close(fd);
	return r;
}
