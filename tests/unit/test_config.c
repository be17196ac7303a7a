// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltuned.conf (lib/control/config.c), as the daemon and the CLI read it: a file's values over the
 * defaults, errors naming FILE:LINE, config_read() ignoring the environment that
 * config_load() applies, and which links config_selects() gives the daemon.
 */
#include <errno.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtltune/config.h"
#include "rtltune/control.h"

static char path[64];

static void write_conf(const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/rtltune-test-config.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_read_values(void **state)
{
	struct rtd_config cfg = {0};
	struct rterr err = {0};

	(void)state;
	write_conf("# a comment\n[daemon]\nsocket = /run/x/ctl.sock\ninterfaces = eth*, enp*\n"
		   "exclude = enp9s0\nautotune = no\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_string_equal(cfg.socket, "/run/x/ctl.sock");
	assert_string_equal(cfg.path, path);
	assert_int_equal(cfg.interfaces.n, 2);
	assert_string_equal(cfg.interfaces.v[1], "enp*");
	assert_int_equal(cfg.exclude.n, 1);
	assert_false(cfg.autotune);
	/* Not in the file: the built-in defaults. */
	assert_string_equal(cfg.metrics, RTD_DEFAULT_METRICS);
	config_free(&cfg);

	assert_int_equal(config_read(NULL, &cfg, &err), 0);
	assert_string_equal(cfg.socket, CONTROL_DEFAULT_SOCKET);
	assert_string_equal(cfg.path, "");
	config_free(&cfg);
}

static void test_read_errors(void **state)
{
	struct rtd_config cfg = {0};
	struct rterr err = {0};
	char want[128];

	(void)state;
	write_conf("[daemon]\nprofile = throughput\n\nsocket = relative.sock\n");
	assert_int_equal(config_read(path, &cfg, &err), -EINVAL);
	assert_int_equal(err.kind, RTERR_INPUT);
	snprintf(want, sizeof(want), "%s:4: socket: expected an absolute path", path);
	assert_non_null(strstr(err.msg, want));
	config_free(&cfg);

	write_conf("[daemon]\nthis is not ini\n");
	assert_int_equal(config_read(path, &cfg, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: expected 'key = value'", path);
	assert_non_null(strstr(err.msg, want));
	config_free(&cfg);

	write_conf("[daemon]\nsockett = /x\n");
	assert_int_equal(config_read(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown key 'sockett'"));
	config_free(&cfg);

	assert_int_equal(config_read("/nonexistent/rtltuned.conf", &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no such file"));
	config_free(&cfg);
}

/* The daemon's environment overrides the file in config_load(); config_read() is the file. */
static void test_read_ignores_environment(void **state)
{
	struct rtd_overrides ov = {.config = path, .autotune = -1};
	struct rtd_config cfg = {0};
	struct rterr err = {0};

	(void)state;
	write_conf("socket = /run/file.sock\n");
	setenv("RTLTUNE_SOCKET", "/run/env.sock", 1);
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_string_equal(cfg.socket, "/run/file.sock");
	config_free(&cfg);
	assert_int_equal(config_load(&ov, &cfg, &err), 0);
	assert_string_equal(cfg.socket, "/run/env.sock");
	config_free(&cfg);
	unsetenv("RTLTUNE_SOCKET");
}

static bool selects(const struct rtd_config *cfg, const char *name, const char *kind,
		    const char *driver, const char *chip, char *why, size_t len)
{
	struct config_link l = {
		.name = name, .flags = 0, .kind = kind, .driver = driver, .chip = chip};

	return config_selects(cfg, &l, why, len);
}

static void test_selects(void **state)
{
	struct rtd_config cfg = {0};
	struct config_link lo = {
		.name = "lo", .flags = IFF_LOOPBACK, .kind = "", .driver = "", .chip = ""};
	struct rterr err = {0};
	char why[128];

	(void)state;
	assert_int_equal(config_read(NULL, &cfg, &err), 0);
	/* Defaults: every device, no virtual link, never loopback. */
	assert_true(selects(&cfg, "eth0", "", "virtio_net", "virtio-net", why, sizeof(why)));
	assert_string_equal(why, "selected");
	assert_false(selects(&cfg, "va", "veth", "veth", "veth", why, sizeof(why)));
	assert_string_equal(why, "virtual (veth): name it with a glob in interfaces to manage it");
	assert_false(config_selects(&cfg, &lo, why, sizeof(why)));
	assert_string_equal(why, "loopback");
	config_free(&cfg);

	write_conf("interfaces = v*, eth0\nexclude = vb\ndrivers = veth\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_true(selects(&cfg, "va", "veth", "veth", "veth", why, sizeof(why)));
	assert_string_equal(why, "named by interfaces");
	assert_false(selects(&cfg, "vb", "veth", "veth", "veth", why, sizeof(why)));
	assert_string_equal(why, "excluded by 'vb'");
	assert_false(selects(&cfg, "wa", "veth", "veth", "veth", why, sizeof(why)));
	assert_string_equal(why, "name matches no glob in interfaces");
	assert_false(selects(&cfg, "eth0", "", "virtio_net", "", why, sizeof(why)));
	assert_string_equal(why, "driver 'virtio_net' not in drivers");
	config_free(&cfg);

	write_conf("interfaces = *\nchips = r8169-8125\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	/* A bare wildcard does not name a virtual link. */
	assert_false(selects(&cfg, "va", "veth", "veth", "veth", why, sizeof(why)));
	assert_false(selects(&cfg, "eth0", "", "r8169", "", why, sizeof(why)));
	assert_string_equal(why, "chip 'none' not in chips");
	assert_true(selects(&cfg, "eth0", "", "r8169", "r8169-8125", why, sizeof(why)));
	config_free(&cfg);
}

/* namespaces = ...: which namespaces, and NETNS/IFACE in interfaces and exclude. */
static void test_selects_pods(void **state)
{
	struct rtd_config cfg = {0};
	struct config_link pod = {
		.name = "eth0", .netns = "cni-1", .kind = "veth", .driver = "veth", .chip = ""};
	struct rterr err = {0};
	char why[128];

	(void)state;
	assert_int_equal(config_read(NULL, &cfg, &err), 0);
	assert_int_equal(cfg.namespaces.n, 0); /* off by default */
	assert_false(config_selects_netns(&cfg, "cni-1"));
	/* Where names are looked up: ip netns's and Docker's directories by default. */
	assert_int_equal(cfg.netns_dirs.n, 2);
	assert_string_equal(cfg.netns_dirs.v[0], "/run/netns");
	assert_string_equal(cfg.netns_dirs.v[1], "/run/docker/netns");
	config_free(&cfg);

	write_conf("netns_dirs = /run/netns, /srv/ns\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_int_equal(cfg.netns_dirs.n, 2);
	assert_string_equal(cfg.netns_dirs.v[1], "/srv/ns");
	config_free(&cfg);
	write_conf("netns_dirs = relative/dir\n");
	assert_int_equal(config_read(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "netns_dirs: expected absolute directory paths"));
	config_free(&cfg);

	write_conf("namespaces = cni-*, pod9\ninterfaces = */eth0, up0\nexclude = cni-2/*\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_true(config_selects_netns(&cfg, "cni-1"));
	assert_true(config_selects_netns(&cfg, "pod9"));
	assert_false(config_selects_netns(&cfg, "other"));
	/* "*\/eth0" names a pod's eth0: its part after the slash starts with no wildcard. */
	assert_true(config_selects(&cfg, &pod, why, sizeof(why)));
	assert_string_equal(why, "named by interfaces");
	pod.netns = "cni-2";
	assert_false(config_selects(&cfg, &pod, why, sizeof(why)));
	assert_string_equal(why, "excluded by 'cni-2/*'");
	/* The daemon's own eth0 is no NETNS/IFACE: "*\/eth0" does not take it. */
	pod.netns = NULL;
	assert_false(config_selects(&cfg, &pod, why, sizeof(why)));
	assert_string_equal(why, "name matches no glob in interfaces");
	config_free(&cfg);

	/* A plain glob matches a pod's device by its own name too; a wildcard does not cross
	 * the slash. */
	write_conf("namespaces = *\ninterfaces = eth0, x*/v*\n");
	assert_int_equal(config_read(path, &cfg, &err), 0);
	assert_true(config_selects_netns(&cfg, "anything"));
	pod.netns = "cni-1";
	assert_true(config_selects(&cfg, &pod, why, sizeof(why)));
	pod.name = "veth0";
	pod.netns = "xa/b";
	assert_false(config_selects(&cfg, &pod, why, sizeof(why)));
	config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_ignores_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selects_pods, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
