/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report / compare: read results.json, write results.csv, draw the
 * reviews' chart (average latency against IOPS) with gnuplot in PNG and SVG,
 * and write a self-contained report.html.
 *
 * results.json is the `nvmimic sim --format json` schema ("mode": "sim") or
 * a guest run's ("mode": "guest"), which adds per point the device's own
 * figures (host_*), host_limited and shortfall_pct, and per workload the
 * model-only curve ("sim") and the review's peak ("review").  Every key but
 * "workloads" is optional here: a partial or hand-made file still renders.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "report.h"
#include "sim.h"

#define REPORT_ERROR report_error_quark()

static GQuark report_error_quark(void)
{
    return g_quark_from_static_string("nvmimic-report-error");
}

typedef struct RPoint {
    int target_pct;             /* 0 for a peak */
    double target_iops;
    double iops, mbps, lat_us, p50_us, p99_us, p999_us;
    double host_iops, host_lat_us, host_p99_us;
    double shortfall_pct;
    int host_limited;           /* -1 unknown */
} RPoint;

typedef struct RWork {
    char *name;
    char *file;                 /* name made safe for a file name */
    int threads;
    int block_bytes;
    bool has_peak;
    RPoint peak;
    GArray *curve;              /* RPoint */
    bool has_sim;
    bool has_sim_peak;
    RPoint sim_peak;
    GArray *sim_curve;          /* RPoint */
    double review_iops;         /* NAN: none */
    double review_lat_us;       /* NAN: none or not published */
    char *review_src;           /* "results.json" or the TSV */
    char *suite;                /* "four-corners", "vdi"; NULL: not said */
    bool has_mix;               /* a VDI mix: "mix" */
    double mix_read_pct, mix_outstanding, mix_mean_block;
    char *mix_jobfile;
} RWork;

/* The device's own figures (QMP) per command class over an interval. */
enum { DEV_READ, DEV_WRITE, DEV_FLUSH, N_DEV };

static const char *const dev_class[N_DEV] = { "read", "write", "flush" };

typedef struct RDevFig {
    bool has;
    double count, iops, mbps, lat_us, p50_us, p99_us, p999_us, max_us;
} RDevFig;

typedef struct RDev {
    bool has;
    double interval_s;
    RDevFig cls[N_DEV];
} RDev;

/* One fio step of the "seq" application suite. */
typedef struct RStep {
    char *name;
    char *rw;
    double qd, bytes, gbps, iops, lat_us, p99_us;
    RDev dev;
} RStep;

/* Latencies of one TPC-C transaction type (or all of them). */
typedef struct RTxn {
    bool has;
    double count, share, weight, avg_ms, p95_ms, p99_ms, max_ms;
} RTxn;

#define N_TXN 5
static const char *const txn_key[N_TXN] = {
    "new_order", "payment", "order_status", "delivery", "stock_level",
};

/* One application suite ("apps"): seq, render or sql. */
typedef struct RApp {
    char *suite;
    char *file;                 /* "app-seq": its section and chart */
    char *error;
    char *guest_dir;            /* relative; NULL when absent or unsafe */
    int complete;               /* -1 unknown */
    double wall_s;
    RDev dev;
    bool charted;               /* a chart was drawn */
    GArray *steps;              /* RStep (seq) */
    bool has_result;            /* render, sql */
    /* render */
    double mem_mib, points, threads, ram_bytes, array_bytes, packed_bytes;
    double load_s, unpack_s, repack_s, total_s, check_bad, check_missing;
    int check_ok;               /* -1 unknown */
    bool has_swap;
    double pswpin, pswpout;
    /* sql */
    bool has_params;
    double warehouses, users, precondition_s, sample_s, think_factor;
    double tpmc, tpm_total, failures;
    RTxn overall;
    RTxn txn[N_TXN];
} RApp;

typedef struct RRun {
    char *dir;
    char *profile;
    char *mode;                 /* "sim", "guest", or what the file says */
    char *run_mode;
    char *suite;
    char *threads_mode;
    char *date;
    char *accel;
    char *precondition;
    char *error;
    char *failed_point;
    char *label;                /* for compare */
    double seed;
    double duration_s;
    double wall_s;
    int complete;               /* -1 unknown */
    bool guest;
    GPtrArray *works;           /* RWork */
    GPtrArray *suites;          /* char *, "suites"; NULL: not in the file */
    GPtrArray *apps;            /* RApp */
} RRun;

/* ---- JSON ------------------------------------------------------------- */

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

static void point_read(JsonObject *o, RPoint *p)
{
    double pct = jnum(o, "target_pct");

    p->target_pct = isnan(pct) ? 0 : (int)lround(pct);
    p->target_iops = jnum(o, "target_iops");
    p->iops = jnum(o, "iops");
    p->mbps = jnum(o, "mbps");
    p->lat_us = jnum(o, "lat_us");
    p->p50_us = jnum(o, "p50_us");
    p->p99_us = jnum(o, "p99_us");
    p->p999_us = jnum(o, "p999_us");
    p->host_iops = jnum(o, "host_iops");
    p->host_lat_us = jnum(o, "host_lat_us");
    p->host_p99_us = jnum(o, "host_p99_us");
    p->shortfall_pct = jnum(o, "shortfall_pct");
    p->host_limited = jbool(o, "host_limited");
}

static GArray *curve_read(JsonArray *a)
{
    GArray *c = g_array_new(FALSE, TRUE, sizeof(RPoint));

    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonNode *n = json_array_get_element(a, i);
        RPoint p;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            continue;
        }
        point_read(json_node_get_object(n), &p);
        g_array_append_val(c, p);
    }
    return c;
}

static char *safe_name(const char *s)
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

static void work_free(gpointer data)
{
    RWork *w = data;

    g_free(w->name);
    g_free(w->file);
    g_array_free(w->curve, TRUE);
    if (w->sim_curve) {
        g_array_free(w->sim_curve, TRUE);
    }
    g_free(w->review_src);
    g_free(w->suite);
    g_free(w->mix_jobfile);
    g_free(w);
}

static void app_free(gpointer data)
{
    RApp *a = data;

    g_free(a->suite);
    g_free(a->file);
    g_free(a->error);
    g_free(a->guest_dir);
    for (guint i = 0; a->steps && i < a->steps->len; i++) {
        RStep *st = &g_array_index(a->steps, RStep, i);

        g_free(st->name);
        g_free(st->rw);
    }
    if (a->steps) {
        g_array_free(a->steps, TRUE);
    }
    g_free(a);
}

static void run_free(RRun *r)
{
    if (!r) {
        return;
    }
    g_free(r->dir);
    g_free(r->profile);
    g_free(r->mode);
    g_free(r->run_mode);
    g_free(r->suite);
    g_free(r->threads_mode);
    g_free(r->date);
    g_free(r->accel);
    g_free(r->precondition);
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
    g_free(r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RRun, run_free)

/* ---- application suites ("apps") ---- */

static void dev_read(JsonObject *o, RDev *d)
{
    JsonObject *co = jobj(o, "classes");

    memset(d, 0, sizeof(*d));
    d->has = o != NULL;
    d->interval_s = jnum(o, "interval_s");
    for (unsigned c = 0; c < N_DEV; c++) {
        JsonObject *f = jobj(co, dev_class[c]);
        RDevFig *g = &d->cls[c];

        g->has = f != NULL;
        g->count = jnum(f, "count");
        g->iops = jnum(f, "iops");
        g->mbps = jnum(f, "mbps");
        g->lat_us = jnum(f, "lat_us");
        g->p50_us = jnum(f, "p50_us");
        g->p99_us = jnum(f, "p99_us");
        g->p999_us = jnum(f, "p999_us");
        g->max_us = jnum(f, "max_us");
    }
}

static void txn_read(JsonObject *o, RTxn *x)
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

static RApp *app_read(JsonObject *o, GPtrArray *apps)
{
    RApp *a = g_new0(RApp, 1);
    JsonObject *ro, *so, *po, *to;
    JsonArray *sa;
    g_autofree char *base = NULL;
    unsigned same = 0;

    a->suite = jstr(o, "suite");
    if (!a->suite) {
        a->suite = g_strdup_printf("suite-%u", apps->len + 1);
    }
    for (guint i = 0; i < apps->len; i++) {
        same += !strcmp(((RApp *)g_ptr_array_index(apps, i))->suite,
                        a->suite);
    }
    base = safe_name(a->suite);
    a->file = same ? g_strdup_printf("app-%s-%u", base, same + 1)
                   : g_strdup_printf("app-%s", base);
    a->complete = jbool(o, "complete");
    a->error = jstr(o, "error");
    a->guest_dir = rel_dir(jstr(o, "guest_dir"));
    a->wall_s = jnum(o, "wall_s");
    dev_read(jobj(o, "device"), &a->dev);

    a->steps = g_array_new(FALSE, TRUE, sizeof(RStep));
    sa = jarr(o, "steps");
    for (guint i = 0; sa && i < json_array_get_length(sa); i++) {
        JsonNode *n = json_array_get_element(sa, i);
        JsonObject *q;
        RStep st;

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
        st.iops = jnum(q, "iops");
        st.lat_us = jnum(q, "lat_us");
        st.p99_us = jnum(q, "p99_us");
        dev_read(jobj(q, "device"), &st.dev);
        g_array_append_val(a->steps, st);
    }

    ro = jobj(o, "result");
    a->has_result = ro != NULL;
    /* render */
    a->mem_mib = jnum(o, "mem_mib");
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
    a->tpmc = jnum(ro, "tpmC");
    a->tpm_total = jnum(ro, "tpm_total");
    a->failures = jnum(ro, "failures");
    txn_read(jobj(ro, "overall"), &a->overall);
    to = jobj(ro, "transactions");
    for (unsigned k = 0; k < N_TXN; k++) {
        txn_read(jobj(to, txn_key[k]), &a->txn[k]);
    }
    return a;
}

/* The review's peak from four-corners.tsv, for files that carry none. */
static void review_from_tsv(RRun *r, const char *tsv)
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
        RWork *wk = g_ptr_array_index(r->works, w);

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

static RRun *run_load(const char *dir, const char *reviews_tsv,
                      GError **errp)
{
    g_autofree char *path = g_build_filename(dir, "results.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) err = NULL;
    g_autoptr(RRun) r = g_new0(RRun, 1);
    JsonNode *root;
    JsonObject *o;
    JsonArray *wa, *aa, *sa;
    GStatBuf st;

    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(errp, REPORT_ERROR, 1, "%s: no such directory", dir);
        return NULL;
    }
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(errp, REPORT_ERROR, 1, "%s: not found (nvmimic run "
                    "--out DIR or nvmimic sim --out DIR writes it)", path);
        return NULL;
    }
    if (!json_parser_load_from_file(parser, path, &err)) {
        const char *m = err->message;

        /* json-glib starts its message with the file name already */
        if (g_str_has_prefix(m, path) && m[strlen(path)] == ':') {
            m += strlen(path) + 1;
        }
        g_set_error(errp, REPORT_ERROR, 1, "%s: malformed JSON: %s", path, m);
        return NULL;
    }
    root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(errp, REPORT_ERROR, 1, "%s: not a results file (the top "
                    "level is not a JSON object)", path);
        return NULL;
    }
    o = json_node_get_object(root);
    wa = jarr(o, "workloads");
    aa = jarr(o, "apps");
    if (!wa && !aa) {
        g_set_error(errp, REPORT_ERROR, 1, "%s: not a results file (no "
                    "\"workloads\" array)", path);
        return NULL;
    }
    r->dir = g_strdup(dir);
    r->profile = jstr(o, "profile");
    if (!r->profile) {
        r->profile = g_strdup("unknown-profile");
    }
    r->mode = jstr(o, "mode");
    if (!r->mode) {
        r->mode = g_strdup(jmember(o, "run_mode") ? "guest" : "sim");
    }
    r->guest = strcmp(r->mode, "sim") != 0;
    r->run_mode = jstr(o, "run_mode");
    r->suite = jstr(o, "suite");
    r->threads_mode = jstr(o, "threads_mode");
    r->seed = jnum(o, "seed");
    r->duration_s = jnum(o, "duration_s");
    r->complete = jbool(o, "complete");
    if (r->complete < 0 && !r->guest) {
        r->complete = 1;        /* a model run is never cut short */
    }
    r->accel = jstr(o, "accel");
    r->precondition = jstr(o, "precondition");
    r->error = jstr(o, "error");
    r->failed_point = jstr(o, "failed_point");
    r->wall_s = jnum(o, "wall_s");
    r->date = jstr(o, "date");
    if (!r->date) {
        r->date = jstr(o, "started");
    }
    if (!r->date && g_stat(path, &st) == 0) {
        g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local(st.st_mtime);

        r->date = g_date_time_format(dt, "%Y-%m-%d %H:%M %Z");
    }
    r->works = g_ptr_array_new_with_free_func(work_free);
    for (guint i = 0; wa && i < json_array_get_length(wa); i++) {
        JsonNode *n = json_array_get_element(wa, i);
        JsonObject *wo, *so, *ro, *po;
        RWork *w;
        double v;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            continue;
        }
        wo = json_node_get_object(n);
        w = g_new0(RWork, 1);
        w->name = jstr(wo, "name");
        if (!w->name) {
            w->name = g_strdup_printf("workload-%u", i + 1);
        }
        w->file = safe_name(w->name);
        v = jnum(wo, "threads");
        w->threads = isnan(v) ? 0 : (int)v;
        v = jnum(wo, "block_bytes");
        w->block_bytes = isnan(v) ? 0 : (int)v;
        w->suite = jstr(wo, "suite");
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
    r->apps = g_ptr_array_new_with_free_func(app_free);
    for (guint i = 0; aa && i < json_array_get_length(aa); i++) {
        JsonNode *n = json_array_get_element(aa, i);

        if (JSON_NODE_HOLDS_OBJECT(n)) {
            g_ptr_array_add(r->apps,
                            app_read(json_node_get_object(n), r->apps));
        }
    }
    review_from_tsv(r, reviews_tsv);
    return g_steal_pointer(&r);
}

