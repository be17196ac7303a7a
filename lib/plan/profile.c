// SPDX-License-Identifier: GPL-2.0-only
/*
 * Profiles: parse NAME.conf with inih, follow the include chain, flatten it into one
 * section per (scope, match) with every value's file:line. Format in docs/profiles.md.
 */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtltune/inifile.h"
#include "rtltune/paths.h"
#include "rtltune/profile.h"

#define SECTION_NONE	-1
#define SECTION_PROFILE -2
#define MATCH_MAX	48 /* chip ids are char[48] in the chip database */

/* Every string a profile hands out lives here until profile_free(). */
struct profile_priv {
	char **strings;
	unsigned int n_strings, cap_strings;
	struct profile_file *files;
	struct profile_section *sections;
};

/* One file as written, before flattening. */
struct layer {
	const char *name, *path;
	const char *real; /* realpath(), to recognise the same file by another name */
	const char *description;
	unsigned int description_line;
	const char *include;
	unsigned int include_line;
	struct profile_section *sections;
	unsigned int n_sections;
};

/* State shared by the line reader and the inih handler while one file is parsed. */
struct parse {
	struct inifile ini;
	struct layer *layer;
	struct profile_priv *pv;
	struct rterr *err;
	unsigned int lineno;
	int section;		/* index into layer->sections, or SECTION_* */
	char pending_why[1024]; /* the comment lines directly above the current line */
	char line_why[1024];	/* the why for the key on the current line */
	int rc;			/* first error (negative errno); err then holds the message */
};

static const char *pool_add(struct profile_priv *pv, char *s)
{
	char **grown;

	if (!s)
		return NULL;
	if (pv->n_strings == pv->cap_strings) {
		unsigned int cap = pv->cap_strings ? 2 * pv->cap_strings : 32;

		grown = realloc(pv->strings, cap * sizeof(*grown));
		if (!grown) {
			free(s);
			return NULL;
		}
		pv->strings = grown;
		pv->cap_strings = cap;
	}
	pv->strings[pv->n_strings++] = s;
	return s;
}

static const char *pool_strdup(struct profile_priv *pv, const char *s)
{
	return pool_add(pv, strdup(s));
}

