/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic qtest: the four-corners and VDI suites of nvmimic sim, through
 * the emulated device instead of the model alone.
 *
 * Each workload gets a fresh QEMU (-accel qtest, the profiled nvme on
 * null-co), as nvmimic sim gives each a fresh model.  The workload drivers
 * of nvmimic sim (curve.c, mix.c) generate the I/O; a hook hands every
 * submission, with the virtual time it is made at, to a polled NVMe driver
 * over qtest (qnvme.c), and every state change, statistics reset and read
 * to the device over QMP at the same virtual time.  The drivers run the
 * same model as the device to know when each I/O completes (a guest driver
 * polling without cost would see the same); qnvme.c checks every
 * completion in the device's completion queue against that, and each
 * point's statistics read from the device must equal the driver's.  The
 * figures written are the device's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "paths.h"
#include "cmdline.h"
#include "from-sim.h"
#include "qmp.h"
#include "qnvme.h"
#include "qtest.h"
#include "qtestgen.h"
#include "report.h"
#include "sim.h"
#include "vdi.h"


#define QTEST_PCI_SLOT 4
#define QTEST_QUEUE_ENTRIES 2048
#define QTEST_MAX_BYTES (1024 * 1024)
#define QTEST_TIMEOUT_MS 120000
#define MAX_WORKLOADS 4
#define MAX_POINTS (1 + NVM_CURVE_POINTS)

typedef struct Point {
    bool have;
    double host_s;              /* host time the point took */
    uint64_t ios;               /* the device's count over the window */
    uint64_t late;              /* completions posted after their time */
} Point;

typedef struct Work {
    const char *name;
    Point pt[MAX_POINTS];       /* [0] the peak, then the curve */
    NvmQnvmeCounters dev;
    NvmQtestCounters proto;
    double host_s;              /* timed I/O, QEMU start-up excluded */
    double wall_s;
} Work;

typedef struct Opts {
    const char *profile;
    const char *profile_dir;
    const char *suite;
    const char *format;
    const char *threads;
    const char *out;
    const char *qemu;
    const char *workloads;
    const char *log_dir;
    uint64_t seed;
    gint64 device_seed;         /* -1: the load generator's seed */
    uint64_t device_seed_opt;
    bool device_seed_given;
    double duration_s;
    bool quick;
} Opts;

typedef struct Ctx {
    Opts o;
    NvmProfile *p;
    NvmSimOptions so;
    Work work[MAX_WORKLOADS];
    unsigned n_work;
} Ctx;

/* One workload through one QEMU: the hook's state. */
typedef struct Engine {
    Ctx *c;
    Work *w;
    NvmQtest *q;
    NvmQnvme *d;
    GError *err;
    unsigned n_stats;
    gint64 mark_us;
} Engine;

/* ---- the hook: the driver's model calls, replayed on the device -------- */

static bool qmp_do(Engine *e, const char *cmd, const char *args,
                   JsonNode **ret)
{
    JsonNode *r = nvm_qtest_qmp(e->q, cmd, args, &e->err);

    if (!r) {
        return false;
    }
    if (ret) {
        *ret = r;
    } else {
        json_node_unref(r);
    }
    return true;
}

static void h_set_state(void *opaque, bool erase, double fill_pct,
                        int64_t slc_used_bytes, uint64_t t_ns)
{
    Engine *e = opaque;
    g_autoptr(GString) a = g_string_new("{\"id\": \"nvm0\"");

    if (e->err || !nvm_qnvme_advance(e->d, t_ns, &e->err)) {
        return;
    }
    if (erase) {
        g_string_append(a, ", \"secure-erase\": true");
    }
    if (fill_pct >= 0) {
        char num[G_ASCII_DTOSTR_BUF_SIZE];

        g_string_append_printf(a, ", \"fill-pct\": %s",
                               g_ascii_dtostr(num, sizeof(num), fill_pct));
    }
    if (slc_used_bytes >= 0) {
        g_string_append_printf(a, ", \"slc-used-bytes\": %" PRId64,
                               slc_used_bytes);
    }
    g_string_append(a, "}");
    qmp_do(e, "nvmimic-set-state", a->str, NULL);
}

