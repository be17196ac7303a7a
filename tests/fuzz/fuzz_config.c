// SPDX-License-Identifier: GPL-2.0-only
/*
 * rtltuned's config parser (lib/control/config.c): the input is rtltuned.conf. A bad file fails
 * with FILE:LINE and leaves the configuration untouched; a good one yields bounded strings
 * and a listen address that parses.
 */
#include "rtltune/config.h"
#include "fuzz.h"

static char path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* The environment overrides the file; the fuzzer tests the file. */
	unsetenv("RTLTUNE_SOCKET");
	unsetenv("RTLTUNE_STATE_DIR");
	fuzz_path(path, sizeof(path), "rtltuned.conf");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtd_overrides ov = {.config = path, .autotune = -1};
	struct rtd_config cfg, before;
	struct rterr err = {0};
	char host[128];
	unsigned int port, i;
	int r;

	fuzz_write_file(path, data, size);
	memset(&cfg, 0, sizeof(cfg));
	before = cfg;
	r = config_load(&ov, &cfg, &err);
	if (r < 0) {
		FUZZ_CHECK(err.kind != RTERR_NONE && err.msg[0]);
		FUZZ_CHECK(!memcmp(&cfg, &before, sizeof(cfg)));
		fuzz_check_error_line(err.msg, path, data, size);
		return 0;
	}
	FUZZ_ASSERT_STR(cfg.profile);
	FUZZ_ASSERT_STR(cfg.metrics);
	FUZZ_ASSERT_STR(cfg.socket);
	FUZZ_ASSERT_STR(cfg.state_dir);
	FUZZ_ASSERT_STR(cfg.socket_group);
	FUZZ_CHECK(cfg.sample_interval_us > 0);
	for (i = 0; i < cfg.interfaces.n; i++)
		FUZZ_CHECK(cfg.interfaces.v[i] && cfg.interfaces.v[i][0]);
	if (cfg.metrics[0])
		config_parse_listen(cfg.metrics, host, sizeof(host), &port);
	config_free(&cfg);
	return 0;
}
