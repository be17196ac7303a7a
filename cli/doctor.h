/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_DOCTOR_H
#define RTLTUNE_CLI_DOCTOR_H

#include <json-c/json.h>
#include <stdio.h>

/*
 * rtltune doctor (docs/doctor.md): cmd_doctor.c asks and builds one JSON document,
 * doctor_out.c renders it as text.
 */
void doctor_render(json_object *doc);

#endif
