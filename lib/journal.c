// SPDX-License-Identifier: GPL-2.0-only
/*
 * The state journal: originals and in-flight operations in STATE/journal (rewritten
 * whole, atomically, on every change), the decision log in STATE/log (appended), one
 * flock on STATE/lock. Format and rules: docs/journal.md.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtltune/journal.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* asm-generic value; 5.14+ */
#endif
#ifndef MAX_ADDR_LEN
#define MAX_ADDR_LEN 32 /* include/linux/netdevice.h */
#endif

/* LINK_UNSET (rtltune/link.h): a value the kernel does not report. */
#define JOURNAL_UNKNOWN (-1)

#define JOURNAL_MAGIC	"rtltune-journal"
#define JOURNAL_VERSION 1
#define LOG_MAGIC	"rtltune-log"
#define LOG_VERSION	1
/* Far beyond any real host (a few hundred bytes per device); more is not ours. */
#define JOURNAL_MAX_BYTES  (4 << 20)
#define JOURNAL_MAX_LINE   1024
#define JOURNAL_MAX_TOKENS 16
/* Rotate the log past this size (keeping one old file, log.1). */
#define LOG_MAX_BYTES  (4 << 20)
#define LOG_MAX_LINE   4096
#define LOG_MAX_REASON 1024

struct journal {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	char tmp_path[PATH_MAX + 16];
	char lock_path[PATH_MAX + 16];
	char log_path[PATH_MAX + 16];
	int dir_fd;
	int lock_fd; /* -1: read-only state dir without a lock file, nobody can write */
	int log_fd;
	struct journal_entry *ents;
	int n_ents;
	struct journal_inflight *ops;
	int n_ops;
	bool inflight_optional;	    /* journal_set_inflight_optional() */
	struct rterr inflight_skip; /* the last in-flight write skipped */
};

/* ---- small helpers ---------------------------------------------------------------- */

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_us(int64_t us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Kernel rule for interface names (dev_valid_name): 1..15 bytes, no '/', ':' or space. */
static bool ifname_ok(const char *s)
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
static bool word_ok(const char *s, size_t max)
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

static bool knob_value_ok(enum knob_id k, int64_t v)
{
	if (knob_type(k) == KNOB_T_BOOL)
		return v == 0 || v == 1;
	return v >= 0 && v <= UINT32_MAX;
}

static int read_small_file(const char *path, char *buf, size_t len)
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

/* ---- test hooks ------------------------------------------------------------------- */

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{"EIO", EIO},	    {"ENOSPC", ENOSPC}, {"EROFS", EROFS},   {"EDQUOT", EDQUOT},
	{"EACCES", EACCES}, {"EPERM", EPERM},	{"ENOMEM", ENOMEM}, {"EBUSY", EBUSY},
	{"EINVAL", EINVAL}, {"ENODEV", ENODEV},
};

/* Find "point" or "point=ARG" in a comma-separated list; *arg gets ARG or NULL. */
static bool hook_find(const char *list, const char *point, char *arg, size_t arglen)
{
	size_t plen = strlen(point);
	const char *p = list;

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) >= plen && !strncmp(p, point, plen) &&
		    (p + plen == end || p[plen] == '=')) {
			arg[0] = '\0';
			if (p[plen] == '=') {
				size_t n = end - (p + plen + 1);

				if (n >= arglen)
					n = arglen - 1;
				memcpy(arg, p + plen + 1, n);
				arg[n] = '\0';
			}
			return true;
		}
		p = *end ? end + 1 : NULL;
	}
	return false;
}

int journal_test_hook(const char *point)
{
	const char *delay = getenv("RTLTUNE_TEST_DELAY");
	const char *fault = getenv("RTLTUNE_TEST_FAULT");
	char arg[32];
	size_t i;

	if (delay && hook_find(delay, point, arg, sizeof(arg)))
		sleep_us(strtol(arg, NULL, 10) * 1000LL);
	if (!fault || !hook_find(fault, point, arg, sizeof(arg)))
		return 0;
	if (!arg[0])
		return -EIO;
	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (!strcmp(arg, errno_names[i].name))
			return -errno_names[i].err;
	return atoi(arg) > 0 ? -atoi(arg) : -EIO;
}

/* ---- identity --------------------------------------------------------------------- */

static const char *boot_id(void)
{
	static char id[40];
	char buf[64];

	if (!id[0] && read_small_file("/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(id, sizeof(id), "%s", buf);
	}
	return id;
}

static int read_perm_addr(int sock, const char *ifname, char *out, size_t len)
{
	struct {
		struct ethtool_perm_addr pa;
		uint8_t data[MAX_ADDR_LEN];
	} req = {.pa = {.cmd = ETHTOOL_GPERMADDR, .size = MAX_ADDR_LEN}};
	struct ifreq ifr = {0};
	bool nonzero = false;
	size_t off = 0;
	unsigned int i;

	out[0] = '\0';
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&req;
	if (ioctl(sock, SIOCETHTOOL, &ifr) < 0)
		return errno == ENODEV ? -ENODEV : 0; /* no ethtool at all: no permanent address */
	for (i = 0; i < req.pa.size && i < MAX_ADDR_LEN; i++)
		nonzero |= req.data[i] != 0;
	/* Random-address devices (veth, bridge) report all zeroes. */
	for (i = 0; nonzero && i < req.pa.size && i < MAX_ADDR_LEN && off + 3 < len; i++)
		off += snprintf(out + off, len - off, "%s%02x", i ? ":" : "", req.data[i]);
	return 0;
}

/* The netns a socket lives in (SO_NETNS_COOKIE: never reused within a boot); 0 if unknown. */
static uint64_t netns_cookie_of(int sock)
{
	uint64_t cookie = 0;
	socklen_t olen = sizeof(cookie);

	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &olen) < 0)
		return 0;
	return cookie;
}

