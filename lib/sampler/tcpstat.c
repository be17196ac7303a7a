// SPDX-License-Identifier: GPL-2.0-only
/* TCP's counters for the namespace from /proc/net (include/rtltune/tcpstat.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtltune/tcpstat.h"

/* The next token of a line (spaces separate them); NULL at its end. */
static char *token(char **p)
{
	char *s = *p, *e;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return NULL;
	e = s + strcspn(s, " \n");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

/* "Proto:" at the start of line: the rest of it, else NULL. */
static char *after_proto(char *line, const char *proto)
{
	size_t n = strlen(proto);

	if (strncmp(line, proto, n) != 0 || line[n] != ':')
		return NULL;
	return line + n + 1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EBADMSG;
	*out = v;
	return 0;
}

/* The value at column col of the values line; -EBADMSG when it is short or not a value. */
static int value_at(char *rest, long col, uint64_t *out)
{
	char *t;
	long i;

	for (i = 0; (t = token(&rest)); i++)
		if (i == col)
			return parse_u64(t, out);
	return -EBADMSG;
}

int tcpstat_field(const char *path, const char *proto, const char *name, uint64_t *out)
{
	char *line = NULL, *rest, *t;
	size_t cap = 0;
	long col = -1, i;
	int rc = -ENODATA;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		errno = 0;
		if (getline(&line, &cap, f) < 0) {
			if (errno) /* ENOMEM, a read error: not the end of the file */
				rc = -errno;
			else if (col >= 0)
				rc = -EBADMSG; /* the names line without its values line */
			break;
		}
		rest = after_proto(line, proto);
		if (col >= 0) {
			/* The values line comes right after its names line. */
			rc = rest ? value_at(rest, col, out) : -EBADMSG;
			break;
		}
		if (!rest)
			continue;
		for (i = 0; (t = token(&rest)); i++)
			if (strcmp(t, name) == 0) {
				col = i;
				break;
			}
		if (col < 0)
			break; /* the protocol is here, the name is not */
	}
	free(line);
	fclose(f);
	return rc;
}

int tcpstat_read_files(const char *snmp, const char *netstat, struct tcpstat *out)
{
	struct tcpstat t = {0};
	int rc;

	rc = tcpstat_field(snmp, "Tcp", "RetransSegs", &t.retrans_segs);
	if (rc < 0)
		return rc;
	rc = tcpstat_field(netstat, "TcpExt", "TCPDSACKRecvSegs", &t.dsack_recv_segs);
	if (rc < 0 && rc != -ENODATA)
		return rc;
	t.have_dsack = rc == 0;
	*out = t;
	return 0;
}

int tcpstat_read(struct tcpstat *out)
{
	return tcpstat_read_files("/proc/net/snmp", "/proc/net/netstat", out);
}

uint64_t tcpstat_lossy(uint64_t seg, uint64_t d_retrans, uint64_t d_dsack)
{
	if (!d_retrans || !seg)
		return seg;
	if (d_dsack >= d_retrans)
		return 0;
	/* seg * d_dsack / d_retrans spurious, rounded down (a fraction of a segment stays
	 * loss), exactly: the product takes 128 bits. */
	return seg - (uint64_t)((unsigned __int128)seg * d_dsack / d_retrans);
}
