/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mixed-workload sweep (mixsweep.h): every point an independent
 * closed-loop run from the review's state, spread over a few threads.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mixsweep.h"
#include "vdi.h"

/* nvm_sim_curve()'s seed indices: four corners 0.., VDI 100.., sweep 200.. */
#define SWEEP_SEED_BASE 200

bool nvm_sweep_parse_depths(const char *list, unsigned depth[], unsigned *n,
                            GError **errp)
{
    g_auto(GStrv) items = NULL;

    *n = 0;
    if (!list) {
        for (unsigned d = 0; d < NVM_SWEEP_MAX_DEPTHS; d++) {
            depth[(*n)++] = 1u << d;
        }
        return true;
    }
    items = g_strsplit(list, ",", -1);
    for (char **it = items; *it; it++) {
        char *end;
        guint64 v;

        errno = 0;
        v = g_ascii_strtoull(*it, &end, 10);
        if (!**it || *end || errno || v < 1 || v > NVM_SWEEP_MAX_DEPTH) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "'%s' is not a count of 1..%u", *it,
                        NVM_SWEEP_MAX_DEPTH);
            return false;
        }
        if (*n == NVM_SWEEP_MAX_DEPTHS) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "more than %u counts in '%s'",
                        NVM_SWEEP_MAX_DEPTHS, list);
            return false;
        }
        if (*n && v <= depth[*n - 1]) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "'%s' does not follow %u in increasing order", *it, depth[*n - 1]);
            return false;
        }
        depth[(*n)++] = (unsigned)v;
    }
    if (!*n) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "no count given");
        return false;
    }
    return true;
}

void nvm_sweep_point(const NvmProfile *p, const NvmSimOptions *o,
                     const NvmBsSplit bs[NVM_DIRS], unsigned z,
                     double read_pct, unsigned depth, NvmMixResult *r)
{
    uint64_t dur = (uint64_t)(o->duration_s * 1e9);
    NvmModel *m = nvm_model_new(p, o->seed);
    NvmMix mix = {
        .name = (char *)"sweep",
        .read_pct = read_pct,
        .random_pct = { 100, 100 },
        .bs = { bs[NVM_DIR_READ], bs[NVM_DIR_WRITE] },
        .iodepth = depth,
        .numjobs = 1,
    };
    NvmMixSpec spec = {
        .mix = &mix,
        .lba_bytes = p->lba_bytes,
        .warmup_ns = dur / 5,
        .duration_ns = dur,
    };
    uint64_t now = 0;
    /* from the point's own coordinates: (size, count, share in 1/10 %) */
    uint64_t seed = o->seed * 7919 + SWEEP_SEED_BASE +
                    ((uint64_t)z * 4096 + depth) * 1024 +
                    (uint64_t)lround(read_pct * 10);

    nvm_sim_review_state(m, p, &spec.span_bytes, &now);
    nvm_mix_run(m, &spec, seed, &now, r);
    nvm_model_free(m);
}

typedef struct Sweep {
    const NvmProfile *p;
    const NvmSimOptions *o;
    NvmSweep *sw;
    unsigned n;                 /* points */
    unsigned next;              /* next point to run */
    GMutex lock;
} Sweep;

static void run_point(Sweep *s, unsigned i)
{
    NvmSweep *sw = s->sw;
    unsigned sh = i % NVM_SWEEP_SHARES;
    unsigned d = i / NVM_SWEEP_SHARES % sw->n_depths;
    unsigned z = i / NVM_SWEEP_SHARES / sw->n_depths;

    nvm_sweep_point(s->p, s->o, sw->bs[z], z, sw->read_pct[sh], sw->depth[d],
                    &sw->r[z][d][sh]);
}

static gpointer worker(gpointer data)
{
    Sweep *s = data;

    for (;;) {
        unsigned i;

        g_mutex_lock(&s->lock);
        i = s->next++;
        g_mutex_unlock(&s->lock);
        if (i >= s->n) {
            return NULL;
        }
        run_point(s, i);
    }
}