/* The model's point at the same target percentage, if any. */
static const RPoint *sim_at(const RWork *w, int pct)
{
    for (guint i = 0; w->sim_curve && i < w->sim_curve->len; i++) {
        const RPoint *p = &g_array_index(w->sim_curve, RPoint, i);

        if (p->target_pct == pct) {
            return p;
        }
    }
    return NULL;
}

/* ---- CSV -------------------------------------------------------------- */

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

/* One row: the peak (@p->target_pct 0, point "peak") or a curve point. */
static void csv_row(GString *s, const RRun *r, const RWork *w,
                    const RPoint *p, const RPoint *sp)
{
    csv_field(s, r->profile);
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
    csv_num(s, p->target_iops, 1);
    csv_num(s, p->iops, 2);
    csv_num(s, p->mbps, 2);
    csv_num(s, p->lat_us, 2);
    csv_num(s, p->p50_us, 2);
    csv_num(s, p->p99_us, 2);
    csv_num(s, p->p999_us, 2);
    csv_num(s, p->host_iops, 2);
    csv_num(s, p->host_lat_us, 2);
    csv_num(s, p->host_p99_us, 2);
    g_string_append_printf(s, ",%s", p->host_limited < 0 ? "" :
                           p->host_limited ? "true" : "false");
    csv_num(s, p->shortfall_pct, 2);
    csv_num(s, sp ? sp->iops : NAN, 2);
    csv_num(s, sp ? sp->lat_us : NAN, 2);
    g_string_append_c(s, '\n');
}

/* The columns nvmimic run writes, plus the model's IOPS (sim_iops). */
static bool write_csv(const RRun *r, GError **errp)
{
    g_autofree char *path = g_build_filename(r->dir, "results.csv", NULL);
    g_autoptr(GString) s = g_string_new("profile,workload,threads,point,"
                                        "target_pct,target_iops,iops,mbps,"
                                        "lat_us,p50_us,p99_us,p999_us,"
                                        "host_iops,host_lat_us,host_p99_us,"
                                        "host_limited,shortfall_pct,"
                                        "sim_iops,sim_lat_us\n");

    for (guint w = 0; w < r->works->len; w++) {
        const RWork *wk = g_ptr_array_index(r->works, w);

        if (wk->has_peak) {
            csv_row(s, r, wk, &wk->peak,
                    wk->has_sim_peak ? &wk->sim_peak : NULL);
        }
        for (guint i = 0; i < wk->curve->len; i++) {
            const RPoint *p = &g_array_index(wk->curve, RPoint, i);

            csv_row(s, r, wk, p, sim_at(wk, p->target_pct));
        }
    }
    return g_file_set_contents(path, s->str, s->len, errp);
}

/* ---- gnuplot ---------------------------------------------------------- */

#define GP_W 1000
#define GP_H 620

static const char *const palette[] = {
    "#1f5fa8", "#c2571a", "#2e8b57", "#8e44ad", "#b8860b", "#17a2b8",
    "#d6336c", "#555555",
};
#define N_PALETTE G_N_ELEMENTS(palette)

#define C_GUEST "#1f5fa8"
#define C_MODEL "#d9822b"
#define C_DEVICE "#2e8b57"
#define C_REVIEW "#c0392b"
#define C_LIMITED "#9a9a9a"

/* A gnuplot single-quoted string: only ' needs escaping (doubled). */
static void gp_str(GString *s, const char *v)
{
    g_string_append_c(s, '\'');
    for (const char *c = v; *c; c++) {
        if (*c == '\'') {
            g_string_append_c(s, '\'');
        }
        g_string_append_c(s, *c);
    }
    g_string_append_c(s, '\'');
}

static bool gp_ok(const RPoint *p, bool host)
{
    return host ? !isnan(p->host_lat_us) &&
                  !isnan(isnan(p->host_iops) ? p->iops : p->host_iops)
                : !isnan(p->iops) && !isnan(p->lat_us);
}

/* The axes, grid and key; the same look for every chart. */
static void gp_frame(GString *s, const char *title)
{
    g_string_append(s, "set encoding utf8\n"
                       "set border 3 lw 1.2 lc rgb '#444444'\n"
                       "set tics nomirror out scale 0.6\n"
                       "set grid xtics ytics lw 1 lc rgb '#d8d8d8' dt 1\n"
                       "set xlabel 'IOPS'\n"
                       "set ylabel 'average latency (µs)'\n"
                       "set format x '%.0s%c'\n"
                       "set format y '%.0f'\n"
                       "set xrange [0:*]\nset yrange [0:*]\n"
                       "set offsets 0, graph 0.06, graph 0.12, 0\n"
                       "set style line 100 lc rgb '#cccccc' lw 1\n"
                       "set key top left reverse Left box ls 100 opaque samplen 3 "
                       "spacing 1.3 width 1\n"
                       "set title ");
    gp_str(s, title);
    g_string_append(s, " font ',14'\n");
}

/* Draw @plot into @base.png (pngcairo where it exists, else libgd's png)
 * and @base.svg; the terminal is chosen by gnuplot itself at run time. */
static void gp_outputs(GString *s, const char *base, const char *plot)
{
    g_autofree char *png = g_strconcat(base, ".png", NULL);
    g_autofree char *svg = g_strconcat(base, ".svg", NULL);

    g_string_append_printf(s, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
                           "{ set terminal pngcairo size %d,%d noenhanced "
                           "font 'DejaVu Sans,11' background rgb 'white' } "
                           "else { set terminal png size %d,%d noenhanced "
                           "font 'DejaVuSans,11' background rgb 'white' }\n",
                           GP_W, GP_H, GP_W, GP_H);
    g_string_append(s, "set output ");
    gp_str(s, png);
    g_string_append_printf(s, "\n%s\nset output\n", plot);
    g_string_append_printf(s, "set terminal svg size %d,%d noenhanced "
                           "font 'DejaVu Sans,12' background rgb 'white'\n",
                           GP_W, GP_H);
    g_string_append(s, "set output ");
    gp_str(s, svg);
    g_string_append_printf(s, "\n%s\nset output\n", plot);
}

static bool gnuplot_run(const char *script, const char *what, GError **errp)
{
    g_autofree char *gp = g_find_program_in_path("gnuplot");
    g_autofree char *tmp = NULL;
    g_autofree char *err_out = NULL;
    g_autoptr(GError) err = NULL;
    int fd, status;
    char *argv[3];
    bool ok;

    if (!gp) {
        g_set_error(errp, REPORT_ERROR, 1, "gnuplot not found in PATH "
                    "(Debian package gnuplot-nox; make deps installs it)");
        return false;
    }
    fd = g_file_open_tmp("nvmimic-XXXXXX.gp", &tmp, &err);
    if (fd < 0) {
        g_set_error(errp, REPORT_ERROR, 1, "%s", err->message);
        return false;
    }
    close(fd);
    if (!g_file_set_contents(tmp, script, -1, &err)) {
        g_set_error(errp, REPORT_ERROR, 1, "%s", err->message);
        return false;
    }
    argv[0] = gp;
    argv[1] = tmp;
    argv[2] = NULL;
    ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                      NULL, NULL, &err_out, &status, &err) &&
         g_spawn_check_wait_status(status, &err);
    if (!ok) {
        g_autofree char *first = NULL;

        /* gnuplot reports the failing line first; keep it to one line */
        if (err_out && *g_strstrip(err_out)) {
            char *nl;

            first = g_strdup(err_out);
            while ((nl = strchr(first, '\n'))) {
                *nl = ' ';
            }
        }
        g_set_error(errp, REPORT_ERROR, 1, "gnuplot failed drawing %s: %s",
                    what, first ? first : err ? err->message : "?");
    }
    g_unlink(tmp);
    return ok;
}

static char *fmt_si(double v)
{
    if (v >= 1e6) {
        return g_strdup_printf("%.2fM", v / 1e6);
    }
    if (v >= 1e4) {
        return g_strdup_printf("%.1fk", v / 1e3);
    }
    return g_strdup_printf("%.0f", v);
}

/* The review's peak: a marked point, or (latency not published) a line at
 * its IOPS.  @tag distinguishes several runs' peaks in compare charts. */
static void gp_review(GString *data, GString *plot, GString *labels,
                      const RWork *w, const char *color, const char *tag,
                      unsigned idx)
{
    g_autofree char *si = NULL;

    if (isnan(w->review_iops)) {
        return;
    }
    si = fmt_si(w->review_iops);
    if (!isnan(w->review_lat_us)) {
        g_string_append_printf(data, "$review%u << EOD\n%.1f %.2f\nEOD\n",
                               idx, w->review_iops, w->review_lat_us);
        g_string_append_printf(plot, ", $review%u using 1:2 with points "
                               "pt 13 ps 2.4 lc rgb '%s' title 'review peak%s'",
                               idx, color, tag);
        g_string_append_printf(labels, "set label 'review: %s IOPS, %.0f µs' "
                               "at %.1f,%.2f right offset -1.6,1.1 "
                               "tc rgb '%s' font ',10'\n", si,
                               w->review_lat_us, w->review_iops,
                               w->review_lat_us, color);
    } else {
        g_string_append_printf(labels, "set arrow from %.1f, graph 0 to "
                               "%.1f, graph 1 nohead dt 3 lw 2 lc rgb '%s'\n",
                               w->review_iops, w->review_iops, color);
        g_string_append_printf(labels, "set label 'review: %s IOPS "
                               "(latency not published)' at %.1f, graph 0.97 "
                               "right offset -0.8,0 tc rgb '%s' font ',10'\n",
                               si, w->review_iops, color);
        g_string_append_printf(plot, ", NaN with lines dt 3 lw 2 lc rgb '%s' "
                               "title 'review peak%s (IOPS only)'", color, tag);
    }
}

