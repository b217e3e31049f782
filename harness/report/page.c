/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report: report.html, self-contained (CSS inline, charts beside
 * it): the run's summary, then a section per workload with its chart and
 * table of points.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report-int.h"

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

void rep_h_esc(GString *s, const char *v)
{
    g_autofree char *e = g_markup_escape_text(v ? v : "", -1);

    g_string_append(s, e);
}

/* A number with thousands separators, or a dash. */
void rep_h_num(GString *s, double v, int decimals)
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

void rep_h_td(GString *s, double v, int decimals)
{
    g_string_append(s, "<td>");
    rep_h_num(s, v, decimals);
    g_string_append(s, "</td>");
}

/* Difference from a reference in percent, coloured when large. */
void rep_h_td_delta(GString *s, double v, double ref)
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
void rep_h_chart(GString *s, const char *dir, const char *file,
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
        rep_h_esc(s, alt);
        g_string_append(s, "\">");
    }
    g_string_append(s, "<figcaption>");
    rep_h_esc(s, alt);
    g_string_append(s, " · <a href=\"");
    rep_h_esc(s, png);
    g_string_append(s, "\">PNG</a> · <a href=\"");
    rep_h_esc(s, svg);
    g_string_append(s, "\">SVG</a></figcaption></figure>\n");
}

/* What only reports with application suites or suite headings use. */
const char rep_css_apps[] =
"h2.suite{margin:30px 2px 0;font-size:21px;color:#1d2b3e}"
".bad{background:#fde2df;color:#a5281b}"
"p.big{font-size:18px;margin:4px 0 10px}"
"p.error{color:#a5281b}"
"tr.total td{font-weight:600}";

void rep_h_head(GString *s, const char *title, const char *extra_css)
{
    g_string_append(s, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                       "<meta charset=\"utf-8\">"
                       "<meta name=\"viewport\" content=\"width=device-width,"
                       "initial-scale=1\">"
                       "<meta http-equiv=\"Content-Security-Policy\" "
                       "content=\"default-src 'none'; img-src data: 'self'; "
                       "style-src 'unsafe-inline'\">"
                       "<title>");
    rep_h_esc(s, title);
    g_string_append_printf(s, "</title><style>%s%s</style></head><body>\n",
                           css, extra_css ? extra_css : "");
}

void rep_h_meta(GString *s, const char *k, const char *v)
{
    g_string_append(s, "<div><dt>");
    rep_h_esc(s, k);
    g_string_append(s, "</dt><dd>");
    rep_h_esc(s, v ? v : "–");
    g_string_append(s, "</dd></div>");
}

static const char *status_badge(const NvmResults *r)
{
    return r->complete > 0 ? "<span class=\"badge ok\">complete</span>" :
           r->complete == 0 ? "<span class=\"badge warn\">partial</span>" :
           "<span class=\"badge lim\">completeness unknown</span>";
}

static void h_peak_row(GString *s, const char *what, const char *cls,
                       const NvmFig *f, const NvmResWork *w, bool limited)
{
    g_string_append_printf(s, "<tr%s><td>%s%s</td>", cls, what,
                           limited ? " <span class=\"badge lim\">"
                                     "host-limited</span>" : "");
    rep_h_td(s, f->iops, 0);
    rep_h_td(s, f->mbps, 1);
    rep_h_td(s, f->lat_us, 1);
    rep_h_td(s, f->p99_us, 1);
    if (cls[0]) {
        g_string_append(s, "<td></td><td></td></tr>\n");
        return;
    }
    rep_h_td_delta(s, f->iops, w->review_iops);
    rep_h_td_delta(s, f->lat_us, w->review_lat_us);
    g_string_append(s, "</tr>\n");
}

/* The guest's figures as the report names them: the load generator that
 * ran in the VM (results.json's loadgen; older files do not say which). */
char *rep_guest_label(const NvmResWork *w)
{
    return w->loadgen ? g_strdup_printf("guest (%s in the VM)", w->loadgen)
                      : g_strdup("guest (in the VM)");
}

