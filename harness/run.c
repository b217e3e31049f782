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
 * The host boots vm-images/run-guest.sh with the profiled drive on a null-co
 * backend, a QMP socket, and a second serial port (a socket chardev) that the
 * guest agent (vm-images/agent.sh, shipped as the job's run.sh) reads
 * commands from.  Per point the host sends a fio command line; the agent
 * marks the start and end of a window inside fio's measured interval, over
 * which the host resets and reads the device statistics, and returns fio's
 * JSON.  results.json and results.csv are rewritten after every point.
 *
 * With --connect URI the same guest runs as a libvirt domain instead, on
 * this machine or another: its files (kernel, initrd, profile, job and
 * results disks, the drive's backing file, the database guest's root) go up
 * as storage volumes, both serial ports (console, control) come back through
 * the connection, and the device's QMP commands go through
 * virDomainQemuMonitorCommand (libvirt.c).  Only the monitor (Mon below) and
 * the guest's start, liveness and end differ; every point runs the same
 * code.
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
#include "vdi.h"

#ifndef NVMIMIC_QEMU
#define NVMIMIC_QEMU "qemu-system-x86_64"
#endif
#ifndef NVMIMIC_GUEST_DIR
#define NVMIMIC_GUEST_DIR "build/guest"
#endif
#ifndef NVMIMIC_SOURCE_DIR
#define NVMIMIC_SOURCE_DIR "."
#endif
#ifndef NVMIMIC_WORKLOAD_DIR
#define NVMIMIC_WORKLOAD_DIR "harness/workloads"
#endif
#ifndef NVMIMIC_DBGUEST_DIR
#define NVMIMIC_DBGUEST_DIR "build/dbguest"
#endif
#ifndef NVMIMIC_RENDER
#define NVMIMIC_RENDER "build/tests/workloads/nvmimic-render"
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

enum { S_FC, S_VDI, S_SQL, S_RENDER, S_SEQ, S_N };
static const char *const suites[] = { "four-corners", "vdi", "sql", "render",
                                      "seq", "all", NULL };
/* --suite all: every application workload */
static const int all_suites[] = { S_VDI, S_SQL, S_RENDER, S_SEQ };
/* TPC-C database size per warehouse: the reviews' 333 GB for 1,500
 * (workloads/tpcc/tpcc.sh uses the same figure) */
#define TPCC_BYTES_PER_W 222000000ULL
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
    const char *pool;           /* --connect: storage pool for the files */
    const char *dbguest_dir;
    const char *workload_dir;
    /* sql */
    unsigned sql_w, sql_users, sql_pre_s, sql_sample_s;
    bool sql_pre_set;
    const char *sql_preset;     /* NULL, "quick" or "review" */
    double sql_think;
    /* seq, render */
    uint64_t seq_bytes;
    unsigned render_mem_mib;
    double render_ram_factor;
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
    int suite;                  /* S_FC or S_VDI */
    NvmWorkload wl;
    const NvmMix *mix;          /* S_VDI: the job file's mix */
    char *jobfile;              /* S_VDI: its name in the job directory */
    unsigned jobs, iodepth;
    Point peak;
    Point curve[MAX_PCTS];
    unsigned n_curve;
    const NvmCornerResult *sim;
    double review_iops, review_lat_us;   /* NAN where unknown */
} Wl;

/* One measured step of an application suite. */
typedef struct AppStep {
    char *name;
    const char *rw;             /* seq: read or write */
    unsigned qd;
    uint64_t bytes;
    Fig guest;
    JsonNode *device;           /* query-nvmimic-stats over the step */
} AppStep;

#define APP_STEPS 8

typedef struct App {
    int suite;
    bool complete;
    char *error;
    char *log_tail;             /* the guest command's last log lines */
    double wall_s;
    JsonNode *result;           /* the guest's JSON (render, sql) */
    JsonNode *device;           /* stats over the measured interval */
    AppStep steps[APP_STEPS];   /* seq */
    unsigned n_steps;
} App;

/* The guest of one suite. */
typedef struct GuestCfg {
    int suite;
    const char *mem;            /* run-guest.sh --mem */
    unsigned smp;
    char *guest_dir;            /* vmlinuz + initramfs.cpio.gz */
    char *append;               /* extra kernel arguments, or NULL */
    char *boot_disk;            /* a root disk (virtio, snapshot=on), or NULL */
    bool backed;                /* the drive on a sparse file, not null-co */
    GPtrArray *files;           /* source path, name in the job dir, ... */
} GuestCfg;