static void gp_block(GString *data, const char *name, GArray *c, bool host,
                     int want_limited)
{
    g_string_append_printf(data, "$%s << EOD\n", name);
    for (guint i = 0; c && i < c->len; i++) {
        const RPoint *p = &g_array_index(c, RPoint, i);
        bool lim = p->host_limited > 0;

        if (!gp_ok(p, host) || (want_limited >= 0 && lim != want_limited)) {
            continue;
        }
        if (host) {
            g_string_append_printf(data, "%.1f %.2f %d\n",
                                   isnan(p->host_iops) ? p->iops
                                                       : p->host_iops,
                                   p->host_lat_us, p->target_pct);
        } else {
            g_string_append_printf(data, "%.1f %.2f %d\n", p->iops,
                                   p->lat_us, p->target_pct);
        }
    }
    g_string_append(data, "EOD\n");
}

static unsigned count_pts(GArray *c, bool host, int want_limited)
{
    unsigned n = 0;

    for (guint i = 0; c && i < c->len; i++) {
        const RPoint *p = &g_array_index(c, RPoint, i);

        n += gp_ok(p, host) &&
             (want_limited < 0 || (p->host_limited > 0) == want_limited);
    }
    return n;
}

static char *work_subtitle(const RWork *w)
{
    GString *s = g_string_new(w->name);

    if (w->threads > 0) {
        g_string_append_printf(s, ", %d outstanding", w->threads);
    }
    return g_string_free(s, FALSE);
}

/* The largest IOPS any series of @w puts on the chart. */
static double work_xmax(const RWork *w)
{
    double m = isnan(w->review_iops) ? 0 : w->review_iops;
    GArray *cs[2] = { w->curve, w->sim_curve };

    for (unsigned c = 0; c < 2; c++) {
        for (guint i = 0; cs[c] && i < cs[c]->len; i++) {
            const RPoint *p = &g_array_index(cs[c], RPoint, i);

            m = isnan(p->iops) ? m : MAX(m, p->iops);
            m = isnan(p->host_iops) ? m : MAX(m, p->host_iops);
        }
    }
    return m;
}

static bool chart_one(const RRun *r, const RWork *w, GError **errp)
{
    g_autoptr(GString) s = g_string_new(NULL);
    g_autoptr(GString) data = g_string_new(NULL);
    g_autoptr(GString) plot = g_string_new(NULL);
    g_autoptr(GString) labels = g_string_new(NULL);
    g_autofree char *sub = work_subtitle(w);
    g_autofree char *title = NULL;
    g_autofree char *base = g_build_filename(r->dir, w->file, NULL);
    unsigned n_guest = count_pts(w->curve, false, 0);
    unsigned n_lim = count_pts(w->curve, false, 1);

    title = g_strdup_printf("%s — %s%s%s", r->profile, sub,
                            r->guest ? " — guest, " : " — model",
                            r->guest ? (r->run_mode ? r->run_mode : "run")
                                     : "");
    gp_frame(s, title);
    if (w->has_sim && count_pts(w->sim_curve, false, -1)) {
        gp_block(data, "model", w->sim_curve, false, -1);
        g_string_append_printf(plot, ", $model using 1:2 with linespoints "
                               "dt (8,5) lw 2 pt 7 ps 0.7 lc rgb '%s' "
                               "title 'model (nvmimic sim)'", C_MODEL);
    }
    if (r->guest && count_pts(w->curve, true, -1)) {
        gp_block(data, "device", w->curve, true, -1);
        g_string_append_printf(plot, ", $device using 1:2 with linespoints "
                               "dt 3 lw 1.5 pt 1 ps 0.9 lc rgb '%s' "
                               "title 'device (host view, QMP)'", C_DEVICE);
    }
    if (r->guest && n_guest) {
        gp_block(data, "guest", w->curve, false, 0);
        g_string_append_printf(plot, ", $guest using 1:2 with linespoints "
                               "lw 2.5 pt 7 ps 1.1 lc rgb '%s' "
                               "title 'guest (fio in the VM)'", C_GUEST);
    }
    if (r->guest && n_lim) {
        const RPoint *first = NULL;

        gp_block(data, "limited", w->curve, false, 1);
        g_string_append_printf(plot, ", $limited using 1:2 with points "
                               "pt 6 ps 1.6 lw 1.5 lc rgb '%s' title "
                               "'guest, host-limited (not the drive''s "
                               "figure)'", C_LIMITED);
        for (guint i = 0; i < w->curve->len; i++) {
            const RPoint *p = &g_array_index(w->curve, RPoint, i);

            if (p->host_limited > 0 && gp_ok(p, false) &&
                (!first || p->lat_us > first->lat_us)) {
                first = p;
            }
        }
        if (first) {
            /* beside the point, on the side with room */
            bool right = first->iops > 0.6 * work_xmax(w);

            g_string_append_printf(labels, "set label 'host-limited: %u "
                                   "point%s' at %.1f,%.2f %s offset "
                                   "%s,0.2 tc rgb '#777777' font ',10'\n",
                                   n_lim, n_lim == 1 ? "" : "s", first->iops,
                                   first->lat_us, right ? "right" : "left",
                                   right ? "-1.4" : "1.4");
        }
    }
    gp_review(data, plot, labels, w, C_REVIEW, "", 0);
    if (!plot->len) {
        /* Nothing to draw: still an (empty) chart, so the report links
         * resolve; say why on it. */
        g_string_append(labels, "set label 'no data points' at graph 0.5, "
                                "graph 0.5 center\nset xrange [0:1]\n"
                                "set yrange [0:1]\n");
        g_string_append(plot, ", NaN notitle");
    }
    g_string_append(s, data->str);
    g_string_append(s, labels->str);
    g_string_prepend(plot, "plot ");
    /* drop the leading ", " of the first series */
    g_string_erase(plot, 5, 2);
    gp_outputs(s, base, plot->str);
    return gnuplot_run(s->str, w->name, errp);
}

/* ---- application charts ---------------------------------------------- */

/*
 * A bar chart in @base.png and @base.svg: @n_cats groups along x, one bar
 * per series in each (@vals[cat * @n_series + series], NAN: no bar), each
 * value printed above its bar with @fmt (a gnuplot sprintf format).
 */
static bool gp_bars(const char *base, const char *title, const char *ylabel,
                    GPtrArray *cats, GPtrArray *series, const double *vals,
                    const char *fmt, GError **errp)
{
    g_autoptr(GString) s = g_string_new(NULL);
    g_autoptr(GString) plot = g_string_new(NULL);
    unsigned n_cats = cats->len, n_series = series->len;
    double bw = 0.8 / MAX(n_series, 1);

    g_string_append(s, "set encoding utf8\n"
                       "set border 3 lw 1.2 lc rgb '#444444'\n"
                       "set tics nomirror out scale 0.6\n"
                       "set xtics scale 0\n"
                       "set grid ytics back lw 1 lc rgb '#d8d8d8' dt 1\n"
                       "set format y '%g'\n"
                       "set yrange [0:*]\n"
                       "set offsets 0, 0, graph 0.15, 0\n"
                       "set style line 100 lc rgb '#cccccc' lw 1\n");
    if (n_series > 1) {
        g_string_append(s, "set key top left reverse Left box ls 100 opaque "
                           "samplen 2 spacing 1.3 width 1\n");
    } else {
        g_string_append(s, "unset key\n");
    }
    g_string_append(s, "set ylabel ");
    gp_str(s, ylabel);
    g_string_append(s, "\nset title ");
    gp_str(s, title);
    g_string_append(s, " font ',14'\nset xtics (");
    for (unsigned c = 0; c < n_cats; c++) {
        g_string_append(s, c ? ", " : "");
        gp_str(s, g_ptr_array_index(cats, c));
        g_string_append_printf(s, " %u", c);
    }
    g_string_append_printf(s, ")\nset xrange [-0.6:%.1f]\n"
                           "set boxwidth %.4f absolute\n",
                           n_cats ? n_cats - 0.4 : 0.4, bw);
    for (unsigned j = 0; j < n_series; j++) {
        bool any = false;

        g_string_append_printf(s, "$bar%u << EOD\n", j);
        for (unsigned c = 0; c < n_cats; c++) {
            double v = vals[c * n_series + j];

            if (!isnan(v)) {
                g_string_append_printf(s, "%.4f %.6g\n",
                                       c + (j - (n_series - 1) / 2.0) * bw,
                                       v);
                any = true;
            }
        }
        g_string_append(s, "EOD\n");
        if (!any) {
            continue;
        }
        g_string_append_printf(plot, ", $bar%u using 1:2 with boxes "
                               "fs solid 0.85 noborder lc rgb '%s' title ",
                               j, palette[j % N_PALETTE]);
        gp_str(plot, g_ptr_array_index(series, j));
        g_string_append_printf(plot, ", $bar%u using 1:2:(sprintf(", j);
        gp_str(plot, fmt);
        g_string_append(plot, ", $2)) with labels offset 0,0.7 "
                              "font ',9' tc rgb '#333333' notitle");
    }
    if (!plot->len) {
        g_string_append(s, "set label 'no data' at graph 0.5, graph 0.5 "
                           "center\nset yrange [0:1]\n");
        g_string_append(plot, ", NaN notitle");
    }
    g_string_prepend(plot, "plot ");
    g_string_erase(plot, 5, 2);
    gp_outputs(s, base, plot->str);
    return gnuplot_run(s->str, title, errp);
}

/* The index of @v in @a (strings), appended when missing. */
static unsigned str_index(GPtrArray *a, const char *v)
{
    for (guint i = 0; i < a->len; i++) {
        if (!strcmp(g_ptr_array_index(a, i), v)) {
            return i;
        }
    }
    g_ptr_array_add(a, g_strdup(v));
    return a->len - 1;
}

/* seq: GB/s per queue depth, write and read side by side. */
static bool chart_seq(const RRun *r, RApp *a, const char *base,
                      GError **errp)
{
    g_autoptr(GPtrArray) cats = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) series = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(unsigned));
    g_autofree double *vals = NULL;
    g_autofree char *title = g_strdup_printf("%s — sequential 1 MiB "
                                             "(fio in the guest)",
                                             r->profile);

    if (!a->steps->len) {
        return true;
    }
    for (guint i = 0; i < a->steps->len; i++) {
        const RStep *st = &g_array_index(a->steps, RStep, i);
        g_autofree char *cat = isnan(st->qd) ? g_strdup(st->name)
                               : g_strdup_printf("QD %.0f", st->qd);
        unsigned c = str_index(cats, cat);
        unsigned j = str_index(series, st->rw ? st->rw : st->name);

        g_array_append_val(idx, c);
        g_array_append_val(idx, j);
    }
    vals = g_new(double, cats->len * series->len);
    for (guint i = 0; i < cats->len * series->len; i++) {
        vals[i] = NAN;
    }
    for (guint i = 0; i < a->steps->len; i++) {
        const RStep *st = &g_array_index(a->steps, RStep, i);
        unsigned c = g_array_index(idx, unsigned, 2 * i);
        unsigned j = g_array_index(idx, unsigned, 2 * i + 1);

        vals[c * series->len + j] = st->gbps;
    }
    a->charted = true;
    return gp_bars(base, title, "GB/s (10^9 bytes/s)", cats, series, vals,
                   "%.2f", errp);
}

