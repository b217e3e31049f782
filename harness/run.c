/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the reviews' four-corners methodology inside a VM.
 *
 * The host boots vm-images/run-guest.sh with the profiled drive on a null-co
 * backend, a QMP socket, and a second serial port (a socket chardev) that the
 * guest agent (vm-images/agent.sh, shipped as the job's run.sh) reads
 * commands from.  Per point the host sends a fio command line; the agent
 * marks the start and end of a window inside fio's measured interval, over
 * which the host resets and reads the device statistics, and returns fio's
 * JSON.  results.json and results.csv are rewritten after every point.
 *
 * With --connect URI the same guest runs as a libvirt domain instead: the
 * control port is a <serial type='unix'> libvirt binds, the job and results
 * disks are libvirt <disk>s, and the device's QMP commands go through
 * virDomainQemuMonitorCommand.  Only the monitor (Mon below) and the guest's
 * start, liveness and end differ; every point runs the same code.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "guestctl.h"
#include "libvirt.h"
#include "qmp.h"
#include "run.h"
#include "sim.h"

#ifndef NVMIMIC_QEMU
#define NVMIMIC_QEMU "qemu-system-x86_64"
#endif
#ifndef NVMIMIC_GUEST_DIR
#define NVMIMIC_GUEST_DIR "build/guest"
#endif
#ifndef NVMIMIC_SOURCE_DIR
#define NVMIMIC_SOURCE_DIR "."
#endif

#define MAX_PCTS 24
#define BOOT_TIMEOUT_S 300
/* A point is host-limited when the guest stayed this far below its target
 * and the device did not have the workload's outstanding count queued. */
#define SHORT_FRAC 0.95
#define BUSY_FRAC 0.85
/* ... or when the guest's own part of the latency (guest minus device)
 * exceeds this many us and this fraction of the device's: its single vCPU
 * is queueing the I/Os, so the latency is not the drive's. */
#define GUEST_US 50.0
#define GUEST_FRAC 0.5

static const char *const suites[] = { "four-corners", NULL };
static const char *const modes[] = { "simtime", "realtime", NULL };

typedef struct RunOpts {
    const char *profile;
    const char *profile_dir;
    const char *suite;
    const char *mode;
    const char *out;
    const char *workloads;
    const char *threads;
    const char *qemu;
    const char *guest_dir;
    const char *points;
    uint64_t seed;
    bool quick;
    double run_s, ramp_s, peak_ramp_s;
    double point_timeout_s;
    const char *connect;        /* libvirt URI, or NULL: spawn QEMU */
} RunOpts;

/* The device's QMP monitor: QEMU's socket, or libvirt's passthrough. */
typedef struct Mon {
    JsonNode *(*exec)(void *h, const char *cmd, const char *args,
                      int timeout_ms, GError **errp);
    void *h;
} Mon;

typedef struct Fig {
    double iops, mbps, lat_us, p50_us, p99_us, p999_us;
} Fig;

typedef struct Point {
    bool done;
    int target_pct;             /* 0: the peak */
    double target_iops;
    Fig guest;
    bool have_host;
    Fig host;
    uint64_t host_late;
    double host_interval_s;
    bool host_limited;
    const char *limit;          /* why host-limited: "rate", "guest-latency" */
    double shortfall_pct;
    double sim_lat_us;          /* NAN: outside the model's curve */
    double wall_s;
} Point;

typedef struct Wl {
    NvmWorkload wl;
    unsigned jobs, iodepth;
    Point peak;
    Point curve[MAX_PCTS];
    unsigned n_curve;
    const NvmCornerResult *sim;
    double review_iops, review_lat_us;   /* NAN where unknown */
} Wl;

typedef struct Run {
    RunOpts o;
    NvmProfile *p;
    char *profile_path;
    char *dir;
    char *tmp;
    uint64_t span_bytes;
    const char *precondition;
    Wl wls[NVM_FOUR_CORNERS];
    unsigned n_wls;
    int pcts[MAX_PCTS];
    unsigned n_pcts;
    NvmCornerResult sim[NVM_FOUR_CORNERS];
    double sim_duration_s;
    char *accel;
    char *started;
    gint64 t0;
    bool complete;
    char *error;
    char *failed_point;
    /* the guest */
    pid_t child;
    NvmQmp *qmp;
    NvmLvGuest *lv;             /* --connect */
    char *lv_results;           /* its results disk, unpacked at the end */
    char *lv_console;
    bool host_lost;             /* the libvirt host dropped: exit status 3 */
    Mon mon;
    NvmLineSock *ctl;
    bool tty;
} Run;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int run_usage(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int run_usage(const char *fmt, ...)
{
    va_list ap;

    fputs("nvmimic run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see nvmimic run --help)\n", stderr);
    return 2;
}

static void run_help(void)
{
    fputs(
"usage: nvmimic run --profile NAME|PATH --suite four-corners\n"
"    [--mode simtime|realtime] [--quick] [--out DIR] [--seed N]\n"
"    [--workloads a,b] [--threads stated|implied] [--points 10,50,100]\n"
"    [--run-s S] [--ramp-s S] [--point-timeout-s S]\n"
"    [--qemu PATH] [--guest-dir DIR] [--profile-dir DIR] [--connect URI]\n"
"Boots the guest (vm-images/) with the profiled drive, preconditions it like\n"
"the review, and runs each workload with fio: an unthrottled peak at the\n"
"workload's outstanding count, then Poisson rates of 10..120 % of that peak.\n"
"Per point it records the guest's fio figures, the device's own statistics\n"
"over the same interval (QMP) and the model's curve (nvmimic sim).\n"
"  --mode simtime    TCG with -icount shift=0,sleep=off (default; exact,\n"
"                    repeatable; the guest's CPU tops out near 55 K IOPS)\n"
"  --mode realtime   KVM when a probe guest boots under it, else TCG\n"
"  --quick           0.5 s per point after a 0.1 s ramp (default 30 s after\n"
"                    6 s for the peak and 3 s for the rates, as vdbench)\n"
"  --out DIR         default out/PROFILE-SUITE-YYYYmmdd-HHMMSS\n"
"  --connect URI     run the guest as a libvirt domain on URI (qemu:///system,\n"
"                    qemu+ssh://HOST/system): QMP through libvirt, the same\n"
"                    outputs; --qemu names the emulator path on that host.\n"
"                    Exit status 3: the host was unreachable or dropped the\n"
"                    domain (nvmimic matrix retries such a run elsewhere)\n"
"Writes DIR/results.json (after every point; \"complete\": false until the\n"
"end), DIR/results.csv and the guest's logs in DIR/guest/.\n"
"Environment: NVMIMIC_QEMU (QEMU binary), NVMIMIC_GUEST_DIR, NVMIMIC_AGENT\n"
"(the guest agent script, for tests).\n", stdout);
}

static bool parse_pos_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(s, &end);
    return !errno && end != s && !*end && isfinite(*out) && *out > 0;
}

static char *join_list(const char *const *v)
{
    return g_strjoinv(", ", (char **)v);
}

static bool in_list(const char *s, const char *const *v)
{
    for (; *v; v++) {
        if (!strcmp(s, *v)) {
            return true;
        }
    }
    return false;
}

static int parse_run_opts(int argc, char **argv, RunOpts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--quick")) {
            o->quick = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            run_help();
            exit(0);
        }
        if (strncmp(a, "--", 2)) {
            return run_usage("unexpected argument '%s'", a);
        }
        if (!v) {
            return run_usage("option %s needs a value", a);
        }
        i++;
        if (!strcmp(a, "--profile")) {
            o->profile = v;
        } else if (!strcmp(a, "--profile-dir")) {
            o->profile_dir = v;
        } else if (!strcmp(a, "--suite")) {
            o->suite = v;
        } else if (!strcmp(a, "--mode")) {
            o->mode = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--workloads")) {
            o->workloads = v;
        } else if (!strcmp(a, "--threads")) {
            o->threads = v;
        } else if (!strcmp(a, "--qemu")) {
            o->qemu = v;
        } else if (!strcmp(a, "--guest-dir")) {
            o->guest_dir = v;
        } else if (!strcmp(a, "--points")) {
            o->points = v;
        } else if (!strcmp(a, "--connect")) {
            o->connect = v;
        } else if (!strcmp(a, "--seed")) {
            char *end;

            errno = 0;
            o->seed = g_ascii_strtoull(v, &end, 0);
            if (errno || !*v || *end || *v == '-') {
                return run_usage("--seed '%s' is not an unsigned integer", v);
            }
        } else if (!strcmp(a, "--run-s")) {
            if (!parse_pos_double(v, &o->run_s) || o->run_s > 3600) {
                return run_usage("--run-s '%s' must be a number in (0, 3600]",
                                 v);
            }
        } else if (!strcmp(a, "--ramp-s")) {
            if (!parse_pos_double(v, &o->ramp_s) || o->ramp_s > 600) {
                return run_usage("--ramp-s '%s' must be a number in (0, 600]",
                                 v);
            }
        } else if (!strcmp(a, "--point-timeout-s")) {
            if (!parse_pos_double(v, &o->point_timeout_s)) {
                return run_usage("--point-timeout-s '%s' must be a number > 0",
                                 v);
            }
        } else {
            return run_usage("unknown option '%s'", a);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Output */

static void add_fig(JsonBuilder *b, const Fig *f)
{
    json_builder_set_member_name(b, "iops");
    json_builder_add_double_value(b, round(f->iops * 10) / 10);
    json_builder_set_member_name(b, "mbps");
    json_builder_add_double_value(b, round(f->mbps * 100) / 100);
    json_builder_set_member_name(b, "lat_us");
    json_builder_add_double_value(b, round(f->lat_us * 100) / 100);
    json_builder_set_member_name(b, "p50_us");
    json_builder_add_double_value(b, round(f->p50_us * 100) / 100);
    json_builder_set_member_name(b, "p99_us");
    json_builder_add_double_value(b, round(f->p99_us * 100) / 100);
    json_builder_set_member_name(b, "p999_us");
    json_builder_add_double_value(b, round(f->p999_us * 100) / 100);
}

static void add_num_or_null(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isnan(v)) {
        json_builder_add_null_value(b);
    } else {
        json_builder_add_double_value(b, round(v * 100) / 100);
    }
}

static void add_point(JsonBuilder *b, const Point *pt, bool curve)
{
    json_builder_begin_object(b);
    if (curve) {
        json_builder_set_member_name(b, "target_pct");
        json_builder_add_int_value(b, pt->target_pct);
        json_builder_set_member_name(b, "target_iops");
        json_builder_add_double_value(b, round(pt->target_iops * 10) / 10);
    }
    add_fig(b, &pt->guest);
    add_num_or_null(b, "host_iops", pt->have_host ? pt->host.iops : NAN);
    add_num_or_null(b, "host_lat_us", pt->have_host ? pt->host.lat_us : NAN);
    add_num_or_null(b, "host_p50_us", pt->have_host ? pt->host.p50_us : NAN);
    add_num_or_null(b, "host_p99_us", pt->have_host ? pt->host.p99_us : NAN);
    add_num_or_null(b, "host_p999_us",
                    pt->have_host ? pt->host.p999_us : NAN);
    add_num_or_null(b, "host_interval_s",
                    pt->have_host ? pt->host_interval_s : NAN);
    json_builder_set_member_name(b, "host_late");
    json_builder_add_int_value(b, (gint64)pt->host_late);
    json_builder_set_member_name(b, "host_limited");
    json_builder_add_boolean_value(b, pt->host_limited);
    json_builder_set_member_name(b, "host_limited_by");
    if (pt->limit) {
        json_builder_add_string_value(b, pt->limit);
    } else {
        json_builder_add_null_value(b);
    }
    add_num_or_null(b, "shortfall_pct", pt->shortfall_pct);
    add_num_or_null(b, "sim_lat_us", pt->sim_lat_us);
    add_num_or_null(b, "wall_s", pt->wall_s);
    json_builder_end_object(b);
}

static void add_sim_result(JsonBuilder *b, const NvmRunResult *r)
{
    Fig f = { r->iops, r->mbps, r->lat_us, r->p50_us, r->p99_us, r->p999_us };

    json_builder_begin_object(b);
    add_fig(b, &f);
    json_builder_end_object(b);
}

static char *results_json(const Run *r)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) g = json_generator_new();
    g_autoptr(JsonNode) root = NULL;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "profile");
    json_builder_add_string_value(b, r->p->name);
    json_builder_set_member_name(b, "mode");
    json_builder_add_string_value(b, "guest");
    json_builder_set_member_name(b, "run_mode");
    json_builder_add_string_value(b, r->o.mode);
    json_builder_set_member_name(b, "accel");
    json_builder_add_string_value(b, r->accel ? r->accel : "unknown");
    json_builder_set_member_name(b, "connect");
    if (r->o.connect) {
        json_builder_add_string_value(b, r->o.connect);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "suite");
    json_builder_add_string_value(b, r->o.suite);
    json_builder_set_member_name(b, "seed");
    json_builder_add_int_value(b, (gint64)r->o.seed);
    json_builder_set_member_name(b, "threads_mode");
    json_builder_add_string_value(b, r->o.threads);
    json_builder_set_member_name(b, "duration_s");
    json_builder_add_double_value(b, r->o.run_s);
    json_builder_set_member_name(b, "ramp_s");
    json_builder_add_double_value(b, r->o.ramp_s);
    json_builder_set_member_name(b, "peak_ramp_s");
    json_builder_add_double_value(b, r->o.peak_ramp_s);
    json_builder_set_member_name(b, "quick");
    json_builder_add_boolean_value(b, r->o.quick);
    json_builder_set_member_name(b, "sim_duration_s");
    json_builder_add_double_value(b, r->sim_duration_s);
    json_builder_set_member_name(b, "span_bytes");
    json_builder_add_int_value(b, (gint64)r->span_bytes);
    json_builder_set_member_name(b, "precondition");
    json_builder_add_string_value(b, r->precondition);
    json_builder_set_member_name(b, "started");
    json_builder_add_string_value(b, r->started);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b,
        round((g_get_monotonic_time() - r->t0) / 1e5) / 10);
    json_builder_set_member_name(b, "complete");
    json_builder_add_boolean_value(b, r->complete);
    json_builder_set_member_name(b, "error");
    if (r->error) {
        json_builder_add_string_value(b, r->error);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "failed_point");
    if (r->failed_point) {
        json_builder_add_string_value(b, r->failed_point);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "workloads");
    json_builder_begin_array(b);
    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, wl->wl.name);
        json_builder_set_member_name(b, "threads");
        json_builder_add_int_value(b, wl->wl.threads);
        json_builder_set_member_name(b, "jobs");
        json_builder_add_int_value(b, wl->jobs);
        json_builder_set_member_name(b, "iodepth");
        json_builder_add_int_value(b, wl->iodepth);
        json_builder_set_member_name(b, "block_bytes");
        json_builder_add_int_value(b, wl->wl.block_bytes);
        json_builder_set_member_name(b, "peak");
        if (wl->peak.done) {
            add_point(b, &wl->peak, false);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "curve");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < wl->n_curve; i++) {
            if (wl->curve[i].done) {
                add_point(b, &wl->curve[i], true);
            }
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "sim");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "peak");
        add_sim_result(b, &wl->sim->peak);
        json_builder_set_member_name(b, "curve");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < wl->sim->n_curve; i++) {
            Fig f = { wl->sim->curve[i].iops, wl->sim->curve[i].mbps,
                      wl->sim->curve[i].lat_us, wl->sim->curve[i].p50_us,
                      wl->sim->curve[i].p99_us, wl->sim->curve[i].p999_us };

            json_builder_begin_object(b);
            json_builder_set_member_name(b, "target_pct");
            json_builder_add_int_value(b, wl->sim->target_pct[i]);
            json_builder_set_member_name(b, "target_iops");
            json_builder_add_double_value(b,
                round(wl->sim->target_iops[i] * 10) / 10);
            add_fig(b, &f);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "review");
        if (isnan(wl->review_iops)) {
            json_builder_add_null_value(b);
        } else {
            json_builder_begin_object(b);
            add_num_or_null(b, "iops", wl->review_iops);
            add_num_or_null(b, "lat_us", wl->review_lat_us);
            json_builder_end_object(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);

    root = json_builder_get_root(b);
    json_generator_set_root(g, root);
    json_generator_set_pretty(g, TRUE);
    json_generator_set_indent(g, 1);
    return json_generator_to_data(g, NULL);
}

