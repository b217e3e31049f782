/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the reviews' methodology inside a VM.  Suites:
 *   four-corners, vdi   peak + curve points (fio in the guest, one point at
 *                       a time), figures compared with the model's curve
 *   seq, render, sql    application workloads (large sequential transfers,
 *                       a render step on swap, TPC-C on PostgreSQL), each
 *                       one command in its own guest, with the device's
 *                       statistics over its measured interval
 * Every suite boots its own guest, so a failure costs only that suite.
 *
 * The host boots the guest (guest.c) with the profiled drive on a null-co
 * backend, a QMP socket, and a second serial port that the guest agent
 * (vm-images/agent.sh, shipped as the job's run.sh) talks on (agent.c).  The
 * suite's whole plan (plan.c: curves.c's or apps.c's commands, and the
 * in-band marks where the drive takes a queued state) is in the job before
 * the guest boots; the agent runs it and sends back each command's output,
 * the drive's statistics between the marks around each measured window
 * come over QMP, and results.json and results.csv are rewritten after every
 * point (record.c).
 *
 * With --connect URI the same guest runs as a libvirt domain instead, on
 * this machine or another: its files (kernel, initrd, profile, job and
 * results disks, the drive's backing file, the database guest's root) go up
 * as storage volumes, both serial ports (console, control) come back through
 * the connection, and the device's QMP commands go through
 * virDomainQemuMonitorCommand (libvirt/).  Only the monitor (Mon) and the
 * guest's start, liveness and end differ; every point runs the same code.
 *
 * The parts: run-int.h lists run/'s files top-down (each calls only those
 * below it); this file is the top: it runs the suites in order.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "qtestgen.h"
#include "run-int.h"

/* The drive's in-band marks, every statistics snapshot the guest took, in
 * DIR/guest[-SUITE]/marks.json (query-nvmimic-marks); returned (the
 * caller's), or NULL. */
static JsonNode *save_marks(Run *r)
{
    JsonNode *n = r->mon.exec && (r->qmp || r->lv) ?
        run_qmp_marks(r, -1, NULL) : NULL;
    g_autoptr(JsonGenerator) g = NULL;
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;

    if (!n) {
        return NULL;
    }
    g = json_generator_new();
    json_generator_set_root(g, n);
    json_generator_set_pretty(g, TRUE);
    json_generator_set_indent(g, 1);
    text = json_generator_to_data(g, NULL);
    g_mkdir_with_parents(r->gdir, 0755);
    path = g_build_filename(r->gdir, "marks.json", NULL);
    g_file_set_contents(path, text, -1, NULL);
    return n;
}

/* One suite in its own guest.  False when it failed (r->error says why). */
static bool run_suite(Run *r, int suite)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *cur = g_strdup_printf("%s boot", nvm_run_suites[suite]);
    App *a = suite >= S_SQL ? run_app_new(r, suite) : NULL;
    Plan *plan = run_plan_new(a);
    g_autoptr(JsonNode) marks = NULL;
    g_autofree char *plan_text = NULL;
    gint64 t0 = g_get_monotonic_time();
    bool ok = false, graceful = false;

    if (!run_cfg_for(r, suite, &err)) {
        goto out;
    }
    if (r->n_order > 1) {
        printf("nvmimic run: suite %s\n", nvm_run_suites[suite]);
        fflush(stdout);
    }
    run_save_results(r);
    /* The guest's whole plan: the pre-steps, then the suite (the
     * application suites start from a new, erased drive). */
    if (r->o.guest_pre) {
        GuestCmd c = {
            .verb = "SH", .id = "guest-pre", .label = "guest-pre",
            .args = r->o.guest_pre, .timeout_s = 600,
        };

        run_plan_cmd(plan, &c, "guest-pre", NULL, NULL, NULL);
    }
    if (a) {
        run_plan_app(r, a, plan);
    } else {
        run_plan_curves(r, suite, plan);
    }
    /* the agent goes on with a libvirt guest's control port after the
     * plan: QUIT comes from run_stop_guest() once the last result is read */
    plan_text = run_plan_text(plan, !r->o.connect);
    /* the marks' states are queued before the guest runs (QEMU is paused)
     * or while it boots (libvirt), seconds before its first mark */
    if (!run_start_guest(r, plan_text, &err) ||
        !run_plan_queue_states(r, plan, &err) || !run_faults_queue(r, &err) ||
        !run_trace_start(r, &err) ||
        !run_resume_guest(r, &err) || !run_wait_hello(r, &err)) {
        goto out;
    }
    ok = run_plan_exec(r, plan, &cur, &err);
    marks = save_marks(r);
    run_faults_collect(r, nvm_run_suites[suite]);
    /* a command that failed in a live guest: let it hand back its logs */
    graceful = !ok && a && a->log_tail;

