// SPDX-License-Identifier: GPL-2.0-only
/* Options from table rows: one parser and one help printer for every command (opts.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

static const struct cli_option *find_option(const struct cli_optset *sets, unsigned int n_sets,
					    bool before_command, const char *lname, size_t llen,
					    char sname, void **dst)
{
	const struct cli_option *o;
	unsigned int s;

	for (s = 0; s < n_sets; s++)
		for (o = sets[s].options; o && o->name; o++) {
			if (o->before_command && !before_command)
				continue;
			if (lname ? strlen(o->name) == llen && !strncmp(o->name, lname, llen)
				  : o->short_name && o->short_name == sname) {
				*dst = sets[s].dst;
				return o;
			}
		}
	return NULL;
}

/* A word that is a value, not an option: "-", "-5,1500", "-0.5". */
static bool is_value(const char *a)
{
	return a[0] != '-' || !a[1] || isdigit((unsigned char)a[1]) ||
	       (a[1] == '.' && isdigit((unsigned char)a[2]));
}

/* Convert text for row o into its field; -EINVAL with err naming word and text. */
static int set_value(const struct cli_option *o, void *dst, const char *word, const char *text,
		     struct rterr *err)
{
	char *field = (char *)dst + o->offset, *end, why[256];
	long long v;
	double d;

	switch (o->type) {
	case CLI_OPT_FLAG:
		memcpy(field, &(bool){true}, sizeof(bool));
		return 0;
	case CLI_OPT_STRING:
		memcpy(field, &text, sizeof(text));
		return 0;
	case CLI_OPT_INT:
		errno = 0;
		v = strtoll(text, &end, 10);
		if (end == text || *end)
			return rterr_input(err, "%s expects a whole number (%s), got '%s'", word,
					   o->arg, text);
		if (errno == ERANGE || v < o->min || v > o->max)
			return rterr_input(err, "%s %s is out of range (%lld to %lld)", word, text,
					   o->min, o->max);
		memcpy(field, &v, sizeof(v));
		return 0;
	case CLI_OPT_SECONDS:
		errno = 0;
		d = strtod(text, &end);
		if (end == text || *end || isnan(d))
			return rterr_input(err, "%s expects a number of seconds (%s), got '%s'",
					   word, o->arg, text);
		if (errno == ERANGE || d < o->dmin || d > o->dmax)
			return rterr_input(err, "%s %s is out of range (%.10g to %.10g seconds)",
					   word, text, o->dmin, o->dmax);
		memcpy(field, &d, sizeof(d));
		return 0;
	case CLI_OPT_PARSE:
		why[0] = '\0';
		if (o->parse(text, field, why, sizeof(why)) < 0)
			return rterr_input(err, "%s: '%s' %s", word, text,
					   why[0] ? why : "is not valid");
		return 0;
	}
	return rterr_input(err, "%s: option of no known type", word);
}

/* Record the first refusal only: later words are still read (a --json after it counts). */
static void first_error(struct rterr *err, const struct rterr *e, int *rc)
{
	if (*rc)
		return;
	*err = *e;
	*rc = -EINVAL;
}

int cli_opts_parse(const struct cli_optset *sets, unsigned int n_sets, bool stop_at_positional,
		   int argc, char **argv, int *n_pos, int *rest, bool *help, struct rterr *err)
{
	bool ended = false;
	int i, npos = 0, rc = 0;

	*n_pos = 0;
	if (rest)
		*rest = argc;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *value = NULL;
		const struct cli_option *o;
		struct rterr e = {0};
		char word[64];
		void *dst = NULL;

		if (ended || is_value(a)) {
			if (stop_at_positional) {
				if (rest)
					*rest = i;
				*n_pos = 1;
				return rc;
			}
			argv[npos++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			ended = true;
			continue;
		}
		if (a[1] == '-') {
			name = a + 2;
			eq = strchr(name, '=');
			snprintf(word, sizeof(word), "--%.*s", (int)(eq ? eq - name : 60), name);
			o = find_option(sets, n_sets, stop_at_positional, name,
					eq ? (size_t)(eq - name) : strlen(name), 0, &dst);
			if (eq)
				value = eq + 1;
			if (!o && !strcmp(word, "--help"))
				goto help;
		} else {
			snprintf(word, sizeof(word), "%.60s", a);
			o = a[2] ? NULL
				 : find_option(sets, n_sets, stop_at_positional, NULL, 0, a[1],
					       &dst);
			if (!o && !strcmp(a, "-h"))
				goto help;
		}
		if (!o) {
			/* An option of rtltune's own, placed after the command: say where it goes.
			 */
			const struct cli_option *b = NULL;

			if (!stop_at_positional && a[1] == '-')
				b = find_option(sets, n_sets, true, a + 2, strcspn(a + 2, "="), 0,
						&dst);
			else if (!stop_at_positional && !a[2])
				b = find_option(sets, n_sets, true, NULL, 0, a[1], &dst);
			if (b && b->before_command)
				rterr_input(
					&e,
					"%s goes before the command (rtltune %s%s%s COMMAND ...)",
					word, word, b->arg ? " " : "", b->arg ? b->arg : "");
			else
				rterr_input(&e, "unknown option '%s'", a);
			first_error(err, &e, &rc);
			continue;
		}
		if (o->type == CLI_OPT_FLAG) {
			if (value) {
				rterr_input(&e, "%s takes no value, got '%s'", word, a);
				first_error(err, &e, &rc);
				continue;
			}
		} else if (!value) {
			if (i + 1 >= argc) {
				rterr_input(&e, "%s needs a value (%s)", word, o->arg);
				first_error(err, &e, &rc);
				continue;
			}
			value = argv[++i];
		}
		if (set_value(o, dst, word, value, &e) < 0)
			first_error(err, &e, &rc);
		continue;
	help:
		if (value) {
			rterr_input(&e, "%s takes no value, got '%s'", word, a);
			first_error(err, &e, &rc);
		}
		*help = true;
	}
	*n_pos = npos;
	return rc;
}

