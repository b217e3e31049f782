/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of results.json (results.h): a file of `nvmimic sim`
 * ("mode": "sim") or `nvmimic run` ("mode": "guest") into NvmResults.
 * Every key but "workloads" (or "apps") may be missing, and one of the
 * wrong type reads as missing: a partial or hand-made file still reads.
 * The model it fills (made empty, freed) is results.c.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "json-load.h"
#include "results.h"
#include "sim.h"

static JsonNode *jmember(JsonObject *o, const char *k)
{
    return o && json_object_has_member(o, k) ?
           json_object_get_member(o, k) : NULL;
}

static double jnum(JsonObject *o, const char *k)
{
    JsonNode *n = jmember(o, k);
    GType t;

    if (!n || !JSON_NODE_HOLDS_VALUE(n)) {
        return NAN;
    }
    t = json_node_get_value_type(n);
    if (t == G_TYPE_DOUBLE || t == G_TYPE_INT64) {
        return json_node_get_double(n);
    }
    return NAN;
}

static int jbool(JsonObject *o, const char *k)
{
    JsonNode *n = jmember(o, k);

    if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
        json_node_get_value_type(n) != G_TYPE_BOOLEAN) {
        return -1;
    }
    return json_node_get_boolean(n);
}

static char *jstr(JsonObject *o, const char *k)
{
    JsonNode *n = jmember(o, k);

    if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
        json_node_get_value_type(n) != G_TYPE_STRING) {
        return NULL;
    }
    return g_strdup(json_node_get_string(n));
}

/* A whole number; 0 when missing. */
static int jint(JsonObject *o, const char *k)
{
    double v = jnum(o, k);

    return isnan(v) ? 0 : (int)v;
}

static JsonObject *jobj(JsonObject *o, const char *k)
{
    JsonNode *n = jmember(o, k);

    return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static JsonArray *jarr(JsonObject *o, const char *k)
{
    JsonNode *n = jmember(o, k);

    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* Member @prefix@name of @o (see jnum). */
static double jnum_pre(JsonObject *o, const char *prefix, const char *name)
{
    char k[64];

    g_snprintf(k, sizeof(k), "%s%s", prefix, name);
    return jnum(o, k);
}

/* FIG's members, each with @prefix ("" or "host_"). */
static NvmFig fig_read(JsonObject *o, const char *prefix)
{
    return (NvmFig){
        .iops = jnum_pre(o, prefix, "iops"),
        .mbps = jnum_pre(o, prefix, "mbps"),
        .lat_us = jnum_pre(o, prefix, "lat_us"),
        .p50_us = jnum_pre(o, prefix, "p50_us"),
        .p99_us = jnum_pre(o, prefix, "p99_us"),
        .p999_us = jnum_pre(o, prefix, "p999_us"),
    };
}

static void point_read(JsonObject *o, NvmResPoint *p)
{
    double pct = jnum(o, "target_pct");
    g_autofree char *by = NULL;
    JsonObject *rd, *wr;

    nvm_res_point_init(p);
    p->target_pct = isnan(pct) ? 0 : (int)lround(pct);
    p->target_iops = jnum(o, "target_iops");
    p->fig = fig_read(o, "");
    p->host = fig_read(o, "host_");
    p->host_interval_s = jnum(o, "host_interval_s");
    p->host_late = jnum(o, "host_late");
    p->host_late_p50_us = jnum(o, "host_late_p50_us");
    p->host_late_p99_us = jnum(o, "host_late_p99_us");
    p->host_late_max_us = jnum(o, "host_late_max_us");
    p->timing_limited = jbool(o, "timing_limited");
    p->shortfall_pct = jnum(o, "shortfall_pct");
    p->host_limited = jbool(o, "host_limited");
    by = jstr(o, "host_limited_by");
    p->host_limited_by = by ? g_intern_string(by) : NULL;
    p->sim_lat_us = jnum(o, "sim_lat_us");
    p->trace_lat_us = jnum(o, "trace_lat_us");
    p->wall_s = jnum(o, "wall_s");
    rd = jobj(o, "read");
    wr = jobj(o, "write");
    p->has_rw = rd && wr;
    p->rd = fig_read(rd, "");
    p->wr = fig_read(wr, "");
}

static GArray *curve_read(JsonArray *a)
{
    GArray *c = g_array_new(FALSE, TRUE, sizeof(NvmResPoint));

    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonNode *n = json_array_get_element(a, i);
        NvmResPoint p;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            continue;
        }
        point_read(json_node_get_object(n), &p);
        g_array_append_val(c, p);
    }
    return c;
}

