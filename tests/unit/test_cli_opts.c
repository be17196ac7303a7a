// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command-line option parser (cli/opts.c): every refusal names the word it refused,
 * numbers are range-checked (the overflow a strtol cast to int once let through), a
 * negative number is a value, positionals are counted against the synopsis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../cli/opts.h"

struct t_opts {
	bool flag;
	const char *path;
	long long lines;
	double secs;
	int parsed;
};

static int parse_even(const char *text, void *field, char *why, size_t len)
{
	int v = atoi(text);

	if (v % 2) {
		snprintf(why, len, "is odd");
		return -1;
	}
	*(int *)field = v;
	return 0;
}

static const struct cli_option t_options[] = {
	CLI_FLAG(struct t_opts, flag, "flag", 'f', "a flag"),
	CLI_STRING(struct t_opts, path, "path", 0, "FILE", "a path"),
	CLI_INT(struct t_opts, lines, "lines", 'n', "N", 1, 1000000, "a count"),
	CLI_SECONDS(struct t_opts, secs, "seconds", 0, "N", 0.2, 3600, "a time"),
	CLI_PARSED(struct t_opts, parsed, int, "even", 0, "N", parse_even, "an even number"),
	CLI_OPTIONS_END,
};

struct t_global {
	bool json;
	const char *netns;
};

static const struct cli_option g_options[] = {
	CLI_FLAG(struct t_global, json, "json", 'j', "json"),
	{.name = "netns",
	 .short_name = 'n',
	 .type = CLI_OPT_STRING,
	 .arg = "NETNS",
	 .help = "a namespace",
	 .offset = CLI_FIELD(struct t_global, netns, const char *),
	 .before_command = true},
	CLI_OPTIONS_END,
};

struct run {
	struct t_opts o;
	struct t_global g;
	int rc, n_pos;
	bool help;
	char *argv[16];
	struct rterr err;
};

/* Parse the words (NULL-ended) as a command's arguments. */
static struct run *parse(struct run *r, ...)
{
	struct cli_optset sets[2] = {{t_options, &r->o}, {g_options, &r->g}};
	va_list ap;
	int argc = 0;
	char *w;

	memset(r, 0, sizeof(*r));
	va_start(ap, r);
	while ((w = va_arg(ap, char *)))
		r->argv[argc++] = w;
	va_end(ap);
	r->rc = cli_opts_parse(sets, 2, false, argc, r->argv, &r->n_pos, NULL, &r->help, &r->err);
	return r;
}

static void refused(struct run *r, const char *msg)
{
	assert_int_equal(r->rc, -EINVAL);
	assert_int_equal(r->err.kind, RTERR_INPUT);
	assert_string_equal(r->err.msg, msg);
}

static void test_values_and_positionals(void **state)
{
	struct run r;

	(void)state;
	parse(&r, "eth0", "--flag", "--path", "a.svg", "x", "-n", "20", "--seconds=1.5", "--even",
	      "4", "--json", NULL);
	assert_int_equal(r.rc, 0);
	assert_true(r.o.flag);
	assert_string_equal(r.o.path, "a.svg");
	assert_int_equal(r.o.lines, 20);
	assert_true(r.o.secs == 1.5);
	assert_int_equal(r.o.parsed, 4);
	assert_true(r.g.json);
	assert_int_equal(r.n_pos, 2);
	assert_string_equal(r.argv[0], "eth0");
	assert_string_equal(r.argv[1], "x");
	/* "--" ends the options; then even "--flag" is a positional. */
	parse(&r, "--", "--flag", NULL);
	assert_int_equal(r.rc, 0);
	assert_false(r.o.flag);
	assert_int_equal(r.n_pos, 1);
	assert_string_equal(r.argv[0], "--flag");
}