/* render: seconds per phase. */
static bool chart_render(const RRun *r, RApp *a, const char *base,
                         GError **errp)
{
    static const char *const phase[] = { "load", "unpack", "repack",
                                         "total" };
    g_autoptr(GPtrArray) cats = g_ptr_array_new();
    g_autoptr(GPtrArray) series = g_ptr_array_new();
    g_autofree char *title = g_strdup_printf("%s — render: seconds per "
                                             "phase", r->profile);
    double vals[4] = { a->load_s, a->unpack_s, a->repack_s, a->total_s };

    if (!a->has_result) {
        return true;
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(phase); i++) {
        g_ptr_array_add(cats, (gpointer)phase[i]);
    }
    g_ptr_array_add(series, (gpointer)"seconds");
    a->charted = true;
    return gp_bars(base, title, "seconds", cats, series, vals, "%.1f",
                   errp);
}

/* sql: average, p95 and p99 latency per transaction type. */
static bool chart_sql(const RRun *r, RApp *a, const char *base,
                      GError **errp)
{
    g_autoptr(GPtrArray) cats = g_ptr_array_new();
    g_autoptr(GPtrArray) series = g_ptr_array_new();
    g_autoptr(GArray) vals = g_array_new(FALSE, FALSE, sizeof(double));
    g_autofree char *title = g_strdup_printf("%s — TPC-C: latency per "
                                             "transaction", r->profile);

    g_ptr_array_add(series, (gpointer)"average");
    g_ptr_array_add(series, (gpointer)"p95");
    g_ptr_array_add(series, (gpointer)"p99");
    for (unsigned k = 0; k <= N_TXN; k++) {
        const RTxn *x = k < N_TXN ? &a->txn[k] : &a->overall;
        double v[3] = { x->avg_ms, x->p95_ms, x->p99_ms };

        if (!x->has) {
            continue;
        }
        g_ptr_array_add(cats, (gpointer)(k < N_TXN ? txn_key[k]
                                                   : "overall"));
        g_array_append_vals(vals, v, 3);
    }
    if (!cats->len) {
        return true;
    }
    a->charted = true;
    return gp_bars(base, title, "latency (ms)", cats, series,
                   (double *)vals->data, "%.1f", errp);
}

static bool chart_app(const RRun *r, RApp *a, GError **errp)
{
    g_autofree char *base = g_build_filename(r->dir, a->file, NULL);

    if (!strcmp(a->suite, "seq")) {
        return chart_seq(r, a, base, errp);
    }
    if (!strcmp(a->suite, "render")) {
        return chart_render(r, a, base, errp);
    }
    if (!strcmp(a->suite, "sql")) {
        return chart_sql(r, a, base, errp);
    }
    return true;
}

/* ---- HTML ------------------------------------------------------------- */

static const char css[] =
"*{box-sizing:border-box}"
"body{margin:0;background:#f4f5f7;color:#1d2330;"
"font:14px/1.45 'DejaVu Sans','Helvetica Neue',Arial,sans-serif}"
"header{background:#1d2b3e;color:#fff;padding:22px 36px 18px}"
"header h1{margin:0 0 4px;font-size:24px;font-weight:600}"
"header .sub{color:#b8c4d6;font-size:13px}"
"dl.meta{display:flex;flex-wrap:wrap;gap:6px 28px;margin:14px 0 0}"
"dl.meta div{min-width:90px}"
"dl.meta dt{font-size:11px;text-transform:uppercase;letter-spacing:.06em;"
"color:#8fa1bb}"
"dl.meta dd{margin:0;font-size:15px}"
"main{max-width:1240px;margin:0 auto;padding:18px 24px 40px}"
"section{background:#fff;border:1px solid #dde1e7;border-radius:6px;"
"padding:18px 22px;margin:18px 0;box-shadow:0 1px 2px rgba(0,0,0,.04)}"
"h2{margin:0 0 10px;font-size:19px;font-weight:600}"
"h3{margin:18px 0 6px;font-size:14px;color:#3c4658;text-transform:uppercase;"
"letter-spacing:.04em}"
"p.note{color:#5b6577;font-size:13px;margin:6px 0}"
".badge{display:inline-block;padding:1px 9px;border-radius:10px;"
"font-size:12px;font-weight:600;vertical-align:middle}"
".ok{background:#dff3e4;color:#1e6b34}"
".warn{background:#fff1d6;color:#8a5a00}"
".info{background:#e3ecf8;color:#1f4f8a}"
".lim{background:#ececec;color:#666}"
"figure{margin:6px 0 4px;text-align:center}"
"figure img{max-width:100%;height:auto;border:1px solid #eceef2}"
"figcaption{font-size:12px;color:#6a7385}"
"figcaption a{color:#1f5fa8}"
"table{border-collapse:collapse;width:100%;font-size:13px;"
"font-variant-numeric:tabular-nums}"
"th,td{padding:4px 7px;border-bottom:1px solid #e6e9ee;text-align:right;"
"white-space:nowrap}"
"th{background:#f0f2f5;font-weight:600;color:#3c4658;font-size:12px;"
"white-space:normal;vertical-align:bottom;"
"border-bottom:2px solid #d5dae1}"
"th:first-child,td:first-child,th.l,td.l{text-align:left}"
"tbody tr:nth-child(even) td{background:#fafbfc}"
"tr.limited td{color:#8a8f98;font-style:italic}"
"tr.review td{color:#a5281b}"
"td.over{font-weight:600}"
".num-good{color:#1e6b34}.num-bad{color:#a5281b}"
"footer{color:#7a8394;font-size:12px;text-align:center;padding:10px}";

static void h_esc(GString *s, const char *v)
{
    g_autofree char *e = g_markup_escape_text(v ? v : "", -1);

    g_string_append(s, e);
}

/* A number with thousands separators, or a dash. */
static void h_num(GString *s, double v, int decimals)
{
    char buf[64];
    const char *d, *dot;
    int nd;

    if (isnan(v)) {
        g_string_append(s, "–");
        return;
    }
    g_snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    d = buf[0] == '-' ? buf + 1 : buf;
    if (d != buf) {
        g_string_append(s, "−");
    }
    dot = strchr(d, '.');
    nd = dot ? (int)(dot - d) : (int)strlen(d);
    for (int i = 0; i < nd; i++) {
        if (i && (nd - i) % 3 == 0) {
            g_string_append_c(s, ',');
        }
        g_string_append_c(s, d[i]);
    }
    if (dot) {
        g_string_append(s, dot);
    }
}

static void h_td(GString *s, double v, int decimals)
{
    g_string_append(s, "<td>");
    h_num(s, v, decimals);
    g_string_append(s, "</td>");
}

/* Difference from a reference in percent, coloured when large. */
static void h_td_delta(GString *s, double v, double ref)
{
    double d;

    if (isnan(v) || isnan(ref) || ref == 0) {
        g_string_append(s, "<td>–</td>");
        return;
    }
    d = 100.0 * (v - ref) / ref;
    g_string_append_printf(s, "<td class=\"%s\">%+.1f %%</td>",
                           fabs(d) <= 5 ? "num-good" :
                           fabs(d) > 15 ? "num-bad" : "", d);
}

/* The SVG inlined as a data: URI, so report.html needs no other file. */
static void h_chart(GString *s, const char *dir, const char *file,
                    const char *alt)
{
    g_autofree char *svg = g_strconcat(file, ".svg", NULL);
    g_autofree char *png = g_strconcat(file, ".png", NULL);
    g_autofree char *path = g_build_filename(dir, svg, NULL);
    g_autofree char *body = NULL;
    gsize len;

    g_string_append(s, "<figure>");
    if (g_file_get_contents(path, &body, &len, NULL)) {
        g_autofree char *b64 = g_base64_encode((guchar *)body, len);

        g_string_append_printf(s, "<img width=\"%d\" height=\"%d\" "
                               "src=\"data:image/svg+xml;base64,%s\" alt=\"",
                               GP_W, GP_H, b64);
        h_esc(s, alt);
        g_string_append(s, "\">");
    }
    g_string_append(s, "<figcaption>");
    h_esc(s, alt);
    g_string_append(s, " · <a href=\"");
    h_esc(s, png);
    g_string_append(s, "\">PNG</a> · <a href=\"");
    h_esc(s, svg);
    g_string_append(s, "\">SVG</a></figcaption></figure>\n");
}

/* What only reports with application suites or suite headings use. */
static const char css_apps[] =
"h2.suite{margin:30px 2px 0;font-size:21px;color:#1d2b3e}"
".bad{background:#fde2df;color:#a5281b}"
"p.big{font-size:18px;margin:4px 0 10px}"
"p.error{color:#a5281b}"
"tr.total td{font-weight:600}";

static void h_head(GString *s, const char *title, const char *extra_css)
{
    g_string_append(s, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                       "<meta charset=\"utf-8\">"
                       "<meta name=\"viewport\" content=\"width=device-width,"
                       "initial-scale=1\">"
                       "<meta http-equiv=\"Content-Security-Policy\" "
                       "content=\"default-src 'none'; img-src data: 'self'; "
                       "style-src 'unsafe-inline'\">"
                       "<title>");
    h_esc(s, title);
    g_string_append_printf(s, "</title><style>%s%s</style></head><body>\n",
                           css, extra_css ? extra_css : "");
}

static void h_meta(GString *s, const char *k, const char *v)
{
    g_string_append(s, "<div><dt>");
    h_esc(s, k);
    g_string_append(s, "</dt><dd>");
    h_esc(s, v ? v : "–");
    g_string_append(s, "</dd></div>");
}

static const char *status_badge(const RRun *r)
{
    return r->complete > 0 ? "<span class=\"badge ok\">complete</span>" :
           r->complete == 0 ? "<span class=\"badge warn\">partial</span>" :
           "<span class=\"badge lim\">completeness unknown</span>";
}

static void h_peak_row(GString *s, const char *what, const char *cls,
                       double iops, double mbps, double lat, double p99,
                       const RWork *w, bool limited)
{
    g_string_append_printf(s, "<tr%s><td>%s%s</td>", cls, what,
                           limited ? " <span class=\"badge lim\">"
                                     "host-limited</span>" : "");
    h_td(s, iops, 0);
    h_td(s, mbps, 1);
    h_td(s, lat, 1);
    h_td(s, p99, 1);
    if (cls[0]) {
        g_string_append(s, "<td></td><td></td></tr>\n");
        return;
    }
    h_td_delta(s, iops, w->review_iops);
    h_td_delta(s, lat, w->review_lat_us);
    g_string_append(s, "</tr>\n");
}