int journal_ident_read(const char *ifname, struct journal_ident *id, struct rterr *err)
{
	int sock, attempt, r = 0;

	memset(id, 0, sizeof(*id));
	if (!ifname_ok(ifname))
		return rterr_input(err, "invalid interface name '%s'", ifname ? ifname : "");
	snprintf(id->ifname, sizeof(id->ifname), "%s", ifname);
	snprintf(id->boot_id, sizeof(id->boot_id), "%s", boot_id());
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return rterr_sys(err, errno, "%s: socket", ifname);
	id->netns_cookie = netns_cookie_of(sock);
	/* The ioctl goes by name: make sure the index we record is the device we asked. */
	for (attempt = 0; attempt < 3; attempt++) {
		id->ifindex = if_nametoindex(ifname);
		if (!id->ifindex)
			break;
		r = read_perm_addr(sock, ifname, id->perm_addr, sizeof(id->perm_addr));
		if (r == 0 && (int)if_nametoindex(ifname) == id->ifindex)
			break;
		r = -EAGAIN;
	}
	close(sock);
	if (!id->ifindex || r == -ENODEV)
		return rterr_sys(err, ENODEV, "no such interface: %s", ifname);
	if (r < 0)
		return rterr_sys(err, -r, "%s: renamed while reading its identity", ifname);
	return 0;
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

/* Every field equal: nothing to rewrite (name, ifindex, netns and boot move). */
static bool ident_equal(const struct journal_ident *a, const struct journal_ident *b)
{
	return !strcmp(a->ifname, b->ifname) && a->ifindex == b->ifindex &&
	       a->netns_cookie == b->netns_cookie && !strcmp(a->perm_addr, b->perm_addr) &&
	       !strcmp(a->boot_id, b->boot_id);
}

static void ident_describe(const struct journal_ident *id, char *buf, size_t len)
{
	if (id->perm_addr[0])
		snprintf(buf, len, "%s, permanent address %s", id->ifname, id->perm_addr);
	else
		snprintf(buf, len, "%s, ifindex %d, netns %" PRIu64 ", boot %.8s", id->ifname,
			 id->ifindex, id->netns_cookie, id->boot_id[0] ? id->boot_id : "?");
}

/* ---- process liveness (for in-flight records) ------------------------------------- */

/* starttime (field 22 of /proc/PID/stat), 0 when the process is gone or a zombie. */
static uint64_t proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	char state;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
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

static bool op_alive(const struct journal_inflight *op)
{
	uint64_t start;

	if (strcmp(op->id.boot_id, boot_id()))
		return false;
	start = proc_start_time(op->pid);
	return start && (!op->pid_start || start == op->pid_start);
}

static bool op_mine(const struct journal_inflight *op)
{
	return op->pid == getpid() && op->pid_start == proc_start_time(getpid()) &&
	       !strcmp(op->id.boot_id, boot_id());
}

/* ---- parsing ---------------------------------------------------------------------- */

struct parser {
	const char *path;
	unsigned int line;
	struct rterr *err;
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rterr_input(p->err, "%s:%u: %s; refusing to trust this journal", p->path, p->line,
			   what);
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool perm_addr_ok(const char *s)
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

static bool boot_id_ok(const char *s)
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

/* Bits for the identity keys a block header must carry. */
enum {
	K_IFINDEX = 1,
	K_NETNS = 2,
	K_PERM = 4,
	K_BOOT = 8,
	K_SINCE = 16,
	K_OP = 32,
	K_ACTOR = 64,
	K_PID = 128,
	K_PIDSTART = 256
};

/* One key=value of an "iface" or "inflight" line. */
static int parse_attr(struct parser *p, const char *tok, struct journal_ident *id, int64_t *since,
		      struct journal_inflight *op, unsigned int *seen)
{
	const char *eq = strchr(tok, '=');
	char key[16];
	const char *val;
	unsigned int bit;
	uint64_t u;
	int64_t v;

	if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof(key))
		return perr(p, "expected key=value, got '%s'", tok);
	memcpy(key, tok, eq - tok);
	key[eq - tok] = '\0';
	val = eq + 1;
	if (!strcmp(key, "ifindex")) {
		bit = K_IFINDEX;
		if (parse_i64(val, &v) || v <= 0 || v > INT_MAX)
			return perr(p, "ifindex must be a positive integer, got '%s'", val);
		id->ifindex = (int)v;
	} else if (!strcmp(key, "netns")) {
		bit = K_NETNS;
		if (parse_u64(val, &id->netns_cookie))
			return perr(p, "netns must be an unsigned integer, got '%s'", val);
	} else if (!strcmp(key, "perm")) {
		bit = K_PERM;
		if (strcmp(val, "-") && !perm_addr_ok(val))
			return perr(p, "perm must be '-' or a lowercase aa:bb:.. address, got '%s'",
				    val);
		snprintf(id->perm_addr, sizeof(id->perm_addr), "%s", strcmp(val, "-") ? val : "");
	} else if (!strcmp(key, "boot")) {
		bit = K_BOOT;
		if (strcmp(val, "-") && !boot_id_ok(val))
			return perr(p, "boot must be '-' or a boot id (uuid), got '%s'", val);
		snprintf(id->boot_id, sizeof(id->boot_id), "%s", strcmp(val, "-") ? val : "");
	} else if (!strcmp(key, "since")) {
		bit = K_SINCE;
		if (parse_i64(val, since) || *since < 0)
			return perr(p, "since must be a unix time, got '%s'", val);
	} else if (op && !strcmp(key, "op")) {
		bit = K_OP;
		if (!word_ok(val, sizeof(op->op)))
			return perr(p, "op must be a short lowercase word, got '%s'", val);
		strcpy(op->op, val);
	} else if (op && !strcmp(key, "actor")) {
		bit = K_ACTOR;
		if (!word_ok(val, sizeof(op->actor)))
			return perr(p, "actor must be a short lowercase word, got '%s'", val);
		strcpy(op->actor, val);
	} else if (op && !strcmp(key, "pid")) {
		bit = K_PID;
		if (parse_i64(val, &v) || v <= 0 || v > INT_MAX)
			return perr(p, "pid must be a positive integer, got '%s'", val);
		op->pid = (pid_t)v;
	} else if (op && !strcmp(key, "pidstart")) {
		bit = K_PIDSTART;
		if (parse_u64(val, &u))
			return perr(p, "pidstart must be an unsigned integer, got '%s'", val);
		op->pid_start = u;
	} else {
		return perr(p, "unknown key '%s'", key);
	}
	if (*seen & bit)
		return perr(p, "key '%s' given twice", key);
	*seen |= bit;
	return 0;
}

static int grow(void *arr, int n, size_t size)
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

static struct journal_entry *find_entry(struct journal *j, const struct journal_ident *id)
{
	int i;

	for (i = 0; i < j->n_ents; i++)
		if (journal_ident_same(&j->ents[i].id, id))
			return &j->ents[i];
	return NULL;
}

static struct journal_inflight *find_op(struct journal *j, const struct journal_ident *id)
{
	int i;

	for (i = 0; i < j->n_ops; i++)
		if (journal_ident_same(&j->ops[i].id, id))
			return &j->ops[i];
	return NULL;
}

static int tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return -1;
		tok[n++] = t;
	}
	return n;
}

/* A block's last line passed: does it hold what it must? */
static int block_done(struct parser *p, int kind, unsigned int start_line, int count)
{
	unsigned int line = p->line;
	int r = 0;

	if (kind && !count) {
		p->line = start_line;
		r = perr(p, "%s has no %s lines", kind == 1 ? "iface" : "inflight",
			 kind == 1 ? "orig" : "pre");
		p->line = line;
	}
	return r;
}

static int parse_knob_line(struct parser *p, char **tok, int ntok, bool *have, int64_t *vals)
{
	int64_t v;
	int k;

	if (ntok != 3)
		return perr(p, "expected '%s KNOB VALUE'", tok[0]);
	k = knob_from_name(tok[1]);
	if (k < 0)
		return perr(p, "unknown knob '%s'", tok[1]);
	if (parse_i64(tok[2], &v) || !knob_value_ok(k, v))
		return perr(p, "value '%s' out of range for %s", tok[2], tok[1]);
	if (have[k])
		return perr(p, "knob %s given twice", tok[1]);
	have[k] = true;
	vals[k] = v;
	return 0;
}

