/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: what a run records, as results (results.h) handed to the
 * one writer after every point: results.json ("complete": false until the
 * end), results.csv and apps.csv; at the end, report.html from them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "run-int.h"

static void point_to(const Point *pt, NvmResPoint *p)
{
    nvm_res_point_init(p);
    p->target_pct = pt->target_pct;
    p->target_iops = pt->target_iops;
    p->fig = pt->guest;
    if (pt->have_host) {
        p->host = pt->host;
        p->host_interval_s = pt->host_interval_s;
        p->host_late_p50_us = pt->late.p50_us;
        p->host_late_p99_us = pt->late.p99_us;
        p->host_late_max_us = pt->late.max_us;
        p->timing_limited = pt->timing_limited;
    }
    p->host_late = (double)pt->host_late;
    p->host_limited = pt->host_limited;
    p->host_limited_by = pt->limit;
    p->shortfall_pct = pt->shortfall_pct;
    p->sim_lat_us = pt->sim_lat_us;
    p->trace_lat_us = pt->trace_lat_us;
    p->wall_s = pt->wall_s;
}

static void model_to(const NvmRunResult *r, NvmResPoint *p)
{
    nvm_res_point_init(p);
    p->fig = r->fig;
}

static NvmResWork *work_to(const Run *r, const Wl *wl)
{
    NvmResWork *w = nvm_res_work_new(wl->wl.name);

    w->suite = g_strdup(nvm_run_suites[wl->suite]);
    if (wl->mix) {
        g_autoptr(JsonBuilder) b = json_builder_new();

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "read_pct");
        json_builder_add_double_value(b, wl->mix->read_pct);
        json_builder_set_member_name(b, "outstanding");
        json_builder_add_int_value(b, nvm_mix_outstanding(wl->mix));
        json_builder_set_member_name(b, "mean_block_bytes");
        json_builder_add_double_value(b,
            round(nvm_mix_mean_block_bytes(wl->mix)));
        json_builder_set_member_name(b, "jobfile");
        json_builder_add_string_value(b, wl->jobfile);
        json_builder_end_object(b);
        w->mix = json_builder_get_root(b);
    }
    w->threads = wl->wl.threads;
    w->jobs = wl->jobs;
    w->iodepth = wl->iodepth;
    w->block_bytes = wl->wl.block_bytes;
    w->has_peak = wl->peak.done;
    if (w->has_peak) {
        point_to(&wl->peak, &w->peak);
    }
    for (unsigned i = 0; i < wl->n_curve; i++) {
        NvmResPoint p;

        if (wl->curve[i].done) {
            point_to(&wl->curve[i], &p);
            g_array_append_val(w->curve, p);
        }
    }
    w->has_sim = w->has_sim_peak = true;
    model_to(&wl->sim->peak, &w->sim_peak);
    w->sim_curve = g_array_new(FALSE, TRUE, sizeof(NvmResPoint));
    for (unsigned i = 0; i < wl->sim->n_curve; i++) {
        NvmResPoint p;

        model_to(&wl->sim->curve[i], &p);
        p.target_pct = wl->sim->target_pct[i];
        p.target_iops = wl->sim->target_iops[i];
        g_array_append_val(w->sim_curve, p);
    }
    w->review_iops = wl->review_iops;
    w->review_lat_us = wl->review_lat_us;
    w->loadgen = g_strdup(wl->fio ? "fio" : "nvmimic-load");
    if (wl->peak_ramp_s > 0) {
        w->peak_ramp_s = wl->peak_ramp_s;
    }
    if (wl->matched) {
        /* the model replaying the guest's schedule, sim_lat_us's source */
        const NvmCornerResult *m = wl->matched;

        w->has_replay = true;
        w->replay_idle_s = wl->idle_s;
        model_to(&m->peak, &w->replay_peak);
        w->replay_curve = g_array_new(FALSE, TRUE, sizeof(NvmResPoint));
        for (unsigned i = 0; i < m->n_curve; i++) {
            NvmResPoint p;

            model_to(&m->curve[i], &p);
            p.target_pct = m->target_pct[i];
            p.target_iops = m->target_iops[i];
            g_array_append_val(w->replay_curve, p);
        }
    }
    (void)r;
    return w;
}