typedef struct Run {
    RunOpts o;
    NvmProfile *p;
    char *profile_path;
    char *dir;
    char *tmp;
    uint64_t span_bytes;
    const char *precondition;
    Wl wls[NVM_FOUR_CORNERS + NVM_VDI_WORKLOADS];
    unsigned n_wls;
    int pcts[MAX_PCTS];
    unsigned n_pcts;
    NvmCornerResult sim[NVM_FOUR_CORNERS];
    NvmVdiResult vdi[NVM_VDI_WORKLOADS];
    bool have_vdi;
    NvmCornerResult vdi_sim[NVM_VDI_WORKLOADS];
    int order[S_N];             /* the suites to run, in order */
    unsigned n_order;
    App *apps[S_N];             /* indexed by suite; NULL: not run */
    GuestCfg cfg;               /* the guest now running */
    char *render_mem;
    char *precondition_text;
    char *gdir;                 /* its logs: DIR/guest or DIR/guest-SUITE */
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
"usage: nvmimic run --profile NAME|PATH --suite SUITE[,SUITE...]\n"
"    [--mode simtime|realtime] [--quick] [--out DIR] [--seed N]\n"
"    [--workloads a,b] [--threads stated|implied] [--points 10,50,100]\n"
"    [--run-s S] [--ramp-s S] [--point-timeout-s S]\n"
"    [--sql-warehouses W] [--sql-users N] [--sql-precondition-s S]\n"
"    [--sql-sample-s S] [--sql-think-factor F] [--sql-preset quick|review]\n"
"    [--seq-mib N]\n"
"    [--render-mem-mib N] [--render-ram-factor F]\n"
"    [--qemu PATH] [--guest-dir DIR] [--dbguest-dir DIR]\n"
"    [--profile-dir DIR] [--connect URI [--pool NAME]]\n"
"Suites: four-corners, vdi, sql, render, seq; all = vdi,sql,render,seq.\n"
"Each suite boots its own guest (vm-images/) with the profiled drive.\n"
"four-corners and vdi: preconditioned like the review, each workload runs\n"
"with fio (vdi: harness/workloads/vdi-*.fio): an unthrottled peak at the\n"
"workload's outstanding count, then Poisson rates of 10..120 % of that peak.\n"
"Per point it records the guest's fio figures, the device's own statistics\n"
"over the same interval (QMP) and the model's curve (nvmimic sim).\n"
"The application suites start from a secure-erased drive:\n"
"  seq     1 MiB sequential write then read at QD 8 and 32, GB/s\n"
"          (--seq-mib, default 4096, 1024 with --quick)\n"
"  render  workloads/render in a guest with --render-mem-mib of RAM (384)\n"
"          and swap on the drive; seconds per phase (--render-ram-factor:\n"
"          working array / available RAM, default 1.5, 1.2 with --quick)\n"
"  sql     TPC-C on PostgreSQL 15 in the database guest (make dbguest):\n"
"          load, precondition, sample; latency per transaction and the\n"
"          device's over the sample.  Defaults W=1, 10 users, 60 + 120 s,\n"
"          think x 0.1 (--quick: 10 + 30 s).  --sql-preset review: the\n"
"          reviews' W=1500, 15000 users, 9000 + 1800 s, think x 1, in a\n"
"          16-vCPU 64 GB guest (a big host, --mode realtime with KVM)\n"
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
"  --pool NAME       with --connect: the storage pool on the host the guest's\n"
"                    files are uploaded to (default: one the run makes under\n"
"                    /var/lib/libvirt/nvmimic and removes)\n"
"Writes DIR/results.json (after every point; \"complete\": false until the\n"
"end), DIR/results.csv and the guest's logs in DIR/guest/.\n"
"Environment: NVMIMIC_QEMU (QEMU binary), NVMIMIC_GUEST_DIR, NVMIMIC_AGENT\n"
"(the guest agent script, for tests), NVMIMIC_DBGUEST_DIR, NVMIMIC_RENDER\n"
"(the static render program).\n", stdout);
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
        } else if (!strcmp(a, "--pool")) {
            o->pool = v;
        } else if (!strcmp(a, "--dbguest-dir")) {
            o->dbguest_dir = v;
        } else if (!strcmp(a, "--sql-preset")) {
            if (strcmp(v, "quick") && strcmp(v, "review")) {
                return run_usage("--sql-preset '%s': quick or review", v);
            }
            o->sql_preset = v;
        } else if (!strcmp(a, "--sql-warehouses") ||
                   !strcmp(a, "--sql-users") ||
                   !strcmp(a, "--sql-precondition-s") ||
                   !strcmp(a, "--sql-sample-s") ||
                   !strcmp(a, "--seq-mib") ||
                   !strcmp(a, "--render-mem-mib")) {
            char *end;
            guint64 n;

            errno = 0;
            n = g_ascii_strtoull(v, &end, 10);
            if (errno || !*v || *end || *v == '-' || n > 1000000 ||
                (n == 0 && strcmp(a, "--sql-precondition-s"))) {
                return run_usage("%s '%s' must be a whole number in %s..1000000",
                                 a, v, strcmp(a, "--sql-precondition-s") ?
                                 "1" : "0");
            }
            if (!strcmp(a, "--sql-warehouses")) {
                o->sql_w = n;
            } else if (!strcmp(a, "--sql-users")) {
                o->sql_users = n;
            } else if (!strcmp(a, "--sql-precondition-s")) {
                o->sql_pre_s = n;
                o->sql_pre_set = true;
            } else if (!strcmp(a, "--sql-sample-s")) {
                o->sql_sample_s = n;
            } else if (!strcmp(a, "--seq-mib")) {
                o->seq_bytes = n << 20;
            } else {
                if (n < 128) {
                    return run_usage("--render-mem-mib %s: the guest needs at "
                                     "least 128 MiB", v);
                }
                o->render_mem_mib = n;
            }
        } else if (!strcmp(a, "--sql-think-factor") ||
                   !strcmp(a, "--render-ram-factor")) {
            double f;

            if (!parse_pos_double(v, &f) || f > 100) {
                return run_usage("%s '%s' must be a number in (0, 100]", a, v);
            }
            if (!strcmp(a, "--sql-think-factor")) {
                o->sql_think = f;
            } else {
                o->render_ram_factor = f;
            }
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

static void add_num_or_null(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    if (isnan(v)) {
        json_builder_add_null_value(b);
    } else {
        json_builder_add_double_value(b, round(v * 100) / 100);
    }
}

static void add_fig(JsonBuilder *b, const Fig *f)
{
    add_num_or_null(b, "iops", round(f->iops * 10) / 10);
    add_num_or_null(b, "mbps", f->mbps);
    add_num_or_null(b, "lat_us", f->lat_us);
    add_num_or_null(b, "p50_us", f->p50_us);
    add_num_or_null(b, "p99_us", f->p99_us);
    add_num_or_null(b, "p999_us", f->p999_us);
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

/* query-nvmimic-stats' return as {"interval_s", "active_s", "classes":
 * {NAME: {...}}}; IOPS and MB/s over the span the drive had commands
 * (active-ns: first arrival to last completion), not the host's idle time
 * around them. */
static void add_device(JsonBuilder *b, JsonNode *n)
{
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;
    JsonArray *cls = o && json_object_has_member(o, "classes") ?
                     json_object_get_array_member(o, "classes") : NULL;
    static const char *const f[][2] = {
        { "count", "count" }, { "mean-us", "lat_us" }, { "p50-us", "p50_us" },
        { "p99-us", "p99_us" }, { "p999-us", "p999_us" },
        { "max-us", "max_us" },
    };
    double interval_ns;

    if (!cls || !json_object_has_member(o, "interval-ns")) {
        json_builder_add_null_value(b);
        return;
    }
    interval_ns = json_object_get_double_member(o, "interval-ns");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "interval_s");
    json_builder_add_double_value(b, round(interval_ns / 1e3) / 1e6);
    if (json_object_has_member(o, "active-ns")) {
        double active_ns = json_object_get_double_member(o, "active-ns");

        json_builder_set_member_name(b, "active_s");
        json_builder_add_double_value(b, round(active_ns / 1e3) / 1e6);
        if (active_ns > 0) {
            interval_ns = active_ns;
        }
    }
    json_builder_set_member_name(b, "classes");
    json_builder_begin_object(b);
    for (unsigned i = 0; i < json_array_get_length(cls); i++) {
        JsonObject *c = json_array_get_object_element(cls, i);
        double count = json_object_get_double_member(c, "count");

        if (!count) {
            continue;
        }
        json_builder_set_member_name(b,
                                     json_object_get_string_member(c, "class"));
        json_builder_begin_object(b);
        for (unsigned k = 0; k < G_N_ELEMENTS(f); k++) {
            json_builder_set_member_name(b, f[k][1]);
            json_builder_add_double_value(b,
                round(json_object_get_double_member(c, f[k][0]) * 100) / 100);
        }
        json_builder_set_member_name(b, "iops");
        json_builder_add_double_value(b,
            interval_ns > 0 ? round(count * 1e10 / interval_ns) / 10 : 0);
        json_builder_set_member_name(b, "mbps");
        json_builder_add_double_value(b, interval_ns > 0 ?
            round(json_object_get_double_member(c, "bytes") * 1e5 /
                  interval_ns) / 100 : 0);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
}

static const char *guest_dir_name(const Run *r, int suite);

static void add_app(JsonBuilder *b, const Run *r, const App *a)
{
    g_autofree char *gd = g_path_get_basename(guest_dir_name(r, a->suite));

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "suite");
    json_builder_add_string_value(b, suites[a->suite]);
    json_builder_set_member_name(b, "complete");
    json_builder_add_boolean_value(b, a->complete);
    json_builder_set_member_name(b, "error");
    if (a->error) {
        json_builder_add_string_value(b, a->error);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "log_tail");
    if (a->log_tail) {
        json_builder_add_string_value(b, a->log_tail);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "guest_dir");
    json_builder_add_string_value(b, gd);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, round(a->wall_s * 10) / 10);
    json_builder_set_member_name(b, "device");
    add_device(b, a->device);
    if (a->suite == S_SEQ) {
        json_builder_set_member_name(b, "steps");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < a->n_steps; i++) {
            const AppStep *st = &a->steps[i];

            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, st->name);
            json_builder_set_member_name(b, "rw");
            json_builder_add_string_value(b, st->rw);
            json_builder_set_member_name(b, "qd");
            json_builder_add_int_value(b, st->qd);
            json_builder_set_member_name(b, "bytes");
            json_builder_add_int_value(b, (gint64)st->bytes);
            json_builder_set_member_name(b, "gbps");
            json_builder_add_double_value(b, round(st->guest.mbps * 10) / 1e4);
            add_fig(b, &st->guest);
            json_builder_set_member_name(b, "device");
            add_device(b, st->device);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
    }
    if (a->suite == S_RENDER) {
        JsonObject *o = a->result && JSON_NODE_HOLDS_OBJECT(a->result) ?
                        json_node_get_object(a->result) : NULL;

        json_builder_set_member_name(b, "mem_mib");
        json_builder_add_int_value(b, r->o.render_mem_mib);
        json_builder_set_member_name(b, "ram_factor");
        json_builder_add_double_value(b, r->o.render_ram_factor);
        json_builder_set_member_name(b, "result");
        if (o && json_object_has_member(o, "result")) {
            json_builder_add_value(b, json_node_copy(
                json_object_get_member(o, "result")));
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "swap");
        if (o && json_object_has_member(o, "swap")) {
            json_builder_add_value(b, json_node_copy(
                json_object_get_member(o, "swap")));
        } else {
            json_builder_add_null_value(b);
        }
    }
    if (a->suite == S_SQL) {
        json_builder_set_member_name(b, "params");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "warehouses");
        json_builder_add_int_value(b, r->o.sql_w);
        json_builder_set_member_name(b, "users");
        json_builder_add_int_value(b, r->o.sql_users);
        json_builder_set_member_name(b, "precondition_s");
        json_builder_add_int_value(b, r->o.sql_pre_s);
        json_builder_set_member_name(b, "sample_s");
        json_builder_add_int_value(b, r->o.sql_sample_s);
        json_builder_set_member_name(b, "think_factor");
        json_builder_add_double_value(b, r->o.sql_think);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "result");
        if (a->result) {
            json_builder_add_value(b, json_node_copy(a->result));
        } else {
            json_builder_add_null_value(b);
        }
    }
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
    json_builder_set_member_name(b, "suites");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < r->n_order; i++) {
        json_builder_add_string_value(b, suites[r->order[i]]);
    }
    json_builder_end_array(b);
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
        json_builder_set_member_name(b, "suite");
        json_builder_add_string_value(b, suites[wl->suite]);
        if (wl->mix) {
            json_builder_set_member_name(b, "mix");
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "read_pct");
            json_builder_add_double_value(b, wl->mix->read_pct);
            json_builder_set_member_name(b, "outstanding");
            json_builder_add_int_value(b, nvm_mix_outstanding(wl->mix));
            json_builder_set_member_name(b, "mean_block_bytes");
            json_builder_add_double_value(b,
                round(nvm_mix_mean_block_bytes(wl->mix)));
            json_builder_set_member_name(b, "jobfile");
            json_builder_add_string_value(b, wl->jobfile);
            json_builder_end_object(b);
        }
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
    json_builder_set_member_name(b, "apps");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < r->n_order; i++) {
        if (r->apps[r->order[i]]) {
            add_app(b, r, r->apps[r->order[i]]);
        }
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
    g_string_append_printf(s, ",%s\n", suites[wl->suite]);
}

