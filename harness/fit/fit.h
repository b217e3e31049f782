/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit: the free parameters of the part files (their [fit]
 * sections), fitted jointly over every drive that shares them against the
 * reviews' four-corners peaks, with leave-one-out and cross-capacity
 * predictions; and nvmimic validate: the model against published figures
 * it was not fitted to.
 */
#ifndef NVMIMIC_FIT_H
#define NVMIMIC_FIT_H

#include <stdbool.h>
#include <glib.h>

#include "opts.h"

/* The commands (nvmimic.c's table). */
extern const NvmCommand nvm_cmd_fit, nvm_cmd_validate;


/*
 * Replace @key's value in section [@group] of the profile text @text,
 * keeping every other line as it is; NULL if the key is not there.
 */
char *nvm_fit_set_value(const char *text, const char *group, const char *key,
                        const char *value);

/* Replace what lies between the markers @begin and @end in @doc. */
bool nvm_fit_replace_between(GString *doc, const char *begin, const char *end,
                             const char *body);

#endif
