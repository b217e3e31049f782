/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic sim (four corners, SLC cliff, VDI, mix sweep, trace replay) and
 * nvmimic
 * trace2iolog: run the model in simulated time and print a table, or the
 * results as JSON (the one writer, results/), or a fio iolog.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "from-sim.h"
#include "mixsweep.h"
#include "paths.h"
#include "report.h"
#include "trace.h"
#include "vdi.h"

/* sim --out DIR: the results there (the one writer), then the report
 * beside them. */
static bool sim_write_out(const Opts *o, const NvmResults *res)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = g_build_filename(o->profile_dir, "reviews",
                                            "four-corners.tsv", NULL);

    if (g_mkdir_with_parents(o->out, 0755) < 0) {
        fprintf(stderr, "nvmimic sim: %s: %s\n", o->out, g_strerror(errno));
        return false;
    }
    if (!nvm_results_save(res, o->out, &err) ||
        !nvm_report_render(o->out, tsv, NULL, &err)) {
        fprintf(stderr, "nvmimic sim: %s\n", err->message);
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
        .duration_s = o->duration_s,
    };
    NvmCornerResult res[NVM_FOUR_CORNERS];
    bool json = !strcmp(o->format, "json");

    nvm_sim_four_corners(p, &so, res);
    if (json || o->out) {
        g_autoptr(NvmResults) r = nvm_results_from_corners(
            p, &so, o->threads, res, NVM_FOUR_CORNERS);

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
               r->peak.fig.iops, r->peak.fig.mbps, r->peak.fig.lat_us,
               r->peak.fig.p99_us);
        for (unsigned i = 0; i < r->n_curve; i++) {
            printf("  %4d %% %10.0f %10.0f %9.1f %9.1f %9.1f\n",
                   r->target_pct[i], r->target_iops[i], r->curve[i].fig.iops,
                   r->curve[i].fig.mbps, r->curve[i].fig.lat_us,
                   r->curve[i].fig.p99_us);
        }
    }
    if (o->out) {
        printf("\nreport: %s/report.html\n", o->out);
    }
    return 0;
}

