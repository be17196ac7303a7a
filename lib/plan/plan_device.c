// SPDX-License-Identifier: GPL-2.0-only
/*
 * A device planned on its stack (plan_device(), plan.h): the sequence every caller that
 * changes a NIC repeats, in one place, so none can leave out the chip's quirks.
 */
#include "rtltune/plan.h"

int plan_device(const struct nic *nic, const struct chipdb *db, const struct plan_request *req,
		const struct nic_stack *st, const struct link_info *links, int n,
		struct plan set[PLAN_SET_MAX], unsigned int *n_set, struct rterr *err)
{
	const struct chip_entry *chip = db ? chipdb_match_nic(db, nic, NULL) : NULL;
	/* Planned in place: a plan is some 15 KiB (plan_stack() takes set[0] as its base). */
	struct plan *base = &set[0];
	int r, k;

	if (req->profile)
		r = plan_profile(req->profile, nic, chip, base, err);
	else
		r = plan_values(nic, chip, req->targets, req->which, req->src, base, err);
	for (k = 0; r == 0 && req->refuse_skip && req->which && k < KNOB__COUNT; k++)
		if (req->which[k] && base->items[k].action == PLAN_SKIP)
			r = rterr_input(err, "%s: %s", nic->link.ifname,
					plan_note(base, (enum knob_id)k));
	if (r < 0)
		return r;
	if (req->adjust)
		req->adjust(base, req->arg);
	/* hv_netvsc and its VF: the pair is tuned together, so the lowers follow. */
	return plan_stack(base, req->want, st, links, n,
			  chip_has_quirk(chip, CHIP_Q_TUNE_WITH_MASTER), set, n_set, err);
}
