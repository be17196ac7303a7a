// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chip database: chips/NAME.conf files (docs/chips.md) parsed with inih, matched
 * against an interface's driver / PCI identity / firmware string.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "rtltune/chipdb.h"
#include "rtltune/inifile.h"
#include "rtltune/link.h"
#include "rtltune/nic.h"
#include "rtltune/paths.h"
#include "rtltune/pmqos.h"

static const struct {
	const char *name;
	const char *description;
} quirk_info[CHIP_QUIRK_COUNT] = {
	{"jumbo-disables-tso", "MTU above 1500 forces TSO and TX checksumming off"},
	{"jumbo-disables-pause", "MTU above 1500 stops pause frames (flow control)"},
	{"tso-ipv4-only", "TSO covers IPv4 only; IPv6 TCP is segmented in software"},
	{"mtu-change-needs-link-down", "MTU changes are refused (EBUSY) while the link is up"},
	{"mtu-change-resets-link", "an MTU change resets the link or rebuilds the queues"},
	{"tso-off-by-default", "the driver leaves TSO off at probe"},
	{"tso-retransmit-storm", "field reports of heavy TCP retransmits with TSO on"},
	{"no-native-xdp", "no native XDP (generic XDP only)"},
	{"needs-small-gso", "slow parts do better with small GSO packets"},
	{"big-tcp-needs-hbh", "IPv6 BIG TCP carries a hop-by-hop jumbo header (older kernels)"},
	{"xdp-caps-mtu", "attaching XDP lowers the maximum MTU"},
	{"tune-with-master", "traffic also crosses a paired/master netdev: tune both"},
	{"tso-drops-options", "no TSO for packets with IP or TCP options"},
	{"mtu-change-may-fail", "an MTU change reallocates buffers and can fail (ENOMEM)"},
	{"gro-off-by-default", "GRO is off until enabled"},
	{"judge-slowly", "throughput is noisy: judge changes over long, repeated windows"},
	{"coalesce-reset-by-driver",
	 "the driver rewrites interrupt coalescing on open, reset or resume: re-applied, not "
	 "taken for an admin's change"},
	{"usecs-need-adaptive-off",
	 "rx/tx-usecs change only in the request that turns adaptive moderation off"},
	{"queue-change-resets-link",
	 "a ring or channel change rebuilds the queues: traffic stops for a moment"},
	{"tx-coalesce-follows-rx",
	 "TX and RX share interrupt vectors: tx-usecs must stay 0, rx-usecs moderates both"},
	{"shallow-idle", "needs shallow CPU idle: rtltuned holds PM QoS cpu_dma_latency"},
};

static const char *const limit_names[CHIP_LIMIT__COUNT] = {
	[CHIP_LIMIT_MAX_MTU] = "max_mtu",	    [CHIP_LIMIT_TSO_MAX_SIZE] = "tso_max_size",
	[CHIP_LIMIT_TSO_MAX_SEGS] = "tso_max_segs", [CHIP_LIMIT_GSO_MAX_SIZE] = "gso_max_size",
	[CHIP_LIMIT_GRO_MAX_SIZE] = "gro_max_size",
};

static int quirk_index(enum chip_quirk q)
{
	int i;

	for (i = 0; i < CHIP_QUIRK_COUNT; i++)
		if ((uint32_t)q == 1u << i)
			return i;
	return -1;
}

const char *chip_quirk_name(enum chip_quirk q)
{
	int i = quirk_index(q);

	return i < 0 ? "?" : quirk_info[i].name;
}

const char *chip_quirk_description(enum chip_quirk q)
{
	int i = quirk_index(q);

	return i < 0 ? "?" : quirk_info[i].description;
}

int chip_quirk_from_name(const char *name)
{
	int i;

	for (i = 0; i < CHIP_QUIRK_COUNT; i++)
		if (strcmp(quirk_info[i].name, name) == 0)
			return (int)(1u << i);
	return -1;
}

const char *chip_limit_name(enum chip_limit l)
{
	return (unsigned int)l < CHIP_LIMIT__COUNT ? limit_names[l] : "?";
}

const char *chip_limit_source_name(enum chip_limit_source s)
{
	switch (s) {
	case CHIP_SRC_KERNEL:
		return "kernel";
	case CHIP_SRC_TABLE:
		return "chip";
	default:
		return "none";
	}
}

int64_t chip_limit(const struct chip_entry *e, enum chip_limit l)
{
	if (!e || (unsigned int)l >= CHIP_LIMIT__COUNT)
		return LINK_UNSET;
	return e->limits[l];
}

int64_t chip_knob_max(const struct chip_entry *e, enum knob_id k)
{
	unsigned int i;

	for (i = 0; e && i < e->n_maxes; i++)
		if (e->maxes[i].knob == k)
			return e->maxes[i].value;
	return LINK_UNSET;
}