static void csv_num(GString *s, double v)
{
    if (isnan(v)) {
        g_string_append(s, ",");
    } else {
        g_string_append_printf(s, ",%.2f", v);
    }
}

static void csv_point(GString *s, const Run *r, const Wl *wl, const Point *pt)
{
    g_string_append_printf(s, "%s,%s,%u,", r->p->name, wl->wl.name,
                           wl->wl.threads);
    if (pt->target_pct) {
        g_string_append_printf(s, "%d,%d,%.1f", pt->target_pct,
                               pt->target_pct, pt->target_iops);
    } else {
        g_string_append(s, "peak,,");
    }
    csv_num(s, pt->guest.iops);
    csv_num(s, pt->guest.mbps);
    csv_num(s, pt->guest.lat_us);
    csv_num(s, pt->guest.p50_us);
    csv_num(s, pt->guest.p99_us);
    csv_num(s, pt->guest.p999_us);
    csv_num(s, pt->have_host ? pt->host.iops : NAN);
    csv_num(s, pt->have_host ? pt->host.lat_us : NAN);
    csv_num(s, pt->have_host ? pt->host.p99_us : NAN);
    g_string_append_printf(s, ",%s", pt->host_limited ? "true" : "false");
    csv_num(s, pt->shortfall_pct);
    csv_num(s, pt->sim_lat_us);
    g_string_append_c(s, '\n');
}