static void dev_read(JsonObject *o, NvmResDev *d)
{
    JsonObject *co = jobj(o, "classes");

    nvm_res_dev_init(d);
    d->has = o != NULL;
    d->interval_s = jnum(o, "interval_s");
    d->active_s = jnum(o, "active_s");
    for (unsigned c = 0; c < NVM_CLASS_COUNT; c++) {
        JsonObject *f = jobj(co, nvm_op_name(c));
        NvmResDevFig *g = &d->cls[c];

        g->has = f != NULL;
        g->count = jnum(f, "count");
        g->fig = fig_read(f, "");
        g->max_us = jnum(f, "max_us");
    }
}

static void txn_read(JsonObject *o, NvmResTxn *x)
{
    x->has = o != NULL;
    x->count = jnum(o, "count");
    x->share = jnum(o, "share");
    x->weight = jnum(o, "weight");
    x->avg_ms = jnum(o, "avg_ms");
    x->p95_ms = jnum(o, "p95_ms");
    x->p99_ms = jnum(o, "p99_ms");
    x->max_ms = jnum(o, "max_ms");
}

/* A relative path inside the run directory, else NULL. */
static char *rel_dir(char *d)
{
    if (d && (!*d || d[0] == '/' || strchr(d, ':') || strchr(d, '\\') ||
              !strcmp(d, "..") || g_str_has_prefix(d, "../") ||
              strstr(d, "/../") || g_str_has_suffix(d, "/.."))) {
        g_free(d);
        return NULL;
    }
    return d;
}