static NvmResApp *app_to(const Run *r, const App *a)
{
    NvmResApp *x = nvm_res_app_new(nvm_run_suites[a->suite]);
    g_autofree char *gdir = run_guest_dir_name(r, a->suite);

    x->complete = a->complete;
    x->error = g_strdup(a->error);
    x->log_tail = g_strdup(a->log_tail);
    x->guest_dir = g_path_get_basename(gdir);
    x->wall_s = a->wall_s;
    run_device_from_qmp(a->device, &x->dev);
    for (unsigned i = 0; i < a->n_steps; i++) {
        const AppStep *st = &a->steps[i];
        NvmResStep s = {
            .name = g_strdup(st->name), .rw = g_strdup(st->rw),
            .qd = st->qd, .bytes = (double)st->bytes,
            .gbps = st->guest.mbps / 1e3, .fig = st->guest,
        };

        run_device_from_qmp(st->device, &s.dev);
        g_array_append_val(x->steps, s);
    }
    if (a->suite == S_RENDER) {
        JsonObject *o = a->result && JSON_NODE_HOLDS_OBJECT(a->result) ?
                        json_node_get_object(a->result) : NULL;

        x->mem_mib = r->o.render_mem_mib;
        x->ram_factor = r->o.render_ram_factor;
        if (o && json_object_has_member(o, "result")) {
            x->result = json_node_copy(json_object_get_member(o, "result"));
        }
        if (o && json_object_has_member(o, "swap")) {
            x->swap = json_node_copy(json_object_get_member(o, "swap"));
        }
    }
    if (a->suite == S_SQL) {
        x->warehouses = r->o.sql_w;
        x->users = r->o.sql_users;
        x->precondition_s = r->o.sql_pre_s;
        x->sample_s = r->o.sql_sample_s;
        x->think_factor = r->o.sql_think;
        x->topology = g_strdup(r->o.sql_topology);
        x->guest_mem_mib = r->o.sql_mem_mib;
        x->shared_buffers_mib = r->o.sql_buffers_mib;
        x->database_image = g_strdup(r->sql_image);
        if (a->result) {
            x->result = json_node_copy(a->result);
        }
        /* the guest's block layer against the device, per class */
        x->has_gap = true;
        for (unsigned i = 0; i < NVM_RES_GAP_CLASSES; i++) {
            const char *c = nvm_res_gap_class[i];

            x->gap[i][0] = run_sql_guest_lat(a->result, c);
            x->gap[i][1] = run_dev_lat(a->device, c, "mean-us");
            x->gap[i][2] = x->gap[i][0] - x->gap[i][1];
        }
    }
    return x;
}

/* The run so far as results of mode "guest". */
static NvmResults *run_results(const Run *r)
{
    NvmResults *m = nvm_results_new(r->p->name, "guest");

    m->run_mode = g_strdup(r->o.mode);
    m->accel = g_strdup(r->accel);
    if (!strcmp(r->o.mode, "simtime")) {
        /* the simulated CPU's speed (-icount shift=N) */
        m->guest_ips = r->o.guest_ips;
        m->icount_shift = r->o.icount_shift;
    }
    if (r->faults) {
        /* --fault: what was asked, and what the drive did, per suite */
        g_autoptr(JsonBuilder) b = json_builder_new();
        JsonNode *n = json_node_new(JSON_NODE_ARRAY);

        if (r->fault_runs) {
            json_node_set_array(n, r->fault_runs);
        } else {
            json_node_take_array(n, json_array_new());
        }
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "faults");
        json_builder_add_value(b, n);
        json_builder_end_object(b);
        m->extra = json_builder_get_root(b);
    }
    m->connect = g_strdup(r->o.connect);
    m->suite = g_strdup(r->o.suite);
    m->suites = g_ptr_array_new_with_free_func(g_free);
    for (unsigned i = 0; i < r->n_order; i++) {
        g_ptr_array_add(m->suites, g_strdup(nvm_run_suites[r->order[i]]));
    }
    m->seed = (double)r->o.seed;
    m->threads_mode = g_strdup(r->o.threads);
    m->duration_s = r->o.run_s;
    m->ramp_s = r->o.ramp_s;
    m->peak_ramp_s = r->o.peak_ramp_s;
    m->quick = r->o.quick;
    m->sim_duration_s = r->sim_duration_s;
    m->span_bytes = (double)r->span_bytes;
    m->precondition = g_strdup(r->precondition);
    /* the stack under test: the same inputs give the same figures */
    m->guest_append = g_strdup(r->o.guest_append);
    m->guest_pre = g_strdup(r->o.guest_pre);
    m->fio_opts = g_strdup(r->o.fio_opts);
    m->backing = g_strdup(r->o.backing_file ? "file" : NULL);
    m->started = g_strdup(r->started);
    m->wall_s = (g_get_monotonic_time() - r->t0) / 1e6;
    m->complete = r->complete;
    m->error = g_strdup(r->error);
    m->failed_point = g_strdup(r->failed_point);
    for (unsigned w = 0; w < r->n_wls; w++) {
        g_ptr_array_add(m->works, work_to(r, &r->wls[w]));
    }
    for (unsigned i = 0; i < r->n_order; i++) {
        if (r->apps[r->order[i]]) {
            g_ptr_array_add(m->apps, app_to(r, r->apps[r->order[i]]));
        }
    }
    return m;
}

void run_save_results(const Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(NvmResults) m = run_results(r);

    if (!nvm_results_save(m, r->dir, &err)) {
        fprintf(stderr, "nvmimic run: cannot write results: %s\n",
                err->message);
    }
}

void run_save_report(const Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = g_build_filename(r->o.profile_dir, "reviews",
                                            "four-corners.tsv", NULL);

    if (!nvm_report_render(r->dir, tsv, r->o.baseline, &err)) {
        fprintf(stderr, "nvmimic run: cannot write the report: %s\n",
                err->message);
    }
}
