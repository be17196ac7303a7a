// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's base (journal_priv.h), below every other file of the module: clocks, small
 * files, growing arrays, the tables' look-ups, the validators of names and identities, and
 * whether an operation's process still runs. It calls no other file of lib/journal/.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "journal_priv.h"

int64_t jr_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t jr_mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static pid_t cached_pid;

static void forget_pid(void)
{
	cached_pid = 0;
}

pid_t jr_pid(void)
{
	static bool registered;

	if (!cached_pid) {
		if (!registered)
			registered = pthread_atfork(NULL, NULL, forget_pid) == 0;
		cached_pid = getpid();
	}
	return cached_pid;
}

int jr_read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	return (int)r;
}

int jr_grow(void *arr, int n, size_t size)
{
	void **a = arr;
	void *bigger;

	/* Grow by powers of two: n is a power of two exactly when the array is full. */
	if (n && (n & (n - 1)))
		return 0;
	bigger = realloc(*a, (n ? 2 * (size_t)n : 1) * size);
	if (!bigger)
		return -ENOMEM;
	*a = bigger;
	return 0;
}

/* Kernel rule for interface names (dev_valid_name): 1..15 bytes, no '/', ':' or space. */
bool jr_ifname_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s) ||
		    !isprint((unsigned char)*s))
			return false;
	return true;
}

/* op, actor, outcome: short lowercase words, so they can never break a line or a field. */
bool jr_word_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= max)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' &&
		    *s != '-')
			return false;
	return true;
}

bool jr_perm_addr_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 2 || n >= 64 || (n + 1) % 3)
		return false;
	for (i = 0; i < n; i++)
		if (i % 3 == 2 ? s[i] != ':'
			       : !isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

bool jr_boot_id_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n != 36)
		return false;
	for (i = 0; i < n; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23 ? s[i] != '-'
							    : !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

const char *jr_boot_id(void)
{
	static char id[40];
	char buf[64];

	if (!id[0] && jr_read_small_file("/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(id, sizeof(id), "%s", buf);
	}
	return id;
}

bool jr_host_ok(const struct journal_ident *id)
{
	return id->ifindex == 0 && !strcmp(id->ifname, KNOB_HOST_NAME) && !id->perm_addr[0];
}

bool journal_ident_same(const struct journal_ident *a, const struct journal_ident *b)
{
	if (a->perm_addr[0] && b->perm_addr[0])
		return !strcmp(a->perm_addr, b->perm_addr);
	if (a->perm_addr[0] || b->perm_addr[0])
		return false;
	return a->ifindex == b->ifindex && a->netns_cookie == b->netns_cookie &&
	       !strcmp(a->boot_id, b->boot_id);
}

struct journal_entry *jr_find_entry(struct journal *j, const struct journal_ident *id)
{
	int i;

	for (i = 0; i < j->n_ents; i++)
		if (journal_ident_same(&j->ents[i].id, id))
			return &j->ents[i];
	return NULL;
}

struct journal_inflight *jr_find_op(struct journal *j, const struct journal_ident *id)
{
	int i;

	for (i = 0; i < j->n_ops; i++)
		if (journal_ident_same(&j->ops[i].id, id))
			return &j->ops[i];
	return NULL;
}

void jr_drop_op(struct journal *j, struct journal_inflight *op)
{
	memmove(op, op + 1, (j->ops + j->n_ops - (op + 1)) * sizeof(*op));
	j->n_ops--;
}

/* starttime (field 22 of /proc/PID/stat), 0 when the process is gone or a zombie. */
uint64_t jr_proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (jr_read_small_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %c", &state) != 1 || state == 'Z' || state == 'X')
		return 0;
	p += 2;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	return start;
}

bool jr_op_alive(const struct journal_inflight *op)
{
	uint64_t start;

	if (strcmp(op->id.boot_id, jr_boot_id()))
		return false;
	start = jr_proc_start_time(op->pid);
	return start && (!op->pid_start || start == op->pid_start);
}