/* The load generators of @r's workloads, "a and b", or NULL: none said. */
static char *loadgens(const NvmResults *r)
{
    g_autoptr(GPtrArray) seen = g_ptr_array_new();
    GString *s = g_string_new(NULL);

    for (guint i = 0; i < r->works->len; i++) {
        const NvmResWork *w = g_ptr_array_index(r->works, i);

        if (w->loadgen && !g_ptr_array_find_with_equal_func(seen, w->loadgen,
                                                            g_str_equal,
                                                            NULL)) {
            g_ptr_array_add(seen, w->loadgen);
        }
    }
    for (guint i = 0; i < seen->len; i++) {
        g_string_append_printf(s, "%s%s", !i ? "" : i + 1 < seen->len ?
                               ", " : " and ", (char *)seen->pdata[i]);
    }
    return g_string_free(s, !seen->len);
}

/*
 * Real time: how late the device posted the point's completions, and a
 * badge when that is more than 10 % of its latency (docs/realtime.md).
 */
static void h_late(GString *s, const NvmResults *r, const NvmResPoint *p)
{
    if (g_strcmp0(r->run_mode, "realtime") || isnan(p->host_late_p99_us)) {
        return;
    }
    if (p->timing_limited > 0) {
        g_string_append(s, " <span class=\"badge lim\" title=\"the device "
                           "posted completions late by more than 10 % of "
                           "its mean latency (p99)\">timing-limited</span>");
    }
    g_string_append(s, " <span class=\"note\">late ");
    if (!isnan(p->host_late_p50_us)) {
        rep_h_num(s, p->host_late_p50_us, 1);
        g_string_append(s, "/");
    }
    rep_h_num(s, p->host_late_p99_us, 1);
    g_string_append(s, "/");
    rep_h_num(s, p->host_late_max_us, 0);
    g_string_append_printf(s, " µs (%smax)</span>",
                           isnan(p->host_late_p50_us) ? "p99/" : "p50/p99/");
}

