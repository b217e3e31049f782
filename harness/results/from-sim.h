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

/* @n workloads of @res (an engine that ran some of them passes those).
 * Another engine (qtest) sets the mode and its own members (r->extra, a
 * point's extra) before writing. */
NvmResults *nvm_results_from_corners(const NvmProfile *p,
                                     const NvmSimOptions *o,
                                     const char *threads_mode,
                                     const NvmCornerResult *res, unsigned n);
NvmResults *nvm_results_from_vdi(const NvmProfile *p, const NvmSimOptions *o,
                                 const NvmVdiResult *res);

#endif
