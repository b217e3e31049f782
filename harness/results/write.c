/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one writer of results.json, results.csv and apps.csv (results.h).
 * Figures are rounded here, once for every producer: IOPS to 0.1, MB/s and
 * microseconds to 0.01, wall seconds to 0.1, the device's intervals to
 * 1 us.  A number nobody measured is null.  docs/results.md has the fields.
 */
#include <math.h>
#include <string.h>

#include "results.h"

/* A member with @v rounded to @decimals (-1: as it is), null when NAN. */
static void num(JsonBuilder *b, const char *name, double v, int decimals)
{
    json_builder_set_member_name(b, name);
    if (isnan(v)) {
        json_builder_add_null_value(b);
    } else if (decimals < 0) {
        json_builder_add_double_value(b, v);
    } else {
        double f = pow(10, decimals);

        json_builder_add_double_value(b, round(v * f) / f);
    }
}

static void whole(JsonBuilder *b, const char *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void str(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    if (v) {
        json_builder_add_string_value(b, v);
    } else {
        json_builder_add_null_value(b);
    }
}

static void boolean(JsonBuilder *b, const char *name, bool v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, v);
}

static void node(JsonBuilder *b, const char *name, JsonNode *n)
{
    json_builder_set_member_name(b, name);
    if (n) {
        json_builder_add_value(b, json_node_copy(n));
    } else {
        json_builder_add_null_value(b);
    }
}

/* FIG: what the guest's load generator (guest) or the model (sim)
 * measured. */
static void fig(JsonBuilder *b, const NvmFig *f)
{
    num(b, "iops", f->iops, 1);
    num(b, "mbps", f->mbps, 2);
    num(b, "lat_us", f->lat_us, 2);
    num(b, "p50_us", f->p50_us, 2);
    num(b, "p99_us", f->p99_us, 2);
    num(b, "p999_us", f->p999_us, 2);
}

/* The members of @extra (a JSON object, may be NULL) into the object @b
 * is building. */
static void members(JsonBuilder *b, JsonNode *extra)
{
    JsonObject *o = extra && JSON_NODE_HOLDS_OBJECT(extra) ?
                    json_node_get_object(extra) : NULL;
    g_autoptr(GList) names = o ? json_object_get_members(o) : NULL;

    for (GList *l = names; l; l = l->next) {
        node(b, l->data, json_object_get_member(o, l->data));
    }
}

/* A point of mode sim (the model's) or of the "sim" member of a guest
 * run's workload. */
static void model_point(JsonBuilder *b, const NvmResPoint *p, bool curve)
{
    json_builder_begin_object(b);
    if (curve) {
        whole(b, "target_pct", p->target_pct);
        num(b, "target_iops", p->target_iops, 1);
    }
    fig(b, &p->fig);
    if (p->has_rw) {
        json_builder_set_member_name(b, "read");
        json_builder_begin_object(b);
        fig(b, &p->rd);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "write");
        json_builder_begin_object(b);
        fig(b, &p->wr);
        json_builder_end_object(b);
    }
    members(b, p->extra);
    json_builder_end_object(b);
}

/* A point of a guest run: fio's figures, the device's, the verdict. */
static void guest_point(JsonBuilder *b, const NvmResPoint *p, bool curve)
{
    json_builder_begin_object(b);
    if (curve) {
        whole(b, "target_pct", p->target_pct);
        num(b, "target_iops", p->target_iops, 1);
    }
    fig(b, &p->fig);
    num(b, "host_iops", p->host.iops, 2);
    num(b, "host_lat_us", p->host.lat_us, 2);
    num(b, "host_p50_us", p->host.p50_us, 2);
    num(b, "host_p99_us", p->host.p99_us, 2);
    num(b, "host_p999_us", p->host.p999_us, 2);
    num(b, "host_interval_s", p->host_interval_s, 2);
    whole(b, "host_late", isnan(p->host_late) ? 0 : (gint64)p->host_late);
    num(b, "host_late_p50_us", p->host_late_p50_us, 2);
    num(b, "host_late_p99_us", p->host_late_p99_us, 2);
    num(b, "host_late_max_us", p->host_late_max_us, 2);
    boolean(b, "timing_limited", p->timing_limited > 0);
    boolean(b, "host_limited", p->host_limited > 0);
    str(b, "host_limited_by", p->host_limited_by);
    num(b, "shortfall_pct", p->shortfall_pct, 2);
    num(b, "sim_lat_us", p->sim_lat_us, 2);
    num(b, "trace_lat_us", p->trace_lat_us, 2);
    num(b, "wall_s", p->wall_s, 2);
    json_builder_end_object(b);
}

