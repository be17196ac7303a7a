// SPDX-License-Identifier: GPL-2.0-only
/*
 * PM QoS (lib/host/pmqos.c): the rtltuned.conf setting and the chip value parsed, which latency
 * a shallow-idle NIC asks for, and the request's wire form (a 4-byte s32 per write) on a
 * regular file standing in for /dev/cpu_dma_latency.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtltune/pmqos.h"

static void test_parse_us(void **state)
{
	static const char *const bad[] = {"",	  "-1",	  "+5",	     " 5",
					  "5 ",	  "10ms", "1000001", "99999999999999999999",
					  "0x10", "us",	  "1.5"};
	int32_t us = 77;
	size_t i;

	(void)state;
	assert_int_equal(pmqos_parse_us("0", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(pmqos_parse_us("10", &us), 0);
	assert_int_equal(us, 10);
	assert_int_equal(pmqos_parse_us("10us", &us), 0);
	assert_int_equal(us, 10);
	assert_int_equal(pmqos_parse_us("1000000", &us), 0);
	assert_int_equal(us, PMQOS_MAX_US);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		us = 77;
		if (pmqos_parse_us(bad[i], &us) != -EINVAL || us != 77)
			fail_msg("'%s' accepted (%d)", bad[i], (int)us);
	}
}

static void test_parse_setting(void **state)
{
	struct pmqos_setting s;
	char buf[16];

	(void)state;
	assert_int_equal(pmqos_parse_setting("auto", &s), 0);
	assert_int_equal(s.mode, PMQOS_AUTO);
	assert_string_equal(pmqos_setting_text(&s, buf, sizeof(buf)), "auto");
	assert_int_equal(pmqos_parse_setting("off", &s), 0);
	assert_int_equal(s.mode, PMQOS_OFF);
	assert_string_equal(pmqos_setting_text(&s, buf, sizeof(buf)), "off");
	assert_int_equal(pmqos_parse_setting("25us", &s), 0);
	assert_int_equal(s.mode, PMQOS_FIXED);
	assert_int_equal(s.us, 25);
	assert_string_equal(pmqos_setting_text(&s, buf, sizeof(buf)), "25");
	assert_int_equal(pmqos_parse_setting("0", &s), 0);
	assert_int_equal(s.mode, PMQOS_FIXED);
	assert_int_equal(s.us, 0);
	assert_int_equal(pmqos_parse_setting("Auto", &s), -EINVAL);
	assert_int_equal(pmqos_parse_setting("no", &s), -EINVAL);
	assert_int_equal(pmqos_parse_setting("", &s), -EINVAL);
}

/* The request for several NICs, folded as daemon/pmqos.c folds it. */
static int32_t lowest(const struct pmqos_setting *s, const int32_t *chip_us, size_t n)
{
	int32_t low = -1;
	size_t i;

	for (i = 0; i < n; i++)
		low = pmqos_lowest(low, pmqos_wanted(s, chip_us[i]));
	return low;
}

static void test_wanted(void **state)
{
	const struct pmqos_setting autom = {.mode = PMQOS_AUTO}, off = {.mode = PMQOS_OFF},
				   fixed = {.mode = PMQOS_FIXED, .us = 40};
	const int32_t chips[] = {-1, 25, 0}, undeclared[] = {-1, -1};

	(void)state;
	/* auto: the chip's value, else the default that bars the i.MX6 WAIT state. */
	assert_int_equal(pmqos_wanted(&autom, -1), PMQOS_DEFAULT_US);
	assert_true(PMQOS_DEFAULT_US >= 1 && PMQOS_DEFAULT_US < 50);
	assert_int_equal(pmqos_wanted(&autom, 25), 25);
	assert_int_equal(pmqos_wanted(&autom, 0), 0);
	/* A configured value wins over every chip's. */
	assert_int_equal(pmqos_wanted(&fixed, 25), 40);
	assert_int_equal(pmqos_wanted(&fixed, -1), 40);
	assert_int_equal(pmqos_wanted(&off, 25), -1);
	/* Several NICs: the lowest, 0 included; none or off: no request. */
	assert_int_equal(lowest(&autom, chips, 3), 0);
	assert_int_equal(lowest(&autom, chips, 2), PMQOS_DEFAULT_US);
	assert_int_equal(lowest(&autom, undeclared, 2), PMQOS_DEFAULT_US);
	assert_int_equal(lowest(&fixed, chips, 3), 40);
	assert_int_equal(lowest(&off, chips, 3), -1);
	assert_int_equal(lowest(&autom, chips, 0), -1);
	assert_int_equal(pmqos_lowest(-1, -1), -1);
	assert_int_equal(pmqos_lowest(-1, 0), 0);
	assert_int_equal(pmqos_lowest(7, -1), 7);
	assert_int_equal(pmqos_lowest(7, 3), 3);
}

static void test_hold_wire_form(void **state)
{
	char path[] = "/tmp/rtltune-pmqos.XXXXXX";
	struct rterr err = {0};
	int32_t v[3], now = -7;
	int fd = -1, tmp;
	struct stat st;

	(void)state;
	tmp = mkstemp(path);
	assert_true(tmp >= 0);
	close(tmp);
	assert_int_equal(pmqos_hold(path, 10, &fd, &err), 0);
	assert_true(fd >= 0);
	/* A second value goes through the same file: one request, changed in place. */
	tmp = fd;
	assert_int_equal(pmqos_hold(path, 0, &fd, &err), 0);
	assert_int_equal(fd, tmp);
	assert_int_equal(pmqos_target(fd, &now, &err), 0);
	assert_int_equal(now, 10); /* a regular file: what was written first, at offset 0 */
	pmqos_release(&fd);
	assert_int_equal(fd, -1);
	pmqos_release(&fd);

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 2 * (off_t)sizeof(int32_t));
	tmp = open(path, O_RDONLY);
	assert_int_equal(read(tmp, v, sizeof(v)), 2 * (ssize_t)sizeof(int32_t));
	close(tmp);
	assert_int_equal(v[0], 10);
	assert_int_equal(v[1], 0);
	unlink(path);
}

static void test_hold_errors(void **state)
{
	struct rterr err = {0};
	int fd = -1;

	(void)state;
	assert_int_equal(pmqos_hold("/nonexistent/cpu_dma_latency", 10, &fd, &err), -ENOENT);
	assert_int_equal(fd, -1);
	assert_int_equal(err.kind, RTERR_SYSTEM);
	assert_string_equal(err.msg,
			    "open /nonexistent/cpu_dma_latency: No such file or directory");
	/* A file that refuses the write is closed again: no fd leaks, none is held. */
	rterr_clear(&err);
	assert_int_equal(pmqos_hold("/dev/full", 10, &fd, &err), -ENOSPC);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err.msg, "write 10 us to /dev/full: No space left on device"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_us),    cmocka_unit_test(test_parse_setting),
		cmocka_unit_test(test_wanted),	    cmocka_unit_test(test_hold_wire_form),
		cmocka_unit_test(test_hold_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