static char *results_csv(const Run *r)
{
    GString *s = g_string_new("profile,workload,threads,point,target_pct,"
                              "target_iops,iops,mbps,lat_us,p50_us,p99_us,"
                              "p999_us,host_iops,host_lat_us,host_p99_us,"
                              "host_limited,shortfall_pct,sim_lat_us\n");

    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        if (wl->peak.done) {
            csv_point(s, r, wl, &wl->peak);
        }
        for (unsigned i = 0; i < wl->n_curve; i++) {
            if (wl->curve[i].done) {
                csv_point(s, r, wl, &wl->curve[i]);
            }
        }
    }
    return g_string_free(s, FALSE);
}

/* Both files are replaced atomically (written aside, then renamed). */
static void save_results(const Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *js = results_json(r);
    g_autofree char *csv = results_csv(r);
    g_autofree char *jp = g_build_filename(r->dir, "results.json", NULL);
    g_autofree char *cp = g_build_filename(r->dir, "results.csv", NULL);

    if (!g_file_set_contents(jp, js, -1, &err) ||
        !g_file_set_contents(cp, csv, -1, &err)) {
        fprintf(stderr, "nvmimic run: cannot write results: %s\n",
                err->message);
    }
}

/* ------------------------------------------------------------------ */
/* Figures */

static double obj_double(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;

    return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : NAN;
}

/* fio's JSON (group_reporting: one job) into @f; false if unusable. */
static bool parse_fio(const char *text, bool write, Fig *f, GError **errp)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    const char *brace = strchr(text, '{');
    JsonObject *root, *job, *dd, *lat, *pct;
    JsonArray *jobs;

    if (!brace) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio produced no JSON");
        return false;
    }
    if (!json_parser_load_from_data(parser, brace, -1, errp)) {
        return false;
    }
    root = json_node_get_object(json_parser_get_root(parser));
    jobs = root ? json_object_get_array_member(root, "jobs") : NULL;
    if (!jobs || json_array_get_length(jobs) < 1) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio's JSON has no jobs");
        return false;
    }
    job = json_array_get_object_element(jobs, 0);
    dd = json_object_get_object_member(job, write ? "write" : "read");
    lat = dd ? json_object_get_object_member(dd, "lat_ns") : NULL;
    pct = lat && json_object_has_member(lat, "percentile") ?
          json_object_get_object_member(lat, "percentile") : NULL;
    if (!lat) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio's JSON has no %s latency", write ? "write" : "read");
        return false;
    }
    f->iops = obj_double(dd, "iops");
    f->mbps = obj_double(dd, "bw_bytes") / 1e6;
    f->lat_us = obj_double(lat, "mean") / 1e3;
    f->p50_us = obj_double(pct, "50.000000") / 1e3;
    f->p99_us = obj_double(pct, "99.000000") / 1e3;
    f->p999_us = obj_double(pct, "99.900000") / 1e3;
    return true;
}

/* The device's statistics of one class over the interval since reset. */
static bool parse_stats(JsonNode *n, bool write, Fig *f, uint64_t *late,
                        double *interval_s)
{
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
    JsonArray *cls = o ? json_object_get_array_member(o, "classes") : NULL;
    double interval_ns = obj_double(o, "interval-ns");

    memset(f, 0, sizeof(*f));
    *late = 0;
    *interval_s = interval_ns / 1e9;
    if (!cls || !(interval_ns > 0)) {
        return false;
    }
    for (unsigned i = 0; i < json_array_get_length(cls); i++) {
        JsonObject *c = json_array_get_object_element(cls, i);

        if (strcmp(json_object_get_string_member(c, "class"),
                   write ? "write" : "read")) {
            continue;
        }
        f->iops = obj_double(c, "count") * 1e9 / interval_ns;
        f->mbps = obj_double(c, "bytes") * 1e3 / interval_ns;
        f->lat_us = obj_double(c, "mean-us");
        f->p50_us = obj_double(c, "p50-us");
        f->p99_us = obj_double(c, "p99-us");
        f->p999_us = obj_double(c, "p999-us");
        *late = (uint64_t)obj_double(c, "late");
        return true;
    }
    return true;            /* no such class: no I/O of that kind */
}

