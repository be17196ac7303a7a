/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_PROFILE_H
#define RTLTUNE_PROFILE_H

#include <stdbool.h>

#include "rtltune/err.h"
#include "rtltune/knob.h"

/*
 * Profiles: NAME.conf (INI, docs/profiles.md) found in the directories of
 * paths_search_dirs("RTLTUNE_PROFILE_PATH", "profiles"), the first directory holding NAME
 * winning. A profile may `include =` another; its [knobs] section sets the generic values,
 * [driver:NAME] and [chip:ID] sections override them for matching interfaces.
 *
 * Precedence for one knob on one interface: the matching [chip:ID] beats the matching
 * [driver:NAME] beats [knobs]; within one level the including file beats the included one.
 * Loading flattens the include chain, so a struct profile holds one section per level and
 * match, each value carrying the file:line that set it.
 */

enum profile_scope {
	PROFILE_SCOPE_GENERIC, /* [knobs] */
	PROFILE_SCOPE_DRIVER,  /* [driver:NAME], NAME as ethtool -i reports the driver */
	PROFILE_SCOPE_CHIP,    /* [chip:ID], ID a chip database entry id (chipdb.h) */
};

/* One knob's value and where it came from. Strings are owned by the struct profile. */
struct profile_setting {
	struct knob_value value; /* KV_UNSET when no section sets the knob (means keep) */
	const char *file;	 /* file that set it, NULL when unset */
	unsigned int line;	 /* its line in that file, 0 when unset */
	enum profile_scope scope;
	const char *section; /* "knobs", "driver:r8169", "chip:rtl8126a"; NULL when unset */
	const char *why;     /* the comment on the line or directly above it, or NULL */
};

/* A section after include flattening; knobs[] is indexed by enum knob_id. */
struct profile_section {
	enum profile_scope scope;
	const char *match; /* driver name or chip id; NULL for [knobs] */
	const char *name;  /* "knobs", "driver:r8169", ... */
	struct profile_setting knobs[KNOB__COUNT];
};

/* A file of the include chain. */
struct profile_file {
	const char *name;	   /* profile name: the file name without ".conf" */
	const char *path;	   /* as opened */
	const char *included_from; /* "FILE:LINE" of the include line; NULL for the top file */
};

struct profile {
	const char *name;	 /* of the top file */
	const char *path;	 /* of the top file */
	const char *description; /* the top file's, else the nearest included one's; or NULL */
	/* files[0] is the profile itself, files[i + 1] the one files[i] includes. */
	const struct profile_file *files;
	unsigned int n_files;
	/* sections[0] is always [knobs] (possibly empty); then driver sections, then chip
	 * sections, each group in order of first appearance (included files first). */
	const struct profile_section *sections;
	unsigned int n_sections;
	struct profile_priv *priv; /* storage; callers do not touch it */
};

/*
 * Load a profile by name (searched in the profile path) or by file path (an argument
 * containing '/'). Every error is RTERR_INPUT naming "FILE:LINE: what was expected" (or
 * the unknown name and the available ones); *out is then NULL. Returns 0 or negative errno.
 */
int profile_load(const char *name_or_path, struct profile **out, struct rterr *err);
/* Same with an explicit NULL-terminated directory list, most important first. */
int profile_load_dirs(const char *name_or_path, const char *const *dirs, struct profile **out,
		      struct rterr *err);
void profile_free(struct profile *p); /* accepts NULL */

/*
 * The settings for one interface: [knobs], then the [driver:DRIVER] section, then the
 * [chip:CHIP_ID] section applied over it. driver and chip_id may be NULL or "". Pointers
 * in out[] stay valid while p lives. A knob no section sets comes back KV_UNSET.
 */
void profile_resolve(const struct profile *p, const char *driver, const char *chip_id,
		     struct profile_setting out[KNOB__COUNT]);

/* Whether p sets a host-wide knob (only [knobs] can): then an apply plans the host too. */
bool profile_sets_host(const struct profile *p);

/* The section with this scope and match (match ignored for GENERIC), or NULL. */
const struct profile_section *profile_find_section(const struct profile *p,
						   enum profile_scope scope, const char *match);

/* A value as a profile file spells it: "on", "off", "65536", "max", "keep". */
const char *profile_value_str(enum knob_id id, const struct knob_value *v, char *buf,
			      unsigned int len);
const char *profile_scope_name(enum profile_scope s); /* "generic", "driver", "chip" */

/* One NAME.conf found in the profile path. */
struct profile_summary {
	char *name;
	char *path;
	char *description; /* NULL when none (or when the file does not load) */
	/* An earlier directory holds the same name: this file is never used. */
	bool shadowed;
	char *shadowed_by; /* path of the file that wins, when shadowed */
	char *error;	   /* why the profile does not load, or NULL */
};

/*
 * Every NAME.conf in the profile path, sorted by name, the file in use before the ones it
 * shadows. A file that fails to load is listed with its error, not fatal.
 */
int profile_list(struct profile_summary **out, unsigned int *n, struct rterr *err);
int profile_list_dirs(const char *const *dirs, struct profile_summary **out, unsigned int *n,
		      struct rterr *err);
void profile_list_free(struct profile_summary *list, unsigned int n);

#endif
