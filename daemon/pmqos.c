// SPDX-License-Identifier: GPL-2.0-only
/*
 * PM QoS for chips that need shallow CPU idle (pmqos.h): the i.MX6 fec's interrupts do not
 * wake a CPU from the WAIT state (erratum ERR006687, docs/chips.md), and keeping the CPUs
 * out of it was the largest gain on such a board. One request, like tuned's force_latency.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iface.h"
#include "log.h"
#include "pmqos.h"
#include "rtltune/chipdb.h"
#include "rtltune/pmqos.h"
#include "state.h"

static struct {
	int fd; /* the request; -1 while none is held */
	int32_t held_us;
	/* The last failure to hold one, "" when none: logged once, shown until it clears.
	 * failed_us is what it failed for, so the same request is not retried every sample. */
	char error[320];
	int32_t failed_us;
	bool stopped;
	/* What the last evaluation saw: the table's chip changes and the policy's generation
	 * (the chip database). With the same, a sample has nothing new for PM QoS. */
	bool evaluated;
	uint64_t chip_changes, generation;
} pq = {.fd = -1, .failed_us = -1};

static const char *device_path(void)
{
	const char *env = getenv("RTLTUNE_PM_QOS_DEVICE");

	return env && *env ? env : PMQOS_DEVICE;
}

/* A managed interface's shallow-idle chip entry, or NULL. */
static const struct chip_entry *shallow_chip(const struct iface *ifc)
{
	const struct chip_entry *chip;

	if (!ifc->managed || !ifc->chip[0] || !rtd.chips)
		return NULL;
	chip = chipdb_find(rtd.chips, ifc->chip);
	return chip_has_quirk(chip, CHIP_Q_SHALLOW_IDLE) ? chip : NULL;
}

/*
 * The lowest latency the managed shallow-idle interfaces (but skip, which is going) ask
 * for, -1 when none does or the setting is off; their names into names (comma-separated)
 * and/or arr.
 */
static int32_t collect(const struct iface *skip, char *names, size_t len, json_object *arr)
{
	const struct chip_entry *chip;
	const struct iface *ifc;
	int32_t low = -1;
	size_t off = 0;

	if (names && len)
		names[0] = '\0';
	for (ifc = iface_first(); ifc; ifc = ifc->next) {
		if (ifc == skip || !(chip = shallow_chip(ifc)))
			continue;
		low = pmqos_lowest(
			low, pmqos_wanted(&rtd.cfg.cpu_dma_latency, chip->cpu_dma_latency_us));
		if (names && off < len)
			off += (size_t)snprintf(names + off, len - off, "%s%s", off ? ", " : "",
						ifc->name);
		if (arr)
			json_object_array_add(arr, json_object_new_string(ifc->name));
	}
	return low;
}

static void release(const char *why)
{
	if (pq.fd < 0)
		return;
	pmqos_release(&pq.fd);
	dlog(LOG_INFO, NULL, "pm qos: released cpu_dma_latency (%s)", why);
	state_changed();
}

static void evaluate(const struct iface *skip, bool retry)
{
	struct rterr err = {0};
	char names[256];
	int32_t want, was = pq.fd >= 0 ? pq.held_us : -1, now;

	if (pq.stopped)
		return;
	pq.evaluated = true;
	pq.chip_changes = iface_chip_changes();
	pq.generation = rtd.generation;
	want = collect(skip, names, sizeof(names), NULL);
	if (want < 0) {
		release(rtd.cfg.cpu_dma_latency.mode == PMQOS_OFF
				? "cpu_dma_latency = off"
				: "no managed interface needs shallow idle");
		if (pq.error[0])
			state_changed();
		pq.error[0] = '\0';
		pq.failed_us = -1;
		return;
	}
	if (want == was)
		return;
	if (pq.error[0] && want == pq.failed_us && !retry)
		return;
	if (pmqos_hold(device_path(), want, &pq.fd, &err) < 0) {
		/* Once per distinct failure: the next sample would otherwise say it again. A
		 * failed change leaves the request held before in place. */
		if (strcmp(err.msg, pq.error) != 0)
			dlog(LOG_WARNING, NULL,
			     "pm qos: cannot hold cpu_dma_latency at %d us for %s: %s; %s",
			     (int)want, names, err.msg,
			     was < 0 ? "CPU idle stays unconstrained"
				     : "the previous request stays");
		snprintf(pq.error, sizeof(pq.error), "%s", err.msg);
		pq.failed_us = want;
		state_changed();
		return;
	}
	pq.held_us = want;
	pq.error[0] = '\0';
	pq.failed_us = -1;
	if (was < 0)
		dlog(LOG_INFO, NULL, "pm qos: holding cpu_dma_latency at %d us for %s", (int)want,
		     names);
	else
		dlog(LOG_INFO, NULL, "pm qos: cpu_dma_latency now %d us (was %d) for %s", (int)want,
		     (int)was, names);
	/* Another process may ask for less: the kernel keeps the lowest. Said, not fought. */
	if (pmqos_target(pq.fd, &now, &err) == 0 && now < want)
		dlog(LOG_NOTICE, NULL,
		     "pm qos: the system-wide cpu_dma_latency is %d us: another "
		     "request is lower",
		     (int)now);
	state_changed();
}

void pmqos_iface_event(struct iface *ifc, const struct iface_change *c)
{
	/* Observers run before a gone interface leaves the table. */
	evaluate(c->ev == IFACE_GONE ? ifc : NULL, false);
}

/*
 * What collect() reads: the managed flag (changed only with an interface event, which
 * evaluates), the chip id (iface_update(): counted by iface_chip_changes()), the chip
 * database and cpu_dma_latency (a reload: retry). Without a retry, a failed request is not
 * tried again for the same value anyway. So a sample with none of them changed has nothing
 * to evaluate: 1000 pods are not walked every sample.
 */
void pmqos_update(bool retry)
{
	if (!retry && pq.evaluated && pq.chip_changes == iface_chip_changes() &&
	    pq.generation == rtd.generation)
		return;
	evaluate(NULL, retry);
}

void pmqos_stop(void)
{
	release("rtltuned stopping");
	pq.stopped = true;
}

bool pmqos_held(int32_t *us)
{
	if (pq.fd < 0)
		return false;
	*us = pq.held_us;
	return true;
}

json_object *pmqos_status_json(void)
{
	json_object *o = json_object_new_object(), *who = json_object_new_array();
	struct rterr err = {0};
	char setting[16];
	int32_t want, now;

	want = collect(NULL, NULL, 0, who);
	json_object_object_add(o, "setting",
			       json_object_new_string(pmqos_setting_text(
				       &rtd.cfg.cpu_dma_latency, setting, sizeof(setting))));
	json_object_object_add(o, "device", json_object_new_string(device_path()));
	json_object_object_add(o, "held", json_object_new_boolean(pq.fd >= 0));
	json_object_object_add(o, "cpu_dma_latency_us",
			       pq.fd >= 0 ? json_object_new_int(pq.held_us) : NULL);
	json_object_object_add(o, "wanted_us", want >= 0 ? json_object_new_int(want) : NULL);
	json_object_object_add(o, "system_us",
			       pq.fd >= 0 && pmqos_target(pq.fd, &now, &err) == 0
				       ? json_object_new_int(now)
				       : NULL);
	json_object_object_add(o, "for", who);
	json_object_object_add(o, "error", pq.error[0] ? json_object_new_string(pq.error) : NULL);
	return o;
}