out:
    if (ok || graceful) {
        if (!run_stop_guest(r) && ok) {
            fprintf(stderr, "nvmimic run: warning: the %s guest did not "
                    "power off by itself; its logs may be missing\n",
                    nvm_run_suites[suite]);
        }
    }
    run_kill_guest(r);
    /* the trace is whole once QEMU has exited */
    if (ok && !a && !run_trace_points(r, suite, marks, &err)) {
        g_free(cur);
        cur = g_strdup("--device-trace replay");
        ok = false;
    }
    nvm_line_close(r->ctl);
    r->ctl = NULL;
    run_plan_free(plan);
    {
        /* the agent's side of the channel, next to the console */
        g_autofree char *src = g_build_filename(r->tmp, "agent.log", NULL);
        g_autofree char *dst = g_build_filename(r->gdir, "agent.log", NULL);
        g_autofree char *text = NULL;
        gsize len;

        if (g_file_get_contents(src, &text, &len, NULL)) {
            g_file_set_contents(dst, text, len, NULL);
            unlink(src);
        }
    }
    /* a QMP call that met the domain destroyed from outside: exit 3 too */
    r->host_lost |= !ok && g_error_matches(err, NVM_LV_ERROR,
                                           NVM_LV_ERROR_HOST);
    if (a) {
        a->complete = ok;
        a->wall_s = (g_get_monotonic_time() - t0) / 1e6;
        if (!ok && err) {
            a->error = g_strdup(err->message);
        }
    }
    if (!ok && err) {
        g_autofree char *what = r->n_order > 1 ?
            g_strdup_printf("%s: %s", nvm_run_suites[suite], cur) :
            g_strdup(cur);

        if (r->error) {
            /* the first failure stays the run's; later ones are per app */
            fprintf(stderr, "nvmimic run: %s failed: %s\n", what,
                    err->message);
        } else {
            run_fail_point(r, what, err->message);
        }
    }
    run_save_results(r);
    return ok;
}

/* --baseline: the run against its baseline, as nvmimic diff; DIR/diff.txt.
 * The number of figures that moved beyond the tolerance, -1 on error. */
static int gate(Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(GString) out = g_string_new(NULL);
    g_autofree char *path = g_build_filename(r->dir, "diff.txt", NULL);
    int n = nvm_diff_runs(r->o.baseline, r->dir, r->o.tolerance_pct, false,
                          out, &err);

    if (n < 0) {
        fprintf(stderr, "nvmimic run: --baseline: %s\n", err->message);
        return 1;
    }
    fputs(out->str, stdout);
    if (!g_file_set_contents(path, out->str, out->len, &err)) {
        fprintf(stderr, "nvmimic run: %s\n", err->message);
    }
    return n;
}

/*
 * run --mode qtest is nvmimic qtest (no guest: the device driven over
 * qtest) with the options @given (nvm_opts_parse_given()) passed on under
 * qtest's names (--run-s is its --duration-s); one qtest does not take is
 * refused.
 */
