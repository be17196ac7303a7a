// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's text format, version 1 (docs/journal.md "Journal format"): the parser,
 * which refuses anything torn or hostile naming file:line, and the serializer.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal_priv.h"

#define JOURNAL_MAX_LINE   1024
#define JOURNAL_MAX_TOKENS 16

struct parser {
	const char *path;
	unsigned int line;
	struct rterr *err;
};

/*
 * What to do is the same for every cause, and the same text for the CLI and rtltuned: the
 * file is never repaired or replaced automatically, since it may hold the only record of
 * the originals (docs/journal.md "An untrusted journal"). Short enough for one line of
 * rtltuned's log (320 bytes) with the default path and a parser's longest complaint.
 */
int jr_untrusted(struct rterr *err, const char *path, unsigned int line, const char *what)
{
	rterr_input(err,
		    "%s:%u: %s; refusing to trust this journal, nothing changed. Correct that "
		    "line or move the file aside (restore then forgets its originals), then try "
		    "again; rtltuned checks again on reload",
		    path, line, what);
	if (err)
		err->errnum = EBADMSG;
	return -EBADMSG;
}

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return jr_untrusted(p->err, p->path, p->line, what);
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
		/* 0 is the host's own record (journal_ident_host()), checked with its name. */
		if (parse_i64(val, &v) || v < 0 || v > INT_MAX)
			return perr(p, "ifindex must be a positive integer, got '%s'", val);
		id->ifindex = (int)v;
	} else if (!strcmp(key, "netns")) {
		bit = K_NETNS;
		if (parse_u64(val, &id->netns_cookie))
			return perr(p, "netns must be an unsigned integer, got '%s'", val);
	} else if (!strcmp(key, "perm")) {
		bit = K_PERM;
		if (strcmp(val, "-") && !jr_perm_addr_ok(val))
			return perr(p, "perm must be '-' or a lowercase aa:bb:.. address, got '%s'",
				    val);
		snprintf(id->perm_addr, sizeof(id->perm_addr), "%s", strcmp(val, "-") ? val : "");
	} else if (!strcmp(key, "boot")) {
		bit = K_BOOT;
		if (strcmp(val, "-") && !jr_boot_id_ok(val))
			return perr(p, "boot must be '-' or a boot id (uuid), got '%s'", val);
		snprintf(id->boot_id, sizeof(id->boot_id), "%s", strcmp(val, "-") ? val : "");
	} else if (!strcmp(key, "since")) {
		bit = K_SINCE;
		if (parse_i64(val, since) || *since < 0)
			return perr(p, "since must be a unix time, got '%s'", val);
	} else if (op && !strcmp(key, "op")) {
		bit = K_OP;
		if (!jr_word_ok(val, sizeof(op->op)))
			return perr(p, "op must be a short lowercase word, got '%s'", val);
		strcpy(op->op, val);
	} else if (op && !strcmp(key, "actor")) {
		bit = K_ACTOR;
		if (!jr_word_ok(val, sizeof(op->actor)))
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

static int parse_knob_line(struct parser *p, char **tok, int ntok, const struct journal_ident *id,
			   bool *have, int64_t *vals)
{
	int64_t v;
	int k;

	if (ntok != 3)
		return perr(p, "expected '%s KNOB VALUE'", tok[0]);
	k = knob_from_name(tok[1]);
	if (k < 0)
		return perr(p, "unknown knob '%s'", tok[1]);
	if (knob_is_host((enum knob_id)k) != journal_ident_is_host(id))
		return perr(p, "%s in the block of %s: %s", tok[1],
			    journal_ident_is_host(id) ? "the host" : "a device",
			    journal_ident_is_host(id) ? "only host-wide knobs belong there"
						      : "a host-wide knob belongs to the host's");
	if (parse_i64(tok[2], &v) || !knob_value_valid(k, v))
		return perr(p, "value '%s' out of range for %s", tok[2], tok[1]);
	if (have[k])
		return perr(p, "knob %s given twice", tok[1]);
	have[k] = true;
	vals[k] = v;
	return 0;
}

int jr_parse(struct journal *j, char *buf, size_t len, struct rterr *err)
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
			if (ntok < 2 || !jr_ifname_ok(tok[1]))
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
			if (journal_ident_is_host(&id) && !jr_host_ok(&id))
				return perr(&p,
					    "ifindex=0 is the host's record only ('%s %s ifindex=0 "
					    "... perm=-')",
					    tok[0], KNOB_HOST_NAME);
			if (is_op ? !!jr_find_op(j, &id) : !!jr_find_entry(j, &id))
				return perr(&p, "second %s block for the same device %s", tok[0],
					    id.ifname);
			if (is_op) {
				if (jr_grow(&j->ops, j->n_ops, sizeof(*j->ops)))
					return rterr_sys(err, ENOMEM, "%s", j->path);
				op.id = id;
				op.since = since;
				j->ops[j->n_ops++] = op;
			} else {
				if (jr_grow(&j->ents, j->n_ents, sizeof(*j->ents)))
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
				r = parse_knob_line(&p, tok, ntok, &j->ops[j->n_ops - 1].id,
						    j->ops[j->n_ops - 1].which,
						    j->ops[j->n_ops - 1].pre);
			else
				r = parse_knob_line(&p, tok, ntok, &j->ents[j->n_ents - 1].id,
						    j->ents[j->n_ents - 1].have,
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

/* ---- writing ---------------------------------------------------------------------- */

static void put_ident(FILE *f, const char *kw, const struct journal_ident *id, int64_t since)
{
	fprintf(f, "%s %s ifindex=%d netns=%" PRIu64 " perm=%s boot=%s since=%" PRId64, kw,
		id->ifname, id->ifindex, id->netns_cookie, id->perm_addr[0] ? id->perm_addr : "-",
		id->boot_id[0] ? id->boot_id : "-", since);
}

char *jr_serialize(struct journal *j, size_t *len)
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
