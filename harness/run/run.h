/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: boot the guest with the profiled drive, run a suite with fio
 * inside it, and record guest, device (QMP) and model figures per point.
 */
#ifndef NVMIMIC_RUN_H
#define NVMIMIC_RUN_H

/* argv[1] is "run"; returns the process exit status. */
int nvm_cmd_run(int argc, char **argv, const char *profile_dir);

#endif