/* Latency of the model's curve at @iops (linear between its points). */
static double sim_lat_at(const NvmCornerResult *s, double iops)
{
    double x[NVM_CURVE_POINTS + 1], y[NVM_CURVE_POINTS + 1];
    unsigned n = 0;

    for (unsigned i = 0; i < s->n_curve; i++) {
        /* Only the rising part: points past the peak saturate. */
        if (n && s->curve[i].iops <= x[n - 1]) {
            continue;
        }
        x[n] = s->curve[i].iops;
        y[n++] = s->curve[i].lat_us;
    }
    if (!n || iops < x[0] * 0.98 || iops > x[n - 1] * 1.02) {
        return NAN;
    }
    if (iops <= x[0]) {
        return y[0];
    }
    for (unsigned i = 1; i < n; i++) {
        if (iops <= x[i]) {
            return y[i - 1] + (y[i] - y[i - 1]) * (iops - x[i - 1]) /
                   (x[i] - x[i - 1]);
        }
    }
    return y[n - 1];
}

static void judge_point(const Wl *wl, Point *pt)
{
    double target = pt->target_pct ? pt->target_iops : wl->sim->peak.iops;
    double busy = pt->have_host ?
                  pt->host.iops * pt->host.lat_us / 1e6 / wl->wl.threads : 1;

    pt->shortfall_pct = target > 0 && pt->guest.iops < target ?
                        100.0 * (1 - pt->guest.iops / target) : 0;
    if (pt->guest.iops < SHORT_FRAC * target && busy < BUSY_FRAC) {
        pt->limit = "rate";
    } else if (pt->have_host &&
               pt->guest.lat_us - pt->host.lat_us >
               MAX(GUEST_US, GUEST_FRAC * pt->host.lat_us)) {
        pt->limit = "guest-latency";
    } else {
        pt->limit = NULL;
    }
    pt->host_limited = pt->limit != NULL;
    pt->sim_lat_us = sim_lat_at(wl->sim, pt->guest.iops);
    if (!pt->target_pct && !(pt->guest.iops < 1.02 * wl->sim->peak.iops &&
                             pt->guest.iops > 0.98 * wl->sim->peak.iops)) {
        pt->sim_lat_us = NAN;
    }
    if (!pt->target_pct && !isnan(wl->sim->peak.lat_us) &&
        fabs(pt->guest.iops - wl->sim->peak.iops) <=
        0.02 * wl->sim->peak.iops) {
        pt->sim_lat_us = wl->sim->peak.lat_us;
    }
}

/* ------------------------------------------------------------------ */
/* The guest */

static void progress(Run *r, const char *wl, const Point *pt, double el,
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

static void lv_collect(Run *r, bool powered_off);

static void kill_guest(Run *r)
{
    if (r->lv) {
        nvm_lv_guest_free(r->lv);       /* destroy, undefine */
        r->lv = NULL;
        lv_collect(r, false);
    }
    if (r->qmp) {
        JsonNode *n = nvm_qmp_exec(r->qmp, "quit", NULL, 2000, NULL);

        if (n) {
            json_node_unref(n);
        }
        nvm_qmp_close(r->qmp);
        r->qmp = NULL;
    }
    if (r->child > 0) {
        int st;

        kill(r->child, SIGTERM);
        for (int i = 0; i < 50; i++) {
            if (waitpid(r->child, &st, WNOHANG) == r->child) {
                r->child = 0;
                return;
            }
            g_usleep(100 * 1000);
        }
        kill(-r->child, SIGKILL);
        waitpid(r->child, &st, 0);
        r->child = 0;
    }
}

static bool guest_alive(Run *r, char **why)
{
    int st;

    if (r->lv) {
        g_autoptr(GError) e = NULL;

        if (nvm_lv_guest_running(r->lv, &e)) {
            return true;
        }
        r->host_lost |= e->code == NVM_LV_ERROR_HOST;
        *why = g_strdup(e->message);
        return false;
    }
    if (r->child > 0 && waitpid(r->child, &st, WNOHANG) == r->child) {
        r->child = 0;
        *why = g_strdup_printf("the guest exited (run-guest status %d; see "
                               "%s/guest.log and %s/guest/console.log)",
                               WIFEXITED(st) ? WEXITSTATUS(st) : -1, r->dir,
                               r->dir);
        return false;
    }
    return true;
}

static bool qmp_state(Run *r, const char *args_fmt, GError **errp, ...)
    G_GNUC_PRINTF(2, 4);

static bool qmp_state(Run *r, const char *args_fmt, GError **errp, ...)
{
    va_list ap;
    g_autofree char *extra = NULL;
    g_autofree char *args = NULL;
    JsonNode *n;

    va_start(ap, errp);
    extra = g_strdup_vprintf(args_fmt, ap);
    va_end(ap);
    args = g_strdup_printf("{\"id\": \"nvm0\"%s%s}", *extra ? ", " : "",
                           extra);
    n = r->mon.exec(r->mon.h, "nvmimic-set-state", args, 10000, errp);
    if (!n) {
        return false;
    }
    json_node_unref(n);
    return true;
}

static JsonNode *qmp_stats(Run *r, GError **errp)
{
    return r->mon.exec(r->mon.h, "query-nvmimic-stats",
                       "{\"id\": \"nvm0\"}", 10000, errp);
}

static JsonNode *mon_qmp_socket(void *h, const char *cmd, const char *args,
                                int timeout_ms, GError **errp)
{
    return nvm_qmp_exec(h, cmd, args, timeout_ms, errp);
}

static JsonNode *mon_libvirt(void *h, const char *cmd, const char *args,
                             int timeout_ms, GError **errp)
{
    (void)timeout_ms;           /* libvirt's own monitor timeout applies */
    return nvm_lv_guest_qmp(h, cmd, args, errp);
}

static bool wait_hello(Run *r, GError **errp);

/* Copy the console log (and, after a clean power-off, unpack the results
 * disk) of a libvirt guest into DIR/guest, as run-guest.sh does. */
static void lv_collect(Run *r, bool powered_off)
{
    g_autofree char *gdir = g_build_filename(r->dir, "guest", NULL);
    g_autofree char *con = g_build_filename(gdir, "console.log", NULL);
    g_autofree char *text = NULL;
    gsize len;

    g_mkdir_with_parents(gdir, 0755);
    if (r->lv_console &&
        g_file_get_contents(r->lv_console, &text, &len, NULL)) {
        g_file_set_contents(con, text, len, NULL);
    }
    if (powered_off && r->lv_results) {
        const char *argv[] = { "tar", "-xf", r->lv_results, "-C", gdir,
                               "--no-same-owner", "--no-same-permissions",
                               NULL };
        int st = 0;

        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH |
                          G_SPAWN_STDOUT_TO_DEV_NULL |
                          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                          &st, NULL) || st) {
            fprintf(stderr, "nvmimic run: warning: the guest's results disk "
                    "could not be unpacked into %s\n", gdir);
        }
    }
}

