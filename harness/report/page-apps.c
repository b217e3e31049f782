/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report: the application suites' part of report.html (seq,
 * render, sql): a summary line each at the top and a section each with its
 * table and chart.
 */
#include <math.h>
#include <string.h>

#include "report-int.h"

const char *rep_suite_label(const char *suite)
{
    return !strcmp(suite, "four-corners") ? "Four corners" :
           !strcmp(suite, "vdi") ? "VDI" : suite;
}

const char *rep_work_suite(const NvmResWork *w)
{
    return w->suite ? w->suite : "four-corners";
}

static const char *app_title(const NvmResApp *a)
{
    return !strcmp(a->suite, "seq") ? "Sequential: 1 MiB write, then read" :
           !strcmp(a->suite, "render") ? "Render: load, unpack, repack "
                                         "in a small guest (swapping)" :
           !strcmp(a->suite, "sql") ? "SQL: TPC-C on PostgreSQL" :
           a->suite;
}

static const char *app_badge(const NvmResApp *a)
{
    return a->complete > 0 ? "<span class=\"badge ok\">complete</span>" :
           a->complete == 0 ? "<span class=\"badge bad\">failed</span>" :
           "<span class=\"badge lim\">completeness unknown</span>";
}

/* The device's figures per class; @when says over what. */
static void h_dev_table(GString *s, const NvmResDev *d, const char *when)
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
        const NvmResDevFig *f = &d->cls[c];

        if (!f->has) {
            continue;
        }
        n++;
        g_string_append_printf(s, "<tr><td>%s</td>", nvm_op_name(c));
        rep_h_td(s, f->count, 0);
        rep_h_td(s, f->fig.iops, 1);
        rep_h_td(s, f->fig.mbps, 1);
        rep_h_td(s, f->fig.lat_us, 1);
        rep_h_td(s, f->fig.p50_us, 1);
        rep_h_td(s, f->fig.p99_us, 1);
        rep_h_td(s, f->fig.p999_us, 1);
        rep_h_td(s, f->max_us, 1);
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
static const NvmResDevFig *step_dev(const NvmResStep *st)
{
    const NvmResDevFig *r = &st->dev.cls[DEV_READ], *w = &st->dev.cls[DEV_WRITE];

    if (st->rw && !strcmp(st->rw, "read")) {
        return r;
    }
    if (st->rw && !strcmp(st->rw, "write")) {
        return w;
    }
    return (isnan(r->count) ? 0 : r->count) >=
           (isnan(w->count) ? 0 : w->count) ? r : w;
}