static int run_as_qtest(GPtrArray *given)
{
    g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);

    g_ptr_array_add(args, g_strdup("qtest"));
    for (guint i = 0; i + 1 < given->len; i += 2) {
        const NvmOpt *o = g_ptr_array_index(given, i);
        const char *v = g_ptr_array_index(given, i + 1);
        const char *name = !strcmp(o->name, "run-s") ? "duration-s"
                                                      : o->name;
        const NvmOpt *q = nvm_cmd_qtest.opts;

        if (!strcmp(o->name, "mode")) {
            continue;
        }
        while (q->name && strcmp(q->name, name)) {
            q++;
        }
        if (!q->name) {
            return nvm_opts_error(&nvm_cmd_run, "--%s does not apply to "
                                  "--mode qtest, which boots no guest",
                                  o->name);
        }
        g_ptr_array_add(args, v ? g_strdup_printf("--%s=%s", name, v)
                                : g_strdup_printf("--%s", name));
    }
    g_ptr_array_add(args, NULL);
    return nvm_cmd_qtest.main((int)args->len - 1, (char **)args->pdata);
}

int run_main(int argc, char **argv)
{
    g_autoptr(GError) err = NULL;
    Run rr = { 0 };
    Run *r = &rr;
    RunOpts *o = &r->o;
    g_autoptr(GPtrArray) given = g_ptr_array_new();
    int rc;

    rc = nvm_opts_parse_given(&nvm_cmd_run, argc, argv, o, NULL, given);
    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (!strcmp(o->mode, "qtest")) {
        return run_as_qtest(given);
    }
    rc = run_resolve_opts(r, &nvm_cmd_run, given);
    if (rc) {
        return rc;
    }
    /* the model's curve over the guest's own point length */
    r->sim_duration_s = o->run_s;
    r->span_bytes = (uint64_t)(r->p->capacity_bytes *
                               r->p->review_span_pct / 100.0);
    r->span_bytes -= r->span_bytes % (1024 * 1024);
    {
        const char *curves = r->p->review_state == NVM_REVIEW_FILLED ?
            "filled: nvmimic-set-state secure-erase, fill-pct 100 and the "
            "static SLC cache full (as the model's review state), before "
            "each workload" :
            "erased: nvmimic-set-state secure-erase, then the span written "
            "once sequentially in the guest (128 KiB, 8 outstanding: "
            "nvmimic-load, as the model's; VDI: fio, 1 MiB), before each "
            "workload";
        const char *apps = "secure-erased (nvmimic-set-state secure-erase) "
            "before each application suite, as a new drive";
        bool has_curves = run_has_suite(r, S_FC) || run_has_suite(r, S_VDI);
        bool has_apps = run_has_suite(r, S_SQL) || run_has_suite(r, S_RENDER) ||
                        run_has_suite(r, S_SEQ);

        r->precondition_text = has_curves && has_apps ?
            g_strdup_printf("%s; %s", curves, apps) :
            g_strdup(has_apps ? apps : curves);
        r->precondition = r->precondition_text;
    }
    {
        g_autoptr(GDateTime) now = g_date_time_new_now_local();

        r->started = g_date_time_format_iso8601(now);
        if (!o->out) {
            g_autofree char *ts = g_date_time_format(now, "%Y%m%d-%H%M%S");

            r->dir = g_strdup_printf("out/%s-%s-%s", r->p->name, o->suite, ts);
        } else {
            r->dir = g_strdup(o->out);
        }
    }
    if (g_mkdir_with_parents(r->dir, 0755)) {
        fprintf(stderr, "nvmimic run: cannot create %s: %s\n", r->dir,
                g_strerror(errno));
        return 1;
    }
    r->tmp = g_dir_make_tmp("nvmimic-run-XXXXXX", &err);
    if (!r->tmp) {
        fprintf(stderr, "nvmimic run: %s\n", err->message);
        return 1;
    }
    r->tty = isatty(1);
    r->t0 = g_get_monotonic_time();
    run_catch_signals();

    if (!run_setup(r, &err)) {
        fprintf(stderr, "nvmimic run: %s\n", err->message);
        return 2;
    }
    printf("nvmimic run: %s, %s, %s, %u workload(s) x %u points, %u "
           "application suite(s), results in %s\n", r->p->name, o->suite,
           o->mode, r->n_wls, r->n_pcts + 1,
           r->n_order - run_has_suite(r, S_FC) - run_has_suite(r, S_VDI),
           r->dir);
    fflush(stdout);
    run_save_results(r);

    for (unsigned i = 0; i < r->n_order; i++) {
        /* a suite that fails costs only itself; Ctrl-C and a lost
         * libvirt host end the run */
        if (!run_suite(r, r->order[i]) && (run_interrupted || r->host_lost)) {
            break;
        }
    }
    r->complete = !r->error && !run_interrupted;

    if (r->tty) {
        printf("\n");
    }
    run_save_results(r);
    run_save_report(r);
    run_print_table(r);
    if (r->error) {
        fprintf(stderr, "nvmimic run: %s failed: %s; results so far are in "
                "%s/results.json and report.html\n", r->failed_point,
                r->error, r->dir);
    } else {
        printf("results: %s/results.json, %s/results.csv, %s/report.html\n",
               r->dir, r->dir, r->dir);
    }
    {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", r->tmp);

        if (system(cmd)) {
            /* leftovers in /tmp are harmless */
        }
    }
    if (o->baseline && !run_interrupted) {
        rc = gate(r);
    } else {
        rc = -1;
    }
    for (unsigned i = 0; i < S_N; i++) {
        run_app_free(r->apps[i]);
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        g_free(r->wls[w].jobfile);
    }
    if (r->have_vdi) {
        nvm_vdi_results_clear(r->vdi);
    }
    run_cfg_clear(&r->cfg);
    g_free(r->gdir);
    g_free(r->render_mem);
    g_free(r->sql_mem);
    g_free(r->sql_image);
    g_free(r->trace_path);
    if (r->faults) {
        json_node_unref(r->faults);
    }
    if (r->fault_runs) {
        json_array_unref(r->fault_runs);
    }
    g_free(r->precondition_text);
    g_free(r->accel);
    g_free(r->kvm_why);
    g_free(r->results_img);
    g_free(r->lv_console);
    nvm_profile_free(r->p);
    if (run_interrupted) {
        return 130;
    }
    if (r->error) {
        return r->host_lost ? 3 : 1;
    }
    return rc > 0 ? 1 : 0;
}