static void work(JsonBuilder *b, const NvmResults *r, const NvmResWork *w)
{
    json_builder_begin_object(b);
    str(b, "name", w->name);
    if (r->guest) {
        str(b, "suite", w->suite);
    }
    if (w->job_file) {
        str(b, "job_file", w->job_file);
    }
    if (w->mix) {
        node(b, "mix", w->mix);
    }
    whole(b, "threads", w->threads);
    if (r->guest) {
        whole(b, "jobs", w->jobs);
        whole(b, "iodepth", w->iodepth);
    }
    whole(b, "block_bytes", w->block_bytes);
    json_builder_set_member_name(b, "peak");
    if (!w->has_peak) {
        json_builder_add_null_value(b);
    } else if (r->guest) {
        guest_point(b, &w->peak, false);
    } else {
        model_point(b, &w->peak, false);
    }
    json_builder_set_member_name(b, "curve");
    json_builder_begin_array(b);
    for (guint i = 0; i < w->curve->len; i++) {
        const NvmResPoint *p = &g_array_index(w->curve, NvmResPoint, i);

        if (r->guest) {
            guest_point(b, p, true);
        } else {
            model_point(b, p, true);
        }
    }
    json_builder_end_array(b);
    if (r->guest) {
        json_builder_set_member_name(b, "sim");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "peak");
        model_point(b, &w->sim_peak, false);
        json_builder_set_member_name(b, "curve");
        json_builder_begin_array(b);
        for (guint i = 0; w->sim_curve && i < w->sim_curve->len; i++) {
            model_point(b, &g_array_index(w->sim_curve, NvmResPoint, i),
                        true);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "review");
        if (isnan(w->review_iops)) {
            json_builder_add_null_value(b);
        } else {
            json_builder_begin_object(b);
            num(b, "iops", w->review_iops, 2);
            num(b, "lat_us", w->review_lat_us, 2);
            json_builder_end_object(b);
        }
        if (w->loadgen) {
            str(b, "loadgen", w->loadgen);
        }
        if (!isnan(w->peak_ramp_s)) {
            num(b, "peak_ramp_s", w->peak_ramp_s, 3);
        }
        if (w->has_replay) {
            json_builder_set_member_name(b, "sim_replay");
            json_builder_begin_object(b);
            num(b, "idle_s", w->replay_idle_s, 6);
            json_builder_set_member_name(b, "peak");
            model_point(b, &w->replay_peak, false);
            json_builder_set_member_name(b, "curve");
            json_builder_begin_array(b);
            for (guint i = 0; w->replay_curve && i < w->replay_curve->len;
                 i++) {
                model_point(b, &g_array_index(w->replay_curve, NvmResPoint,
                                              i), true);
            }
            json_builder_end_array(b);
            json_builder_end_object(b);
        }
    }
    members(b, w->extra);
    json_builder_end_object(b);
}

/* DEVICE: query-nvmimic-stats over an interval, the classes that had
 * commands. */
