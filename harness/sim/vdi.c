/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The VDI suite in simulated time: the job files through the one job
 * runner (nvm_sim_curves), each point a mixed workload (mix.c).
 */
#include <string.h>

#include "vdi.h"

const char *const nvm_vdi_names[NVM_VDI_WORKLOADS] = {
    "vdi-boot", "vdi-initial-login", "vdi-monday-login",
};

int nvm_vdi_index(const char *name)
{
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        if (!strcmp(nvm_vdi_names[w], name)) {
            return w;
        }
    }
    return -1;
}

typedef struct VdiJob {
    const NvmProfile *p;
    NvmVdiResult *r;
} VdiJob;

static double vdi_point(void *job, NvmModel *m, const NvmSimPoint *pt,
                        uint64_t *now_ns)
{
    VdiJob *j = job;
    NvmVdiResult *r = j->r;
    NvmMixSpec spec = {
        .mix = r->mix,
        .lba_bytes = j->p->lba_bytes,
        .span_bytes = pt->span_bytes,
        .warmup_ns = pt->warmup_ns,
        .duration_ns = pt->duration_ns,
        .rate_iops = pt->rate_iops,
        .hook = pt->hook,
    };
    NvmMixResult *out = pt->k ? &r->curve[pt->k - 1] : &r->peak;

    nvm_mix_run(m, &spec, pt->seed, now_ns, out);
    if (pt->k) {
        r->target_pct[pt->k - 1] = pt->pct;
        r->target_iops[pt->k - 1] = pt->rate_iops;
        r->n_curve = pt->k;
    }
    return out->all.fig.iops;
}

void nvm_vdi_results_clear(NvmVdiResult res[NVM_VDI_WORKLOADS])
{
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        nvm_mix_free(res[w].mix);
        g_free(res[w].path);
        res[w].mix = NULL;
        res[w].path = NULL;
    }
}

bool nvm_vdi_load(const NvmProfile *p, const char *workload_dir,
                  NvmVdiResult res[NVM_VDI_WORKLOADS], GError **errp)
{
    memset(res, 0, sizeof(NvmVdiResult) * NVM_VDI_WORKLOADS);
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        g_autofree char *file = g_strdup_printf("%s.fio", nvm_vdi_names[w]);
        NvmMix *mix;

        res[w].path = g_build_filename(workload_dir, file, NULL);
        mix = nvm_jobfile_load(res[w].path, nvm_vdi_names[w], errp);
        if (!mix) {
            nvm_vdi_results_clear(res);
            return false;
        }
        for (int d = 0; d < NVM_DIRS; d++) {
            for (unsigned i = 0; i < mix->bs[d].n; i++) {
                if (mix->bs[d].bytes[i] % p->lba_bytes) {
                    g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                                "%s: block size %u is not a multiple of "
                                "%s's %u-byte LBA", res[w].path,
                                mix->bs[d].bytes[i], p->name, p->lba_bytes);
                    nvm_mix_free(mix);
                    nvm_vdi_results_clear(res);
                    return false;
                }
            }
        }
        res[w].mix = mix;
    }
    return true;
}

bool nvm_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                 const char *workload_dir, NvmVdiResult res[NVM_VDI_WORKLOADS],
                 GError **errp)
{
    VdiJob jobs[NVM_VDI_WORKLOADS];
    void *ptrs[NVM_VDI_WORKLOADS];

    if (!nvm_vdi_load(p, workload_dir, res, errp)) {
        return false;
    }
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        jobs[w] = (VdiJob){ p, &res[w] };
        ptrs[w] = &jobs[w];
    }
    nvm_sim_curves(p, o, NVM_VDI_WORKLOADS, NVM_VDI_SEED_BASE, vdi_point, ptrs,
                   NULL);
    return true;
}

void nvm_sim_vdi_one(const NvmProfile *p, const NvmSimOptions *o,
                     unsigned w, NvmModel *m, const NvmRunHook *hook,
                     NvmVdiResult *r)
{
    VdiJob job = { p, r };

    nvm_sim_curve(p, o, NVM_VDI_SEED_BASE + w, vdi_point, &job, m, hook,
                  false);
}
