/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: what a run records.  results.json (rewritten after every
 * point, "complete": false until the end), results.csv (a row per curve
 * point) and apps.csv (every number of the application suites), each
 * written aside and renamed into place.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run-int.h"

static void add_num_or_null(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isnan(v)) {
        json_builder_add_null_value(b);
    } else {
        json_builder_add_double_value(b, round(v * 100) / 100);
    }
}

static void add_fig(JsonBuilder *b, const Fig *f)
{
    add_num_or_null(b, "iops", round(f->iops * 10) / 10);
    add_num_or_null(b, "mbps", f->mbps);
    add_num_or_null(b, "lat_us", f->lat_us);
    add_num_or_null(b, "p50_us", f->p50_us);
    add_num_or_null(b, "p99_us", f->p99_us);
    add_num_or_null(b, "p999_us", f->p999_us);
}

static void add_point(JsonBuilder *b, const Point *pt, bool curve)
{
    json_builder_begin_object(b);
    if (curve) {
        json_builder_set_member_name(b, "target_pct");
        json_builder_add_int_value(b, pt->target_pct);
        json_builder_set_member_name(b, "target_iops");
        json_builder_add_double_value(b, round(pt->target_iops * 10) / 10);
    }
    add_fig(b, &pt->guest);
    add_num_or_null(b, "host_iops", pt->have_host ? pt->host.iops : NAN);
    add_num_or_null(b, "host_lat_us", pt->have_host ? pt->host.lat_us : NAN);
    add_num_or_null(b, "host_p50_us", pt->have_host ? pt->host.p50_us : NAN);
    add_num_or_null(b, "host_p99_us", pt->have_host ? pt->host.p99_us : NAN);
    add_num_or_null(b, "host_p999_us",
                    pt->have_host ? pt->host.p999_us : NAN);
    add_num_or_null(b, "host_interval_s",
                    pt->have_host ? pt->host_interval_s : NAN);
    json_builder_set_member_name(b, "host_late");
    json_builder_add_int_value(b, (gint64)pt->host_late);
    json_builder_set_member_name(b, "host_limited");
    json_builder_add_boolean_value(b, pt->host_limited);
    json_builder_set_member_name(b, "host_limited_by");
    if (pt->limit) {
        json_builder_add_string_value(b, pt->limit);
    } else {
        json_builder_add_null_value(b);
    }
    add_num_or_null(b, "shortfall_pct", pt->shortfall_pct);
    add_num_or_null(b, "sim_lat_us", pt->sim_lat_us);
    add_num_or_null(b, "wall_s", pt->wall_s);
    json_builder_end_object(b);
}

static void add_sim_result(JsonBuilder *b, const NvmRunResult *r)
{
    Fig f = { r->iops, r->mbps, r->lat_us, r->p50_us, r->p99_us, r->p999_us };

    json_builder_begin_object(b);
    add_fig(b, &f);
    json_builder_end_object(b);
}

/* query-nvmimic-stats' return as {"interval_s", "active_s", "classes":
 * {NAME: {...}}}; IOPS and MB/s over the span the drive had commands
 * (active-ns: first arrival to last completion), not the host's idle time
 * around them. */
static void add_device(JsonBuilder *b, JsonNode *n)
{
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;
    JsonArray *cls = o && json_object_has_member(o, "classes") ?
                     json_object_get_array_member(o, "classes") : NULL;
    static const char *const f[][2] = {
        { "count", "count" }, { "mean-us", "lat_us" }, { "p50-us", "p50_us" },
        { "p99-us", "p99_us" }, { "p999-us", "p999_us" },
        { "max-us", "max_us" },
    };
    double interval_ns;

    if (!cls || !json_object_has_member(o, "interval-ns")) {
        json_builder_add_null_value(b);
        return;
    }
    interval_ns = json_object_get_double_member(o, "interval-ns");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "interval_s");
    json_builder_add_double_value(b, round(interval_ns / 1e3) / 1e6);
    if (json_object_has_member(o, "active-ns")) {
        double active_ns = json_object_get_double_member(o, "active-ns");

        json_builder_set_member_name(b, "active_s");
        json_builder_add_double_value(b, round(active_ns / 1e3) / 1e6);
        if (active_ns > 0) {
            interval_ns = active_ns;
        }
    }
    json_builder_set_member_name(b, "classes");
    json_builder_begin_object(b);
    for (unsigned i = 0; i < json_array_get_length(cls); i++) {
        JsonObject *c = json_array_get_object_element(cls, i);
        double count = json_object_get_double_member(c, "count");

        if (!count) {
            continue;
        }
        json_builder_set_member_name(b,
                                     json_object_get_string_member(c, "class"));
        json_builder_begin_object(b);
        for (unsigned k = 0; k < G_N_ELEMENTS(f); k++) {
            json_builder_set_member_name(b, f[k][1]);
            json_builder_add_double_value(b,
                round(json_object_get_double_member(c, f[k][0]) * 100) / 100);
        }
        json_builder_set_member_name(b, "iops");
        json_builder_add_double_value(b,
            interval_ns > 0 ? round(count * 1e10 / interval_ns) / 10 : 0);
        json_builder_set_member_name(b, "mbps");
        json_builder_add_double_value(b, interval_ns > 0 ?
            round(json_object_get_double_member(c, "bytes") * 1e5 /
                  interval_ns) / 100 : 0);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
}

