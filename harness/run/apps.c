/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the application suites, one command each in its own guest:
 * seq (1 MiB sequential GB/s), render (a render step on swap) and sql
 * (TPC-C on PostgreSQL), with the device's statistics over their measured
 * interval.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run-int.h"

App *run_app_new(Run *r, int suite)
{
    App *a = g_new0(App, 1);

    a->suite = suite;
    r->apps[suite] = a;
    return a;
}

void run_app_free(App *a)
{
    if (!a) {
        return;
    }
    g_free(a->error);
    g_free(a->log_tail);
    if (a->result) {
        json_node_unref(a->result);
    }
    if (a->device) {
        json_node_unref(a->device);
    }
    for (unsigned i = 0; i < a->n_steps; i++) {
        g_free(a->steps[i].name);
        if (a->steps[i].device) {
            json_node_unref(a->steps[i].device);
        }
    }
    g_free(a);
}

/* One seq step's result: fio's figures and the device's over its I/O. */
static bool seq_done(Run *r, PlanStep *ps, JsonNode *stats, const char *json,
                     GError **errp)
{
    App *a = ps->opaque;
    AppStep *st = ps->opaque2;

    if (!run_parse_fio(json, st->rw, &st->guest, errp)) {
        return false;
    }
    st->name = g_strdup(ps->c.id);
    st->device = json_node_copy(stats);
    a->n_steps++;
    printf("%s seq %s QD %u: %.2f GB/s, lat %.0f us (device %.0f us)\n",
           r->p->name, st->rw, st->qd, st->guest.mbps / 1e3, st->guest.lat_us,
           run_dev_lat(st->device, st->rw, "mean-us"));
    fflush(stdout);
    run_save_results(r);
    return true;
}

/* seq: 1 MiB sequential write then read at QD 8 and 32. */
static void plan_seq(Run *r, App *a, Plan *p)
{
    static const unsigned qds[] = { 8, 32 };
    static const char *const rws[] = { "write", "read" };
    unsigned n = 0;

    for (unsigned q = 0; q < G_N_ELEMENTS(qds); q++) {
        for (unsigned k = 0; k < G_N_ELEMENTS(rws); k++) {
            AppStep *st = &a->steps[n++];
            g_autofree char *name = g_strdup_printf("seq-%s-qd%u", rws[k],
                                                    qds[q]);
            g_autofree char *args = NULL;
            /*
             * The device's window: around the whole command.  Its figures
             * are over the drive's active span (first command to last
             * completion), so fio's start-up and exit do not dilute them;
             * a window opened at the first I/O would miss what the guest
             * moves while the mark is sent (nvme-cli's start, milliseconds
             * of guest CPU: 29 MB of 268 at QD 8 on a P2 2 TB).
             */
            GuestCmd c = {
                .verb = "SH", .id = name, .label = "seq",
                .window = WIN_WHOLE,
            };

            st->rw = rws[k];
            st->qd = qds[q];
            st->bytes = r->o.seq_bytes;
            args = g_strdup_printf("SEQ_DEV=/dev/nvme0n1 SEQ_SIZE=%"
                                   G_GUINT64_FORMAT " SEQ_QD=%u SEQ_DIRECT=1 "
                                   "fio ./seq-%s.fio --output-format=json "
                                   "--lat_percentiles=1 "
                                   "--percentile_list=50:99:99.9 "
                                   "--output=$RESULTS/%s.json", st->bytes,
                                   st->qd, st->rw, name);
            c.args = args;
            /* TCG moves ~50 MB of 1 MiB I/Os per wall second here */
            c.timeout_s = 120 + st->bytes / 5e6;
            run_plan_cmd(p, &c, "seq", seq_done, a, st);
        }
    }
}

/* render's result: seconds per phase; the device over the whole job. */
static bool render_done(Run *r, PlanStep *ps, JsonNode *stats,
                        const char *json, GError **errp)
{
    App *a = ps->opaque;
    JsonObject *o, *res;

    a->device = json_node_copy(stats);
    a->result = run_parse_json(json, "render", errp);
    if (!a->result) {
        return false;
    }
    o = JSON_NODE_HOLDS_OBJECT(a->result) ?
        json_node_get_object(a->result) : NULL;
    res = o && json_object_has_member(o, "result") ?
          json_object_get_object_member(o, "result") : NULL;
    if (!res) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "render's JSON has no result");
        return false;
    }
    printf("%s render (%u MiB guest, array %.0f MB): load %.1f s, unpack "
           "%.1f s, repack %.1f s, total %.1f s\n", r->p->name,
           r->o.render_mem_mib, nvm_json_double(res, "array_bytes") / 1e6,
           nvm_json_double(res, "load_s"), nvm_json_double(res, "unpack_s"),
           nvm_json_double(res, "repack_s"), nvm_json_double(res, "total_s"));
    fflush(stdout);
    return true;
}