static void h_work(GString *s, const RRun *r, const RWork *w)
{
    g_autofree char *sub = work_subtitle(w);
    g_autofree char *alt = g_strdup_printf("%s, %s: average latency against "
                                           "IOPS", r->profile, w->name);
    unsigned n_lim = count_pts(w->curve, false, 1);

    g_string_append_printf(s, "<section id=\"wl-%s\"><h2>", w->file);
    h_esc(s, sub);
    if (w->has_mix) {
        g_string_append(s, " <span class=\"badge info\">mix");
        if (!isnan(w->mix_read_pct)) {
            g_string_append_printf(s, ", %.0f %% reads", w->mix_read_pct);
        }
        if (!isnan(w->mix_mean_block)) {
            g_string_append_printf(s, ", mean block %.1f KiB",
                                   w->mix_mean_block / 1024);
        }
        g_string_append(s, "</span>");
    } else if (w->block_bytes > 0) {
        g_string_append_printf(s, " <span class=\"badge info\">%d KiB "
                               "blocks</span>", w->block_bytes / 1024);
    }
    if (n_lim) {
        g_string_append_printf(s, " <span class=\"badge lim\">%u "
                               "host-limited point%s</span>", n_lim,
                               n_lim == 1 ? "" : "s");
    }
    g_string_append(s, "</h2>\n");
    if (w->mix_jobfile) {
        g_string_append(s, "<p class=\"note\">fio job file ");
        h_esc(s, w->mix_jobfile);
        g_string_append(s, "; the device's percentiles are per command "
                           "class and are not merged for a mix.</p>\n");
    }
    h_chart(s, r->dir, w->file, alt);

    g_string_append(s, "<h3>Peak (unthrottled)</h3><table><thead><tr>"
                       "<th>source</th><th>IOPS</th><th>MB/s</th>"
                       "<th>avg lat µs</th><th>p99 µs</th>"
                       "<th>IOPS vs review</th><th>lat vs review</th>"
                       "</tr></thead><tbody>\n");
    if (!isnan(w->review_iops)) {
        g_string_append(s, "<tr class=\"review\"><td>review");
        if (w->review_src && strcmp(w->review_src, "results.json")) {
            g_string_append(s, " <span class=\"badge lim\">");
            h_esc(s, w->review_src);
            g_string_append(s, "</span>");
        }
        g_string_append(s, "</td>");
        h_td(s, w->review_iops, 0);
        h_td(s, w->block_bytes > 0 ? w->review_iops * w->block_bytes / 1e6
                                   : NAN, 1);
        h_td(s, w->review_lat_us, 1);
        g_string_append(s, "<td>–</td><td></td><td></td></tr>\n");
    }
    if (w->has_sim_peak) {
        h_peak_row(s, "model (nvmimic sim)", "", w->sim_peak.iops,
                   w->sim_peak.mbps, w->sim_peak.lat_us, w->sim_peak.p99_us,
                   w, false);
    }
    if (r->guest && w->has_peak) {
        h_peak_row(s, "guest (fio in the VM)", "", w->peak.iops,
                   w->peak.mbps, w->peak.lat_us, w->peak.p99_us, w,
                   w->peak.host_limited > 0);
        if (!isnan(w->peak.host_lat_us)) {
            h_peak_row(s, "device (host view)", "", w->peak.host_iops,
                       w->block_bytes > 0 && !isnan(w->peak.host_iops) ?
                       w->peak.host_iops * w->block_bytes / 1e6 : NAN,
                       w->peak.host_lat_us, w->peak.host_p99_us, w, false);
        }
    }
    g_string_append(s, "</tbody></table>\n");

    g_string_append(s, "<h3>Curve (fixed rates, % of the peak)</h3><table>"
                       "<thead><tr><th>target</th><th>target IOPS</th>");
    if (r->guest) {
        g_string_append(s, "<th>guest IOPS</th><th>guest avg µs</th>"
                           "<th>guest p99 µs</th><th>device avg µs</th>"
                           "<th>device p99 µs</th>"
                           "<th title=\"guest minus device average latency: "
                           "the virtualization overhead\">guest − device "
                           "µs</th><th>model IOPS</th><th>model avg µs</th>"
                           "<th>note</th>");
    } else {
        g_string_append(s, "<th>IOPS</th><th>MB/s</th><th>avg µs</th>"
                           "<th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th>");
    }
    g_string_append(s, "</tr></thead><tbody>\n");
    for (guint i = 0; i < w->curve->len; i++) {
        const RPoint *p = &g_array_index(w->curve, RPoint, i);
        const RPoint *sp = sim_at(w, p->target_pct);
        bool lim = p->host_limited > 0;

        g_string_append_printf(s, "<tr%s><td>%d %%</td>",
                               lim ? " class=\"limited\"" : "",
                               p->target_pct);
        h_td(s, p->target_iops, 0);
        if (!r->guest) {
            h_td(s, p->iops, 0);
            h_td(s, p->mbps, 1);
            h_td(s, p->lat_us, 1);
            h_td(s, p->p50_us, 1);
            h_td(s, p->p99_us, 1);
            h_td(s, p->p999_us, 1);
            g_string_append(s, "</tr>\n");
            continue;
        }
        h_td(s, p->iops, 0);
        h_td(s, p->lat_us, 1);
        h_td(s, p->p99_us, 1);
        h_td(s, p->host_lat_us, 1);
        h_td(s, p->host_p99_us, 1);
        g_string_append(s, "<td class=\"over\">");
        h_num(s, p->lat_us - p->host_lat_us, 1);
        g_string_append(s, "</td>");
        h_td(s, sp ? sp->iops : NAN, 0);
        h_td(s, sp ? sp->lat_us : NAN, 1);
        g_string_append(s, "<td>");
        if (lim) {
            g_string_append(s, "<span class=\"badge lim\">host-limited");
            if (!isnan(p->shortfall_pct)) {
                g_string_append_printf(s, " −%.0f %%", p->shortfall_pct);
            }
            g_string_append(s, "</span>");
        } else if (!isnan(p->shortfall_pct) && p->shortfall_pct >= 1) {
            g_string_append_printf(s, "%.0f %% below target",
                                   p->shortfall_pct);
        }
        g_string_append(s, "</td></tr>\n");
    }
    if (!w->curve->len) {
        g_string_append(s, "<tr><td colspan=\"11\">no curve points in "
                           "results.json</td></tr>\n");
    }
    g_string_append(s, "</tbody></table>\n");
    if (r->guest && r->complete == 0 && w->curve->len &&
        w->curve->len < NVM_CURVE_POINTS) {
        const RPoint *last = &g_array_index(w->curve, RPoint,
                                            w->curve->len - 1);

        g_string_append_printf(s, "<p class=\"note\">The run stopped after "
                               "the %d %% point; the rest of this curve is "
                               "missing.</p>\n", last->target_pct);
    }
    g_string_append(s, "</section>\n");
}

/* One row per workload: the peaks side by side. */
static void h_summary(GString *s, const RRun *r)
{
    g_string_append(s, "<section><h2>Peaks: review vs model");
    g_string_append(s, r->guest ? " vs guest" : "");
    g_string_append(s, "</h2><table><thead><tr><th>workload</th>"
                       "<th>review IOPS</th><th>review lat µs</th>"
                       "<th>model IOPS</th><th>model lat µs</th>"
                       "<th>model vs review</th>");
    if (r->guest) {
        g_string_append(s, "<th>guest IOPS</th><th>guest lat µs</th>"
                           "<th>guest vs review</th>"
                           "<th>overhead µs</th>");
    }
    g_string_append(s, "</tr></thead><tbody>\n");
    for (guint i = 0; i < r->works->len; i++) {
        const RWork *w = g_ptr_array_index(r->works, i);

        g_string_append_printf(s, "<tr><td><a href=\"#wl-%s\">", w->file);
        h_esc(s, w->name);
        g_string_append(s, "</a></td>");
        h_td(s, w->review_iops, 0);
        h_td(s, w->review_lat_us, 1);
        h_td(s, w->has_sim_peak ? w->sim_peak.iops : NAN, 0);
        h_td(s, w->has_sim_peak ? w->sim_peak.lat_us : NAN, 1);
        h_td_delta(s, w->has_sim_peak ? w->sim_peak.iops : NAN,
                   w->review_iops);
        if (r->guest) {
            h_td(s, w->has_peak ? w->peak.iops : NAN, 0);
            h_td(s, w->has_peak ? w->peak.lat_us : NAN, 1);
            if (w->has_peak && w->peak.host_limited > 0) {
                g_string_append(s, "<td><span class=\"badge lim\">"
                                   "host-limited</span></td>");
            } else {
                h_td_delta(s, w->has_peak ? w->peak.iops : NAN,
                           w->review_iops);
            }
            h_td(s, w->has_peak ? w->peak.lat_us - w->peak.host_lat_us
                                : NAN, 1);
        }
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "</tbody></table>\n<p class=\"note\">IOPS "
                       "differences within 5 % are green, beyond 15 % red. "
                       "Overhead is the guest's average latency minus the "
                       "device's own (QMP) over the same interval: what the "
                       "virtual machine adds. Host-limited points are where "
                       "the guest could not issue I/O at the target rate; "
                       "they show the guest, not the drive.</p></section>\n");
}

/* ---- application sections ---- */

static const char *suite_label(const char *suite)
{
    return !strcmp(suite, "four-corners") ? "Four corners" :
           !strcmp(suite, "vdi") ? "VDI" : suite;
}

static const char *work_suite(const RWork *w)
{
    return w->suite ? w->suite : "four-corners";
}

static const char *app_title(const RApp *a)
{
    return !strcmp(a->suite, "seq") ? "Sequential: 1 MiB write, then read" :
           !strcmp(a->suite, "render") ? "Render: load, unpack, repack "
                                         "in a small guest (swapping)" :
           !strcmp(a->suite, "sql") ? "SQL: TPC-C on PostgreSQL" :
           a->suite;
}

static const char *app_badge(const RApp *a)
{
    return a->complete > 0 ? "<span class=\"badge ok\">complete</span>" :
           a->complete == 0 ? "<span class=\"badge bad\">failed</span>" :
           "<span class=\"badge lim\">completeness unknown</span>";
}

/* The device's figures per class; @when says over what. */
static void h_dev_table(GString *s, const RDev *d, const char *when)
{
    unsigned n = 0;

    g_string_append(s, "<h3>Device (host view, QMP)");
    if (when) {
        g_string_append_printf(s, ", %s", when);
    }
    g_string_append(s, "</h3>\n");
    if (!d->has) {
        g_string_append(s, "<p class=\"note\">No device figures in "
                           "results.json.</p>\n");
        return;
    }
    g_string_append(s, "<table><thead><tr><th>class</th><th>commands</th>"
                       "<th>IOPS</th><th>MB/s</th><th>avg µs</th>"
                       "<th>p50 µs</th><th>p99 µs</th><th>p99.9 µs</th>"
                       "<th>max µs</th></tr></thead><tbody>\n");
    for (unsigned c = 0; c < N_DEV; c++) {
        const RDevFig *f = &d->cls[c];

        if (!f->has) {
            continue;
        }
        n++;
        g_string_append_printf(s, "<tr><td>%s</td>", dev_class[c]);
        h_td(s, f->count, 0);
        h_td(s, f->iops, 1);
        h_td(s, f->mbps, 1);
        h_td(s, f->lat_us, 1);
        h_td(s, f->p50_us, 1);
        h_td(s, f->p99_us, 1);
        h_td(s, f->p999_us, 1);
        h_td(s, f->max_us, 1);
        g_string_append(s, "</tr>\n");
    }
    if (!n) {
        g_string_append(s, "<tr><td colspan=\"9\">no command classes"
                           "</td></tr>\n");
    }
    g_string_append(s, "</tbody></table>\n");
    if (!isnan(d->interval_s)) {
        g_string_append_printf(s, "<p class=\"note\">Over %.1f s.</p>\n",
                               d->interval_s);
    }
}

