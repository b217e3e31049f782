/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic sim's curve suites as results (mode "sim"): what `sim --format
 * json` prints and `sim --out DIR` writes, through the one writer.
 */
#ifndef NVMIMIC_FROM_SIM_H
#define NVMIMIC_FROM_SIM_H

#include "results.h"
#include "sim.h"
#include "vdi.h"

NvmResults *nvm_results_from_corners(const NvmProfile *p,
                                     const NvmSimOptions *o,
                                     const char *threads_mode,
                                     const NvmCornerResult *res);
NvmResults *nvm_results_from_vdi(const NvmProfile *p, const NvmSimOptions *o,
                                 const NvmVdiResult *res);

#endif
