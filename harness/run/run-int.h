/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run's parts (the files of run/) and the state they share: the
 * options, the workloads and their points, the application suites, the
 * guest now running.  Internal to nvmimic run; run.h is its public face.
 */
#ifndef NVMIMIC_RUN_INT_H
#define NVMIMIC_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-glib/json-glib.h>

#include "guestctl.h"
#include "lv.h"
#include "qmp.h"
#include "results.h"
#include "run.h"
#include "sim.h"
#include "vdi.h"

#define MAX_PCTS 24
/*
 * How long a QMP call the run needs waits for its answer.  QEMU answers
 * nothing while a mark's queued state is applied, with its lock held: the
 * filled P5 2 TB's simulated steady state costs the model about 7.5 CPU s
 * (`nvmimic calibrate` of one of its rows at --duration-s 0.05), 11-12 s of
 * wall time beside the test suite's other lane, which a 10 s wait lost.
 * The calls at the guest's start (query-kvm, cont) keep 10 s: QEMU is
 * paused then, with nothing queued.
 */
#define RUN_QMP_WAIT_MS 120000
#define BOOT_TIMEOUT_S 300
/* the guest's results disk: sparse, it writes a tar of its results on it */
#define RESULTS_DISK_BYTES (256 << 20)
/* A point is host-limited when the guest stayed this far below its target
 * and the device did not have the workload's outstanding count queued. */
#define SHORT_FRAC 0.95
#define BUSY_FRAC 0.85
/* ... or when the guest's own part of the latency (guest minus device)
 * exceeds this many us and this fraction of the device's: its single vCPU
 * is queueing the I/Os, so the latency is not the drive's. */
#define GUEST_US 50.0
#define GUEST_FRAC 0.5
/* A point is timing-limited when the device posted its completions this
 * late (p99 of posted minus scheduled time) against its mean latency:
 * the latency the guest saw is partly the host's scheduling. */
#define LATE_FRAC 0.10

/* How late the device posted completions, posted minus scheduled time in
 * us (NAN: unknown; a mix: no p50, the larger class's p99 and max). */
typedef struct Late {
    double p50_us, p99_us, max_us;
} Late;

/* the suites, in the order of nvm_run_suites[] (run.h) */
enum { S_FC, S_VDI, S_SQL, S_RENDER, S_SEQ, S_N };
/* TPC-C database size per warehouse: the reviews' 333 GB for 1,500
 * (workloads/tpcc/tpcc.sh uses the same figure) */
#define TPCC_BYTES_PER_W 222000000ULL
/* the database guest's own need, besides shared_buffers and connections:
 * Debian's kernel and init, PostgreSQL's processes, a page cache to work */
#define SQL_GUEST_BASE_MIB 128
#define SQL_CONN_MIB 5          /* a PostgreSQL backend's memory (guest) */
#define SQL_VIRTIO_SERIAL "nvmimic-db"
#define SQL_SAS_WWN "0x3000000000000001" /* NAA 3: locally assigned */


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
    double guest_ips;           /* simtime: guest instructions per second */
    int icount_shift;           /* ... as -icount shift=N: 2^N ns each */
    const char *connect;        /* libvirt URI, or NULL: spawn QEMU */
    const char *pool;           /* --connect: storage pool for the files */
    const char *dbguest_dir;
    const char *workload_dir;
    /* sql */
    unsigned sql_w, sql_users, sql_pre_s, sql_sample_s;
    const char *sql_preset;     /* NULL, "quick", "mid" or "review" */
    double sql_think;
    const char *sql_topology;   /* nvme, sas or virtio */
    const char *sqldb_dir;      /* the loaded databases (make sqldb) */
    unsigned sql_mem_mib;       /* the database guest's RAM */
    unsigned sql_smp;
    unsigned sql_buffers_mib;   /* PostgreSQL's shared_buffers */
    /* seq, render */
    unsigned seq_mib;
    uint64_t seq_bytes;
    unsigned render_mem_mib;
    double render_ram_factor;
    /* the stack under test */
    const char *guest_append;   /* more kernel command line */
    const char *guest_pre;      /* a shell command before each suite */
    const char *fio_opts;       /* more fio options for every point */
    const char *backing;        /* --backing null|file, NULL: null */
    const char *device_trace;   /* --device-trace: the drive's trace file */
    const char *fault;          /* --fault: faults the drive shows */
    bool backing_file;          /* --backing file: every suite's drive on a
                                 * sparse file, not null-co */
    /* the regression gate */
    const char *baseline;       /* a run to compare with, or NULL */
    double tolerance_pct;
} RunOpts;