int chip_hint(const struct chip_entry *e, const char *profile, enum knob_id knob,
	      struct knob_value *out)
{
	unsigned int i;

	if (!e || !profile)
		return -ENOENT;
	for (i = 0; i < e->n_hints; i++) {
		if (e->hints[i].knob == knob && strcmp(e->hints[i].profile, profile) == 0) {
			*out = e->hints[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

struct chipdb *chipdb_new(void)
{
	return calloc(1, sizeof(struct chipdb));
}

static void entry_release(struct chip_entry *e)
{
	free(e->hints);
	e->hints = NULL;
	e->n_hints = 0;
	free(e->maxes);
	e->maxes = NULL;
	e->n_maxes = 0;
}

void chipdb_free(struct chipdb *db)
{
	unsigned int i;

	if (!db)
		return;
	for (i = 0; i < db->n; i++)
		entry_release(&db->entries[i]);
	free(db->entries);
	paths_free(db->files);
	free(db);
}

const struct chip_entry *chipdb_find(const struct chipdb *db, const char *id)
{
	unsigned int i;

	for (i = 0; db && i < db->n; i++)
		if (strcmp(db->entries[i].id, id) == 0)
			return &db->entries[i];
	return NULL;
}

/* ---- parsing ---------------------------------------------------------------------- */

/* Keys that may appear once per entry; their first line is kept for duplicate errors. */
enum chip_key {
	KEY_NAME,
	KEY_DRIVER,
	KEY_PCI,
	KEY_REVISION,
	KEY_FIRMWARE,
	KEY_LIMIT0, /* + enum chip_limit */
	KEY_BIG_TCP = KEY_LIMIT0 + CHIP_LIMIT__COUNT,
	KEY_CPU_DMA_LATENCY,
	KEY__COUNT
};

#define KNOWN_KEYS                                                                                 \
	"name, driver, pci, revision, firmware, max_mtu, tso_max_size, tso_max_segs, "             \
	"gso_max_size, gro_max_size, big_tcp, quirks, cpu_dma_latency_us, note, "                  \
	"hint.PROFILE.KNOB, max.KNOB"

struct parser {
	struct chipdb *db;
	const char *path;
	struct inifile ini;
	struct rterr *err;
	unsigned int line;
	unsigned int fail_line; /* 0 while no error */
	int cur;		/* index of the entry being read, -1 before the first section */
	bool indented;		/* the current line starts with blanks: inih continues a value */
	unsigned int key_line[KEY__COUNT];
};

static int parse_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int parse_fail(struct parser *p, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (p->fail_line)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->fail_line = p->line ? p->line : 1;
	return rterr_input(p->err, "%s:%u: %s", p->path, p->fail_line, msg);
}

static struct chip_entry *cur_entry(struct parser *p)
{
	return p->cur < 0 ? NULL : &p->db->entries[p->cur];
}

/* A finished [section] must say what it matches; checked when the next one starts. */
static int entry_finish(struct parser *p)
{
	struct chip_entry *e = cur_entry(p);
	unsigned int saved = p->line;
	int64_t gso, tso;
	int r = 0;

	if (!e)
		return 0;
	/* Report against the entry's own header line. */
	p->line = e->line;
	if (!(e->fields & (CHIP_F_DRIVER | CHIP_F_PCI)))
		r = parse_fail(p, "[%s] matches nothing: expected 'driver =' or 'pci =' (or both)",
			       e->id);
	else if ((e->fields & CHIP_F_REVISION) && !(e->fields & CHIP_F_PCI))
		r = parse_fail(p,
			       "[%s] has 'revision =' without 'pci =': a revision only means "
			       "something for one vendor:device",
			       e->id);
	if (r < 0)
		goto out;
	gso = e->limits[CHIP_LIMIT_GSO_MAX_SIZE];
	tso = e->limits[CHIP_LIMIT_TSO_MAX_SIZE];
	p->line = p->key_line[KEY_LIMIT0 + CHIP_LIMIT_GSO_MAX_SIZE];
	if (gso != LINK_UNSET && tso != LINK_UNSET && gso > tso)
		r = parse_fail(p,
			       "gso_max_size %lld is above tso_max_size %lld: expected at most "
			       "%lld (the kernel refuses more)",
			       (long long)gso, (long long)tso, (long long)tso);
	else if (gso != LINK_UNSET && e->big_tcp == 0 && gso > GSO_LEGACY_MAX_SIZE)
		r = parse_fail(p, "gso_max_size %lld contradicts big_tcp = no: expected at most %d",
			       (long long)gso, GSO_LEGACY_MAX_SIZE);
	if (r < 0)
		goto out;
	/* The value only means something to rtltuned's PM QoS request, which the quirk asks
	 * for: without it the number would silently do nothing. */
	p->line = p->key_line[KEY_CPU_DMA_LATENCY];
	if (e->cpu_dma_latency_us >= 0 && !chip_has_quirk(e, CHIP_Q_SHALLOW_IDLE))
		r = parse_fail(p,
			       "cpu_dma_latency_us without quirk shallow-idle: expected 'quirks = "
			       "shallow-idle' in [%s] (the value is what that quirk holds)",
			       e->id);
	if (r < 0)
		goto out;
	if (!e->name[0])
		snprintf(e->name, sizeof(e->name), "%s", e->id);
	e->score = ((e->fields & CHIP_F_DRIVER) ? CHIP_SCORE_DRIVER : 0) +
		   ((e->fields & CHIP_F_PCI) ? CHIP_SCORE_PCI : 0) +
		   ((e->fields & CHIP_F_REVISION) ? CHIP_SCORE_REVISION : 0) +
		   ((e->fields & CHIP_F_FIRMWARE) ? CHIP_SCORE_FIRMWARE : 0);
out:
	p->line = saved;
	return r;
}

static bool valid_id(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= sizeof(((struct chip_entry *)0)->id))
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return false;
	}
	return true;
}

/* "[id]" at the start of line s. */
static int section_begin(struct parser *p, char *s)
{
	struct chip_entry *grown, *e;
	const struct chip_entry *dup;
	char id[sizeof(((struct chip_entry *)0)->id)], *close, *rest;
	size_t len;
	int i;

	close = strchr(s, ']');
	if (!close)
		return parse_fail(p, "expected ']' closing the section name");
	for (rest = close + 1; *rest == ' ' || *rest == '\t'; rest++)
		;
	if (*rest && *rest != ';' && *rest != '#' && *rest != '\n' && *rest != '\r')
		return parse_fail(p, "unexpected text after ']': expected a comment or nothing");
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	len = (size_t)(close - s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!valid_id(s, len))
		return parse_fail(p,
				  "bad chip id '%.*s': expected lowercase letters, digits, '-', "
				  "'_' or '.' (at most %zu characters)",
				  (int)(len > 60 ? 60 : len), s, sizeof(e->id) - 1);
	memcpy(id, s, len);
	id[len] = '\0';
	if (entry_finish(p) < 0)
		return -EINVAL;
	dup = chipdb_find(p->db, id);
	if (dup)
		return parse_fail(p, "duplicate chip id '%s' (first defined at %s:%u)", id,
				  dup->file, dup->line);
	grown = realloc(p->db->entries, (p->db->n + 1) * sizeof(*grown));
	if (!grown) {
		p->fail_line = p->line;
		return rterr_sys(p->err, ENOMEM, "%s:%u", p->path, p->line);
	}
	p->db->entries = grown;
	e = &grown[p->db->n];
	memset(e, 0, sizeof(*e));
	memcpy(e->id, id, sizeof(e->id));
	snprintf(e->file, sizeof(e->file), "%s", p->path);
	e->line = p->line;
	e->big_tcp = -1;
	e->cpu_dma_latency_us = -1;
	for (i = 0; i < CHIP_LIMIT__COUNT; i++)
		e->limits[i] = LINK_UNSET;
	p->cur = (int)p->db->n++;
	memset(p->key_line, 0, sizeof(p->key_line));
	return 0;
}

/*
 * Each line before inih sees it (lib/base/inifile.c counts them): section headers, so
 * empty sections, duplicate ids and over-long lines are errors with a line number instead
 * of silent surprises.
 */
static char *chip_line(struct inifile *ini, char *str)
{
	struct parser *p = ini->user;
	char *s;

	p->line = ini->lineno;
	if (ini->too_long) {
		parse_fail(p,
			   "line longer than %u characters (split a long note over several "
			   "'note =' lines)",
			   ini->max_text);
		return NULL;
	}
	for (s = str; *s == ' ' || *s == '\t'; s++)
		;
	p->indented = s != str && !strchr(";#\r\n", *s);
	if (*s == '[') {
		if (s != str) {
			parse_fail(p, "indented '[': expected a section header at the start of "
				      "the line");
			return NULL;
		}
		if (section_begin(p, s) < 0)
			return NULL;
	}
	return str;
}

static int key_once(struct parser *p, enum chip_key k, const char *name)
{
	if (p->key_line[k] && p->indented)
		return parse_fail(p,
				  "indented line continues '%s': only note and quirks may go "
				  "on over indented lines",
				  name);
	if (p->key_line[k])
		return parse_fail(p, "duplicate key '%s' (first on line %u)", name, p->key_line[k]);
	p->key_line[k] = p->line;
	return 0;
}

static int copy_text(struct parser *p, char *dst, size_t size, const char *key, const char *v)
{
	if (!*v)
		return parse_fail(p, "%s: expected a value", key);
	if (strlen(v) >= size)
		return parse_fail(p, "%s: value too long (at most %zu characters)", key, size - 1);
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

/* Decimal or 0x hex with an optional K/M suffix (1024s), > 0 and < 2^32. */
static int parse_limit(const char *v, int64_t *out)
{
	unsigned long long n, mult = 1;
	char *end;

	if (!(*v >= '0' && *v <= '9'))
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1024 * 1024, end++;
	if (*end || n == 0 || n > UINT32_MAX / mult)
		return -EINVAL;
	*out = (int64_t)(n * mult);
	return 0;
}

static int parse_hex16(const char *s, size_t len, uint16_t *out)
{
	char buf[8], *end;
	unsigned long v;

	if (len == 0 || len > 4)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtoul(buf, &end, 16);
	if (*end)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

static int set_pci(struct parser *p, struct chip_entry *e, const char *v)
{
	const char *colon = strchr(v, ':');

	if (!colon || parse_hex16(v, (size_t)(colon - v), &e->pci_vendor) < 0 ||
	    parse_hex16(colon + 1, strlen(colon + 1), &e->pci_device) < 0)
		return parse_fail(p, "pci: expected vendor:device in hex like 10ec:8125, got '%s'",
				  v);
	e->fields |= CHIP_F_PCI;
	return 0;
}

/* Hex only: lspci prints "rev 15" for 0x15, and a decimal reading would silently differ. */
static int set_revisions(struct parser *p, struct chip_entry *e, const char *v)
{
	char buf[128], *tok, *save = NULL, *end;
	unsigned long r;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (strncasecmp(tok, "0x", 2) != 0 || !tok[2])
			goto bad;
		r = strtoul(tok + 2, &end, 16);
		if (*end || r > 0xff)
			goto bad;
		if (e->n_revisions == CHIP_MAX_REVISIONS)
			return parse_fail(p, "revision: at most %d revisions per entry",
					  CHIP_MAX_REVISIONS);
		e->revisions[e->n_revisions++] = (uint8_t)r;
	}
	if (!e->n_revisions)
		goto bad;
	e->fields |= CHIP_F_REVISION;
	return 0;
bad:
	return parse_fail(p,
			  "revision: expected PCI revisions in hex like 0x15 (lspci's "
			  "\"rev 15\"), comma-separated, got '%s'",
			  v);
}

static int set_quirks(struct parser *p, struct chip_entry *e, const char *v)
{
	char buf[512], names[CHIP_QUIRK_COUNT * 28], *tok, *save = NULL;
	size_t off = 0;
	int q, i;

	if (strlen(v) >= sizeof(buf))
		return parse_fail(p, "quirks: list too long");
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		q = chip_quirk_from_name(tok);
		if (q < 0) {
			names[0] = '\0';
			for (i = 0; i < CHIP_QUIRK_COUNT; i++)
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							i ? ", " : "", quirk_info[i].name);
			return parse_fail(p, "unknown quirk '%s' (expected one of: %s)", tok,
					  names);
		}
		e->quirks |= (uint32_t)q;
	}
	return 0;
}

static int set_bool(struct parser *p, int *dst, const char *key, const char *v)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on") ||
	    !strcmp(v, "1"))
		*dst = 1;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
		 !strcmp(v, "0"))
		*dst = 0;
	else
		return parse_fail(p, "%s: expected yes or no, got '%s'", key, v);
	return 0;
}