/* The guest as a libvirt domain on r->o.connect. */
static bool start_guest_lv(Run *r, GError **errp)
{
    g_autofree char *jobdir = g_build_filename(r->tmp, "job", NULL);
    g_autofree char *agent = g_getenv("NVMIMIC_AGENT") ?
        g_strdup(g_getenv("NVMIMIC_AGENT")) :
        g_build_filename(NVMIMIC_SOURCE_DIR, "vm-images", "agent.sh", NULL);
    g_autofree char *runsh = g_build_filename(jobdir, "run.sh", NULL);
    g_autofree char *jobtar = g_build_filename(r->tmp, "job.tar", NULL);
    g_autofree char *ctl = g_build_filename(r->tmp, "ctl.sock", NULL);
    g_autofree char *text = NULL;
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    bool simtime = !strcmp(r->o.mode, "simtime");
    const char *tar[] = { "tar", "-cf", jobtar, "-C", jobdir, ".", NULL };
    NvmLvDisk *d;
    gsize len;
    int st = 0, fd;

    r->lv_results = g_build_filename(r->tmp, "results.img", NULL);
    r->lv_console = g_build_filename(r->tmp, "console.log", NULL);
    /* QEMU runs as the host's qemu user (libvirt-qemu on Debian): it must
     * reach what libvirt does not label for it */
    chmod(r->tmp, 0755);
    g_mkdir_with_parents(jobdir, 0755);
    if (!g_file_get_contents(agent, &text, &len, errp) ||
        !g_file_set_contents(runsh, text, len, errp)) {
        return false;
    }
    if (!g_spawn_sync(NULL, (char **)tar, NULL, G_SPAWN_SEARCH_PATH, NULL,
                      NULL, NULL, NULL, &st, errp) ||
        !g_spawn_check_wait_status(st, errp)) {
        g_prefix_error(errp, "cannot archive the job: ");
        return false;
    }
    fd = open(r->lv_results, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 256 << 20) < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot create %s: "
                    "%s", r->lv_results, g_strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);

    s->name = g_strdup_printf("nvmimic-run-%d-%08x", (int)getpid(),
                              g_random_int());
    g_free(s->qemu);
    s->qemu = g_strdup(r->o.qemu);
    s->remote_emulator = true;
    g_free(s->domain_type);
    s->domain_type = g_strdup(simtime ? "qemu" : "kvm");
    s->icount = simtime;
    s->profile = g_strdup(r->profile_path);
    s->profile_dir = g_strdup(r->o.profile_dir);
    s->null_bytes = r->p->capacity_bytes;
    s->seed = r->o.seed;
    s->memory_mib = 1024;
    s->vcpus = 1;
    s->kernel = g_build_filename(r->o.guest_dir, "vmlinuz", NULL);
    s->initrd = g_build_filename(r->o.guest_dir, "initramfs.cpio.gz", NULL);
    s->append = g_strdup("console=ttyS0 panic=-1");
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(jobtar);
    d->format = g_strdup("raw");
    d->serial = g_strdup("nvmimic-job");
    d->readonly = true;
    g_ptr_array_add(s->disks, d);
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(r->lv_results);
    d->format = g_strdup("raw");
    d->serial = g_strdup("nvmimic-results");
    g_ptr_array_add(s->disks, d);
    s->serial_log = g_strdup(r->lv_console);
    s->ctl_socket = g_strdup(ctl);
    if (!nvm_lv_spec_check(s, errp)) {
        return false;
    }
    {
        g_autofree char *xml = nvm_lv_domain_xml(s);
        g_autofree char *xf = g_build_filename(r->dir, "domain.xml", NULL);

        g_file_set_contents(xf, xml, -1, NULL);
    }
    r->lv = nvm_lv_guest_start(r->o.connect, s, errp);
    if (!r->lv) {
        r->host_lost = g_error_matches(*errp, NVM_LV_ERROR,
                                       NVM_LV_ERROR_HOST);
        return false;
    }
    r->mon.exec = mon_libvirt;
    r->mon.h = r->lv;
    r->accel = g_strdup(simtime ? "tcg icount" : "kvm");
    r->ctl = nvm_line_connect(ctl, 30000, errp);
    if (!r->ctl) {
        g_prefix_error(errp, "guest control port %s: ", ctl);
        return false;
    }
    return wait_hello(r, errp);
}

static bool start_guest(Run *r, GError **errp)
{
    if (r->o.connect) {
        return start_guest_lv(r, errp);
    }
    g_autofree char *jobdir = g_build_filename(r->tmp, "job", NULL);
    g_autofree char *agent = g_getenv("NVMIMIC_AGENT") ?
        g_strdup(g_getenv("NVMIMIC_AGENT")) :
        g_build_filename(NVMIMIC_SOURCE_DIR, "vm-images", "agent.sh", NULL);
    g_autofree char *runguest = g_build_filename(NVMIMIC_SOURCE_DIR,
                                                 "vm-images", "run-guest.sh",
                                                 NULL);
    g_autofree char *runsh = g_build_filename(jobdir, "run.sh", NULL);
    g_autofree char *ctl = g_build_filename(r->tmp, "ctl.sock", NULL);
    g_autofree char *qmp = g_build_filename(r->tmp, "qmp.sock", NULL);
    g_autofree char *gdir = g_build_filename(r->dir, "guest", NULL);
    g_autofree char *log = g_build_filename(r->dir, "guest.log", NULL);
    g_autofree char *text = NULL;
    g_autofree char *chardev = g_strdup_printf(
        "socket,id=nvmctl,path=%s,server=on,wait=off", ctl);
    g_autofree char *qmparg = g_strdup_printf("unix:%s,server=on,wait=off",
                                              qmp);
    g_autofree char *blockdev = g_strdup_printf(
        "driver=null-co,node-name=nvmdisk,size=%" G_GUINT64_FORMAT
        ",read-zeroes=on", r->p->capacity_bytes);
    g_autofree char *device = g_strdup_printf(
        "nvme,id=nvm0,drive=nvmdisk,profile=%s,profile-seed=%" G_GUINT64_FORMAT,
        r->profile_path, r->o.seed);
    bool simtime = !strcmp(r->o.mode, "simtime");
    const char *argv[32];
    unsigned a = 0;
    gsize len;
    pid_t pid;

    g_mkdir_with_parents(jobdir, 0755);
    if (!g_file_get_contents(agent, &text, &len, errp) ||
        !g_file_set_contents(runsh, text, len, errp)) {
        return false;
    }
    argv[a++] = runguest;
    if (simtime) {
        argv[a++] = "--icount";
    } else {
        argv[a++] = "--accel";
        argv[a++] = "auto";
    }
    argv[a++] = "--mem";
    argv[a++] = "1G";
    argv[a++] = r->o.qemu;
    argv[a++] = r->o.guest_dir;
    argv[a++] = jobdir;
    argv[a++] = gdir;
    argv[a++] = "1000000";      /* nvmimic run polices each point itself */
    argv[a++] = "-chardev";
    argv[a++] = chardev;
    argv[a++] = "-serial";
    argv[a++] = "chardev:nvmctl";
    argv[a++] = "-qmp";
    argv[a++] = qmparg;
    argv[a++] = "-blockdev";
    argv[a++] = blockdev;
    argv[a++] = "-device";
    argv[a++] = device;
    argv[a] = NULL;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "fork: %s",
                    g_strerror(errno));
        return false;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDONLY);

        setpgid(0, 0);          /* Ctrl-C is ours to handle, not the guest's */
        signal(SIGINT, SIG_DFL);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (nul >= 0) {
            dup2(nul, 0);
        }
        execv(runguest, (char **)argv);
        fprintf(stderr, "exec %s: %s\n", runguest, g_strerror(errno));
        _exit(127);
    }
    r->child = pid;
    setpgid(pid, pid);

    /* The sockets appear once QEMU has started. */
    for (int i = 0; i < BOOT_TIMEOUT_S * 10; i++) {
        g_autofree char *why = NULL;

        if (interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED, "interrupted");
            return false;
        }
        if (!guest_alive(r, &why)) {
            g_autofree char *l = NULL;

            g_file_get_contents(log, &l, NULL, NULL);
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "QEMU did not start: %s", l ? g_strstrip(l) : why);
            return false;
        }
        if (g_file_test(ctl, G_FILE_TEST_EXISTS) &&
            g_file_test(qmp, G_FILE_TEST_EXISTS)) {
            break;
        }
        g_usleep(100 * 1000);
    }
    r->qmp = nvm_qmp_connect(qmp, 30000, errp);
    if (!r->qmp) {
        return false;
    }
    r->mon.exec = mon_qmp_socket;
    r->mon.h = r->qmp;
    r->ctl = nvm_line_connect(ctl, 30000, errp);
    if (!r->ctl) {
        return false;
    }
    {
        g_autofree char *accel = NULL;
        g_autofree char *ap = g_build_filename(gdir, "accel", NULL);

        if (g_file_get_contents(ap, &accel, NULL, NULL)) {
            r->accel = g_strdup(g_strstrip(accel));
        }
    }
    if (!simtime && r->accel && strcmp(r->accel, "kvm")) {
        g_autofree char *l = NULL;
        char *line;

        g_file_get_contents(log, &l, NULL, NULL);
        line = l ? strstr(l, "KVM not usable") : NULL;
        if (line && strchr(line, '\n')) {
            *strchr(line, '\n') = 0;
        }
        fprintf(stderr, "nvmimic run: warning: %s; realtime mode runs TCG in "
                "real time (slow, host-limited)\n",
                line ? line : "KVM not usable");
    }
    return wait_hello(r, errp);
}

