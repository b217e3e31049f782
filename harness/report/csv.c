/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report: results.csv, a row per curve point, from the report's
 * model.
 */
#include <math.h>
#include <string.h>

#include "report-int.h"

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
bool rep_write_csv(const RRun *r, GError **errp)
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

            csv_row(s, r, wk, p, rep_sim_at(wk, p->target_pct));
        }
    }
    return g_file_set_contents(path, s->str, s->len, errp);
}
