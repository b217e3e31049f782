/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic diff: a regression gate on two runs.  Every figure of two
 * results.json files, workload by workload and point by point (the guest's
 * and the device's IOPS, MB/s, latencies and percentiles, whether a point is
 * host-limited), then the application suites' figures (seq steps, render
 * phases, TPC-C transactions, the device over each), is compared; a table
 * of those that moved is printed, and the exit status says whether any moved
 * beyond the tolerance.  In simulated time a run is a pure function of its
 * inputs, so the default tolerance is 0: any change is a change.
 *
 * Not compared: wall times and dates (they are the host's, not the run's),
 * the model-only curve and the review's figures (inputs, not measurements).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "report-int.h"

/* One figure of a run: where it is and its value. */
typedef struct DFig {
    char *group;        /* workload name, or "app SUITE" */
    char *point;        /* "peak", "10 %", or a path in an app's figures */
    char *name;         /* "iops", "host_p99_us", ... */
    bool is_num;
    double num;         /* NAN: null */
    char *str;          /* !is_num: a string or boolean, as text */
} DFig;

typedef struct DRun {
    const char *path;
    JsonNode *tree;     /* the run as the writer writes it */
    JsonObject *root;
    GPtrArray *figs;    /* DFig, in the file's order */
    GHashTable *index;  /* "group\npoint\nname" -> DFig */
    GHashTable *points; /* "group\npoint" of every figure */
} DRun;

/* Members that are not figures of the run. */
static const char *const skip_members[] = {
    "wall_s", "guest_dir", "log_tail", "error", "complete", "suite", NULL,
};

static void dfig_free(gpointer p)
{
    DFig *f = p;

    g_free(f->group);
    g_free(f->point);
    g_free(f->name);
    g_free(f->str);
    g_free(f);
}

static void drun_free(DRun *r)
{
    if (!r) {
        return;
    }
    if (r->tree) {
        json_node_unref(r->tree);
    }
    if (r->figs) {
        g_ptr_array_free(r->figs, TRUE);
    }
    if (r->index) {
        g_hash_table_destroy(r->index);
    }
    if (r->points) {
        g_hash_table_destroy(r->points);
    }
    g_free(r);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DRun, drun_free)

static char *fig_key(const char *group, const char *point, const char *name)
{
    return g_strdup_printf("%s\n%s\n%s", group, point, name);
}

static void add_fig(DRun *r, const char *group, const char *point,
                    const char *name, JsonNode *n)
{
    DFig *f;
    GType t;

    if (!JSON_NODE_HOLDS_VALUE(n) && !JSON_NODE_HOLDS_NULL(n)) {
        return;
    }
    f = g_new0(DFig, 1);
    f->group = g_strdup(group);
    f->point = g_strdup(point);
    f->name = g_strdup(name);
    if (JSON_NODE_HOLDS_NULL(n)) {
        f->is_num = true;
        f->num = NAN;
    } else {
        t = json_node_get_value_type(n);
        if (t == G_TYPE_DOUBLE || t == G_TYPE_INT64) {
            f->is_num = true;
            f->num = json_node_get_double(n);
        } else if (t == G_TYPE_BOOLEAN) {
            f->str = g_strdup(json_node_get_boolean(n) ? "true" : "false");
        } else {
            f->str = g_strdup(json_node_get_string(n));
        }
    }
    g_ptr_array_add(r->figs, f);
    g_hash_table_replace(r->index, fig_key(group, point, name), f);
    g_hash_table_add(r->points, g_strdup_printf("%s\n%s", group, point));
}

static bool skipped(const char *member)
{
    return g_strv_contains(skip_members, member);
}

/* A curve point's figures: its members but the wall time. */
static void add_point(DRun *r, const char *wl, const char *point,
                      JsonObject *o)
{
    g_autoptr(GList) names = json_object_get_members(o);

    for (GList *l = names; l; l = l->next) {
        if (!skipped(l->data) && strcmp(l->data, "target_pct")) {
            add_fig(r, wl, point, l->data, json_object_get_member(o, l->data));
        }
    }
}

