// SPDX-License-Identifier: GPL-2.0-only
/* The interface table: selection by glob/driver/chip, pending applications, status. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "rtltune/chipdb.h"
#include "rtltune/link.h"
#include "rtltune/nic.h"
#include "rtltuned.h"

struct iface *iface_by_index(int ifindex)
{
	struct iface *i;

	for (i = rtd.ifaces; i; i = i->next)
		if (i->ifindex == ifindex)
			return i;
	return NULL;
}

struct iface *iface_by_name(const char *name)
{
	struct iface *i;

	for (i = rtd.ifaces; i; i = i->next)
		if (strcmp(i->name, name) == 0)
			return i;
	return NULL;
}

void iface_remove(struct iface *ifc)
{
	struct iface **pp;

	for (pp = &rtd.ifaces; *pp; pp = &(*pp)->next) {
		if (*pp == ifc) {
			*pp = ifc->next;
			rtd.n_ifaces--;
			free(ifc);
			rtd.generation++;
			return;
		}
	}
}

/* A glob "names" an interface when it matches and is more than a bare wildcard. */
static bool glob_names(const char *glob)
{
	return glob[0] != '*' && glob[0] != '?' && glob[0] != '[';
}

bool iface_select(struct iface *ifc)
{
	const struct rtd_config *c = &rtd.cfg;
	bool matched = c->interfaces.n == 0, named = false, was = ifc->managed;
	unsigned int i;

	ifc->managed = false;
	if (ifc->flags & IFF_LOOPBACK) {
		snprintf(ifc->why, sizeof(ifc->why), "loopback");
		goto out;
	}
	for (i = 0; i < c->interfaces.n; i++) {
		if (fnmatch(c->interfaces.v[i], ifc->name, 0) == 0) {
			matched = true;
			named |= glob_names(c->interfaces.v[i]);
		}
	}
	if (!matched) {
		snprintf(ifc->why, sizeof(ifc->why), "name matches no glob in interfaces");
		goto out;
	}
	for (i = 0; i < c->exclude.n; i++) {
		if (fnmatch(c->exclude.v[i], ifc->name, 0) == 0) {
			snprintf(ifc->why, sizeof(ifc->why), "excluded by '%s'", c->exclude.v[i]);
			goto out;
		}
	}
	/* Virtual devices (veth, bridge, bond, vlan, tun, ...) carry an IFLA_INFO_KIND. They
	 * ride on a real NIC that is tuned on its own, so only an explicit glob takes them. */
	if (ifc->kind[0] && !named) {
		snprintf(ifc->why, sizeof(ifc->why),
			 "virtual (%s): name it with a glob in interfaces to manage it", ifc->kind);
		goto out;
	}
	if (c->drivers.n && !strv_contains(&c->drivers, ifc->driver)) {
		snprintf(ifc->why, sizeof(ifc->why), "driver '%s' not in drivers",
			 ifc->driver[0] ? ifc->driver : "unknown");
		goto out;
	}
	if (c->chips.n && !strv_contains(&c->chips, ifc->chip)) {
		snprintf(ifc->why, sizeof(ifc->why), "chip '%s' not in chips",
			 ifc->chip[0] ? ifc->chip : "none");
		goto out;
	}
	ifc->managed = true;
	snprintf(ifc->why, sizeof(ifc->why), "%s", named ? "named by interfaces" : "selected");
out:
	if (ifc->managed != was)
		rtd.generation++;
	return ifc->managed;
}

void iface_refresh(struct iface *ifc)
{
	struct chip_limit_eff eff[CHIP_LIMIT__COUNT];
	const struct chip_entry *chip = NULL;
	struct rterr err;
	struct nic nic;
	int k;

	if (nic_snapshot("/sys", ifc->name, &nic, &err) < 0)
		return; /* gone meanwhile: the DELLINK event removes it */
	snprintf(ifc->driver, sizeof(ifc->driver), "%s", nic.have_drvinfo ? nic.drv.driver : "");
	if (rtd.chips)
		chip = chipdb_match_nic(rtd.chips, &nic, NULL);
	snprintf(ifc->chip, sizeof(ifc->chip), "%s", chip ? chip->id : "");
	for (k = 0; k < KNOB__COUNT; k++)
		ifc->knob[k] = nic_knob_value(&nic, (enum knob_id)k);
	chip_effective_limits(chip, &nic, eff);
	ifc->gso_max = eff[CHIP_LIMIT_GSO_MAX_SIZE].value;
	ifc->gro_max = eff[CHIP_LIMIT_GRO_MAX_SIZE].value;
	ifc->mtu_max = eff[CHIP_LIMIT_MAX_MTU].value;
	ifc->quirks = chip ? chip->quirks : 0;
	ifc->knob_dirty = false;
	rtd.generation++;
}