/* render: swap on the drive, load / unpack / repack; seconds. */
static void plan_render(Run *r, App *a, Plan *p)
{
    /* swap for the working array beyond RAM, with room to spare */
    unsigned swap_mb = MAX(1024, (unsigned)(r->o.render_mem_mib *
                                            r->o.render_ram_factor * 2));
    g_autofree char *args = g_strdup_printf(
        "SWAP_MB=%u; RAM_FACTOR=%g; printf 'SWAP_MB=%u\\nRAM_FACTOR=%g\\n' "
        ">render.conf && sh ./render.sh", swap_mb, r->o.render_ram_factor,
        swap_mb, r->o.render_ram_factor);
    GuestCmd c = {
        .verb = "SH", .id = "render-job", .label = "render", .args = args,
        .window = WIN_WHOLE, .timeout_s = 3600,
    };

    run_plan_cmd(p, &c, "render", render_done, a, NULL);
}

/* sql's result: TPC-C's figures; the device over the measured sample. */
static bool sql_done(Run *r, PlanStep *ps, JsonNode *stats, const char *json,
                     GError **errp)
{
    App *a = ps->opaque;
    JsonObject *o, *ov;
    JsonObject *rd, *wr;
    double guest_rd;

    a->device = json_node_copy(stats);
    a->result = run_parse_json(json, "tpcc", errp);
    if (!a->result) {
        return false;
    }
    o = JSON_NODE_HOLDS_OBJECT(a->result) ?
        json_node_get_object(a->result) : NULL;
    ov = o && json_object_has_member(o, "overall") ?
         json_object_get_object_member(o, "overall") : NULL;
    rd = run_stats_class(a->device, "read");
    wr = run_stats_class(a->device, "write");
    guest_rd = run_sql_guest_lat(a->result, "read");
    printf("%s sql (%s, W=%u, %u users): %.1f tpmC, avg %.2f ms, p95 %.2f "
           "ms, p99 %.2f ms; device %.0f reads of %.1f us, %.0f writes of "
           "%.1f us; guest reads %.1f us (%+.1f us)\n", r->p->name,
           r->o.sql_topology, r->o.sql_w, r->o.sql_users,
           nvm_json_double(o, "tpmC"), nvm_json_double(ov, "avg_ms"),
           nvm_json_double(ov, "p95_ms"), nvm_json_double(ov, "p99_ms"),
           nvm_json_double(rd, "count"), nvm_json_double(rd, "mean-us"),
           nvm_json_double(wr, "count"), nvm_json_double(wr, "mean-us"),
           guest_rd, guest_rd - nvm_json_double(rd, "mean-us"));
    fflush(stdout);
    return true;
}

/*
 * sql: TPC-C on PostgreSQL in the database guest, on the loaded database
 * (warm-up, sample), or with --connect loaded in the guest first.
 * tpcc.sh marks the sample itself ($NVMIMIC_MARK_CMD) on the NVMe drive.
 * Through the block filter (sas, virtio) the guest has no NVMe controller
 * to send in-band marks to: the host resets the filter's statistics when
 * tpcc.sh reports the sample's start and reads them when it reports its
 * end (GuestCmd.qmp_window), which touches only the statistics, nothing
 * the guest sees, but lies where the host read the lines.  pgbench draws
 * from the run's seed, not the guest's clock, so that a rerun draws the
 * same numbers (its timing still differs: docs/apps.md).
 */
static void plan_sql(Run *r, App *a, Plan *p)
{
    bool filter = strcmp(r->o.sql_topology, "nvme") != 0;
    g_autofree char *args = g_strdup_printf(
        "%ssh ./tpcc/tpcc.sh -w %u -u %u -P %u -S %u -k %g --seed %" G_GUINT64_FORMAT
        " %s-o $RESULTS/tpcc "
        "%s && cp $RESULTS/tpcc/report.json $RESULTS/tpcc.json",
        filter ? "NVMIMIC_MARK_CMD= " : "", r->o.sql_w,
        r->o.sql_users, r->o.sql_pre_s, r->o.sql_sample_s, r->o.sql_think,
        r->o.seed % 1000000000,
        r->sql_image ? "" : "--device /dev/nvme0n1 ",
        r->sql_image ? "run" : "all");
    GuestCmd c = {
        .verb = "SH", .id = "tpcc", .label = "sql", .args = args,
        .window = filter ? WIN_NONE : WIN_CMD,
        .qmp_window = filter,
        /* loading takes minutes a warehouse under TCG; a simulated second
         * of the busy database a few wall seconds */
        .timeout_s = 900 + (r->sql_image ? 0 : 900.0 * r->o.sql_w) +
                     20.0 * (r->o.sql_pre_s + r->o.sql_sample_s),
    };

    run_plan_cmd(p, &c, "sql", sql_done, a, NULL);
}

/*
 * An application suite's plan: a new, erased drive, then its commands.
 * sql on a loaded database keeps the drive holding it (the device mapped
 * the image's blocks when it started: profile-map-allocated); through the
 * block filter there is no drive to send a mark to (plan_sql()).
 */
void run_plan_app(Run *r, App *a, Plan *p)
{
    if (a->suite != S_SQL || !strcmp(r->o.sql_topology, "nvme")) {
        run_plan_mark(p, nvm_run_suites[a->suite],
                      nvm_run_suites[a->suite],
                      a->suite == S_SQL && r->sql_image ?
                      "\"reset-stats\": true" :
                      "\"secure-erase\": true, \"reset-stats\": true",
                      true);
    }
    switch (a->suite) {
    case S_SEQ:
        plan_seq(r, a, p);
        break;
    case S_RENDER:
        plan_render(r, a, p);
        break;
    default:
        plan_sql(r, a, p);
    }
}
