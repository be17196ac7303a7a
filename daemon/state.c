// SPDX-License-Identifier: GPL-2.0-only
/* The daemon-wide state (state.h): a leaf every module may use, calling none of them. */
#include "state.h"
#include "rtltune/actuate.h"
#include "rtltune/chipdb.h"
#include "rtltune/profile.h"

struct rtd rtd;

void state_changed(void)
{
	rtd.generation++;
}

int state_load_policy(const struct rtd_config *cfg, struct rterr *err)
{
	struct profile *p = NULL;
	struct chipdb *db = NULL;
	int r;

	r = chipdb_load_default(&db, err);
	if (r < 0)
		return r;
	if (cfg->profile[0]) {
		r = profile_load(cfg->profile, &p, err);
		if (r < 0) {
			chipdb_free(db);
			return r;
		}
	}
	profile_free(rtd.profile);
	chipdb_free(rtd.chips);
	rtd.profile = p;
	rtd.chips = db;
	rtd.generation++;
	return 0;
}

void state_free(void)
{
	profile_free(rtd.profile);
	chipdb_free(rtd.chips);
	actuator_free(rtd.act);
	rtd.profile = NULL;
	rtd.chips = NULL;
	rtd.act = NULL;
}

const char *decision_outcome_name(enum decision_outcome o)
{
	static const char *const names[] = {"applied", "failed",    "rolled_back", "kept",
					    "trial",   "abandoned", "step"};

	return (unsigned int)o < OUTCOME__COUNT ? names[o] : "unknown";
}