static void device(JsonBuilder *b, const char *name, const NvmResDev *d)
{
    json_builder_set_member_name(b, name);
    if (!d->has) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    num(b, "interval_s", d->interval_s, 6);
    if (!isnan(d->active_s)) {
        num(b, "active_s", d->active_s, 6);
    }
    json_builder_set_member_name(b, "classes");
    json_builder_begin_object(b);
    for (unsigned c = 0; c < NVM_CLASS_COUNT; c++) {
        const NvmResDevFig *f = &d->cls[c];

        if (!f->has) {
            continue;
        }
        json_builder_set_member_name(b, nvm_op_name((NvmOp)c));
        json_builder_begin_object(b);
        num(b, "count", f->count, 2);
        num(b, "lat_us", f->fig.lat_us, 2);
        num(b, "p50_us", f->fig.p50_us, 2);
        num(b, "p99_us", f->fig.p99_us, 2);
        num(b, "p999_us", f->fig.p999_us, 2);
        num(b, "max_us", f->max_us, 2);
        num(b, "iops", f->fig.iops, 1);
        num(b, "mbps", f->fig.mbps, 2);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
}

static void app(JsonBuilder *b, const NvmResApp *a)
{
    json_builder_begin_object(b);
    str(b, "suite", a->suite);
    boolean(b, "complete", a->complete > 0);
    str(b, "error", a->error);
    str(b, "log_tail", a->log_tail);
    str(b, "guest_dir", a->guest_dir);
    num(b, "wall_s", a->wall_s, 1);
    device(b, "device", &a->dev);
    if (!strcmp(a->suite, "seq")) {
        json_builder_set_member_name(b, "steps");
        json_builder_begin_array(b);
        for (guint i = 0; i < a->steps->len; i++) {
            const NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);

            json_builder_begin_object(b);
            str(b, "name", st->name);
            str(b, "rw", st->rw);
            whole(b, "qd", (gint64)st->qd);
            whole(b, "bytes", (gint64)st->bytes);
            num(b, "gbps", st->gbps, 4);
            fig(b, &st->fig);
            device(b, "device", &st->dev);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    if (!strcmp(a->suite, "render")) {
        whole(b, "mem_mib", (gint64)a->mem_mib);
        num(b, "ram_factor", a->ram_factor, -1);
        node(b, "result", a->result);
        node(b, "swap", a->swap);
    }
    if (!strcmp(a->suite, "sql")) {
        json_builder_set_member_name(b, "params");
        json_builder_begin_object(b);
        whole(b, "warehouses", (gint64)a->warehouses);
        whole(b, "users", (gint64)a->users);
        whole(b, "precondition_s", (gint64)a->precondition_s);
        whole(b, "sample_s", (gint64)a->sample_s);
        num(b, "think_factor", a->think_factor, -1);
        if (a->topology) {
            str(b, "topology", a->topology);
            whole(b, "guest_mem_mib", (gint64)a->guest_mem_mib);
            whole(b, "shared_buffers_mib", (gint64)a->shared_buffers_mib);
            str(b, "database_image", a->database_image);
        }
        json_builder_end_object(b);
        node(b, "result", a->result);
        if (a->has_gap) {
            /* the guest's block layer against the device, per class */
            json_builder_set_member_name(b, "latency_gap");
            json_builder_begin_object(b);
            for (unsigned i = 0; i < NVM_RES_GAP_CLASSES; i++) {
                json_builder_set_member_name(b, nvm_res_gap_class[i]);
                json_builder_begin_object(b);
                num(b, "guest_us", a->gap[i][0], 2);
                num(b, "device_us", a->gap[i][1], 2);
                num(b, "gap_us", a->gap[i][2], 2);
                json_builder_end_object(b);
            }
            json_builder_end_object(b);
        }
    }
    json_builder_end_object(b);
}

static JsonNode *built_node(const NvmResults *r)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    whole(b, "schema_version", NVM_RESULTS_SCHEMA_VERSION);
    str(b, "profile", r->profile);
    str(b, "mode", r->mode);
    if (r->guest) {
        str(b, "run_mode", r->run_mode);
        str(b, "accel", r->accel ? r->accel : "unknown");
        str(b, "connect", r->connect);
    }
    str(b, "suite", r->suite);
    if (r->guest) {
        json_builder_set_member_name(b, "suites");
        json_builder_begin_array(b);
        for (guint i = 0; r->suites && i < r->suites->len; i++) {
            json_builder_add_string_value(b,
                                          g_ptr_array_index(r->suites, i));
        }
        json_builder_end_array(b);
    }
    whole(b, "seed", isnan(r->seed) ? 0 : (gint64)r->seed);
    str(b, "threads_mode", r->threads_mode);
    num(b, "duration_s", r->duration_s, -1);
    if (r->guest) {
        num(b, "ramp_s", r->ramp_s, -1);
        num(b, "peak_ramp_s", r->peak_ramp_s, -1);
        boolean(b, "quick", r->quick > 0);
        num(b, "sim_duration_s", r->sim_duration_s, -1);
        whole(b, "span_bytes", isnan(r->span_bytes) ? 0 :
                               (gint64)r->span_bytes);
        str(b, "precondition", r->precondition);
        str(b, "guest_append", r->guest_append);
        str(b, "guest_pre", r->guest_pre);
        str(b, "fio_opts", r->fio_opts);
        str(b, "backing", r->backing);
        str(b, "started", r->started);
        num(b, "wall_s", r->wall_s, 1);
        boolean(b, "complete", r->complete > 0);
        str(b, "error", r->error);
        str(b, "failed_point", r->failed_point);
        num(b, "guest_ips", r->guest_ips, -1);
        json_builder_set_member_name(b, "icount_shift");
        if (isnan(r->icount_shift)) {
            json_builder_add_null_value(b);
        } else {
            json_builder_add_int_value(b, (gint64)r->icount_shift);
        }
    }
    members(b, r->extra);
    json_builder_set_member_name(b, "workloads");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->works->len; i++) {
        work(b, r, g_ptr_array_index(r->works, i));
    }
    json_builder_end_array(b);
    if (r->guest) {
        json_builder_set_member_name(b, "apps");
        json_builder_begin_array(b);
        for (guint i = 0; i < r->apps->len; i++) {
            app(b, g_ptr_array_index(r->apps, i));
        }
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

/* The node at @path (see NvmResKept) under @n, or NULL. */
static JsonNode *node_at(JsonNode *n, const char *path)
{
    g_auto(GStrv) seg = g_strsplit(path, "/", -1);

    for (char **s = seg; n && *s; s++) {
        if (JSON_NODE_HOLDS_OBJECT(n)) {
            JsonObject *o = json_node_get_object(n);

            n = json_object_has_member(o, *s) ?
                json_object_get_member(o, *s) : NULL;
        } else if (JSON_NODE_HOLDS_ARRAY(n)) {
            JsonArray *a = json_node_get_array(n);
            guint64 i = g_ascii_strtoull(*s, NULL, 10);

            n = i < json_array_get_length(a) ?
                json_array_get_element(a, (guint)i) : NULL;
        } else {
            n = NULL;
        }
    }
    return n;
}

/* A member the reader kept, back into the object @n holds, right after the
 * member it followed in the file (unless the model has it by now). */
static void put_back(JsonNode *n, const NvmResKept *x)
{
    JsonObject *o = json_node_get_object(n);
    g_autoptr(GList) names = NULL;
    JsonObject *rebuilt;
    bool placed = false;

    if (json_object_has_member(o, x->name)) {
        return;
    }
    rebuilt = json_object_new();
    if (!x->after) {
        json_object_set_member(rebuilt, x->name, json_node_copy(x->value));
        placed = true;
    }
    names = json_object_get_members(o);
    for (GList *l = names; l; l = l->next) {
        json_object_set_member(rebuilt, l->data,
                               json_node_copy(json_object_get_member(o,
                                                                     l->data)));
        if (!placed && !strcmp(l->data, x->after)) {
            json_object_set_member(rebuilt, x->name,
                                   json_node_copy(x->value));
            placed = true;
        }
    }
    if (!placed) {
        json_object_set_member(rebuilt, x->name, json_node_copy(x->value));
    }
    json_node_take_object(n, rebuilt);
}

JsonNode *nvm_results_to_node(const NvmResults *r)
{
    JsonNode *root = built_node(r);

    for (guint i = 0; r->kept && i < r->kept->len; i++) {
        const NvmResKept *x = g_ptr_array_index(r->kept, i);
        JsonNode *n = node_at(root, x->path);

        if (n && JSON_NODE_HOLDS_OBJECT(n)) {
            put_back(n, x);
        }
    }
    return root;
}

char *nvm_results_to_json(const NvmResults *r)
{
    g_autoptr(JsonNode) root = nvm_results_to_node(r);

    return nvm_json_to_text(root);
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_field(GString *s, const char *v)
{
    if (strpbrk(v, ",\"\n")) {
        g_string_append_c(s, '"');
        for (const char *c = v; *c; c++) {
            if (*c == '"') {
                g_string_append_c(s, '"');
            }
            g_string_append_c(s, *c);
        }
        g_string_append_c(s, '"');
    } else {
        g_string_append(s, v);
    }
}

static void csv_num(GString *s, double v, int decimals)
{
    g_string_append_c(s, ',');
    if (!isnan(v)) {
        g_string_append_printf(s, "%.*f", decimals, v);
    }
}

/* The suite a workload belongs to: its own "suite", else the run's when
 * that names one suite (files from before "suites"), else "". */
static const char *work_suite(const NvmResults *r, const NvmResWork *w)
{
    if (w->suite) {
        return w->suite;
    }
    if (r->suites && r->suites->len == 1) {
        return g_ptr_array_index(r->suites, 0);
    }
    if (r->suite && !strchr(r->suite, ',') && strcmp(r->suite, "all")) {
        return r->suite;
    }
    return "";
}

/* One row: the peak (@p->target_pct 0, point "peak") or a curve point.
 * sim_lat_us is the model's latency at the point's IOPS: a guest run's
 * own figure, the point itself in mode sim. */
static void csv_row(GString *s, const NvmResults *r, const NvmResWork *w,
                    const NvmResPoint *p)
{
    csv_field(s, r->profile ? r->profile : "");
    g_string_append_c(s, ',');
    csv_field(s, w->name);
    g_string_append_c(s, ',');
    if (w->threads > 0) {
        g_string_append_printf(s, "%d", w->threads);
    }
    if (p->target_pct) {
        g_string_append_printf(s, ",%d,%d", p->target_pct, p->target_pct);
    } else {
        g_string_append(s, ",peak,");
    }
    csv_num(s, p->target_pct ? p->target_iops : NAN, 1);
    csv_num(s, p->fig.iops, 2);
    csv_num(s, p->fig.mbps, 2);
    csv_num(s, p->fig.lat_us, 2);
    csv_num(s, p->fig.p50_us, 2);
    csv_num(s, p->fig.p99_us, 2);
    csv_num(s, p->fig.p999_us, 2);
    csv_num(s, p->host.iops, 2);
    csv_num(s, p->host.lat_us, 2);
    csv_num(s, p->host.p99_us, 2);
    g_string_append_printf(s, ",%s", p->host_limited < 0 ? "" :
                           p->host_limited ? "true" : "false");
    csv_num(s, p->shortfall_pct, 2);
    csv_num(s, r->guest ? p->sim_lat_us : p->fig.lat_us, 2);
    g_string_append_c(s, ',');
    csv_field(s, work_suite(r, w));
    g_string_append_c(s, '\n');
}

char *nvm_results_to_csv(const NvmResults *r)
{
    GString *s = g_string_new("profile,workload,threads,point,target_pct,"
                              "target_iops,iops,mbps,lat_us,p50_us,p99_us,"
                              "p999_us,host_iops,host_lat_us,host_p99_us,"
                              "host_limited,shortfall_pct,sim_lat_us,"
                              "suite\n");

    for (guint w = 0; w < r->works->len; w++) {
        const NvmResWork *wk = g_ptr_array_index(r->works, w);

        if (wk->has_peak) {
            csv_row(s, r, wk, &wk->peak);
        }
        for (guint i = 0; i < wk->curve->len; i++) {
            csv_row(s, r, wk, &g_array_index(wk->curve, NvmResPoint, i));
        }
    }
    return g_string_free(s, FALSE);
}

/* Every number of a JSON tree as "SUITE,PATH,VALUE" rows (PATH a.b.0.c;
 * array elements with a "name" by name). */
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

char *nvm_results_apps_csv(const NvmResults *r)
{
    GString *s = g_string_new("suite,metric,value\n");

    for (guint i = 0; i < r->apps->len; i++) {
        const NvmResApp *a = g_ptr_array_index(r->apps, i);
        g_autoptr(JsonBuilder) b = json_builder_new();
        g_autoptr(JsonNode) n = NULL;

        app(b, a);
        n = json_builder_get_root(b);
        csv_flatten(s, a->suite, "", n);
    }
    return g_string_free(s, FALSE);
}

/* g_file_set_contents writes aside and renames into place. */
static bool save_one(const char *dir, const char *name, char *text,
                     GError **errp)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autofree char *t = text;

    return g_file_set_contents(path, t, -1, errp);
}

bool nvm_results_save_csv(const NvmResults *r, const char *dir,
                          GError **errp)
{
    return save_one(dir, "results.csv", nvm_results_to_csv(r), errp);
}

/* results.csv comes from results.json as written (read back), so that it
 * has the figures rounded as there and a later nvmimic report, which has
 * only results.json, writes the same bytes. */
bool nvm_results_save(const NvmResults *r, const char *dir, GError **errp)
{
    g_autofree char *json = nvm_results_to_json(r);
    g_autoptr(NvmResults) back = nvm_results_parse(json, "results.json",
                                                   errp);

    return back &&
           save_one(dir, "results.json", g_steal_pointer(&json), errp) &&
           nvm_results_save_csv(back, dir, errp) &&
           (!r->guest ||
            save_one(dir, "apps.csv", nvm_results_apps_csv(back), errp));
}