void iface_schedule_apply(struct iface *ifc, uint64_t delay_us)
{
	if (!rtd.cfg.profile[0] || !ifc->managed)
		return;
	ifc->apply_pending = true;
	ifc->apply_due_us = now_us() + delay_us;
}

/* Applications per loop turn are bounded in time: a burst of 200 new interfaces (each a
 * journal write with fsync) must not keep the socket and /metrics waiting for seconds. */
#define APPLY_SLICE_US 20000

uint64_t iface_run_pending(void)
{
	uint64_t now = now_us(), next = UINT64_MAX, start = now;
	struct iface *ifc;
	struct rterr err;

	for (ifc = rtd.ifaces; ifc; ifc = ifc->next) {
		if (!ifc->apply_pending)
			continue;
		if (now_us() - start > APPLY_SLICE_US)
			return 0; /* the rest at the next turn, after other events */
		if (ifc->apply_due_us > now) {
			if (ifc->apply_due_us - now < next)
				next = ifc->apply_due_us - now;
			continue;
		}
		ifc->apply_pending = false;
		if (!ifc->managed || !rtd.cfg.profile[0])
			continue;
		rterr_clear(&err);
		ifc->apply_rc = daemon_apply_profile(ifc, &err);
		ifc->applied_at = now_real();
		snprintf(ifc->profile, sizeof(ifc->profile), "%s", rtd.cfg.profile);
		snprintf(ifc->apply_msg, sizeof(ifc->apply_msg), "%s",
			 ifc->apply_rc < 0 ? err.msg : "");
		if (ifc->apply_rc < 0)
			dlog(LOG_ERR, ifc->name, "profile %s not applied: %s", rtd.cfg.profile,
			     err.msg);
		ifc->knob_dirty = true;
		rtd.generation++;
	}
	return next;
}

static json_object *knobs_json(const struct iface *ifc)
{
	json_object *o = json_object_new_object();
	int k;

	for (k = 0; k < KNOB__COUNT; k++)
		json_object_object_add(
			o, knob_name((enum knob_id)k),
			ifc->knob[k] == LINK_UNSET ? NULL : json_object_new_int64(ifc->knob[k]));
	return o;
}

json_object *iface_status_json(const struct iface *ifc)
{
	json_object *o = json_object_new_object(), *ap;

	json_object_object_add(o, "ifname", json_object_new_string(ifc->name));
	json_object_object_add(o, "ifindex", json_object_new_int(ifc->ifindex));
	json_object_object_add(o, "kind", ifc->kind[0] ? json_object_new_string(ifc->kind) : NULL);
	json_object_object_add(o, "driver",
			       ifc->driver[0] ? json_object_new_string(ifc->driver) : NULL);
	json_object_object_add(o, "chip", ifc->chip[0] ? json_object_new_string(ifc->chip) : NULL);
	json_object_object_add(o, "operstate", json_object_new_string(ifc->operstate));
	json_object_object_add(o, "managed", json_object_new_boolean(ifc->managed));
	json_object_object_add(o, "why", json_object_new_string(ifc->why));
	json_object_object_add(o, "autotune", json_object_new_boolean(ifc->autotune));
	json_object_object_add(o, "carrier_changes", json_object_new_int(ifc->carrier_changes));
	if (ifc->applied_at > 0) {
		ap = json_object_new_object();
		json_object_object_add(ap, "profile", json_object_new_string(ifc->profile));
		json_object_object_add(ap, "ok", json_object_new_boolean(ifc->apply_rc == 0));
		json_object_object_add(ap, "changes", json_object_new_int(ifc->applied_changes));
		json_object_object_add(ap, "error",
				       ifc->apply_rc < 0 ? json_object_new_string(ifc->apply_msg)
							 : NULL);
		json_object_object_add(ap, "time", json_object_new_double(ifc->applied_at));
		json_object_object_add(o, "applied", ap);
	} else {
		json_object_object_add(o, "applied", NULL);
	}
	json_object_object_add(o, "knobs", knobs_json(ifc));
	json_object_object_add(o, "tuner", tune_status_json(ifc));
	return o;
}