static int cmd_sim_cliff(const NvmProfile *p, const Opts *o)
{
    NvmCliffSpec spec = {
        .seed = o->seed, .step_gb = o->step_gb, .idle_s = o->idle_s,
        .after_gb = o->after_gb, .block_bytes = o->block_bytes,
        .outstanding = o->outstanding,
    };
    GArray *pts;
    bool json = !strcmp(o->format, "json");

    if (o->block_bytes % p->lba_bytes) {
        fprintf(stderr, "nvmimic sim: --block-size %u is not a multiple of "
                "%s's %u-byte blocks\n", o->block_bytes, p->name,
                p->lba_bytes);
        return 2;
    }
    pts = nvm_sim_slc_cliff_run(p, &spec);
    if (json) {
        printf("{\"profile\": \"%s\", \"mode\": \"sim\", "
               "\"suite\": \"slc-cliff\", \"block_bytes\": %u, "
               "\"outstanding\": %u, \"idle_s\": %g, \"points\": [",
               p->name, o->block_bytes, o->outstanding, o->idle_s);
    } else {
        printf("%s: sequential %u KiB writes, %u outstanding, over the "
               "whole empty drive, then %g s idle, then %g GB more\n",
               p->name, o->block_bytes / 1024, o->outstanding, o->idle_s,
               o->after_gb);
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

/* sim --suite point: one closed-loop run, as validate times a figure. */
static int cmd_sim_point(const NvmProfile *p, const Opts *o)
{
    NvmWorkload wl = {
        "point", !strcmp(o->op, "read") ? NVM_OP_READ : NVM_OP_WRITE,
        o->block_bytes, !strcmp(o->pattern, "seq"), o->outstanding,
    };
    bool review = !strcmp(o->state, "review");
    NvmRunResult r;

    if (o->block_bytes % p->lba_bytes) {
        fprintf(stderr, "nvmimic sim: --block-size %u is not a multiple of "
                "%s's %u-byte blocks\n", o->block_bytes, p->name,
                p->lba_bytes);
        return 2;
    }
    if (!review && o->span_gb * 1e9 > p->capacity_bytes) {
        fprintf(stderr, "nvmimic sim: --span-gb %g is more than %s's %.0f "
                "GB\n", o->span_gb, p->name, p->capacity_bytes / 1e9);
        return 2;
    }
    nvm_sim_figure_run_for(p, &wl, review, o->span_gb, 0.5, o->duration_s,
                           &r);
    printf("%s: %u KiB %s %s, %u outstanding, %s, 0.5 s warm-up + %g s\n",
           p->name, o->block_bytes / 1024, o->pattern, o->op, o->outstanding,
           review ? "the review's state" : "secure-erased", o->duration_s);
    printf("iops %.1f mbps %.2f lat_us %.2f p99_us %.2f\n", r.fig.iops,
           r.fig.mbps, r.fig.lat_us, r.fig.p99_us);
    return 0;
}

static void json_split(GString *s, const NvmBsSplit *b)
{
    g_string_append(s, "[");
    for (unsigned i = 0; i < b->n; i++) {
        g_string_append_printf(s, "%s{\"bytes\": %u, \"pct\": %g}",
                               i ? ", " : "", b->bytes[i], b->pct[i]);
    }
    g_string_append(s, "]");
}

/* sim --suite mix --format json: every point's figures, reads and writes
 * apart (docs/sim.md). */
static void print_sweep_json(const NvmProfile *p, const NvmSweep *sw)
{
    GString *s = g_string_new(NULL);

    g_string_append_printf(s, "{\"profile\": \"%s\", \"mode\": \"sim\", "
                           "\"suite\": \"mix\", \"seed\": %" G_GUINT64_FORMAT
                           ", \"duration_s\": %g, \"warmup_s\": %g, "
                           "\"state\": \"review\", \"random_pct\": 100, "
                           "\"sizes\": [", p->name, sw->seed, sw->duration_s,
                           sw->warmup_s);
    for (unsigned z = 0; z < NVM_SWEEP_SIZES; z++) {
        g_string_append_printf(s, "%s\n {\"name\": \"%s\", "
                               "\"description\": \"%s\", \"read_sizes\": ",
                               z ? "," : "", sw->size_name[z],
                               sw->size_desc[z]);
        json_split(s, &sw->bs[z][NVM_DIR_READ]);
        g_string_append(s, ", \"write_sizes\": ");
        json_split(s, &sw->bs[z][NVM_DIR_WRITE]);
        g_string_append(s, ", \"points\": [");
        for (unsigned d = 0; d < sw->n_depths; d++) {
            for (unsigned i = 0; i < NVM_SWEEP_SHARES; i++) {
                const NvmMixResult *r = &sw->r[z][d][i];
                const NvmFig *a = &r->all.fig;

                g_string_append_printf(
                    s, "%s\n  {\"outstanding\": %u, \"read_pct\": %g, "
                    "\"iops\": %.1f, \"mbps\": %.2f, \"lat_us\": %.2f, "
                    "\"p99_us\": %.2f, \"read_iops\": %.1f, "
                    "\"read_lat_us\": %.2f, \"write_iops\": %.1f, "
                    "\"write_lat_us\": %.2f, \"die_busy\": %.4f}",
                    d || i ? "," : "",
                    sw->depth[d], sw->read_pct[i], a->iops, a->mbps,
                    a->lat_us, a->p99_us, r->cls[NVM_DIR_READ].fig.iops,
                    r->cls[NVM_DIR_READ].fig.lat_us,
                    r->cls[NVM_DIR_WRITE].fig.iops,
                    r->cls[NVM_DIR_WRITE].fig.lat_us, r->die_busy);
            }
        }
        g_string_append(s, "]}");
    }
    g_string_append(s, "]}\n");
    fputs(s->str, stdout);
    g_string_free(s, TRUE);
}

/*
 * sim --suite mix: per size mix, IOPS by read share (columns) and
 * outstanding count (rows), and where each row's dip is.
 */
static int cmd_sim_mix(const NvmProfile *p, const Opts *o,
                       const unsigned *depth, unsigned n_depths)
{
    g_autoptr(GError) err = NULL;
    NvmSimOptions so = { .seed = o->seed, .duration_s = o->duration_s };
    NvmSweep *sw = g_new0(NvmSweep, 1);

    if (!nvm_sim_mix_sweep(p, &so, depth, n_depths, nvm_path_workloads(),
                           sw, &err)) {
        fprintf(stderr, "nvmimic sim: %s\n", err->message);
        g_free(sw);
        return 1;
    }
    if (!strcmp(o->format, "json")) {
        print_sweep_json(p, sw);
        nvm_sweep_clear(sw);
        g_free(sw);
        return 0;
    }
    printf("%s: mixed random I/O, closed loop from the review's state, "
           "seed %" G_GUINT64_FORMAT ", %g s per point after %g s of "
           "warm-up\n", p->name, sw->seed, sw->duration_s, sw->warmup_s);
    for (unsigned z = 0; z < NVM_SWEEP_SIZES; z++) {
        printf("\n%s: IOPS by read share (columns) and outstanding I/Os "
               "(rows); the lowest share, its IOPS / the lower pure run\n"
               "%5s", sw->size_desc[z], "qd");
        for (unsigned i = 0; i < NVM_SWEEP_SHARES; i++) {
            printf(" %7.0f%%", sw->read_pct[i]);
        }
        printf("  %s\n", "lowest");
        for (unsigned d = 0; d < sw->n_depths; d++) {
            double at, frac;

            printf("%5u", sw->depth[d]);
            for (unsigned i = 0; i < NVM_SWEEP_SHARES; i++) {
                printf(" %8.0f", sw->r[z][d][i].all.fig.iops);
            }
            nvm_sweep_dip(sw, z, d, &at, &frac);
            printf("  %3.0f%% %.2f\n", at, frac);
        }
    }
    nvm_sweep_clear(sw);
    g_free(sw);
    return 0;
}

static int cmd_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                       const char *workload_dir, bool json)
{
    g_autoptr(GError) err = NULL;
    NvmVdiResult res[NVM_VDI_WORKLOADS];

    if (!nvm_sim_vdi(p, o, workload_dir, res, &err)) {
        fprintf(stderr, "nvmimic sim: %s\n", err->message);
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
        printf("  %-6s %10s %10s %9s %9s %9s %9s %9s %6s\n", "load",
               "target", "iops", "MB/s", "lat_us", "p99_us", "rd_lat",
               "wr_lat", "dies");
        printf("  %-6s %10s %10.0f %9.1f %9.1f %9.1f %9.1f %9.1f %5.0f%%\n",
               "peak", "-", r->peak.all.fig.iops, r->peak.all.fig.mbps,
               r->peak.all.fig.lat_us, r->peak.all.fig.p99_us,
               r->peak.cls[NVM_DIR_READ].fig.lat_us,
               r->peak.cls[NVM_DIR_WRITE].fig.lat_us,
               r->peak.die_busy * 100);
        for (unsigned i = 0; i < r->n_curve; i++) {
            const NvmMixResult *c = &r->curve[i];

            printf("  %4d %% %10.0f %10.0f %9.1f %9.1f %9.1f %9.1f %9.1f "
                   "%5.0f%%\n", r->target_pct[i], r->target_iops[i],
                   c->all.fig.iops, c->all.fig.mbps, c->all.fig.lat_us,
                   c->all.fig.p99_us, c->cls[NVM_DIR_READ].fig.lat_us,
                   c->cls[NVM_DIR_WRITE].fig.lat_us, c->die_busy * 100);
        }
    }
    nvm_vdi_results_clear(res);
    return 0;
}

static void json_class(GString *s, const NvmTraceClass *c)
{
    g_string_append_printf(s, "\"count\": %" G_GUINT64_FORMAT ", "
                           "\"iops\": %.1f, \"mbps\": %.2f, "
                           "\"lat_us\": %.2f, \"p50_us\": %.2f, "
                           "\"p99_us\": %.2f, \"p999_us\": %.2f, "
                           "\"max_us\": %.2f", c->count, c->fig.iops,
                           c->fig.mbps, c->fig.lat_us, c->fig.p50_us,
                           c->fig.p99_us, c->fig.p999_us, c->max_us);
}

/* whether any command of @t is submitted at or after @from_ns */
static bool trace_replays_any(const NvmTrace *t, uint64_t from_ns)
{
    return t->cmds->len &&
           g_array_index(t->cmds, NvmTraceCmd, t->cmds->len - 1).submit_ns >=
           from_ns;
}

static int cmd_sim_trace(const NvmProfile *p, const Opts *opts)
{
    g_autoptr(GError) err = NULL;
    const char *trace_path = opts->trace;
    uint64_t seed = opts->seed;
    bool json = !strcmp(opts->format, "json");
    NvmTrace *t = nvm_trace_load(trace_path, &err);
    NvmTraceReplay r;
    FILE *log = NULL;
    NvmTraceReplayOpts ro = { 0 };
    bool ok;

    if (t && !trace_replays_any(t, opts->trace_from_ns)) {
        fprintf(stderr, "nvmimic sim: %s: no command to replay%s\n",
                trace_path,
                opts->trace_from_ns ? " at or after --trace-from-ns" : "");
        nvm_trace_free(t);
        return 1;
    }
    if (t && opts->trace_out) {
        log = fopen(opts->trace_out, "w");
        if (!log) {
            fprintf(stderr, "nvmimic sim: --trace-out %s: %s\n",
                    opts->trace_out,
                    g_strerror(errno));
            nvm_trace_free(t);
            return 1;
        }
    }
    ro.erased = !strcmp(opts->trace_state, "erased");
    ro.reads_only = !strcmp(opts->trace_state, "review-read");
    ro.from_ns = opts->trace_from_ns;
    ro.wear_pct = opts->trace_wear_pct;
    ro.log = log;
    ok = t && nvm_trace_replay(t, p, seed, &ro, &r, &err);
    if (log && fclose(log) && ok) {
        fprintf(stderr, "nvmimic sim: --trace-out %s: %s\n", opts->trace_out,
                g_strerror(errno));
        nvm_trace_free(t);
        return 1;
    }
    if (!ok) {
        fprintf(stderr, "nvmimic sim: %s\n", err->message);
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
            json_class(s, &r.model[o]);
            if (r.captured[o].count) {
                g_string_append(s, ", \"captured\": {");
                json_class(s, &r.captured[o]);
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
                   "%9.1f | ", nvm_op_name(o), c->count, c->fig.mbps,
                   c->fig.lat_us, c->fig.p50_us, c->fig.p99_us, c->max_us);
            if (k->count) {
                printf("%9.1f %9.1f\n", k->fig.lat_us, k->fig.p99_us);
            } else {
                printf("%9s %9s\n", "-", "-");
            }
        }
    }
    nvm_trace_free(t);
    return 0;
}