static void h_work(GString *s, const NvmResults *r, const NvmResWork *w)
{
    g_autofree char *sub = rep_work_subtitle(w);
    g_autofree char *alt = g_strdup_printf("%s, %s: average latency against "
                                           "IOPS", r->profile, w->name);
    unsigned n_lim = rep_count_pts(w->curve, false, 1);

    g_string_append_printf(s, "<section id=\"wl-%s\"><h2>", w->file);
    rep_h_esc(s, sub);
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
        rep_h_esc(s, w->mix_jobfile);
        g_string_append(s, "; the device's percentiles are per command "
                           "class and are not merged for a mix.</p>\n");
    }
    rep_h_chart(s, r->dir, w->file, alt);

    g_string_append(s, "<h3>Peak (unthrottled)</h3><table><thead><tr>"
                       "<th>source</th><th>IOPS</th><th>MB/s</th>"
                       "<th>avg lat µs</th><th>p99 µs</th>"
                       "<th>IOPS vs review</th><th>lat vs review</th>"
                       "</tr></thead><tbody>\n");
    if (!isnan(w->review_iops)) {
        g_string_append(s, "<tr class=\"review\"><td>review");
        if (w->review_src && strcmp(w->review_src, "results.json")) {
            g_string_append(s, " <span class=\"badge lim\">");
            rep_h_esc(s, w->review_src);
            g_string_append(s, "</span>");
        }
        g_string_append(s, "</td>");
        rep_h_td(s, w->review_iops, 0);
        rep_h_td(s, w->block_bytes > 0 ? w->review_iops * w->block_bytes / 1e6
                                   : NAN, 1);
        rep_h_td(s, w->review_lat_us, 1);
        g_string_append(s, "<td>–</td><td></td><td></td></tr>\n");
    }
    if (w->has_sim_peak) {
        h_peak_row(s, r->qtest ? "device (nvmimic qtest)" :
                   "model (nvmimic sim)", "", &w->sim_peak.fig, w, false);
    }
    if (r->guest && w->has_peak) {
        g_autofree char *label = rep_guest_label(w);
        g_autofree char *esc = g_markup_escape_text(label, -1);

        h_peak_row(s, esc, "", &w->peak.fig, w, w->peak.host_limited > 0);
        if (!isnan(w->peak.host.lat_us)) {
            NvmFig host = w->peak.host;

            host.mbps = w->block_bytes > 0 ?
                        host.iops * w->block_bytes / 1e6 : NAN;
            h_peak_row(s, "device (host view)", "", &host, w, false);
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
        const NvmResPoint *p = &g_array_index(w->curve, NvmResPoint, i);
        const NvmResPoint *sp = nvm_res_sim_at(w, p->target_pct);
        bool lim = p->host_limited > 0;

        g_string_append_printf(s, "<tr%s><td>%d %%</td>",
                               lim ? " class=\"limited\"" : "",
                               p->target_pct);
        rep_h_td(s, p->target_iops, 0);
        if (!r->guest) {
            rep_h_td(s, p->fig.iops, 0);
            rep_h_td(s, p->fig.mbps, 1);
            rep_h_td(s, p->fig.lat_us, 1);
            rep_h_td(s, p->fig.p50_us, 1);
            rep_h_td(s, p->fig.p99_us, 1);
            rep_h_td(s, p->fig.p999_us, 1);
            g_string_append(s, "</tr>\n");
            continue;
        }
        rep_h_td(s, p->fig.iops, 0);
        rep_h_td(s, p->fig.lat_us, 1);
        rep_h_td(s, p->fig.p99_us, 1);
        rep_h_td(s, p->host.lat_us, 1);
        rep_h_td(s, p->host.p99_us, 1);
        g_string_append(s, "<td class=\"over\">");
        rep_h_num(s, p->fig.lat_us - p->host.lat_us, 1);
        g_string_append(s, "</td>");
        rep_h_td(s, sp ? sp->fig.iops : NAN, 0);
        rep_h_td(s, sp ? sp->fig.lat_us : NAN, 1);
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
        h_late(s, r, p);
        g_string_append(s, "</td></tr>\n");
    }
    if (!w->curve->len) {
        g_string_append(s, "<tr><td colspan=\"11\">no curve points in "
                           "results.json</td></tr>\n");
    }
    g_string_append(s, "</tbody></table>\n");
    if (r->guest && r->complete == 0 && w->curve->len &&
        w->curve->len < NVM_CURVE_POINTS) {
        const NvmResPoint *last = &g_array_index(w->curve, NvmResPoint,
                                            w->curve->len - 1);

        g_string_append_printf(s, "<p class=\"note\">The run stopped after "
                               "the %d %% point; the rest of this curve is "
                               "missing.</p>\n", last->target_pct);
    }
    g_string_append(s, "</section>\n");
}