static int parse_journal(struct journal *j, char *buf, size_t len, struct rterr *err)
{
	struct parser p = {.path = j->path, .line = 1, .err = err};
	unsigned int block_line = 0, records = 0;
	int block = 0, block_count = 0, r, ntok;
	char *line = buf, *nl, *nul, *tok[JOURNAL_MAX_TOKENS];
	bool ended = false;

	if (len == 0)
		return perr(&p, "empty file (torn write?)");
	nul = memchr(buf, '\0', len);
	if (nul) {
		for (nl = buf; nl < nul; nl++)
			p.line += *nl == '\n';
		return perr(&p, "NUL byte (torn or not a text file)");
	}
	if (buf[len - 1] != '\n') {
		for (nl = buf; nl < buf + len - 1; nl++)
			p.line += *nl == '\n';
		return perr(&p, "last line has no newline: the file was cut short (torn write)");
	}
	buf[len - 1] = '\0';
	for (;; line = nl + 1, p.line++) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strlen(line) > JOURNAL_MAX_LINE)
			return perr(&p, "line longer than %d bytes", JOURNAL_MAX_LINE);
		if (p.line == 1) {
			unsigned int ver;
			char extra;

			if (sscanf(line, JOURNAL_MAGIC " %u%c", &ver, &extra) != 1)
				return perr(&p,
					    "not an rtltune journal (first line must be '%s %d')",
					    JOURNAL_MAGIC, JOURNAL_VERSION);
			if (ver != JOURNAL_VERSION)
				return perr(&p,
					    "unknown journal version %u (this rtltune reads %d)",
					    ver, JOURNAL_VERSION);
			goto next;
		}
		if (ended)
			return perr(&p, "data after the 'end' line");
		if (line[strspn(line, " \t")] == '#')
			goto next;
		ntok = tokenize(line, tok, JOURNAL_MAX_TOKENS);
		if (ntok < 0)
			return perr(&p, "too many fields");
		if (ntok == 0)
			goto next;
		if (!strcmp(tok[0], "iface") || !strcmp(tok[0], "inflight")) {
			bool is_op = tok[0][1] == 'n';
			struct journal_ident id = {0};
			struct journal_inflight op = {0};
			unsigned int seen = 0, need;
			int64_t since = 0;
			int i;

			r = block_done(&p, block, block_line, block_count);
			if (r)
				return r;
			if (ntok < 2 || !ifname_ok(tok[1]))
				return perr(
					&p,
					"expected '%s IFNAME key=value...', got an invalid name",
					tok[0]);
			snprintf(id.ifname, sizeof(id.ifname), "%s", tok[1]);
			for (i = 2; i < ntok; i++) {
				r = parse_attr(&p, tok[i], &id, &since, is_op ? &op : NULL, &seen);
				if (r)
					return r;
			}
			need = K_IFINDEX | K_NETNS | K_PERM | K_BOOT | K_SINCE;
			if (is_op)
				need |= K_OP | K_ACTOR | K_PID | K_PIDSTART;
			if ((seen & need) != need)
				return perr(&p, "%s line lacks a key (needs %s)", tok[0],
					    is_op ? "ifindex netns perm boot since op actor pid "
						    "pidstart"
						  : "ifindex netns perm boot since");
			if (is_op ? !!find_op(j, &id) : !!find_entry(j, &id))
				return perr(&p, "second %s block for the same device %s", tok[0],
					    id.ifname);
			if (is_op) {
				if (grow(&j->ops, j->n_ops, sizeof(*j->ops)))
					return rterr_sys(err, ENOMEM, "%s", j->path);
				op.id = id;
				op.since = since;
				j->ops[j->n_ops++] = op;
			} else {
				if (grow(&j->ents, j->n_ents, sizeof(*j->ents)))
					return rterr_sys(err, ENOMEM, "%s", j->path);
				j->ents[j->n_ents] =
					(struct journal_entry){.id = id, .since = since};
				j->n_ents++;
			}
			block = is_op ? 2 : 1;
			block_line = p.line;
			block_count = 0;
		} else if (!strcmp(tok[0], "orig") || !strcmp(tok[0], "pre")) {
			bool is_pre = tok[0][0] == 'p';

			if (block != (is_pre ? 2 : 1))
				return perr(&p, "'%s' outside an %s block", tok[0],
					    is_pre ? "inflight" : "iface");
			if (is_pre)
				r = parse_knob_line(&p, tok, ntok, j->ops[j->n_ops - 1].which,
						    j->ops[j->n_ops - 1].pre);
			else
				r = parse_knob_line(&p, tok, ntok, j->ents[j->n_ents - 1].have,
						    j->ents[j->n_ents - 1].orig);
			if (r)
				return r;
			block_count++;
		} else if (!strcmp(tok[0], "end")) {
			int64_t n;

			r = block_done(&p, block, block_line, block_count);
			if (r)
				return r;
			block = 0;
			if (ntok != 2 || parse_i64(tok[1], &n))
				return perr(&p, "expected 'end RECORDS'");
			if (n != records)
				return perr(&p, "'end' says %" PRId64 " records, the file holds %u",
					    n, records);
			ended = true;
			goto next;
		} else {
			return perr(&p, "unknown record '%s'", tok[0]);
		}
		records++;
	next:
		if (!nl)
			break;
	}
	if (!ended)
		return perr(&p, "no 'end' line: the file was cut short (torn write)");
	return 0;
}

static int load_journal(struct journal *j, struct rterr *err)
{
	struct stat st;
	char *buf;
	ssize_t got = 0;
	size_t len = 0;
	int fd, r;

	fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return rterr_sys(err, errno, "cannot open journal %s", j->path);
	if (fstat(fd, &st) < 0) {
		r = rterr_sys(err, errno, "cannot stat journal %s", j->path);
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > JOURNAL_MAX_BYTES) {
		close(fd);
		return rterr_input(err, "%s:1: %s; refusing to trust this journal", j->path,
				   S_ISREG(st.st_mode) ? "larger than 4 MiB"
						       : "not a regular file");
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return rterr_sys(err, ENOMEM, "%s", j->path);
	}
	while (len < (size_t)st.st_size) {
		got = read(fd, buf + len, st.st_size - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += got;
	}
	if (got < 0)
		r = rterr_sys(err, errno, "cannot read journal %s", j->path);
	else
		r = parse_journal(j, buf, len, err);
	free(buf);
	close(fd);
	return r;
}

/* ---- writing ---------------------------------------------------------------------- */

static void put_ident(FILE *f, const char *kw, const struct journal_ident *id, int64_t since)
{
	fprintf(f, "%s %s ifindex=%d netns=%" PRIu64 " perm=%s boot=%s since=%" PRId64, kw,
		id->ifname, id->ifindex, id->netns_cookie, id->perm_addr[0] ? id->perm_addr : "-",
		id->boot_id[0] ? id->boot_id : "-", since);
}

static char *serialize(struct journal *j, size_t *len)
{
	unsigned int records = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int i, k;

	if (!f)
		return NULL;
	fprintf(f, "%s %d\n", JOURNAL_MAGIC, JOURNAL_VERSION);
	fprintf(f,
		"# rtltune state journal (docs/journal.md): the values `rtltune restore` "
		"returns to.\n# Rewritten atomically under %s; edit only when no rtltune "
		"runs, and keep the 'end' count right.\n",
		j->lock_path);
	for (i = 0; i < j->n_ents; i++) {
		put_ident(f, "iface", &j->ents[i].id, j->ents[i].since);
		fputc('\n', f);
		records++;
		for (k = 0; k < KNOB__COUNT; k++) {
			if (!j->ents[i].have[k])
				continue;
			fprintf(f, "\torig %s %" PRId64 "\n", knob_name(k), j->ents[i].orig[k]);
			records++;
		}
	}
	for (i = 0; i < j->n_ops; i++) {
		const struct journal_inflight *op = &j->ops[i];

		put_ident(f, "inflight", &op->id, op->since);
		fprintf(f, " op=%s actor=%s pid=%d pidstart=%" PRIu64 "\n", op->op, op->actor,
			(int)op->pid, op->pid_start);
		records++;
		for (k = 0; k < KNOB__COUNT; k++) {
			if (!op->which[k])
				continue;
			fprintf(f, "\tpre %s %" PRId64 "\n", knob_name(k), op->pre[k]);
			records++;
		}
	}
	fprintf(f, "end %u\n", records);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		buf += w;
		len -= w;
	}
	return 0;
}

/*
 * Make the in-memory journal the one on disk: temp file, fsync, rename over, fsync dir.
 * A crash at any point leaves either the old or the new file, never a mix.
 */