static void add_app(JsonBuilder *b, const Run *r, const App *a)
{
    g_autofree char *gd = g_path_get_basename(run_guest_dir_name(r, a->suite));

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "suite");
    json_builder_add_string_value(b, run_suite_names[a->suite]);
    json_builder_set_member_name(b, "complete");
    json_builder_add_boolean_value(b, a->complete);
    json_builder_set_member_name(b, "error");
    if (a->error) {
        json_builder_add_string_value(b, a->error);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "log_tail");
    if (a->log_tail) {
        json_builder_add_string_value(b, a->log_tail);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "guest_dir");
    json_builder_add_string_value(b, gd);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, round(a->wall_s * 10) / 10);
    json_builder_set_member_name(b, "device");
    add_device(b, a->device);
    if (a->suite == S_SEQ) {
        json_builder_set_member_name(b, "steps");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < a->n_steps; i++) {
            const AppStep *st = &a->steps[i];

            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, st->name);
            json_builder_set_member_name(b, "rw");
            json_builder_add_string_value(b, st->rw);
            json_builder_set_member_name(b, "qd");
            json_builder_add_int_value(b, st->qd);
            json_builder_set_member_name(b, "bytes");
            json_builder_add_int_value(b, (gint64)st->bytes);
            json_builder_set_member_name(b, "gbps");
            json_builder_add_double_value(b, round(st->guest.mbps * 10) / 1e4);
            add_fig(b, &st->guest);
            json_builder_set_member_name(b, "device");
            add_device(b, st->device);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    if (a->suite == S_RENDER) {
        JsonObject *o = a->result && JSON_NODE_HOLDS_OBJECT(a->result) ?
                        json_node_get_object(a->result) : NULL;

        json_builder_set_member_name(b, "mem_mib");
        json_builder_add_int_value(b, r->o.render_mem_mib);
        json_builder_set_member_name(b, "ram_factor");
        json_builder_add_double_value(b, r->o.render_ram_factor);
        json_builder_set_member_name(b, "result");
        if (o && json_object_has_member(o, "result")) {
            json_builder_add_value(b, json_node_copy(
                json_object_get_member(o, "result")));
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "swap");
        if (o && json_object_has_member(o, "swap")) {
            json_builder_add_value(b, json_node_copy(
                json_object_get_member(o, "swap")));
        } else {
            json_builder_add_null_value(b);
        }
    }
    if (a->suite == S_SQL) {
        json_builder_set_member_name(b, "params");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "warehouses");
        json_builder_add_int_value(b, r->o.sql_w);
        json_builder_set_member_name(b, "users");
        json_builder_add_int_value(b, r->o.sql_users);
        json_builder_set_member_name(b, "precondition_s");
        json_builder_add_int_value(b, r->o.sql_pre_s);
        json_builder_set_member_name(b, "sample_s");
        json_builder_add_int_value(b, r->o.sql_sample_s);
        json_builder_set_member_name(b, "think_factor");
        json_builder_add_double_value(b, r->o.sql_think);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "result");
        if (a->result) {
            json_builder_add_value(b, json_node_copy(a->result));
        } else {
            json_builder_add_null_value(b);
        }
    }
    json_builder_end_object(b);
}