/* Wait for the agent's HELLO on the control port. */
static bool wait_hello(Run *r, GError **errp)
{
    for (;;) {
        g_autofree char *line = NULL;
        g_autofree char *why = NULL;
        NvmLineStatus st = nvm_line_read(r->ctl, 1000, &line);

        if (interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED, "interrupted");
            return false;
        }
        if (st == NVM_LINE_OK && !strcmp(line, "HELLO")) {
            return true;
        }
        if (!guest_alive(r, &why)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "guest died while booting: %s", why);
            return false;
        }
        if (st == NVM_LINE_EOF || st == NVM_LINE_ERROR ||
            (g_get_monotonic_time() - r->t0) / 1e6 > BOOT_TIMEOUT_S + 60) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest agent did not start within %d s (see "
                        "%s/guest/console.log)", BOOT_TIMEOUT_S, r->dir);
            return false;
        }
    }
}

/* Run one fio command in the guest.  With @marks_us[0] > 0 the device
 * statistics are reset at the agent's start mark and read at its stop mark
 * into @pt.  fio's JSON goes to *json. */
static bool guest_fio(Run *r, const char *id, const char *wlname,
                      const char *args, const uint64_t marks_us[2],
                      double total_s, double timeout_s, bool write,
                      Point *pt, char **json, GError **errp)
{
    g_autofree char *cmd = g_strdup_printf("RUN %s %" G_GUINT64_FORMAT " %"
                                           G_GUINT64_FORMAT " %s", id,
                                           marks_us[0], marks_us[1], args);
    g_autofree char *resprefix = g_strdup_printf("RESULT %s ", id);
    g_autofree char *endline = g_strdup_printf("END %s", id);
    gint64 start = g_get_monotonic_time();
    GString *js = NULL;
    bool in_result = false, stopped = false;
    int rc = -1;

    *json = NULL;
    if (!qmp_state(r, "\"reset-stats\": true", errp) ||
        !nvm_line_send(r->ctl, cmd, errp)) {
        return false;
    }
    for (;;) {
        g_autofree char *line = NULL;
        g_autofree char *why = NULL;
        NvmLineStatus st = nvm_line_read(r->ctl, 500, &line);
        double wall = (g_get_monotonic_time() - start) / 1e6;

        if (interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                        "interrupted (Ctrl-C)");
            break;
        }
        if (st == NVM_LINE_OK) {
            if (in_result) {
                if (!strcmp(line, endline)) {
                    break;
                }
                g_string_append(js, line);
                g_string_append_c(js, '\n');
            } else if (g_str_has_prefix(line, resprefix)) {
                rc = atoi(line + strlen(resprefix));
                js = g_string_new(NULL);
                in_result = true;
            } else if (g_str_has_prefix(line, "MARK ") &&
                       g_str_has_suffix(line, " start")) {
                if (!qmp_state(r, "\"reset-stats\": true", errp)) {
                    break;
                }
            } else if (g_str_has_prefix(line, "MARK ") &&
                       g_str_has_suffix(line, " stop")) {
                JsonNode *n = qmp_stats(r, errp);

                if (!n) {
                    break;
                }
                pt->have_host = parse_stats(n, write, &pt->host,
                                            &pt->host_late,
                                            &pt->host_interval_s);
                json_node_unref(n);
                stopped = true;
            }
            continue;
        }
        if (st == NVM_LINE_EOF || st == NVM_LINE_ERROR) {
            if (!guest_alive(r, &why)) {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", why);
            } else {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                            "the guest's control port closed");
            }
            break;
        }
        if (!guest_alive(r, &why)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", why);
            break;
        }
        if (wall > timeout_s) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest did not finish within %.0f s wall; it was "
                        "killed", timeout_s);
            break;
        }
        if (st == NVM_LINE_TIMEOUT && !in_result && !stopped) {
            JsonNode *n = qmp_stats(r, NULL);

            if (n) {
                Fig f;
                uint64_t late;
                double iv;

                parse_stats(n, write, &f, &late, &iv);
                json_node_unref(n);
                progress(r, wlname, pt, MIN(iv, total_s), total_s, f.iops,
                         false);
            }
        }
    }
    pt->wall_s = (g_get_monotonic_time() - start) / 1e6;
    if (js && !*errp) {
        *json = g_string_free(js, FALSE);
        if (rc != 0) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "fio exited with status %d in the guest (see "
                        "%s/guest/%s.log)", rc, r->dir, id);
            return false;
        }
        if (marks_us[0] && !stopped) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "fio ended before the agent's stop mark");
            return false;
        }
        return true;
    }
    if (js) {
        g_string_free(js, TRUE);
    }
    return false;
}

static char *fio_args(const Run *r, const Wl *wl, const char *name,
                      double ramp_s, double run_s, double rate_iops,
                      uint64_t seed)
{
    const NvmWorkload *w = &wl->wl;
    GString *s = g_string_new(NULL);
    const char *rw = w->op == NVM_OP_WRITE ?
                     (w->sequential ? "write" : "randwrite") :
                     (w->sequential ? "read" : "randread");

    g_string_append_printf(s, "--name=%s --filename=/dev/nvme0n1 --direct=1 "
                           "--ioengine=libaio --rw=%s --bs=%u --iodepth=%u "
                           "--numjobs=%u --group_reporting=1 --offset=0 "
                           "--size=%" G_GUINT64_FORMAT " --norandommap=1 "
                           "--randrepeat=0 --randseed=%" G_GUINT64_FORMAT
                           " --time_based=1 --ramp_time=%.0fms "
                           "--runtime=%.0fms --lat_percentiles=1 "
                           "--percentile_list=50:99:99.9",
                           name, rw, w->block_bytes, wl->iodepth, wl->jobs,
                           r->span_bytes, seed, ramp_s * 1e3, run_s * 1e3);
    if (rate_iops > 0) {
        double per = rate_iops / wl->jobs;

        g_string_append_printf(s, " --rate_iops=%.0f --rate_process=poisson",
                               per < 1 ? 1 : per);
    }
    return g_string_free(s, FALSE);
}

