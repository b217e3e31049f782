/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The VDI suite in simulated time, trace replay on the model, and the
 * trace-to-iolog converter, with their table and JSON output.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "vdi.h"

const char *const nvm_vdi_names[NVM_VDI_WORKLOADS] = {
    "vdi-boot", "vdi-initial-login", "vdi-monday-login",
};

typedef struct VdiJob {
    const NvmProfile *p;
    NvmVdiResult *r;
} VdiJob;

static double vdi_point(void *job, NvmModel *m, const NvmSimPoint *pt,
                        uint64_t *now_ns)
{
    VdiJob *j = job;
    NvmVdiResult *r = j->r;
    NvmMixSpec spec = {
        .mix = r->mix,
        .lba_bytes = j->p->lba_bytes,
        .span_bytes = pt->span_bytes,
        .warmup_ns = pt->warmup_ns,
        .duration_ns = pt->duration_ns,
        .rate_iops = pt->rate_iops,
        .hook = pt->hook,
    };
    NvmMixResult *out = pt->k ? &r->curve[pt->k - 1] : &r->peak;

    nvm_mix_run(m, &spec, pt->seed, now_ns, out);
    if (pt->k) {
        r->target_pct[pt->k - 1] = pt->pct;
        r->target_iops[pt->k - 1] = pt->rate_iops;
        r->n_curve = pt->k;
    }
    return out->all.iops;
}

void nvm_vdi_results_clear(NvmVdiResult res[NVM_VDI_WORKLOADS])
{
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        nvm_mix_free(res[w].mix);
        g_free(res[w].path);
        res[w].mix = NULL;
        res[w].path = NULL;
    }
}

bool nvm_vdi_load(const NvmProfile *p, const char *workload_dir,
                  NvmVdiResult res[NVM_VDI_WORKLOADS], GError **errp)
{
    memset(res, 0, sizeof(NvmVdiResult) * NVM_VDI_WORKLOADS);
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        g_autofree char *file = g_strdup_printf("%s.fio", nvm_vdi_names[w]);
        NvmMix *mix;

        res[w].path = g_build_filename(workload_dir, file, NULL);
        mix = nvm_jobfile_load(res[w].path, nvm_vdi_names[w], errp);
        if (!mix) {
            nvm_vdi_results_clear(res);
            return false;
        }
        for (int d = 0; d < NVM_DIRS; d++) {
            for (unsigned i = 0; i < mix->bs[d].n; i++) {
                if (mix->bs[d].bytes[i] % p->lba_bytes) {
                    g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                                "%s: block size %u is not a multiple of "
                                "%s's %u-byte LBA", res[w].path,
                                mix->bs[d].bytes[i], p->name, p->lba_bytes);
                    nvm_mix_free(mix);
                    nvm_vdi_results_clear(res);
                    return false;
                }
            }
        }
        res[w].mix = mix;
    }
    return true;
}

/* seeds apart from the four corners' */
#define VDI_SEED_BASE 100

bool nvm_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                 const char *workload_dir, NvmVdiResult res[NVM_VDI_WORKLOADS],
                 GError **errp)
{
    VdiJob jobs[NVM_VDI_WORKLOADS];
    void *ptrs[NVM_VDI_WORKLOADS];

    if (!nvm_vdi_load(p, workload_dir, res, errp)) {
        return false;
    }
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        jobs[w] = (VdiJob){ p, &res[w] };
        ptrs[w] = &jobs[w];
    }
    nvm_sim_curves(p, o, NVM_VDI_WORKLOADS, VDI_SEED_BASE, vdi_point, ptrs);
    return true;
}

void nvm_sim_vdi_one(const NvmProfile *p, const NvmSimOptions *o,
                     unsigned w, NvmModel *m, const NvmRunHook *hook,
                     NvmVdiResult *r)
{
    VdiJob job = { p, r };

    nvm_sim_curve(p, o, VDI_SEED_BASE + w, vdi_point, &job, m, hook);
}

static void json_run(GString *s, const NvmRunResult *r)
{
    g_string_append_printf(s, "\"iops\": %.1f, \"mbps\": %.2f, "
                           "\"lat_us\": %.2f, \"p50_us\": %.2f, "
                           "\"p99_us\": %.2f, \"p999_us\": %.2f",
                           r->iops, r->mbps, r->lat_us, r->p50_us,
                           r->p99_us, r->p999_us);
}