static char *results_json(const Run *r)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) g = json_generator_new();
    g_autoptr(JsonNode) root = NULL;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "profile");
    json_builder_add_string_value(b, r->p->name);
    json_builder_set_member_name(b, "mode");
    json_builder_add_string_value(b, "guest");
    json_builder_set_member_name(b, "run_mode");
    json_builder_add_string_value(b, r->o.mode);
    json_builder_set_member_name(b, "accel");
    json_builder_add_string_value(b, r->accel ? r->accel : "unknown");
    json_builder_set_member_name(b, "connect");
    if (r->o.connect) {
        json_builder_add_string_value(b, r->o.connect);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "suite");
    json_builder_add_string_value(b, r->o.suite);
    json_builder_set_member_name(b, "suites");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < r->n_order; i++) {
        json_builder_add_string_value(b, run_suite_names[r->order[i]]);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "seed");
    json_builder_add_int_value(b, (gint64)r->o.seed);
    json_builder_set_member_name(b, "threads_mode");
    json_builder_add_string_value(b, r->o.threads);
    json_builder_set_member_name(b, "duration_s");
    json_builder_add_double_value(b, r->o.run_s);
    json_builder_set_member_name(b, "ramp_s");
    json_builder_add_double_value(b, r->o.ramp_s);
    json_builder_set_member_name(b, "peak_ramp_s");
    json_builder_add_double_value(b, r->o.peak_ramp_s);
    json_builder_set_member_name(b, "quick");
    json_builder_add_boolean_value(b, r->o.quick);
    json_builder_set_member_name(b, "sim_duration_s");
    json_builder_add_double_value(b, r->sim_duration_s);
    json_builder_set_member_name(b, "span_bytes");
    json_builder_add_int_value(b, (gint64)r->span_bytes);
    json_builder_set_member_name(b, "precondition");
    json_builder_add_string_value(b, r->precondition);
    json_builder_set_member_name(b, "started");
    json_builder_add_string_value(b, r->started);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b,
        round((g_get_monotonic_time() - r->t0) / 1e5) / 10);
    json_builder_set_member_name(b, "complete");
    json_builder_add_boolean_value(b, r->complete);
    json_builder_set_member_name(b, "error");
    if (r->error) {
        json_builder_add_string_value(b, r->error);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "failed_point");
    if (r->failed_point) {
        json_builder_add_string_value(b, r->failed_point);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "workloads");
    json_builder_begin_array(b);
    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, wl->wl.name);
        json_builder_set_member_name(b, "suite");
        json_builder_add_string_value(b, run_suite_names[wl->suite]);
        if (wl->mix) {
            json_builder_set_member_name(b, "mix");
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
        }
        json_builder_set_member_name(b, "threads");
        json_builder_add_int_value(b, wl->wl.threads);
        json_builder_set_member_name(b, "jobs");
        json_builder_add_int_value(b, wl->jobs);
        json_builder_set_member_name(b, "iodepth");
        json_builder_add_int_value(b, wl->iodepth);
        json_builder_set_member_name(b, "block_bytes");
        json_builder_add_int_value(b, wl->wl.block_bytes);
        json_builder_set_member_name(b, "peak");
        if (wl->peak.done) {
            add_point(b, &wl->peak, false);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "curve");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < wl->n_curve; i++) {
            if (wl->curve[i].done) {
                add_point(b, &wl->curve[i], true);
            }
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "sim");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "peak");
        add_sim_result(b, &wl->sim->peak);
        json_builder_set_member_name(b, "curve");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < wl->sim->n_curve; i++) {
            Fig f = { wl->sim->curve[i].iops, wl->sim->curve[i].mbps,
                      wl->sim->curve[i].lat_us, wl->sim->curve[i].p50_us,
                      wl->sim->curve[i].p99_us, wl->sim->curve[i].p999_us };

            json_builder_begin_object(b);
            json_builder_set_member_name(b, "target_pct");
            json_builder_add_int_value(b, wl->sim->target_pct[i]);
            json_builder_set_member_name(b, "target_iops");
            json_builder_add_double_value(b,
                round(wl->sim->target_iops[i] * 10) / 10);
            add_fig(b, &f);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "review");
        if (isnan(wl->review_iops)) {
            json_builder_add_null_value(b);
        } else {
            json_builder_begin_object(b);
            add_num_or_null(b, "iops", wl->review_iops);
            add_num_or_null(b, "lat_us", wl->review_lat_us);
            json_builder_end_object(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "apps");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < r->n_order; i++) {
        if (r->apps[r->order[i]]) {
            add_app(b, r, r->apps[r->order[i]]);
        }
    }
    json_builder_end_array(b);
    json_builder_end_object(b);

    root = json_builder_get_root(b);
    json_generator_set_root(g, root);
    json_generator_set_pretty(g, TRUE);
    json_generator_set_indent(g, 1);
    return json_generator_to_data(g, NULL);
}

static void csv_num(GString *s, double v)
{
    if (isnan(v)) {
        g_string_append(s, ",");
    } else {
        g_string_append_printf(s, ",%.2f", v);
    }
}