static const char *pool_printf(struct profile_priv *pv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *pool_printf(struct profile_priv *pv, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : pool_add(pv, s);
}

static void priv_free(struct profile_priv *pv)
{
	unsigned int i;

	if (!pv)
		return;
	for (i = 0; i < pv->n_strings; i++)
		free(pv->strings[i]);
	free(pv->strings);
	free(pv->files);
	free(pv->sections);
	free(pv);
}

static int oom(struct rterr *err)
{
	return rterr_sys(err, ENOMEM, "loading profile");
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		*--end = '\0';
	return s;
}

/* Driver names and chip ids: what the kernel and the chip database use, nothing else. */
static bool valid_match(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= MATCH_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int layer_section(struct parse *ps, enum profile_scope scope, const char *match)
{
	struct layer *l = ps->layer;
	struct profile_section *grown, *s;
	unsigned int i;

	for (i = 0; i < l->n_sections; i++) {
		s = &l->sections[i];
		if (s->scope == scope &&
		    (scope == PROFILE_SCOPE_GENERIC || !strcmp(s->match, match)))
			return (int)i;
	}
	grown = realloc(l->sections, (l->n_sections + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	l->sections = grown;
	s = &grown[l->n_sections];
	memset(s, 0, sizeof(*s));
	s->scope = scope;
	if (scope == PROFILE_SCOPE_GENERIC) {
		s->name = "knobs";
	} else {
		s->match = pool_strdup(ps->pv, match);
		s->name = pool_printf(ps->pv, "%s:%s",
				      scope == PROFILE_SCOPE_DRIVER ? "driver" : "chip", match);
		if (!s->match || !s->name)
			return -ENOMEM;
	}
	return (int)l->n_sections++;
}

static int parse_fail(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int parse_fail(struct parse *ps, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (ps->rc)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps->rc = rterr_input(ps->err, "%s:%u: %s", ps->layer->path, ps->lineno, msg);
	return 0;
}

/* "[knobs]", "[driver:r8169]" ...: sets ps->section. Returns 0 or parse_fail's 0 with rc. */
static int parse_section_header(struct parse *ps, char *s)
{
	static const char expected[] = "expected [profile], [knobs], [driver:NAME] or [chip:ID]";
	char *close = strchr(s, ']'), *inner, *colon, *match;
	enum profile_scope scope;
	int idx;

	if (!close)
		return parse_fail(ps, "section header '%s' lacks its ']'", s);
	if (*trim(close + 1))
		return parse_fail(ps, "text after the section header '%s'", s);
	*close = '\0';
	inner = trim(s + 1);
	if (!strcmp(inner, "profile")) {
		ps->section = SECTION_PROFILE;
		return 0;
	}
	if (!strcmp(inner, "knobs")) {
		scope = PROFILE_SCOPE_GENERIC;
		match = NULL;
	} else {
		colon = strchr(inner, ':');
		if (!colon)
			return parse_fail(ps, "unknown section [%s]; %s", inner, expected);
		*colon = '\0';
		match = trim(colon + 1);
		inner = trim(inner);
		if (!strcmp(inner, "driver"))
			scope = PROFILE_SCOPE_DRIVER;
		else if (!strcmp(inner, "chip"))
			scope = PROFILE_SCOPE_CHIP;
		else
			return parse_fail(ps, "unknown section [%s:%s]; %s", inner, match,
					  expected);
		if (!valid_match(match))
			return parse_fail(
				ps,
				"[%s:%s]: expected a %s of 1-%d letters, digits, '_', '.' or '-'",
				inner, match,
				scope == PROFILE_SCOPE_DRIVER ? "driver name" : "chip id",
				MATCH_MAX - 1);
	}
	idx = layer_section(ps, scope, match);
	if (idx < 0) {
		ps->rc = oom(ps->err);
		return 0;
	}
	ps->section = idx;
	return 0;
}

/*
 * Each line before inih sees it (lib/base/inifile.c counts them, which gives every key its
 * file:line). Takes the comments off so `profile show` can say why a value is there,
 * validates section headers (inih does not report sections without keys), and leaves no
 * leading blanks, which inih would otherwise read as a continuation of the previous value.
 */
static char *read_line(struct inifile *ini, char *line)
{
	struct parse *ps = ini->user;
	char *s, *c;

	if (ps->rc)
		return NULL;
	ps->lineno = ini->lineno;
	ps->line_why[0] = '\0';
	s = trim(line);
	if (*s == '#' || *s == ';') {
		/* A comment of several lines explains the key below it as a whole. */
		size_t have = strlen(ps->pending_why);

		snprintf(ps->pending_why + have, sizeof(ps->pending_why) - have, "%s%s",
			 have ? " " : "", trim(s + 1));
		line[0] = '\0';
		return line;
	}
	if (*s == '\0' || *s == '[') {
		ps->pending_why[0] = '\0';
		if (*s == '[')
			parse_section_header(ps, s);
		line[0] = '\0';
		return ps->rc ? NULL : line;
	}
	/* An inline comment starts at '#' or ';' after a blank: values never hold either. */
	for (c = s + 1; *c; c++) {
		if ((*c == '#' || *c == ';') && (c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			snprintf(ps->line_why, sizeof(ps->line_why), "%s", trim(c + 1));
			s = trim(s);
			break;
		}
	}
	if (!ps->line_why[0])
		memcpy(ps->line_why, ps->pending_why, sizeof(ps->line_why));
	ps->pending_why[0] = '\0';
	if (!strchr(s, '=')) {
		parse_fail(ps, "expected 'key = value', a [section] header or a comment, got '%s'",
			   s);
		return NULL;
	}
	if (strlen(s) > ini->max_text) {
		parse_fail(ps, "line longer than %u characters", ini->max_text);
		return NULL;
	}
	return s;
}

static int handle_profile_key(struct parse *ps, const char *key, const char *value)
{
	struct layer *l = ps->layer;

	if (!strcmp(key, "description")) {
		if (l->description_line)
			return parse_fail(
				ps,
				"duplicate key 'description' in [profile] (first set at line %u)",
				l->description_line);
		l->description = pool_strdup(ps->pv, value);
		l->description_line = ps->lineno;
		if (!l->description)
			ps->rc = oom(ps->err);
		return !ps->rc;
	}
	if (!strcmp(key, "include")) {
		if (l->include_line)
			return parse_fail(
				ps, "duplicate key 'include' in [profile] (first set at line %u)",
				l->include_line);
		if (!*value)
			return parse_fail(ps, "include: expected a profile name or a file path");
		l->include = pool_strdup(ps->pv, value);
		l->include_line = ps->lineno;
		if (!l->include)
			ps->rc = oom(ps->err);
		return !ps->rc;
	}
	return parse_fail(ps, "unknown key '%s' in [profile]; expected description or include",
			  key);
}

static int handle_knob(struct parse *ps, const char *key, const char *value)
{
	struct profile_section *s = &ps->layer->sections[ps->section];
	struct profile_setting *set;
	char why[256];
	int id;

	id = knob_from_name(key);
	if (id < 0)
		return parse_fail(ps, "unknown knob '%s' in [%s]; expected one of %s", key, s->name,
				  knob_names_list());
	/* One host, one value: a driver or a chip cannot each have its own. */
	if (knob_is_host((enum knob_id)id) && s->scope != PROFILE_SCOPE_GENERIC)
		return parse_fail(ps, "%s is host-wide: set it in [knobs], not in [%s]", key,
				  s->name);
	set = &s->knobs[id];
	if (set->line)
		return parse_fail(ps, "duplicate key '%s' in [%s] (first set at line %u)", key,
				  s->name, set->line);
	why[0] = '\0';
	if (knob_value_parse((enum knob_id)id, value, &set->value, why, sizeof(why)) < 0) {
		set->value.kind = KV_UNSET;
		if (why[0])
			return parse_fail(ps, "%s", why);
		return parse_fail(ps, "%s = %s: malformed value", key, value);
	}
	set->file = ps->layer->path;
	set->line = ps->lineno;
	set->scope = s->scope;
	set->section = s->name;
	set->why = ps->line_why[0] ? pool_strdup(ps->pv, ps->line_why) : NULL;
	if (ps->line_why[0] && !set->why)
		ps->rc = oom(ps->err);
	return !ps->rc;
}

static int handle_key(struct inifile *ini, const char *section, const char *key, const char *value)
{
	struct parse *ps = ini->user;

	if (ps->rc)
		return 0;
	if (ps->section == SECTION_NONE)
		return parse_fail(
			ps, "'%s' outside a section; expected a [profile] or [knobs] header first",
			key);
	if (ps->section == SECTION_PROFILE)
		return handle_profile_key(ps, key, value);
	return handle_knob(ps, key, value);
}

static int open_error(struct rterr *err, int errnum, const char *what, const char *path)
{
	if (errnum == ENOENT || errnum == ENOTDIR)
		return rterr_input(err, "%s%s: %s", what, path, strerror(errnum));
	return rterr_sys(err, errnum, "%s%s", what, path);
}

/* Parse one file into l (name and path already set). prefix names the include line. */
static int parse_file(struct profile_priv *pv, struct layer *l, const char *prefix,
		      struct rterr *err)
{
	struct parse ps = {.layer = l, .pv = pv, .err = err, .section = SECTION_NONE};
	char real[PATH_MAX];
	FILE *f;
	int r;

	f = fopen(l->path, "re");
	if (!f)
		return open_error(err, errno, prefix, l->path);
	l->real = realpath(l->path, real) ? pool_strdup(pv, real) : pool_strdup(pv, l->path);
	if (!l->real) {
		fclose(f);
		return oom(err);
	}
	ps.ini = (struct inifile){
		.path = l->path, .user = &ps, .line = read_line, .key = handle_key};
	r = inifile_parse(&ps.ini, f);
	if (!ps.rc && ferror(f))
		ps.rc = rterr_sys(err, errno ?: EIO, "reading %s", l->path);
	else if (!ps.rc && r == -ENOMEM)
		ps.rc = oom(err);
	else if (!ps.rc && r != 0)
		ps.rc = rterr_input(
			err, "%s:%d: expected 'key = value', a [section] header or a comment",
			l->path, r);
	fclose(f);
	return ps.rc;
}

/* NAME.conf files of the profile path, for lookup, listing and "available: ..." */
struct found {
	char *name, *path;
	unsigned int dir;
};

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->dir > y->dir) - (x->dir < y->dir);
}

static void found_free(struct found *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].path);
	}
	free(f);
}

static int scan_dirs(const char *const *dirs, struct found **out, unsigned int *n)
{
	struct found *list = NULL, *grown;
	unsigned int count = 0, d;
	struct dirent *de;
	struct stat st;

	for (d = 0; dirs[d]; d++) {
		DIR *dir = opendir(dirs[d]);

		if (!dir)
			continue; /* gone since the search path was built: nothing to list */
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			char *path;

			if (de->d_name[0] == '.' || len <= 5 ||
			    strcmp(de->d_name + len - 5, ".conf"))
				continue;
			if (asprintf(&path, "%s/%s", dirs[d], de->d_name) < 0)
				goto nomem;
			if (stat(path, &st) || !S_ISREG(st.st_mode)) {
				free(path);
				continue;
			}
			grown = realloc(list, (count + 1) * sizeof(*grown));
			if (!grown) {
				free(path);
				goto nomem;
			}
			list = grown;
			list[count].path = path;
			list[count].dir = d;
			list[count].name = strndup(de->d_name, len - 5);
			if (!list[count++].name)
				goto nomem;
			continue;
		nomem:
			closedir(dir);
			found_free(list, count);
			return -ENOMEM;
		}
		closedir(dir);
	}
	if (count)
		qsort(list, count, sizeof(*list), found_cmp);
	*out = list;
	*n = count;
	return 0;
}

