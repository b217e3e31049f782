/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's results (nvmimic run, sim, qtest): the model every command
 * shares, and the one reader and writer of results.json, results.csv and
 * apps.csv.  docs/results.md (and docs/results.schema.json) is the one
 * description of the format: what each member means, its unit and who
 * fills it.  The comments here say only how a member is held (NAN, NULL,
 * 0 or -1 for one the file leaves null or out).
 */
#ifndef NVMIMIC_RESULTS_H
#define NVMIMIC_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "fig.h"
#include "nvmimic-model.h"

/* results.json's "schema_version"; raised when a field changes meaning or
 * goes away (adding one does not). */
#define NVM_RESULTS_SCHEMA_VERSION 1

/*
 * A POINT: a peak (target_pct 0) or a curve point.  Numbers are NAN when
 * null or absent.  fig holds iops..p999_us, host the host_* members
 * (results.json has no host_mbps), rd and wr "read" and "write".
 */
typedef struct NvmResPoint {
    int target_pct;             /* 0 for a peak */
    double target_iops;
    NvmFig fig;
    /* mode "guest" */
    NvmFig host;
    double host_interval_s;
    double host_late;           /* completions posted late; NAN unknown */
    /* posted minus scheduled time of the device's completions, us */
    double host_late_p50_us, host_late_p99_us, host_late_max_us;
    int timing_limited;         /* -1 unknown */
    int host_limited;           /* -1 unknown */
    const char *host_limited_by;    /* interned: "rate", ...; NULL */
    double shortfall_pct;
    double sim_lat_us;
    double trace_lat_us;        /* the model fed the drive's own trace */
    double wall_s;
    /* a mixed workload on the model: reads and writes apart */
    bool has_rw;
    NvmFig rd, wr;
    /* an engine's own members after these (mode qtest), a JSON object
     * owned by the point; NULL: none */
    JsonNode *extra;
} NvmResPoint;

/* An empty point (every number NAN). */
void nvm_res_point_init(NvmResPoint *p);

typedef struct NvmResWork {
    char *name;
    char *file;                 /* name made safe for a file name */
    char *suite;                /* "four-corners", "vdi"; NULL: not said */
    int threads;                /* outstanding I/Os; 0 unknown */
    int jobs, iodepth;          /* fio's split of them; 0 unknown */
    int block_bytes;            /* 0: mixed sizes (or unknown) */
    char *job_file;             /* the model's VDI job file (mode sim) */
    JsonNode *mix;              /* a VDI mix as written; NULL: none */
    bool has_mix;               /* ... and what the report shows of it */
    double mix_read_pct, mix_outstanding, mix_mean_block;
    char *mix_jobfile;
    bool has_peak;
    NvmResPoint peak;
    GArray *curve;              /* NvmResPoint */
    /* mode "guest": the model's curve for the same workload ("sim"); mode
     * "sim": the same as peak and curve */
    bool has_sim;
    bool has_sim_peak;
    NvmResPoint sim_peak;
    GArray *sim_curve;          /* NvmResPoint */
    double review_iops;         /* NAN: none */
    double review_lat_us;       /* NAN: none or not published */
    char *review_src;           /* "results.json" or the TSV; NULL: none */
    char *loadgen;              /* NULL: absent (files from before it) */
    double peak_ramp_s;         /* the guest peak's warm-up; NAN: absent */
    /* sim_replay; has_replay false: absent */
    bool has_replay;
    double replay_idle_s;
    NvmResPoint replay_peak;
    GArray *replay_curve;       /* NvmResPoint */
    /* a command's own members after these, a JSON object; NULL: none */
    JsonNode *extra;
} NvmResWork;

NvmResWork *nvm_res_work_new(const char *name);

/* The device's own figures (query-nvmimic-stats) per command class over an
 * interval, classes indexed as NvmOp. */
typedef struct NvmResDevFig {
    bool has;
    double count;
    NvmFig fig;
    double max_us;
} NvmResDevFig;

typedef struct NvmResDev {
    bool has;
    double interval_s;
    double active_s;            /* NAN: not said */
    NvmResDevFig cls[NVM_CLASS_COUNT];
} NvmResDev;

/* An empty device summary: zeros, interval_s and active_s NAN. */
void nvm_res_dev_init(NvmResDev *d);

/* One fio step of the seq suite. */
typedef struct NvmResStep {
    char *name;
    char *rw;
    double qd, bytes, gbps;
    NvmFig fig;                 /* the guest's */
    NvmResDev dev;
} NvmResStep;

/* Latencies of one TPC-C transaction type (or all of them). */
typedef struct NvmResTxn {
    bool has;
    double count, share, weight, avg_ms, p95_ms, p99_ms, max_ms;
} NvmResTxn;

#define NVM_RES_TXNS 5
extern const char *const nvm_res_txn_key[NVM_RES_TXNS];