int cli_opts_check_required(const struct cli_optset *sets, unsigned int n_sets, struct rterr *err)
{
	const struct cli_option *o;
	unsigned int i;

	for (i = 0; i < n_sets; i++)
		for (o = sets[i].options; o && o->name; o++) {
			const char *given = NULL;

			if (!o->required || o->type != CLI_OPT_STRING)
				continue;
			memcpy(&given, (char *)sets[i].dst + o->offset, sizeof(given));
			if (!given)
				return rterr_input(err, "--%s %s missing", o->name, o->arg);
		}
	return 0;
}

/* Next space-separated token of *s into tok (at most len - 1 bytes); false at the end. */
static bool next_token(const char **s, char *tok, size_t len)
{
	size_t n;

	while (**s == ' ')
		(*s)++;
	if (!**s)
		return false;
	n = strcspn(*s, " ");
	snprintf(tok, len, "%.*s", (int)n, *s);
	*s += n;
	return true;
}

void cli_args_range(const char *synopsis, int *min, int *max)
{
	const char *s = synopsis ? synopsis : "";
	char tok[64];

	*min = 0;
	*max = 0;
	while (next_token(&s, tok, sizeof(tok))) {
		if (tok[0] != '[')
			(*min)++;
		if (*max >= 0)
			(*max)++;
		if (strstr(tok, "..."))
			*max = -1;
	}
}

/* A word the synopsis spells out ("show", "on|off"), not a name for a value ("IFACE"). */
static bool is_literal(const char *tok)
{
	return tok[0] >= 'a' && tok[0] <= 'z' && !tok[strspn(tok, "abcdefghijklmnopqrstuvwxyz|-")];
}

/* Whether word is one of the '|'-separated alternatives of tok. */
static bool literal_matches(const char *tok, const char *word)
{
	size_t len = strlen(word);
	const char *p = tok;

	for (;;) {
		size_t n = strcspn(p, "|");

		if (n == len && !strncmp(p, word, len))
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

int cli_args_check(const char *synopsis, int n, char *const *pos, struct rterr *err)
{
	const char *s = synopsis ? synopsis : "";
	char tok[64];
	int min, max, i = 0;

	cli_args_range(synopsis, &min, &max);
	while (i < n && next_token(&s, tok, sizeof(tok))) {
		if (is_literal(tok) && !literal_matches(tok, pos[i])) {
			char alts[96] = "", *bar, *p = tok;

			while ((bar = strchr(p, '|'))) {
				*bar = '\0';
				snprintf(alts + strlen(alts), sizeof(alts) - strlen(alts), "%s%s",
					 alts[0] ? ", " : "", p);
				p = bar + 1;
			}
			snprintf(alts + strlen(alts), sizeof(alts) - strlen(alts), "%s%s",
				 alts[0] ? " or " : "", p);
			return rterr_input(err, "expected %s, got '%s'", alts, pos[i]);
		}
		if (strstr(tok, "..."))
			break;
		i++;
	}
	s = synopsis ? synopsis : "";
	i = 0;
	if (max >= 0 && n > max)
		return rterr_input(err, "unexpected argument '%s'", pos[max]);
	if (n >= min)
		return 0;
	while (next_token(&s, tok, sizeof(tok)))
		if (tok[0] != '[' && i++ == n)
			break;
	return rterr_input(err, "%s missing", tok);
}

static int left_width(const struct cli_option *o)
{
	/* "  -x, --name ARG" */
	return 10 + (int)strlen(o->name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
}

static void help_row(FILE *out, int width, char sname, const char *lname, const char *arg,
		     const char *help, const char *range)
{
	char left[128];

	snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", sname ? '-' : ' ', sname ? sname : ' ',
		 sname ? ", " : "  ", lname, arg ? " " : "", arg ? arg : "");
	fprintf(out, "%-*s%s%s\n", width, left, help, range);
}

void cli_opts_help(FILE *out, const struct cli_option *options, bool with_help)
{
	const struct cli_option *o;
	int width = 24;
	char range[96];

	for (o = options; o && o->name; o++)
		if (left_width(o) + 2 > width)
			width = left_width(o) + 2;
	for (o = options; o && o->name; o++) {
		range[0] = '\0';
		if (o->type == CLI_OPT_INT)
			snprintf(range, sizeof(range), " (%lld to %lld)", o->min, o->max);
		else if (o->type == CLI_OPT_SECONDS)
			snprintf(range, sizeof(range), " (%.10g to %.10g)", o->dmin, o->dmax);
		help_row(out, width, o->short_name, o->name, o->arg, o->help, range);
	}
	if (with_help)
		help_row(out, width, 'h', "help", NULL, "this help", "");
}

void cli_opts_synopsis(FILE *out, const struct cli_option *options)
{
	const struct cli_option *o;

	for (o = options; o && o->name; o++)
		fprintf(out, " %s--%s%s%s%s", o->required ? "" : "[", o->name, o->arg ? " " : "",
			o->arg ? o->arg : "", o->required ? "" : "]");
}
