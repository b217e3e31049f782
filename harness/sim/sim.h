/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simulated-time suites (four corners, SLC cliff) and the reviews' reference
 * table; shared by the nvmimic CLI and the calibration tests.
 */
#ifndef NVMIMIC_SIM_H
#define NVMIMIC_SIM_H

#include "curve.h"

#define NVM_CURVE_POINTS 12     /* 10 % .. 120 % */

typedef struct NvmSimOptions {
    uint64_t seed;
    bool implied_threads;
    double duration_s;          /* measured simulated seconds per point */
    bool peaks_only;
} NvmSimOptions;

typedef struct NvmCornerResult {
    NvmWorkload wl;
    NvmRunResult peak;
    int target_pct[NVM_CURVE_POINTS];
    double target_iops[NVM_CURVE_POINTS];
    NvmRunResult curve[NVM_CURVE_POINTS];
    unsigned n_curve;
} NvmCornerResult;

/* Put a fresh model into the review's starting state; returns the span. */
void nvm_sim_review_state(NvmModel *m, const NvmProfile *p,
                          uint64_t *span_bytes, uint64_t *now_ns);

void nvm_sim_four_corners(const NvmProfile *p, const NvmSimOptions *o,
                          NvmCornerResult res[NVM_FOUR_CORNERS]);

typedef struct NvmCliffPoint {
    double gb_written;          /* 10^9 bytes, cumulative */
    double mbps;                /* rate over the last step */
    double slc_used_gb;
    double slc_size_gb;
    bool after_idle;
} NvmCliffPoint;

/* Sequential 128 KiB writes over the whole drive, @idle_s of idle, then
 * @after_gb more; one point per @step_gb. */
GArray *nvm_sim_slc_cliff(const NvmProfile *p, uint64_t seed, double step_gb,
                          double idle_s, double after_gb);

typedef struct NvmReviewRow {
    char *drive;
    char *workload;
    unsigned stated_threads;
    double peak_iops;
    bool approx;                /* '~' in the review table */
    double lat_us;              /* NAN where lost */
    bool consistent;
} NvmReviewRow;

/* Parse four-corners.tsv; a GArray of NvmReviewRow (free with the func). */
GArray *nvm_reviews_load(const char *path, GError **errp);
void nvm_reviews_free(GArray *rows);

#endif