/* "unknown profile 'x' (available: a, b)" */
static int unknown_profile(const char *const *dirs, const char *name, const char *prefix,
			   struct rterr *err)
{
	char avail[512] = "", where[512] = "";
	size_t off = 0, woff = 0;
	struct found *f;
	unsigned int n, i;

	for (i = 0; dirs[i]; i++)
		woff += (size_t)snprintf(where + woff,
					 woff < sizeof(where) ? sizeof(where) - woff : 0, "%s%s",
					 i ? ":" : "", dirs[i]);
	if (scan_dirs(dirs, &f, &n) < 0)
		return oom(err);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(f[i].name, f[i - 1].name))
			continue;
		off += (size_t)snprintf(avail + off, off < sizeof(avail) ? sizeof(avail) - off : 0,
					"%s%s", off ? ", " : "", f[i].name);
	}
	found_free(f, n);
	if (!avail[0])
		return rterr_input(err,
				   "%sunknown profile '%s': no profiles in the profile path (%s)",
				   prefix, name, where[0] ? where : "no directory exists");
	return rterr_input(err, "%sunknown profile '%s' (available: %s)", prefix, name, avail);
}

static bool valid_name(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/');
}

/*
 * NAME.conf in the first directory holding it. When a profile includes its own name (an
 * admin copy extending the shipped one), the search starts after the including file, so
 * /etc/rtltune/profiles/throughput.conf can say "include = throughput".
 */