static char *results_csv(const Run *r)
{
    GString *s = g_string_new("profile,workload,threads,point,target_pct,"
                              "target_iops,iops,mbps,lat_us,p50_us,p99_us,"
                              "p999_us,host_iops,host_lat_us,host_p99_us,"
                              "host_limited,shortfall_pct,sim_lat_us,suite\n");

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

/* Every number of a JSON tree as "PATH,VALUE" rows (PATH a.b.0.c). */
static void csv_flatten(GString *s, const char *suite, const char *path,
                        JsonNode *n)
{
    if (JSON_NODE_HOLDS_OBJECT(n)) {
        JsonObject *o = json_node_get_object(n);
        g_autoptr(GList) names = json_object_get_members(o);

        for (GList *l = names; l; l = l->next) {
            g_autofree char *p = *path ?
                g_strdup_printf("%s.%s", path, (char *)l->data) :
                g_strdup(l->data);

            csv_flatten(s, suite, p, json_object_get_member(o, l->data));
        }
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *a = json_node_get_array(n);

        for (unsigned i = 0; i < json_array_get_length(a); i++) {
            JsonNode *e = json_array_get_element(a, i);
            JsonObject *eo = JSON_NODE_HOLDS_OBJECT(e) ?
                             json_node_get_object(e) : NULL;
            /* steps by name rather than by index */
            g_autofree char *p = eo && json_object_has_member(eo, "name") ?
                g_strdup_printf("%s.%s", path,
                                json_object_get_string_member(eo, "name")) :
                g_strdup_printf("%s.%u", path, i);

            csv_flatten(s, suite, p, e);
        }
    } else if (JSON_NODE_HOLDS_VALUE(n) &&
               (json_node_get_value_type(n) == G_TYPE_DOUBLE ||
                json_node_get_value_type(n) == G_TYPE_INT64)) {
        g_string_append_printf(s, "%s,%s,%.6g\n", suite, path,
                               json_node_get_double(n));
    }
}

/* The application suites' figures: suite,metric,value. */
static char *apps_csv(const Run *r)
{
    GString *s = g_string_new("suite,metric,value\n");

    for (unsigned i = 0; i < r->n_order; i++) {
        const App *a = r->apps[r->order[i]];
        g_autoptr(JsonBuilder) b = NULL;
        g_autoptr(JsonNode) n = NULL;

        if (!a) {
            continue;
        }
        b = json_builder_new();
        add_app(b, r, a);
        n = json_builder_get_root(b);
        csv_flatten(s, suites[a->suite], "", n);
    }
    return g_string_free(s, FALSE);
}

/* The files are replaced atomically (written aside, then renamed). */
static void save_results(const Run *r)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *js = results_json(r);
    g_autofree char *csv = results_csv(r);
    g_autofree char *acsv = apps_csv(r);
    g_autofree char *jp = g_build_filename(r->dir, "results.json", NULL);
    g_autofree char *cp = g_build_filename(r->dir, "results.csv", NULL);
    g_autofree char *ap = g_build_filename(r->dir, "apps.csv", NULL);

    if (!g_file_set_contents(jp, js, -1, &err) ||
        !g_file_set_contents(cp, csv, -1, &err) ||
        !g_file_set_contents(ap, acsv, -1, &err)) {
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

/* fio's JSON (group_reporting: one job) into @f; false if unusable.
 * @dd_name: "read", "write", or "mixed" (unified_rw_reporting=mixed). */
static bool parse_fio(const char *text, const char *dd_name, Fig *f,
                      GError **errp)
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
    dd = json_object_has_member(job, dd_name) ?
         json_object_get_object_member(job, dd_name) : NULL;
    lat = dd ? json_object_get_object_member(dd, "lat_ns") : NULL;
    pct = lat && json_object_has_member(lat, "percentile") ?
          json_object_get_object_member(lat, "percentile") : NULL;
    if (!lat) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio's JSON has no %s latency", dd_name);
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

/* One class ("read", "write", ...) of query-nvmimic-stats' return, or NULL. */
static JsonObject *stats_class(JsonNode *n, const char *name)
{
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;
    JsonArray *a = o && json_object_has_member(o, "classes") ?
                   json_object_get_array_member(o, "classes") : NULL;

    for (unsigned i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *c = json_array_get_object_element(a, i);

        if (!g_strcmp0(json_object_get_string_member(c, "class"), name)) {
            return c;
        }
    }
    return NULL;
}

/* The device's statistics over the interval since reset: the read or the
 * write class, or (@mixed) both together, whose percentiles cannot be
 * merged (NAN). */
static bool parse_stats(JsonNode *n, bool write, bool mixed, Fig *f,
                        uint64_t *late, double *interval_s)
{
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
    double interval_ns = obj_double(o, "interval-ns");
    double count = 0, bytes = 0, lat_sum = 0;
    JsonObject *c;

    memset(f, 0, sizeof(*f));
    *late = 0;
    *interval_s = interval_ns / 1e9;
    if (!o || !json_object_has_member(o, "classes") || !(interval_ns > 0)) {
        return false;
    }
    if (!mixed) {
        c = stats_class(n, write ? "write" : "read");
        if (c) {
            f->iops = obj_double(c, "count") * 1e9 / interval_ns;
            f->mbps = obj_double(c, "bytes") * 1e3 / interval_ns;
            f->lat_us = obj_double(c, "mean-us");
            f->p50_us = obj_double(c, "p50-us");
            f->p99_us = obj_double(c, "p99-us");
            f->p999_us = obj_double(c, "p999-us");
            *late = (uint64_t)obj_double(c, "late");
        }
        return true;        /* no such class: no I/O of that kind */
    }
    for (int d = 0; d < 2; d++) {
        c = stats_class(n, d ? "write" : "read");
        if (c) {
            count += obj_double(c, "count");
            bytes += obj_double(c, "bytes");
            lat_sum += obj_double(c, "count") * obj_double(c, "mean-us");
            *late += (uint64_t)obj_double(c, "late");
        }
    }
    f->iops = count * 1e9 / interval_ns;
    f->mbps = bytes * 1e3 / interval_ns;
    f->lat_us = count ? lat_sum / count : 0;
    f->p50_us = f->p99_us = f->p999_us = NAN;
    return true;
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
                               "%s.log and %s/console.log)",
                               WIFEXITED(st) ? WEXITSTATUS(st) : -1, r->gdir,
                               r->gdir);
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
    g_autofree char *gdir = g_strdup(r->gdir);
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
        g_autoptr(GError) e = NULL;
        int st = 0;

        /* the results volume, back from the host */
        if (r->lv && !nvm_lv_guest_download(r->lv, r->lv_results, &e)) {
            fprintf(stderr, "nvmimic run: warning: %s\n", e->message);
            return;
        }
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
static char *make_jobdir(Run *r, GError **errp);
static bool make_backing(Run *r, const char *path, GError **errp);

/* DIR/domain.xml, or DIR/domain-SUITE.xml when the run has several suites */
static char *domain_xml_path(const Run *r)
{
    return r->n_order == 1 ? g_build_filename(r->dir, "domain.xml", NULL) :
           g_strdup_printf("%s/domain-%s.xml", r->dir, suites[r->cfg.suite]);
}

/* run-guest.sh's --mem SIZE (M or G) in MiB */
static unsigned mem_mib(const char *size)
{
    char *end;
    guint64 n = g_ascii_strtoull(size, &end, 10);

    return (unsigned)(*end == 'G' ? n * 1024 : n);
}

static bool start_guest_lv(Run *r, GError **errp)
{
    g_autofree char *jobdir = make_jobdir(r, errp);
    g_autofree char *jobtar = g_strdup_printf("%s.tar", jobdir);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    bool simtime = !strcmp(r->o.mode, "simtime");
    const char *tar[] = { "tar", "-cf", jobtar, "-C", jobdir, ".", NULL };
    NvmLvDisk *d;
    int st = 0, fd;

    if (!jobdir) {
        return false;
    }
    g_free(r->lv_results);
    g_free(r->lv_console);
    r->lv_results = g_build_filename(r->tmp, "results.img", NULL);
    r->lv_console = g_build_filename(r->tmp, "console.log", NULL);
    unlink(r->lv_console);
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
    if (r->cfg.backed) {
        /* a sparse file here, a sparse volume there */
        if (!make_backing(r, backing, errp)) {
            return false;
        }
        s->disk = g_strdup(backing);
        s->disk_format = g_strdup("raw");
    } else {
        s->null_bytes = r->p->capacity_bytes;
    }
    s->seed = r->o.seed;
    s->memory_mib = mem_mib(r->cfg.mem);
    s->vcpus = r->cfg.smp;
    s->kernel = g_build_filename(r->cfg.guest_dir, "vmlinuz", NULL);
    s->initrd = g_build_filename(r->cfg.guest_dir, "initramfs.cpio.gz", NULL);
    s->append = g_strdup_printf("console=ttyS0 panic=-1%s%s",
                                r->cfg.append ? " " : "",
                                r->cfg.append ? r->cfg.append : "");
    /* the database guest's root: uploaded, so a copy of the run's own */
    s->boot_disk = g_strdup(r->cfg.boot_disk);
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
    /* the host may be another machine: the files go there as storage
     * volumes, the serial ports come back through the connection (serial0
     * into lv_console, serial1 the control channel) */
    s->serial_log = g_strdup(r->lv_console);
    s->ctl_serial = true;
    s->upload = true;
    s->pool = g_strdup(r->o.pool);
    if (!nvm_lv_spec_check(s, errp)) {
        return false;
    }
    {
        g_autofree char *xml = nvm_lv_domain_xml(s);
        g_autofree char *xf = domain_xml_path(r);

        g_file_set_contents(xf, xml, -1, NULL);
    }
    r->lv = nvm_lv_guest_start(r->o.connect, s, errp);
    if (!r->lv) {
        r->host_lost = g_error_matches(*errp, NVM_LV_ERROR,
                                       NVM_LV_ERROR_HOST);
        return false;
    }
    {
        /* as defined there: the volumes' paths */
        g_autofree char *xf = domain_xml_path(r);

        g_file_set_contents(xf, nvm_lv_guest_xml(r->lv), -1, NULL);
    }
    r->mon.exec = mon_libvirt;
    r->mon.h = r->lv;
    r->accel = g_strdup(simtime ? "tcg icount" : "kvm");
    r->ctl = nvm_lv_guest_ctl(r->lv, errp);
    if (!r->ctl) {
        return false;
    }
    return wait_hello(r, errp);
}

/* The drive's backing file for the suites whose data must stay (swap, a
 * database): sparse, so only what the guest writes takes host space. */
static bool make_backing(Run *r, const char *path, GError **errp)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || ftruncate(fd, r->p->capacity_bytes) < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "cannot make the drive's backing file %s: %s", path,
                    g_strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);
    return true;
}

