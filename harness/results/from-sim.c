/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The results of nvmimic sim's curve suites (four corners, VDI) as an
 * NvmResults of mode "sim", for the one writer.
 */
#include <math.h>

#include "from-sim.h"

static NvmResults *sim_results(const NvmProfile *p, const char *suite,
                               const NvmSimOptions *o,
                               const char *threads_mode)
{
    NvmResults *r = nvm_results_new(p->name, "sim");

    r->suite = g_strdup(suite);
    r->seed = (double)o->seed;
    r->threads_mode = g_strdup(threads_mode);
    r->duration_s = o->duration_s;
    return r;
}

NvmResults *nvm_results_from_corners(const NvmProfile *p,
                                     const NvmSimOptions *o,
                                     const char *threads_mode,
                                     const NvmCornerResult *res, unsigned n)
{
    NvmResults *r = sim_results(p, "four-corners", o, threads_mode);

    for (unsigned w = 0; w < n; w++) {
        const NvmCornerResult *c = &res[w];
        NvmResWork *wk = nvm_res_work_new(c->wl.name);

        wk->threads = c->wl.threads;
        wk->block_bytes = c->wl.block_bytes;
        wk->has_peak = true;
        wk->peak.fig = c->peak.fig;
        for (unsigned i = 0; i < c->n_curve; i++) {
            NvmResPoint pt;

            nvm_res_point_init(&pt);
            pt.target_pct = c->target_pct[i];
            pt.target_iops = c->target_iops[i];
            pt.fig = c->curve[i].fig;
            g_array_append_val(wk->curve, pt);
        }
        g_ptr_array_add(r->works, wk);
    }
    return r;
}

/* The job file's mix as sim --suite vdi describes it. */
static JsonNode *mix_node(const NvmMix *x)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    const char *split[2] = { "bssplit_read", "bssplit_write" };

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "read_pct");
    json_builder_add_double_value(b, x->read_pct);
    json_builder_set_member_name(b, "random_pct_read");
    json_builder_add_double_value(b, x->random_pct[NVM_DIR_READ]);
    json_builder_set_member_name(b, "random_pct_write");
    json_builder_add_double_value(b, x->random_pct[NVM_DIR_WRITE]);
    json_builder_set_member_name(b, "mean_block_bytes");
    json_builder_add_double_value(b, round(nvm_mix_mean_block_bytes(x)));
    json_builder_set_member_name(b, "iodepth");
    json_builder_add_int_value(b, x->iodepth);
    json_builder_set_member_name(b, "numjobs");
    json_builder_add_int_value(b, x->numjobs);
    json_builder_set_member_name(b, "burst_ms");
    json_builder_add_double_value(b, x->think_iotime_ns / 1e6);
    json_builder_set_member_name(b, "idle_ms");
    json_builder_add_double_value(b, x->think_ns / 1e6);
    for (int d = 0; d < NVM_DIRS; d++) {
        json_builder_set_member_name(b, split[d]);
        json_builder_begin_array(b);
        for (unsigned i = 0; i < x->bs[d].n; i++) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "bytes");
            json_builder_add_int_value(b, x->bs[d].bytes[i]);
            json_builder_set_member_name(b, "pct");
            json_builder_add_double_value(b, x->bs[d].pct[i]);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static void mix_point(NvmResPoint *p, const NvmMixResult *m)
{
    p->fig = m->all.fig;
    p->has_rw = true;
    p->rd = m->cls[NVM_DIR_READ].fig;
    p->wr = m->cls[NVM_DIR_WRITE].fig;
}

NvmResults *nvm_results_from_vdi(const NvmProfile *p, const NvmSimOptions *o,
                                 const NvmVdiResult *res)
{
    NvmResults *r = sim_results(p, "vdi", o, "stated");

    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        const NvmVdiResult *v = &res[w];
        NvmResWork *wk = nvm_res_work_new(v->mix->name);

        wk->threads = nvm_mix_outstanding(v->mix);
        wk->block_bytes = 0;            /* mixed sizes */
        wk->job_file = g_strdup(v->path);
        wk->mix = mix_node(v->mix);
        wk->has_peak = true;
        mix_point(&wk->peak, &v->peak);
        for (unsigned i = 0; i < v->n_curve; i++) {
            NvmResPoint pt;

            nvm_res_point_init(&pt);
            pt.target_pct = v->target_pct[i];
            pt.target_iops = v->target_iops[i];
            mix_point(&pt, &v->curve[i]);
            g_array_append_val(wk->curve, pt);
        }
        g_ptr_array_add(r->works, wk);
    }
    return r;
}