static int commit(struct journal *j, bool *visible, struct rterr *err)
{
	const char *step = "write";
	size_t len;
	char *buf = serialize(j, &len);
	int fd = -1, r;

	if (!buf)
		return rterr_sys(err, ENOMEM, "cannot build journal %s", j->path);
	r = journal_test_hook("journal_write");
	if (!r) {
		fd = open(j->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
		r = fd < 0 ? -errno : write_all(fd, buf, len);
	}
	free(buf);
	if (!r) {
		step = "fsync";
		r = journal_test_hook("journal_fsync");
		if (!r && fsync(fd) < 0)
			r = -errno;
	}
	if (fd >= 0 && close(fd) < 0 && !r)
		r = -errno;
	if (!r) {
		step = "rename";
		r = journal_test_hook("journal_rename");
		if (!r && rename(j->tmp_path, j->path) < 0)
			r = -errno;
	}
	if (r) {
		if (fd >= 0)
			unlink(j->tmp_path);
		return rterr_sys(err, r, "cannot %s journal %s (nothing changed)", step,
				 strcmp(step, "rename") ? j->tmp_path : j->path);
	}
	if (fsync(j->dir_fd) < 0) {
		/* The new file is in place, so memory keeps matching it; durability is unsure. */
		*visible = true;
		return rterr_sys(err, errno, "cannot fsync state dir %s", j->dir);
	}
	journal_test_hook("journal_committed");
	return 0;
}

/* Copy of the tables, so a failed commit leaves memory as the disk is. */
struct snapshot {
	struct journal_entry *ents;
	struct journal_inflight *ops;
	int n_ents, n_ops;
};

static int snapshot_take(struct journal *j, struct snapshot *s, struct rterr *err)
{
	s->n_ents = j->n_ents;
	s->n_ops = j->n_ops;
	s->ents = malloc((j->n_ents + 1) * sizeof(*s->ents));
	s->ops = malloc((j->n_ops + 1) * sizeof(*s->ops));
	if (!s->ents || !s->ops) {
		free(s->ents);
		free(s->ops);
		return rterr_sys(err, ENOMEM, "%s", j->path);
	}
	/* An empty journal has NULL arrays: memcpy() from NULL is undefined even for 0. */
	if (j->n_ents)
		memcpy(s->ents, j->ents, j->n_ents * sizeof(*s->ents));
	if (j->n_ops)
		memcpy(s->ops, j->ops, j->n_ops * sizeof(*s->ops));
	return 0;
}

/* Commit; on failure put the snapshot back. Frees the snapshot either way. */
static int commit_or_undo(struct journal *j, struct snapshot *s, struct rterr *err)
{
	bool visible = false;
	int r = commit(j, &visible, err);

	if (r && !visible) {
		/* The arrays only grew since the snapshot, so they are large enough (and
		 * may still be NULL when the snapshot was empty). */
		if (s->n_ents)
			memcpy(j->ents, s->ents, s->n_ents * sizeof(*s->ents));
		if (s->n_ops)
			memcpy(j->ops, s->ops, s->n_ops * sizeof(*s->ops));
		j->n_ents = s->n_ents;
		j->n_ops = s->n_ops;
	}
	free(s->ents);
	free(s->ops);
	return r;
}

/* ---- open / close ----------------------------------------------------------------- */

static int mkdir_state(const char *dir, struct rterr *err)
{
	char path[PATH_MAX], *p;
	struct stat st;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return rterr_sys(err, ENOTDIR, "state dir %s", dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return rterr_sys(err, errno, "cannot create %s for state dir %s", path,
					 dir);
		*p = '/';
	}
	if (mkdir(path, 0750) < 0 && errno != EEXIST)
		return rterr_sys(err, errno, "cannot create state dir %s", dir);
	return 0;
}

static void lock_holder(const char *lock_path, char *buf, size_t len)
{
	char pidbuf[32], path[64], comm[32] = "";
	int pid;

	snprintf(buf, len, "another process");
	if (read_small_file(lock_path, pidbuf, sizeof(pidbuf)) <= 0 ||
	    sscanf(pidbuf, "%d", &pid) != 1 || pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_small_file(path, comm, sizeof(comm)) > 0)
		comm[strcspn(comm, "\n")] = '\0';
	snprintf(buf, len, "pid %d%s%s%s", pid, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
}

static int lock_state(struct journal *j, int timeout_ms, struct rterr *err)
{
	int64_t deadline = mono_us() + (timeout_ms > 0 ? timeout_ms : 0) * 1000LL;
	bool writable = true;
	char holder[96], pid[24];
	int fd;

	fd = open(j->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0 && (errno == EROFS || errno == EACCES)) {
		/* Readers still work on a read-only state dir; no writer can exist there. */
		writable = false;
		fd = open(j->lock_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == ENOENT)
			return 0;
	}
	if (fd < 0)
		return rterr_sys(err, errno, "cannot open lock %s", j->lock_path);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		int64_t left = deadline - mono_us();

		if (e == EINTR)
			continue;
		if (e != EWOULDBLOCK || left <= 0) {
			e = e == EWOULDBLOCK ? EBUSY : e;

			close(fd);
			lock_holder(j->lock_path, holder, sizeof(holder));
			if (e != EBUSY)
				return rterr_sys(err, e, "cannot lock %s", j->lock_path);
			return rterr_sys(err, e,
					 "state dir %s is locked by %s; gave up after %d ms",
					 j->dir, holder, timeout_ms);
		}
		/* flock has no timeout: poll, at most 10 ms late, never early. */
		sleep_us(left < 10000 ? left : 10000);
	}
	if (writable) {
		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, strlen(pid), 0) < 0) {
			/* Only informative (names the holder to waiters); the flock is the lock. */
		}
	}
	j->lock_fd = fd;
	return 0;
}

int journal_open_timeout(const char *state_dir, int timeout_ms, struct journal **jp,
			 struct rterr *err)
{
	struct journal *j;
	int i, r;

	*jp = NULL;
	if (!state_dir || !*state_dir)
		return rterr_input(err, "empty state directory");
	if (strlen(state_dir) >= PATH_MAX)
		return rterr_input(err, "state directory path too long: %.64s...", state_dir);
	j = calloc(1, sizeof(*j));
	if (!j)
		return rterr_sys(err, ENOMEM, "journal");
	j->dir_fd = j->lock_fd = j->log_fd = -1;
	snprintf(j->dir, sizeof(j->dir), "%s", state_dir);
	snprintf(j->path, sizeof(j->path), "%s/journal", state_dir);
	snprintf(j->tmp_path, sizeof(j->tmp_path), "%s/journal.tmp", state_dir);
	snprintf(j->lock_path, sizeof(j->lock_path), "%s/lock", state_dir);
	snprintf(j->log_path, sizeof(j->log_path), "%s/log", state_dir);
	r = mkdir_state(state_dir, err);
	if (r)
		goto fail;
	j->dir_fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dir_fd < 0) {
		r = rterr_sys(err, errno, "cannot open state dir %s", state_dir);
		goto fail;
	}
	r = lock_state(j, timeout_ms, err);
	if (r)
		goto fail;
	journal_test_hook("journal_locked");
	r = load_journal(j, err);
	if (r)
		goto fail;
	for (i = 0; i < j->n_ops; i++)
		j->ops[i].orphaned = !op_alive(&j->ops[i]);
	*jp = j;
	return 0;
fail:
	journal_close(j);
	return r;
}

int journal_open(const char *state_dir, struct journal **j, struct rterr *err)
{
	return journal_open_timeout(state_dir, JOURNAL_LOCK_TIMEOUT_MS, j, err);
}

void journal_close(struct journal *j)
{
	if (!j)
		return;
	if (j->log_fd >= 0)
		close(j->log_fd);
	if (j->lock_fd >= 0)
		close(j->lock_fd); /* releases the flock */
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	free(j->ents);
	free(j->ops);
	free(j);
}

const char *journal_path(const struct journal *j)
{
	return j->path;
}

/* ---- originals -------------------------------------------------------------------- */

