/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNED_TUNE_JSON_H
#define RTLTUNED_TUNE_JSON_H

#include <json-c/json.h>

#include "iface.h"

/* The tuner on ifc for `status` (NULL when it does not tune ifc). */
json_object *tune_status_json(const struct iface *ifc);
/* Each rule's candidate on ifc and which comes next, for `recommend` (NULL likewise). */
json_object *tune_recommend_json(const struct iface *ifc);

/* The host's tuner for `recommend` (NULL when the host is not tuned). */
json_object *tune_host_recommend_json(void);
/* status: the host's knobs and tuner state, into host (status's "host" object). */
void tune_host_status_json(json_object *host);

#endif
