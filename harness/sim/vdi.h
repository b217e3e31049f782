/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The VDI suite on the model (nvmimic sim --suite vdi): the VDI job files
 * through the peak + curve driver.
 */
#ifndef NVMIMIC_VDI_H
#define NVMIMIC_VDI_H

#include "mix.h"
#include "sim.h"

#define NVM_VDI_WORKLOADS 3

typedef struct NvmVdiResult {
    NvmMix *mix;
    char *path;                 /* the job file it came from */
    NvmMixResult peak;
    int target_pct[NVM_CURVE_POINTS];
    double target_iops[NVM_CURVE_POINTS];
    NvmMixResult curve[NVM_CURVE_POINTS];
    unsigned n_curve;
} NvmVdiResult;

/* nvmimic sim's seeds of VDI workload i: index NVM_VDI_SEED_BASE + i of
 * nvm_sim_curve(), apart from the four corners' */
#define NVM_VDI_SEED_BASE 100

/* The three VDI workloads' names, in suite order. */
extern const char *const nvm_vdi_names[NVM_VDI_WORKLOADS];
/* The index of the VDI workload named @name in nvm_vdi_names, or -1. */
int nvm_vdi_index(const char *name);

/*
 * Load the suite's job files from @workload_dir (NAME.fio, job [NAME]) and
 * run each against a fresh model of @p in the review's starting state:
 * closed-loop peak, then 10..120 % of it.  res[i].mix must be freed with
 * nvm_vdi_results_clear.
 */
bool nvm_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                 const char *workload_dir, NvmVdiResult res[NVM_VDI_WORKLOADS],
                 GError **errp);
void nvm_vdi_results_clear(NvmVdiResult res[NVM_VDI_WORKLOADS]);
/* Its pieces: the job files into res[].mix and .path, then workload @w
 * alone on @m, told to @hook (see nvm_sim_curve). */
bool nvm_vdi_load(const NvmProfile *p, const char *workload_dir,
                  NvmVdiResult res[NVM_VDI_WORKLOADS], GError **errp);
void nvm_sim_vdi_one(const NvmProfile *p, const NvmSimOptions *o,
                     unsigned w, NvmModel *m, const NvmRunHook *hook,
                     NvmVdiResult *r);

#endif