static void h_review(void *opaque, uint64_t steady_bytes,
                     uint64_t warm_bytes, uint64_t t_ns)
{
    Engine *e = opaque;
    g_autoptr(GString) a = g_string_new("{\"id\": \"nvm0\"");

    if (e->err || !nvm_qnvme_advance(e->d, t_ns, &e->err)) {
        return;
    }
    if (steady_bytes) {
        g_string_append_printf(a, ", \"steady-random-bytes\": %" PRIu64,
                               steady_bytes);
    }
    g_string_append_printf(a, ", \"warm-map-bytes\": %" PRIu64 "}",
                           warm_bytes);
    qmp_do(e, "nvmimic-set-state", a->str, NULL);
}

static void h_submitted(void *opaque, const NvmCmd *cmd, uint64_t t_ns,
                        uint64_t done_ns)
{
    Engine *e = opaque;

    if (!e->err) {
        nvm_qnvme_submit(e->d, cmd, t_ns, done_ns);
    }
}

static void h_reset_stats(void *opaque, uint64_t t_ns)
{
    Engine *e = opaque;

    if (e->err || !nvm_qnvme_advance(e->d, t_ns, &e->err)) {
        return;
    }
    qmp_do(e, "nvmimic-set-state", "{\"id\": \"nvm0\", \"reset-stats\": true}",
           NULL);
}

static const char *const class_names[NVM_CLASS_COUNT] = {
    [NVM_OP_READ] = "read",
    [NVM_OP_WRITE] = "write",
    [NVM_OP_FLUSH] = "flush",
    [NVM_OP_DISCARD] = "discard",
    [NVM_OP_WRITE_ZEROES] = "write-zeroes",
};

static bool same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * MAX(1.0, fabs(b));
}

/* The device's statistics must be the driver's: same commands, same
 * times, same model. */
static void h_stats(void *opaque, uint64_t t_ns, const NvmStats *st)
{
    Engine *e = opaque;
    JsonNode *r = NULL;
    JsonArray *cls;
    Point *pt;
    gint64 now_us;

    if (e->err || !nvm_qnvme_advance(e->d, t_ns, &e->err) ||
        !qmp_do(e, "query-nvmimic-stats", "{\"id\": \"nvm0\"}", &r)) {
        return;
    }
    now_us = g_get_monotonic_time();
    pt = e->n_stats < MAX_POINTS ? &e->w->pt[e->n_stats] : NULL;
    cls = JSON_NODE_HOLDS_OBJECT(r) ?
          json_object_get_array_member(json_node_get_object(r), "classes") :
          NULL;
    for (guint i = 0; cls && i < json_array_get_length(cls); i++) {
        JsonObject *k = json_array_get_object_element(cls, i);
        const char *name = json_object_get_string_member(k, "class");
        const NvmClassStats *m = NULL;
        uint64_t count, bytes;
        NvmFig f, mf;

        for (unsigned c = 0; c < NVM_CLASS_COUNT; c++) {
            if (!g_strcmp0(name, class_names[c])) {
                m = &st->cls[c];
            }
        }
        if (!m) {
            continue;
        }
        count = json_object_get_int_member(k, "count");
        bytes = json_object_get_int_member(k, "bytes");
        f = nvm_qmp_class_fig(k, 0);
        mf = (NvmFig){ 0, 0, m->mean_us, m->p50_us, m->p99_us, m->p999_us };
        if (count != m->count || bytes != m->bytes ||
            !same(f.lat_us, mf.lat_us) || !same(f.p50_us, mf.p50_us) ||
            !same(f.p99_us, mf.p99_us) || !same(f.p999_us, mf.p999_us)) {
            g_set_error(&e->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "%s: the device's %s statistics at %.6f s differ "
                        "from the load generator's: count %" PRIu64 " vs %"
                        PRIu64 ", bytes %" PRIu64 " vs %" PRIu64 ", mean "
                        "%.3f vs %.3f us, p99 %.3f vs %.3f us", e->w->name,
                        name, t_ns / 1e9, count, m->count, bytes, m->bytes,
                        f.lat_us, mf.lat_us, f.p99_us, mf.p99_us);
            break;
        }
        if (pt) {
            pt->ios += count;
            pt->late += json_object_get_int_member(k, "late");
        }
    }
    if (!cls && !e->err) {
        g_set_error(&e->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "query-nvmimic-stats: no classes in the answer");
    }
    if (pt && !e->err) {
        pt->have = true;
        pt->host_s = (now_us - e->mark_us) / 1e6;
        fprintf(stderr, "nvmimic qtest: %s %s %s %u: %" PRIu64 " I/Os "
                "measured, %.2f s host\n", e->c->p->name, e->w->name,
                e->n_stats ? "point" : "peak", e->n_stats, pt->ios,
                pt->host_s);
        if (pt->late) {
            g_set_error(&e->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "%s: the device posted %" PRIu64 " completions late",
                        e->w->name, pt->late);
        }
    }
    e->mark_us = now_us;
    e->n_stats++;
    if (r) {
        json_node_unref(r);
    }
}