static NvmResApp *app_read(JsonObject *o, GPtrArray *apps)
{
    g_autofree char *suite = jstr(o, "suite");
    NvmResApp *a;
    JsonObject *ro, *so, *po, *to;
    JsonArray *sa;
    g_autofree char *base = NULL;
    unsigned same = 0;

    if (!suite) {
        suite = g_strdup_printf("suite-%u", apps->len + 1);
    }
    a = nvm_res_app_new(suite);
    for (guint i = 0; i < apps->len; i++) {
        same += !strcmp(((NvmResApp *)g_ptr_array_index(apps, i))->suite,
                        a->suite);
    }
    base = nvm_res_safe_name(a->suite);
    a->file = same ? g_strdup_printf("app-%s-%u", base, same + 1)
                   : g_strdup_printf("app-%s", base);
    a->complete = jbool(o, "complete");
    a->error = jstr(o, "error");
    a->log_tail = jstr(o, "log_tail");
    a->guest_dir = rel_dir(jstr(o, "guest_dir"));
    a->wall_s = jnum(o, "wall_s");
    dev_read(jobj(o, "device"), &a->dev);

    sa = jarr(o, "steps");
    for (guint i = 0; sa && i < json_array_get_length(sa); i++) {
        JsonNode *n = json_array_get_element(sa, i);
        JsonObject *q;
        NvmResStep st;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            continue;
        }
        q = json_node_get_object(n);
        st.name = jstr(q, "name");
        if (!st.name) {
            st.name = g_strdup_printf("step-%u", i + 1);
        }
        st.rw = jstr(q, "rw");
        st.qd = jnum(q, "qd");
        st.bytes = jnum(q, "bytes");
        st.gbps = jnum(q, "gbps");
        st.fig = fig_read(q, "");
        dev_read(jobj(q, "device"), &st.dev);
        g_array_append_val(a->steps, st);
    }

    ro = jobj(o, "result");
    a->has_result = ro != NULL;
    if (jmember(o, "result")) {
        a->result = json_node_copy(jmember(o, "result"));
    }
    if (jmember(o, "swap")) {
        a->swap = json_node_copy(jmember(o, "swap"));
    }
    /* render */
    a->mem_mib = jnum(o, "mem_mib");
    a->ram_factor = jnum(o, "ram_factor");
    a->points = jnum(ro, "points");
    a->threads = jnum(ro, "threads");
    a->ram_bytes = jnum(ro, "ram_bytes");
    a->array_bytes = jnum(ro, "array_bytes");
    a->packed_bytes = jnum(ro, "packed_bytes");
    a->load_s = jnum(ro, "load_s");
    a->unpack_s = jnum(ro, "unpack_s");
    a->repack_s = jnum(ro, "repack_s");
    a->total_s = jnum(ro, "total_s");
    po = jobj(ro, "check");
    a->check_bad = jnum(po, "bad");
    a->check_missing = jnum(po, "missing");
    a->check_ok = jbool(po, "ok");
    so = jobj(o, "swap");
    a->has_swap = so != NULL;
    a->pswpin = jnum(so, "pswpin");
    a->pswpout = jnum(so, "pswpout");
    /* sql */
    po = jobj(o, "params");
    a->has_params = po != NULL;
    a->warehouses = jnum(po, "warehouses");
    a->users = jnum(po, "users");
    a->precondition_s = jnum(po, "precondition_s");
    a->sample_s = jnum(po, "sample_s");
    a->think_factor = jnum(po, "think_factor");
    a->topology = jstr(po, "topology");
    a->guest_mem_mib = jnum(po, "guest_mem_mib");
    a->shared_buffers_mib = jnum(po, "shared_buffers_mib");
    a->database_image = jstr(po, "database_image");
    po = jobj(o, "latency_gap");
    a->has_gap = po != NULL;
    for (unsigned i = 0; i < NVM_RES_GAP_CLASSES; i++) {
        JsonObject *c = jobj(po, nvm_res_gap_class[i]);

        a->gap[i][0] = jnum(c, "guest_us");
        a->gap[i][1] = jnum(c, "device_us");
        a->gap[i][2] = jnum(c, "gap_us");
    }
    a->tpmc = jnum(ro, "tpmC");
    a->tpm_total = jnum(ro, "tpm_total");
    a->failures = jnum(ro, "failures");
    txn_read(jobj(ro, "overall"), &a->overall);
    to = jobj(ro, "transactions");
    for (unsigned k = 0; k < NVM_RES_TXNS; k++) {
        txn_read(jobj(to, nvm_res_txn_key[k]), &a->txn[k]);
    }
    return a;
}

/* The review's peak from four-corners.tsv, for files that carry none. */
static void review_from_tsv(NvmResults *r, const char *tsv)
{
    g_autoptr(GError) err = NULL;
    GArray *rows;

    if (!tsv || !r->profile || !g_file_test(tsv, G_FILE_TEST_EXISTS)) {
        return;
    }
    rows = nvm_reviews_load(tsv, &err);
    if (!rows) {
        return;
    }
    for (guint w = 0; w < r->works->len; w++) {
        NvmResWork *wk = g_ptr_array_index(r->works, w);

        if (!isnan(wk->review_iops)) {
            continue;
        }
        for (guint i = 0; i < rows->len; i++) {
            NvmReviewRow *q = &g_array_index(rows, NvmReviewRow, i);

            if (!strcmp(q->drive, r->profile) &&
                !strcmp(q->workload, wk->name)) {
                wk->review_iops = q->peak_iops;
                wk->review_lat_us = q->lat_us;
                wk->review_src = g_path_get_basename(tsv);
            }
        }
    }
    nvm_reviews_free(rows);
}