static void h_app_seq(GString *s, const NvmResApp *a)
{
    g_string_append(s, "<h3>Steps</h3><table><thead><tr><th>step</th>"
                       "<th>QD</th><th>data GiB</th><th>GB/s</th>"
                       "<th>guest IOPS</th><th>guest avg µs</th>"
                       "<th>guest p99 µs</th><th>device IOPS</th>"
                       "<th>device MB/s</th><th>device avg µs</th>"
                       "<th>device p99 µs</th></tr></thead><tbody>\n");
    for (guint i = 0; i < a->steps->len; i++) {
        const NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);
        const NvmResDevFig *f = step_dev(st);

        g_string_append(s, "<tr><td>");
        rep_h_esc(s, st->name);
        g_string_append(s, "</td>");
        rep_h_td(s, st->qd, 0);
        rep_h_td(s, st->bytes / (1024.0 * 1024 * 1024), 2);
        rep_h_td(s, st->gbps, 2);
        rep_h_td(s, st->fig.iops, 0);
        rep_h_td(s, st->fig.lat_us, 1);
        rep_h_td(s, st->fig.p99_us, 1);
        rep_h_td(s, f->fig.iops, 0);
        rep_h_td(s, f->fig.mbps, 1);
        rep_h_td(s, f->fig.lat_us, 1);
        rep_h_td(s, f->fig.p99_us, 1);
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
static void h_app_render_head(GString *s, const NvmResApp *a)
{
    g_string_append(s, "<p class=\"note\">");
    g_string_append(s, "Guest RAM ");
    rep_h_num(s, a->mem_mib, 0);
    g_string_append(s, " MiB · points ");
    rep_h_num(s, a->points, 0);
    g_string_append(s, " · threads ");
    rep_h_num(s, a->threads, 0);
    g_string_append(s, " · array ");
    rep_h_num(s, a->array_bytes / (1024.0 * 1024), 0);
    g_string_append(s, " MiB · packed ");
    rep_h_num(s, a->packed_bytes / (1024.0 * 1024), 0);
    g_string_append(s, " MiB · check: ");
    if (a->check_ok > 0) {
        g_string_append(s, "<span class=\"badge ok\">ok</span>");
    } else if (a->check_ok == 0) {
        g_string_append(s, "<span class=\"badge bad\">failed</span> bad ");
        rep_h_num(s, a->check_bad, 0);
        g_string_append(s, ", missing ");
        rep_h_num(s, a->check_missing, 0);
    } else {
        g_string_append(s, "–");
    }
    g_string_append(s, "</p>\n");
}

static void h_app_render(GString *s, const NvmResApp *a)
{
    static const char *const phase[] = { "load", "unpack", "repack" };
    double secs[] = { a->load_s, a->unpack_s, a->repack_s };

    g_string_append(s, "<h3>Phases</h3><table><thead><tr>"
                       "<th>phase</th><th>seconds</th></tr></thead><tbody>\n");
    for (unsigned i = 0; i < G_N_ELEMENTS(phase); i++) {
        g_string_append_printf(s, "<tr><td>%s</td>", phase[i]);
        rep_h_td(s, secs[i], 2);
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "<tr class=\"total\"><td>total</td>");
    rep_h_td(s, a->total_s, 2);
    g_string_append(s, "</tr>\n</tbody></table>\n<h3>Swap (guest "
                       "/proc/vmstat)</h3><table><thead><tr>"
                       "<th>pages in</th><th>pages out</th>"
                       "<th>MiB in</th><th>MiB out</th></tr></thead>"
                       "<tbody><tr>");
    rep_h_td(s, a->pswpin, 0);
    rep_h_td(s, a->pswpout, 0);
    rep_h_td(s, a->pswpin * 4096 / (1024.0 * 1024), 1);
    rep_h_td(s, a->pswpout * 4096 / (1024.0 * 1024), 1);
    g_string_append(s, "</tr></tbody></table>\n<p class=\"note\">Pages are "
                       "4 KiB.</p>\n");
}

static void h_txn_row(GString *s, const char *name, const NvmResTxn *x,
                      const char *cls)
{
    g_string_append_printf(s, "<tr%s><td>%s</td>", cls, name);
    rep_h_td(s, x->count, 0);
    rep_h_td(s, x->share * 100, 1);
    rep_h_td(s, x->weight * 100, 1);
    rep_h_td(s, x->avg_ms, 2);
    rep_h_td(s, x->p95_ms, 2);
    rep_h_td(s, x->p99_ms, 2);
    rep_h_td(s, x->max_ms, 2);
    g_string_append(s, "</tr>\n");
}

/* tpmC and the run's parameters, above the chart. */
static void h_app_sql_head(GString *s, const NvmResApp *a)
{
    if (a->has_result) {
        g_string_append(s, "<p class=\"big\">tpmC <b>");
        rep_h_num(s, a->tpmc, 1);
        g_string_append(s, "</b> · all transactions ");
        rep_h_num(s, a->tpm_total, 1);
        g_string_append(s, " per minute · failures ");
        rep_h_num(s, a->failures, 0);
        g_string_append(s, "</p>\n");
    }
    if (a->has_params) {
        g_string_append(s, "<p class=\"note\">Warehouses ");
        rep_h_num(s, a->warehouses, 0);
        g_string_append(s, " · users ");
        rep_h_num(s, a->users, 0);
        g_string_append(s, " · precondition ");
        rep_h_num(s, a->precondition_s, 0);
        g_string_append(s, " s · measured sample ");
        rep_h_num(s, a->sample_s, 0);
        g_string_append(s, " s · think-time factor ");
        rep_h_num(s, a->think_factor, 2);
        if (a->topology) {
            g_string_append(s, " · database disk ");
            rep_h_esc(s, a->topology);
        }
        g_string_append(s, "</p>\n");
    }
}

static void h_app_sql(GString *s, const NvmResApp *a)
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
    for (unsigned k = 0; a->has_result && k < NVM_RES_TXNS; k++) {
        if (a->txn[k].has) {
            h_txn_row(s, nvm_res_txn_key[k], &a->txn[k], "");
        }
    }
    if (a->overall.has) {
        h_txn_row(s, "overall", &a->overall, " class=\"total\"");
    }
    g_string_append(s, "</tbody></table>\n");
    if (!a->has_gap) {
        return;
    }
    /* what the guest's kernel waited beyond the drive, on this topology */
    g_string_append(s, "<h3>The guest against the device</h3><table><thead>"
                       "<tr><th>I/O</th><th>guest mean µs</th>"
                       "<th>device mean µs</th><th>gap µs</th></tr></thead>"
                       "<tbody>\n");
    for (unsigned k = 0; k < 3; k++) {
        static const char *const cls[] = { "read", "write", "flush" };

        g_string_append_printf(s, "<tr><td>%s</td>", cls[k]);
        for (unsigned j = 0; j < 3; j++) {
            rep_h_td(s, a->gap[k][j], 1);
        }
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "</tbody></table>\n");
}