/* The job directory of the current suite: the agent as run.sh, and the
 * suite's files (GuestCfg.files; directories are copied whole). */
static char *make_jobdir(Run *r, GError **errp)
{
    g_autofree char *jobdir = g_strdup_printf("%s/job-%s", r->tmp,
                                              suites[r->cfg.suite]);
    g_autofree char *agent = g_getenv("NVMIMIC_AGENT") ?
        g_strdup(g_getenv("NVMIMIC_AGENT")) :
        g_build_filename(NVMIMIC_SOURCE_DIR, "vm-images", "agent.sh", NULL);
    g_autofree char *runsh = g_build_filename(jobdir, "run.sh", NULL);
    g_autofree char *text = NULL;
    gsize len;

    g_mkdir_with_parents(jobdir, 0755);
    if (!g_file_get_contents(agent, &text, &len, errp) ||
        !g_file_set_contents(runsh, text, len, errp)) {
        return NULL;
    }
    for (unsigned i = 0; r->cfg.files && i + 1 < r->cfg.files->len; i += 2) {
        const char *src = g_ptr_array_index(r->cfg.files, i);
        g_autofree char *dst = g_build_filename(jobdir,
            (char *)g_ptr_array_index(r->cfg.files, i + 1), NULL);
        const char *cp[] = { "cp", "-RL", src, dst, NULL };
        int st;

        if (!g_file_test(src, G_FILE_TEST_EXISTS)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                        "%s is missing (the %s suite needs it)", src,
                        suites[r->cfg.suite]);
            return NULL;
        }
        if (!g_spawn_sync(NULL, (char **)cp, NULL, G_SPAWN_SEARCH_PATH, NULL,
                          NULL, NULL, NULL, &st, errp) ||
            !g_spawn_check_wait_status(st, errp)) {
            g_prefix_error(errp, "copying %s into the job: ", src);
            return NULL;
        }
    }
    return g_steal_pointer(&jobdir);
}

static bool start_guest(Run *r, GError **errp)
{
    if (r->o.connect) {
        return start_guest_lv(r, errp);
    }
    g_autofree char *jobdir = make_jobdir(r, errp);
    g_autofree char *runguest = g_build_filename(NVMIMIC_SOURCE_DIR,
                                                 "vm-images", "run-guest.sh",
                                                 NULL);
    g_autofree char *ctl = g_build_filename(r->tmp, "ctl.sock", NULL);
    g_autofree char *qmp = g_build_filename(r->tmp, "qmp.sock", NULL);
    const char *gdir = r->gdir;
    g_autofree char *log = g_strdup_printf("%s.log", r->gdir);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autofree char *smp = g_strdup_printf("%u", r->cfg.smp);
    g_autofree char *bootdrive = r->cfg.boot_disk ? g_strdup_printf(
        "file=%s,if=virtio,format=raw,snapshot=on", r->cfg.boot_disk) : NULL;
    g_autofree char *chardev = g_strdup_printf(
        "socket,id=nvmctl,path=%s,server=on,wait=off", ctl);
    g_autofree char *qmparg = g_strdup_printf("unix:%s,server=on,wait=off",
                                              qmp);
    g_autofree char *blockdev = r->cfg.backed ? g_strdup_printf(
        "driver=raw,node-name=nvmdisk,file.driver=file,file.filename=%s",
        backing) : g_strdup_printf(
        "driver=null-co,node-name=nvmdisk,size=%" G_GUINT64_FORMAT
        ",read-zeroes=on", r->p->capacity_bytes);
    g_autofree char *device = g_strdup_printf(
        "nvme,id=nvm0,drive=nvmdisk,profile=%s,profile-seed=%" G_GUINT64_FORMAT,
        r->profile_path, r->o.seed);
    bool simtime = !strcmp(r->o.mode, "simtime");
    const char *argv[40];
    unsigned a = 0;
    pid_t pid;

    if (!jobdir) {
        return false;
    }
    unlink(ctl);
    unlink(qmp);
    if (r->cfg.backed && !make_backing(r, backing, errp)) {
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
    argv[a++] = r->cfg.mem;
    argv[a++] = "--smp";
    argv[a++] = smp;
    if (r->cfg.append) {
        argv[a++] = "--append";
        argv[a++] = r->cfg.append;
    }
    argv[a++] = r->o.qemu;
    argv[a++] = r->cfg.guest_dir;
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
    if (bootdrive) {
        argv[a++] = "-drive";
        argv[a++] = bootdrive;
    }
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
            g_free(r->accel);
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
    gint64 t0 = g_get_monotonic_time();     /* this guest's boot */

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
            (g_get_monotonic_time() - t0) / 1e6 > BOOT_TIMEOUT_S) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest agent did not start within %d s (see "
                        "%s/console.log)", BOOT_TIMEOUT_S, r->gdir);
            return false;
        }
    }
}