static int check_ident(const struct journal_ident *id, struct rterr *err)
{
	if (!id || !ifname_ok(id->ifname))
		return rterr_input(err, "invalid interface name '%s'", id ? id->ifname : "");
	if ((id->perm_addr[0] && !perm_addr_ok(id->perm_addr)) ||
	    (id->boot_id[0] && !boot_id_ok(id->boot_id)) || id->ifindex <= 0)
		return rterr_input(err, "%s: malformed identity (use journal_ident_read)",
				   id->ifname);
	return 0;
}

/*
 * A value the kernel does not report (JOURNAL_UNKNOWN) is skipped: the knob does not
 * exist there, so nothing changes it. Anything else out of range is refused, since it
 * could not be restored.
 */
static int check_values(const struct journal_ident *id, const int64_t values[KNOB__COUNT],
			const bool which[KNOB__COUNT], struct rterr *err)
{
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && values[k] != JOURNAL_UNKNOWN && !knob_value_ok(k, values[k]))
			return rterr_input(err,
					   "%s: current %s %" PRId64 " is out of range; cannot "
					   "journal it, so not changing it",
					   id->ifname, knob_name(k), values[k]);
	return 0;
}

/* Whether device id's journaled originals include every knob in which[] it reports. */
static bool originals_cover(struct journal *j, const struct journal_ident *id,
			    const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT])
{
	const struct journal_entry *e = find_entry(j, id);
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		if (which[k] && values[k] != JOURNAL_UNKNOWN && (!e || !e->have[k]))
			return false;
	return true;
}

/*
 * Add to the in-memory journal the originals in which[] that device id does not have
 * yet, and refresh its name/ifindex (rename, reboot). *changed says whether a commit is
 * needed.
 */
static int stage_originals(struct journal *j, const struct journal_ident *id,
			   const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
			   bool *changed, struct rterr *err)
{
	struct journal_entry *e = find_entry(j, id);
	int k, r = check_values(id, values, which, err);

	if (r)
		return r;
	if (!e) {
		for (k = 0; k < KNOB__COUNT && (!which[k] || values[k] == JOURNAL_UNKNOWN); k++)
			;
		if (k == KNOB__COUNT)
			return 0;
		if (grow(&j->ents, j->n_ents, sizeof(*j->ents)))
			return rterr_sys(err, ENOMEM, "%s", j->path);
		e = &j->ents[j->n_ents++];
		*e = (struct journal_entry){.id = *id, .since = now_us() / 1000000};
		*changed = true;
	} else if (!ident_equal(&e->id, id)) {
		e->id = *id;
		*changed = true;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || e->have[k] || values[k] == JOURNAL_UNKNOWN)
			continue;
		e->have[k] = true;
		e->orig[k] = values[k];
		*changed = true;
	}
	return 0;
}

int journal_record_originals(struct journal *j, const struct journal_ident *id,
			     const int64_t values[KNOB__COUNT], const bool which[KNOB__COUNT],
			     struct rterr *err)
{
	struct snapshot s;
	bool changed = false;
	int r = check_ident(id, err);

	if (r)
		return r;
	r = snapshot_take(j, &s, err);
	if (r)
		return r;
	r = stage_originals(j, id, values, which, &changed, err);
	if (r || !changed) {
		if (r) {
			j->n_ents = s.n_ents;
			memcpy(j->ents, s.ents, s.n_ents * sizeof(*s.ents));
		}
		free(s.ents);
		free(s.ops);
		return r;
	}
	return commit_or_undo(j, &s, err);
}

int journal_get_originals(struct journal *j, const struct journal_ident *id,
			  int64_t values[KNOB__COUNT], bool have[KNOB__COUNT], struct rterr *err)
{
	const struct journal_entry *e = find_entry(j, id);
	char then[160], now[160];
	int i;

	memset(have, 0, KNOB__COUNT * sizeof(*have));
	if (e) {
		memcpy(have, e->have, sizeof(e->have));
		memcpy(values, e->orig, sizeof(e->orig));
		return 1;
	}
	for (i = 0; i < j->n_ents; i++) {
		if (strcmp(j->ents[i].id.ifname, id->ifname))
			continue;
		ident_describe(&j->ents[i].id, then, sizeof(then));
		ident_describe(id, now, sizeof(now));
		rterr_input(err,
			    "%s: the journal's originals are for another device (recorded: %s; "
			    "now: %s); not restoring them",
			    id->ifname, then, now);
		if (err)
			err->errnum = ESTALE;
		return -ESTALE;
	}
	return 0;
}

/* Drop e's originals in which[] (NULL: all), and e itself once it has none left. */
static bool drop_originals(struct journal *j, struct journal_entry *e,
			   const bool which[KNOB__COUNT])
{
	bool changed = false, left = false;
	int k;

	for (k = 0; k < KNOB__COUNT; k++) {
		if (e->have[k] && (!which || which[k])) {
			e->have[k] = false;
			changed = true;
		}
		left |= e->have[k];
	}
	if (!left) {
		memmove(e, e + 1, (j->ents + j->n_ents - (e + 1)) * sizeof(*e));
		j->n_ents--;
	}
	return changed;
}

static void drop_op(struct journal *j, struct journal_inflight *op)
{
	memmove(op, op + 1, (j->ops + j->n_ops - (op + 1)) * sizeof(*op));
	j->n_ops--;
}

int journal_forget(struct journal *j, const struct journal_ident *id, const bool which[KNOB__COUNT],
		   struct rterr *err)
{
	struct journal_entry *e = find_entry(j, id);
	struct snapshot s;
	int r;

	if (!e)
		return 0;
	r = snapshot_take(j, &s, err);
	if (r)
		return r;
	if (!drop_originals(j, e, which)) {
		free(s.ents);
		free(s.ops);
		return 0;
	}
	return commit_or_undo(j, &s, err);
}

int journal_restore_done(struct journal *j, const struct journal_ident *id,
			 const bool which[KNOB__COUNT], struct rterr *err)
{
	struct journal_entry *e = find_entry(j, id);
	struct journal_inflight *op = find_op(j, id);
	struct snapshot s;
	bool changed = false;
	int r;

	if (!e && !op)
		return 0;
	r = snapshot_take(j, &s, err);
	if (r)
		return r;
	if (op) {
		drop_op(j, op);
		changed = true;
	}
	if (e && drop_originals(j, e, which))
		changed = true;
	if (!changed) {
		free(s.ents);
		free(s.ops);
		return 0;
	}
	return commit_or_undo(j, &s, err);
}

void journal_restore_note(struct journal *j, const struct journal_ident *id,
			  const struct rterr *failed, char *buf, size_t len)
{
	const struct journal_inflight *op = find_op(j, id);
	int n;

	n = snprintf(buf, len, "not updated: %s (state dir %s)",
		     failed->errnum ? strerror(failed->errnum) : failed->msg, j->dir);
	if (op && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; it still holds an in-flight %s by %s (pid %d)",
			 op->op, op->actor, (int)op->pid);
}

int journal_entries(struct journal *j, const struct journal_entry **entries)
{
	*entries = j->ents;
	return j->n_ents;
}

/* ---- devices that are gone -------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Whether id names a device gone from here; sorted[] holds here's ifindexes in order.
 * A permanent address follows its device across netns moves, replugs and reboots, so such
 * a record is never judged from one netns. Another boot's or another netns's record is not
 * ours to judge: their links are not in our list. A link that has the ifindex now is kept
 * whatever its identity: ifindexes are allocated cyclically, so it is most likely the very
 * device (one whose permanent address could not be read when it was recorded), and keeping
 * a record costs only space.
 */
