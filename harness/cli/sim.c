/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic sim (four corners, SLC cliff, VDI, trace replay) and nvmimic
 * trace2iolog: run the model in simulated time and print a table, or the
 * results as JSON (the one writer, results/), or a fio iolog.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "from-sim.h"
#include "report.h"
#include "trace.h"
#include "vdi.h"

#ifndef NVMIMIC_WORKLOAD_DIR
#define NVMIMIC_WORKLOAD_DIR "harness/workloads"
#endif

/* sim --out DIR: the results there (the one writer), then the report
 * beside them. */
static bool sim_write_out(const Opts *o, const NvmResults *res)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = g_build_filename(o->profile_dir, "reviews",
                                            "four-corners.tsv", NULL);

    if (g_mkdir_with_parents(o->out, 0755) < 0) {
        fprintf(stderr, "nvmimic: %s: %s\n", o->out, g_strerror(errno));
        return false;
    }
    if (!nvm_results_save(res, o->out, &err) ||
        !nvm_report_render(o->out, tsv, &err)) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
        return false;
    }
    return true;
}

/* sim --format json: the results on stdout, as results.json has them. */
static void print_json(const NvmResults *res)
{
    g_autofree char *text = nvm_results_to_json(res);

    printf("%s\n", text);
}

static int cmd_sim_four_corners(const NvmProfile *p, const Opts *o)
{
    NvmSimOptions so = {
        .seed = o->seed,
        .implied_threads = !strcmp(o->threads, "implied"),
        .duration_s = o->duration_s > 0 ? o->duration_s
                                        : o->quick ? 3.0 : 30.0,
    };
    NvmCornerResult res[NVM_FOUR_CORNERS];
    bool json = !strcmp(o->format, "json");

    nvm_sim_four_corners(p, &so, res);
    if (json || o->out) {
        g_autoptr(NvmResults) r = nvm_results_from_corners(p, &so,
                                                           o->threads, res);

        if (o->out && !sim_write_out(o, r)) {
            return 1;
        }
        if (json) {
            print_json(r);
            return 0;
        }
    }
    printf("%s: four corners, %s threads, seed %" G_GUINT64_FORMAT
           ", %g s per point\n", p->name, o->threads, so.seed,
           so.duration_s);
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        const NvmCornerResult *r = &res[w];

        printf("\n%s (%u outstanding)\n", r->wl.name, r->wl.threads);
        printf("  %-6s %10s %10s %9s %9s %9s\n", "load", "target", "iops",
               "MB/s", "lat_us", "p99_us");
        printf("  %-6s %10s %10.0f %9.1f %9.1f %9.1f\n", "peak", "-",
               r->peak.iops, r->peak.mbps, r->peak.lat_us, r->peak.p99_us);
        for (unsigned i = 0; i < r->n_curve; i++) {
            printf("  %4d %% %10.0f %10.0f %9.1f %9.1f %9.1f\n",
                   r->target_pct[i], r->target_iops[i], r->curve[i].iops,
                   r->curve[i].mbps, r->curve[i].lat_us,
                   r->curve[i].p99_us);
        }
    }
    if (o->out) {
        printf("\nreport: %s/report.html\n", o->out);
    }
    return 0;
}

