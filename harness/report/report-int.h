/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report's parts (the files of report/) and the helpers they
 * share.  The run they draw is results.h's NvmResults, read by the one
 * reader.  Internal to report and compare; report.h is their public face.
 */
#ifndef NVMIMIC_REPORT_INT_H
#define NVMIMIC_REPORT_INT_H

#include <stdbool.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "report.h"
#include "results.h"
#include "sim.h"

/* The device classes a report shows: read, write, flush (NvmOp order). */
enum { DEV_READ = NVM_OP_READ, DEV_WRITE = NVM_OP_WRITE,
       DEV_FLUSH = NVM_OP_FLUSH, N_DEV };

/* report --baseline: a run drawn beside this one, and what moved since */
typedef struct RepBaseline {
    NvmResults *run;
    char *diff;                 /* nvmimic diff BASE DIR's table */
    int moved;                  /* figures that moved since it */
} RepBaseline;

/* diff.c: nvm_diff_runs() on two runs the reader has read; how many
 * figures moved beyond @tolerance_pct */
unsigned rep_diff_results(const NvmResults *base, const NvmResults *new,
                          double tolerance_pct, bool all, GString *out);

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
#define C_BASE_GUEST "#7f8c9b"
#define C_BASE_DEVICE "#a9c4b3"
void rep_gp_str(GString *s, const char *v);
void rep_gp_frame(GString *s, const char *title);
void rep_gp_outputs(GString *s, const char *base, const char *plot);
bool rep_gnuplot_run(const char *script, const char *what, GError **errp);
void rep_gp_review(GString *data, GString *plot, GString *labels,
                   const NvmResWork *w, const char *color, const char *tag,
                   unsigned idx);
void rep_gp_block(GString *data, const char *name, GArray *c, bool host,
                  int want_limited);
unsigned rep_count_pts(GArray *c, bool host, int want_limited);
char *rep_work_subtitle(const NvmResWork *w);
bool rep_chart_one(const NvmResults *r, const NvmResWork *w,
                   const RepBaseline *base, GError **errp);
unsigned rep_str_index(GPtrArray *a, const char *v);
bool rep_chart_app(const NvmResults *r, NvmResApp *a, GError **errp);

/* page.c */
extern const char rep_css_apps[];
char *rep_guest_label(const NvmResWork *w);
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
const char *rep_work_suite(const NvmResWork *w);
void rep_h_app(GString *s, const NvmResults *r, const NvmResApp *a);
void rep_h_apps_summary(GString *s, const NvmResults *r);

#endif