/*
 * The options that shape one suite's runs, and the suites (or --trace) that
 * read each: given to another, one used to be ignored without a word
 * (--step-gb with four-corners, --span-gb with the review's state).  The
 * options every mode reads (--profile, --format, --profile-dir) and those
 * checked on their own below (--trace-*, --out, --mix-outstanding) are not
 * here.
 */
static const struct {
    const char *opt;
    const char *modes;          /* blank-separated */
} sim_opt_modes[] = {
    { "seed", "four-corners slc-cliff vdi mix --trace" },
    { "threads", "four-corners" },
    { "duration-s", "four-corners vdi point mix" },
    { "quick", "four-corners vdi point mix" },
    { "step-gb", "slc-cliff" },
    { "idle-s", "slc-cliff" },
    { "after-gb", "slc-cliff" },
    { "block-size", "slc-cliff point" },
    { "outstanding", "slc-cliff point" },
    { "op", "point" },
    { "pattern", "point" },
    { "state", "point" },
    { "span-gb", "point" },
};

/*
 * 0, or 2 after one line naming the first option @given that the mode
 * (@suite, or --trace) does not read.
 */
static int sim_check_modes(const NvmCommand *cmd, const Opts *o,
                           GPtrArray *given)
{
    const char *mode = o->trace ? "--trace" : o->suite;

    for (unsigned i = 0; i + 1 < given->len; i += 2) {
        const NvmOpt *opt = given->pdata[i];

        for (size_t k = 0; k < G_N_ELEMENTS(sim_opt_modes); k++) {
            g_auto(GStrv) modes = NULL;
            g_autofree char *list = NULL;

            if (strcmp(opt->name, sim_opt_modes[k].opt)) {
                continue;
            }
            modes = g_strsplit(sim_opt_modes[k].modes, " ", -1);
            if (g_strv_contains((const char *const *)modes, mode)) {
                break;
            }
            list = g_strjoinv(", ", modes);
            return nvm_opts_error(cmd, "--%s is not read by %s%s (it is for "
                                  "%s)", opt->name,
                                  o->trace ? "" : "--suite ", mode, list);
        }
        if (!strcmp(opt->name, "span-gb") && !strcmp(o->state, "review")) {
            return nvm_opts_error(cmd, "--span-gb is for --state empty (the "
                                  "review's state has its profile's span)");
        }
    }
    return 0;
}