/* One command for the guest agent (vm-images/agent.sh). */
typedef struct GuestCmd {
    const char *verb;           /* RUN: fio's arguments; SH: a shell command */
    const char *id;
    const char *label;          /* the workload, for progress lines */
    const char *args;
    uint64_t marks_us[2];       /* the agent's timed marks; 0 0: none */
    bool whole;                 /* device statistics around the command */
    double total_s;             /* virtual seconds it should take */
    double timeout_s;           /* wall seconds it may take */
    Point *pt;                  /* progress lines for this point, or NULL */
    bool write, mixed;          /* the point's device class */
} GuestCmd;

/*
 * Run one command in the guest.  The device statistics are reset at the
 * "start" mark (the agent's own, or the command's) and read at "stop" into
 * *stats, or (@c->whole) around the whole command.  The command's JSON goes
 * to *json; when it fails, the last lines of its log to *tail.
 */
static bool guest_cmd(Run *r, const GuestCmd *c, JsonNode **stats,
                      char **json, char **tail, GError **errp)
{
    g_autofree char *cmd = g_strdup_printf("%s %s %" G_GUINT64_FORMAT " %"
                                           G_GUINT64_FORMAT " %s", c->verb,
                                           c->id, c->marks_us[0],
                                           c->marks_us[1], c->args);
    g_autofree char *resprefix = g_strdup_printf("RESULT %s ", c->id);
    g_autofree char *endline = g_strdup_printf("END %s", c->id);
    g_autofree char *markstart = g_strdup_printf("MARK %s start", c->id);
    g_autofree char *markstop = g_strdup_printf("MARK %s stop", c->id);
    gint64 start = g_get_monotonic_time();
    GString *js = NULL;
    bool in_result = false, started = c->whole;
    int rc = -1;

    *json = NULL;
    if (tail) {
        *tail = NULL;
    }
    if (stats) {
        *stats = NULL;
    }
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
            } else if (!strcmp(line, markstart)) {
                if (!qmp_state(r, "\"reset-stats\": true", errp)) {
                    break;
                }
                started = true;
            } else if (!strcmp(line, markstop) && stats && !*stats) {
                *stats = qmp_stats(r, errp);
                if (!*stats) {
                    break;
                }
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
        if (wall > c->timeout_s) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest did not finish within %.0f s wall; it was "
                        "killed", c->timeout_s);
            break;
        }
        if (st == NVM_LINE_TIMEOUT && !in_result && c->pt && started &&
            !(stats && *stats)) {
            JsonNode *n = qmp_stats(r, NULL);

            if (n) {
                Fig f;
                uint64_t late;
                double iv;

                parse_stats(n, c->write, c->mixed, &f, &late, &iv);
                json_node_unref(n);
                progress(r, c->label, c->pt, MIN(iv, c->total_s), c->total_s,
                         f.iops, false);
            }
        }
    }
    if (c->pt) {
        c->pt->wall_s = (g_get_monotonic_time() - start) / 1e6;
    }
    if (!js || *errp) {
        if (js) {
            g_string_free(js, TRUE);
        }
        return false;
    }
    if (c->whole && stats && !*stats) {
        *stats = qmp_stats(r, errp);
        if (!*stats) {
            g_string_free(js, TRUE);
            return false;
        }
    }
    if (rc != 0) {
        g_autofree char *text = g_string_free(js, FALSE);
        g_auto(GStrv) lines = g_strsplit(g_strstrip(text), "\n", -1);
        const char *last = lines[0] ? lines[g_strv_length(lines) - 1] : "";

        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "%s exited with status %d in the guest%s%s (log: %s/%s.log)",
                    !strcmp(c->verb, "RUN") ? "fio" : c->id, rc,
                    *last ? ": " : "", last, r->gdir, c->id);
        if (tail) {
            *tail = g_strdup(text);
        }
        return false;
    }
    *json = g_string_free(js, FALSE);
    if (stats && !*stats) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "%s ended before its stop mark", c->id);
        return false;
    }
    return true;
}

