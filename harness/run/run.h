/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: boot the guest with the profiled drive, run a suite with fio
 * inside it, and record guest, device (QMP) and model figures per point.
 */
#ifndef NVMIMIC_RUN_H
#define NVMIMIC_RUN_H

#include "opts.h"

/* The command (cli/opts.h). */
extern const NvmCommand nvm_cmd_run;
/* The suites --suite takes, "all" last; NULL-terminated. */
extern const char *const nvm_run_suites[];

#endif