void rep_h_app(GString *s, const NvmResults *r, const NvmResApp *a)
{
    g_autofree char *alt = NULL;

    g_string_append_printf(s, "<section id=\"%s\"><h2>", a->file);
    rep_h_esc(s, app_title(a));
    g_string_append_printf(s, " %s</h2>\n", app_badge(a));
    if (a->complete == 0 || a->error) {
        g_string_append(s, "<p class=\"note error\">");
        rep_h_esc(s, a->error ? a->error : "The suite did not complete.");
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
            rep_h_esc(s, log);
            g_string_append(s, "\">");
            rep_h_esc(s, log);
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
        rep_h_chart(s, r->dir, a->file, alt);
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
static void h_app_result(GString *s, const NvmResApp *a)
{
    bool seq = !strcmp(a->suite, "seq");

    if (seq ? !a->steps->len : !a->has_result) {
        g_string_append(s, "no result");
    } else if (seq) {
        double best[2] = { NAN, NAN };

        for (guint i = 0; i < a->steps->len; i++) {
            const NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);
            int k = st->rw && !strcmp(st->rw, "read") ? 1 :
                    st->rw && !strcmp(st->rw, "write") ? 0 : -1;

            if (k >= 0 && !isnan(st->gbps) &&
                (isnan(best[k]) || st->gbps > best[k])) {
                best[k] = st->gbps;
            }
        }
        g_string_append(s, "best write ");
        rep_h_num(s, best[0], 2);
        g_string_append(s, " GB/s, best read ");
        rep_h_num(s, best[1], 2);
        g_string_append(s, " GB/s");
    } else if (!strcmp(a->suite, "render")) {
        g_string_append(s, "total ");
        rep_h_num(s, a->total_s, 1);
        g_string_append(s, " s, swap in/out ");
        rep_h_num(s, a->pswpin, 0);
        g_string_append(s, " / ");
        rep_h_num(s, a->pswpout, 0);
        g_string_append(s, " pages");
    } else if (!strcmp(a->suite, "sql")) {
        g_string_append(s, "tpmC ");
        rep_h_num(s, a->tpmc, 1);
        g_string_append(s, ", overall avg ");
        rep_h_num(s, a->overall.avg_ms, 2);
        g_string_append(s, " ms, p99 ");
        rep_h_num(s, a->overall.p99_ms, 2);
        g_string_append(s, " ms");
    } else {
        g_string_append(s, "–");
    }
}

void rep_h_apps_summary(GString *s, const NvmResults *r)
{
    g_string_append(s, "<section><h2>Applications: results</h2><table>"
                       "<thead><tr><th>suite</th><th>status</th>"
                       "<th class=\"l\">result</th><th>wall s</th>"
                       "<th>device read avg µs</th>"
                       "<th>device read p99 µs</th><th>device write avg µs"
                       "</th><th>device write p99 µs</th></tr></thead>"
                       "<tbody>\n");
    for (guint i = 0; i < r->apps->len; i++) {
        const NvmResApp *a = g_ptr_array_index(r->apps, i);

        g_string_append_printf(s, "<tr><td><a href=\"#%s\">", a->file);
        rep_h_esc(s, a->suite);
        g_string_append_printf(s, "</a></td><td>%s</td><td class=\"l\">",
                               app_badge(a));
        h_app_result(s, a);
        g_string_append(s, "</td>");
        rep_h_td(s, a->wall_s, 0);
        rep_h_td(s, a->dev.cls[DEV_READ].fig.lat_us, 1);
        rep_h_td(s, a->dev.cls[DEV_READ].fig.p99_us, 1);
        rep_h_td(s, a->dev.cls[DEV_WRITE].fig.lat_us, 1);
        rep_h_td(s, a->dev.cls[DEV_WRITE].fig.p99_us, 1);
        g_string_append(s, "</tr>\n");
    }
    g_string_append(s, "</tbody></table>\n<p class=\"note\">Device "
                       "figures are the drive's own (QMP) over the suite's "
                       "measured interval; the sequential suite has them "
                       "per step, below.</p></section>\n");
}
