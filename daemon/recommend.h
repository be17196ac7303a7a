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

#endif
