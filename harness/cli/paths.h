/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where nvmimic finds its data: the profiles, the VDI job files, the guest
 * builder and agent, QEMU.  Each has an environment variable that wins.
 */
#ifndef NVMIMIC_PATHS_H
#define NVMIMIC_PATHS_H

/* $NVMIMIC_PROFILE_DIR, else the profiles nvmimic came with. */
const char *nvm_path_profiles(void);
/* $NVMIMIC_WORKLOAD_DIR, else the VDI job files nvmimic came with. */
const char *nvm_path_workloads(void);

#endif
