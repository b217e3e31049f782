/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The five VDI calibration figures (profiles/reviews/vdi-calibration.tsv,
 * parsed by nvm_vdi_reviews_load as nvmimic fit does, not copied) against
 * the model's VDI peaks as `nvmimic sim --suite vdi` and bench/vdi_five.sh
 * time them: the job files of harness/workloads, closed-loop at their
 * outstanding counts, 30 simulated s from the review's state, seed 1.
 *
 * The bounds are issue 28's Done-when: peak IOPS within IOPS_BOUND (15 %)
 * of the review's, its mean latency within LAT_BOUND (20 %); a review
 * figure given as "about" ('~' in the file: "just under a millisecond") is
 * held to the same bound around its stated value.  A figure the model
 * misses today is named in misses[] with why: the test fails when an
 * unnamed figure leaves a bound (a regression), when a named one comes
 * within both (the list must shrink with it), and when a named one's IOPS
 * or latency is off by more than a factor of MISS_CAP (two) either way:
 * further than any miss measured so far, docs/vdi.md.  It prints how many
 * of the five are within both bounds.
 */
#include <math.h>
#include <string.h>

#include "vdi.h"

#define IOPS_BOUND 0.15
#define LAT_BOUND 0.20
#define MISS_CAP 2.0                    /* a factor, either way */

/* Figures outside the Done-when's bounds with the model of 2026-12-06 (the
 * P5's rated read path). */
static const struct {
    const char *drive, *workload, *why;
} misses[] = {
    { "crucial-p2-500g", "vdi-initial-login",
      "+50 % IOPS: the model drains the mix's writes at the drive's pure "
      "write rate; the review's drain is 0.60-0.70 of it (docs/vdi.md)" },
    { "crucial-p2-500g", "vdi-monday-login",
      "+76 % IOPS: reads wait behind programs (docs/vdi.md)" },
    { "crucial-p5-1tb", "vdi-initial-login",
      "+46 % IOPS: the write drain, as the P2's (docs/vdi.md)" },
    { "crucial-p5-1tb", "vdi-monday-login",
      "+52 % IOPS: reads behind programs; writes from the DRAM buffer "
      "(docs/vdi.md)" },
};

static GArray *figures;
static unsigned checked, within;

/* Why misses[] names @drive's @workload, or NULL. */
static const char *listed(const char *drive, const char *workload)
{
    for (size_t i = 0; i < G_N_ELEMENTS(misses); i++) {
        if (!strcmp(misses[i].drive, drive) &&
            !strcmp(misses[i].workload, workload)) {
            return misses[i].why;
        }
    }
    return NULL;
}

static void check_figure(gconstpointer data)
{
    const NvmReviewRow *f = data;
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(f->drive, NVMIMIC_PROFILE_DIR, &err);
    NvmSimOptions o = { .seed = 1, .duration_s = 30, .peaks_only = true };
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    NvmModel *m;
    int w = nvm_vdi_index(f->workload);
    double ie, le;
    const char *miss = listed(f->drive, f->workload);
    bool in;

    g_assert_no_error(err);
    g_assert_true(nvm_vdi_load(p, NVMIMIC_WORKLOAD_DIR, res, &err));
    g_assert_no_error(err);
    g_assert_cmpint(w, >=, 0);
    m = nvm_model_new(p, o.seed);
    nvm_sim_vdi_one(p, &o, w, m, NULL, &res[w]);
    ie = (res[w].peak.all.fig.iops - f->peak_iops) / f->peak_iops;
    le = (res[w].peak.all.fig.lat_us - f->lat_us) / f->lat_us;
    in = fabs(ie) <= IOPS_BOUND && fabs(le) <= LAT_BOUND;
    g_test_message("%s %s: %.0f IOPS vs %.0f (%+.1f %%), %.1f us vs %s%.1f "
                   "(%+.1f %%)%s", f->drive, f->workload,
                   res[w].peak.all.fig.iops, f->peak_iops, 100 * ie,
                   res[w].peak.all.fig.lat_us, f->consistent ? "" : "~",
                   f->lat_us, 100 * le, miss ? " (in misses[])" : "");
    checked++;
    within += in;
    if (miss) {
        /* a named miss must still miss, and not by more than the cap */
        g_test_message("  a known miss: %s", miss);
        g_assert_false(in);
        g_assert_cmpfloat(fabs(log1p(ie)), <=, log(MISS_CAP));
        g_assert_cmpfloat(fabs(log1p(le)), <=, log(MISS_CAP));
    } else {
        g_assert_cmpfloat(fabs(ie), <=, IOPS_BOUND);
        g_assert_cmpfloat(fabs(le), <=, LAT_BOUND);
    }
    nvm_model_free(m);
    nvm_vdi_results_clear(res);
    nvm_profile_free(p);
}

int main(int argc, char **argv)
{
    g_autoptr(GError) err = NULL;
    int rc;

    g_test_init(&argc, &argv, NULL);
    figures = nvm_vdi_reviews_load(NVMIMIC_VDI_TSV, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(figures->len, >, 0);
    for (size_t i = 0; i < G_N_ELEMENTS(misses); i++) {
        bool known = false;

        for (unsigned j = 0; j < figures->len; j++) {
            const NvmReviewRow *f = &g_array_index(figures, NvmReviewRow, j);

            known |= !strcmp(f->drive, misses[i].drive) &&
                     !strcmp(f->workload, misses[i].workload);
        }
        if (!known) {
            g_printerr("test-vdi-calibration: misses[] names %s %s, which "
                       "the calibration figures do not have\n",
                       misses[i].drive, misses[i].workload);
            return 1;
        }
    }
    for (unsigned j = 0; j < figures->len; j++) {
        const NvmReviewRow *f = &g_array_index(figures, NvmReviewRow, j);
        g_autofree char *path = g_strdup_printf("/vdi-calibration/%s/%s",
                                                f->drive, f->workload);

        g_test_add_data_func(path, f, check_figure);
    }
    rc = g_test_run();
    if (checked == figures->len) {
        g_printerr("test-vdi-calibration: %u of %u VDI figures within %.0f %% "
                   "(IOPS) and %.0f %% (latency) of the reviews'%s\n",
                   within, checked, 100 * IOPS_BOUND, 100 * LAT_BOUND,
                   within == checked ? "" : ": issue 28's Done-when not met");
    }
    nvm_reviews_free(figures);
    return rc;
}