/* An application suite's figures: every leaf, its path as the point. */
static void add_tree(DRun *r, const char *group, const char *path,
                     const char *name, JsonNode *n)
{
    if (JSON_NODE_HOLDS_OBJECT(n)) {
        JsonObject *o = json_node_get_object(n);
        g_autoptr(GList) names = json_object_get_members(o);

        for (GList *l = names; l; l = l->next) {
            JsonNode *c = json_object_get_member(o, l->data);
            g_autofree char *p = NULL;

            if (skipped(l->data)) {
                continue;
            }
            if (JSON_NODE_HOLDS_VALUE(c) || JSON_NODE_HOLDS_NULL(c)) {
                add_tree(r, group, path, l->data, c);
                continue;
            }
            p = *path ? g_strdup_printf("%s.%s", path, (char *)l->data) :
                g_strdup(l->data);
            add_tree(r, group, p, NULL, c);
        }
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *a = json_node_get_array(n);

        for (guint i = 0; i < json_array_get_length(a); i++) {
            JsonNode *e = json_array_get_element(a, i);
            JsonObject *eo = JSON_NODE_HOLDS_OBJECT(e) ?
                             json_node_get_object(e) : NULL;
            /* steps by name rather than by index */
            g_autofree char *p = eo && json_object_has_member(eo, "name") ?
                g_strdup_printf("%s%s%s", path, *path ? "." : "",
                                json_object_get_string_member(eo, "name")) :
                g_strdup_printf("%s%s%u", path, *path ? "." : "", i);

            add_tree(r, group, p, NULL, e);
        }
    } else if (name && strcmp(name, "name")) {
        add_fig(r, group, *path ? path : "-", name, n);
    }
}