/* One application suite ("apps"): seq, render or sql. */
typedef struct NvmResApp {
    char *suite;
    char *file;                 /* "app-seq": its section and chart */
    int complete;               /* -1 unknown */
    char *error;
    char *log_tail;
    char *guest_dir;            /* relative; NULL when absent or unsafe */
    double wall_s;
    NvmResDev dev;
    bool charted;               /* the report drew a chart */
    GArray *steps;              /* NvmResStep (seq) */
    /* render, sql: the guest program's own JSON, as it wrote it */
    JsonNode *result;
    JsonNode *swap;             /* render: pswpin, pswpout */
    bool has_result;
    /* render */
    double mem_mib, ram_factor;
    double points, threads, ram_bytes, array_bytes, packed_bytes;
    double load_s, unpack_s, repack_s, total_s, check_bad, check_missing;
    int check_ok;               /* -1 unknown */
    bool has_swap;
    double pswpin, pswpout;
    /* sql */
    bool has_params;
    double warehouses, users, precondition_s, sample_s, think_factor;
    double tpmc, tpm_total, failures;
    NvmResTxn overall;
    NvmResTxn txn[NVM_RES_TXNS];
    char *topology;             /* the database disk: nvme, sas, virtio */
    double guest_mem_mib, shared_buffers_mib;
    char *database_image;       /* the loaded database; NULL: none */
    /* latency_gap: the guest's, the device's and their gap, in us, per
     * class of nvm_res_gap_class */
    bool has_gap;
    double gap[3][3];
} NvmResApp;

#define NVM_RES_GAP_CLASSES 3
extern const char *const nvm_res_gap_class[NVM_RES_GAP_CLASSES];

NvmResApp *nvm_res_app_new(const char *suite);

typedef struct NvmResults {
    char *dir;                  /* where it was read from; NULL */
    char *path;                 /* the file it was read from; NULL */
    double schema_version;      /* NAN: a file from before versions */
    char *profile;
    char *mode;                 /* "sim", "guest" or "qtest" */
    bool guest;                 /* a guest run: neither "sim" nor "qtest" */
    bool qtest;                 /* nvmimic qtest: the device, no guest */
    char *run_mode;             /* simtime, realtime */
    char *accel;
    bool has_connect;
    char *connect;              /* libvirt URI, NULL: QEMU spawned */
    char *suite;                /* as given */
    GPtrArray *suites;          /* char *, what ran; NULL: not in the file */
    double seed;
    char *threads_mode;
    double duration_s;
    double ramp_s, peak_ramp_s;
    int quick;                  /* -1 unknown */
    double sim_duration_s;
    double span_bytes;
    char *precondition;
    /* the stack under test (run --guest-append, --guest-pre, --fio-opts,
     * --backing); NULL: not given */
    char *guest_append, *guest_pre, *fio_opts, *backing;
    char *started;              /* ISO-8601 */
    char *date;                 /* for display: started, or the file's */
    double wall_s;
    int complete;               /* -1 unknown */
    char *error;
    char *failed_point;
    /* simtime: the simulated CPU's speed and -icount shift; NAN: null */
    double guest_ips, icount_shift;
    char *label;                /* compare's name for the run */
    GPtrArray *works;           /* NvmResWork * */
    GPtrArray *apps;            /* NvmResApp * */
    /* an engine's own top-level members, written before "workloads" (mode
     * qtest), a JSON object; NULL: none */
    JsonNode *extra;
    /* what the reader did not know, anywhere in the file, kept for the
     * writer: it puts each member back where it was (NvmResKept, read.c);
     * NULL: nothing */
    GPtrArray *kept;
} NvmResults;

/* A member the reader did not know: @name with @value in the object at
 * @path (from the top, members and array indices: "workloads/0/peak"),
 * after the member @after (NULL: the first). */
typedef struct NvmResKept {
    char *path, *after, *name;
    JsonNode *value;
} NvmResKept;

/* An empty result set of @mode ("sim" or "guest"). */
NvmResults *nvm_results_new(const char *profile, const char *mode);
void nvm_results_free(NvmResults *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NvmResults, nvm_results_free)

#define NVM_RESULTS_ERROR nvm_results_error_quark()
GQuark nvm_results_error_quark(void);

/*
 * Read @dir/results.json.  Every key but "workloads" (or "apps") may be
 * missing: a partial or hand-made file still reads.  Members it does not
 * know are kept (r->kept) for the writer, so that what it read and wrote
 * back is the file it read.  @reviews_tsv (may be
 * NULL or missing) supplies the review's peak where the file has none.
 * One sentence in *errp when the file is missing or not a results file.
 */
NvmResults *nvm_results_load(const char *dir, const char *reviews_tsv,
                             GError **errp);
/* The same from @path, a run directory or its results.json. */
NvmResults *nvm_results_load_path(const char *path, const char *reviews_tsv,
                                  GError **errp);
/* The same from JSON text (@origin names it in errors). */
NvmResults *nvm_results_parse(const char *text, const char *origin,
                              GError **errp);

/* results.json's text (the writer; mode decides which members appear,
 * then the members the reader kept go back where they were). */
char *nvm_results_to_json(const NvmResults *r);
/* The same as a JSON tree. */
JsonNode *nvm_results_to_node(const NvmResults *r);
/* results.csv's text: one row per point; the same columns whoever writes
 * it. */
char *nvm_results_to_csv(const NvmResults *r);
/* apps.csv's text: every number of the application suites. */
char *nvm_results_apps_csv(const NvmResults *r);

/* Write @dir/results.json, results.csv and (mode guest) apps.csv, each
 * aside and renamed into place. */
bool nvm_results_save(const NvmResults *r, const char *dir, GError **errp);
/* Only @dir/results.csv (nvmimic report, from the file it read). */
bool nvm_results_save_csv(const NvmResults *r, const char *dir,
                          GError **errp);

/* @s made safe for a file name ("workload" when empty). */
char *nvm_res_safe_name(const char *s);

/* The model's point at target @pct of @w, or NULL. */
const NvmResPoint *nvm_res_sim_at(const NvmResWork *w, int pct);

/* JSON text of @node as results.json lays it out: json-glib's layout
 * (indent 1, "key" : value), numbers in the fewest digits that read back
 * the same. */
char *nvm_json_to_text(JsonNode *node);

#endif
