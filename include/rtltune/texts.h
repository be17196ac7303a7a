/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_TEXTS_H
#define RTLTUNE_TEXTS_H

#include <stddef.h>

/*
 * Texts many records share, one copy each for the process (lib/base/texts.c): a node's
 * 1000 veths have one kind, one driver, a few operstates; its pods' drop counters a
 * handful of reasons. Never freed: a host has a handful of each. s cut at max - 1
 * characters, as the fixed buffers they replace were; out of memory, "". Never NULL.
 */
const char *text_shared(const char *s, size_t max);

#endif