/* The device's QMP monitor: QEMU's socket, or libvirt's passthrough. */
typedef struct Mon {
    JsonNode *(*exec)(void *h, const char *cmd, const char *args,
                      int timeout_ms, GError **errp);
    void *h;
} Mon;

typedef struct Point {
    bool done;
    int target_pct;             /* 0: the peak */
    double target_iops;
    NvmFig guest;
    bool have_host;
    NvmFig host;
    uint64_t host_late;
    double host_interval_s;
    bool host_limited;
    const char *limit;          /* why host-limited: "rate", "guest-latency" */
    Late late;                  /* the device's, over the host window */
    bool timing_limited;        /* late.p99_us > LATE_FRAC host.lat_us */
    double shortfall_pct;
    double sim_lat_us;          /* NAN: outside the model's curve */
    /* --device-trace: the model fed the drive's own trace over the same
     * window (replay.c); NAN without one */
    double trace_lat_us;
    double wall_s;
} Point;

typedef struct Wl {
    int suite;                  /* S_FC or S_VDI */
    NvmWorkload wl;
    const NvmMix *mix;          /* S_VDI: the job file's mix */
    char *jobfile;              /* S_VDI: its name in the job directory */
    unsigned jobs, iodepth;
    bool fio;                   /* S_VDI points through fio (--fio-opts) */
    Point peak;
    Point curve[MAX_PCTS];
    unsigned n_curve;
    const NvmCornerResult *sim;
    /* the model replaying the guest's schedule (its peak as the base of
     * the rates, its points, its idle before the peak): the workloads the
     * guest's load generator runs (the four corners, VDI without fio) */
    NvmCornerResult *matched;
    double idle_s;
    /* the peak's warm-up (curves.c's wl_peak_ramp_s()); 0: not yet known */
    double peak_ramp_s;
    unsigned mark0;             /* the peak's opening mark (0: none) */
    double review_iops, review_lat_us;   /* NAN where unknown */
} Wl;

/*
 * A workload that only reads (a four-corners read): on a drive reviewed
 * filled it starts from the span as the fill laid it out, not its random-
 * write steady state (nvm_sim_review_state_hook()).
 */
static inline bool wl_reads_only(const Wl *wl)
{
    return !wl->mix && wl->wl.op == NVM_OP_READ;
}

/* One measured step of an application suite. */
typedef struct AppStep {
    char *name;
    const char *rw;             /* seq: read or write */
    unsigned qd;
    uint64_t bytes;
    NvmFig guest;
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
    const char *mem;            /* QEMU's -m */
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
    char *trace_path;           /* --device-trace, absolute */
    JsonNode *faults;           /* --fault: an array of nvmimic-fault args */
    JsonArray *fault_runs;      /* query-nvmimic-faults after each suite */
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
    char *sql_mem;
    char *sql_image;            /* the loaded database, NULL: load in guest */
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
    char *kvm_why;              /* realtime on TCG: why not KVM, or NULL */
    NvmLvGuest *lv;             /* --connect */
    char *results_img;          /* its results disk, unpacked at the end */
    char *lv_console;           /* a libvirt guest's console, copied */
    bool host_lost;             /* the libvirt host dropped: exit status 3 */
    Mon mon;
    NvmLineSock *ctl;
    bool tty;
} Run;

/*
 * One command for the guest agent (vm-images/agent.sh), agent.c.  Its
 * device window is the drive's statistics between two in-band marks the
 * guest sends (mark, mark + 1; query-nvmimic-marks).
 */
typedef enum {
    WIN_NONE,                   /* no device window */
    WIN_TIMED,                  /* marks_us after the command's first I/O */
    WIN_WHOLE,                  /* around the whole command */
    WIN_CMD,                    /* the command marks itself ($NVMIMIC_MARK_CMD) */
} GuestWindow;