/* The members of the top-level object @o into a new NvmResults. */
static NvmResults *results_read(JsonObject *o, const char *path,
                                GError **errp)
{
    g_autoptr(NvmResults) r = NULL;
    g_autofree char *mode = NULL;
    JsonArray *wa, *aa, *sa;
    GStatBuf st;

    wa = jarr(o, "workloads");
    aa = jarr(o, "apps");
    if (!wa && !aa) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: not a results file (no "
                    "\"workloads\" array)", path);
        return NULL;
    }
    mode = jstr(o, "mode");
    if (!mode) {
        mode = g_strdup(jmember(o, "run_mode") ? "guest" : "sim");
    }
    r = nvm_results_new(NULL, mode);
    r->schema_version = jnum(o, "schema_version");
    r->profile = jstr(o, "profile");
    if (!r->profile) {
        r->profile = g_strdup("unknown-profile");
    }
    r->run_mode = jstr(o, "run_mode");
    r->has_connect = jmember(o, "connect") != NULL;
    r->connect = jstr(o, "connect");
    r->suite = jstr(o, "suite");
    r->threads_mode = jstr(o, "threads_mode");
    r->seed = jnum(o, "seed");
    r->duration_s = jnum(o, "duration_s");
    r->ramp_s = jnum(o, "ramp_s");
    r->peak_ramp_s = jnum(o, "peak_ramp_s");
    r->quick = jbool(o, "quick");
    r->sim_duration_s = jnum(o, "sim_duration_s");
    r->span_bytes = jnum(o, "span_bytes");
    r->complete = jbool(o, "complete");
    if (r->complete < 0 && !r->guest) {
        r->complete = 1;        /* a model run is never cut short */
    }
    r->accel = jstr(o, "accel");
    r->precondition = jstr(o, "precondition");
    r->guest_append = jstr(o, "guest_append");
    r->guest_pre = jstr(o, "guest_pre");
    r->fio_opts = jstr(o, "fio_opts");
    r->backing = jstr(o, "backing");
    r->error = jstr(o, "error");
    r->failed_point = jstr(o, "failed_point");
    r->guest_ips = jnum(o, "guest_ips");
    r->icount_shift = jnum(o, "icount_shift");
    if (jmember(o, "faults")) {
        /* run --fault (docs/faults.md): kept as written, among the extras */
        JsonObject *x = json_object_new();

        json_object_set_member(x, "faults",
                               json_node_copy(jmember(o, "faults")));
        r->extra = json_node_new(JSON_NODE_OBJECT);
        json_node_take_object(r->extra, x);
    }
    r->wall_s = jnum(o, "wall_s");
    r->started = jstr(o, "started");
    r->date = jstr(o, "date");
    if (!r->date) {
        r->date = g_strdup(r->started);
    }
    if (!r->date && g_stat(path, &st) == 0) {
        g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local(st.st_mtime);

        r->date = g_date_time_format(dt, "%Y-%m-%d %H:%M %Z");
    }
    for (guint i = 0; wa && i < json_array_get_length(wa); i++) {
        JsonNode *n = json_array_get_element(wa, i);
        JsonObject *wo, *so, *ro, *po;
        g_autofree char *name = NULL;
        NvmResWork *w;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            continue;
        }
        wo = json_node_get_object(n);
        name = jstr(wo, "name");
        if (!name) {
            name = g_strdup_printf("workload-%u", i + 1);
        }
        w = nvm_res_work_new(name);
        w->threads = jint(wo, "threads");
        w->jobs = jint(wo, "jobs");
        w->iodepth = jint(wo, "iodepth");
        w->block_bytes = jint(wo, "block_bytes");
        w->suite = jstr(wo, "suite");
        w->job_file = jstr(wo, "job_file");
        if (jobj(wo, "mix")) {
            w->mix = json_node_copy(jmember(wo, "mix"));
        }
        po = jobj(wo, "mix");
        w->has_mix = po != NULL;
        w->mix_read_pct = jnum(po, "read_pct");
        w->mix_outstanding = jnum(po, "outstanding");
        w->mix_mean_block = jnum(po, "mean_block_bytes");
        w->mix_jobfile = jstr(po, "jobfile");
        po = jobj(wo, "peak");
        w->has_peak = po != NULL;
        if (po) {
            point_read(po, &w->peak);
        }
        g_array_free(w->curve, TRUE);
        w->curve = curve_read(jarr(wo, "curve"));
        so = jobj(wo, "sim");
        if (!r->guest) {
            w->has_sim = true;
            w->has_sim_peak = w->has_peak;
            w->sim_peak = w->peak;
            w->sim_curve = g_array_copy(w->curve);
        } else if (so) {
            w->has_sim = true;
            po = jobj(so, "peak");
            w->has_sim_peak = po != NULL;
            if (po) {
                point_read(po, &w->sim_peak);
            }
            w->sim_curve = curve_read(jarr(so, "curve"));
        }
        ro = jobj(wo, "review");
        w->review_iops = jnum(ro, "iops");
        w->review_lat_us = jnum(ro, "lat_us");
        if (!isnan(w->review_iops)) {
            w->review_src = g_strdup("results.json");
        }
        w->loadgen = jstr(wo, "loadgen");
        w->peak_ramp_s = jnum(wo, "peak_ramp_s");
        so = jobj(wo, "sim_replay");
        w->has_replay = so != NULL;
        if (so) {
            w->replay_idle_s = jnum(so, "idle_s");
            po = jobj(so, "peak");
            if (po) {
                point_read(po, &w->replay_peak);
            }
            w->replay_curve = curve_read(jarr(so, "curve"));
        }
        g_ptr_array_add(r->works, w);
    }
    sa = jarr(o, "suites");
    if (sa) {
        r->suites = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < json_array_get_length(sa); i++) {
            JsonNode *n = json_array_get_element(sa, i);

            if (JSON_NODE_HOLDS_VALUE(n) &&
                json_node_get_value_type(n) == G_TYPE_STRING) {
                g_ptr_array_add(r->suites,
                                g_strdup(json_node_get_string(n)));
            }
        }
    }
    for (guint i = 0; aa && i < json_array_get_length(aa); i++) {
        JsonNode *n = json_array_get_element(aa, i);

        if (JSON_NODE_HOLDS_OBJECT(n)) {
            g_ptr_array_add(r->apps,
                            app_read(json_node_get_object(n), r->apps));
        }
    }
    return g_steal_pointer(&r);
}