static int find_by_name(struct profile_priv *pv, const char *const *dirs, const char *name,
			const char *skip_real, const char **out)
{
	char path[PATH_MAX], real[PATH_MAX];
	bool passed = !skip_real;
	unsigned int pass, d;

	/* Second pass: the including file is outside the path; take any other file. */
	for (pass = 0; pass < 2; pass++, passed = true) {
		for (d = 0; dirs[d]; d++) {
			snprintf(path, sizeof(path), "%s/%s.conf", dirs[d], name);
			if (access(path, F_OK))
				continue;
			if (skip_real && realpath(path, real) && !strcmp(real, skip_real)) {
				passed = true;
				continue;
			}
			if (passed) {
				*out = pool_strdup(pv, path);
				return *out ? 0 : -ENOMEM;
			}
		}
	}
	return -ENOENT;
}

static const char *stem(struct profile_priv *pv, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".conf"))
		len -= 5;
	return pool_add(pv, strndup(base, len));
}

/* Where the include line of l points: a path (relative to l's directory) or a name. */
static int resolve_include(struct profile_priv *pv, const char *const *dirs, const struct layer *l,
			   struct layer *next, struct rterr *err)
{
	char prefix[PATH_MAX + 64];
	int r;

	snprintf(prefix, sizeof(prefix), "%s:%u: include '%s': ", l->path, l->include_line,
		 l->include);
	if (strchr(l->include, '/')) {
		const char *slash = strrchr(l->path, '/');

		if (l->include[0] == '/' || !slash)
			next->path = pool_strdup(pv, l->include);
		else
			next->path = pool_printf(pv, "%.*s/%s", (int)(slash - l->path), l->path,
						 l->include);
		next->name = next->path ? stem(pv, next->path) : NULL;
		return next->name ? 0 : oom(err);
	}
	if (!valid_name(l->include))
		return rterr_input(err, "%sexpected a profile name or a path", prefix);
	next->name = pool_strdup(pv, l->include);
	if (!next->name)
		return oom(err);
	r = find_by_name(pv, dirs, l->include, !strcmp(l->include, l->name) ? l->real : NULL,
			 &next->path);
	if (r == -ENOENT && !strcmp(l->include, l->name))
		return rterr_input(err,
				   "%sa profile including its own name extends the next %s.conf "
				   "in the profile path, and there is none after %s",
				   prefix, l->include, l->path);
	if (r == -ENOENT) {
		snprintf(prefix, sizeof(prefix), "%s:%u: include: ", l->path, l->include_line);
		return unknown_profile(dirs, l->include, prefix, err);
	}
	return r ? oom(err) : 0;
}