/* hint.PROFILE.KNOB = value */
static int add_hint(struct parser *p, struct chip_entry *e, const char *key, const char *v)
{
	const char *prof = key + 5, *dot = strchr(prof, '.');
	struct chip_hint h = {0}, *grown;
	char why[256];
	size_t plen;
	unsigned int i;
	int knob;

	if (!dot || dot == prof)
		return parse_fail(p, "%s: expected hint.PROFILE.KNOB = value", key);
	plen = (size_t)(dot - prof);
	if (plen >= sizeof(h.profile))
		return parse_fail(p, "%s: profile name too long (at most %zu characters)", key,
				  sizeof(h.profile) - 1);
	for (i = 0; i < plen; i++) {
		char c = prof[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_'))
			return parse_fail(p,
					  "%s: expected a profile name of letters, digits, "
					  "'-' or '_'",
					  key);
	}
	memcpy(h.profile, prof, plen);
	knob = knob_from_name(dot + 1);
	if (knob < 0)
		return parse_fail(p, "%s: unknown knob '%s' (expected one of: %s)", key, dot + 1,
				  knob_names_list());
	h.knob = (enum knob_id)knob;
	for (i = 0; i < e->n_hints; i++)
		if (e->hints[i].knob == h.knob && strcmp(e->hints[i].profile, h.profile) == 0)
			return parse_fail(p, "duplicate key '%s'", key);
	why[0] = '\0';
	if (knob_value_parse(h.knob, v, &h.value, why, sizeof(why)) < 0)
		return parse_fail(p, "%s: %s", key, why);
	grown = realloc(e->hints, (e->n_hints + 1) * sizeof(*grown));
	if (!grown) {
		p->fail_line = p->line;
		return rterr_sys(p->err, ENOMEM, "%s:%u", p->path, p->line);
	}
	e->hints = grown;
	e->hints[e->n_hints++] = h;
	return 0;
}

/* max.KNOB = N, for a number knob without a named limit of its own. */
static int add_max(struct parser *p, struct chip_entry *e, const char *key, const char *v)
{
	struct chip_knob_max *grown;
	int knob = knob_from_name(key + 4);
	unsigned int i;
	int64_t value;

	if (knob < 0)
		return parse_fail(p, "%s: unknown knob '%s' (expected one of: %s)", key, key + 4,
				  knob_names_list());
	if (knob_type((enum knob_id)knob) != KNOB_T_NUMBER ||
	    knob_desc((enum knob_id)knob)->limit >= 0)
		return parse_fail(p,
				  "%s: max. applies to number knobs without a limit key of their "
				  "own (%s has %s)",
				  key, key + 4,
				  knob_type((enum knob_id)knob) != KNOB_T_NUMBER
					  ? "on/off values"
					  : knob_desc((enum knob_id)knob)->limit_name);
	for (i = 0; i < e->n_maxes; i++)
		if (e->maxes[i].knob == (enum knob_id)knob)
			return parse_fail(p, "duplicate key '%s'", key);
	if (parse_limit(v, &value) < 0 || value > knob_desc((enum knob_id)knob)->max)
		return parse_fail(p,
				  "%s: expected a number up to %lld (decimal, 0x hex, optional K "
				  "or M suffix), got '%s'",
				  key, (long long)knob_desc((enum knob_id)knob)->max, v);
	grown = realloc(e->maxes, (e->n_maxes + 1) * sizeof(*grown));
	if (!grown) {
		p->fail_line = p->line;
		return rterr_sys(p->err, ENOMEM, "%s:%u", p->path, p->line);
	}
	e->maxes = grown;
	e->maxes[e->n_maxes++] = (struct chip_knob_max){(enum knob_id)knob, value};
	return 0;
}

static int set_key(struct parser *p, struct chip_entry *e, const char *key, const char *v)
{
	int i;

	if (strcmp(key, "note") == 0) {
		/* Repeated note lines (or inih continuation lines) accumulate. */
		size_t len = strlen(e->note);

		if (len + strlen(v) + 2 > sizeof(e->note))
			return parse_fail(p, "note: too long (at most %zu characters in all)",
					  sizeof(e->note) - 1);
		snprintf(e->note + len, sizeof(e->note) - len, "%s%s", len ? " " : "", v);
		return 0;
	}
	if (strncmp(key, "hint.", 5) == 0)
		return add_hint(p, e, key, v);
	if (strncmp(key, "max.", 4) == 0)
		return add_max(p, e, key, v);
	for (i = 0; i < CHIP_LIMIT__COUNT; i++) {
		if (strcmp(key, limit_names[i]) != 0)
			continue;
		if (key_once(p, KEY_LIMIT0 + i, key) < 0)
			return -EINVAL;
		if (parse_limit(v, &e->limits[i]) < 0)
			return parse_fail(
				p,
				"%s: expected a positive number (decimal, 0x hex, optional "
				"K or M suffix), got '%s'",
				key, v);
		return 0;
	}
	if (strcmp(key, "name") == 0)
		return key_once(p, KEY_NAME, key) ?: copy_text(p, e->name, sizeof(e->name), key, v);
	if (strcmp(key, "driver") == 0) {
		if (key_once(p, KEY_DRIVER, key) < 0 ||
		    copy_text(p, e->driver, sizeof(e->driver), key, v) < 0)
			return -EINVAL;
		if (strpbrk(v, " \t*?["))
			return parse_fail(p,
					  "driver: expected a driver name as ethtool -i prints "
					  "it (exact, no spaces or wildcards), got '%s'",
					  v);
		e->fields |= CHIP_F_DRIVER;
		return 0;
	}
	if (strcmp(key, "pci") == 0)
		return key_once(p, KEY_PCI, key) ?: set_pci(p, e, v);
	if (strcmp(key, "revision") == 0)
		return key_once(p, KEY_REVISION, key) ?: set_revisions(p, e, v);
	if (strcmp(key, "firmware") == 0) {
		if (key_once(p, KEY_FIRMWARE, key) < 0 ||
		    copy_text(p, e->firmware, sizeof(e->firmware), key, v) < 0)
			return -EINVAL;
		e->fields |= CHIP_F_FIRMWARE;
		return 0;
	}
	if (strcmp(key, "big_tcp") == 0)
		return key_once(p, KEY_BIG_TCP, key) ?: set_bool(p, &e->big_tcp, key, v);
	if (strcmp(key, "cpu_dma_latency_us") == 0) {
		if (key_once(p, KEY_CPU_DMA_LATENCY, key) < 0)
			return -EINVAL;
		if (pmqos_parse_us(v, &e->cpu_dma_latency_us) < 0)
			return parse_fail(p,
					  "cpu_dma_latency_us: expected microseconds from 0 to %d, "
					  "got '%s'",
					  PMQOS_MAX_US, v);
		return 0;
	}
	/* Like note, quirks accumulate over repeated or indented continuation lines. */
	if (strcmp(key, "quirks") == 0)
		return set_quirks(p, e, v);
	return parse_fail(p, "unknown key '%s' (expected one of: %s)", key, KNOWN_KEYS);
}

static int chip_handler(struct inifile *ini, const char *section, const char *name,
			const char *value)
{
	struct parser *p = ini->user;
	struct chip_entry *e = cur_entry(p);

	if (p->fail_line)
		return 0;
	if (!e) {
		/* The one file-level key: lets a newer format fail loudly on an older rtltune. */
		if (strcmp(name, "format") == 0) {
			if (strcmp(value, CHIPDB_FORMAT) == 0)
				return 1;
			parse_fail(p, "format: this rtltune reads chip file format %s, got '%s'",
				   CHIPDB_FORMAT, value);
			return 0;
		}
		parse_fail(p, "'%s' outside a section: expected a [chip-id] line first", name);
		return 0;
	}
	return set_key(p, e, name, value) < 0 ? 0 : 1;
}

int chipdb_load_file(struct chipdb *db, const char *path, struct rterr *err)
{
	struct parser p = {.db = db, .path = path, .err = err, .cur = -1};
	unsigned int first = db->n, i;
	FILE *f;
	int r;

	f = fopen(path, "re");
	if (!f)
		return rterr_sys(err, errno, "cannot open chip file %s", path);
	p.ini = (struct inifile){.path = path, .user = &p, .line = chip_line, .key = chip_handler};
	r = inifile_parse(&p.ini, f);
	fclose(f);
	if (r == -ENOMEM && !p.fail_line) {
		rterr_sys(err, ENOMEM, "%s", path);
		p.fail_line = 1;
	} else if (r > 0 && (!p.fail_line || (unsigned int)r < p.fail_line)) {
		/* inih found a line that is neither [section], key = value nor a comment, before
		 * the line a refusal names (a section that matches nothing names its header). */
		p.fail_line = 0;
		p.line = (unsigned int)r;
		parse_fail(&p, "expected 'key = value', a [chip-id] header or a comment");
	}
	if (!p.fail_line)
		entry_finish(&p);
	if (!p.fail_line)
		return 0;
	for (i = first; i < db->n; i++)
		entry_release(&db->entries[i]);
	db->n = first;
	return err && err->errnum ? -err->errnum : -EINVAL;
}

static int name_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(strrchr(*x, '/') + 1, strrchr(*y, '/') + 1);
}