static void split_desc(GString *s, const NvmBsSplit *b)
{
    for (unsigned i = 0; i < b->n; i++) {
        g_string_append_printf(s, "%s%uk/%g", i ? ":" : "",
                               b->bytes[i] / 1024, b->pct[i]);
    }
}

void nvm_sweep_clear(NvmSweep *sw)
{
    for (unsigned z = 0; z < NVM_SWEEP_SIZES; z++) {
        g_free(sw->size_desc[z]);
        sw->size_desc[z] = NULL;
    }
}

bool nvm_sim_mix_sweep(const NvmProfile *p, const NvmSimOptions *o,
                       const unsigned *depth, unsigned n_depths,
                       const char *workload_dir, NvmSweep *sw,
                       GError **errp)
{
    NvmVdiResult vdi[NVM_VDI_WORKLOADS];
    const NvmMix *job = NULL;
    int vw;
    unsigned n_threads = MIN(MAX(g_get_num_processors(), 1), 4);
    GThread *th[4];
    Sweep s = { .p = p, .o = o, .sw = sw };
    GString *desc;

    g_assert(n_depths >= 1 && n_depths <= NVM_SWEEP_MAX_DEPTHS);
    /* the VDI suite's own loader: the same files and checks as --suite vdi */
    if (!nvm_vdi_load(p, workload_dir, vdi, errp)) {
        return false;
    }
    vw = nvm_vdi_index(NVM_SWEEP_VDI_JOB);
    g_assert(vw >= 0);
    job = vdi[vw].mix;
    g_assert(job);
    memset(sw, 0, sizeof(*sw));
    sw->seed = o->seed;
    sw->duration_s = o->duration_s;
    sw->warmup_s = (uint64_t)(o->duration_s * 1e9) / 5 / 1e9;
    sw->n_depths = n_depths;
    memcpy(sw->depth, depth, n_depths * sizeof(depth[0]));
    for (unsigned i = 0; i < NVM_SWEEP_SHARES; i++) {
        sw->read_pct[i] = 10.0 * i;
    }
    sw->size_name[0] = "4k";
    sw->size_desc[0] = g_strdup("4 KiB random");
    for (int d = 0; d < NVM_DIRS; d++) {
        sw->bs[0][d] = (NvmBsSplit){ 1, { 4096 }, { 100 } };
        sw->bs[1][d] = job->bs[d];
    }
    sw->size_name[1] = "vdi";
    desc = g_string_new(NULL);
    g_string_append_printf(desc, "random, the block sizes of %s.fio "
                           "(reads ", NVM_SWEEP_VDI_JOB);
    split_desc(desc, &job->bs[NVM_DIR_READ]);
    g_string_append(desc, ", writes ");
    split_desc(desc, &job->bs[NVM_DIR_WRITE]);
    g_string_append(desc, ")");
    sw->size_desc[1] = g_string_free(desc, FALSE);
    nvm_vdi_results_clear(vdi);

    s.n = NVM_SWEEP_SIZES * n_depths * NVM_SWEEP_SHARES;
    g_mutex_init(&s.lock);
    for (unsigned i = 0; i < n_threads; i++) {
        th[i] = g_thread_new("sweep", worker, &s);
    }
    for (unsigned i = 0; i < n_threads; i++) {
        g_thread_join(th[i]);
    }
    g_mutex_clear(&s.lock);
    return true;
}

void nvm_sweep_dip(const NvmSweep *sw, unsigned z, unsigned d,
                   double *min_read_pct, double *min_frac)
{
    const NvmMixResult *r = sw->r[z][d];
    double ends = MIN(r[0].all.fig.iops,
                      r[NVM_SWEEP_SHARES - 1].all.fig.iops);
    unsigned best = 0;

    for (unsigned i = 1; i < NVM_SWEEP_SHARES; i++) {
        if (r[i].all.fig.iops < r[best].all.fig.iops) {
            best = i;
        }
    }
    *min_read_pct = sw->read_pct[best];
    *min_frac = ends > 0 ? r[best].all.fig.iops / ends : NAN;
}