static void free_layers(struct layer *layers, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(layers[i].sections);
	free(layers);
}

static int section_order(const void *a, const void *b)
{
	const struct profile_section *x = a, *y = b;

	return (int)x->scope - (int)y->scope;
}

/* Lay the include chain down deepest first, so each includer overwrites what it includes. */
static int flatten(struct profile *p, struct layer *layers, unsigned int n, struct rterr *err)
{
	struct profile_priv *pv = p->priv;
	struct profile_section *out = NULL, *grown, *dst;
	unsigned int count = 0, i, j, k, li, total = 1;

	for (li = 0; li < n; li++)
		total += layers[li].n_sections;
	out = calloc(total, sizeof(*out));
	if (!out)
		return oom(err);
	out[count].scope = PROFILE_SCOPE_GENERIC;
	out[count++].name = "knobs";
	for (li = n; li-- > 0;) {
		for (i = 0; i < layers[li].n_sections; i++) {
			const struct profile_section *src = &layers[li].sections[i];

			for (j = 0; j < count; j++)
				if (out[j].scope == src->scope &&
				    (src->scope == PROFILE_SCOPE_GENERIC ||
				     !strcmp(out[j].match, src->match)))
					break;
			dst = &out[j];
			if (j == count) {
				*dst = *src;
				memset(dst->knobs, 0, sizeof(dst->knobs));
				count++;
			}
			for (k = 0; k < KNOB__COUNT; k++)
				if (src->knobs[k].line)
					dst->knobs[k] = src->knobs[k];
		}
	}
	/* Group by scope, keeping first appearance within one (insertion sort is stable). */
	for (i = 1; i < count; i++) {
		struct profile_section tmp = out[i];

		for (j = i; j > 0 && section_order(&out[j - 1], &tmp) > 0; j--)
			out[j] = out[j - 1];
		out[j] = tmp;
	}
	grown = realloc(out, count * sizeof(*out));
	pv->sections = grown ?: out;
	p->sections = pv->sections;
	p->n_sections = count;

	pv->files = calloc(n, sizeof(*pv->files));
	if (!pv->files)
		return oom(err);
	for (li = 0; li < n; li++) {
		pv->files[li].name = layers[li].name;
		pv->files[li].path = layers[li].path;
		if (li) {
			pv->files[li].included_from = pool_printf(pv, "%s:%u", layers[li - 1].path,
								  layers[li - 1].include_line);
			if (!pv->files[li].included_from)
				return oom(err);
		}
		if (!p->description)
			p->description = layers[li].description;
	}
	p->files = pv->files;
	p->n_files = n;
	p->name = layers[0].name;
	p->path = layers[0].path;
	return 0;
}

