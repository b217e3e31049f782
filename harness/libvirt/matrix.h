/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic matrix: a profile x suite matrix of `nvmimic run --connect` runs
 * spread over libvirt hosts, gathered into one comparison report.
 */
#ifndef NVMIMIC_MATRIX_H
#define NVMIMIC_MATRIX_H

/* argv[1] is "matrix"; returns the process exit status. */
int nvm_cmd_matrix(int argc, char **argv, const char *profile_dir);

#endif
