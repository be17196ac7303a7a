/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_OPTS_H
#define RTLTUNE_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtltune/err.h"

/*
 * Command-line options as table rows (the model is lib/tuner/tuner_config.c's offsetof-plus-range
 * table): one row per option names it, says what its value is and where it goes, and
 * carries the range a number is checked against. One parser (cli_opts_parse()) reads every
 * command's arguments, so every refusal names the word it refused and every range its
 * limits; the same rows print the help (cli_opts_help()), so the help cannot drift from
 * what is parsed.
 */
enum cli_opt_type {
	CLI_OPT_FLAG,	 /* bool, no value */
	CLI_OPT_STRING,	 /* const char *, pointing into argv */
	CLI_OPT_INT,	 /* long long within [min, max] */
	CLI_OPT_SECONDS, /* double within [dmin, dmax] */
	CLI_OPT_PARSE,	 /* parse() fills the field */
};

struct cli_option {
	const char *name; /* --name */
	char short_name;  /* -c, or 0 */
	enum cli_opt_type type;
	const char *arg;  /* the value's name in the help and in refusals ("N", "FILE") */
	const char *help; /* one line */
	size_t offset;	  /* of the field it fills, in the struct the table belongs to */
	long long min, max;
	double dmin, dmax;
	/* CLI_OPT_PARSE: 0, or -1 with why filled ("expected a duration like 30m") */
	int (*parse)(const char *text, void *field, char *why, size_t len);
	bool before_command; /* global options only: valid before the command, not after it */
	bool required;	     /* refused when absent ("--svg FILE missing") */
};

/* offsetof(T, f), refused at compile time unless f has type `type`. */
#define CLI_FIELD(T, f, type)                                                                      \
	(offsetof(T, f) +                                                                          \
	 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((T *)0)->f), type) ? 1 : -1]))

#define CLI_FLAG(T, f, lname, sname, h)                                                            \
	{                                                                                          \
		.name = lname, .short_name = sname, .type = CLI_OPT_FLAG, .help = h,               \
		.offset = CLI_FIELD(T, f, bool)                                                    \
	}
#define CLI_STRING(T, f, lname, sname, a, h)                                                       \
	{                                                                                          \
		.name = lname, .short_name = sname, .type = CLI_OPT_STRING, .arg = a, .help = h,   \
		.offset = CLI_FIELD(T, f, const char *)                                            \
	}
#define CLI_INT(T, f, lname, sname, a, lo, hi, h)                                                  \
	{                                                                                          \
		.name = lname, .short_name = sname, .type = CLI_OPT_INT, .arg = a, .help = h,      \
		.offset = CLI_FIELD(T, f, long long), .min = lo, .max = hi                         \
	}
#define CLI_SECONDS(T, f, lname, sname, a, lo, hi, h)                                              \
	{                                                                                          \
		.name = lname, .short_name = sname, .type = CLI_OPT_SECONDS, .arg = a, .help = h,  \
		.offset = CLI_FIELD(T, f, double), .dmin = lo, .dmax = hi                          \
	}
#define CLI_PARSED(T, f, ftype, lname, sname, a, fn, h)                                            \
	{                                                                                          \
		.name = lname, .short_name = sname, .type = CLI_OPT_PARSE, .arg = a, .help = h,    \
		.offset = CLI_FIELD(T, f, ftype), .parse = fn                                      \
	}
#define CLI_OPTIONS_END                                                                            \
	{                                                                                          \
		.name = NULL                                                                       \
	}

/* A table and the struct its rows fill. */
struct cli_optset {
	const struct cli_option *options; /* ended by CLI_OPTIONS_END; NULL: none */
	void *dst;
};

/*
 * Parse argv[0..argc) against sets[0..n_sets) (the first row that names an option wins),
 * -h/--help built in. Positionals are moved to the front of argv, in order; their count goes
 * into *n_pos. "--" ends the options; a word that starts with '-' and a digit is a value
 * ("-5,1500"), not an option. With stop_at_positional the first positional ends the parse
 * (it and the rest are left as they are, *n_pos = 1 when there is one, *rest its index).
 * before_command rows are taken only when stop_at_positional is set.
 *
 * Every word is read (a --json after a bad option still counts); the first refusal goes
 * into err (RTERR_INPUT, naming the word: "unknown option '--bad'", "--socket needs a value
 * (PATH)", "--lines 4294967297 is out of range (1 to 1000000)") and -EINVAL is returned.
 * *help is set for -h/--help.
 */
int cli_opts_parse(const struct cli_optset *sets, unsigned int n_sets, bool stop_at_positional,
		   int argc, char **argv, int *n_pos, int *rest, bool *help, struct rterr *err);

/* A required option that was not given: "--svg FILE missing" (-EINVAL), else 0. */
int cli_opts_check_required(const struct cli_optset *sets, unsigned int n_sets, struct rterr *err);

/*
 * The positional synopsis ("PROFILE [IFACE...]", "on|off IFACE"): how many positionals it
 * takes (max < 0: no limit), and whether n of them are enough: 0, or -EINVAL with err naming
 * the missing one ("PROFILE missing") or the first one too many ("unexpected argument 'x'").
 */
void cli_args_range(const char *synopsis, int *min, int *max);
int cli_args_check(const char *synopsis, int n, char *const *pos, struct rterr *err);

/* "  -n, --dry-run          print the changes, change nothing" for each row, then -h. */
void cli_opts_help(FILE *out, const struct cli_option *options, bool with_help);
/* "[-n|--dry-run] [--seconds N]": the options part of a usage line. */
void cli_opts_synopsis(FILE *out, const struct cli_option *options);

#endif
