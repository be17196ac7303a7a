// SPDX-License-Identifier: GPL-2.0-only
/*
 * Profile parser (lib/plan/profile.c): the input is a profile file; it may include "base" (a
 * real profile next to it) or itself. A load either fails with a message or gives a
 * profile whose every setting names its file:line; resolving and listing never crash.
 */
#include "fuzz.h"
#include "rtltune/profile.h"

static const char base_conf[] = "[profile]\n"
				"description = base for the fuzzer\n"
				"[knobs]\n"
				"mtu = 1500\n"
				"gro = on\n"
				"[driver:r8169]\n"
				"tso = off\n"
				"[chip:rtl8126a]\n"
				"gso = off\n";

/*
 * An include may name any path. Device files and /proc would only test the kernel (and
 * /dev/stdin blocks), so inputs reaching outside the fuzzer's directory are skipped.
 */
static int reaches_out(const uint8_t *data, size_t size)
{
	static const char *const bad[] = {"/dev", "/proc", "/sys", "/run", "..", "~"};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (memmem(data, size, bad[i], strlen(bad[i])))
			return 1;
	return 0;
}

static void check_profile(const struct profile *p)
{
	struct profile_setting out[KNOB__COUNT];
	static const char *const drivers[] = {NULL, "", "r8169", "veth", "fec"};
	static const char *const chips[] = {NULL, "", "rtl8126a", "veth"};
	unsigned int i, k, d, c;
	char buf[64];

	FUZZ_CHECK(p->name && p->path && p->n_files >= 1 && p->n_sections >= 1);
	FUZZ_CHECK(p->sections[0].scope == PROFILE_SCOPE_GENERIC);
	for (i = 0; i < p->n_files; i++)
		FUZZ_CHECK(p->files[i].path && p->files[i].name && (!i || p->files[i].included_from));
	for (i = 0; i < p->n_sections; i++) {
		const struct profile_section *s = &p->sections[i];

		FUZZ_CHECK(s->name && (s->scope == PROFILE_SCOPE_GENERIC || s->match));
		FUZZ_CHECK(profile_find_section(p, s->scope, s->match) != NULL);
		for (k = 0; k < KNOB__COUNT; k++) {
			const struct profile_setting *set = &s->knobs[k];

			if (!set->line)
				continue;
			FUZZ_CHECK(set->file && set->section && set->value.kind != KV_UNSET);
			FUZZ_CHECK(profile_value_str((enum knob_id)k, &set->value, buf,
						     sizeof(buf)) != NULL);
		}
	}
	for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++)
		for (c = 0; c < sizeof(chips) / sizeof(chips[0]); c++)
			profile_resolve(p, drivers[d], chips[c], out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char base[PATH_MAX], path[PATH_MAX];
	const char *dirs[] = {fuzz_dir(), NULL};
	struct profile_summary *list = NULL;
	struct profile *p = NULL;
	struct rterr err = {0};
	unsigned int n = 0;
	int r;

	if (reaches_out(data, size))
		return -1; /* not added to the corpus */
	if (!base[0])
		fuzz_write_file(fuzz_path(base, sizeof(base), "base.conf"),
				(const uint8_t *)base_conf, sizeof(base_conf) - 1);
	fuzz_write_file(fuzz_path(path, sizeof(path), "fuzz.conf"), data, size);

	r = profile_load_dirs(path, dirs, &p, &err);
	if (r < 0) {
		FUZZ_CHECK(!p && err.kind != RTERR_NONE && err.msg[0]);
	} else {
		FUZZ_CHECK(p);
		check_profile(p);
	}
	profile_free(p);

	/* By name as `rtltune apply fuzz` finds it, and the listing `rtltune profiles` does. */
	rterr_clear(&err);
	p = NULL;
	if (profile_load_dirs("fuzz", dirs, &p, &err) == 0)
		check_profile(p);
	profile_free(p);
	rterr_clear(&err);
	if (profile_list_dirs(dirs, &list, &n, &err) == 0) {
		FUZZ_CHECK(n == 2);
		profile_list_free(list, n);
	}
	return 0;
}