/* ---- one workload, one QEMU ---------------------------------------------- */

typedef void (*BodyFn)(Ctx *c, unsigned index, NvmModel *m,
                       const NvmRunHook *hook, void *res);

static bool run_one(Ctx *c, unsigned index, const char *name, BodyFn body,
                    void *res, GError **errp)
{
    const NvmProfile *p = c->p;
    Work *w = &c->work[c->n_work];
    Engine e = { .c = c, .w = w };
    NvmRunHook hook = {
        .opaque = &e,
        .set_state = h_set_state,
        .review = h_review,
        .submitted = h_submitted,
        .reset_stats = h_reset_stats,
        .stats = h_stats,
    };
    uint64_t dseed = c->o.device_seed >= 0 ? (uint64_t)c->o.device_seed
                                           : c->so.seed;
    g_autofree char *slot = g_strdup_printf("%02x.0", QTEST_PCI_SLOT);
    NvmQemuDrive drive = {
        .node = "nvm", .null_bytes = p->capacity_bytes, .id = "nvm0",
        .serial = "nvmimic-qtest", .addr = slot, .profile = p->path,
        .has_seed = true, .seed = dseed,
    };
    g_autofree char *blk = nvm_qemu_drive_blockdev(&drive);
    g_autofree char *dev = nvm_qemu_drive_device(&drive);
    g_autofree char *log = c->o.log_dir ?
        g_strdup_printf("%s/qemu-%s.log", c->o.log_dir, name) : NULL;
    const char *args[] = { "-blockdev", blk, "-device", dev, NULL };
    gint64 t0 = g_get_monotonic_time(), t1;
    NvmModel *m;
    bool ok;

    memset(w, 0, sizeof(*w));
    w->name = name;
    e.q = nvm_qtest_start(c->o.qemu, args, log, QTEST_TIMEOUT_MS, errp);
    if (!e.q) {
        return false;
    }
    e.d = nvm_qnvme_open(e.q, QTEST_PCI_SLOT, QTEST_QUEUE_ENTRIES,
                         QTEST_MAX_BYTES, errp);
    if (!e.d) {
        nvm_qtest_quit(e.q);
        return false;
    }
    if (nvm_qnvme_lba_bytes(e.d) != p->lba_bytes ||
        nvm_qnvme_capacity_bytes(e.d) != p->capacity_bytes) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "the device shows %" PRIu64 " bytes in %u-byte blocks, "
                    "profile %s says %" PRIu64 " in %u-byte blocks",
                    nvm_qnvme_capacity_bytes(e.d), nvm_qnvme_lba_bytes(e.d),
                    p->name, p->capacity_bytes, p->lba_bytes);
        nvm_qnvme_free(e.d);
        nvm_qtest_quit(e.q);
        return false;
    }

    m = nvm_model_new(p, c->so.seed);
    t1 = e.mark_us = g_get_monotonic_time();
    body(c, index, m, &hook, res);
    nvm_model_free(m);
    if (!e.err) {
        nvm_qnvme_failed(e.d, &e.err);
    }
    w->host_s = (g_get_monotonic_time() - t1) / 1e6;
    nvm_qnvme_counters(e.d, &w->dev);
    nvm_qtest_counters(e.q, &w->proto);
    nvm_qnvme_free(e.d);
    nvm_qtest_quit(e.q);
    w->wall_s = (g_get_monotonic_time() - t0) / 1e6;
    ok = !e.err;
    if (e.err) {
        g_propagate_prefixed_error(errp, e.err, "%s: ", name);
    } else {
        c->n_work++;
    }
    return ok;
}