/* The class a seq step's device figures are read from. */
static const RDevFig *step_dev(const RStep *st)
{
    const RDevFig *r = &st->dev.cls[DEV_READ], *w = &st->dev.cls[DEV_WRITE];

    if (st->rw && !strcmp(st->rw, "read")) {
        return r;
    }
    if (st->rw && !strcmp(st->rw, "write")) {
        return w;
    }
    return (isnan(r->count) ? 0 : r->count) >=
           (isnan(w->count) ? 0 : w->count) ? r : w;
}

static void h_app_seq(GString *s, const RApp *a)
{
    g_string_append(s, "<h3>Steps</h3><table><thead><tr><th>step</th>"
                       "<th>QD</th><th>data GiB</th><th>GB/s</th>"
                       "<th>guest IOPS</th><th>guest avg µs</th>"
                       "<th>guest p99 µs</th><th>device IOPS</th>"
                       "<th>device MB/s</th><th>device avg µs</th>"
                       "<th>device p99 µs</th></tr></thead><tbody>\n");
    for (guint i = 0; i < a->steps->len; i++) {
        const RStep *st = &g_array_index(a->steps, RStep, i);
        const RDevFig *f = step_dev(st);

        g_string_append(s, "<tr><td>");
        h_esc(s, st->name);
        g_string_append(s, "</td>");
        h_td(s, st->qd, 0);
        h_td(s, st->bytes / (1024.0 * 1024 * 1024), 2);
        h_td(s, st->gbps, 2);
        h_td(s, st->iops, 0);
        h_td(s, st->lat_us, 1);
        h_td(s, st->p99_us, 1);
        h_td(s, f->iops, 0);
        h_td(s, f->mbps, 1);
        h_td(s, f->lat_us, 1);
        h_td(s, f->p99_us, 1);
        g_string_append(s, "</tr>\n");
    }
    if (!a->steps->len) {
        g_string_append(s, "<tr><td colspan=\"11\">no steps in "
                           "results.json</td></tr>\n");
    }
    g_string_append(s, "</tbody></table>\n<p class=\"note\">GB/s is 10^9 "
                       "bytes per second as fio measured it in the guest "
                       "(1 MiB blocks); the device's figures are its own "
                       "(QMP) over the same step, for the step's command "
                       "class.</p>\n");
}

/* The guest's size and the result's check, above the chart. */
static void h_app_render_head(GString *s, const RApp *a)
{
    g_string_append(s, "<p class=\"note\">");
    g_string_append(s, "Guest RAM ");
    h_num(s, a->mem_mib, 0);
    g_string_append(s, " MiB · points ");
    h_num(s, a->points, 0);
    g_string_append(s, " · threads ");
    h_num(s, a->threads, 0);
    g_string_append(s, " · array ");
    h_num(s, a->array_bytes / (1024.0 * 1024), 0);
    g_string_append(s, " MiB · packed ");
    h_num(s, a->packed_bytes / (1024.0 * 1024), 0);
    g_string_append(s, " MiB · check: ");
    if (a->check_ok > 0) {
        g_string_append(s, "<span class=\"badge ok\">ok</span>");
    } else if (a->check_ok == 0) {
        g_string_append(s, "<span class=\"badge bad\">failed</span> bad ");
        h_num(s, a->check_bad, 0);
        g_string_append(s, ", missing ");
        h_num(s, a->check_missing, 0);
    } else {
        g_string_append(s, "–");
    }
    g_string_append(s, "</p>\n");
}

static void h_app_render(GString *s, const RApp *a)
{
    static const char *const phase[] = { "load", "unpack", "repack" };
    double secs[] = { a->load_s, a->unpack_s, a->repack_s };

    g_string_append(s, "<h3>Phases</h3><table><thead><tr>"
                       "<th>phase</th><th>seconds</th></tr></thead><tbody>\n");
    for (unsigned i = 0; i < G_N_ELEMENTS(phase); i++) {
        g_string_append_printf(s, "<tr><td>%s</td>", phase[i]);
        h_td(s, secs[i], 2);
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "<tr class=\"total\"><td>total</td>");
    h_td(s, a->total_s, 2);
    g_string_append(s, "</tr>\n</tbody></table>\n<h3>Swap (guest "
                       "/proc/vmstat)</h3><table><thead><tr>"
                       "<th>pages in</th><th>pages out</th>"
                       "<th>MiB in</th><th>MiB out</th></tr></thead>"
                       "<tbody><tr>");
    h_td(s, a->pswpin, 0);
    h_td(s, a->pswpout, 0);
    h_td(s, a->pswpin * 4096 / (1024.0 * 1024), 1);
    h_td(s, a->pswpout * 4096 / (1024.0 * 1024), 1);
    g_string_append(s, "</tr></tbody></table>\n<p class=\"note\">Pages are "
                       "4 KiB.</p>\n");
}

static void h_txn_row(GString *s, const char *name, const RTxn *x,
                      const char *cls)
{
    g_string_append_printf(s, "<tr%s><td>%s</td>", cls, name);
    h_td(s, x->count, 0);
    h_td(s, x->share * 100, 1);
    h_td(s, x->weight * 100, 1);
    h_td(s, x->avg_ms, 2);
    h_td(s, x->p95_ms, 2);
    h_td(s, x->p99_ms, 2);
    h_td(s, x->max_ms, 2);
    g_string_append(s, "</tr>\n");
}

/* tpmC and the run's parameters, above the chart. */
static void h_app_sql_head(GString *s, const RApp *a)
{
    if (a->has_result) {
        g_string_append(s, "<p class=\"big\">tpmC <b>");
        h_num(s, a->tpmc, 1);
        g_string_append(s, "</b> · all transactions ");
        h_num(s, a->tpm_total, 1);
        g_string_append(s, " per minute · failures ");
        h_num(s, a->failures, 0);
        g_string_append(s, "</p>\n");
    }
    if (a->has_params) {
        g_string_append(s, "<p class=\"note\">Warehouses ");
        h_num(s, a->warehouses, 0);
        g_string_append(s, " · users ");
        h_num(s, a->users, 0);
        g_string_append(s, " · precondition ");
        h_num(s, a->precondition_s, 0);
        g_string_append(s, " s · measured sample ");
        h_num(s, a->sample_s, 0);
        g_string_append(s, " s · think-time factor ");
        h_num(s, a->think_factor, 2);
        g_string_append(s, "</p>\n");
    }
}

static void h_app_sql(GString *s, const RApp *a)
{
    g_string_append(s, "<h3>Transactions</h3><table><thead><tr>"
                       "<th>transaction</th><th>count</th><th>share %</th>"
                       "<th>mix weight %</th><th>avg ms</th><th>p95 ms</th>"
                       "<th>p99 ms</th><th>max ms</th></tr></thead>"
                       "<tbody>\n");
    if (!a->has_result) {
        g_string_append(s, "<tr><td colspan=\"8\">no TPC-C result in "
                           "results.json</td></tr>\n");
    }
    for (unsigned k = 0; a->has_result && k < N_TXN; k++) {
        if (a->txn[k].has) {
            h_txn_row(s, txn_key[k], &a->txn[k], "");
        }
    }
    if (a->overall.has) {
        h_txn_row(s, "overall", &a->overall, " class=\"total\"");
    }
    g_string_append(s, "</tbody></table>\n");
}

static void h_app(GString *s, const RRun *r, const RApp *a)
{
    g_autofree char *alt = NULL;

    g_string_append_printf(s, "<section id=\"%s\"><h2>", a->file);
    h_esc(s, app_title(a));
    g_string_append_printf(s, " %s</h2>\n", app_badge(a));
    if (a->complete == 0 || a->error) {
        g_string_append(s, "<p class=\"note error\">");
        h_esc(s, a->error ? a->error : "The suite did not complete.");
        g_string_append(s, "</p>\n");
    }
    if (a->guest_dir || !isnan(a->wall_s)) {
        g_string_append(s, "<p class=\"note\">");
        if (!isnan(a->wall_s)) {
            g_string_append_printf(s, "Wall time %.0f s.", a->wall_s);
        }
        if (a->guest_dir) {
            g_autofree char *log = g_build_filename(a->guest_dir,
                                                    "console.log", NULL);

            g_string_append(s, isnan(a->wall_s) ? "" : " ");
            g_string_append(s, "Guest console: <a href=\"");
            h_esc(s, log);
            g_string_append(s, "\">");
            h_esc(s, log);
            g_string_append(s, "</a>.");
        }
        g_string_append(s, "</p>\n");
    }
    if (!strcmp(a->suite, "render")) {
        h_app_render_head(s, a);
    } else if (!strcmp(a->suite, "sql")) {
        h_app_sql_head(s, a);
    }
    if (a->charted) {
        alt = g_strdup_printf("%s, %s", r->profile, app_title(a));
        h_chart(s, r->dir, a->file, alt);
    }
    if (!strcmp(a->suite, "seq")) {
        h_app_seq(s, a);
        if (a->dev.has) {
            h_dev_table(s, &a->dev, "whole suite");
        }
    } else if (!strcmp(a->suite, "render")) {
        h_app_render(s, a);
        h_dev_table(s, &a->dev, "whole render run");
    } else if (!strcmp(a->suite, "sql")) {
        h_app_sql(s, a);
        h_dev_table(s, &a->dev, "measured sample");
    } else {
        h_dev_table(s, &a->dev, NULL);
    }
    g_string_append(s, "</section>\n");
}

/* The one-line result of an application suite, for the summary. */
static void h_app_result(GString *s, const RApp *a)
{
    bool seq = !strcmp(a->suite, "seq");

    if (seq ? !a->steps->len : !a->has_result) {
        g_string_append(s, "no result");
    } else if (seq) {
        double best[2] = { NAN, NAN };

        for (guint i = 0; i < a->steps->len; i++) {
            const RStep *st = &g_array_index(a->steps, RStep, i);
            int k = st->rw && !strcmp(st->rw, "read") ? 1 :
                    st->rw && !strcmp(st->rw, "write") ? 0 : -1;

            if (k >= 0 && !isnan(st->gbps) &&
                (isnan(best[k]) || st->gbps > best[k])) {
                best[k] = st->gbps;
            }
        }
        g_string_append(s, "best write ");
        h_num(s, best[0], 2);
        g_string_append(s, " GB/s, best read ");
        h_num(s, best[1], 2);
        g_string_append(s, " GB/s");
    } else if (!strcmp(a->suite, "render")) {
        g_string_append(s, "total ");
        h_num(s, a->total_s, 1);
        g_string_append(s, " s, swap in/out ");
        h_num(s, a->pswpin, 0);
        g_string_append(s, " / ");
        h_num(s, a->pswpout, 0);
        g_string_append(s, " pages");
    } else if (!strcmp(a->suite, "sql")) {
        g_string_append(s, "tpmC ");
        h_num(s, a->tpmc, 1);
        g_string_append(s, ", overall avg ");
        h_num(s, a->overall.avg_ms, 2);
        g_string_append(s, " ms, p99 ");
        h_num(s, a->overall.p99_ms, 2);
        g_string_append(s, " ms");
    } else {
        g_string_append(s, "–");
    }
}

