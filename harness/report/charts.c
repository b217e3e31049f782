/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report: the charts, drawn by gnuplot in PNG and SVG.  The reviews'
 * chart per workload (average latency against IOPS: guest, device, model,
 * the review's peak) and a bar chart per application suite.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "report-int.h"

const char *const rep_palette[N_PALETTE] = {
    "#1f5fa8", "#c2571a", "#2e8b57", "#8e44ad", "#b8860b", "#17a2b8",
    "#d6336c", "#555555",
};

/* A gnuplot single-quoted string: only ' needs escaping (doubled). */
void rep_gp_str(GString *s, const char *v)
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

static bool gp_ok(const NvmResPoint *p, bool host)
{
    return host ? !isnan(p->host.lat_us) &&
                  !isnan(isnan(p->host.iops) ? p->fig.iops : p->host.iops)
                : !isnan(p->fig.iops) && !isnan(p->fig.lat_us);
}

/* The axes, grid and key; the same look for every chart. */
void rep_gp_frame(GString *s, const char *title)
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
    rep_gp_str(s, title);
    g_string_append(s, " font ',14'\n");
}

/* Draw @plot into @base.png (pngcairo where it exists, else libgd's png)
 * and @base.svg; the terminal is chosen by gnuplot itself at run time. */
void rep_gp_outputs(GString *s, const char *base, const char *plot)
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
    rep_gp_str(s, png);
    g_string_append_printf(s, "\n%s\nset output\n", plot);
    g_string_append_printf(s, "set terminal svg size %d,%d noenhanced "
                           "font 'DejaVu Sans,12' background rgb 'white'\n",
                           GP_W, GP_H);
    g_string_append(s, "set output ");
    rep_gp_str(s, svg);
    g_string_append_printf(s, "\n%s\nset output\n", plot);
}

bool nvm_report_lines_svg(const char *svg_path, const char *title,
                          const char *xlabel, const char *ylabel, bool log_y,
                          const double *x, unsigned n_x,
                          const char *const *names, const double *y,
                          unsigned n_series, GError **errp)
{
    g_autoptr(GString) s = g_string_new(NULL);

    rep_gp_frame(s, title);
    g_string_append(s, "set xlabel ");
    rep_gp_str(s, xlabel);
    g_string_append(s, "\nset ylabel ");
    rep_gp_str(s, ylabel);
    g_string_append_printf(s, "\nset format x '%%g'\nset format y "
                           "'%%.0s%%c'\nset xrange [%g:%g]\n", x[0],
                           x[n_x - 1]);
    if (log_y) {
        g_string_append(s, "set logscale y\nset yrange [*:*]\n"
                           "set offsets 0, 0, 0, 0\n");
    }
    g_string_append(s, "set key outside right top vertical Right noreverse "
                       "box ls 100 samplen 2 spacing 1.2 width 1\n");
    for (unsigned k = 0; k < n_series; k++) {
        g_string_append_printf(s, "$s%u << EOD\n", k);
        for (unsigned i = 0; i < n_x; i++) {
            g_string_append_printf(s, "%g %.1f\n", x[i], y[k * n_x + i]);
        }
        g_string_append(s, "EOD\n");
    }
    g_string_append_printf(s, "set terminal svg size %d,%d noenhanced "
                           "font 'DejaVu Sans,12' background rgb 'white'\n"
                           "set output ", GP_W, GP_H);
    rep_gp_str(s, svg_path);
    g_string_append(s, "\nplot ");
    for (unsigned k = 0; k < n_series; k++) {
        g_string_append_printf(s, "%s$s%u using 1:2 with linespoints lw 2 "
                               "pt 7 ps 0.7 lc rgb '%s' title ", k ? ", " : "",
                               k, rep_palette[k % N_PALETTE]);
        rep_gp_str(s, names[k]);
    }
    g_string_append(s, "\nset output\n");
    return rep_gnuplot_run(s->str, title, errp);
}

