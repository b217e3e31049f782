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
    return out->all.iops;
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

/* seeds apart from the four corners' */
#define VDI_SEED_BASE 100

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
    nvm_sim_curves(p, o, NVM_VDI_WORKLOADS, VDI_SEED_BASE, vdi_point, ptrs);
    return true;
}

void nvm_sim_vdi_one(const NvmProfile *p, const NvmSimOptions *o,
                     unsigned w, NvmModel *m, const NvmRunHook *hook,
                     NvmVdiResult *r)
{
    VdiJob job = { p, r };

    nvm_sim_curve(p, o, VDI_SEED_BASE + w, vdi_point, &job, m, hook);
}

static void json_run(GString *s, const NvmRunResult *r)
{
    g_string_append_printf(s, "\"iops\": %.1f, \"mbps\": %.2f, "
                           "\"lat_us\": %.2f, \"p50_us\": %.2f, "
                           "\"p99_us\": %.2f, \"p999_us\": %.2f",
                           r->iops, r->mbps, r->lat_us, r->p50_us,
                           r->p99_us, r->p999_us);
}

/* The four-corners fields for reads and writes together, then per class. */
static void json_mix(GString *s, const NvmMixResult *r)
{
    json_run(s, &r->all);
    g_string_append(s, ", \"read\": {");
    json_run(s, &r->cls[NVM_DIR_READ]);
    g_string_append(s, "}, \"write\": {");
    json_run(s, &r->cls[NVM_DIR_WRITE]);
    g_string_append(s, "}");
}

static void json_split(GString *s, const NvmBsSplit *bs)
{
    g_string_append(s, "[");
    for (unsigned i = 0; i < bs->n; i++) {
        g_string_append_printf(s, "%s{\"bytes\": %u, \"pct\": %g}",
                               i ? ", " : "", bs->bytes[i], bs->pct[i]);
    }
    g_string_append(s, "]");
}

void nvm_vdi_json(GString *s, const char *profile, const char *mode,
                  const NvmSimOptions *o,
                  const NvmVdiResult res[NVM_VDI_WORKLOADS],
                  const char *top_extra, NvmJsonExtraFn extra, void *opaque)
{
    g_string_append_printf(s, "{\"profile\": \"%s\", \"mode\": \"%s\", "
                           "\"suite\": \"vdi\", "
                           "\"seed\": %" G_GUINT64_FORMAT ", "
                           "\"threads_mode\": \"stated\", "
                           "\"duration_s\": %g, %s\"workloads\": [",
                           profile, mode, o->seed, o->duration_s,
                           top_extra ? top_extra : "");
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        const NvmVdiResult *r = &res[w];
        const NvmMix *x = r->mix;

        g_string_append_printf(s, "%s\n  {\"name\": \"%s\", "
                               "\"threads\": %u, \"block_bytes\": 0, "
                               "\"job_file\": \"%s\", \"mix\": "
                               "{\"read_pct\": %g, "
                               "\"random_pct_read\": %g, "
                               "\"random_pct_write\": %g, "
                               "\"mean_block_bytes\": %.0f, "
                               "\"iodepth\": %u, \"numjobs\": %u, "
                               "\"burst_ms\": %g, \"idle_ms\": %g, "
                               "\"bssplit_read\": ",
                               w ? "," : "", x->name,
                               nvm_mix_outstanding(x), r->path,
                               x->read_pct, x->random_pct[NVM_DIR_READ],
                               x->random_pct[NVM_DIR_WRITE],
                               nvm_mix_mean_block_bytes(x), x->iodepth,
                               x->numjobs, x->think_iotime_ns / 1e6,
                               x->think_ns / 1e6);
        json_split(s, &x->bs[NVM_DIR_READ]);
        g_string_append(s, ", \"bssplit_write\": ");
        json_split(s, &x->bs[NVM_DIR_WRITE]);
        g_string_append(s, "}, \"peak\": {");
        json_mix(s, &r->peak);
        if (extra) {
            extra(s, w, -1, opaque);
        }
        g_string_append(s, "}, \"curve\": [");
        for (unsigned i = 0; i < r->n_curve; i++) {
            g_string_append_printf(s, "%s\n    {\"target_pct\": %d, "
                                   "\"target_iops\": %.1f, ",
                                   i ? "," : "", r->target_pct[i],
                                   r->target_iops[i]);
            json_mix(s, &r->curve[i]);
            if (extra) {
                extra(s, w, (int)i, opaque);
            }
            g_string_append(s, "}");
        }
        g_string_append(s, "]}");
    }
    g_string_append(s, "]}\n");
}