static bool seen_name(char **paths, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(strrchr(paths[i], '/') + 1, name) == 0)
			return true;
	return false;
}

/* Every NAME.conf of dirs, the first directory holding a NAME winning; NULL-terminated. */
static int collect_files(const char *const *dirs, char ***out, size_t *count, struct rterr *err)
{
	char **paths = calloc(1, sizeof(*paths)), **grown;
	size_t n = 0, len;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (!paths)
		return rterr_sys(err, ENOMEM, "chip files");
	for (; dirs && *dirs; dirs++) {
		d = opendir(*dirs);
		if (!d) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;
			rterr_sys(err, errno, "cannot read chip directory %s", *dirs);
			goto fail;
		}
		while ((de = readdir(d))) {
			char *path;

			len = strlen(de->d_name);
			if (de->d_name[0] == '.' || len <= 5 ||
			    strcmp(de->d_name + len - 5, ".conf"))
				continue;
			if (seen_name(paths, n, de->d_name))
				continue;
			if (asprintf(&path, "%s/%s", *dirs, de->d_name) < 0) {
				closedir(d);
				rterr_sys(err, ENOMEM, "chip files");
				goto fail;
			}
			if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
				free(path);
				continue;
			}
			grown = realloc(paths, (n + 2) * sizeof(*paths));
			if (!grown) {
				free(path);
				closedir(d);
				rterr_sys(err, ENOMEM, "chip files");
				goto fail;
			}
			paths = grown;
			paths[n++] = path;
			paths[n] = NULL;
		}
		closedir(d);
	}
	qsort(paths, n, sizeof(*paths), name_cmp);
	*out = paths;
	*count = n;
	return 0;