/* One row per workload: the peaks side by side. */
static void h_summary(GString *s, const NvmResults *r)
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
        const NvmResWork *w = g_ptr_array_index(r->works, i);

        g_string_append_printf(s, "<tr><td><a href=\"#wl-%s\">", w->file);
        rep_h_esc(s, w->name);
        g_string_append(s, "</a></td>");
        rep_h_td(s, w->review_iops, 0);
        rep_h_td(s, w->review_lat_us, 1);
        rep_h_td(s, w->has_sim_peak ? w->sim_peak.fig.iops : NAN, 0);
        rep_h_td(s, w->has_sim_peak ? w->sim_peak.fig.lat_us : NAN, 1);
        rep_h_td_delta(s, w->has_sim_peak ? w->sim_peak.fig.iops : NAN,
                       w->review_iops);
        if (r->guest) {
            rep_h_td(s, w->has_peak ? w->peak.fig.iops : NAN, 0);
            rep_h_td(s, w->has_peak ? w->peak.fig.lat_us : NAN, 1);
            if (w->has_peak && w->peak.host_limited > 0) {
                g_string_append(s, "<td><span class=\"badge lim\">"
                                   "host-limited</span></td>");
            } else {
                rep_h_td_delta(s, w->has_peak ? w->peak.fig.iops : NAN,
                               w->review_iops);
            }
            rep_h_td(s, w->has_peak ? w->peak.fig.lat_us - w->peak.host.lat_us
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

static void h_works(GString *s, const NvmResults *r)
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
        rep_str_index(order, g_ptr_array_index(r->suites, i));
    }
    for (guint i = 0; i < r->works->len; i++) {
        rep_str_index(order, rep_work_suite(g_ptr_array_index(r->works, i)));
    }
    for (guint k = 0; k < order->len; k++) {
        const char *suite = g_ptr_array_index(order, k);
        g_autofree char *id = nvm_res_safe_name(suite);
        bool head = false;

        for (guint i = 0; i < r->works->len; i++) {
            const NvmResWork *w = g_ptr_array_index(r->works, i);

            if (strcmp(rep_work_suite(w), suite)) {
                continue;
            }
            if (!head) {
                g_string_append_printf(s, "<h2 class=\"suite\" "
                                       "id=\"suite-%s\">", id);
                rep_h_esc(s, rep_suite_label(suite));
                g_string_append(s, "</h2>\n");
                head = true;
            }
            h_work(s, r, w);
        }
    }
}

char *rep_now_string(void)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_local();

    return g_date_time_format(now, "%Y-%m-%d %H:%M %Z");
}

/* report --baseline: what moved since the baseline run. */
static void h_baseline(GString *s, const RepBaseline *base)
{
    g_string_append_printf(s, "<section id=\"baseline\"><h2>Since the "
                           "baseline %s</h2><p>Baseline: <code>",
                           base->moved ? "<span class=\"badge warn\">"
                           "changed</span>" : "<span class=\"badge ok\">"
                           "unchanged</span>");
    rep_h_esc(s, base->run->dir);
    g_string_append_printf(s, "</code>. Its curves are drawn beside this "
                           "run's (grey). %d figure%s moved; in simulated "
                           "time any move is the stack's, not the host's "
                           "(<code>nvmimic diff</code>):</p>\n<pre>",
                           base->moved, base->moved == 1 ? "" : "s");
    rep_h_esc(s, base->diff);
    g_string_append(s, "</pre></section>\n");
}