/* "sweep va mtu -5,1500": a negative number is a value, for the command to judge. */
static void test_negative_is_a_value(void **state)
{
	struct run r;

	(void)state;
	parse(&r, "va", "mtu", "-5,1500", "-0.5", "-", NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n_pos, 5);
	assert_string_equal(r.argv[2], "-5,1500");
	assert_string_equal(r.argv[3], "-0.5");
	assert_string_equal(r.argv[4], "-");
	/* As an option's value too: refused by range, not taken for an option. */
	refused(parse(&r, "--seconds", "-1", NULL),
		"--seconds -1 is out of range (0.2 to 3600 seconds)");
}

static void test_refusals_name_the_word(void **state)
{
	struct run r;

	(void)state;
	refused(parse(&r, "--bad", NULL), "unknown option '--bad'");
	refused(parse(&r, "-x", NULL), "unknown option '-x'");
	refused(parse(&r, "-fx", NULL), "unknown option '-fx'");
	refused(parse(&r, "--path", NULL), "--path needs a value (FILE)");
	refused(parse(&r, "--flag=yes", NULL), "--flag takes no value, got '--flag=yes'");
	refused(parse(&r, "--lines", "abc", NULL), "--lines expects a whole number (N), got 'abc'");
	refused(parse(&r, "--lines", "", NULL), "--lines expects a whole number (N), got ''");
	refused(parse(&r, "--seconds", "soon", NULL),
		"--seconds expects a number of seconds (N), got 'soon'");
	refused(parse(&r, "--seconds", "nan", NULL),
		"--seconds expects a number of seconds (N), got 'nan'");
	refused(parse(&r, "--even", "3", NULL), "--even: '3' is odd");
	/* A global option of the kind that goes before the command, given after it. */
	refused(parse(&r, "--netns", "lab", NULL),
		"--netns goes before the command (rtltune --netns NETNS COMMAND ...)");
	/* The first refusal is reported; a --json after it still counts. */
	parse(&r, "--bad", "--worse", "--json", NULL);
	refused(&r, "unknown option '--bad'");
	assert_true(r.g.json);
}

/* log --lines 4294967297 once became 1 (strtol cast to int): every width is checked. */
static void test_int_ranges(void **state)
{
	struct run r;

	(void)state;
	refused(parse(&r, "--lines", "4294967297", NULL),
		"--lines 4294967297 is out of range (1 to 1000000)");
	refused(parse(&r, "--lines", "99999999999999999999999", NULL),
		"--lines 99999999999999999999999 is out of range (1 to 1000000)");
	refused(parse(&r, "-n", "0", NULL), "-n 0 is out of range (1 to 1000000)");
	refused(parse(&r, "--lines", "-1", NULL), "--lines -1 is out of range (1 to 1000000)");
	assert_int_equal(parse(&r, "--lines", "1000000", NULL)->rc, 0);
	assert_int_equal(r.o.lines, 1000000);
	assert_int_equal(parse(&r, "--lines=1", NULL)->rc, 0);
	assert_int_equal(r.o.lines, 1);
}

static void test_help(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(parse(&r, "x", "--help", NULL)->rc, 0);
	assert_true(r.help);
	assert_true(parse(&r, "-h", NULL)->help);
	refused(parse(&r, "--help=x", NULL), "--help takes no value, got '--help=x'");
}

/* A required option absent: named with its value (report --svg FILE). */
static void test_required(void **state)
{
	static const struct cli_option req[] = {
		{.name = "svg",
		 .type = CLI_OPT_STRING,
		 .arg = "FILE",
		 .help = "a chart",
		 .offset = CLI_FIELD(struct t_opts, path, const char *),
		 .required = true},
		CLI_OPTIONS_END,
	};
	struct t_opts o = {0};
	struct cli_optset set = {req, &o};
	struct rterr err = {0};

	(void)state;
	assert_int_equal(cli_opts_check_required(&set, 1, &err), -EINVAL);
	assert_string_equal(err.msg, "--svg FILE missing");
	o.path = "x.svg";
	assert_int_equal(cli_opts_check_required(&set, 1, &err), 0);
}