static void h_apps_summary(GString *s, const RRun *r)
{
    g_string_append(s, "<section><h2>Applications: results</h2><table>"
                       "<thead><tr><th>suite</th><th>status</th>"
                       "<th class=\"l\">result</th><th>wall s</th>"
                       "<th>device read avg µs</th>"
                       "<th>device read p99 µs</th><th>device write avg µs"
                       "</th><th>device write p99 µs</th></tr></thead>"
                       "<tbody>\n");
    for (guint i = 0; i < r->apps->len; i++) {
        const RApp *a = g_ptr_array_index(r->apps, i);

        g_string_append_printf(s, "<tr><td><a href=\"#%s\">", a->file);
        h_esc(s, a->suite);
        g_string_append_printf(s, "</a></td><td>%s</td><td class=\"l\">",
                               app_badge(a));
        h_app_result(s, a);
        g_string_append(s, "</td>");
        h_td(s, a->wall_s, 0);
        h_td(s, a->dev.cls[DEV_READ].lat_us, 1);
        h_td(s, a->dev.cls[DEV_READ].p99_us, 1);
        h_td(s, a->dev.cls[DEV_WRITE].lat_us, 1);
        h_td(s, a->dev.cls[DEV_WRITE].p99_us, 1);
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "</tbody></table>\n<p class=\"note\">Device "
                       "figures are the drive's own (QMP) over the suite's "
                       "measured interval; the sequential suite has them "
                       "per step, below.</p></section>\n");
}

static void h_works(GString *s, const RRun *r)
{
    g_autoptr(GPtrArray) order = NULL;

    if (!r->suites) {
        for (guint i = 0; i < r->works->len; i++) {
            h_work(s, r, g_ptr_array_index(r->works, i));
        }
        return;
    }
    /* "suites" says what ran, in order: a heading per workload suite */
    order = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < r->suites->len; i++) {
        str_index(order, g_ptr_array_index(r->suites, i));
    }
    for (guint i = 0; i < r->works->len; i++) {
        str_index(order, work_suite(g_ptr_array_index(r->works, i)));
    }
    for (guint k = 0; k < order->len; k++) {
        const char *suite = g_ptr_array_index(order, k);
        g_autofree char *id = safe_name(suite);
        bool head = false;

        for (guint i = 0; i < r->works->len; i++) {
            const RWork *w = g_ptr_array_index(r->works, i);

            if (strcmp(work_suite(w), suite)) {
                continue;
            }
            if (!head) {
                g_string_append_printf(s, "<h2 class=\"suite\" "
                                       "id=\"suite-%s\">", id);
                h_esc(s, suite_label(suite));
                g_string_append(s, "</h2>\n");
                head = true;
            }
            h_work(s, r, w);
        }
    }
}

static char *now_string(void)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_local();

    return g_date_time_format(now, "%Y-%m-%d %H:%M %Z");
}

static bool write_html(const RRun *r, GError **errp)
{
    g_autofree char *path = g_build_filename(r->dir, "report.html", NULL);
    g_autofree char *title = g_strdup_printf("nvmimic report: %s",
                                             r->profile);
    g_autofree char *rendered = now_string();
    g_autoptr(GString) s = g_string_new(NULL);
    char buf[64];

    h_head(s, title, r->suites || r->apps->len ? css_apps : NULL);
    g_string_append(s, "<header><h1>");
    h_esc(s, r->profile);
    g_string_append(s, " — ");
    h_esc(s, r->suite ? r->suite : "results");
    g_string_append_printf(s, " %s</h1><div class=\"sub\">%s</div>"
                           "<dl class=\"meta\">", status_badge(r),
                           r->guest ? "Guest run: fio inside a QEMU VM "
                           "against the emulated drive, beside the model "
                           "alone and the review." :
                           "Model only (nvmimic sim, simulated time), "
                           "beside the review.");
    h_meta(s, "profile", r->profile);
    h_meta(s, "mode", r->mode);
    if (r->guest) {
        h_meta(s, "run mode", r->run_mode);
    }
    h_meta(s, "threads", r->threads_mode);
    if (r->suites) {
        g_autoptr(GString) all = g_string_new(NULL);

        for (guint i = 0; i < r->suites->len; i++) {
            g_string_append_printf(all, "%s%s", i ? ", " : "",
                                   (char *)g_ptr_array_index(r->suites, i));
        }
        h_meta(s, "suites", all->str);
    }
    if (!isnan(r->seed)) {
        g_snprintf(buf, sizeof(buf), "%.0f", r->seed);
        h_meta(s, "seed", buf);
    }
    if (!isnan(r->duration_s)) {
        g_snprintf(buf, sizeof(buf), "%g s", r->duration_s);
        h_meta(s, "per point", buf);
    }
    if (r->accel) {
        h_meta(s, "accelerator", r->accel);
    }
    if (r->precondition) {
        h_meta(s, "precondition", r->precondition);
    }
    h_meta(s, "date", r->date);
    if (!isnan(r->wall_s)) {
        g_snprintf(buf, sizeof(buf), "%.0f s", r->wall_s);
        h_meta(s, "wall time", buf);
    }
    h_meta(s, "status", r->complete > 0 ? "complete" :
                        r->complete == 0 ? "partial" : "unknown");
    g_string_append(s, "</dl></header>\n<main>\n");
    if (r->complete == 0) {
        g_string_append(s, "<section><p class=\"note\"><span class=\"badge "
                           "warn\">partial</span> This run did not finish: "
                           "the figures below are what it gathered before "
                           "it stopped.");
        if (r->failed_point || r->error) {
            g_string_append(s, " Failed at ");
            h_esc(s, r->failed_point ? r->failed_point : "?");
            g_string_append(s, r->error ? ": " : ".");
            h_esc(s, r->error);
        }
        g_string_append(s, "</p></section>\n");
    }
    if (r->works->len) {
        h_summary(s, r);
    } else if (!r->apps->len) {
        g_string_append(s, "<section><p>No workloads in results.json."
                           "</p></section>\n");
    }
    if (r->apps->len) {
        h_apps_summary(s, r);
    }
    h_works(s, r);
    if (r->apps->len) {
        g_string_append(s, "<h2 class=\"suite\" id=\"apps\">"
                           "Applications</h2>\n");
    }
    for (guint i = 0; i < r->apps->len; i++) {
        h_app(s, r, g_ptr_array_index(r->apps, i));
    }
    g_string_append_printf(s, "</main><footer>Rendered by nvmimic report "
                           "from results.json on %s · results.csv beside "
                           "this file has every point.</footer>\n"
                           "</body></html>\n", rendered);
    return g_file_set_contents(path, s->str, s->len, errp);
}

bool nvm_report_render(const char *dir, const char *reviews_tsv,
                       GError **errp)
{
    g_autoptr(RRun) r = run_load(dir, reviews_tsv, errp);

    if (!r || !write_csv(r, errp)) {
        return false;
    }
    for (guint i = 0; i < r->works->len; i++) {
        if (!chart_one(r, g_ptr_array_index(r->works, i), errp)) {
            return false;
        }
    }
    for (guint i = 0; i < r->apps->len; i++) {
        if (!chart_app(r, g_ptr_array_index(r->apps, i), errp)) {
            return false;
        }
    }
    return write_html(r, errp);
}

/* ---- compare ---------------------------------------------------------- */

static const RWork *work_find(const RRun *r, const char *name)
{
    for (guint i = 0; i < r->works->len; i++) {
        const RWork *w = g_ptr_array_index(r->works, i);

        if (!strcmp(w->name, name)) {
            return w;
        }
    }
    return NULL;
}

static void compare_labels(GPtrArray *runs)
{
    for (guint i = 0; i < runs->len; i++) {
        RRun *r = g_ptr_array_index(runs, i);

        r->label = r->guest ? g_strdup_printf("%s (guest%s%s)", r->profile,
                                              r->run_mode ? ", " : "",
                                              r->run_mode ? r->run_mode : "")
                            : g_strdup_printf("%s (model)", r->profile);
    }
    /* the same profile and mode twice: tell them apart by directory */
    for (guint i = 0; i < runs->len; i++) {
        RRun *a = g_ptr_array_index(runs, i);
        bool dup = false;

        for (guint j = 0; j < runs->len; j++) {
            RRun *b = g_ptr_array_index(runs, j);

            dup |= i != j && !strcmp(a->profile, b->profile) &&
                   !strcmp(a->mode, b->mode) &&
                   !g_strcmp0(a->run_mode, b->run_mode);
        }
        if (dup) {
            g_autofree char *base = g_path_get_basename(a->dir);
            char *l = g_strdup_printf("%s [%s]", a->label, base);

            g_free(a->label);
            a->label = l;
        }
    }
}

static bool compare_chart(GPtrArray *runs, const char *name,
                          const char *out_dir, const char *file,
                          GError **errp)
{
    g_autoptr(GString) s = g_string_new(NULL);
    g_autoptr(GString) data = g_string_new(NULL);
    g_autoptr(GString) plot = g_string_new(NULL);
    g_autoptr(GString) labels = g_string_new(NULL);
    g_autofree char *title = NULL;
    g_autofree char *base = NULL;
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    g_autofree char *fname = g_strconcat("compare-", file, NULL);
    const char *suite = NULL;

    /* the workload's suite: four corners unless a run says otherwise */
    for (guint i = 0; i < runs->len && !suite; i++) {
        const RWork *w = work_find(g_ptr_array_index(runs, i), name);

        suite = w ? w->suite : NULL;
    }
    title = g_strdup_printf("%s — %s: average latency against IOPS",
                            suite && strcmp(suite, "four-corners") ?
                            suite_label(suite) : "four corners", name);
    base = g_build_filename(out_dir, fname, NULL);
    gp_frame(s, title);
    for (guint i = 0; i < runs->len; i++) {
        const RRun *r = g_ptr_array_index(runs, i);
        const RWork *w = work_find(r, name);
        const char *color = palette[i % N_PALETTE];
        g_autofree char *bn = g_strdup_printf("run%u", i);
        g_autofree char *ln = g_strdup_printf("runlim%u", i);
        g_autofree char *tag = g_strdup_printf(", %s", r->profile);
        g_autoptr(GString) lt = g_string_new(NULL);

        if (!w) {
            continue;
        }
        gp_str(lt, r->label);
        if (count_pts(w->curve, false, 0)) {
            gp_block(data, bn, w->curve, false, 0);
            g_string_append_printf(plot, ", $%s using 1:2 with linespoints "
                                   "%s lw 2.5 pt 7 ps 1 lc rgb '%s' "
                                   "title %s", bn, r->guest ? "" : "dt (8,5)",
                                   color, lt->str);
        }
        if (count_pts(w->curve, false, 1)) {
            gp_block(data, ln, w->curve, false, 1);
            g_string_append_printf(plot, ", $%s using 1:2 with points pt 6 "
                                   "ps 1.5 lc rgb '%s' title "
                                   "'host-limited (%s)'", ln, color,
                                   r->profile);
        }
        if (!g_hash_table_contains(seen, r->profile)) {
            g_hash_table_add(seen, r->profile);
            gp_review(data, plot, labels, w, color, tag, i);
        }
    }
    if (!plot->len) {
        g_string_append(plot, ", NaN notitle");
    }
    g_string_append(s, data->str);
    g_string_append(s, labels->str);
    g_string_prepend(plot, "plot ");
    g_string_erase(plot, 5, 2);
    gp_outputs(s, base, plot->str);
    return gnuplot_run(s->str, name, errp);
}

static const RApp *app_find(const RRun *r, const char *suite)
{
    for (guint i = 0; i < r->apps->len; i++) {
        const RApp *a = g_ptr_array_index(r->apps, i);

        if (!strcmp(a->suite, suite)) {
            return a;
        }
    }
    return NULL;
}

static bool runs_have_apps(GPtrArray *runs)
{
    for (guint i = 0; i < runs->len; i++) {
        if (((RRun *)g_ptr_array_index(runs, i))->apps->len) {
            return true;
        }
    }
    return false;
}