typedef struct GuestCmd {
    const char *verb;           /* RUN: fio's arguments; SH: a shell command */
    const char *id;
    const char *label;          /* the workload, for progress lines */
    const char *args;
    GuestWindow window;
    uint64_t marks_us[2];       /* WIN_TIMED: start, then stop (0: at the end) */
    unsigned mark;              /* the window's first mark (plan.c sets it) */
    double total_s;             /* virtual seconds it should take */
    double timeout_s;           /* wall seconds it may take */
    Point *pt;                  /* progress lines for this point, or NULL */
    bool write, mixed;          /* the point's device class */
    /* WIN_CMD: the command's windows; it sends 2 x n_windows marks, from
     * its first (NVMIMIC_MARK_N): K's opening mark + 2K, closing + 2K + 1 */
    unsigned n_windows;
    /* no in-band marks (the block filter): the host resets the device's
     * statistics at the command's "MARK ID start" progress line and reads
     * them at "MARK ID stop" */
    bool qmp_window;
} GuestCmd;

/*
 * A suite's plan (plan.c): everything its guest runs, written into the job
 * before the guest boots, so no host input reaches the guest while it
 * measures.  Steps are commands (their results come back in order) and
 * marks, where the drive takes a state the host queued before the guest
 * started (nvmimic-set-state at-mark): the review's preconditioning.
 */
typedef struct PlanStep PlanStep;
/* A command's result: @stats its device window (or NULL), @json its JSON. */
typedef bool (*PlanDoneFn)(Run *r, PlanStep *st, JsonNode *stats,
                           const char *json, GError **errp);

struct PlanStep {
    bool is_mark;
    GuestCmd c;                 /* a command; for a mark: id and mark */
    char *what;                 /* the run's failed_point if it fails */
    char *progress;             /* said on a terminal while it runs, or NULL */
    char *state;                /* a mark: nvmimic-set-state's arguments */
    PlanDoneFn done;
    void *opaque, *opaque2;     /* for @done: the workload and point, ... */
    char *strs[4];              /* the strings @c points into */
};

typedef struct Plan {
    GPtrArray *steps;           /* PlanStep */
    unsigned next_mark;
    App *app;                   /* an application suite's, or NULL */
} Plan;

/*
 * The files of run/, top-down: a file calls only files listed after it
 * (tests/harness/check_run_layers.py checks it), and what it calls gets the
 * run's context (Run) passed down.  The steps of a plan call back into the
 * file that made them through PlanStep.done, as the plan hands their
 * results over.
 */

/* run.c: the command: options, then each suite in its own guest, the
 * results, the gate */
int run_main(int argc, char **argv);

/* opts.c: the options' table with their defaults and presets; the checks
 * of what the parser read, what follows from it, the profile, the suites
 * chosen.  0, or the exit status (a message is printed). */
extern const NvmOpt run_opt_table[];
extern const NvmOptPreset run_presets[];
int run_resolve_opts(Run *r, const NvmCommand *cmd, GPtrArray *given);

/* curves.c: the four-corners and VDI suites' plans and their points */
bool run_setup(Run *r, GError **errp);
void run_plan_curves(Run *r, int suite, Plan *p);

/* apps.c: the application suites' plans (seq, render, sql) */
App *run_app_new(Run *r, int suite);
void run_app_free(App *a);
void run_plan_app(Run *r, App *a, Plan *p);

/* replay.c: --device-trace, after @suite's QEMU exited: trace_lat_us of
 * its curve workloads' points, from query-nvmimic-marks' return @marks. */
bool run_trace_points(Run *r, int suite, JsonNode *marks, GError **errp);

/* plan.c: a suite's plan, its text for the guest, and following it */
Plan *run_plan_new(App *app);
void run_plan_free(Plan *p);
/* Add a command (@c's strings are copied) or a mark with a state to
 * queue (@state: nvmimic-set-state's arguments, or NULL); ids are one
 * word, @what is the step's name for a failure. */
PlanStep *run_plan_cmd(Plan *p, const GuestCmd *c, const char *what,
                       PlanDoneFn done, void *opaque, void *opaque2);