static bool ident_gone(const struct journal_ident *id, const struct journal_here *here,
		       const int *sorted)
{
	if (id->perm_addr[0] || !here->boot_id[0] || !here->netns_cookie)
		return false;
	if (strcmp(id->boot_id, here->boot_id) || id->netns_cookie != here->netns_cookie)
		return false;
	return !bsearch(&id->ifindex, sorted, here->n_ifindexes, sizeof(*sorted), cmp_int);
}

int journal_gone_select(const struct journal_entry *ents, int n_ents,
			const struct journal_inflight *ops, int n_ops,
			const struct journal_here *here, bool *ent_gone, bool *op_gone)
{
	int *sorted = malloc(((size_t)(here->n_ifindexes > 0 ? here->n_ifindexes : 0) + 1) *
			     sizeof(*sorted));
	int i, k, n = 0;

	if (!sorted)
		return -ENOMEM;
	if (here->n_ifindexes > 0) {
		memcpy(sorted, here->ifindexes, here->n_ifindexes * sizeof(*sorted));
		qsort(sorted, here->n_ifindexes, sizeof(*sorted), cmp_int);
	}
	for (k = 0; k < n_ops; k++) {
		op_gone[k] = ops[k].orphaned && ident_gone(&ops[k].id, here, sorted);
		n += op_gone[k];
	}
	for (i = 0; i < n_ents; i++) {
		ent_gone[i] = ident_gone(&ents[i].id, here, sorted);
		/* A live operation on it still owns the device's records: its process ends
		 * them (rtltuned's trial, an apply that will fail with ENODEV). */
		for (k = 0; k < n_ops && ent_gone[i]; k++)
			if (!ops[k].orphaned && journal_ident_same(&ops[k].id, &ents[i].id))
				ent_gone[i] = false;
		n += ent_gone[i];
	}
	free(sorted);
	return n;
}

static uint64_t current_netns_cookie(void)
{
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint64_t cookie;

	if (sock < 0)
		return 0;
	cookie = netns_cookie_of(sock);
	close(sock);
	return cookie;
}

/* The kernel, asked by index in this netns, has no such link (glibc maps ENODEV to ENXIO). */
static bool ifindex_absent(int ifindex)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ifindex, name))
		return false;
	return errno == ENXIO || errno == ENODEV;
}

static void log_gone(struct journal *j, const struct journal_gone *g, const char *actor)
{
	const struct journal_ident *id = &g->entry.id;
	struct journal_event ev = {.ifname = id->ifname,
				   .new_value = JOURNAL_NO_VALUE,
				   .outcome = "forgotten",
				   .actor = actor};
	char reason[256];
	int k;

	ev.reason = g->reason;
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!g->entry.have[k])
			continue;
		ev.knob = k;
		ev.old_value = g->entry.orig[k];
		journal_log_append(j, &ev, NULL);
	}
	if (!g->had_inflight)
		return;
	snprintf(reason, sizeof(reason),
		 "%s; the %s by %s (pid %d) interrupted on it ended with it", g->reason, g->op.op,
		 g->op.actor, (int)g->op.pid);
	ev.reason = reason;
	ev.knob = -1;
	ev.old_value = JOURNAL_NO_VALUE;
	journal_log_append(j, &ev, NULL);
}

int journal_forget_gone(struct journal *j, const int *ifindexes, int n_ifindexes, const char *actor,
			struct journal_gone **gone, struct rterr *err)
{
	struct journal_here here = {.netns_cookie = current_netns_cookie(),
				    .ifindexes = ifindexes,
				    .n_ifindexes = n_ifindexes};
	bool *ent_gone = calloc((size_t)j->n_ents + 1, sizeof(bool));
	bool *op_gone = calloc((size_t)j->n_ops + 1, sizeof(bool));
	struct journal_gone *list = NULL;
	struct snapshot s;
	int i, k, n = 0, before, r;

	if (gone)
		*gone = NULL;
	if (!ent_gone || !op_gone) {
		r = rterr_sys(err, ENOMEM, "%s", j->path);
		goto out;
	}
	if (!word_ok(actor, 16)) {
		r = rterr_input(err, "invalid actor '%s'", actor ? actor : "");
		goto out;
	}
	snprintf(here.boot_id, sizeof(here.boot_id), "%s", boot_id());
	for (k = 0; k < j->n_ops; k++)
		j->ops[k].orphaned = !op_mine(&j->ops[k]) && !op_alive(&j->ops[k]);
	r = journal_gone_select(j->ents, j->n_ents, j->ops, j->n_ops, &here, ent_gone, op_gone);
	if (r <= 0) {
		if (r < 0)
			rterr_sys(err, -r, "%s", j->path);
		goto out;
	}
	/* The list was the caller's; the kernel's word on each absence is the proof. */
	for (i = 0; i < j->n_ents; i++)
		ent_gone[i] = ent_gone[i] && ifindex_absent(j->ents[i].id.ifindex);
	for (k = 0; k < j->n_ops; k++)
		op_gone[k] = op_gone[k] && ifindex_absent(j->ops[k].id.ifindex);
	list = calloc((size_t)j->n_ents + j->n_ops + 1, sizeof(*list));
	if (!list) {
		r = rterr_sys(err, ENOMEM, "%s", j->path);
		goto out;
	}
	for (i = 0; i < j->n_ents; i++) {
		if (!ent_gone[i])
			continue;
		list[n].entry = j->ents[i];
		for (k = 0; k < j->n_ops; k++) {
			if (op_gone[k] && journal_ident_same(&j->ops[k].id, &j->ents[i].id)) {
				list[n].had_inflight = true;
				list[n].op = j->ops[k];
				op_gone[k] = false; /* reported with its entry; dropped below */
			}
		}
		n++;
	}
	for (k = 0; k < j->n_ops; k++) {
		if (!op_gone[k])
			continue;
		list[n].entry =
			(struct journal_entry){.id = j->ops[k].id, .since = j->ops[k].since};
		list[n].had_inflight = true;
		list[n].op = j->ops[k];
		n++;
	}
	for (i = 0; i < n; i++)
		snprintf(list[i].reason, sizeof(list[i].reason),
			 "device gone (ifindex %d in this netns no longer exists)",
			 list[i].entry.id.ifindex);
	r = 0;
	if (!n)
		goto out;
	r = snapshot_take(j, &s, err);
	if (r)
		goto out;
	before = j->n_ents + j->n_ops;
	/* From the end, so the indexes of what is still to drop do not move. */
	for (i = j->n_ents - 1; i >= 0; i--)
		if (ent_gone[i])
			drop_originals(j, &j->ents[i], NULL);
	for (i = 0; i < n; i++) {
		struct journal_inflight *op =
			list[i].had_inflight ? find_op(j, &list[i].op.id) : NULL;

		if (op)
			drop_op(j, op);
	}
	r = commit_or_undo(j, &s, err);
	if (r && j->n_ents + j->n_ops == before)
		goto out; /* undone: the records stay, on disk and in memory */
	/* Written (even when only the directory's fsync failed): the log keeps the values. */
	for (i = 0; i < n; i++)
		log_gone(j, &list[i], actor);
	if (r)
		goto out;
	r = n;
	if (gone) {
		*gone = list;
		list = NULL;
	}
out:
	free(list);
	free(ent_gone);
	free(op_gone);
	return r;
}

/* ---- in-flight operations --------------------------------------------------------- */

void journal_set_inflight_optional(struct journal *j, bool optional)
{
	j->inflight_optional = optional;
}

int journal_inflight_skipped(const struct journal *j, struct rterr *err)
{
	if (err && j->inflight_skip.errnum)
		*err = j->inflight_skip;
	return j->inflight_skip.errnum;
}

/*
 * Commit an in-flight change. On a handle where in-flight records are optional, a state
 * dir that cannot take the write (full, read-only, over quota, failing) is noted and the
 * change skipped: commit_or_undo() has left memory equal to the disk. may_skip is false
 * when the write would also journal a new original, which nothing may do without.
 */