fail:
	paths_free(paths);
	return err && err->errnum ? -err->errnum : -EIO;
}

int chipdb_load_dirs(const char *const *dirs, struct chipdb **out, struct rterr *err)
{
	struct chipdb *db;
	char **files = NULL;
	size_t n = 0, i;
	int r;

	*out = NULL;
	r = collect_files(dirs, &files, &n, err);
	if (r < 0)
		return r;
	db = chipdb_new();
	if (!db) {
		paths_free(files);
		return rterr_sys(err, ENOMEM, "chip database");
	}
	db->files = files;
	for (i = 0; i < n; i++) {
		r = chipdb_load_file(db, files[i], err);
		if (r < 0) {
			chipdb_free(db);
			return r;
		}
	}
	*out = db;
	return 0;
}

int chipdb_load_default(struct chipdb **db, struct rterr *err)
{
	char **dirs = paths_search_dirs("RTLTUNE_CHIP_PATH", "chips");
	int r;

	*db = NULL;
	if (!dirs)
		return rterr_sys(err, ENOMEM, "chip search path");
	r = chipdb_load_dirs((const char *const *)dirs, db, err);
	paths_free(dirs);
	return r;
}

/* ---- matching --------------------------------------------------------------------- */

void chip_ident_from_nic(const struct nic *nic, struct chip_ident *out)
{
	memset(out, 0, sizeof(*out));
	if (!nic)
		return;
	if (nic->have_drvinfo) {
		out->driver = nic->drv.driver;
		out->firmware = nic->drv.firmware;
	}
	out->pci = nic->pci;
}