static int include_loop(const struct layer *layers, unsigned int n, const struct layer *next,
			struct rterr *err)
{
	char chain[768];
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		off += (size_t)snprintf(chain + off, off < sizeof(chain) ? sizeof(chain) - off : 0,
					"%s -> ", layers[i].path);
	if (off < sizeof(chain))
		snprintf(chain + off, sizeof(chain) - off, "%s", next->path);
	return rterr_input(err, "%s:%u: include loop: %s", layers[n - 1].path,
			   layers[n - 1].include_line, chain);
}

int profile_load_dirs(const char *name_or_path, const char *const *dirs, struct profile **out,
		      struct rterr *err)
{
	struct layer *layers = NULL, *grown;
	unsigned int n = 0, i;
	struct profile *p;
	int r;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->priv = calloc(1, sizeof(*p->priv)))) {
		free(p);
		return oom(err);
	}
	layers = calloc(1, sizeof(*layers));
	if (!layers) {
		r = oom(err);
		goto fail;
	}
	n = 1;
	if (strchr(name_or_path, '/')) {
		layers[0].path = pool_strdup(p->priv, name_or_path);
		layers[0].name = stem(p->priv, name_or_path);
	} else if (!valid_name(name_or_path)) {
		r = rterr_input(err, "invalid profile name '%s'", name_or_path);
		goto fail;
	} else {
		layers[0].name = pool_strdup(p->priv, name_or_path);
		r = layers[0].name
			    ? find_by_name(p->priv, dirs, name_or_path, NULL, &layers[0].path)
			    : -ENOMEM;
		if (r == -ENOENT) {
			r = unknown_profile(dirs, name_or_path, "", err);
			goto fail;
		}
	}
	if (!layers[0].path || !layers[0].name) {
		r = oom(err);
		goto fail;
	}
	r = parse_file(p->priv, &layers[0], "cannot open profile ", err);
	while (!r && layers[n - 1].include) {
		struct layer next = {0};
		char prefix[PATH_MAX + 64];

		r = resolve_include(p->priv, dirs, &layers[n - 1], &next, err);
		if (r)
			break;
		snprintf(prefix, sizeof(prefix), "%s:%u: include '%s': ", layers[n - 1].path,
			 layers[n - 1].include_line, layers[n - 1].include);
		grown = realloc(layers, (n + 1) * sizeof(*grown));
		if (!grown) {
			r = oom(err);
			break;
		}
		layers = grown;
		layers[n++] = next;
		r = parse_file(p->priv, &layers[n - 1], prefix, err);
		for (i = 0; !r && i + 1 < n; i++)
			if (!strcmp(layers[i].real, layers[n - 1].real))
				r = include_loop(layers, n - 1, &layers[n - 1], err);
	}
	if (!r)
		r = flatten(p, layers, n, err);
fail:
	free_layers(layers, n);
	if (r) {
		profile_free(p);
		return r;
	}
	*out = p;
	return 0;
}

int profile_load(const char *name_or_path, struct profile **out, struct rterr *err)
{
	char **dirs = paths_search_dirs("RTLTUNE_PROFILE_PATH", "profiles");
	int r;

	if (!dirs) {
		*out = NULL;
		return oom(err);
	}
	r = profile_load_dirs(name_or_path, (const char *const *)dirs, out, err);
	paths_free(dirs);
	return r;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	priv_free(p->priv);
	free(p);
}

const struct profile_section *profile_find_section(const struct profile *p,
						   enum profile_scope scope, const char *match)
{
	unsigned int i;

	if (scope != PROFILE_SCOPE_GENERIC && (!match || !*match))
		return NULL;
	for (i = 0; i < p->n_sections; i++) {
		const struct profile_section *s = &p->sections[i];

		if (s->scope == scope &&
		    (scope == PROFILE_SCOPE_GENERIC || !strcmp(s->match, match)))
			return s;
	}
	return NULL;
}