/* The top level of a parsed file: an object, else an error. */
static void kept_free(gpointer data)
{
    NvmResKept *x = data;

    g_free(x->path);
    g_free(x->after);
    g_free(x->name);
    json_node_unref(x->value);
    g_free(x);
}

/*
 * The members of the file @in that the writer's tree @out of what was read
 * lacks, at @path, into @kept.  Arrays pair element by element; where the
 * reader dropped elements (one not an object in an array of objects), the
 * elements of the writer's type pair in order.
 */
static void kept_walk(GPtrArray *kept, const char *path, JsonNode *in,
                      JsonNode *out)
{
    if (JSON_NODE_HOLDS_OBJECT(in) && JSON_NODE_HOLDS_OBJECT(out)) {
        JsonObject *io = json_node_get_object(in);
        JsonObject *oo = json_node_get_object(out);
        g_autoptr(GList) names = json_object_get_members(io);
        const char *after = NULL;

        for (GList *l = names; l; after = l->data, l = l->next) {
            const char *k = l->data;
            JsonNode *c = json_object_get_member(io, k);
            NvmResKept *x;

            if (json_object_has_member(oo, k)) {
                g_autofree char *sub = *path ?
                    g_strdup_printf("%s/%s", path, k) : g_strdup(k);

                kept_walk(kept, sub, c, json_object_get_member(oo, k));
                continue;
            }
            x = g_new0(NvmResKept, 1);
            x->path = g_strdup(path);
            x->after = g_strdup(after);
            x->name = g_strdup(k);
            x->value = json_node_copy(c);
            g_ptr_array_add(kept, x);
        }
    } else if (JSON_NODE_HOLDS_ARRAY(in) && JSON_NODE_HOLDS_ARRAY(out)) {
        JsonArray *ia = json_node_get_array(in);
        JsonArray *oa = json_node_get_array(out);
        guint ni = json_array_get_length(ia), no = json_array_get_length(oa);

        for (guint i = 0, k = 0; i < ni && k < no; i++) {
            JsonNode *e = json_array_get_element(ia, i);
            JsonNode *f = json_array_get_element(oa, k);
            g_autofree char *sub = NULL;

            if (ni != no && JSON_NODE_TYPE(e) != JSON_NODE_TYPE(f)) {
                continue;
            }
            sub = g_strdup_printf("%s/%u", path, k++);
            kept_walk(kept, sub, e, f);
        }
    }
}