static int cmd_sim_cliff(const NvmProfile *p, const Opts *o)
{
    double step = o->step_gb > 0 ? o->step_gb : 1.0;
    double idle = o->idle_s >= 0 ? o->idle_s : 600.0;
    double after = o->after_gb >= 0 ? o->after_gb : 100.0;
    GArray *pts = nvm_sim_slc_cliff(p, o->seed, step, idle, after);
    bool json = !strcmp(o->format, "json");

    if (json) {
        printf("{\"profile\": \"%s\", \"mode\": \"sim\", "
               "\"suite\": \"slc-cliff\", \"block_bytes\": 131072, "
               "\"outstanding\": 8, \"idle_s\": %g, \"points\": [", p->name,
               idle);
    } else {
        printf("%s: sequential 128K writes over the whole drive, then %g s "
               "idle, then %g GB more\n", p->name, idle, after);
        printf("%10s %9s %12s %12s %s\n", "GB", "MB/s", "slc_used_GB",
               "slc_size_GB", "phase");
    }
    for (unsigned i = 0; i < pts->len; i++) {
        NvmCliffPoint *pt = &g_array_index(pts, NvmCliffPoint, i);

        if (json) {
            printf("%s\n  {\"gb_written\": %.2f, \"mbps\": %.1f, "
                   "\"slc_used_gb\": %.2f, \"slc_size_gb\": %.2f, "
                   "\"after_idle\": %s}", i ? "," : "", pt->gb_written,
                   pt->mbps, pt->slc_used_gb, pt->slc_size_gb,
                   pt->after_idle ? "true" : "false");
        } else {
            printf("%10.1f %9.1f %12.2f %12.2f %s\n", pt->gb_written,
                   pt->mbps, pt->slc_used_gb, pt->slc_size_gb,
                   pt->after_idle ? "after-idle" : "fill");
        }
    }
    if (json) {
        printf("]}\n");
    }
    g_array_free(pts, TRUE);
    return 0;
}

static int cmd_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                       const char *workload_dir, bool json)
{
    g_autoptr(GError) err = NULL;
    NvmVdiResult res[NVM_VDI_WORKLOADS];

    if (!nvm_sim_vdi(p, o, workload_dir, res, &err)) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
        return 1;
    }
    if (json) {
        g_autoptr(NvmResults) r = nvm_results_from_vdi(p, o, res);

        print_json(r);
        nvm_vdi_results_clear(res);
        return 0;
    }

    printf("%s: VDI suite, seed %" G_GUINT64_FORMAT ", %g s per point "
           "(IOPS over the whole point, idle included)\n", p->name, o->seed,
           o->duration_s);
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        const NvmVdiResult *r = &res[w];
        const NvmMix *x = r->mix;

        printf("\n%s (%u outstanding, %g %% reads, mean block %.1f KiB, "
               "bursts %g ms on / %g ms idle; %s)\n", x->name,
               nvm_mix_outstanding(x), x->read_pct,
               nvm_mix_mean_block_bytes(x) / 1024, x->think_iotime_ns / 1e6,
               x->think_ns / 1e6, r->path);
        printf("  %-6s %10s %10s %9s %9s %9s %9s %9s\n", "load", "target",
               "iops", "MB/s", "lat_us", "p99_us", "rd_lat", "wr_lat");
        printf("  %-6s %10s %10.0f %9.1f %9.1f %9.1f %9.1f %9.1f\n", "peak",
               "-", r->peak.all.iops, r->peak.all.mbps, r->peak.all.lat_us,
               r->peak.all.p99_us, r->peak.cls[NVM_DIR_READ].lat_us,
               r->peak.cls[NVM_DIR_WRITE].lat_us);
        for (unsigned i = 0; i < r->n_curve; i++) {
            const NvmMixResult *c = &r->curve[i];

            printf("  %4d %% %10.0f %10.0f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
                   r->target_pct[i], r->target_iops[i], c->all.iops,
                   c->all.mbps, c->all.lat_us, c->all.p99_us,
                   c->cls[NVM_DIR_READ].lat_us, c->cls[NVM_DIR_WRITE].lat_us);
        }
    }
    nvm_vdi_results_clear(res);
    return 0;
}

static void json_class(GString *s, const NvmTraceClass *c, double secs)
{
    g_string_append_printf(s, "\"count\": %" G_GUINT64_FORMAT ", "
                           "\"iops\": %.1f, \"mbps\": %.2f, "
                           "\"lat_us\": %.2f, \"p50_us\": %.2f, "
                           "\"p99_us\": %.2f, \"p999_us\": %.2f, "
                           "\"max_us\": %.2f", c->count,
                           secs > 0 ? c->count / secs : 0,
                           secs > 0 ? c->bytes / secs / 1e6 : 0, c->mean_us,
                           c->p50_us, c->p99_us, c->p999_us, c->max_us);
}

