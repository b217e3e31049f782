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
 *
 * What each replayed trace does per I/O (its sizes, its footprint) is not
 * public, and the job files assume it; an error there scales both drives'
 * peaks of that trace alike.  The ratio of the two drives' peaks of one
 * trace does not depend on it, so /vdi-calibration/cross-drive-ratios
 * holds each such ratio, the model's over the review's, within
 * RATIO_BOUND (the IOPS bound).  bench/vdi_ratios.py prints them with the
 * ratios of one drive's traces.
 */
#include <math.h>
#include <string.h>

#include "vdi.h"

#define IOPS_BOUND 0.15
#define LAT_BOUND 0.20
#define MISS_CAP 2.0                    /* a factor, either way */
#define RATIO_BOUND 0.15

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

/* The model's peak of each figure: IOPS and mean latency, NAN until run. */
static double *peak_iops, *peak_lat;

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

/* Figure @j's peak as `nvmimic sim --suite vdi` times it, run once. */
static void model_peak(unsigned j)
{
    const NvmReviewRow *f = &g_array_index(figures, NvmReviewRow, j);
    g_autoptr(GError) err = NULL;
    NvmProfile *p;
    NvmSimOptions o = { .seed = 1, .duration_s = 30, .peaks_only = true };
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    NvmModel *m;
    int w = nvm_vdi_index(f->workload);

    if (!isnan(peak_iops[j])) {
        return;
    }
    p = nvm_profile_load(f->drive, NVMIMIC_PROFILE_DIR, &err);
    g_assert_no_error(err);
    g_assert_true(nvm_vdi_load(p, NVMIMIC_WORKLOAD_DIR, res, &err));
    g_assert_no_error(err);
    g_assert_cmpint(w, >=, 0);
    m = nvm_model_new(p, o.seed);
    nvm_sim_vdi_one(p, &o, w, m, NULL, &res[w]);
    peak_iops[j] = res[w].peak.all.fig.iops;
    peak_lat[j] = res[w].peak.all.fig.lat_us;
    nvm_model_free(m);
    nvm_vdi_results_clear(res);
    nvm_profile_free(p);
}

static void check_figure(gconstpointer data)
{
    unsigned j = GPOINTER_TO_UINT(data);
    const NvmReviewRow *f = &g_array_index(figures, NvmReviewRow, j);
    double ie, le;
    const char *miss = listed(f->drive, f->workload);
    bool in;

    model_peak(j);
    ie = (peak_iops[j] - f->peak_iops) / f->peak_iops;
    le = (peak_lat[j] - f->lat_us) / f->lat_us;
    in = fabs(ie) <= IOPS_BOUND && fabs(le) <= LAT_BOUND;
    g_test_message("%s %s: %.0f IOPS vs %.0f (%+.1f %%), %.1f us vs %s%.1f "
                   "(%+.1f %%)%s", f->drive, f->workload, peak_iops[j],
                   f->peak_iops, 100 * ie, peak_lat[j],
                   f->consistent ? "" : "~", f->lat_us, 100 * le,
                   miss ? " (in misses[])" : "");
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
}

/*
 * For each workload two drives have figures of, the second drive's peak
 * over the first's (in the file's order), the model's against the
 * review's.
 */
static void cross_drive_ratios(void)
{
    unsigned pairs = 0;

    for (unsigned a = 0; a < figures->len; a++) {
        const NvmReviewRow *fa = &g_array_index(figures, NvmReviewRow, a);

        for (unsigned b = a + 1; b < figures->len; b++) {
            const NvmReviewRow *fb = &g_array_index(figures, NvmReviewRow, b);
            double rr, mr, e;

            if (strcmp(fa->workload, fb->workload) ||
                !strcmp(fa->drive, fb->drive)) {
                continue;
            }
            model_peak(a);
            model_peak(b);
            rr = fb->peak_iops / fa->peak_iops;
            mr = peak_iops[b] / peak_iops[a];
            e = mr / rr - 1;
            g_test_message("%s: %s / %s %.3f vs %.3f (%+.1f %%)",
                           fa->workload, fb->drive, fa->drive, mr, rr,
                           100 * e);
            pairs++;
            g_assert_cmpfloat(fabs(e), <=, RATIO_BOUND);
        }
    }
    /* the calibration figures have two drives' logins */
    g_assert_cmpuint(pairs, >=, 2);
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
    peak_iops = g_new(double, figures->len);
    peak_lat = g_new(double, figures->len);
    for (unsigned j = 0; j < figures->len; j++) {
        const NvmReviewRow *f = &g_array_index(figures, NvmReviewRow, j);
        g_autofree char *path = g_strdup_printf("/vdi-calibration/%s/%s",
                                                f->drive, f->workload);

        peak_iops[j] = peak_lat[j] = NAN;
        g_test_add_data_func(path, GUINT_TO_POINTER(j), check_figure);
    }
    g_test_add_func("/vdi-calibration/cross-drive-ratios",
                    cross_drive_ratios);
    rc = g_test_run();
    if (checked == figures->len) {
        g_printerr("test-vdi-calibration: %u of %u VDI figures within %.0f %% "
                   "(IOPS) and %.0f %% (latency) of the reviews'%s\n",
                   within, checked, 100 * IOPS_BOUND, 100 * LAT_BOUND,
                   within == checked ? "" : ": issue 28's Done-when not met");
    }
    g_free(peak_iops);
    g_free(peak_lat);
    nvm_reviews_free(figures);
    return rc;
}
