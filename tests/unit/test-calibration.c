/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calibration: every profile's simulated four-corners peaks, over 30
 * simulated s each (the point length `nvmimic fit` fits at), against the
 * reviews' four-corners.tsv (parsed, not copied).  The profiles are
 * physical parts with a few free parameters per drive family, fitted
 * jointly by `nvmimic fit`.
 *
 * The bounds are issue 28's Done-when for the four corners: a peak's IOPS
 * within IOPS_NEAR (10 %) of the review's, every one within IOPS_ALL
 * (20 %), and the latency of a self-consistent row (Little's law agrees
 * with its own latency; the others' latencies were lost in translation or
 * measured at another outstanding count) within LAT_BOUND (15 %).  A row
 * the model does not bring within one of them today is named in misses[]
 * with the bound it misses and why: the test fails when an unnamed row
 * leaves a bound (a regression), when a named row comes within its bound
 * (the list must shrink with it), and when a named row drifts past
 * MISS_CAP, the structural bound every row was held to before.  So the
 * list is exactly what keeps the Done-when from being met, and the
 * Done-when's count (at least 18 of 20 within 10 %) is printed, not
 * asserted.  Every figure is also held exactly by
 * check_calibration_table.py: profiles/README.md's table is what `nvmimic
 * calibrate` writes from today's code.
 */
#include <math.h>
#include <string.h>

#include "sim.h"

#define IOPS_NEAR 0.10
#define IOPS_ALL 0.20
#define LAT_BOUND 0.15
#define MISS_CAP 0.25
#define NEAR_NEEDED 18                  /* of the 20 rows, the Done-when */

/* Rows outside a Done-when bound today (the P5 refitted with the rated
 * read path and dynamic allocation, 2026-12-06): drive, workload, the bound
 * it misses, why. */
static const struct {
    const char *drive, *workload;
    double bound;
    const char *why;
} misses[] = {
    { "crucial-p2-2tb", "4k-random-write", IOPS_ALL,
      "+20.9 %: bound by the core waiting for HMB-missed map chunks, set by "
      "unverified switches (profiles/README.md, honest count)" },
    { "crucial-p5-1tb", "64k-seq-write", IOPS_NEAR,
      "-12.7 % (8,508 against 9,740): the B27A program time and the power "
      "budget, fitted jointly on the four P5 writes, trade it against the "
      "1 TB's 4K write (+5.9 %)" },
};

static unsigned near_rows, all_rows;    /* rows within IOPS_NEAR, checked */

static GArray *rows;
static unsigned quick_checked;  /* drives whose quick peaks were checked */
static unsigned quick_bursts;   /* of those, whose unsettled write is off */
static unsigned quick_swings;   /* write points shorter than their swing */

/*
 * --quick's points (0.5 s in a guest, 3 s in nvmimic sim) stand for the
 * 30 s ones: each write peak within QUICK_BOUND of the 30 s peak @long,
 * its warm-up lengthened past the drive's first seconds from the review's
 * state (nvm_sim_peak_warmup_ns), or within the swing of the 30 s run's
 * own windows of the point's length where that is wider (a drive whose
 * rate alternates over seconds has no short window near its mean:
 * nvm_sim_peak_swing, docs/sim.md "Point length").  The control, the
 * same point after a fifth of it of warm-up as before, is counted where it
 * is off by more than QUICK_CONTROL: at least one drive must be (main()),
 * or this would not show that the warm-up matters.  Reads keep their
 * warm-up.
 */
#define QUICK_BOUND 0.05
#define QUICK_CONTROL 0.20

static void check_quick(const NvmProfile *p,
                        const NvmCornerResult lng[NVM_FOUR_CORNERS])
{
    static const double lengths[] = { 0.5, 3 };
    /* each write's long run, counted in steps, once for both lengths */
    uint64_t *bins[NVM_FOUR_CORNERS] = { NULL }, n_bins[NVM_FOUR_CORNERS];
    bool burst = false;

    for (unsigned l = 0; l < G_N_ELEMENTS(lengths); l++) {
        uint64_t base = (uint64_t)(lengths[l] * 1e9 / 5);
        NvmSimOptions o = { .seed = 1, .duration_s = lengths[l],
                            .peaks_only = true };
        NvmSimOptions c = o;
        NvmCornerResult res[NVM_FOUR_CORNERS], ctl[NVM_FOUR_CORNERS];

        c.peak_warmup_ns = base;
        nvm_sim_four_corners(p, &o, res);
        nvm_sim_four_corners(p, &c, ctl);
        for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
            double want = lng[w].peak.fig.iops;
            double e = (res[w].peak.fig.iops - want) / want;
            double ce = (ctl[w].peak.fig.iops - want) / want;
            double swing;

            g_test_message("%s %s at %.1f s: %.0f (%+.1f %%), a fifth of "
                           "warm-up %.0f (%+.1f %%), 30 s %.0f", p->name,
                           res[w].wl.name, lengths[l], res[w].peak.fig.iops,
                           100 * e, ctl[w].peak.fig.iops, 100 * ce, want);
            if (res[w].wl.op != NVM_OP_WRITE) {
                g_assert_cmpuint(nvm_sim_peak_warmup_ns(
                                     p, &res[w].wl, 1, 0, 7919 + w,
                                     (uint64_t)(lengths[l] * 1e9), base),
                                 ==, base);
                continue;
            }
            /*
             * The quick point is a window of the long run; a drive whose
             * rate swings over longer periods than the point has no window
             * near its mean (docs/sim.md, "Point length"), so the bound is
             * the swing of the long run's own windows where that is wider
             */
            if (!bins[w]) {
                bins[w] = nvm_sim_peak_bins(p, &res[w].wl, 1, 0, 7919 + w,
                                            NVM_SIM_STEP_NS, &n_bins[w]);
            }
            swing = nvm_sim_peak_swing(bins[w], n_bins[w],
                                       NVM_SIM_LONG_WARM_STEPS,
                                       (uint64_t)(lengths[l] * 1e9) /
                                       NVM_SIM_STEP_NS);
            g_test_message("  its 30 s run's windows of %.1f s stray up to "
                           "%.1f %%", lengths[l], 100 * swing);
            g_assert_cmpfloat(fabs(e), <=, MAX(QUICK_BOUND, swing) + 1e-9);
            quick_swings += swing > QUICK_BOUND;
            burst |= fabs(ce) > QUICK_CONTROL;
        }
    }
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        g_free(bins[w]);
    }
    quick_checked++;
    quick_bursts += burst;
}

/* The bound misses[] names for @drive's @workload (and why), or 0. */
static double listed_miss(const char *drive, const char *workload,
                          const char **why)
{
    for (size_t i = 0; i < G_N_ELEMENTS(misses); i++) {
        if (!strcmp(misses[i].drive, drive) &&
            !strcmp(misses[i].workload, workload)) {
            *why = misses[i].why;
            return misses[i].bound;
        }
    }
    return 0;
}

/* One row against the Done-when's bounds and misses[]; 1 if it fails. */
static unsigned check_row(const char *drive, const char *workload,
                          double ierr, double lerr)
{
    const char *why = NULL;
    double miss = listed_miss(drive, workload, &why);
    double e = fabs(ierr);
    unsigned bad = 0;

    all_rows++;
    near_rows += e <= IOPS_NEAR;
    if (fabs(lerr) > LAT_BOUND) {
        g_test_message("  latency outside %.0f %%", 100 * LAT_BOUND);
        bad++;
    }
    if (!miss) {
        if (e > IOPS_NEAR) {
            g_test_message("  IOPS outside %.0f %% and not in misses[]",
                           100 * IOPS_NEAR);
            bad++;
        }
        return bad;
    }
    g_test_message("  listed as missing %.0f %%: %s", 100 * miss, why);
    if (e <= miss) {
        g_test_message("  IOPS now within the %.0f %% misses[] names: take "
                       "the row off the list", 100 * miss);
        bad++;
    } else if (miss == IOPS_NEAR && e > IOPS_ALL) {
        g_test_message("  IOPS outside %.0f %% too: name that bound in "
                       "misses[]", 100 * IOPS_ALL);
        bad++;
    } else if (e > MISS_CAP) {
        g_test_message("  a listed miss past %.0f %%", 100 * MISS_CAP);
        bad++;
    }
    return bad;
}

static void check_drive(gconstpointer data)
{
    const char *drive = data;
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(drive, NVMIMIC_PROFILE_DIR, &err);
    NvmSimOptions o = { .seed = 1, .duration_s = 30, .peaks_only = true };
    NvmCornerResult res[NVM_FOUR_CORNERS];
    unsigned checked = 0, bad = 0;

    g_assert_no_error(err);
    nvm_sim_four_corners(p, &o, res);
    for (unsigned i = 0; i < rows->len; i++) {
        NvmReviewRow *r = &g_array_index(rows, NvmReviewRow, i);

        if (strcmp(r->drive, drive)) {
            continue;
        }
        for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
            double ierr, lerr;

            if (strcmp(res[w].wl.name, r->workload)) {
                continue;
            }
            checked++;
            ierr = (res[w].peak.fig.iops - r->peak_iops) / r->peak_iops;
            lerr = isnan(r->lat_us) ? 0
                 : (res[w].peak.fig.lat_us - r->lat_us) / r->lat_us;
            g_test_message("%s %s: IOPS %.0f vs %.0f (%+.1f %%), "
                           "lat %.1f vs %.1f us (%+.1f %%)%s", drive,
                           r->workload, res[w].peak.fig.iops, r->peak_iops,
                           100 * ierr, res[w].peak.fig.lat_us, r->lat_us,
                           100 * lerr, r->consistent ? "" : " (lat n/a)");
            bad += check_row(drive, r->workload, ierr,
                             r->consistent ? lerr : 0);
        }
    }
    g_assert_cmpuint(checked, ==, NVM_FOUR_CORNERS);
    g_assert_cmpuint(bad, ==, 0);
    check_quick(p, res);
    nvm_profile_free(p);
}

int main(int argc, char **argv)
{
    g_autoptr(GError) err = NULL;
    GPtrArray *drives = g_ptr_array_new();
    int rc;

    g_test_init(&argc, &argv, NULL);
    rows = nvm_reviews_load(NVMIMIC_REVIEWS_TSV, &err);
    g_assert_no_error(err);
    for (unsigned i = 0; i < rows->len; i++) {
        const char *d = g_array_index(rows, NvmReviewRow, i).drive;
        bool seen = false;

        for (unsigned j = 0; j < drives->len; j++) {
            seen |= !strcmp(drives->pdata[j], d);
        }
        if (!seen) {
            g_autofree char *path = g_strdup_printf("/calibration/%s", d);

            g_ptr_array_add(drives, (gpointer)d);
            g_test_add_data_func(path, d, check_drive);
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(misses); i++) {
        bool known = false;

        for (unsigned j = 0; j < rows->len; j++) {
            const NvmReviewRow *r = &g_array_index(rows, NvmReviewRow, j);

            known |= !strcmp(r->drive, misses[i].drive) &&
                     !strcmp(r->workload, misses[i].workload);
        }
        if (!known) {
            g_printerr("test-calibration: misses[] names %s %s, which the "
                       "reviews do not have\n", misses[i].drive,
                       misses[i].workload);
            return 1;
        }
    }
    rc = g_test_run();
    if (all_rows == rows->len) {
        g_printerr("test-calibration: %u of %u rows within %.0f %% of the "
                   "review's IOPS (issue 28's Done-when: %u)%s\n",
                   near_rows, all_rows, 100 * IOPS_NEAR, NEAR_NEEDED,
                   near_rows >= NEAR_NEEDED ? "" : ": not met");
    }
    g_printerr("test-calibration: %u quick write peaks shorter than the "
               "swing of their 30 s run\n", quick_swings);
    /* with every drive run, the control must have seen a burst somewhere */
    if (!rc && quick_checked == drives->len && !quick_bursts) {
        g_printerr("test-calibration: no drive's quick write peak moved "
                   "without its longer warm-up: the quick check cannot fail\n");
        rc = 1;
    }
    g_ptr_array_free(drives, TRUE);
    nvm_reviews_free(rows);
    return rc;
}