static bool entry_matches(const struct chip_entry *e, const struct chip_ident *id)
{
	unsigned int i;
	bool rev = false;

	if ((e->fields & CHIP_F_DRIVER) && (!id->driver || strcmp(e->driver, id->driver) != 0))
		return false;
	if ((e->fields & CHIP_F_PCI) && (!id->pci.present || id->pci.vendor != e->pci_vendor ||
					 id->pci.device != e->pci_device))
		return false;
	if (e->fields & CHIP_F_REVISION) {
		for (i = 0; i < e->n_revisions; i++)
			rev |= e->revisions[i] == id->pci.revision;
		if (!rev)
			return false;
	}
	if ((e->fields & CHIP_F_FIRMWARE) &&
	    (!id->firmware || !*id->firmware || fnmatch(e->firmware, id->firmware, 0) != 0))
		return false;
	return true;
}

/* a ranks above b: higher score, then loaded first (entries sit in load order). */
static bool ranks_above(const struct chip_entry *a, const struct chip_entry *b)
{
	return a->score > b->score || (a->score == b->score && a < b);
}

/* Keep why->lost sorted best first, dropping the weakest beyond CHIP_WHY_MAX_LOST. */
static void add_loser(struct chip_why *why, const struct chip_entry *e)
{
	unsigned int j = why->n_lost;

	if (j == CHIP_WHY_MAX_LOST) {
		if (!ranks_above(e, why->lost[j - 1]))
			return;
		j--;
	} else {
		why->n_lost++;
	}
	for (; j > 0 && ranks_above(e, why->lost[j - 1]); j--)
		why->lost[j] = why->lost[j - 1];
	why->lost[j] = e;
}

