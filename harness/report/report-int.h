/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report's parts (the files of report/) and the model they share:
 * a run as results.json describes it (RRun), its workloads' curves and its
 * application suites.  Internal to report and compare; report.h is their
 * public face.
 */
#ifndef NVMIMIC_REPORT_INT_H
#define NVMIMIC_REPORT_INT_H

#include <stdbool.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "report.h"
#include "sim.h"

#define REPORT_ERROR rep_report_error_quark()

typedef struct RPoint {
    int target_pct;             /* 0 for a peak */
    double target_iops;
    double iops, mbps, lat_us, p50_us, p99_us, p999_us;
    double host_iops, host_lat_us, host_p99_us;
    double shortfall_pct;
    int host_limited;           /* -1 unknown */
} RPoint;

typedef struct RWork {
    char *name;
    char *file;                 /* name made safe for a file name */
    int threads;
    int block_bytes;
    bool has_peak;
    RPoint peak;
    GArray *curve;              /* RPoint */
    bool has_sim;
    bool has_sim_peak;
    RPoint sim_peak;
    GArray *sim_curve;          /* RPoint */
    double review_iops;         /* NAN: none */
    double review_lat_us;       /* NAN: none or not published */
    char *review_src;           /* "results.json" or the TSV */
    char *suite;                /* "four-corners", "vdi"; NULL: not said */
    bool has_mix;               /* a VDI mix: "mix" */
    double mix_read_pct, mix_outstanding, mix_mean_block;
    char *mix_jobfile;
} RWork;

/* The device's own figures (QMP) per command class over an interval:
 * read, write, flush, indexed as NvmOp (nvm_op_name() gives the name). */
enum { DEV_READ = NVM_OP_READ, DEV_WRITE = NVM_OP_WRITE,
       DEV_FLUSH = NVM_OP_FLUSH, N_DEV };


typedef struct RDevFig {
    bool has;
    double count, iops, mbps, lat_us, p50_us, p99_us, p999_us, max_us;
} RDevFig;

typedef struct RDev {
    bool has;
    double interval_s;
    RDevFig cls[N_DEV];
} RDev;

/* One fio step of the "seq" application suite. */
typedef struct RStep {
    char *name;
    char *rw;
    double qd, bytes, gbps, iops, lat_us, p99_us;
    RDev dev;
} RStep;

/* Latencies of one TPC-C transaction type (or all of them). */
typedef struct RTxn {
    bool has;
    double count, share, weight, avg_ms, p95_ms, p99_ms, max_ms;
} RTxn;

#define N_TXN 5
static const char *const txn_key[N_TXN] = {
    "new_order", "payment", "order_status", "delivery", "stock_level",
};

/* One application suite ("apps"): seq, render or sql. */
typedef struct RApp {
    char *suite;
    char *file;                 /* "app-seq": its section and chart */
    char *error;
    char *guest_dir;            /* relative; NULL when absent or unsafe */
    int complete;               /* -1 unknown */
    double wall_s;
    RDev dev;
    bool charted;               /* a chart was drawn */
    GArray *steps;              /* RStep (seq) */
    bool has_result;            /* render, sql */
    /* render */
    double mem_mib, points, threads, ram_bytes, array_bytes, packed_bytes;
    double load_s, unpack_s, repack_s, total_s, check_bad, check_missing;
    int check_ok;               /* -1 unknown */
    bool has_swap;
    double pswpin, pswpout;
    /* sql */
    bool has_params;
    double warehouses, users, precondition_s, sample_s, think_factor;
    double tpmc, tpm_total, failures;
    RTxn overall;
    RTxn txn[N_TXN];
} RApp;

typedef struct RRun {
    char *dir;
    char *profile;
    char *mode;                 /* "sim", "guest", or what the file says */
    char *run_mode;
    char *suite;
    char *threads_mode;
    char *date;
    char *accel;
    char *precondition;
    char *error;
    char *failed_point;
    char *label;                /* for compare */
    double seed;
    double duration_s;
    double wall_s;
    int complete;               /* -1 unknown */
    bool guest;
    bool qtest;                 /* nvmimic qtest: the device, no guest */
    GPtrArray *works;           /* RWork */
    GPtrArray *suites;          /* char *, "suites"; NULL: not in the file */
    GPtrArray *apps;            /* RApp */
} RRun;

/* load.c */
GQuark rep_report_error_quark(void);
char *rep_safe_name(const char *s);
void rep_run_free(RRun *r);
RRun *rep_run_load(const char *dir, const char *reviews_tsv,
                   GError **errp);
const RPoint *rep_sim_at(const RWork *w, int pct);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(RRun, rep_run_free)

/* csv.c */
bool rep_write_csv(const RRun *r, GError **errp);

/* charts.c */
#define GP_W 1000
#define GP_H 620

#define N_PALETTE 8
extern const char *const rep_palette[N_PALETTE];

#define C_GUEST "#1f5fa8"
#define C_MODEL "#d9822b"
#define C_DEVICE "#2e8b57"
#define C_REVIEW "#c0392b"
#define C_LIMITED "#9a9a9a"
void rep_gp_str(GString *s, const char *v);
void rep_gp_frame(GString *s, const char *title);
void rep_gp_outputs(GString *s, const char *base, const char *plot);
bool rep_gnuplot_run(const char *script, const char *what, GError **errp);
void rep_gp_review(GString *data, GString *plot, GString *labels,
                   const RWork *w, const char *color, const char *tag,
                   unsigned idx);
void rep_gp_block(GString *data, const char *name, GArray *c, bool host,
                  int want_limited);
unsigned rep_count_pts(GArray *c, bool host, int want_limited);
char *rep_work_subtitle(const RWork *w);
bool rep_chart_one(const RRun *r, const RWork *w, GError **errp);
unsigned rep_str_index(GPtrArray *a, const char *v);
bool rep_chart_app(const RRun *r, RApp *a, GError **errp);

/* page.c */
extern const char rep_css_apps[];
void rep_h_esc(GString *s, const char *v);
void rep_h_num(GString *s, double v, int decimals);
void rep_h_td(GString *s, double v, int decimals);
void rep_h_td_delta(GString *s, double v, double ref);
void rep_h_chart(GString *s, const char *dir, const char *file,
                 const char *alt);
void rep_h_head(GString *s, const char *title, const char *extra_css);
void rep_h_meta(GString *s, const char *k, const char *v);
char *rep_now_string(void);

/* page-apps.c */
const char *rep_suite_label(const char *suite);
const char *rep_work_suite(const RWork *w);
void rep_h_app(GString *s, const RRun *r, const RApp *a);
void rep_h_apps_summary(GString *s, const RRun *r);

#endif