static void corner_body(Ctx *c, unsigned index, NvmModel *m,
                        const NvmRunHook *hook, void *res)
{
    NvmCornerResult *r = res;

    nvm_sim_corner(c->p, &c->so, index, m, hook, r);
}

static void vdi_body(Ctx *c, unsigned index, NvmModel *m,
                     const NvmRunHook *hook, void *res)
{
    nvm_sim_vdi_one(c->p, &c->so, index, m, hook, res);
}

/* ---- output --------------------------------------------------------------- */

static void progress(const Ctx *c, const Work *w, const char *what,
                     double iops, double lat_us)
{
    fprintf(stderr, "nvmimic qtest: %s %s: %s %.0f IOPS, %.1f us "
            "(%.1f s host, %.2f M I/Os per host s, %" PRIu64 " round "
            "trips)\n", c->p->name, w->name, what, iops, lat_us, w->host_s,
            w->host_s > 0 ? w->dev.ios / w->host_s / 1e6 : 0,
            w->proto.round_trips);
}

/* The engine's own members of workload @w's point @k (0: the peak). */
static JsonNode *point_extra(const Ctx *c, unsigned w, unsigned k)
{
    const Point *pt = &c->work[w].pt[k];
    g_autoptr(JsonBuilder) b = NULL;

    if (!pt->have) {
        return NULL;
    }
    b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "host_s");
    json_builder_add_double_value(b, round(pt->host_s * 1000) / 1000);
    json_builder_set_member_name(b, "device_ios");
    json_builder_add_int_value(b, (gint64)pt->ios);
    json_builder_set_member_name(b, "late");
    json_builder_add_int_value(b, (gint64)pt->late);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

/* Mode "qtest": the engine's members at the top and at each point. */
static void qtest_members(const Ctx *c, NvmResults *r, double wall_s)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    uint64_t ios = 0, rts = 0, cmds = 0, steps = 0, sent = 0;
    double host = 0;

    g_free(r->mode);
    r->mode = g_strdup("qtest");
    r->qtest = true;
    r->guest = false;
    for (unsigned w = 0; w < c->n_work; w++) {
        ios += c->work[w].dev.ios;
        rts += c->work[w].proto.round_trips;
        cmds += c->work[w].proto.commands;
        sent += c->work[w].proto.bytes_sent;
        steps += c->work[w].dev.clock_steps;
        host += c->work[w].host_s;
    }
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "engine");
    json_builder_add_string_value(b, "qtest");
    json_builder_set_member_name(b, "qemu");
    json_builder_add_string_value(b, c->o.qemu);
    json_builder_set_member_name(b, "checked");
    json_builder_add_string_value(b, "every completion in the device's "
                                  "completion queue at its time; each "
                                  "point's device statistics equal the load "
                                  "generator's");
    json_builder_set_member_name(b, "speed");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "ios");
    json_builder_add_int_value(b, (gint64)ios);
    json_builder_set_member_name(b, "host_s");
    json_builder_add_double_value(b, round(host * 1000) / 1000);
    json_builder_set_member_name(b, "ios_per_host_s");
    json_builder_add_double_value(b, host > 0 ? round(ios / host) : 0);
    json_builder_set_member_name(b, "round_trips");
    json_builder_add_int_value(b, (gint64)rts);
    json_builder_set_member_name(b, "qtest_commands");
    json_builder_add_int_value(b, (gint64)cmds);
    json_builder_set_member_name(b, "clock_steps");
    json_builder_add_int_value(b, (gint64)steps);
    json_builder_set_member_name(b, "bytes_sent");
    json_builder_add_int_value(b, (gint64)sent);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, round(wall_s * 10) / 10);
    json_builder_end_object(b);
    r->extra = json_builder_get_root(b);
    for (guint w = 0; w < r->works->len; w++) {
        NvmResWork *wk = g_ptr_array_index(r->works, w);

        wk->peak.extra = point_extra(c, w, 0);
        for (guint i = 0; i < wk->curve->len; i++) {
            g_array_index(wk->curve, NvmResPoint, i).extra =
                point_extra(c, w, i + 1);
        }
    }
}