static void csv_point(GString *s, const Run *r, const Wl *wl, const Point *pt)
{
    g_string_append_printf(s, "%s,%s,%u,", r->p->name, wl->wl.name,
                           wl->wl.threads);
    if (pt->target_pct) {
        g_string_append_printf(s, "%d,%d,%.1f", pt->target_pct,
                               pt->target_pct, pt->target_iops);
    } else {
        g_string_append(s, "peak,,");
    }
    csv_num(s, pt->guest.iops);
    csv_num(s, pt->guest.mbps);
    csv_num(s, pt->guest.lat_us);
    csv_num(s, pt->guest.p50_us);
    csv_num(s, pt->guest.p99_us);
    csv_num(s, pt->guest.p999_us);
    csv_num(s, pt->have_host ? pt->host.iops : NAN);
    csv_num(s, pt->have_host ? pt->host.lat_us : NAN);
    csv_num(s, pt->have_host ? pt->host.p99_us : NAN);
    g_string_append_printf(s, ",%s", pt->host_limited ? "true" : "false");
    csv_num(s, pt->shortfall_pct);
    csv_num(s, pt->sim_lat_us);
    g_string_append_printf(s, ",%s\n", run_suite_names[wl->suite]);
}

static char *results_csv(const Run *r)
{
    GString *s = g_string_new("profile,workload,threads,point,target_pct,"
                              "target_iops,iops,mbps,lat_us,p50_us,p99_us,"
                              "p999_us,host_iops,host_lat_us,host_p99_us,"
                              "host_limited,shortfall_pct,sim_lat_us,suite\n");

    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        if (wl->peak.done) {
            csv_point(s, r, wl, &wl->peak);
        }
        for (unsigned i = 0; i < wl->n_curve; i++) {
            if (wl->curve[i].done) {
                csv_point(s, r, wl, &wl->curve[i]);
            }
        }
    }
    return g_string_free(s, FALSE);
}

/* Every number of a JSON tree as "PATH,VALUE" rows (PATH a.b.0.c). */
static void csv_flatten(GString *s, const char *suite, const char *path,
                        JsonNode *n)
{
    if (JSON_NODE_HOLDS_OBJECT(n)) {
        JsonObject *o = json_node_get_object(n);
        g_autoptr(GList) names = json_object_get_members(o);

        for (GList *l = names; l; l = l->next) {
            g_autofree char *p = *path ?
                g_strdup_printf("%s.%s", path, (char *)l->data) :
                g_strdup(l->data);

            csv_flatten(s, suite, p, json_object_get_member(o, l->data));
        }
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *a = json_node_get_array(n);

        for (unsigned i = 0; i < json_array_get_length(a); i++) {
            JsonNode *e = json_array_get_element(a, i);
            JsonObject *eo = JSON_NODE_HOLDS_OBJECT(e) ?
                             json_node_get_object(e) : NULL;
            /* steps by name rather than by index */
            g_autofree char *p = eo && json_object_has_member(eo, "name") ?
                g_strdup_printf("%s.%s", path,
                                json_object_get_string_member(eo, "name")) :
                g_strdup_printf("%s.%u", path, i);

            csv_flatten(s, suite, p, e);
        }
    } else if (JSON_NODE_HOLDS_VALUE(n) &&
               (json_node_get_value_type(n) == G_TYPE_DOUBLE ||
                json_node_get_value_type(n) == G_TYPE_INT64)) {
        g_string_append_printf(s, "%s,%s,%.6g\n", suite, path,
                               json_node_get_double(n));
    }
}

/* The application suites' figures: suite,metric,value. */
static char *apps_csv(const Run *r)
{
    GString *s = g_string_new("suite,metric,value\n");

    for (unsigned i = 0; i < r->n_order; i++) {
        const App *a = r->apps[r->order[i]];
        g_autoptr(JsonBuilder) b = NULL;
        g_autoptr(JsonNode) n = NULL;

        if (!a) {
            continue;
        }
        b = json_builder_new();
        add_app(b, r, a);
        n = json_builder_get_root(b);
        csv_flatten(s, run_suite_names[a->suite], "", n);
    }
    return g_string_free(s, FALSE);
}

/* The files are replaced atomically (written aside, then renamed). */
void run_save_results(const Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *js = results_json(r);
    g_autofree char *csv = results_csv(r);
    g_autofree char *acsv = apps_csv(r);
    g_autofree char *jp = g_build_filename(r->dir, "results.json", NULL);
    g_autofree char *cp = g_build_filename(r->dir, "results.csv", NULL);
    g_autofree char *ap = g_build_filename(r->dir, "apps.csv", NULL);

    if (!g_file_set_contents(jp, js, -1, &err) ||
        !g_file_set_contents(cp, csv, -1, &err) ||
        !g_file_set_contents(ap, acsv, -1, &err)) {
        fprintf(stderr, "nvmimic run: cannot write results: %s\n",
                err->message);
    }
}