bool rep_gnuplot_run(const char *script, const char *what, GError **errp)
{
    g_autofree char *gp = g_find_program_in_path("gnuplot");
    g_autofree char *tmp = NULL;
    g_autofree char *err_out = NULL;
    g_autoptr(GError) err = NULL;
    int fd, status;
    char *argv[3];
    bool ok;

    if (!gp) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "gnuplot not found in PATH "
                    "(Debian package gnuplot-nox; make deps installs it)");
        return false;
    }
    fd = g_file_open_tmp("nvmimic-XXXXXX.gp", &tmp, &err);
    if (fd < 0) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s", err->message);
        return false;
    }
    close(fd);
    if (!g_file_set_contents(tmp, script, -1, &err)) {
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "%s", err->message);
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
        g_set_error(errp, NVM_RESULTS_ERROR, 1, "gnuplot failed drawing %s: %s",
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
void rep_gp_review(GString *data, GString *plot, GString *labels,
                   const NvmResWork *w, const char *color, const char *tag,
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

void rep_gp_block(GString *data, const char *name, GArray *c, bool host,
                  int want_limited)
{
    g_string_append_printf(data, "$%s << EOD\n", name);
    for (guint i = 0; c && i < c->len; i++) {
        const NvmResPoint *p = &g_array_index(c, NvmResPoint, i);
        bool lim = p->host_limited > 0;

        if (!gp_ok(p, host) || (want_limited >= 0 && lim != want_limited)) {
            continue;
        }
        if (host) {
            g_string_append_printf(data, "%.1f %.2f %d\n",
                                   isnan(p->host.iops) ? p->fig.iops
                                                       : p->host.iops,
                                   p->host.lat_us, p->target_pct);
        } else {
            g_string_append_printf(data, "%.1f %.2f %d\n", p->fig.iops,
                                   p->fig.lat_us, p->target_pct);
        }
    }
    g_string_append(data, "EOD\n");
}

unsigned rep_count_pts(GArray *c, bool host, int want_limited)
{
    unsigned n = 0;

    for (guint i = 0; c && i < c->len; i++) {
        const NvmResPoint *p = &g_array_index(c, NvmResPoint, i);

        n += gp_ok(p, host) &&
             (want_limited < 0 || (p->host_limited > 0) == want_limited);
    }
    return n;
}

char *rep_work_subtitle(const NvmResWork *w)
{
    GString *s = g_string_new(w->name);

    if (w->threads > 0) {
        g_string_append_printf(s, ", %d outstanding", w->threads);
    }
    return g_string_free(s, FALSE);
}

/* The largest IOPS any series of @w puts on the chart. */
static double work_xmax(const NvmResWork *w)
{
    double m = isnan(w->review_iops) ? 0 : w->review_iops;
    GArray *cs[2] = { w->curve, w->sim_curve };

    for (unsigned c = 0; c < 2; c++) {
        for (guint i = 0; cs[c] && i < cs[c]->len; i++) {
            const NvmResPoint *p = &g_array_index(cs[c], NvmResPoint, i);

            m = isnan(p->fig.iops) ? m : MAX(m, p->fig.iops);
            m = isnan(p->host.iops) ? m : MAX(m, p->host.iops);
        }
    }
    return m;
}

/* report --baseline: the baseline's guest and device curves, in grey. */
static void gp_baseline(GString *data, GString *plot, const RepBaseline *base,
                        const NvmResWork *w)
{
    const NvmResWork *b = NULL;

    for (guint i = 0; i < base->run->works->len; i++) {
        const NvmResWork *x = g_ptr_array_index(base->run->works, i);

        if (!strcmp(x->name, w->name)) {
            b = x;
        }
    }
    if (!b) {
        return;
    }
    if (rep_count_pts(b->curve, true, -1)) {
        rep_gp_block(data, "bdevice", b->curve, true, -1);
        g_string_append_printf(plot, ", $bdevice using 1:2 with linespoints "
                               "dt 3 lw 1.5 pt 1 ps 0.9 lc rgb '%s' "
                               "title 'baseline device'", C_BASE_DEVICE);
    }
    if (rep_count_pts(b->curve, false, -1)) {
        rep_gp_block(data, "bguest", b->curve, false, -1);
        g_string_append_printf(plot, ", $bguest using 1:2 with linespoints "
                               "dt (4,3) lw 2.5 pt 6 ps 1.2 lc rgb '%s' "
                               "title 'baseline guest'", C_BASE_GUEST);
    }
}

bool rep_chart_one(const NvmResults *r, const NvmResWork *w,
                   const RepBaseline *baseline, GError **errp)
{
    g_autoptr(GString) s = g_string_new(NULL);
    g_autoptr(GString) data = g_string_new(NULL);
    g_autoptr(GString) plot = g_string_new(NULL);
    g_autoptr(GString) labels = g_string_new(NULL);
    g_autofree char *sub = rep_work_subtitle(w);
    g_autofree char *title = NULL;
    g_autofree char *base = g_build_filename(r->dir, w->file, NULL);
    unsigned n_guest = rep_count_pts(w->curve, false, 0);
    unsigned n_lim = rep_count_pts(w->curve, false, 1);

    title = g_strdup_printf("%s — %s%s%s", r->profile, sub,
                            r->guest ? " — guest, " :
                            r->qtest ? " — device (qtest)" : " — model",
                            r->guest ? (r->run_mode ? r->run_mode : "run")
                                     : "");
    rep_gp_frame(s, title);
    if (w->has_sim && rep_count_pts(w->sim_curve, false, -1)) {
        rep_gp_block(data, "model", w->sim_curve, false, -1);
        g_string_append_printf(plot, ", $model using 1:2 with linespoints "
                               "dt (8,5) lw 2 pt 7 ps 0.7 lc rgb '%s' "
                               "title '%s'", C_MODEL, r->qtest ?
                               "device (nvmimic qtest)" :
                               "model (nvmimic sim)");
    }
    if (r->guest && rep_count_pts(w->curve, true, -1)) {
        rep_gp_block(data, "device", w->curve, true, -1);
        g_string_append_printf(plot, ", $device using 1:2 with linespoints "
                               "dt 3 lw 1.5 pt 1 ps 0.9 lc rgb '%s' "
                               "title 'device (host view, QMP)'", C_DEVICE);
    }
    if (r->guest && n_guest) {
        g_autofree char *label = rep_guest_label(w);

        rep_gp_block(data, "guest", w->curve, false, 0);
        g_string_append_printf(plot, ", $guest using 1:2 with linespoints "
                               "lw 2.5 pt 7 ps 1.1 lc rgb '%s' title ",
                               C_GUEST);
        rep_gp_str(plot, label);
    }
    if (r->guest && n_lim) {
        const NvmResPoint *first = NULL;

        rep_gp_block(data, "limited", w->curve, false, 1);
        g_string_append_printf(plot, ", $limited using 1:2 with points "
                               "pt 6 ps 1.6 lw 1.5 lc rgb '%s' title "
                               "'guest, host-limited (not the drive''s "
                               "figure)'", C_LIMITED);
        for (guint i = 0; i < w->curve->len; i++) {
            const NvmResPoint *p = &g_array_index(w->curve, NvmResPoint, i);

            if (p->host_limited > 0 && gp_ok(p, false) &&
                (!first || p->fig.lat_us > first->fig.lat_us)) {
                first = p;
            }
        }
        if (first) {
            /* beside the point, on the side with room */
            bool right = first->fig.iops > 0.6 * work_xmax(w);

            g_string_append_printf(labels, "set label 'host-limited: %u "
                                   "point%s' at %.1f,%.2f %s offset "
                                   "%s,0.2 tc rgb '#777777' font ',10'\n",
                                   n_lim, n_lim == 1 ? "" : "s",
                                   first->fig.iops, first->fig.lat_us,
                                   right ? "right" : "left",
                                   right ? "-1.4" : "1.4");
        }
    }
    if (baseline) {
        gp_baseline(data, plot, baseline, w);
    }
    rep_gp_review(data, plot, labels, w, C_REVIEW, "", 0);
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
    rep_gp_outputs(s, base, plot->str);
    return rep_gnuplot_run(s->str, w->name, errp);
}

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
    rep_gp_str(s, ylabel);
    g_string_append(s, "\nset title ");
    rep_gp_str(s, title);
    g_string_append(s, " font ',14'\nset xtics (");
    for (unsigned c = 0; c < n_cats; c++) {
        g_string_append(s, c ? ", " : "");
        rep_gp_str(s, g_ptr_array_index(cats, c));
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
                               j, rep_palette[j % N_PALETTE]);
        rep_gp_str(plot, g_ptr_array_index(series, j));
        g_string_append_printf(plot, ", $bar%u using 1:2:(sprintf(", j);
        rep_gp_str(plot, fmt);
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
    rep_gp_outputs(s, base, plot->str);
    return rep_gnuplot_run(s->str, title, errp);
}

/* The index of @v in @a (strings), appended when missing. */
unsigned rep_str_index(GPtrArray *a, const char *v)
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
static bool chart_seq(const NvmResults *r, NvmResApp *a, const char *base,
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
        const NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);
        g_autofree char *cat = isnan(st->qd) ? g_strdup(st->name)
                               : g_strdup_printf("QD %.0f", st->qd);
        unsigned c = rep_str_index(cats, cat);
        unsigned j = rep_str_index(series, st->rw ? st->rw : st->name);

        g_array_append_val(idx, c);
        g_array_append_val(idx, j);
    }
    vals = g_new(double, cats->len * series->len);
    for (guint i = 0; i < cats->len * series->len; i++) {
        vals[i] = NAN;
    }
    for (guint i = 0; i < a->steps->len; i++) {
        const NvmResStep *st = &g_array_index(a->steps, NvmResStep, i);
        unsigned c = g_array_index(idx, unsigned, 2 * i);
        unsigned j = g_array_index(idx, unsigned, 2 * i + 1);

        vals[c * series->len + j] = st->gbps;
    }
    a->charted = true;
    return gp_bars(base, title, "GB/s (10^9 bytes/s)", cats, series, vals,
                   "%.2f", errp);
}

/* render: seconds per phase. */
static bool chart_render(const NvmResults *r, NvmResApp *a, const char *base,
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
static bool chart_sql(const NvmResults *r, NvmResApp *a, const char *base,
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
    for (unsigned k = 0; k <= NVM_RES_TXNS; k++) {
        const NvmResTxn *x = k < NVM_RES_TXNS ? &a->txn[k] : &a->overall;
        double v[3] = { x->avg_ms, x->p95_ms, x->p99_ms };

        if (!x->has) {
            continue;
        }
        g_ptr_array_add(cats, (gpointer)(k < NVM_RES_TXNS ? nvm_res_txn_key[k]
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

bool rep_chart_app(const NvmResults *r, NvmResApp *a, GError **errp)
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