/* The four-corners fields for reads and writes together, then per class. */
static void json_mix(GString *s, const NvmMixResult *r)
{
    json_run(s, &r->all);
    g_string_append(s, ", \"read\": {");
    json_run(s, &r->cls[NVM_DIR_READ]);
    g_string_append(s, "}, \"write\": {");
    json_run(s, &r->cls[NVM_DIR_WRITE]);
    g_string_append(s, "}");
}

static void json_split(GString *s, const NvmBsSplit *bs)
{
    g_string_append(s, "[");
    for (unsigned i = 0; i < bs->n; i++) {
        g_string_append_printf(s, "%s{\"bytes\": %u, \"pct\": %g}",
                               i ? ", " : "", bs->bytes[i], bs->pct[i]);
    }
    g_string_append(s, "]");
}

void nvm_vdi_json(GString *s, const char *profile, const char *mode,
                  const NvmSimOptions *o,
                  const NvmVdiResult res[NVM_VDI_WORKLOADS],
                  const char *top_extra, NvmJsonExtraFn extra, void *opaque)
{
    g_string_append_printf(s, "{\"profile\": \"%s\", \"mode\": \"%s\", "
                           "\"suite\": \"vdi\", "
                           "\"seed\": %" G_GUINT64_FORMAT ", "
                           "\"threads_mode\": \"stated\", "
                           "\"duration_s\": %g, %s\"workloads\": [",
                           profile, mode, o->seed, o->duration_s,
                           top_extra ? top_extra : "");
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        const NvmVdiResult *r = &res[w];
        const NvmMix *x = r->mix;

        g_string_append_printf(s, "%s\n  {\"name\": \"%s\", "
                               "\"threads\": %u, \"block_bytes\": 0, "
                               "\"job_file\": \"%s\", \"mix\": "
                               "{\"read_pct\": %g, "
                               "\"random_pct_read\": %g, "
                               "\"random_pct_write\": %g, "
                               "\"mean_block_bytes\": %.0f, "
                               "\"iodepth\": %u, \"numjobs\": %u, "
                               "\"burst_ms\": %g, \"idle_ms\": %g, "
                               "\"bssplit_read\": ",
                               w ? "," : "", x->name,
                               nvm_mix_outstanding(x), r->path,
                               x->read_pct, x->random_pct[NVM_DIR_READ],
                               x->random_pct[NVM_DIR_WRITE],
                               nvm_mix_mean_block_bytes(x), x->iodepth,
                               x->numjobs, x->think_iotime_ns / 1e6,
                               x->think_ns / 1e6);
        json_split(s, &x->bs[NVM_DIR_READ]);
        g_string_append(s, ", \"bssplit_write\": ");
        json_split(s, &x->bs[NVM_DIR_WRITE]);
        g_string_append(s, "}, \"peak\": {");
        json_mix(s, &r->peak);
        if (extra) {
            extra(s, w, -1, opaque);
        }
        g_string_append(s, "}, \"curve\": [");
        for (unsigned i = 0; i < r->n_curve; i++) {
            g_string_append_printf(s, "%s\n    {\"target_pct\": %d, "
                                   "\"target_iops\": %.1f, ",
                                   i ? "," : "", r->target_pct[i],
                                   r->target_iops[i]);
            json_mix(s, &r->curve[i]);
            if (extra) {
                extra(s, w, (int)i, opaque);
            }
            g_string_append(s, "}");
        }
        g_string_append(s, "]}");
    }
    g_string_append(s, "]}\n");
}

int nvm_cmd_sim_vdi(const NvmProfile *p, const NvmSimOptions *o,
                    const char *workload_dir, bool json)
{
    g_autoptr(GError) err = NULL;
    NvmVdiResult res[NVM_VDI_WORKLOADS];

    if (!nvm_sim_vdi(p, o, workload_dir, res, &err)) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
        return 1;
    }
    if (json) {
        GString *s = g_string_new(NULL);

        nvm_vdi_json(s, p->name, "sim", o, res, NULL, NULL, NULL);
        fputs(s->str, stdout);
        g_string_free(s, TRUE);
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

int nvm_cmd_sim_trace(const NvmProfile *p, const char *trace_path,
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

static int t2i_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "nvmimic: trace2iolog: %s%s%s (usage: nvmimic "
            "trace2iolog TRACE [--device DEV] [--job FILE] [--iolog-path "
            "PATH])\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

int nvm_cmd_trace2iolog(int argc, char **argv)
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
