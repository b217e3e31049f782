/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic matrix: a profile x suite matrix of `nvmimic run --connect` runs
 * spread over libvirt hosts, gathered into one comparison report.
 */
#ifndef NVMIMIC_MATRIX_H
#define NVMIMIC_MATRIX_H

#include "opts.h"

/* The command (cli/opts.h). */
extern const NvmCommand nvm_cmd_matrix;

#endif