static int commit_inflight(struct journal *j, struct snapshot *s, bool may_skip, struct rterr *err)
{
	struct rterr e = {0};
	int r = commit_or_undo(j, s, &e);

	if (!r)
		return 0;
	if (may_skip && j->inflight_optional &&
	    (r == -ENOSPC || r == -EROFS || r == -EDQUOT || r == -EIO)) {
		j->inflight_skip = e;
		return 0;
	}
	if (err)
		*err = e;
	return r;
}

int journal_inflight_begin(struct journal *j, const struct journal_ident *id, const char *op_name,
			   const char *actor, const int64_t pre[KNOB__COUNT],
			   const bool which[KNOB__COUNT], struct rterr *err)
{
	struct journal_inflight *op;
	struct snapshot s;
	bool changed = false, covered;
	int k, r = check_ident(id, err);

	if (r)
		return r;
	if (!word_ok(op_name, sizeof(op->op)) || !word_ok(actor, sizeof(op->actor)))
		return rterr_input(err, "%s: invalid operation '%s' or actor '%s'", id->ifname,
				   op_name ? op_name : "", actor ? actor : "");
	r = check_values(id, pre, which, err);
	if (r)
		return r;
	op = find_op(j, id);
	if (op && !op_mine(op) && op_alive(op))
		return rterr_sys(err, EBUSY, "%s: %s by %s (pid %d) in progress", id->ifname,
				 op->op, op->actor, (int)op->pid);
	covered = originals_cover(j, id, pre, which);
	r = snapshot_take(j, &s, err);
	if (r)
		return r;
	if (op && !op_mine(op)) {
		/*
		 * Adopt an interrupted operation: its pre-values are older than ours, and a
		 * crash of this one too must roll back to them, so they are kept.
		 */
		op->id = *id;
		op->pid = getpid();
		op->pid_start = proc_start_time(getpid());
		op->orphaned = false;
		snprintf(op->op, sizeof(op->op), "%s", op_name);
		snprintf(op->actor, sizeof(op->actor), "%s", actor);
		changed = true;
	} else if (!op) {
		if (grow(&j->ops, j->n_ops, sizeof(*j->ops))) {
			free(s.ents);
			free(s.ops);
			return rterr_sys(err, ENOMEM, "%s", j->path);
		}
		op = &j->ops[j->n_ops++];
		*op = (struct journal_inflight){.id = *id,
						.pid = getpid(),
						.pid_start = proc_start_time(getpid()),
						.since = now_us() / 1000000};
		snprintf(op->op, sizeof(op->op), "%s", op_name);
		snprintf(op->actor, sizeof(op->actor), "%s", actor);
		changed = true;
	}
	for (k = 0; k < KNOB__COUNT; k++) {
		if (!which[k] || op->which[k] || pre[k] == JOURNAL_UNKNOWN)
			continue;
		op->which[k] = true;
		op->pre[k] = pre[k];
		changed = true;
	}
	for (k = 0; k < KNOB__COUNT && !op->which[k]; k++)
		;
	if (k == KNOB__COUNT) /* nothing known to change: no record (the parser wants one) */
		changed = false;
	r = stage_originals(j, id, pre, which, &changed, err);
	if (r || !changed) {
		j->n_ents = s.n_ents;
		j->n_ops = s.n_ops;
		memcpy(j->ents, s.ents, s.n_ents * sizeof(*s.ents));
		memcpy(j->ops, s.ops, s.n_ops * sizeof(*s.ops));
		free(s.ents);
		free(s.ops);
		return r;
	}
	return commit_inflight(j, &s, covered, err);
}

int journal_inflight_end(struct journal *j, const struct journal_ident *id, struct rterr *err)
{
	struct journal_inflight *op = find_op(j, id);
	struct snapshot s;
	int r;

	if (!op)
		return 0;
	r = snapshot_take(j, &s, err);
	if (r)
		return r;
	drop_op(j, op);
	return commit_inflight(j, &s, true, err);
}

int journal_inflight_get(struct journal *j, const struct journal_ident *id,
			 struct journal_inflight *out)
{
	struct journal_inflight *op = find_op(j, id);

	if (!op)
		return 0;
	op->orphaned = !op_mine(op) && !op_alive(op);
	*out = *op;
	return 1;
}

int journal_inflight_list(struct journal *j, const struct journal_inflight **ops)
{
	int i;

	for (i = 0; i < j->n_ops; i++)
		j->ops[i].orphaned = !op_mine(&j->ops[i]) && !op_alive(&j->ops[i]);
	*ops = j->ops;
	return j->n_ops;
}

/* ---- decision log ----------------------------------------------------------------- */

