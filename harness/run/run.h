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

/*
 * The suites of the comma-separated list @suites as a mask (bit i: suite
 * nvm_run_suites[i]; "all" is every suite it runs), 0 when one is not a
 * suite.
 */
unsigned nvm_run_suite_mask(const char *suites);
/*
 * The suites (a mask, as above) that read run's option --@name; ~0u for
 * an option every suite reads.
 */
unsigned nvm_run_opt_suites(const char *name);
/* "four-corners or vdi": the suites of a mask, for a message; g_free it. */
char *nvm_run_suite_names(unsigned mask);

#endif