/* --out DIR: the results there (the one writer), the report beside them;
 * --format json: the same on stdout. */
static bool write_results(const Ctx *c, const NvmResults *r, GError **errp)
{
    g_autofree char *tsv = g_build_filename(c->o.profile_dir, "reviews",
                                            "four-corners.tsv", NULL);

    if (!strcmp(c->o.format, "json")) {
        g_autofree char *text = nvm_results_to_json(r);

        printf("%s\n", text);
    }
    if (!c->o.out) {
        return true;
    }
    if (g_mkdir_with_parents(c->o.out, 0755) < 0) {
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "%s: %s", c->o.out, g_strerror(errno));
        return false;
    }
    return nvm_results_save(r, c->o.out, errp) &&
           nvm_report_render(c->o.out, tsv, NULL, errp);
}

static void table_point(const char *load, double target, const NvmFig *f,
                        const Point *pt)
{
    char t[32];

    if (target > 0) {
        g_snprintf(t, sizeof(t), "%.0f", target);
    } else {
        g_strlcpy(t, "-", sizeof(t));
    }
    printf("  %-6s %10s %10.0f %9.1f %9.1f %9.1f %8.2f\n", load, t, f->iops,
           f->mbps, f->lat_us, f->p99_us, pt->host_s);
}

static void table_header(void)
{
    printf("  %-6s %10s %10s %9s %9s %9s %8s\n", "load", "target", "iops",
           "MB/s", "lat_us", "p99_us", "host_s");
}

/* ---- the command ------------------------------------------------------- */

static bool wanted(const Ctx *c, const char *name)
{
    g_auto(GStrv) list = NULL;

    if (!c->o.workloads) {
        return true;
    }
    list = g_strsplit(c->o.workloads, ",", -1);
    return g_strv_contains((const char *const *)list, name);
}

static bool check_workloads(const Ctx *c, const char *const *names,
                            unsigned n, GError **errp)
{
    g_auto(GStrv) list = NULL;

    if (!c->o.workloads) {
        return true;
    }
    list = g_strsplit(c->o.workloads, ",", -1);
    for (char **l = list; *l; l++) {
        bool found = false;

        for (unsigned i = 0; i < n; i++) {
            found |= !strcmp(*l, names[i]);
        }
        if (!found) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--workloads: unknown workload '%s' in suite %s",
                        *l, c->o.suite);
            return false;
        }
    }
    return true;
}