/* Wall seconds allowed for a point: TCG under icount runs ~3 K guest I/Os
 * per wall second here; allow a wide margin. */
static double point_timeout(const Run *r, double virt_s, double rate_iops)
{
    double ios = virt_s * (rate_iops > 0 ? MIN(rate_iops, 80000) : 80000);

    if (r->o.point_timeout_s > 0) {
        return r->o.point_timeout_s;
    }
    return 120 + 3 * ios / 1500;
}

/* Put the drive into the review's starting state for one workload. */
static bool precondition(Run *r, Wl *wl, GError **errp)
{
    if (r->p->review_state == NVM_REVIEW_FILLED) {
        return qmp_state(r, "\"fill-pct\": 100, \"slc-used-bytes\": %"
                         G_GUINT64_FORMAT ", \"reset-stats\": true", errp,
                         r->p->slc_static_bytes);
    } else {
        g_autofree char *json = NULL;
        g_autofree char *id = g_strdup_printf("%s-precondition", wl->wl.name);
        g_autofree char *args = g_strdup_printf(
            "--name=precondition --filename=/dev/nvme0n1 --direct=1 "
            "--ioengine=libaio --rw=write --bs=1m --iodepth=8 --offset=0 "
            "--size=%" G_GUINT64_FORMAT, r->span_bytes);
        const uint64_t nomarks[2] = { 0, 0 };
        Point pt = { 0 };
        double ios = r->span_bytes / 1048576.0;

        if (!qmp_state(r, "\"secure-erase\": true", errp)) {
            return false;
        }
        if (r->tty) {
            printf("\r\033[K%s %s: writing the %.1f GB span once after the "
                   "secure erase", r->p->name, wl->wl.name,
                   r->span_bytes / 1e9);
            fflush(stdout);
        }
        if (!guest_fio(r, id, wl->wl.name, args, nomarks, 0,
                       120 + ios / 100, true, &pt, &json, errp)) {
            return false;
        }
        if (r->tty) {
            printf("\r\033[K");
        }
        return qmp_state(r, "\"reset-stats\": true", errp);
    }
}

static bool run_point(Run *r, Wl *wl, Point *pt, unsigned wi, unsigned pi,
                      GError **errp)
{
    bool peak = !pt->target_pct;
    double ramp = peak ? r->o.peak_ramp_s : r->o.ramp_s;
    double run = r->o.run_s;
    g_autofree char *id = peak ? g_strdup_printf("%s-peak", wl->wl.name) :
                          g_strdup_printf("%s-%d", wl->wl.name,
                                          pt->target_pct);
    uint64_t seed = r->o.seed * 7919 + wi * 131 + pi;
    g_autofree char *args = fio_args(r, wl, id, ramp, run,
                                     peak ? 0 : pt->target_iops, seed);
    /* The device window: from 5 % into fio's measured time to 90 %. */
    const uint64_t marks[2] = {
        (uint64_t)((ramp + 0.05 * run) * 1e6),
        (uint64_t)(0.85 * run * 1e6),
    };
    g_autofree char *json = NULL;
    bool write = wl->wl.op == NVM_OP_WRITE;

    if (!guest_fio(r, id, wl->wl.name, args, marks, ramp + run,
                   point_timeout(r, ramp + run,
                                 peak ? 0 : pt->target_iops),
                   write, pt, &json, errp)) {
        return false;
    }
    if (!parse_fio(json, write, &pt->guest, errp)) {
        return false;
    }
    judge_point(wl, pt);
    pt->done = true;
    progress(r, wl->wl.name, pt, ramp + run, ramp + run, pt->guest.iops, true);
    return true;
}

