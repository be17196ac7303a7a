/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_CLI_TERM_H
#define RTLTUNE_CLI_TERM_H

#include <stdbool.h>

/* stdout and stderr through the control-byte escaping (term.c); first thing in main(). */
void cli_term_init(void);
/* --json: stdout escapes as \u00HH, valid inside the JSON strings those bytes sit in. */
void cli_term_json(bool json);
/* A control sequence meant for the terminal (stats --watch clears the screen), unescaped. */
void cli_term_raw(const char *seq);

#endif
