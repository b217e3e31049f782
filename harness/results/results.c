/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of a run's results (results.h): NvmResults and its parts made
 * empty (each member held as results.h says of one not known), freed, and
 * looked up; the names of the latency-gap classes and the TPC-C
 * transactions.  read.c fills it from results.json, write.c writes it.
 */
#include <math.h>
#include <string.h>

#include "results.h"

const char *const nvm_res_gap_class[NVM_RES_GAP_CLASSES] = {
    "read", "write", "flush",
};

const char *const nvm_res_txn_key[NVM_RES_TXNS] = {
    "new_order", "payment", "order_status", "delivery", "stock_level",
};

GQuark nvm_results_error_quark(void)
{
    return g_quark_from_static_string("nvmimic-results-error");
}

void nvm_res_point_init(NvmResPoint *p)
{
    *p = (NvmResPoint){
        .target_iops = NAN,
        .fig = NVM_FIG_NONE, .host = NVM_FIG_NONE, .host_interval_s = NAN,
        .host_late = NAN, .host_limited = -1, .shortfall_pct = NAN,
        .host_late_p50_us = NAN, .host_late_p99_us = NAN,
        .host_late_max_us = NAN, .timing_limited = -1,
        .sim_lat_us = NAN, .trace_lat_us = NAN, .wall_s = NAN,
        .rd = NVM_FIG_NONE, .wr = NVM_FIG_NONE,
    };
}

char *nvm_res_safe_name(const char *s)
{
    char *f = g_strdup(*s ? s : "workload");

    for (char *c = f; *c; c++) {
        if (!g_ascii_isalnum(*c) && *c != '-' && *c != '_' && *c != '.') {
            *c = '_';
        }
    }
    if (f[0] == '.') {
        f[0] = '_';
    }
    return f;
}

NvmResWork *nvm_res_work_new(const char *name)
{
    NvmResWork *w = g_new0(NvmResWork, 1);

    w->name = g_strdup(name);
    w->file = nvm_res_safe_name(name);
    w->curve = g_array_new(FALSE, TRUE, sizeof(NvmResPoint));
    w->mix_read_pct = w->mix_outstanding = w->mix_mean_block = NAN;
    nvm_res_point_init(&w->peak);
    nvm_res_point_init(&w->sim_peak);
    w->review_iops = w->review_lat_us = NAN;
    w->replay_idle_s = NAN;
    w->peak_ramp_s = NAN;
    nvm_res_point_init(&w->replay_peak);
    return w;
}

static void work_free(gpointer data)
{
    NvmResWork *w = data;

    g_free(w->name);
    g_free(w->file);
    g_free(w->job_file);
    if (w->mix) {
        json_node_unref(w->mix);
    }
    if (w->peak.extra) {
        json_node_unref(w->peak.extra);
    }
    if (w->extra) {
        json_node_unref(w->extra);
    }
    for (guint i = 0; i < w->curve->len; i++) {
        JsonNode *x = g_array_index(w->curve, NvmResPoint, i).extra;

        if (x) {
            json_node_unref(x);
        }
    }
    g_array_free(w->curve, TRUE);
    if (w->sim_curve) {
        g_array_free(w->sim_curve, TRUE);
    }
    if (w->replay_curve) {
        g_array_free(w->replay_curve, TRUE);
    }
    g_free(w->review_src);
    g_free(w->suite);
    g_free(w->mix_jobfile);
    g_free(w->loadgen);
    g_free(w);
}

void nvm_res_dev_init(NvmResDev *d)
{
    memset(d, 0, sizeof(*d));
    d->interval_s = d->active_s = NAN;
}

NvmResApp *nvm_res_app_new(const char *suite)
{
    NvmResApp *a = g_new0(NvmResApp, 1);

    a->suite = g_strdup(suite);
    a->complete = -1;
    a->wall_s = NAN;
    nvm_res_dev_init(&a->dev);
    a->steps = g_array_new(FALSE, TRUE, sizeof(NvmResStep));
    a->mem_mib = a->ram_factor = NAN;
    a->warehouses = a->users = a->precondition_s = a->sample_s = NAN;
    a->think_factor = NAN;
    a->guest_mem_mib = a->shared_buffers_mib = NAN;
    for (unsigned i = 0; i < NVM_RES_GAP_CLASSES; i++) {
        a->gap[i][0] = a->gap[i][1] = a->gap[i][2] = NAN;
    }
    return a;
}

static void app_free(gpointer data)
{
    NvmResApp *a = data;

    g_free(a->suite);
    g_free(a->file);
    g_free(a->error);
    g_free(a->log_tail);
    g_free(a->guest_dir);
    g_free(a->topology);
    g_free(a->database_image);
    if (a->result) {
        json_node_unref(a->result);
    }
    if (a->swap) {
        json_node_unref(a->swap);
    }
    for (guint i = 0; a->steps && i < a->steps->len; i++) {
        NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);

        g_free(st->name);
        g_free(st->rw);
    }
    if (a->steps) {
        g_array_free(a->steps, TRUE);
    }
    g_free(a);
}

NvmResults *nvm_results_new(const char *profile, const char *mode)
{
    NvmResults *r = g_new0(NvmResults, 1);

    r->schema_version = NVM_RESULTS_SCHEMA_VERSION;
    r->profile = g_strdup(profile);
    r->mode = g_strdup(mode);
    r->qtest = !strcmp(mode, "qtest");
    r->guest = strcmp(mode, "sim") != 0 && !r->qtest;
    r->seed = r->duration_s = r->ramp_s = r->peak_ramp_s = NAN;
    r->sim_duration_s = r->span_bytes = r->wall_s = NAN;
    r->guest_ips = r->icount_shift = NAN;
    r->quick = -1;
    r->complete = -1;
    r->works = g_ptr_array_new_with_free_func(work_free);
    r->apps = g_ptr_array_new_with_free_func(app_free);
    return r;
}

void nvm_results_free(NvmResults *r)
{
    if (!r) {
        return;
    }
    g_free(r->dir);
    g_free(r->path);
    g_free(r->profile);
    g_free(r->mode);
    g_free(r->run_mode);
    g_free(r->connect);
    g_free(r->suite);
    g_free(r->threads_mode);
    g_free(r->started);
    g_free(r->date);
    g_free(r->accel);
    g_free(r->precondition);
    g_free(r->guest_append);
    g_free(r->guest_pre);
    g_free(r->fio_opts);
    g_free(r->backing);
    g_free(r->error);
    g_free(r->failed_point);
    g_free(r->label);
    if (r->works) {
        g_ptr_array_free(r->works, TRUE);
    }
    if (r->suites) {
        g_ptr_array_free(r->suites, TRUE);
    }
    if (r->apps) {
        g_ptr_array_free(r->apps, TRUE);
    }
    if (r->extra) {
        json_node_unref(r->extra);
    }
    if (r->kept) {
        g_ptr_array_free(r->kept, TRUE);
    }
    g_free(r);
}

/* The model's point at the same target percentage, if any. */
const NvmResPoint *nvm_res_sim_at(const NvmResWork *w, int pct)
{
    for (guint i = 0; w->sim_curve && i < w->sim_curve->len; i++) {
        const NvmResPoint *p = &g_array_index(w->sim_curve, NvmResPoint, i);

        if (p->target_pct == pct) {
            return p;
        }
    }
    return NULL;
}