static size_t describe_fields(const struct chip_entry *e, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
#define APPEND(...) off += (size_t)snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__)
	if (e->fields & CHIP_F_DRIVER)
		APPEND("driver %s", e->driver);
	if (e->fields & CHIP_F_PCI)
		APPEND("%spci %04x:%04x", off ? ", " : "", e->pci_vendor, e->pci_device);
	if (e->fields & CHIP_F_REVISION) {
		APPEND("%srevision", off ? ", " : "");
		for (i = 0; i < e->n_revisions; i++)
			APPEND("%s0x%02x", i ? "/" : " ", e->revisions[i]);
	}
	if (e->fields & CHIP_F_FIRMWARE)
		APPEND("%sfirmware '%s'", off ? ", " : "", e->firmware);
#undef APPEND
	return off;
}

static void describe_ident(const struct chip_ident *id, char *buf, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(buf, len, "driver '%s'",
				id->driver && *id->driver ? id->driver : "");
	if (id->pci.present)
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0,
					", pci %04x:%04x rev 0x%02x", id->pci.vendor,
					id->pci.device, id->pci.revision);
	else
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, ", no PCI identity");
	snprintf(buf + off, off < len ? len - off : 0, ", firmware '%s'",
		 id->firmware ? id->firmware : "");
}

const struct chip_entry *chipdb_match(const struct chipdb *db, const struct chip_ident *id,
				      struct chip_why *why)
{
	const struct chip_entry *best = NULL, *e;
	struct chip_why local;
	unsigned int i;
	char buf[256];
	size_t off;