PlanStep *run_plan_mark(Plan *p, const char *id, const char *what,
                        const char *state, bool reset);
char *run_plan_text(const Plan *p, bool quit);
bool run_plan_queue_states(Run *r, const Plan *p, GError **errp);
bool run_plan_exec(Run *r, Plan *p, char **cur, GError **errp);

/* faults.c: --fault: the faults parsed, queued on the drive before the
 * guest runs, and the drive's record of them read after the suite */
JsonNode *run_faults_parse(const char *text, GError **errp);
bool run_faults_queue(Run *r, GError **errp);
void run_faults_collect(Run *r, const char *suite);

/* record.c: results.json, results.csv, apps.csv in r->dir; report.html
 * from them (as nvmimic report, with --baseline's curves) */
void run_save_results(const Run *r);
void run_save_report(const Run *r);

/* guest.c: a suite's guest, its job and its launch */
bool run_cfg_for(Run *r, int suite, GError **errp);
void run_cfg_clear(GuestCfg *c);
bool run_start_guest(Run *r, const char *plan_text, GError **errp);
bool run_resume_guest(Run *r, GError **errp);

/* agent.c: the guest agent's protocol, the device's QMP around it */
bool run_qmp_state(Run *r, const char *args_fmt, GError **errp, ...)
    G_GNUC_PRINTF(2, 4);
JsonNode *run_qmp_stats(Run *r, int timeout_ms, GError **errp);
/*
 * The drive's in-band marks (every one, or those numbered @mark when it is
 * not negative), gathered from query-nvmimic-marks' pages into one answer
 * of its shape: {"marks": [...], "dropped": N, "pending": [...]}.
 */
JsonNode *run_qmp_marks(Run *r, int64_t mark, GError **errp);
bool run_trace_start(Run *r, GError **errp);
/* the device's window that in-band mark @mark closed (@what: for errors) */
JsonNode *run_mark_stats(Run *r, const char *what, uint32_t mark,
                         GError **errp);
bool run_mark_applied(Run *r, const char *what, uint32_t mark,
                      GError **errp);
bool run_wait_hello(Run *r, GError **errp);
bool run_guest_cmd(Run *r, const GuestCmd *c, JsonNode **stats, char **json,
                   char **tail, GError **errp);

/* vm.c: the running guest: alive, powered off, killed */
bool run_guest_alive(Run *r, char **why);
bool run_stop_guest(Run *r);
void run_kill_guest(Run *r);

/* progress.c: a point's progress line, the curves' table */
void run_progress(Run *r, const char *wl, const Point *pt, double el,
                  double total, double iops, bool final);
void run_print_table(const Run *r);

/* figures.c: fio's, the device's and the guest's figures */
bool run_parse_fio(const char *text, const char *dd_name, NvmFig *f,
                   GError **errp);
bool run_parse_fio_job(const char *text, unsigned k, const char *dd_name,
                       NvmFig *f, GError **errp);
JsonObject *run_stats_class(JsonNode *n, const char *name);
bool run_parse_stats(JsonNode *n, bool write, bool mixed, NvmFig *f,
                     uint64_t *late, double *interval_s);
/* The device's lateness in the same statistics (the same classes). */
void run_parse_late(JsonNode *n, bool write, bool mixed, Late *lt);
void run_judge_point(const Wl *wl, Point *pt);
JsonNode *run_parse_json(const char *text, const char *what, GError **errp);
double run_dev_lat(JsonNode *n, const char *cls, const char *field);
void run_device_from_qmp(JsonNode *n, NvmResDev *d);
double run_sql_guest_lat(JsonNode *result, const char *cls);

/* context.c: the run's suites, its directories, its first failure */
/* Ctrl-C or SIGTERM arrived: the run stops at the next check. */
extern volatile sig_atomic_t run_interrupted;
void run_catch_signals(void);
bool run_has_suite(const Run *r, int suite);
/* DIR/guest, or DIR/guest-SUITE when the run has several suites */
char *run_guest_dir_name(const Run *r, int suite);
void run_fail_point(Run *r, const char *what, const char *msg);

#endif