bool profile_sets_host(const struct profile *p)
{
	int k;

	for (k = KNOB_FIRST_HOST; p->n_sections && k < KNOB__COUNT; k++)
		if (p->sections[0].knobs[k].value.kind != KV_UNSET &&
		    p->sections[0].knobs[k].value.kind != KV_KEEP)
			return true;
	return false;
}

void profile_resolve(const struct profile *p, const char *driver, const char *chip_id,
		     struct profile_setting out[KNOB__COUNT])
{
	const struct profile_section *over[2] = {
		profile_find_section(p, PROFILE_SCOPE_DRIVER, driver),
		profile_find_section(p, PROFILE_SCOPE_CHIP, chip_id),
	};
	unsigned int i, k;

	memcpy(out, p->sections[0].knobs, KNOB__COUNT * sizeof(*out));
	for (i = 0; i < 2; i++)
		for (k = 0; over[i] && k < KNOB__COUNT; k++)
			if (over[i]->knobs[k].line)
				out[k] = over[i]->knobs[k];
}

const char *profile_value_str(enum knob_id id, const struct knob_value *v, char *buf,
			      unsigned int len)
{
	switch (v->kind) {
	case KV_MAX:
		return "max";
	case KV_NUMBER:
		if (knob_type(id) == KNOB_T_BOOL)
			return v->num ? "on" : "off";
		snprintf(buf, len, "%lld", (long long)v->num);
		return buf;
	case KV_UNSET:
	case KV_KEEP:
	default:
		return "keep";
	}
}

const char *profile_scope_name(enum profile_scope s)
{
	switch (s) {
	case PROFILE_SCOPE_DRIVER:
		return "driver";
	case PROFILE_SCOPE_CHIP:
		return "chip";
	case PROFILE_SCOPE_GENERIC:
	default:
		return "generic";
	}
}

void profile_list_free(struct profile_summary *list, unsigned int n)
{
	unsigned int i;

	if (!list)
		return;
	for (i = 0; i < n; i++) {
		free(list[i].name);
		free(list[i].path);
		free(list[i].description);
		free(list[i].shadowed_by);
		free(list[i].error);
	}
	free(list);
}

int profile_list_dirs(const char *const *dirs, struct profile_summary **out, unsigned int *n,
		      struct rterr *err)
{
	struct profile_summary *list;
	struct found *f;
	unsigned int count, i;

	*out = NULL;
	*n = 0;
	if (scan_dirs(dirs, &f, &count) < 0)
		return oom(err);
	list = calloc(count ?: 1, sizeof(*list));
	if (!list) {
		found_free(f, count);
		return oom(err);
	}
	for (i = 0; i < count; i++) {
		struct profile_summary *s = &list[i];
		struct rterr lerr = {0};
		struct profile *p = NULL;

		s->name = f[i].name;
		s->path = f[i].path;
		f[i].name = f[i].path = NULL;
		if (i && !strcmp(s->name, list[i - 1].name)) {
			s->shadowed = true;
			s->shadowed_by = strdup(list[i - 1].shadowed ? list[i - 1].shadowed_by
								     : list[i - 1].path);
			if (!s->shadowed_by)
				goto nomem;
		}
		if (profile_load_dirs(s->path, dirs, &p, &lerr) < 0) {
			if (lerr.errnum == ENOMEM)
				goto nomem;
			s->error = strdup(lerr.msg);
			if (!s->error)
				goto nomem;
		} else if (p->description) {
			s->description = strdup(p->description);
			if (!s->description) {
				profile_free(p);
				goto nomem;
			}
		}
		profile_free(p);
	}
	found_free(f, count);
	*out = list;
	*n = count;
	return 0;
nomem:
	found_free(f, count);
	profile_list_free(list, count);
	return oom(err);
}

int profile_list(struct profile_summary **out, unsigned int *n, struct rterr *err)
{
	char **dirs = paths_search_dirs("RTLTUNE_PROFILE_PATH", "profiles");
	int r;

	if (!dirs) {
		*out = NULL;
		*n = 0;
		return oom(err);
	}
	r = profile_list_dirs((const char *const *)dirs, out, n, err);
	paths_free(dirs);
	return r;
}