typedef enum {
    CMP_SEQ_STEP, CMP_RENDER_TOTAL, CMP_SQL_TPMC, CMP_SQL_AVG, CMP_SQL_P99,
} CmpFig;

/* One row of the applications table: a figure of every run. */
static void compare_app_row(GString *s, GPtrArray *runs, const char *suite,
                            CmpFig fig, const char *step, const char *what,
                            int decimals)
{
    g_string_append(s, "<tr><td class=\"l\">");
    h_esc(s, what);
    g_string_append(s, "</td>");
    for (guint i = 0; i < runs->len; i++) {
        const RApp *a = app_find(g_ptr_array_index(runs, i), suite);
        double v = NAN;

        if (!a) {
            g_string_append(s, "<td>–</td>");
            continue;
        }
        switch (fig) {
        case CMP_SEQ_STEP:
            for (guint k = 0; k < a->steps->len; k++) {
                const RStep *st = &g_array_index(a->steps, RStep, k);

                if (!strcmp(st->name, step)) {
                    v = st->gbps;
                }
            }
            break;
        case CMP_RENDER_TOTAL:
            v = a->total_s;
            break;
        case CMP_SQL_TPMC:
            v = a->tpmc;
            break;
        case CMP_SQL_AVG:
            v = a->overall.avg_ms;
            break;
        case CMP_SQL_P99:
            v = a->overall.p99_ms;
            break;
        }
        if (isnan(v) && a->complete == 0) {
            g_string_append(s, "<td><span class=\"badge bad\">failed"
                               "</span></td>");
        } else {
            h_td(s, v, decimals);
        }
    }
    g_string_append(s, "</tr>\n");
}

/* The application suites' headline figures, a column per run. */
static void compare_apps(GString *s, GPtrArray *runs)
{
    g_autoptr(GPtrArray) steps = g_ptr_array_new_with_free_func(g_free);
    bool render = false, sql = false;

    for (guint i = 0; i < runs->len; i++) {
        const RRun *r = g_ptr_array_index(runs, i);
        const RApp *a = app_find(r, "seq");

        for (guint k = 0; a && k < a->steps->len; k++) {
            str_index(steps, g_array_index(a->steps, RStep, k).name);
        }
        render |= app_find(r, "render") != NULL;
        sql |= app_find(r, "sql") != NULL;
    }
    g_string_append(s, "<section id=\"apps\"><h2>Applications</h2>"
                       "<table><thead><tr><th class=\"l\">figure</th>");
    for (guint i = 0; i < runs->len; i++) {
        g_string_append(s, "<th>");
        h_esc(s, ((RRun *)g_ptr_array_index(runs, i))->label);
        g_string_append(s, "</th>");
    }
    g_string_append(s, "</tr></thead><tbody>\n");
    for (guint k = 0; k < steps->len; k++) {
        g_autofree char *what = g_strdup_printf("seq %s GB/s",
            (char *)g_ptr_array_index(steps, k));

        compare_app_row(s, runs, "seq", CMP_SEQ_STEP,
                        g_ptr_array_index(steps, k), what, 2);
    }
    if (render) {
        compare_app_row(s, runs, "render", CMP_RENDER_TOTAL, NULL,
                        "render total s", 2);
    }
    if (sql) {
        compare_app_row(s, runs, "sql", CMP_SQL_TPMC, NULL, "sql tpmC", 1);
        compare_app_row(s, runs, "sql", CMP_SQL_AVG, NULL,
                        "sql overall avg ms", 2);
        compare_app_row(s, runs, "sql", CMP_SQL_P99, NULL,
                        "sql overall p99 ms", 2);
    }
    g_string_append(s, "</tbody></table>\n<p class=\"note\">GB/s is "
                       "10^9 bytes per second seen by fio in the guest; "
                       "– : the run has no such suite.</p></section>\n");
}

static bool compare_html(GPtrArray *runs, GPtrArray *names,
                         const char *out_dir, GError **errp)
{
    g_autofree char *path = g_build_filename(out_dir, "compare.html", NULL);
    g_autofree char *rendered = now_string();
    g_autoptr(GString) s = g_string_new(NULL);
    bool apps = runs_have_apps(runs);

    h_head(s, "nvmimic compare", apps ? css_apps : NULL);
    g_string_append_printf(s, "<header><h1>nvmimic compare — %s"
                           "</h1><div class=\"sub\">%u runs side by side: "
                           "each run's guest curve (solid) or model curve "
                           "(dashed, model-only runs), the review's peaks "
                           "as diamonds.</div><dl class=\"meta\">",
                           apps ? "four corners, VDI and applications"
                                : "four corners", runs->len);
    for (guint i = 0; i < runs->len; i++) {
        const RRun *r = g_ptr_array_index(runs, i);
        g_autofree char *v = g_strdup_printf("%s%s%s",
                                             r->date ? r->date : "",
                                             r->complete == 0 ? " · partial"
                                                              : "",
                                             "");

        h_meta(s, r->label, v);
    }
    g_string_append(s, "</dl></header>\n<main>\n");
    if (apps) {
        compare_apps(s, runs);
    }
    if (!names->len) {
        goto done;
    }
    g_string_append(s, "<section><h2>Peaks per profile vs review</h2>"
                       "<table><thead><tr><th>run</th><th class=\"l\">workload</th>"
                       "<th>review IOPS</th><th>review lat µs</th>"
                       "<th>IOPS</th><th>lat µs</th><th>p99 µs</th>"
                       "<th>IOPS vs review</th><th>lat vs review</th>"
                       "</tr></thead><tbody>\n");
    for (guint n = 0; n < names->len; n++) {
        for (guint i = 0; i < runs->len; i++) {
            const RRun *r = g_ptr_array_index(runs, i);
            const RWork *w = work_find(r, g_ptr_array_index(names, n));
            bool lim;

            if (!w) {
                continue;
            }
            lim = w->has_peak && w->peak.host_limited > 0;
            g_string_append_printf(s, "<tr%s><td>",
                                   lim ? " class=\"limited\"" : "");
            h_esc(s, r->label);
            g_string_append(s, "</td><td class=\"l\">");
            h_esc(s, w->name);
            g_string_append(s, lim ? " <span class=\"badge lim\">"
                                     "host-limited</span></td>" : "</td>");
            h_td(s, w->review_iops, 0);
            h_td(s, w->review_lat_us, 1);
            h_td(s, w->has_peak ? w->peak.iops : NAN, 0);
            h_td(s, w->has_peak ? w->peak.lat_us : NAN, 1);
            h_td(s, w->has_peak ? w->peak.p99_us : NAN, 1);
            h_td_delta(s, w->has_peak ? w->peak.iops : NAN, w->review_iops);
            h_td_delta(s, w->has_peak ? w->peak.lat_us : NAN,
                       w->review_lat_us);
            g_string_append(s, "</tr>\n");
        }
    }
    g_string_append(s, "</tbody></table></section>\n");
    for (guint n = 0; n < names->len; n++) {
        const char *name = g_ptr_array_index(names, n);
        g_autofree char *file = safe_name(name);
        g_autofree char *cf = g_strconcat("compare-", file, NULL);
        g_autofree char *alt = g_strdup_printf("%s: average latency against "
                                               "IOPS, all runs", name);

        g_string_append_printf(s, "<section id=\"wl-%s\"><h2>", file);
        h_esc(s, name);
        g_string_append(s, "</h2>\n");
        h_chart(s, out_dir, cf, alt);
        g_string_append(s, "</section>\n");
    }
done:
    g_string_append_printf(s, "</main><footer>Rendered by nvmimic compare "
                           "on %s</footer></body></html>\n", rendered);
    return g_file_set_contents(path, s->str, s->len, errp);
}

bool nvm_report_compare(char **dirs, unsigned n_dirs, const char *out_dir,
                        const char *reviews_tsv, GError **errp)
{
    g_autoptr(GPtrArray) runs =
        g_ptr_array_new_with_free_func((GDestroyNotify)run_free);
    g_autoptr(GPtrArray) names = g_ptr_array_new();

    for (unsigned i = 0; i < n_dirs; i++) {
        RRun *r = run_load(dirs[i], reviews_tsv, errp);

        if (!r) {
            return false;
        }
        g_ptr_array_add(runs, r);
        for (guint w = 0; w < r->works->len; w++) {
            RWork *wk = g_ptr_array_index(r->works, w);
            bool have = false;

            for (guint k = 0; k < names->len; k++) {
                have |= !strcmp(g_ptr_array_index(names, k), wk->name);
            }
            if (!have) {
                g_ptr_array_add(names, wk->name);
            }
        }
    }
    compare_labels(runs);
    if (g_mkdir_with_parents(out_dir, 0755) < 0) {
        g_set_error(errp, REPORT_ERROR, 1, "%s: %s", out_dir,
                    g_strerror(errno));
        return false;
    }
    for (guint n = 0; n < names->len; n++) {
        g_autofree char *file = safe_name(g_ptr_array_index(names, n));

        if (!compare_chart(runs, g_ptr_array_index(names, n), out_dir, file,
                           errp)) {
            return false;
        }
    }
    return compare_html(runs, names, out_dir, errp);
}

/* ---- CLI -------------------------------------------------------------- */

static int report_usage(const char *cmd, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

static int report_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "nvmimic %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see nvmimic --help)\n", stderr);
    return 2;
}

int nvm_report_main(int argc, char **argv, const char *profile_dir)
{
    const char *cmd = argv[0];
    bool compare = !strcmp(cmd, "compare");
    g_autoptr(GPtrArray) dirs = g_ptr_array_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = NULL;
    const char *out = NULL;
    const char *reviews = NULL;
    bool ok;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf(compare ? "usage: nvmimic compare DIR... [--out DIR] "
                             "[--reviews four-corners.tsv]\n"
                           : "usage: nvmimic report DIR "
                             "[--reviews four-corners.tsv]\n");
            return 0;
        }
        if (!strcmp(a, "--out") || !strcmp(a, "--reviews")) {
            if (i + 1 >= argc) {
                return report_usage(cmd, "option %s needs a value", a);
            }
            if (!strcmp(a, "--out") && !compare) {
                return report_usage(cmd, "--out is for compare; report "
                                    "writes into DIR itself");
            }
            *(!strcmp(a, "--out") ? &out : &reviews) = argv[++i];
            continue;
        }
        if (!strncmp(a, "--", 2)) {
            return report_usage(cmd, "unknown option '%s'", a);
        }
        g_ptr_array_add(dirs, (gpointer)a);
    }
    if (!dirs->len) {
        return report_usage(cmd, "needs %s", compare ? "one or more run "
                            "directories" : "a run directory");
    }
    if (!compare && dirs->len > 1) {
        return report_usage(cmd, "takes one directory, not %u (nvmimic "
                            "compare puts several side by side)", dirs->len);
    }
    tsv = reviews ? g_strdup(reviews)
                  : g_build_filename(profile_dir, "reviews",
                                     "four-corners.tsv", NULL);
    if (compare) {
        const char *o = out ? out : "compare";

        ok = nvm_report_compare((char **)dirs->pdata, dirs->len, o, tsv,
                                &err);
        if (ok) {
            g_autofree char *p = g_build_filename(o, "compare.html", NULL);

            printf("%s\n", p);
        }
    } else {
        ok = nvm_report_render(dirs->pdata[0], tsv, &err);
        if (ok) {
            g_autofree char *p = g_build_filename(dirs->pdata[0],
                                                  "report.html", NULL);

            printf("%s\n", p);
        }
    }
    if (!ok) {
        fprintf(stderr, "nvmimic %s: %s\n", cmd, err->message);
        return 1;
    }
    return 0;
}