/* Before the command: the first positional (the command) ends the parse. */
static void test_stop_at_command(void **state)
{
	struct t_global g = {0};
	struct cli_optset set = {g_options, &g};
	char *argv[] = {"-n", "lab", "--json", "show", "--flag", "eth0"};
	struct rterr err = {0};
	int n_pos, rest;
	bool help = false;

	(void)state;
	assert_int_equal(cli_opts_parse(&set, 1, true, 6, argv, &n_pos, &rest, &help, &err), 0);
	assert_string_equal(g.netns, "lab");
	assert_true(g.json);
	assert_int_equal(n_pos, 1);
	assert_int_equal(rest, 3);
	assert_string_equal(argv[rest], "show");
	/* No command at all. */
	assert_int_equal(cli_opts_parse(&set, 1, true, 2, argv, &n_pos, &rest, &help, &err), 0);
	assert_int_equal(n_pos, 0);
}

static void test_positional_counts(void **state)
{
	char *pos[] = {"throughput", "eth0", "eth1"};
	char *one[] = {"maybe", "eth0"};
	struct rterr err = {0};
	int min, max;

	(void)state;
	cli_args_range("PROFILE [IFACE...]", &min, &max);
	assert_int_equal(min, 1);
	assert_int_equal(max, -1);
	cli_args_range("IFACE KNOB VALUES", &min, &max);
	assert_int_equal(min, 3);
	assert_int_equal(max, 3);
	cli_args_range(NULL, &min, &max);
	assert_int_equal(min, 0);
	assert_int_equal(max, 0);
	assert_int_equal(cli_args_check("PROFILE [IFACE...]", 3, pos, &err), 0);
	assert_int_equal(cli_args_check("PROFILE [IFACE...]", 0, pos, &err), -EINVAL);
	assert_string_equal(err.msg, "PROFILE missing");
	assert_int_equal(cli_args_check("IFACE KNOB VALUES", 2, pos, &err), -EINVAL);
	assert_string_equal(err.msg, "VALUES missing");
	assert_int_equal(cli_args_check("[IFACE]", 2, pos, &err), -EINVAL);
	assert_string_equal(err.msg, "unexpected argument 'eth0'");
	assert_int_equal(cli_args_check(NULL, 1, pos, &err), -EINVAL);
	assert_string_equal(err.msg, "unexpected argument 'throughput'");
	/* Words the synopsis spells out must be one of them. */
	assert_int_equal(cli_args_check("on|off IFACE", 2, one, &err), -EINVAL);
	assert_string_equal(err.msg, "expected on or off, got 'maybe'");
	one[0] = "off";
	assert_int_equal(cli_args_check("on|off IFACE", 2, one, &err), 0);
	assert_int_equal(cli_args_check("show NAME", 2, pos, &err), -EINVAL);
	assert_string_equal(err.msg, "expected show, got 'throughput'");
}

/* The help is drawn from the same rows: each option once, with its range. */
static void test_help_text(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	cli_opts_help(f, t_options, true);
	cli_opts_synopsis(f, t_options);
	fclose(f);
	assert_non_null(strstr(text, "  -f, --flag "));
	assert_non_null(strstr(text, "      --path FILE "));
	assert_non_null(strstr(text, "a count (1 to 1000000)\n"));
	assert_non_null(strstr(text, "a time (0.2 to 3600)\n"));
	assert_non_null(strstr(text, "  -h, --help "));
	assert_non_null(strstr(text, " [--flag] [--path FILE] [--lines N]"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_positionals),
		cmocka_unit_test(test_negative_is_a_value),
		cmocka_unit_test(test_refusals_name_the_word),
		cmocka_unit_test(test_int_ranges),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_stop_at_command),
		cmocka_unit_test(test_positional_counts),
		cmocka_unit_test(test_help_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