static bool write_html(const NvmResults *r, const RepBaseline *base,
                       GError **errp)
{
    g_autofree char *path = g_build_filename(r->dir, "report.html", NULL);
    g_autofree char *title = g_strdup_printf("nvmimic report: %s",
                                             r->profile);
    g_autofree char *rendered = rep_now_string();
    g_autofree char *gens = loadgens(r);
    g_autofree char *guest = g_strdup_printf(
        "Guest run: %s inside a QEMU VM against the emulated drive, beside "
        "the model alone and the review.", gens ? gens : "a load generator");
    g_autofree char *guest_esc = g_markup_escape_text(guest, -1);
    g_autoptr(GString) s = g_string_new(NULL);
    char buf[64];

    rep_h_head(s, title, r->suites || r->apps->len ? rep_css_apps : NULL);
    g_string_append(s, "<header><h1>");
    rep_h_esc(s, r->profile);
    g_string_append(s, " — ");
    rep_h_esc(s, r->suite ? r->suite : "results");
    g_string_append_printf(s, " %s</h1><div class=\"sub\">%s</div>"
                           "<dl class=\"meta\">", status_badge(r),
                           r->guest ? guest_esc : r->qtest ?
                           "The emulated drive with no guest (nvmimic "
                           "qtest: QEMU under qtest, virtual time), beside "
                           "the review." :
                           "Model only (nvmimic sim, simulated time), "
                           "beside the review.");
    rep_h_meta(s, "profile", r->profile);
    rep_h_meta(s, "mode", r->mode);
    if (r->guest) {
        rep_h_meta(s, "run mode", r->run_mode);
    }
    rep_h_meta(s, "threads", r->threads_mode);
    if (r->suites) {
        g_autoptr(GString) all = g_string_new(NULL);

        for (guint i = 0; i < r->suites->len; i++) {
            g_string_append_printf(all, "%s%s", i ? ", " : "",
                                   (char *)g_ptr_array_index(r->suites, i));
        }
        rep_h_meta(s, "suites", all->str);
    }
    if (!isnan(r->seed)) {
        g_snprintf(buf, sizeof(buf), "%.0f", r->seed);
        rep_h_meta(s, "seed", buf);
    }
    if (!isnan(r->duration_s)) {
        g_snprintf(buf, sizeof(buf), "%g s", r->duration_s);
        rep_h_meta(s, "per point", buf);
    }
    if (r->accel) {
        rep_h_meta(s, "accelerator", r->accel);
    }
    if (r->precondition) {
        rep_h_meta(s, "precondition", r->precondition);
    }
    rep_h_meta(s, "date", r->date);
    if (!isnan(r->wall_s)) {
        g_snprintf(buf, sizeof(buf), "%.0f s", r->wall_s);
        rep_h_meta(s, "wall time", buf);
    }
    rep_h_meta(s, "status", r->complete > 0 ? "complete" :
                        r->complete == 0 ? "partial" : "unknown");
    g_string_append(s, "</dl></header>\n<main>\n");
    if (r->complete == 0) {
        g_string_append(s, "<section><p class=\"note\"><span class=\"badge "
                           "warn\">partial</span> This run did not finish: "
                           "the figures below are what it gathered before "
                           "it stopped.");
        if (r->failed_point || r->error) {
            g_string_append(s, " Failed at ");
            rep_h_esc(s, r->failed_point ? r->failed_point : "?");
            g_string_append(s, r->error ? ": " : ".");
            rep_h_esc(s, r->error);
        }
        g_string_append(s, "</p></section>\n");
    }
    if (base) {
        h_baseline(s, base);
    }
    if (r->works->len) {
        h_summary(s, r);
    } else if (!r->apps->len) {
        g_string_append(s, "<section><p>No workloads in results.json."
                           "</p></section>\n");
    }
    if (r->apps->len) {
        rep_h_apps_summary(s, r);
    }
    h_works(s, r);
    if (r->apps->len) {
        g_string_append(s, "<h2 class=\"suite\" id=\"apps\">"
                           "Applications</h2>\n");
    }
    for (guint i = 0; i < r->apps->len; i++) {
        rep_h_app(s, r, g_ptr_array_index(r->apps, i));
    }
    g_string_append_printf(s, "</main><footer>Rendered by nvmimic report "
                           "from results.json on %s · results.csv beside "
                           "this file has every point.</footer>\n"
                           "</body></html>\n", rendered);
    return g_file_set_contents(path, s->str, s->len, errp);
}

bool nvm_report_render(const char *dir, const char *reviews_tsv,
                       const char *baseline, GError **errp)
{
    g_autoptr(NvmResults) r = nvm_results_load(dir, reviews_tsv, errp);
    g_autoptr(NvmResults) brun = NULL;
    g_autoptr(GString) bdiff = g_string_new(NULL);
    RepBaseline b = { 0 };

    if (!r || !nvm_results_save_csv(r, r->dir, errp)) {
        return false;
    }
    if (baseline) {
        brun = nvm_results_load(baseline, reviews_tsv, errp);
        if (!brun) {
            g_prefix_error(errp, "--baseline: ");
            return false;
        }
        b.moved = (int)rep_diff_results(brun, r, 0, false, bdiff);
        b.run = brun;
        b.diff = bdiff->str;
    }
    for (guint i = 0; i < r->works->len; i++) {
        if (!rep_chart_one(r, g_ptr_array_index(r->works, i),
                           baseline ? &b : NULL, errp)) {
            return false;
        }
    }
    for (guint i = 0; i < r->apps->len; i++) {
        if (!rep_chart_app(r, g_ptr_array_index(r->apps, i), errp)) {
            return false;
        }
    }
    return write_html(r, baseline ? &b : NULL, errp);
}