static JsonObject *member_obj(JsonObject *o, const char *k)
{
    JsonNode *n = o && json_object_has_member(o, k) ?
                  json_object_get_member(o, k) : NULL;

    return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static JsonArray *member_arr(JsonObject *o, const char *k)
{
    JsonNode *n = o && json_object_has_member(o, k) ?
                  json_object_get_member(o, k) : NULL;

    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static const char *member_str(JsonObject *o, const char *k)
{
    JsonNode *n = o && json_object_has_member(o, k) ?
                  json_object_get_member(o, k) : NULL;

    return n && JSON_NODE_HOLDS_VALUE(n) &&
           json_node_get_value_type(n) == G_TYPE_STRING ?
           json_node_get_string(n) : NULL;
}

/*
 * Run @res's figures: every member of its points and application suites,
 * as the one writer writes them (read by the one reader; the members it
 * did not know are among them).
 */
static DRun *drun_new(const NvmResults *res)
{
    g_autoptr(DRun) r = g_new0(DRun, 1);
    JsonArray *wls, *apps;

    r->path = res->path ? res->path : "results.json";
    r->tree = nvm_results_to_node(res);
    r->root = json_node_get_object(r->tree);
    wls = member_arr(r->root, "workloads");
    apps = member_arr(r->root, "apps");
    r->figs = g_ptr_array_new_with_free_func(dfig_free);
    r->index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    r->points = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    /* a run that stopped short is a change from one that did not */
    if (json_object_has_member(r->root, "complete")) {
        add_fig(r, "run", "-", "complete",
                json_object_get_member(r->root, "complete"));
    }
    for (guint i = 0; wls && i < json_array_get_length(wls); i++) {
        JsonObject *w = json_array_get_object_element(wls, i);
        const char *name = member_str(w, "name");
        JsonObject *pk = member_obj(w, "peak");
        JsonArray *cv = member_arr(w, "curve");

        if (pk) {
            add_point(r, name, "peak", pk);
        }
        for (guint k = 0; cv && k < json_array_get_length(cv); k++) {
            JsonObject *p = json_array_get_object_element(cv, k);
            g_autofree char *label = g_strdup_printf(
                "%g %%", json_object_get_double_member(p, "target_pct"));

            add_point(r, name, label, p);
        }
    }
    for (guint i = 0; apps && i < json_array_get_length(apps); i++) {
        JsonNode *a = json_array_get_element(apps, i);
        const char *suite = member_str(json_node_get_object(a), "suite");
        g_autofree char *group = g_strdup_printf("app %s", suite);

        add_tree(r, group, "", NULL, a);
    }
    return g_steal_pointer(&r);
}

static char *fig_text(const DFig *f)
{
    if (!f) {
        return g_strdup("-");
    }
    if (!f->is_num) {
        return g_strdup(f->str);
    }
    if (isnan(f->num)) {
        return g_strdup("null");
    }
    return g_strdup_printf("%.10g", f->num);
}

/* Do two figures differ at all?  null equals null. */
static bool fig_differs(const DFig *a, const DFig *b)
{
    if (!a || !b || a->is_num != b->is_num) {
        return true;
    }
    if (!a->is_num) {
        return g_strcmp0(a->str, b->str) != 0;
    }
    if (isnan(a->num) || isnan(b->num)) {
        return isnan(a->num) != isnan(b->num);
    }
    return a->num != b->num;
}

/* The change in percent of @a (INFINITY from 0, NAN if not numbers). */
static double fig_pct(const DFig *a, const DFig *b)
{
    if (!a || !b || !a->is_num || !b->is_num || isnan(a->num) ||
        isnan(b->num)) {
        return NAN;
    }
    if (a->num == b->num) {
        return 0;
    }
    if (a->num == 0) {
        return b->num > 0 ? INFINITY : -INFINITY;
    }
    return 100.0 * (b->num - a->num) / fabs(a->num);
}

typedef struct DRow {
    const DFig *base, *new;
    bool changed, beyond;
    bool whole_point;   /* the point is missing from one run: one row */
} DRow;

/* Is @f's point (workload and load) absent from run @r?  */
static bool point_absent(const DRun *r, const DFig *f)
{
    g_autofree char *k = g_strdup_printf("%s\n%s", f->group, f->point);

    return !g_hash_table_contains(r->points, k);
}

/* Append @row, or only the first row of a point absent from one run. */
static void add_row(GArray *rows, DRow row, const DRun *other)
{
    const DFig *f = row.base ? row.base : row.new;

    if (point_absent(other, f)) {
        for (guint i = 0; i < rows->len; i++) {
            const DRow *p = &g_array_index(rows, DRow, i);
            const DFig *g = p->base ? p->base : p->new;

            if (p->whole_point && !strcmp(g->group, f->group) &&
                !strcmp(g->point, f->point)) {
                return;
            }
        }
        row.whole_point = true;
    }
    g_array_append_val(rows, row);
}

/* Inputs that make the two runs different experiments: said, not gated. */
static void note_inputs(GString *out, const DRun *a, const DRun *b)
{
    static const char *const keys[] = {
        "profile", "run_mode", "seed", "quick", "duration_s", "ramp_s",
        "threads_mode", "span_bytes", "guest_append", "guest_pre",
        "fio_opts", "backing", NULL,
    };

    for (const char *const *k = keys; *k; k++) {
        JsonNode *x = json_object_has_member(a->root, *k) ?
                      json_object_get_member(a->root, *k) : NULL;
        JsonNode *y = json_object_has_member(b->root, *k) ?
                      json_object_get_member(b->root, *k) : NULL;
        g_autofree char *xs = NULL;
        g_autofree char *ys = NULL;

        if (!x && !y) {
            continue;
        }
        xs = x ? json_to_string(x, FALSE) : g_strdup("(none)");
        ys = y ? json_to_string(y, FALSE) : g_strdup("(none)");
        if (strcmp(xs, ys)) {
            g_string_append_printf(out, "input %s: %s -> %s\n", *k, xs, ys);
        }
    }
}

unsigned rep_diff_results(const NvmResults *base, const NvmResults *new,
                          double tolerance_pct, bool all, GString *out)
{
    g_autoptr(DRun) a = drun_new(base);
    g_autoptr(DRun) b = drun_new(new);
    g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(DRow));
    unsigned n_changed = 0, n_beyond = 0, wg = 8, wp = 5, wn = 6;
    JsonNode *cb;

    g_string_append_printf(out, "nvmimic diff: %s -> %s\n", a->path,
                           b->path);
    note_inputs(out, a, b);
    cb = json_object_has_member(b->root, "complete") ?
         json_object_get_member(b->root, "complete") : NULL;
    if (cb && JSON_NODE_HOLDS_VALUE(cb) &&
        json_node_get_value_type(cb) == G_TYPE_BOOLEAN &&
        !json_node_get_boolean(cb)) {
        const char *e = member_str(b->root, "error");

        g_string_append_printf(out, "the new run is incomplete%s%s\n",
                               e ? ": " : "", e ? e : "");
    }

    /* base's figures in its order, then those only the new run has */
    for (guint i = 0; i < a->figs->len; i++) {
        const DFig *f = g_ptr_array_index(a->figs, i);
        g_autofree char *k = fig_key(f->group, f->point, f->name);
        DRow row = { .base = f, .new = g_hash_table_lookup(b->index, k) };

        add_row(rows, row, b);
    }
    for (guint i = 0; i < b->figs->len; i++) {
        const DFig *f = g_ptr_array_index(b->figs, i);
        g_autofree char *k = fig_key(f->group, f->point, f->name);

        if (!g_hash_table_contains(a->index, k)) {
            DRow row = { .new = f };

            add_row(rows, row, a);
        }
    }
    for (guint i = 0; i < rows->len; i++) {
        DRow *r = &g_array_index(rows, DRow, i);
        const DFig *f = r->base ? r->base : r->new;
        double pct = fig_pct(r->base, r->new);

        r->changed = fig_differs(r->base, r->new);
        r->beyond = r->changed &&
                    (tolerance_pct <= 0 || isnan(pct) ||
                     fabs(pct) > tolerance_pct);
        n_changed += r->changed;
        n_beyond += r->beyond;
        if (r->changed || all) {
            wg = MAX(wg, strlen(f->group));
            wp = MAX(wp, strlen(f->point));
            wn = MAX(wn, r->whole_point ? 11 : strlen(f->name));
        }
    }
    if (n_changed || all) {
        g_string_append_printf(out, "%-*s  %-*s  %-*s %14s %14s %14s %10s\n",
                               wg, "workload", wp, "point", wn, "figure",
                               "base", "new", "delta", "delta%");
    }
    for (guint i = 0; i < rows->len; i++) {
        const DRow *r = &g_array_index(rows, DRow, i);
        const DFig *f = r->base ? r->base : r->new;
        g_autofree char *x = r->whole_point ?
            g_strdup(r->base ? "measured" : "-") : fig_text(r->base);
        g_autofree char *y = r->whole_point ?
            g_strdup(r->new ? "measured" : "-") : fig_text(r->new);
        double pct = fig_pct(r->base, r->new);
        g_autofree char *d = NULL;
        g_autofree char *p = NULL;

        if (!r->changed && !all) {
            continue;
        }
        d = r->base && r->new && r->base->is_num && r->new->is_num &&
            !isnan(r->base->num) && !isnan(r->new->num) ?
            g_strdup_printf("%+.6g", r->new->num - r->base->num) :
            g_strdup(r->changed ? "changed" : "");
        p = isnan(pct) ? g_strdup("") : isinf(pct) ? g_strdup("new") :
            g_strdup_printf("%+.3f %%", pct);
        g_string_append_printf(out, "%-*s  %-*s  %-*s %14s %14s %14s %10s%s\n",
                               wg, f->group, wp, f->point, wn,
                               r->whole_point ? "(the point)" : f->name, x,
                               y, d, p, r->beyond ? "  *" : "");
    }
    g_string_append_printf(out, "%u figures compared: %u changed, %u beyond "
                           "the tolerance (%g %%)%s\n", rows->len, n_changed,
                           n_beyond, tolerance_pct,
                           n_beyond ? " (marked *)" : "");
    return n_beyond;
}

int nvm_diff_runs(const char *base, const char *new, double tolerance_pct,
                  bool all, GString *out, GError **errp)
{
    g_autoptr(NvmResults) a = nvm_results_load_path(base, NULL, errp);
    g_autoptr(NvmResults) b = a ? nvm_results_load_path(new, NULL, errp)
                                : NULL;

    if (!b) {
        return -1;
    }
    return (int)rep_diff_results(a, b, tolerance_pct, all, out);
}

typedef struct DiffOpts {
    double tolerance;
    bool all;
} DiffOpts;

static int diff_cmd_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_diff;
    DiffOpts o = { 0 };
    g_autoptr(GPtrArray) paths = g_ptr_array_new();
    g_autoptr(GError) err = NULL;
    g_autoptr(GString) out = g_string_new(NULL);
    int beyond;
    int rc = nvm_opts_parse(cmd, argc, argv, &o, paths);

    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    beyond = nvm_diff_runs(paths->pdata[0], paths->pdata[1], o.tolerance,
                           o.all, out, &err);
    if (beyond < 0) {
        fprintf(stderr, "nvmimic diff: %s\n", err->message);
        return 2;
    }
    fputs(out->str, stdout);
    return beyond ? 1 : 0;
}