static char *fio_args(const Run *r, const Wl *wl, const char *name,
                      double ramp_s, double run_s, double rate_iops,
                      uint64_t seed)
{
    const NvmWorkload *w = &wl->wl;
    GString *s = g_string_new(NULL);
    const char *rw;

    if (wl->mix) {
        /* The job file holds the mix; these options precede it and apply
         * to its job as [global] ones would. */
        double rd = wl->mix->read_pct / 100;

        g_string_append_printf(s, "--offset=0 --size=%" G_GUINT64_FORMAT
                               " --norandommap=1 --randrepeat=0 "
                               "--randseed=%" G_GUINT64_FORMAT
                               " --time_based=1 --ramp_time=%.0fms "
                               "--runtime=%.0fms --lat_percentiles=1 "
                               "--percentile_list=50:99:99.9 "
                               "--unified_rw_reporting=mixed",
                               r->span_bytes, seed, ramp_s * 1e3,
                               run_s * 1e3);
        if (rate_iops > 0) {
            /* fio limits reads and writes apart: split in the mix's ratio */
            double per = rate_iops / wl->mix->numjobs;

            g_string_append_printf(s, " --rate_iops=%.0f,%.0f "
                                   "--rate_process=poisson",
                                   MAX(1, per * rd), MAX(1, per * (1 - rd)));
        }
        g_string_append_printf(s, " /job/%s", wl->jobfile);
        (void)name;
        return g_string_free(s, FALSE);
    }
    rw = w->op == NVM_OP_WRITE ?
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
        GuestCmd c = { .verb = "RUN", .label = wl->wl.name };
        g_autofree char *args = g_strdup_printf(
            "--name=precondition --filename=/dev/nvme0n1 --direct=1 "
            "--ioengine=libaio --rw=write --bs=1m --iodepth=8 --offset=0 "
            "--size=%" G_GUINT64_FORMAT, r->span_bytes);
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
        c.id = id;
        c.args = args;
        c.timeout_s = 120 + ios / 100;
        if (!guest_cmd(r, &c, NULL, &json, NULL, errp)) {
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
    g_autoptr(JsonNode) stats = NULL;
    bool write = wl->wl.op == NVM_OP_WRITE;
    GuestCmd c = {
        .verb = "RUN", .id = id, .label = wl->wl.name, .args = args,
        .marks_us = { marks[0], marks[1] }, .total_s = ramp + run,
        .timeout_s = point_timeout(r, ramp + run, peak ? 0 : pt->target_iops),
        .pt = pt, .write = write, .mixed = wl->mix != NULL,
    };

    if (!guest_cmd(r, &c, &stats, &json, NULL, errp)) {
        return false;
    }
    pt->have_host = parse_stats(stats, write, wl->mix != NULL, &pt->host,
                                &pt->host_late, &pt->host_interval_s);
    if (!parse_fio(json, wl->mix ? "mixed" : write ? "write" : "read",
                   &pt->guest, errp)) {
        return false;
    }
    judge_point(wl, pt);
    pt->done = true;
    progress(r, wl->wl.name, pt, ramp + run, ramp + run, pt->guest.iops, true);
    return true;
}

static bool has_suite(const Run *r, int suite);

static void print_table(const Run *r)
{
    if (!r->n_wls) {
        return;
    }
    printf("\n%s: %s in a %s guest (%s), %g s per point\n", r->p->name,
           has_suite(r, S_FC) && has_suite(r, S_VDI) ?
           "four corners and VDI" : has_suite(r, S_VDI) ? "VDI" :
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

static bool has_suite(const Run *r, int suite)
{
    for (unsigned i = 0; i < r->n_order; i++) {
        if (r->order[i] == suite) {
            return true;
        }
    }
    return false;
}

static void wl_review(Wl *wl, const NvmProfile *p, GArray *rows)
{
    wl->review_iops = wl->review_lat_us = NAN;
    for (unsigned k = 0; rows && k < rows->len; k++) {
        NvmReviewRow *row = &g_array_index(rows, NvmReviewRow, k);

        if (!strcmp(row->drive, p->name) &&
            !strcmp(row->workload, wl->wl.name)) {
            wl->review_iops = row->peak_iops;
            wl->review_lat_us = row->lat_us;
        }
    }
}

static bool setup(Run *r, GError **errp)
{
    NvmWorkload all[NVM_FOUR_CORNERS];
    g_auto(GStrv) want = r->o.workloads ?
                         g_strsplit(r->o.workloads, ",", -1) : NULL;
    g_autofree char *rev = g_build_filename(r->o.profile_dir, "reviews",
                                            "four-corners.tsv", NULL);
    GArray *rows;
    NvmSimOptions so = { 0 };
    bool fc = has_suite(r, S_FC), vdi = has_suite(r, S_VDI);

    nvm_four_corners(all, !strcmp(r->o.threads, "implied"));
    if (want) {
        for (char **w = want; *w; w++) {
            bool found = false;

            for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
                found |= !strcmp(*w, all[i].name);
            }
            for (unsigned i = 0; vdi && i < NVM_VDI_WORKLOADS; i++) {
                found |= !strcmp(*w, nvm_vdi_names[i]);
            }
            if (!found) {
                g_autoptr(GString) l = g_string_new(NULL);

                for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
                    g_string_append_printf(l, "%s%s", l->len ? ", " : "",
                                           all[i].name);
                }
                for (unsigned i = 0; vdi && i < NVM_VDI_WORKLOADS; i++) {
                    g_string_append_printf(l, "%s%s", l->len ? ", " : "",
                                           nvm_vdi_names[i]);
                }
                g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "unknown workload '%s' (%s)", *w,
                            l->len ? l->str : "this suite has none");
                return false;
            }
        }
    }
    so.seed = r->o.seed;
    so.implied_threads = !strcmp(r->o.threads, "implied");
    so.duration_s = r->sim_duration_s;
    if (fc) {
        nvm_sim_four_corners(r->p, &so, r->sim);
    }
    if (vdi) {
        if (!nvm_sim_vdi(r->p, &so, r->o.workload_dir, r->vdi, errp)) {
            return false;
        }
        r->have_vdi = true;
    }

    rows = nvm_reviews_load(rev, NULL);
    for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
        Wl *wl;

        if (want && !g_strv_contains((const char *const *)want,
                                     all[i].name)) {
            continue;
        }
        wl = &r->wls[r->n_wls++];
        wl->suite = S_FC;
        wl->wl = all[i];
        wl->sim = &r->sim[i];
        if (wl->wl.sequential || wl->wl.threads < 4 ||
            wl->wl.threads % 4) {
            wl->jobs = 1;       /* one stream, as the model's sequential */
        } else {
            wl->jobs = 4;       /* fio processes cost guest CPU: few jobs */
        }
        wl->iodepth = wl->wl.threads / wl->jobs;
        wl_review(wl, r->p, rows);
    }
    for (unsigned i = 0; vdi && i < NVM_VDI_WORKLOADS; i++) {
        NvmVdiResult *v = &r->vdi[i];
        NvmCornerResult *cs = &r->vdi_sim[i];
        Wl *wl;

        if (want && !g_strv_contains((const char *const *)want,
                                     nvm_vdi_names[i])) {
            continue;
        }
        wl = &r->wls[r->n_wls++];
        wl->suite = S_VDI;
        wl->mix = v->mix;
        wl->jobfile = g_path_get_basename(v->path);
        wl->wl.name = nvm_vdi_names[i];
        wl->wl.op = NVM_OP_READ;        /* unused: the mix decides */
        wl->wl.threads = nvm_mix_outstanding(v->mix);
        wl->wl.block_bytes = (uint32_t)lround(
            nvm_mix_mean_block_bytes(v->mix));
        wl->jobs = v->mix->numjobs;
        wl->iodepth = v->mix->iodepth;
        /* The model's mix, reads and writes together, as a curve. */
        cs->wl = wl->wl;
        cs->peak = v->peak.all;
        cs->n_curve = v->n_curve;
        for (unsigned k = 0; k < v->n_curve; k++) {
            cs->target_pct[k] = v->target_pct[k];
            cs->target_iops[k] = v->target_iops[k];
            cs->curve[k] = v->curve[k].all;
        }
        wl->sim = cs;
        wl_review(wl, r->p, rows);      /* the reviews' VDI peaks: none */
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        Wl *wl = &r->wls[w];

        wl->peak.target_pct = 0;
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

static const char *guest_dir_name(const Run *r, int suite)
{
    static char buf[4096];

    /* one suite: DIR/guest, as it always was; several: one per suite */
    if (r->n_order == 1) {
        snprintf(buf, sizeof(buf), "%s/guest", r->dir);
    } else {
        snprintf(buf, sizeof(buf), "%s/guest-%s", r->dir, suites[suite]);
    }
    return buf;
}

static void cfg_clear(GuestCfg *c)
{
    g_free(c->guest_dir);
    g_free(c->append);
    g_free(c->boot_disk);
    if (c->files) {
        g_ptr_array_free(c->files, TRUE);
    }
    memset(c, 0, sizeof(*c));
}

static void cfg_file(GuestCfg *c, char *src, const char *name)
{
    g_ptr_array_add(c->files, src);
    g_ptr_array_add(c->files, g_strdup(name));
}

/* The guest of @suite: initramfs guest with null-co, except render (little
 * RAM, the drive on a file for swap) and sql (the database guest). */
static bool cfg_for(Run *r, int suite, GError **errp)
{
    GuestCfg *c = &r->cfg;

    cfg_clear(c);
    c->suite = suite;
    c->mem = "1G";
    c->smp = 1;
    c->guest_dir = g_strdup(r->o.guest_dir);
    c->files = g_ptr_array_new_with_free_func(g_free);
    g_free(r->gdir);
    r->gdir = g_strdup(guest_dir_name(r, suite));
    switch (suite) {
    case S_VDI:
        for (unsigned i = 0; i < NVM_VDI_WORKLOADS; i++) {
            g_autofree char *base = g_path_get_basename(r->vdi[i].path);

            cfg_file(c, g_strdup(r->vdi[i].path), base);
        }
        break;
    case S_SEQ:
        cfg_file(c, g_build_filename(NVMIMIC_SOURCE_DIR, "workloads", "seq",
                                     "seq-write.fio", NULL), "seq-write.fio");
        cfg_file(c, g_build_filename(NVMIMIC_SOURCE_DIR, "workloads", "seq",
                                     "seq-read.fio", NULL), "seq-read.fio");
        break;
    case S_RENDER: {
        g_autofree char *mem = g_strdup_printf("%uM", r->o.render_mem_mib);
        const char *bin = g_getenv("NVMIMIC_RENDER") ?
                          g_getenv("NVMIMIC_RENDER") : NVMIMIC_RENDER;

        r->render_mem = g_steal_pointer(&mem);
        c->mem = r->render_mem;
        c->backed = true;
        cfg_file(c, g_strdup(bin), "render");
        cfg_file(c, g_build_filename(NVMIMIC_SOURCE_DIR, "workloads",
                                     "render", "run.sh", NULL), "render.sh");
        break;
    }
    case S_SQL:
        g_free(c->guest_dir);
        c->guest_dir = g_strdup(r->o.dbguest_dir);
        c->boot_disk = g_build_filename(r->o.dbguest_dir, "dbguest.img",
                                        NULL);
        if (!g_file_test(c->boot_disk, G_FILE_TEST_EXISTS)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                        "no database guest: %s is missing (build it with "
                        "'make dbguest', or set --dbguest-dir / "
                        "NVMIMIC_DBGUEST_DIR)", c->boot_disk);
            return false;
        }
        c->append = g_strdup("root=LABEL=nvmimic-db rw "
                             "init=/sbin/nvmimic-dbinit");
        c->mem = "2G";
        c->smp = 2;
        if (r->o.sql_preset && !strcmp(r->o.sql_preset, "review")) {
            /* the reviews' VM: 16 vCPUs, 64 GB, a 48 GB buffer; init gets
             * PG_* from the kernel command line as its environment */
            g_free(c->append);
            c->append = g_strdup_printf("root=LABEL=nvmimic-db rw "
                                        "init=/sbin/nvmimic-dbinit "
                                        "PG_MAX_CONN=%u "
                                        "PG_SHARED_BUFFERS=48GB",
                                        r->o.sql_users + 100);
            c->mem = "64G";
            c->smp = 16;
        }
        c->backed = true;
        cfg_file(c, g_build_filename(NVMIMIC_SOURCE_DIR, "workloads", "tpcc",
                                     NULL), "tpcc");
        break;
    }
    return true;
}

/* Ask the agent to leave; the guest writes its results and powers off.
 * True when it did within a minute (its logs are then in r->gdir). */
static bool stop_guest(Run *r)
{
    bool off = false;

    if (!r->ctl || !nvm_line_send(r->ctl, "QUIT", NULL)) {
        return false;
    }
    if (r->lv) {
        off = nvm_lv_guest_wait_off(r->lv, 60000);
        lv_collect(r, off);
        return off;
    }
    for (int i = 0; i < 600 && r->child > 0; i++) {
        int st;

        if (waitpid(r->child, &st, WNOHANG) == r->child) {
            r->child = 0;
            off = true;
            break;
        }
        g_usleep(100 * 1000);
    }
    return off;
}