static int run_corners(Ctx *c, gint64 t0)
{
    g_autoptr(GError) err = NULL;
    NvmCornerResult res[NVM_FOUR_CORNERS], shown[NVM_FOUR_CORNERS];
    NvmWorkload wl[NVM_FOUR_CORNERS];
    const char *names[NVM_FOUR_CORNERS];
    g_autoptr(NvmResults) results = NULL;
    unsigned n = 0;
    int rc = 0;

    nvm_four_corners(wl, c->so.implied_threads);
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        names[w] = wl[w].name;
    }
    if (!check_workloads(c, names, NVM_FOUR_CORNERS, &err)) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        return 2;
    }
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        if (!wanted(c, wl[w].name)) {
            continue;
        }
        if (!run_one(c, w, wl[w].name, corner_body, &res[w], &err)) {
            fprintf(stderr, "nvmimic qtest: %s: %s\n", c->p->name,
                    err->message);
            return 1;
        }
        progress(c, &c->work[c->n_work - 1], "peak", res[w].peak.fig.iops,
                 res[w].peak.fig.lat_us);
        shown[n++] = res[w];
    }
    /* the workloads that ran */
    results = nvm_results_from_corners(c->p, &c->so, c->o.threads, shown, n);
    qtest_members(c, results, (g_get_monotonic_time() - t0) / 1e6);
    if (!write_results(c, results, &err)) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        rc = 1;
    }
    if (strcmp(c->o.format, "json")) {
        printf("%s: four corners through the device (qtest), %s threads, "
               "seed %" G_GUINT64_FORMAT ", %g s per point\n", c->p->name,
               c->o.threads, c->so.seed, c->so.duration_s);
        for (unsigned w = 0; w < n; w++) {
            const NvmCornerResult *r = &shown[w];
            const Work *wk = &c->work[w];

            printf("\n%s (%u outstanding)\n", r->wl.name, r->wl.threads);
            table_header();
            table_point("peak", 0, &r->peak.fig, &wk->pt[0]);
            for (unsigned i = 0; i < r->n_curve; i++) {
                char load[16];

                g_snprintf(load, sizeof(load), "%d %%", r->target_pct[i]);
                table_point(load, r->target_iops[i], &r->curve[i].fig,
                            &wk->pt[i + 1]);
            }
        }
        if (c->o.out) {
            printf("\nreport: %s/report.html\n", c->o.out);
        }
    }
    return rc;
}

static int run_vdi(Ctx *c, gint64 t0)
{
    g_autoptr(GError) err = NULL;
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    g_autoptr(NvmResults) results = NULL;
    int rc = 0;

    if (!check_workloads(c, nvm_vdi_names, NVM_VDI_WORKLOADS, &err)) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        return 2;
    }
    if (c->o.workloads) {
        fprintf(stderr, "nvmimic qtest: --workloads is for --suite "
                "four-corners (the VDI JSON has all three)\n");
        return 2;
    }
    if (!nvm_vdi_load(c->p, nvm_path_workloads(), res, &err)) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        return 1;
    }
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        if (!run_one(c, w, nvm_vdi_names[w], vdi_body, &res[w], &err)) {
            fprintf(stderr, "nvmimic qtest: %s: %s\n", c->p->name,
                    err->message);
            nvm_vdi_results_clear(res);
            return 1;
        }
        progress(c, &c->work[w], "peak", res[w].peak.all.fig.iops,
                 res[w].peak.all.fig.lat_us);
    }
    results = nvm_results_from_vdi(c->p, &c->so, res);
    qtest_members(c, results, (g_get_monotonic_time() - t0) / 1e6);
    if (!write_results(c, results, &err)) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        rc = 1;
    }
    if (strcmp(c->o.format, "json")) {
        printf("%s: VDI suite through the device (qtest), seed %"
               G_GUINT64_FORMAT ", %g s per point\n", c->p->name, c->so.seed,
               c->so.duration_s);
        for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
            const NvmVdiResult *r = &res[w];

            printf("\n%s (%u outstanding)\n", r->mix->name,
                   nvm_mix_outstanding(r->mix));
            table_header();
            table_point("peak", 0, &r->peak.all.fig, &c->work[w].pt[0]);
            for (unsigned i = 0; i < r->n_curve; i++) {
                char load[16];

                g_snprintf(load, sizeof(load), "%d %%", r->target_pct[i]);
                table_point(load, r->target_iops[i], &r->curve[i].all.fig,
                            &c->work[w].pt[i + 1]);
            }
        }
    }
    nvm_vdi_results_clear(res);
    return rc;
}

