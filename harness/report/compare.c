/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic compare: several runs side by side, one chart per workload with a
 * curve per run, and the application suites' figures in one table
 * (compare.html).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "report-int.h"

static const NvmResWork *work_find(const NvmResults *r, const char *name)
{
    for (guint i = 0; i < r->works->len; i++) {
        const NvmResWork *w = g_ptr_array_index(r->works, i);

        if (!strcmp(w->name, name)) {
            return w;
        }
    }
    return NULL;
}

static void compare_labels(GPtrArray *runs)
{
    for (guint i = 0; i < runs->len; i++) {
        NvmResults *r = g_ptr_array_index(runs, i);

        r->label = r->guest ? g_strdup_printf("%s (guest%s%s)", r->profile,
                                              r->run_mode ? ", " : "",
                                              r->run_mode ? r->run_mode : "")
                            : g_strdup_printf("%s (%s)", r->profile,
                                              r->qtest ? "qtest" : "model");
    }
    /* the same profile and mode twice: tell them apart by directory */
    for (guint i = 0; i < runs->len; i++) {
        NvmResults *a = g_ptr_array_index(runs, i);
        bool dup = false;

        for (guint j = 0; j < runs->len; j++) {
            NvmResults *b = g_ptr_array_index(runs, j);

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
        const NvmResWork *w = work_find(g_ptr_array_index(runs, i), name);

        suite = w ? w->suite : NULL;
    }
    title = g_strdup_printf("%s — %s: average latency against IOPS",
                            suite && strcmp(suite, "four-corners") ?
                            rep_suite_label(suite) : "four corners", name);
    base = g_build_filename(out_dir, fname, NULL);
    rep_gp_frame(s, title);
    for (guint i = 0; i < runs->len; i++) {
        const NvmResults *r = g_ptr_array_index(runs, i);
        const NvmResWork *w = work_find(r, name);
        const char *color = rep_palette[i % N_PALETTE];
        g_autofree char *bn = g_strdup_printf("run%u", i);
        g_autofree char *ln = g_strdup_printf("runlim%u", i);
        g_autofree char *tag = g_strdup_printf(", %s", r->profile);
        g_autoptr(GString) lt = g_string_new(NULL);

        if (!w) {
            continue;
        }
        rep_gp_str(lt, r->label);
        if (rep_count_pts(w->curve, false, 0)) {
            rep_gp_block(data, bn, w->curve, false, 0);
            g_string_append_printf(plot, ", $%s using 1:2 with linespoints "
                                   "%s lw 2.5 pt 7 ps 1 lc rgb '%s' "
                                   "title %s", bn, r->guest ? "" : "dt (8,5)",
                                   color, lt->str);
        }
        if (rep_count_pts(w->curve, false, 1)) {
            rep_gp_block(data, ln, w->curve, false, 1);
            g_string_append_printf(plot, ", $%s using 1:2 with points pt 6 "
                                   "ps 1.5 lc rgb '%s' title "
                                   "'host-limited (%s)'", ln, color,
                                   r->profile);
        }
        if (!g_hash_table_contains(seen, r->profile)) {
            g_hash_table_add(seen, r->profile);
            rep_gp_review(data, plot, labels, w, color, tag, i);
        }
    }
    if (!plot->len) {
        g_string_append(plot, ", NaN notitle");
    }
    g_string_append(s, data->str);
    g_string_append(s, labels->str);
    g_string_prepend(plot, "plot ");
    g_string_erase(plot, 5, 2);
    rep_gp_outputs(s, base, plot->str);
    return rep_gnuplot_run(s->str, name, errp);
}

static const NvmResApp *app_find(const NvmResults *r, const char *suite)
{
    for (guint i = 0; i < r->apps->len; i++) {
        const NvmResApp *a = g_ptr_array_index(r->apps, i);

        if (!strcmp(a->suite, suite)) {
            return a;
        }
    }
    return NULL;
}

static bool runs_have_apps(GPtrArray *runs)
{
    for (guint i = 0; i < runs->len; i++) {
        if (((NvmResults *)g_ptr_array_index(runs, i))->apps->len) {
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
    rep_h_esc(s, what);
    g_string_append(s, "</td>");
    for (guint i = 0; i < runs->len; i++) {
        const NvmResApp *a = app_find(g_ptr_array_index(runs, i), suite);
        double v = NAN;

        if (!a) {
            g_string_append(s, "<td>–</td>");
            continue;
        }
        switch (fig) {
        case CMP_SEQ_STEP:
            for (guint k = 0; k < a->steps->len; k++) {
                const NvmResStep *st = &g_array_index(a->steps, NvmResStep, k);

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
            rep_h_td(s, v, decimals);
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
        const NvmResults *r = g_ptr_array_index(runs, i);
        const NvmResApp *a = app_find(r, "seq");

        for (guint k = 0; a && k < a->steps->len; k++) {
            rep_str_index(steps, g_array_index(a->steps, NvmResStep, k).name);
        }
        render |= app_find(r, "render") != NULL;
        sql |= app_find(r, "sql") != NULL;
    }
    g_string_append(s, "<section id=\"apps\"><h2>Applications</h2>"
                       "<table><thead><tr><th class=\"l\">figure</th>");
    for (guint i = 0; i < runs->len; i++) {
        g_string_append(s, "<th>");
        rep_h_esc(s, ((NvmResults *)g_ptr_array_index(runs, i))->label);
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
    g_autofree char *rendered = rep_now_string();
    g_autoptr(GString) s = g_string_new(NULL);
    bool apps = runs_have_apps(runs);

    rep_h_head(s, "nvmimic compare", apps ? rep_css_apps : NULL);
    g_string_append_printf(s, "<header><h1>nvmimic compare — %s"
                           "</h1><div class=\"sub\">%u runs side by side: "
                           "each run's guest curve (solid) or model curve "
                           "(dashed, model-only runs), the review's peaks "
                           "as diamonds.</div><dl class=\"meta\">",
                           apps ? "four corners, VDI and applications"
                                : "four corners", runs->len);
    for (guint i = 0; i < runs->len; i++) {
        const NvmResults *r = g_ptr_array_index(runs, i);
        g_autofree char *v = g_strdup_printf("%s%s%s",
                                             r->date ? r->date : "",
                                             r->complete == 0 ? " · partial"
                                                              : "",
                                             "");

        rep_h_meta(s, r->label, v);
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
            const NvmResults *r = g_ptr_array_index(runs, i);
            const NvmResWork *w = work_find(r, g_ptr_array_index(names, n));
            bool lim;

            if (!w) {
                continue;
            }
            lim = w->has_peak && w->peak.host_limited > 0;
            g_string_append_printf(s, "<tr%s><td>",
                                   lim ? " class=\"limited\"" : "");
            rep_h_esc(s, r->label);
            g_string_append(s, "</td><td class=\"l\">");
            rep_h_esc(s, w->name);
            g_string_append(s, lim ? " <span class=\"badge lim\">"
                                     "host-limited</span></td>" : "</td>");
            rep_h_td(s, w->review_iops, 0);
            rep_h_td(s, w->review_lat_us, 1);
            rep_h_td(s, w->has_peak ? w->peak.fig.iops : NAN, 0);
            rep_h_td(s, w->has_peak ? w->peak.fig.lat_us : NAN, 1);
            rep_h_td(s, w->has_peak ? w->peak.fig.p99_us : NAN, 1);
            rep_h_td_delta(s, w->has_peak ? w->peak.fig.iops : NAN,
                           w->review_iops);
            rep_h_td_delta(s, w->has_peak ? w->peak.fig.lat_us : NAN,
                           w->review_lat_us);
            g_string_append(s, "</tr>\n");
        }
    }
    g_string_append(s, "</tbody></table></section>\n");
    for (guint n = 0; n < names->len; n++) {
        const char *name = g_ptr_array_index(names, n);
        g_autofree char *file = nvm_res_safe_name(name);
        g_autofree char *cf = g_strconcat("compare-", file, NULL);
        g_autofree char *alt = g_strdup_printf("%s: average latency against "
                                               "IOPS, all runs", name);

        g_string_append_printf(s, "<section id=\"wl-%s\"><h2>", file);
        rep_h_esc(s, name);
        g_string_append(s, "</h2>\n");
        rep_h_chart(s, out_dir, cf, alt);
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
        g_ptr_array_new_with_free_func((GDestroyNotify)nvm_results_free);
    g_autoptr(GPtrArray) names = g_ptr_array_new();

    for (unsigned i = 0; i < n_dirs; i++) {
        NvmResults *r = nvm_results_load(dirs[i], reviews_tsv, errp);

        if (!r) {
            return false;
        }
        g_ptr_array_add(runs, r);
        for (guint w = 0; w < r->works->len; w++) {
            NvmResWork *wk = g_ptr_array_index(r->works, w);
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
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s: %s", out_dir,
                    g_strerror(errno));
        return false;
    }
    for (guint n = 0; n < names->len; n++) {
        g_autofree char *file = nvm_res_safe_name(g_ptr_array_index(names, n));

        if (!compare_chart(runs, g_ptr_array_index(names, n), out_dir, file,
                           errp)) {
            return false;
        }
    }
    return compare_html(runs, names, out_dir, errp);
}