static int cmd_sim_trace(const NvmProfile *p, const char *trace_path,
                         uint64_t seed, bool json)
{
    g_autoptr(GError) err = NULL;
    NvmTrace *t = nvm_trace_load(trace_path, &err);
    NvmTraceReplay r;

    if (!t || !nvm_trace_replay(t, p, seed, &r, &err)) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
        nvm_trace_free(t);
        return 1;
    }
    if (json) {
        GString *s = g_string_new(NULL);
        bool first = true;

        g_string_append_printf(s, "{\"profile\": \"%s\", \"mode\": \"sim\", "
                               "\"suite\": \"trace\", \"trace\": \"%s\", "
                               "\"captured_profile\": \"%s\", "
                               "\"seed\": %" G_GUINT64_FORMAT ", "
                               "\"commands\": %u, \"duration_s\": %.6f, "
                               "\"classes\": [", p->name, trace_path,
                               t->profile ? t->profile : "", seed,
                               t->cmds->len, r.duration_s);
        for (int o = 0; o < NVM_CLASS_COUNT; o++) {
            if (!r.model[o].count) {
                continue;
            }
            g_string_append_printf(s, "%s\n  {\"class\": \"%s\", ",
                                   first ? "" : ",", nvm_op_name(o));
            json_class(s, &r.model[o], r.duration_s);
            if (r.captured[o].count) {
                g_string_append(s, ", \"captured\": {");
                json_class(s, &r.captured[o], r.duration_s);
                g_string_append(s, "}");
            }
            g_string_append(s, "}");
            first = false;
        }
        g_string_append(s, "]}\n");
        fputs(s->str, stdout);
        g_string_free(s, TRUE);
    } else {
        printf("%s: trace %s (%u commands over %.3f s, captured on %s), "
               "replayed open loop at its own times\n", p->name, trace_path,
               t->cmds->len, r.duration_s, t->profile ? t->profile : "?");
        printf("  %-13s %8s %9s %9s %9s %9s %9s | %9s %9s\n", "class",
               "count", "MB/s", "lat_us", "p50_us", "p99_us", "max_us",
               "capt_lat", "capt_p99");
        for (int o = 0; o < NVM_CLASS_COUNT; o++) {
            const NvmTraceClass *c = &r.model[o];
            const NvmTraceClass *k = &r.captured[o];

            if (!c->count) {
                continue;
            }
            printf("  %-13s %8" G_GUINT64_FORMAT " %9.2f %9.1f %9.1f %9.1f "
                   "%9.1f | ", nvm_op_name(o), c->count,
                   r.duration_s > 0 ? c->bytes / r.duration_s / 1e6 : 0,
                   c->mean_us, c->p50_us, c->p99_us, c->max_us);
            if (k->count) {
                printf("%9.1f %9.1f\n", k->mean_us, k->p99_us);
            } else {
                printf("%9s %9s\n", "-", "-");
            }
        }
    }
    nvm_trace_free(t);
    return 0;
}

int cmd_sim(const Opts *o)
{
    NvmProfile *p;
    int rc;

    if (!o->profile) {
        return cli_usage_error("sim needs --profile NAME|PATH");
    }
    if (o->trace && o->suite) {
        return cli_usage_error("sim takes --suite or --trace, not both");
    }
    if (!o->suite && !o->trace) {
        return cli_usage_error("sim needs --suite four-corners|slc-cliff");
    }
    if (o->suite && strcmp(o->suite, "four-corners") &&
        strcmp(o->suite, "slc-cliff") && strcmp(o->suite, "vdi")) {
        return cli_usage_error("unknown suite '%s' (four-corners, slc-cliff, vdi)",
                         o->suite);
    }
    if (o->out && (!o->suite || strcmp(o->suite, "four-corners"))) {
        return cli_usage_error("--out is for --suite four-corners");
    }
    if (strcmp(o->format, "table") && strcmp(o->format, "json")) {
        return cli_usage_error("unknown format '%s' (table, json)", o->format);
    }
    if (strcmp(o->threads, "stated") && strcmp(o->threads, "implied")) {
        return cli_usage_error("--threads must be stated or implied, not '%s'",
                         o->threads);
    }
    p = cli_load_profile(o);
    if (!p) {
        return 1;
    }
    if (o->trace) {
        rc = cmd_sim_trace(p, o->trace, o->seed,
                               !strcmp(o->format, "json"));
    } else if (!strcmp(o->suite, "vdi")) {
        NvmSimOptions so = {
            .seed = o->seed,
            .duration_s = o->duration_s > 0 ? o->duration_s
                                            : o->quick ? 3.0 : 30.0,
        };
        const char *wd = g_getenv("NVMIMIC_WORKLOAD_DIR");

        rc = cmd_sim_vdi(p, &so, wd && *wd ? wd : NVMIMIC_WORKLOAD_DIR,
                             !strcmp(o->format, "json"));
    } else if (!strcmp(o->suite, "four-corners")) {
        rc = cmd_sim_four_corners(p, o);
    } else {
        rc = cmd_sim_cliff(p, o);
    }
    nvm_profile_free(p);
    return rc;
}