static int sim_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_sim;
    Opts oo = { 0 }, *o = &oo;
    NvmProfile *p;
    unsigned depth[NVM_SWEEP_MAX_DEPTHS], n_depths = 0;
    g_autoptr(GPtrArray) given = g_ptr_array_new();
    int rc;

    rc = nvm_opts_parse_given(cmd, argc, argv, o, NULL, given);
    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (!o->profile) {
        return nvm_opts_error(cmd, "needs --profile NAME|PATH");
    }
    if ((o->trace_out || o->trace_from_ns || o->trace_wear_pct ||
         strcmp(o->trace_state, "review")) && !o->trace) {
        return nvm_opts_error(cmd, "--trace-state, --trace-from-ns, "
                              "--trace-wear-pct and --trace-out are for "
                              "--trace");
    }
    if (o->trace && o->suite) {
        return nvm_opts_error(cmd, "takes --suite or --trace, not both");
    }
    if (!o->suite && !o->trace) {
        return nvm_opts_error(cmd, "needs --suite four-corners|slc-cliff|vdi"
                              "|point|mix or --trace TRACE");
    }
    if (o->suite && !strcmp(o->suite, "point") &&
        strcmp(o->format, "table")) {
        return nvm_opts_error(cmd, "--format json is not for --suite point");
    }
    if (o->mix_outstanding && strcmp(o->suite ? o->suite : "", "mix")) {
        return nvm_opts_error(cmd, "--mix-outstanding is for --suite mix");
    }
    if (o->suite && !strcmp(o->suite, "mix")) {
        g_autoptr(GError) err = NULL;

        if (!nvm_sweep_parse_depths(o->mix_outstanding, depth, &n_depths,
                                    &err)) {
            return nvm_opts_error(cmd, "--mix-outstanding: %s",
                                  err->message);
        }
    }
    if (o->out && (!o->suite || strcmp(o->suite, "four-corners"))) {
        return nvm_opts_error(cmd, "--out is for --suite four-corners");
    }
    rc = sim_check_modes(cmd, o, given);
    if (rc) {
        return rc;
    }
    p = cli_load_profile(cmd, o);
    if (!p) {
        return 1;
    }
    if (o->trace) {
        rc = cmd_sim_trace(p, o);
    } else if (!strcmp(o->suite, "vdi")) {
        NvmSimOptions so = {
            .seed = o->seed,
            .duration_s = o->duration_s,
        };

        rc = cmd_sim_vdi(p, &so, nvm_path_workloads(),
                         !strcmp(o->format, "json"));
    } else if (!strcmp(o->suite, "four-corners")) {
        rc = cmd_sim_four_corners(p, o);
    } else if (!strcmp(o->suite, "point")) {
        rc = cmd_sim_point(p, o);
    } else if (!strcmp(o->suite, "mix")) {
        rc = cmd_sim_mix(p, o, depth, n_depths);
    } else {
        rc = cmd_sim_cliff(p, o);
    }
    nvm_profile_free(p);
    return rc;
}

