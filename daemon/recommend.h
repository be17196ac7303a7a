/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_RECOMMEND_H
#define RTLTUNED_RECOMMEND_H

#include <json-c/json.h>

struct iface;

/*
 * What the recent window suggests for one interface: knob changes with the observation
 * behind each, and notes that are not knob changes. Advice only: nothing is changed.
 */
json_object *recommend_json(struct iface *ifc);
/*
 * The host's part (`recommend` without IFACE): the host-wide knobs the last sample's
 * softnet_stat calls for (backlog drops: netdev_max_backlog; time squeezes: netdev_budget
 * and _usecs), by the tuner's thresholds and steps, and the host tuner's summary.
 */
json_object *recommend_host_json(void);

#endif