static App *app_new(Run *r, int suite)
{
    App *a = g_new0(App, 1);

    a->suite = suite;
    r->apps[suite] = a;
    return a;
}

static void app_free(App *a)
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

static JsonNode *parse_json(const char *text, const char *what, GError **errp)
{
    g_autoptr(JsonParser) p = json_parser_new();
    const char *brace = text ? strchr(text, '{') : NULL;

    if (!brace || !json_parser_load_from_data(p, brace, -1, errp)) {
        if (errp && !*errp) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "%s produced no JSON", what);
        } else {
            g_prefix_error(errp, "%s's JSON: ", what);
        }
        return NULL;
    }
    return json_node_copy(json_parser_get_root(p));
}

static double dev_lat(JsonNode *n, const char *cls, const char *field)
{
    JsonObject *c = stats_class(n, cls);

    return c ? obj_double(c, field) : NAN;
}

/* seq: 1 MiB sequential write then read at QD 8 and 32. */
static bool run_seq(Run *r, App *a, GError **errp)
{
    static const unsigned qds[] = { 8, 32 };
    static const char *const rws[] = { "write", "read" };

    for (unsigned q = 0; q < G_N_ELEMENTS(qds); q++) {
        for (unsigned k = 0; k < G_N_ELEMENTS(rws); k++) {
            AppStep *st = &a->steps[a->n_steps];
            g_autofree char *json = NULL;
            g_autofree char *args = NULL;
            /* the device's interval: from the first I/O to fio's end */
            GuestCmd c = { .verb = "SH", .label = "seq", .marks_us = { 1, 0 } };

            st->name = g_strdup_printf("seq-%s-qd%u", rws[k], qds[q]);
            st->rw = rws[k];
            st->qd = qds[q];
            st->bytes = r->o.seq_bytes;
            args = g_strdup_printf("SEQ_DEV=/dev/nvme0n1 SEQ_SIZE=%"
                                   G_GUINT64_FORMAT " SEQ_QD=%u SEQ_DIRECT=1 "
                                   "fio ./seq-%s.fio --output-format=json "
                                   "--lat_percentiles=1 "
                                   "--percentile_list=50:99:99.9 "
                                   "--output=$RESULTS/%s.json", st->bytes,
                                   st->qd, st->rw, st->name);
            c.id = st->name;
            c.args = args;
            /* TCG moves ~50 MB of 1 MiB I/Os per wall second here */
            c.timeout_s = 120 + st->bytes / 5e6;
            if (!guest_cmd(r, &c, &st->device, &json, &a->log_tail, errp) ||
                !parse_fio(json, st->rw, &st->guest, errp)) {
                g_free(st->name);
                st->name = NULL;
                return false;
            }
            a->n_steps++;
            printf("%s seq %s QD %u: %.2f GB/s, lat %.0f us (device %.0f "
                   "us)\n", r->p->name, st->rw, st->qd, st->guest.mbps / 1e3,
                   st->guest.lat_us, dev_lat(st->device, st->rw, "mean-us"));
            fflush(stdout);
            save_results(r);
        }
    }
    return true;
}

/* render: swap on the drive, load / unpack / repack; seconds. */
static bool run_render(Run *r, App *a, GError **errp)
{
    g_autofree char *json = NULL;
    JsonObject *o, *res;
    /* swap for the working array beyond RAM, with room to spare */
    unsigned swap_mb = MAX(1024, (unsigned)(r->o.render_mem_mib *
                                           r->o.render_ram_factor * 2));
    g_autofree char *args = g_strdup_printf(
        "SWAP_MB=%u; RAM_FACTOR=%g; printf 'SWAP_MB=%u\\nRAM_FACTOR=%g\\n' "
        ">render.conf && sh ./render.sh", swap_mb, r->o.render_ram_factor,
        swap_mb, r->o.render_ram_factor);
    GuestCmd c = {
        .verb = "SH", .id = "render-job", .label = "render", .args = args,
        .whole = true, .timeout_s = 3600,
    };

    if (!guest_cmd(r, &c, &a->device, &json, &a->log_tail, errp)) {
        return false;
    }
    a->result = parse_json(json, "render", errp);
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
           r->o.render_mem_mib, obj_double(res, "array_bytes") / 1e6,
           obj_double(res, "load_s"), obj_double(res, "unpack_s"),
           obj_double(res, "repack_s"), obj_double(res, "total_s"));
    fflush(stdout);
    return true;
}

/* sql: TPC-C on PostgreSQL in the database guest. */
static bool run_sql(Run *r, App *a, GError **errp)
{
    g_autofree char *json = NULL;
    g_autofree char *args = g_strdup_printf(
        "sh ./tpcc/tpcc.sh -w %u -u %u -P %u -S %u -k %g --device "
        "/dev/nvme0n1 -o $RESULTS/tpcc all && cp $RESULTS/tpcc/report.json "
        "$RESULTS/tpcc.json", r->o.sql_w, r->o.sql_users, r->o.sql_pre_s,
        r->o.sql_sample_s, r->o.sql_think);
    GuestCmd c = {
        .verb = "SH", .id = "tpcc", .label = "sql", .args = args,
        /* loading takes minutes a warehouse under TCG */
        .timeout_s = 900 + 900.0 * r->o.sql_w +
                     10.0 * (r->o.sql_pre_s + r->o.sql_sample_s),
    };
    JsonObject *o, *ov;

    if (!guest_cmd(r, &c, &a->device, &json, &a->log_tail, errp)) {
        return false;
    }
    a->result = parse_json(json, "tpcc", errp);
    if (!a->result) {
        return false;
    }
    o = JSON_NODE_HOLDS_OBJECT(a->result) ?
        json_node_get_object(a->result) : NULL;
    ov = o && json_object_has_member(o, "overall") ?
         json_object_get_object_member(o, "overall") : NULL;
    printf("%s sql: W=%u, %u users: %.1f tpmC, avg %.2f ms, p99 %.2f ms; "
           "device read %.1f us, write %.1f us\n", r->p->name, r->o.sql_w,
           r->o.sql_users, obj_double(o, "tpmC"), obj_double(ov, "avg_ms"),
           obj_double(ov, "p99_ms"), dev_lat(a->device, "read", "mean-us"),
           dev_lat(a->device, "write", "mean-us"));
    fflush(stdout);
    return true;
}

static void fail_point(Run *r, const char *what, const char *msg);

/* The peak and curve points of every workload of @suite. */
static bool run_curves(Run *r, int suite, char **cur, GError **errp)
{
    for (unsigned w = 0; w < r->n_wls; w++) {
        Wl *wl = &r->wls[w];

        if (wl->suite != suite) {
            continue;
        }
        g_free(*cur);
        *cur = g_strdup_printf("%s precondition", wl->wl.name);
        if (!precondition(r, wl, errp)) {
            return false;
        }
        g_free(*cur);
        *cur = g_strdup_printf("%s peak", wl->wl.name);
        if (!run_point(r, wl, &wl->peak, w, 0, errp)) {
            return false;
        }
        save_results(r);
        for (unsigned i = 0; i < wl->n_curve; i++) {
            Point *pt = &wl->curve[i];

            pt->target_iops = nvm_curve_rate(wl->peak.guest.iops,
                                             pt->target_pct);
            g_free(*cur);
            *cur = g_strdup_printf("%s %d %%", wl->wl.name, pt->target_pct);
            if (!run_point(r, wl, pt, w, i + 1, errp)) {
                return false;
            }
            save_results(r);
        }
    }
    return true;
}

/* One suite in its own guest.  False when it failed (r->error says why). */
static bool run_suite(Run *r, int suite)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *cur = g_strdup_printf("%s boot", suites[suite]);
    App *a = suite >= S_SQL ? app_new(r, suite) : NULL;
    gint64 t0 = g_get_monotonic_time();
    bool ok = false, graceful = false;

    if (!cfg_for(r, suite, &err)) {
        goto out;
    }
    if (r->n_order > 1) {
        printf("nvmimic run: suite %s\n", suites[suite]);
        fflush(stdout);
    }
    save_results(r);
    if (!start_guest(r, &err)) {
        goto out;
    }
    if (!a) {
        ok = run_curves(r, suite, &cur, &err);
        goto out;
    }
    /* The application suites start from a new, erased drive. */
    g_free(cur);
    cur = g_strdup(suites[suite]);
    if (!qmp_state(r, "\"secure-erase\": true, \"reset-stats\": true",
                   &err)) {
        goto out;
    }
    ok = suite == S_SEQ ? run_seq(r, a, &err) :
         suite == S_RENDER ? run_render(r, a, &err) : run_sql(r, a, &err);
    /* a command that failed in a live guest: let it hand back its logs */
    graceful = !ok && a->log_tail;