const NvmCommand nvm_cmd_run = {
    .name = "run",
    .synopsis = "--profile NAME|PATH --suite SUITE[,SUITE...] [options]",
    .summary = "Run the reviews' suites in VMs that see the profiled drive.",
    .description =
"Each suite boots its own guest (vm-images/) with the profiled drive.\n"
"four-corners and vdi: preconditioned like the review, each workload's\n"
"curve runs in the guest's load generator, nvmimic-load (vdi: the mix of\n"
"harness/workloads/vdi-*.fio; through fio with --fio-opts): an unthrottled\n"
"peak at the workload's outstanding count, then Poisson rates of 10..120 %\n"
"of that peak.  Per point it records the load generator's figures, the\n"
"device's own statistics over the same interval (QMP) and the model's\n"
"curve (nvmimic sim).\n"
"The application suites start from a secure-erased drive:\n"
"  seq     1 MiB sequential write then read at QD 8 and 32, GB/s\n"
"  render  workloads/render in a small guest with swap on the drive;\n"
"          seconds per phase\n"
"  sql     TPC-C on PostgreSQL 15 in the database guest (make dbguest)\n"
"          on a database loaded once (make sqldb) under a throwaway\n"
"          overlay: warm-up, sample; latency per transaction, the device's\n"
"          and the guest's over the sample.  By default drive-bound at a\n"
"          2-core host's scale, the database 5.4 x the guest's RAM (the\n"
"          reviews' 5.2; --sql-* below)\n"
"Writes DIR/results.json (after every point; \"complete\": false until the\n"
"end; docs/results.md), DIR/results.csv, DIR/apps.csv and the guests' logs\n"
"in DIR/guest/ (DIR/guest-SUITE/ with several suites).\n"
"Environment: NVMIMIC_QEMU, NVMIMIC_GUEST_DIR, NVMIMIC_DBGUEST_DIR,\n"
"NVMIMIC_SQLDB_DIR, NVMIMIC_RENDER (the static render program),\n"
"NVMIMIC_AGENT (the guest agent script, for tests), NVMIMIC_QEMU_IMG.\n",
    .opts = run_opt_table,
    .presets = run_presets,
    .main = run_main,
};