static void print_table(const Run *r)
{
    printf("\n%s: four corners in a %s guest (%s), %g s per point\n",
           r->p->name, r->o.mode, r->accel ? r->accel : "?", r->o.run_s);
    for (unsigned w = 0; w < r->n_wls; w++) {
        const Wl *wl = &r->wls[w];

        printf("\n%s (%u outstanding)", wl->wl.name, wl->wl.threads);
        if (!isnan(wl->review_iops)) {
            printf("  review peak %.0f IOPS", wl->review_iops);
            if (!isnan(wl->review_lat_us)) {
                printf(" at %.1f us", wl->review_lat_us);
            }
        }
        printf("  model peak %.0f IOPS at %.1f us\n", wl->sim->peak.iops,
               wl->sim->peak.lat_us);
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

/* ------------------------------------------------------------------ */

static bool setup(Run *r, GError **errp)
{
    NvmWorkload all[NVM_FOUR_CORNERS];
    g_auto(GStrv) want = r->o.workloads ?
                         g_strsplit(r->o.workloads, ",", -1) : NULL;
    g_autofree char *rev = g_build_filename(r->o.profile_dir, "reviews",
                                            "four-corners.tsv", NULL);
    GArray *rows;
    NvmSimOptions so = { 0 };

    nvm_four_corners(all, !strcmp(r->o.threads, "implied"));
    if (want) {
        for (char **w = want; *w; w++) {
            bool found = false;

            for (unsigned i = 0; i < NVM_FOUR_CORNERS; i++) {
                found |= !strcmp(*w, all[i].name);
            }
            if (!found) {
                g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "unknown workload '%s' (%s, %s, %s, %s)", *w,
                            all[0].name, all[1].name, all[2].name,
                            all[3].name);
                return false;
            }
        }
    }
    so.seed = r->o.seed;
    so.implied_threads = !strcmp(r->o.threads, "implied");
    so.duration_s = r->sim_duration_s;
    nvm_sim_four_corners(r->p, &so, r->sim);

    rows = nvm_reviews_load(rev, NULL);
    for (unsigned i = 0; i < NVM_FOUR_CORNERS; i++) {
        Wl *wl;

        if (want && !g_strv_contains((const char *const *)want,
                                     all[i].name)) {
            continue;
        }
        wl = &r->wls[r->n_wls++];
        wl->wl = all[i];
        wl->sim = &r->sim[i];
        if (wl->wl.sequential || wl->wl.threads < 4 ||
            wl->wl.threads % 4) {
            wl->jobs = 1;       /* one stream, as the model's sequential */
        } else {
            wl->jobs = 4;       /* fio processes cost guest CPU: few jobs */
        }
        wl->iodepth = wl->wl.threads / wl->jobs;
        wl->peak.target_pct = 0;
        wl->review_iops = wl->review_lat_us = NAN;
        for (unsigned k = 0; rows && k < rows->len; k++) {
            NvmReviewRow *row = &g_array_index(rows, NvmReviewRow, k);

            if (!strcmp(row->drive, r->p->name) &&
                !strcmp(row->workload, wl->wl.name)) {
                wl->review_iops = row->peak_iops;
                wl->review_lat_us = row->lat_us;
            }
        }
        wl->n_curve = r->n_pcts;
        for (unsigned k = 0; k < r->n_pcts; k++) {
            wl->curve[k].target_pct = r->pcts[k];
        }
    }
    if (rows) {
        nvm_reviews_free(rows);
    }
    return true;
}

static void fail_point(Run *r, const char *what, const char *msg)
{
    r->error = g_strdup(msg);
    r->failed_point = g_strdup(what);
}

int nvm_cmd_run(int argc, char **argv, const char *profile_dir)
{
    g_autoptr(GError) err = NULL;
    Run rr = { 0 };
    Run *r = &rr;
    RunOpts *o = &r->o;
    struct sigaction sa = { .sa_handler = on_sigint };
    int rc;
    char *cur = NULL;

    o->profile_dir = profile_dir;
    o->mode = "simtime";
    o->threads = "stated";
    o->seed = 1;
    o->qemu = g_getenv("NVMIMIC_QEMU") ? g_getenv("NVMIMIC_QEMU")
                                       : NVMIMIC_QEMU;
    o->guest_dir = g_getenv("NVMIMIC_GUEST_DIR") ?
                   g_getenv("NVMIMIC_GUEST_DIR") : NVMIMIC_GUEST_DIR;
    rc = parse_run_opts(argc, argv, o);
    if (rc) {
        return rc;
    }
    if (!o->profile) {
        return run_usage("run needs --profile NAME|PATH");
    }
    if (!o->suite) {
        g_autofree char *l = join_list(suites);

        return run_usage("run needs --suite (%s)", l);
    }
    if (!in_list(o->suite, suites)) {
        g_autofree char *l = join_list(suites);

        return run_usage("unknown suite '%s' (valid: %s)", o->suite, l);
    }
    if (!in_list(o->mode, modes)) {
        g_autofree char *l = join_list(modes);

        return run_usage("unknown mode '%s' (valid: %s)", o->mode, l);
    }
    if (strcmp(o->threads, "stated") && strcmp(o->threads, "implied")) {
        return run_usage("--threads must be stated or implied, not '%s'",
                         o->threads);
    }
    if (o->points) {
        g_auto(GStrv) v = g_strsplit(o->points, ",", -1);

        for (char **p = v; *p; p++) {
            char *end;
            long pct = strtol(*p, &end, 10);

            if (!**p || *end || pct < 1 || pct > 200 ||
                r->n_pcts == MAX_PCTS) {
                return run_usage("--points '%s': a list of up to %d "
                                 "percentages in 1..200", o->points,
                                 MAX_PCTS);
            }
            r->pcts[r->n_pcts++] = (int)pct;
        }
    } else {
        for (int i = 1; i <= NVM_CURVE_POINTS; i++) {
            r->pcts[r->n_pcts++] = 10 * i;
        }
    }
    r->p = nvm_profile_load(o->profile, o->profile_dir, &err);
    if (!r->p) {
        g_auto(GStrv) names = nvm_profile_list(o->profile_dir, NULL);
        g_autofree char *l = names ? g_strjoinv(", ", names) : g_strdup("?");

        fprintf(stderr, "nvmimic run: %s (valid profiles: %s)\n",
                err->message, l);
        return 2;
    }
    if (strchr(o->profile, '/') || g_str_has_suffix(o->profile, ".ini")) {
        r->profile_path = g_canonicalize_filename(o->profile, NULL);
    } else {
        g_autofree char *f = g_strconcat(o->profile, ".ini", NULL);
        g_autofree char *rel = g_build_filename(o->profile_dir, f, NULL);

        r->profile_path = g_canonicalize_filename(rel, NULL);
    }
    if (o->connect) {
        g_autoptr(GError) ue = NULL;

        if (!nvm_lv_uri_valid(o->connect, &ue)) {
            return run_usage("--connect: %s", ue->message);
        }
    } else if (!g_file_test(o->qemu, G_FILE_TEST_IS_EXECUTABLE)) {
        fprintf(stderr, "nvmimic run: QEMU '%s' not found (build it with "
                "'make qemu', or set --qemu / NVMIMIC_QEMU)\n", o->qemu);
        return 1;
    }
    {
        g_autofree char *k = g_build_filename(o->guest_dir, "vmlinuz", NULL);

        if (!g_file_test(k, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "nvmimic run: no guest in '%s' (build it with "
                    "vm-images/build-guest.sh, or set --guest-dir / "
                    "NVMIMIC_GUEST_DIR)\n", o->guest_dir);
            return 1;
        }
    }
    if (!(o->run_s > 0)) {
        o->run_s = o->quick ? 0.5 : 30;
    }
    if (!(o->ramp_s > 0)) {
        o->ramp_s = o->quick ? 0.1 : o->run_s / 10;
        o->peak_ramp_s = o->quick ? 0.1 : o->run_s / 5;
    } else {
        o->peak_ramp_s = o->ramp_s;
    }
    r->sim_duration_s = o->quick ? 3.0 : 30.0;
    r->span_bytes = (uint64_t)(r->p->capacity_bytes *
                               r->p->review_span_pct / 100.0);
    r->span_bytes -= r->span_bytes % (1024 * 1024);
    r->precondition = r->p->review_state == NVM_REVIEW_FILLED ?
        "filled: nvmimic-set-state fill-pct 100 and the static SLC cache full "
        "(as the model's review state), before each workload" :
        "erased: nvmimic-set-state secure-erase, then the span written once "
        "sequentially by fio in the guest (1 MiB, 8 outstanding), before "
        "each workload";
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
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (!setup(r, &err)) {
        fprintf(stderr, "nvmimic run: %s\n", err->message);
        return 2;
    }
    printf("nvmimic run: %s, %s, %s, %u workload(s) x %u points, results in "
           "%s\n", r->p->name, o->suite, o->mode, r->n_wls, r->n_pcts + 1,
           r->dir);
    fflush(stdout);
    save_results(r);

    if (!start_guest(r, &err)) {
        fail_point(r, "boot", err->message);
        goto out;
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        Wl *wl = &r->wls[w];

        g_free(cur);
        cur = g_strdup_printf("%s precondition", wl->wl.name);
        if (!precondition(r, wl, &err)) {
            fail_point(r, cur, err->message);
            goto out;
        }
        g_free(cur);
        cur = g_strdup_printf("%s peak", wl->wl.name);
        if (!run_point(r, wl, &wl->peak, w, 0, &err)) {
            fail_point(r, cur, err->message);
            goto out;
        }
        save_results(r);
        for (unsigned i = 0; i < wl->n_curve; i++) {
            Point *pt = &wl->curve[i];

            pt->target_iops = nvm_curve_rate(wl->peak.guest.iops,
                                             pt->target_pct);
            g_free(cur);
            cur = g_strdup_printf("%s %d %%", wl->wl.name, pt->target_pct);
            if (!run_point(r, wl, pt, w, i + 1, &err)) {
                fail_point(r, cur, err->message);
                goto out;
            }
            save_results(r);
        }
    }
    /* Let the guest hand back its logs and power off. */
    if (r->lv && nvm_line_send(r->ctl, "QUIT", NULL)) {
        bool off = nvm_lv_guest_wait_off(r->lv, 60000);

        lv_collect(r, off);
    } else if (nvm_line_send(r->ctl, "QUIT", NULL)) {
        for (int i = 0; i < 600 && r->child > 0; i++) {
            int st;

            if (waitpid(r->child, &st, WNOHANG) == r->child) {
                r->child = 0;
                break;
            }
            g_usleep(100 * 1000);
        }
    }
    r->complete = true;

out:
    if (r->tty) {
        printf("\n");
    }
    kill_guest(r);
    nvm_line_close(r->ctl);
    save_results(r);
    print_table(r);
    if (r->error) {
        fprintf(stderr, "nvmimic run: %s failed: %s; results so far are in "
                "%s/results.json\n", r->failed_point, r->error, r->dir);
    } else {
        printf("results: %s/results.json, %s/results.csv\n", r->dir, r->dir);
    }
    {
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", r->tmp);

        if (system(cmd)) {
            /* leftovers in /tmp are harmless */
        }
    }
    g_free(cur);
    nvm_profile_free(r->p);
    return interrupted ? 130 : r->error ? (r->host_lost ? 3 : 1) : 0;
}