	if (!why)
		why = &local;
	memset(why, 0, sizeof(*why));
	for (i = 0; db && i < db->n; i++) {
		e = &db->entries[i];
		if (!entry_matches(e, id))
			continue;
		why->n_candidates++;
		if (!best) {
			best = e;
			continue;
		}
		if (ranks_above(e, best)) {
			add_loser(why, best);
			best = e;
		} else {
			add_loser(why, e);
		}
	}
	if (!best) {
		describe_ident(id, buf, sizeof(buf));
		if ((!id->driver || !*id->driver) && !id->pci.present)
			snprintf(why->text, sizeof(why->text),
				 "the interface reports no driver (ethtool) and no PCI identity: "
				 "nothing to match on");
		else
			snprintf(why->text, sizeof(why->text),
				 "no entry matches %s (%u entries checked)", buf, db ? db->n : 0);
		return NULL;
	}
	why->fields = best->fields;
	why->score = best->score;
	describe_fields(best, buf, sizeof(buf));
	off = (size_t)snprintf(why->text, sizeof(why->text), "%s matched on %s (score %d)",
			       best->id, buf, best->score);
	for (i = 0; i < why->n_lost && off < sizeof(why->text); i++)
		off += (size_t)snprintf(why->text + off, sizeof(why->text) - off,
					"%s%s (score %d%s)", i ? ", " : "; beat ", why->lost[i]->id,
					why->lost[i]->score,
					why->lost[i]->score == best->score ? ", loaded later" : "");
	if (why->n_candidates > why->n_lost + 1 && off < sizeof(why->text))
		snprintf(why->text + off, sizeof(why->text) - off, " and %u more",
			 why->n_candidates - why->n_lost - 1);
	return best;
}

const struct chip_entry *chipdb_match_nic(const struct chipdb *db, const struct nic *nic,
					  struct chip_why *why)
{
	struct chip_ident id;

	chip_ident_from_nic(nic, &id);
	return chipdb_match(db, &id, why);
}

/* ---- effective limits ------------------------------------------------------------- */

void chip_effective_limits(const struct chip_entry *e, const struct nic *nic,
			   struct chip_limit_eff out[CHIP_LIMIT__COUNT])
{
	const struct link_info *l = nic ? &nic->link : NULL;
	int i;

	for (i = 0; i < CHIP_LIMIT__COUNT; i++) {
		out[i].kernel = LINK_UNSET;
		out[i].table = chip_limit(e, (enum chip_limit)i);
	}
	if (l) {
		/* max_mtu 0 means the driver set no ceiling (loopback): unknown, not zero. */
		out[CHIP_LIMIT_MAX_MTU].kernel = l->max_mtu > 0 ? l->max_mtu : LINK_UNSET;
		out[CHIP_LIMIT_TSO_MAX_SIZE].kernel = l->tso_max_size;
		out[CHIP_LIMIT_TSO_MAX_SEGS].kernel = l->tso_max_segs;
		/* The kernel refuses gso_max_size above tso_max_size (EINVAL). */
		out[CHIP_LIMIT_GSO_MAX_SIZE].kernel = l->tso_max_size;
		/* GRO is software: 524280 where the kernel knows BIG TCP (it reports
		 * tso_max_size from 5.19 on, when gro_max_size > 64K became legal). */
		if (l->tso_max_size != LINK_UNSET)
			out[CHIP_LIMIT_GRO_MAX_SIZE].kernel = GSO_MAX_SIZE_BIG;
		else if (l->knob[KNOB_GRO_MAX_SIZE] != LINK_UNSET)
			out[CHIP_LIMIT_GRO_MAX_SIZE].kernel = GSO_LEGACY_MAX_SIZE;
	}
	if (e) {
		int64_t gso = knob_min_known(e->limits[CHIP_LIMIT_GSO_MAX_SIZE],
					     e->limits[CHIP_LIMIT_TSO_MAX_SIZE]);

		if (e->big_tcp == 0)
			gso = knob_min_known(gso, GSO_LEGACY_MAX_SIZE);
		out[CHIP_LIMIT_GSO_MAX_SIZE].table = gso;
	}
	for (i = 0; i < CHIP_LIMIT__COUNT; i++) {
		struct chip_limit_eff *x = &out[i];

		if (x->kernel == LINK_UNSET && x->table == LINK_UNSET) {
			x->value = LINK_UNSET;
			x->source = CHIP_SRC_NONE;
		} else if (x->table != LINK_UNSET &&
			   (x->kernel == LINK_UNSET || x->table < x->kernel)) {
			x->value = x->table;
			x->source = CHIP_SRC_TABLE;
		} else {
			x->value = x->kernel;
			x->source = CHIP_SRC_KERNEL;
		}
	}
}