#define O(f) NVM_OPT_AT(DiffOpts, f)
static const NvmOpt diff_opts[] = {
    NVM_OPT("tolerance", NVM_OPT_DOUBLE, O(tolerance), "PCT",
            "a figure may move this many percent (in simulated time any\n"
            "change is a change)", .min = 0, .max = 1e9, .def = "0"),
    NVM_OPT("all", NVM_OPT_FLAG, O(all), NULL,
            "print every figure, not only those that changed"),
    NVM_OPT_END,
};
#undef O

const NvmCommand nvm_cmd_diff = {
    .name = "diff",
    .synopsis = "BASE NEW [--tolerance PCT] [--all]",
    .summary = "A regression gate: the figures that moved between two runs; "
               "exit 1 if any moved beyond the tolerance.",
    .description =
"Compares two runs (a run directory or its results.json) workload by\n"
"workload and point by point: the guest's and the device's IOPS, MB/s,\n"
"latencies and percentiles, then the application suites' figures.  Prints\n"
"the figures that changed with base, new, delta and delta %, the inputs\n"
"that differ first.  Wall times and dates are not compared.\n"
"Exit status: 0 nothing moved beyond the tolerance; 1 something did, or\n"
"one run is complete and the other not, or a figure is in one run only;\n"
"2 bad usage or an unreadable results.json.\n",
    .opts = diff_opts,
    .args = "two runs, BASE and NEW",
    .min_args = 2,
    .max_args = 2,
    .main = diff_cmd_main,
};