static int t2i_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "nvmimic: trace2iolog: %s%s%s (usage: nvmimic "
            "trace2iolog TRACE [--device DEV] [--job FILE] [--iolog-path "
            "PATH])\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

int cmd_trace2iolog(int argc, char **argv)
{
    g_autoptr(GError) err = NULL;
    const char *trace = NULL, *device = "/dev/nvme0n1", *job = NULL;
    const char *iolog_path = "trace.iolog";
    NvmTrace *t;
    GString *log;
    unsigned dropped, depth;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: nvmimic trace2iolog TRACE [--device DEV] "
                   "[--job FILE] [--iolog-path PATH]\n"
                   "  writes a fio iolog v3 of TRACE to stdout; --job also "
                   "writes a fio job\n  that replays it (read_iolog=PATH, "
                   "default trace.iolog) against DEV\n  (default "
                   "/dev/nvme0n1)\n");
            return 0;
        }
        if (!strncmp(a, "--", 2)) {
            if (i + 1 >= argc) {
                return t2i_usage("option needs a value:", a);
            }
            if (!strcmp(a, "--device")) {
                device = argv[++i];
            } else if (!strcmp(a, "--job")) {
                job = argv[++i];
            } else if (!strcmp(a, "--iolog-path")) {
                iolog_path = argv[++i];
            } else {
                return t2i_usage("unknown option", a);
            }
            continue;
        }
        if (trace) {
            return t2i_usage("one trace only, not also", a);
        }
        trace = a;
    }
    if (!trace) {
        return t2i_usage("needs a TRACE", NULL);
    }
    if (*device != '/' || strpbrk(device, " \t\n") ||
        strpbrk(iolog_path, " \t\n")) {
        return t2i_usage("--device must be an absolute path and paths "
                         "must not contain blanks:", device);
    }
    t = nvm_trace_load(trace, &err);
    if (!t) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
        return 1;
    }
    log = nvm_trace_to_iolog(t, device, &dropped);
    depth = nvm_trace_max_outstanding(t);
    fputs(log->str, stdout);
    g_string_free(log, TRUE);
    if (dropped) {
        fprintf(stderr, "nvmimic: trace2iolog: %u discard(s) left out (fio "
                "cannot replay trims from an iolog)\n", dropped);
    }
    if (job) {
        g_autofree char *text = g_strdup_printf(
            "; fio job replaying %s (nvmimic trace2iolog)\n"
            "; the iolog keeps the captured submission times (fio >= 3.31);\n"
            "; iodepth is the most commands the trace had in flight.\n"
            "[replay]\n"
            "ioengine=libaio\n"
            "direct=1\n"
            "iodepth=%u\n"
            "read_iolog=%s\n"
            "replay_redirect=%s\n",
            trace, depth ? MIN(depth, 1024) : 32, iolog_path, device);

        if (!g_file_set_contents(job, text, -1, &err)) {
            fprintf(stderr, "nvmimic: %s\n", err->message);
            nvm_trace_free(t);
            return 1;
        }
    }
    nvm_trace_free(t);
    return 0;
}