out:
    if (ok || graceful) {
        if (!stop_guest(r) && ok) {
            fprintf(stderr, "nvmimic run: warning: the %s guest did not "
                    "power off by itself; its logs may be missing\n",
                    suites[suite]);
        }
    }
    kill_guest(r);
    nvm_line_close(r->ctl);
    r->ctl = NULL;
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
            g_strdup_printf("%s: %s", suites[suite], cur) : g_strdup(cur);

        if (r->error) {
            /* the first failure stays the run's; later ones are per app */
            fprintf(stderr, "nvmimic run: %s failed: %s\n", what,
                    err->message);
        } else {
            fail_point(r, what, err->message);
        }
    }
    save_results(r);
    return ok;
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

    o->profile_dir = profile_dir;
    o->mode = "simtime";
    o->threads = "stated";
    o->seed = 1;
    o->qemu = g_getenv("NVMIMIC_QEMU") ? g_getenv("NVMIMIC_QEMU")
                                       : NVMIMIC_QEMU;
    o->guest_dir = g_getenv("NVMIMIC_GUEST_DIR") ?
                   g_getenv("NVMIMIC_GUEST_DIR") : NVMIMIC_GUEST_DIR;
    o->dbguest_dir = g_getenv("NVMIMIC_DBGUEST_DIR") ?
                     g_getenv("NVMIMIC_DBGUEST_DIR") : NVMIMIC_DBGUEST_DIR;
    o->workload_dir = g_getenv("NVMIMIC_WORKLOAD_DIR") &&
                      *g_getenv("NVMIMIC_WORKLOAD_DIR") ?
                      g_getenv("NVMIMIC_WORKLOAD_DIR") : NVMIMIC_WORKLOAD_DIR;
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
    {
        g_auto(GStrv) v = g_strsplit(o->suite, ",", -1);

        for (char **sv = v; *sv; sv++) {
            int n = 0;
            const int *add;
            int one;

            if (!in_list(*sv, suites)) {
                g_autofree char *l = join_list(suites);

                return run_usage("unknown suite '%s' (valid: %s, or a "
                                 "comma-separated list)", *sv, l);
            }
            if (!strcmp(*sv, "all")) {
                add = all_suites;
                n = G_N_ELEMENTS(all_suites);
            } else {
                for (one = 0; strcmp(suites[one], *sv); one++) {
                }
                add = &one;
                n = 1;
            }
            for (int k = 0; k < n; k++) {
                if (!has_suite(r, add[k])) {
                    r->order[r->n_order++] = add[k];
                }
            }
        }
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

        if (!(r->n_order == 1 && r->order[0] == S_SQL) &&
            !g_file_test(k, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "nvmimic run: no guest in '%s' (build it with "
                    "vm-images/build-guest.sh, or set --guest-dir / "
                    "NVMIMIC_GUEST_DIR)\n", o->guest_dir);
            return 1;
        }
    }
    if (!(o->run_s > 0)) {
        o->run_s = o->quick ? 0.5 : 30;
    }
    /* Application suites: defaults for a 2-core host (README, "Suites") */
    if (!o->seq_bytes) {
        o->seq_bytes = (uint64_t)(o->quick ? 1024 : 4096) << 20;
    }
    if (!o->render_mem_mib) {
        /* the initramfs guest's root filesystem holds ~90 MB of RAM: with
         * 256 MiB the kernel's half-of-RAM tmpfs limit leaves no room */
        o->render_mem_mib = 384;
    }
    if (!(o->render_ram_factor > 0)) {
        o->render_ram_factor = o->quick ? 1.2 : 1.5;
    }
    if (o->sql_preset && !strcmp(o->sql_preset, "review")) {
        /* the reviews' SQL Server test (shared/reviews/README.md): 1,500
         * warehouses (~333 GB), 15,000 users, 2.5 h + 30 min, spec think
         * times; options given explicitly still win */
        o->sql_w = o->sql_w ? o->sql_w : 1500;
        o->sql_users = o->sql_users ? o->sql_users : 15000;
        if (!o->sql_pre_set) {
            o->sql_pre_s = 9000;
            o->sql_pre_set = true;
        }
        o->sql_sample_s = o->sql_sample_s ? o->sql_sample_s : 1800;
        o->sql_think = o->sql_think > 0 ? o->sql_think : 1;
    } else if (o->sql_preset) {
        /* --sql-preset quick: the sizes --quick gives the sql suite */
        if (!o->sql_pre_set) {
            o->sql_pre_s = 10;
            o->sql_pre_set = true;
        }
        o->sql_sample_s = o->sql_sample_s ? o->sql_sample_s : 30;
    }
    if (!o->sql_w) {
        o->sql_w = 1;
    }
    if (!o->sql_users) {
        o->sql_users = 10 * o->sql_w;
    }
    if (!o->sql_pre_set) {
        o->sql_pre_s = o->quick ? 10 : 60;
    }
    if (!o->sql_sample_s) {
        o->sql_sample_s = o->quick ? 30 : 120;
    }
    if (!(o->sql_think > 0)) {
        o->sql_think = 0.1;
    }
    if (has_suite(r, S_SQL) &&
        o->sql_w * TPCC_BYTES_PER_W > r->p->capacity_bytes) {
        fprintf(stderr, "nvmimic run: --sql-warehouses %u: the TPC-C "
                "database needs about %.0f GB (%.0f MB a warehouse, the "
                "reviews' 333 GB for 1,500) but %s holds %.0f GB; use at most "
                "%" G_GUINT64_FORMAT " warehouses\n", o->sql_w,
                o->sql_w * TPCC_BYTES_PER_W / 1e9, TPCC_BYTES_PER_W / 1e6,
                r->p->name, r->p->capacity_bytes / 1e9,
                (guint64)(r->p->capacity_bytes / TPCC_BYTES_PER_W));
        return 2;
    }
    if (has_suite(r, S_SEQ) && o->seq_bytes > r->p->capacity_bytes / 2) {
        return run_usage("--seq-mib %" G_GUINT64_FORMAT ": more than half "
                         "of %s", o->seq_bytes >> 20, r->p->name);
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
    {
        const char *curves = r->p->review_state == NVM_REVIEW_FILLED ?
            "filled: nvmimic-set-state fill-pct 100 and the static SLC cache "
            "full (as the model's review state), before each workload" :
            "erased: nvmimic-set-state secure-erase, then the span written "
            "once sequentially by fio in the guest (1 MiB, 8 outstanding), "
            "before each workload";
        const char *apps = "secure-erased (nvmimic-set-state secure-erase) "
            "before each application suite, as a new drive";
        bool has_curves = has_suite(r, S_FC) || has_suite(r, S_VDI);
        bool has_apps = has_suite(r, S_SQL) || has_suite(r, S_RENDER) ||
                        has_suite(r, S_SEQ);

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
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (!setup(r, &err)) {
        fprintf(stderr, "nvmimic run: %s\n", err->message);
        return 2;
    }
    printf("nvmimic run: %s, %s, %s, %u workload(s) x %u points, %u "
           "application suite(s), results in %s\n", r->p->name, o->suite,
           o->mode, r->n_wls, r->n_pcts + 1,
           r->n_order - has_suite(r, S_FC) - has_suite(r, S_VDI), r->dir);
    fflush(stdout);
    save_results(r);

    for (unsigned i = 0; i < r->n_order; i++) {
        /* a suite that fails costs only itself; Ctrl-C and a lost
         * libvirt host end the run */
        if (!run_suite(r, r->order[i]) && (interrupted || r->host_lost)) {
            break;
        }
    }
    r->complete = !r->error && !interrupted;

    if (r->tty) {
        printf("\n");
    }
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
    for (unsigned i = 0; i < S_N; i++) {
        app_free(r->apps[i]);
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        g_free(r->wls[w].jobfile);
    }
    if (r->have_vdi) {
        nvm_vdi_results_clear(r->vdi);
    }
    cfg_clear(&r->cfg);
    g_free(r->gdir);
    g_free(r->render_mem);
    g_free(r->precondition_text);
    g_free(r->accel);
    nvm_profile_free(r->p);
    return interrupted ? 130 : r->error ? (r->host_lost ? 3 : 1) : 0;
}
