/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: what a run prints as it goes: a point's progress line (on a
 * terminal, rewritten while the point runs), and the table of the curves
 * at the end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run-int.h"

void run_progress(Run *r, const char *wl, const Point *pt, double el,
                  double total, double iops, bool final)
{
    g_autofree char *what = pt->target_pct ?
        g_strdup_printf("%3d %%", pt->target_pct) : g_strdup("peak ");

    if (r->tty) {
        printf("\r\033[K%s %s %s  %5.1f/%.1f s  %8.0f IOPS%s", r->p->name, wl,
               what, el, total, iops, final ? "" : " so far");
        if (final) {
            printf("  lat %.1f us (device %.1f us)%s\n", pt->guest.lat_us,
                   pt->host.lat_us, pt->host_limited ? "  host-limited" : "");
        }
        fflush(stdout);
    } else if (final) {
        printf("%s %s %s: %.0f IOPS, lat %.1f us (device %.1f us)%s, "
               "%.1f s wall\n", r->p->name, wl, what, pt->guest.iops,
               pt->guest.lat_us, pt->host.lat_us,
               pt->host_limited ? ", host-limited" : "", pt->wall_s);
        fflush(stdout);
    }
}

void run_print_table(const Run *r)
{
    if (!r->n_wls) {
        return;
    }
    printf("\n%s: %s in a %s guest (%s), %g s per point\n", r->p->name,
           run_has_suite(r, S_FC) && run_has_suite(r, S_VDI) ?
           "four corners and VDI" : run_has_suite(r, S_VDI) ? "VDI" :
           "four corners", r->o.mode, r->accel ? r->accel : "?", r->o.run_s);
    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        printf("\n%s (%u outstanding)", wl->wl.name, wl->wl.threads);
        if (!isnan(wl->review_iops)) {
            printf("  review peak %.0f IOPS", wl->review_iops);
            if (!isnan(wl->review_lat_us)) {
                printf(" at %.1f us", wl->review_lat_us);
            }
        }
        printf("  model peak %.0f IOPS at %.1f us\n", wl->sim->peak.fig.iops,
               wl->sim->peak.fig.lat_us);
        printf("  %-6s %9s %9s %9s %9s %9s %9s %9s  %s\n", "load", "target",
               "iops", "MB/s", "lat_us", "p99_us", "dev_lat", "sim_lat",
               "note");
        for (int i = -1; i < (int)wl->n_curve; i++) {
            const Point *pt = i < 0 ? &wl->peak : &wl->curve[i];
            char load[16], sim[16], target[16], note[48] = "";

            if (!pt->done) {
                continue;
            }
            if (pt->target_pct) {
                snprintf(load, sizeof(load), "%4d %%", pt->target_pct);
            } else {
                snprintf(load, sizeof(load), "peak");
            }
            if (isnan(pt->sim_lat_us)) {
                snprintf(sim, sizeof(sim), "-");
            } else {
                snprintf(sim, sizeof(sim), "%.1f", pt->sim_lat_us);
            }
            snprintf(target, sizeof(target), pt->target_pct ? "%.0f" : "-",
                     pt->target_iops);
            if (pt->host_limited && !strcmp(pt->limit, "rate")) {
                snprintf(note, sizeof(note), "host-limited (%.0f %% short)",
                         pt->shortfall_pct);
            } else if (pt->host_limited) {
                snprintf(note, sizeof(note), "host-limited (guest CPU)");
            }
            printf("  %-6s %9s %9.0f %9.1f %9.1f %9.1f %9.1f %9s  %s\n",
                   load, target, pt->guest.iops, pt->guest.mbps,
                   pt->guest.lat_us, pt->guest.p99_us, pt->host.lat_us, sim,
                   note);
        }
    }
    printf("\n");
}