static int log_open(struct journal *j, struct rterr *err)
{
	char header[32], last, old[sizeof(j->log_path) + 2];
	struct stat st;
	int n;

	for (;;) {
		if (j->log_fd < 0) {
			/* O_RDWR, not O_WRONLY: pread() checks how the last record ended. */
			j->log_fd =
				open(j->log_path,
				     O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
			if (j->log_fd < 0)
				return rterr_sys(err, errno, "cannot open log %s", j->log_path);
		}
		if (fstat(j->log_fd, &st) < 0)
			return rterr_sys(err, errno, "cannot stat log %s", j->log_path);
		if (st.st_size <= LOG_MAX_BYTES)
			break;
		/* Writers hold the lock, so nobody appends to the old file after this. */
		snprintf(old, sizeof(old), "%s.1", j->log_path);
		if (rename(j->log_path, old) < 0)
			return rterr_sys(err, errno, "cannot rotate log %s", j->log_path);
		close(j->log_fd);
		j->log_fd = -1;
	}
	if (st.st_size == 0) {
		n = snprintf(header, sizeof(header), "%s %d\n", LOG_MAGIC, LOG_VERSION);
		n = write_all(j->log_fd, header, n);
		return n ? rterr_sys(err, n, "cannot write log %s", j->log_path) : 0;
	}
	/* A crash mid-append left a partial line: end it, so the next record stays whole. */
	if (pread(j->log_fd, &last, 1, st.st_size - 1) == 1 && last != '\n') {
		n = write_all(j->log_fd, "\n", 1);
		if (n)
			return rterr_sys(err, n, "cannot write log %s", j->log_path);
	}
	return 0;
}

static void iso_time(int64_t us, char *buf, size_t len)
{
	time_t secs = us / 1000000;
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

static json_object *value_json(int64_t v)
{
	return v == JOURNAL_NO_VALUE ? NULL : json_object_new_int64(v);
}

int journal_log_append(struct journal *j, const struct journal_event *ev, struct rterr *err)
{
	int64_t ts = ev->ts_us ? ev->ts_us : now_us();
	char when[40], reason[LOG_MAX_REASON + 1];
	const char *line;
	json_object *o;
	char *buf;
	size_t len;
	int r;

	if (ev->ifname && *ev->ifname && !ifname_ok(ev->ifname))
		return rterr_input(err, "log: invalid interface name '%s'", ev->ifname);
	if (ev->knob >= KNOB__COUNT || ev->knob < -1)
		return rterr_input(err, "log: invalid knob %d", ev->knob);
	if (!word_ok(ev->outcome, 32) || !word_ok(ev->actor, 16))
		return rterr_input(err, "log: outcome '%s' and actor '%s' must be short words",
				   ev->outcome ? ev->outcome : "", ev->actor ? ev->actor : "");
	r = journal_test_hook("journal_log");
	if (r)
		return rterr_sys(err, r, "cannot append to log %s", j->log_path);
	iso_time(ts, when, sizeof(when));
	o = json_object_new_object();
	if (!o)
		return rterr_sys(err, ENOMEM, "log");
	json_object_object_add(o, "ts_us", json_object_new_int64(ts));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "actor", json_object_new_string(ev->actor));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(
		o, "iface", ev->ifname && *ev->ifname ? json_object_new_string(ev->ifname) : NULL);
	json_object_object_add(o, "knob",
			       ev->knob >= 0 ? json_object_new_string(knob_name(ev->knob)) : NULL);
	json_object_object_add(o, "old", value_json(ev->old_value));
	json_object_object_add(o, "new", value_json(ev->new_value));
	json_object_object_add(o, "outcome", json_object_new_string(ev->outcome));
	if (ev->reason) {
		/* Bounded so one record is one write well under any pipe or line limit. */
		snprintf(reason, sizeof(reason), "%s", ev->reason);
		json_object_object_add(o, "reason", json_object_new_string(reason));
	} else {
		json_object_object_add(o, "reason", NULL);
	}
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	len = strlen(line);
	buf = malloc(len + 2);
	if (!buf) {
		json_object_put(o);
		return rterr_sys(err, ENOMEM, "log");
	}
	memcpy(buf, line, len);
	buf[len++] = '\n';
	json_object_put(o);
	r = log_open(j, err);
	/* One write(2) with O_APPEND: a record is never interleaved with another. */
	if (!r && (r = write_all(j->log_fd, buf, len)))
		rterr_sys(err, r, "cannot append to log %s", j->log_path);
	free(buf);
	return r;
}

/* A record as written by journal_log_append(); false for anything else. */
static bool log_record(json_object *o, struct journal_event *ev)
{
	json_object *v;
	const char *s;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(o, json_type_object))
		return false;
	if (!json_object_object_get_ex(o, "ts_us", &v) || !json_object_is_type(v, json_type_int))
		return false;
	ev->ts_us = json_object_get_int64(v);
	if (!json_object_object_get_ex(o, "actor", &v) || !json_object_is_type(v, json_type_string))
		return false;
	ev->actor = json_object_get_string(v);
	if (!json_object_object_get_ex(o, "outcome", &v) ||
	    !json_object_is_type(v, json_type_string))
		return false;
	ev->outcome = json_object_get_string(v);
	if (json_object_object_get_ex(o, "pid", &v) && json_object_is_type(v, json_type_int))
		ev->pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "iface", &v) && json_object_is_type(v, json_type_string))
		ev->ifname = json_object_get_string(v);
	ev->knob = -1;
	if (json_object_object_get_ex(o, "knob", &v) && v) {
		s = json_object_get_string(v);
		if (!json_object_is_type(v, json_type_string) || knob_from_name(s) < 0)
			return false;
		ev->knob = knob_from_name(s);
	}
	ev->old_value = ev->new_value = JOURNAL_NO_VALUE;
	if (json_object_object_get_ex(o, "old", &v) && json_object_is_type(v, json_type_int))
		ev->old_value = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "new", &v) && json_object_is_type(v, json_type_int))
		ev->new_value = json_object_get_int64(v);
	if (json_object_object_get_ex(o, "reason", &v) && json_object_is_type(v, json_type_string))
		ev->reason = json_object_get_string(v);
	return true;
}

/*
 * Deliver the complete lines of fd after cur->offset. *stop is set when cb asked to
 * stop. Returns records delivered or a negative errno.
 */
static int log_read_fd(int fd, const char *path, struct journal_log_cursor *cur,
		       int (*cb)(const struct journal_event *ev, void *arg), void *arg, bool *stop,
		       struct rterr *err)
{
	char chunk[65536], *line = NULL;
	size_t used = 0, cap = 0;
	int delivered = 0, r = 0;
	ssize_t got;

	for (;;) {
		char *nl, *start;

		got = pread(fd, chunk, sizeof(chunk), cur->offset + used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = rterr_sys(err, errno, "cannot read log %s", path);
			break;
		}
		if (got == 0)
			break;
		if (used + got + 1 > cap) {
			char *bigger = realloc(line, used + got + 1);

			if (!bigger) {
				r = rterr_sys(err, ENOMEM, "%s", path);
				break;
			}
			line = bigger;
			cap = used + got + 1;
		}
		memcpy(line + used, chunk, got);
		used += got;
		line[used] = '\0';
		start = line;
		while ((nl = memchr(start, '\n', line + used - start))) {
			size_t llen = nl - start;
			struct journal_event ev;
			json_object *o = NULL;

			*nl = '\0';
			cur->line++;
			if (cur->line == 1) {
				unsigned int ver;
				char extra;

				if (sscanf(start, LOG_MAGIC " %u%c", &ver, &extra) != 1) {
					r = rterr_input(err,
							"%s:1: not an rtltune log (first line "
							"must be '%s %d')",
							path, LOG_MAGIC, LOG_VERSION);
				} else if (ver != LOG_VERSION) {
					r = rterr_input(err,
							"%s:1: unknown log version %u (this "
							"rtltune reads %d)",
							path, ver, LOG_VERSION);
				}
				if (r) {
					cur->line = 0;
					goto out;
				}
			} else if (llen) {
				if (llen <= LOG_MAX_LINE && !memchr(start, '\0', llen))
					o = json_tokener_parse(start);
				if (o && log_record(o, &ev)) {
					delivered++;
					cur->offset += nl + 1 - start;
					start = nl + 1;
					*stop = cb(&ev, arg) != 0;
					json_object_put(o);
					if (*stop)
						goto out;
					continue;
				}
				json_object_put(o);
				if (!cur->skipped++)
					cur->first_bad = cur->line;
			}
			cur->offset += nl + 1 - start;
			start = nl + 1;
		}
		/* Keep the partial last line (a record being appended right now). */
		memmove(line, start, line + used - start);
		used = line + used - start;
		if (used > LOG_MAX_LINE + 1) {
			/* No newline in sight: not a record; skip it like any unreadable one. */
			if (!cur->skipped++)
				cur->first_bad = cur->line + 1;
			cur->offset += used;
			used = 0;
		}
	}
out:
	free(line);
	return r ? r : delivered;
}

int journal_log_read(const char *state_dir, struct journal_log_cursor *cur,
		     int (*cb)(const struct journal_event *ev, void *arg), void *arg,
		     struct rterr *err)
{
	char path[PATH_MAX + 16], old[PATH_MAX + 16];
	int fd, r, total = 0;
	struct stat st;
	bool stop = false;

	snprintf(path, sizeof(path), "%s/log", state_dir);
	snprintf(old, sizeof(old), "%s/log.1", state_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : rterr_sys(err, errno, "cannot open log %s", path);
	if (fstat(fd, &st) < 0) {
		r = rterr_sys(err, errno, "cannot stat log %s", path);
		close(fd);
		return r;
	}
	if (cur->ino && (cur->ino != st.st_ino || cur->dev != st.st_dev)) {
		/* Rotated since the last call: finish the old file first. */
		int ofd = open(old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		struct stat ost;

		if (ofd >= 0 && fstat(ofd, &ost) == 0 && ost.st_ino == cur->ino &&
		    ost.st_dev == cur->dev) {
			r = log_read_fd(ofd, old, cur, cb, arg, &stop, err);
			if (r < 0 || stop) {
				close(ofd);
				close(fd);
				return r;
			}
			total += r;
		}
		if (ofd >= 0)
			close(ofd);
		cur->offset = 0;
		cur->line = 0;
	} else if (cur->offset > st.st_size) {
		cur->offset = 0; /* replaced by a shorter file */
		cur->line = 0;
	}
	cur->dev = st.st_dev;
	cur->ino = st.st_ino;
	r = log_read_fd(fd, path, cur, cb, arg, &stop, err);
	close(fd);
	return r < 0 ? r : total + r;
}