static NvmResults *results_from_root(JsonNode *root, const char *path,
                                     GError **errp)
{
    NvmResults *r;
    g_autoptr(JsonNode) out = NULL;

    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: not a results file (the "
                    "top level is not a JSON object)", path);
        return NULL;
    }
    r = results_read(json_node_get_object(root), path, errp);
    if (!r) {
        return NULL;
    }
    /* what the writer would not write back */
    out = nvm_results_to_node(r);
    r->kept = g_ptr_array_new_with_free_func(kept_free);
    kept_walk(r->kept, "", root, out);
    if (!r->kept->len) {
        g_ptr_array_free(r->kept, TRUE);
        r->kept = NULL;
    }
    return r;
}

NvmResults *nvm_results_parse(const char *text, const char *origin,
                              GError **errp)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) err = NULL;

    if (!nvm_json_load(parser, text, -1, &err)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: malformed JSON: %s",
                    origin, err->message);
        return NULL;
    }
    return results_from_root(json_parser_get_root(parser), origin, errp);
}

/* The file @path, in the run directory @dir. */
static NvmResults *load_file(const char *path, const char *dir,
                             const char *reviews_tsv, GError **errp)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *text = NULL;
    gsize len;
    NvmResults *r;

    /* read once, parsed from memory: json-glib names it "<data>" */
    if (!g_file_get_contents(path, &text, &len, &err) ||
        !nvm_json_load(parser, text, len, &err)) {
        const char *m = err->message;

        if (g_str_has_prefix(m, "<data>:")) {
            m += strlen("<data>:");
        }
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: malformed JSON: %s",
                    path, m);
        return NULL;
    }
    r = results_from_root(json_parser_get_root(parser), path, errp);
    if (r) {
        r->dir = g_strdup(dir);
        r->path = g_strdup(path);
        review_from_tsv(r, reviews_tsv);
    }
    return r;
}

NvmResults *nvm_results_load(const char *dir, const char *reviews_tsv,
                             GError **errp)
{
    g_autofree char *path = g_build_filename(dir, "results.json", NULL);

    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: no such directory",
                    dir);
        return NULL;
    }
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: not found (nvmimic run "
                    "--out DIR or nvmimic sim --out DIR writes it)", path);
        return NULL;
    }
    return load_file(path, dir, reviews_tsv, errp);
}

NvmResults *nvm_results_load_path(const char *path, const char *reviews_tsv,
                                  GError **errp)
{
    g_autofree char *dir = NULL;

    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        return nvm_results_load(path, reviews_tsv, errp);
    }
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: no such file or "
                    "directory", path);
        return NULL;
    }
    dir = g_path_get_dirname(path);
    return load_file(path, dir, reviews_tsv, errp);
}