#define O(f) NVM_OPT_AT(Opts, f)

static const NvmOptPreset sim_presets[] = {
    { "quick", "duration-s", "3" },
    { NULL },
};

static const NvmOpt sim_opts[] = {
    NVM_OPT("profile", NVM_OPT_STR, O(profile), "NAME|PATH",
            "the drive: a profile's name or a profile file"),
    NVM_OPT("suite", NVM_OPT_CHOICE, O(suite), NULL,
            "four-corners: peak, then 10..120 % of it, per workload; "
            "slc-cliff: sequential writes over the whole empty drive; "
            "vdi: the VDI job files (harness/workloads/vdi-*.fio); "
            "point: one closed-loop run (--op, --pattern, --block-size,\n"
            "--outstanding, --state, --span-gb, --duration-s), as\n"
            "nvmimic validate times a published figure; "
            "mix: closed-loop random I/O at 0..100 % reads (steps of 10)\n"
            "and 1..128 outstanding, in 4 KiB blocks and in the block\n"
            "sizes of vdi-monday-login.fio (--mix-outstanding)",
            .choices = "four-corners|slc-cliff|vdi|point|mix"),
    NVM_OPT("trace", NVM_OPT_STR, O(trace), "TRACE",
            "replay a device trace (nvmimic-trace-start) on the model\n"
            "instead of a suite"),
    NVM_OPT("trace-state", NVM_OPT_CHOICE, O(trace_state), NULL,
            "--trace: the model starts in the review's state\n"
            "(review-read: as a workload that only reads finds it, the\n"
            "span as the fill laid it out), or secure-erased, for a trace\n"
            "that holds the span's writes (nvmimic run --device-trace of\n"
            "a QLC drive)",
            .choices = "review|review-read|erased", .def = "review"),
    NVM_OPT("trace-from-ns", NVM_OPT_U64, O(trace_from_ns), "NS",
            "--trace: the model's state is set at this time of the trace\n"
            "(a run's state mark: marks.json's time-ns minus the trace's\n"
            "start-ns); the commands before it are not replayed"),
    NVM_OPT("trace-wear-pct", NVM_OPT_DOUBLE, O(trace_wear_pct), "PCT",
            "--trace: the drive's wear when its state was set (marks.json:\n"
            "that mark's wear-pct; a secure erase keeps it), which sets\n"
            "its read-retry odds", .min = 0, .max = 255, .def = "0"),
    NVM_OPT("trace-out", NVM_OPT_STR, O(trace_out), "FILE",
            "--trace: write the trace back with the model's completion\n"
            "times, line for line, to compare command by command"),
    NVM_OPT("format", NVM_OPT_CHOICE, O(format), NULL,
            "a table, or the results as JSON (docs/results.md)",
            .choices = "table|json", .def = "table"),
    NVM_OPT("seed", NVM_OPT_U64, O(seed), "N", "the model's seed",
            .def = "1"),
    NVM_OPT("threads", NVM_OPT_CHOICE, O(threads), NULL,
            "outstanding counts: the reviews' stated ones\n"
            "or those their latencies imply",
            .choices = "stated|implied", .def = "stated"),
    NVM_OPT("duration-s", NVM_OPT_DOUBLE, O(duration_s), "S",
            "simulated seconds per point",
            .min = 0.001, .max = 3600, .def = "30"),
    NVM_OPT("quick", NVM_OPT_FLAG, O(quick), NULL,
            "short points: the values marked --quick"),
    NVM_OPT("out", NVM_OPT_STR, O(out), "DIR",
            "four-corners: also write DIR/results.json and render it\n"
            "as nvmimic report does"),
    NVM_OPT("mix-outstanding", NVM_OPT_STR, O(mix_outstanding), "N,N,..",
            "mix: the outstanding counts, increasing, at most 8\n"
            "(default 1,2,4,8,16,32,64,128)"),
    NVM_OPT("step-gb", NVM_OPT_DOUBLE, O(step_gb), "G",
            "slc-cliff: one point per G GB written",
            .min = 0.001, .max = 100000, .def = "1"),
    NVM_OPT("idle-s", NVM_OPT_DOUBLE, O(idle_s), "S",
            "slc-cliff: idle seconds after the fill", .min = 0,
            .max = 1e6, .def = "600"),
    NVM_OPT("after-gb", NVM_OPT_DOUBLE, O(after_gb), "G",
            "slc-cliff: GB written after the idle time", .min = 0,
            .max = 100000, .def = "100"),
    NVM_OPT("block-size", NVM_OPT_UINT, O(block_bytes), "BYTES",
            "slc-cliff, point: bytes per command", .min = 512,
            .max = 1048576, .def = "131072"),
    NVM_OPT("outstanding", NVM_OPT_UINT, O(outstanding), "N",
            "slc-cliff, point: commands kept outstanding", .min = 1,
            .max = NVM_CLIFF_MAX_QD, .def = "8"),
    NVM_OPT("op", NVM_OPT_CHOICE, O(op), NULL, "point: reads or writes",
            .choices = "read|write", .def = "read"),
    NVM_OPT("pattern", NVM_OPT_CHOICE, O(pattern), NULL,
            "point: one sequential stream, or uniform random",
            .choices = "seq|rand", .def = "rand"),
    NVM_OPT("state", NVM_OPT_CHOICE, O(state), NULL,
            "point: secure-erased (a read's span written once first),\n"
            "or the review's starting state (profile [review])",
            .choices = "empty|review", .def = "empty"),
    NVM_OPT("span-gb", NVM_OPT_DOUBLE, O(span_gb), "G",
            "point, empty state: the span the run covers (GB), at most\n"
            "the drive's capacity", .min = 0.001, .max = 100000,
            .def = "1"),
    NVM_OPT_PROFILE_DIR(Opts, profile_dir),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_sim = {
    .name = "sim",
    .synopsis = "--profile NAME|PATH --suite SUITE | --trace TRACE [options]",
    .summary = "Run the reviews' suites against the drive model alone, in "
               "simulated time.",
    .description =
"four-corners runs the reviews' method: the review's starting state, each\n"
"workload's unthrottled peak at its outstanding count, then Poisson rates of\n"
"10..120 % of that peak.  vdi runs the VDI job files the same way.\n"
"mix runs one closed-loop point per read share, outstanding count and size\n"
"mix, each from the review's starting state (docs/sim.md).\n"
"slc-cliff secure-erases the drive, writes all of it sequentially (128 KiB,\n"
"8 outstanding, as the sustained-write tests do, or --block-size and\n"
"--outstanding), idles, and writes again.  point runs one closed loop for\n"
"--duration-s after 0.5 s of warm-up, as nvmimic validate does.\n"
"--trace replays a captured device trace at its own submission times and\n"
"compares the model's latency per class with the captured one.\n",
    .opts = sim_opts,
    .presets = sim_presets,
    .main = sim_main,
};

typedef struct T2iOpts {
    const char *device;
    const char *job;
    const char *iolog_path;
} T2iOpts;

static int trace2iolog_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_trace2iolog;
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) args = g_ptr_array_new();
    T2iOpts o = { 0 };
    const char *trace;
    NvmTrace *t;
    GString *log;
    unsigned dropped, fua, depth;
    int rc = nvm_opts_parse(cmd, argc, argv, &o, args);

    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    trace = g_ptr_array_index(args, 0);
    if (*o.device != '/' || strpbrk(o.device, " \t\n")) {
        return nvm_opts_error(cmd, "--device '%s' must be an absolute path "
                              "without blanks", o.device);
    }
    if (strpbrk(o.iolog_path, " \t\n")) {
        return nvm_opts_error(cmd, "--iolog-path '%s' must not contain "
                              "blanks (fio's job file has no quoting)",
                              o.iolog_path);
    }
    t = nvm_trace_load(trace, &err);
    if (!t) {
        fprintf(stderr, "nvmimic trace2iolog: %s\n", err->message);
        return 1;
    }
    log = nvm_trace_to_iolog(t, o.device, &dropped, &fua);
    depth = nvm_trace_max_outstanding(t);
    fputs(log->str, stdout);
    g_string_free(log, TRUE);
    if (fua) {
        fprintf(stderr, "nvmimic trace2iolog: %u FUA write(s) replay as "
                "plain writes (an iolog has no FUA; fio's sync=1 makes "
                "every write FUA)\n", fua);
    }
    if (dropped) {
        fprintf(stderr, "nvmimic trace2iolog: %u discard(s) left out (fio "
                "cannot replay trims from an iolog)\n", dropped);
    }
    if (o.job) {
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
            trace, depth ? MIN(depth, 1024) : 32, o.iolog_path, o.device);

        if (!g_file_set_contents(o.job, text, -1, &err)) {
            fprintf(stderr, "nvmimic trace2iolog: %s\n", err->message);
            nvm_trace_free(t);
            return 1;
        }
    }
    nvm_trace_free(t);
    return 0;
}

#define T(f) NVM_OPT_AT(T2iOpts, f)

static const NvmOpt trace2iolog_opts[] = {
    NVM_OPT("device", NVM_OPT_STR, T(device), "DEV",
            "the device the iolog replays on", .def = "/dev/nvme0n1"),
    NVM_OPT("job", NVM_OPT_STR, T(job), "FILE",
            "also write a fio job that replays the iolog"),
    NVM_OPT("iolog-path", NVM_OPT_STR, T(iolog_path), "PATH",
            "the iolog's path in that job", .def = "trace.iolog"),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_trace2iolog = {
    .name = "trace2iolog",
    .synopsis = "TRACE [--device DEV] [--job FILE] [--iolog-path PATH]",
    .summary = "A device trace as a fio iolog (version 3) on stdout.",
    .description =
"fio cannot replay trims from an iolog, so discards are left out (counted on\n"
"stderr); write-zeroes replay as writes and flushes as sync.  An iolog has no\n"
"FUA: write-fua and write-zeroes-fua replay as plain writes (counted on stderr).\n",
    .opts = trace2iolog_opts,
    .args = "a TRACE",
    .min_args = 1,
    .max_args = 1,
    .main = trace2iolog_main,
};