static int qtest_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_qtest;
    Ctx c = { 0 };
    Opts *o = &c.o;
    g_autoptr(GError) err = NULL;
    gint64 t0 = g_get_monotonic_time();
    int rc;

    o->device_seed = -1;
    rc = nvm_opts_parse(cmd, argc, argv, o, NULL);
    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (o->device_seed_given) {
        o->device_seed = (gint64)o->device_seed_opt;
    }
    if (!o->profile) {
        return nvm_opts_error(cmd, "needs --profile NAME|PATH");
    }
    c.p = nvm_profile_load(o->profile, o->profile_dir, &err);
    if (!c.p) {
        fprintf(stderr, "nvmimic qtest: %s\n", err->message);
        return 1;
    }
    c.so.seed = o->seed;
    c.so.implied_threads = !strcmp(o->threads, "implied");
    c.so.duration_s = o->duration_s;
    rc = !strcmp(o->suite, "vdi") ? run_vdi(&c, t0) : run_corners(&c, t0);
    nvm_profile_free(c.p);
    return rc;
}

#define O(f) NVM_OPT_AT(Opts, f)

static const NvmOptPreset qtest_presets[] = {
    { "quick", "duration-s", "3" },
    { NULL },
};

static const NvmOpt qtest_opts[] = {
    NVM_OPT("profile", NVM_OPT_STR, O(profile), "NAME|PATH",
            "drive profile (name in the profile directory, or a path)"),
    NVM_OPT("suite", NVM_OPT_CHOICE, O(suite), NULL,
            "four-corners or vdi",
            .choices = "four-corners|vdi", .def = "four-corners"),
    NVM_OPT("format", NVM_OPT_CHOICE, O(format), NULL,
            "table or json", .choices = "table|json", .def = "table"),
    NVM_OPT("threads", NVM_OPT_CHOICE, O(threads), NULL,
            "stated or implied outstanding counts",
            .choices = "stated|implied", .def = "stated"),
    NVM_OPT("quick", NVM_OPT_FLAG, O(quick), NULL,
            "short points: the values marked --quick"),
    NVM_OPT("duration-s", NVM_OPT_DOUBLE, O(duration_s), "S",
            "measured simulated seconds per point", .min = 0.001,
            .max = 3600, .def = "30"),
    NVM_OPT("seed", NVM_OPT_U64, O(seed), "N",
            "seed of addresses, arrivals and the drive", .def = "1"),
    NVM_OPT("workloads", NVM_OPT_STR, O(workloads), "LIST",
            "four-corners: only these, comma-separated"),
    NVM_OPT("out", NVM_OPT_STR, O(out), "DIR",
            "also write DIR/results.json and render the report there"),
    NVM_OPT("qemu", NVM_OPT_STR, O(qemu), "PATH",
            "QEMU binary", .def_fn = nvm_path_qemu,
            .def_doc = "$NVMIMIC_QEMU, else nvmimic's own"),
    NVM_OPT("log-dir", NVM_OPT_STR, O(log_dir), "DIR",
            "keep each QEMU's output as DIR/qemu-WORKLOAD.log"),
    NVM_OPT("device-seed", NVM_OPT_U64, O(device_seed_opt), "N",
            "seed the device's model differently from the load "
            "generator's (a check: the run must stop at the first "
            "completion that differs)",
            .given = NVM_OPT_GIVEN(Opts, device_seed_given)),
    NVM_OPT_PROFILE_DIR(Opts, profile_dir),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_qtest = {
    .name = "qtest",
    .synopsis = "--profile NAME|PATH [--suite four-corners|vdi] [options]",
    .summary = "nvmimic sim's suites through the emulated device, no guest.",
    .description =
"Runs nvmimic sim's suites through the emulated device: QEMU under qtest\n"
"with the profiled nvme on null-co, one QEMU per workload, and a load\n"
"generator that plays the guest's NVMe driver in virtual time (submission\n"
"queue entries, doorbells at each I/O's time, the completion queue read\n"
"back and checked).  Same methodology, seeds and results as nvmimic sim,\n"
"with \"mode\": \"qtest\"; nvmimic report draws it.\n",
    .opts = qtest_opts,
    .presets = qtest_presets,
    .main = qtest_main,
};
