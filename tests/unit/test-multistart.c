/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit's searches (harness/fit/multistart.c) on objectives whose
 * answer is known: a well-posed one is found and reported identified, a
 * flat direction is reported unidentified, several starts find the
 * optimum a search from the priors alone misses, and the range of a
 * prediction (what leave-one-out reports per row) covers exactly the
 * as-good starts and probes, wide only where the data leave it flat.  And
 * the fit's
 * cross-validation (crossval.c) on the shipped profiles: the 670p's four
 * parameters for its four rows are "exactly determined", with no
 * simulation run; the leave-one-out summary keeps the rows the others do
 * not determine out of its "other rows" median; the VDI figures load as
 * rows of their drives.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "fit-int.h"

static double sq(double x)
{
    return x * x;
}

static void search_init(NvmSearch *s, unsigned n, NvmObjectiveFn fn,
                        void *ctx)
{
    *s = (NvmSearch){ .n = n, .fn = fn, .ctx = ctx, .max_evals = 300,
                      .step = 0.3, .flat_abs = 1e-6 };
    for (unsigned j = 0; j < n; j++) {
        s->lo[j] = 1;
        s->hi[j] = 100;
    }
}

/* Minimum at (5, 30, 70), a bowl in log space. */
static double well_posed(void *ctx, const double *v)
{
    (void)ctx;
    return sq(log(v[0] / 5)) + sq(log(v[1] / 30)) + sq(log(v[2] / 70));
}

static void well_posed_optimum_found_and_identified(void)
{
    NvmSearch s;
    NvmMultiResult r;
    const double prior[] = { 1.5, 90, 2 };
    const double want[] = { 5, 30, 70 };
    double v[3];

    search_init(&s, 3, well_posed, NULL);
    nvm_multistart(&s, prior, 5, v, &r);
    for (unsigned j = 0; j < 3; j++) {
        g_test_message("param %u: %g (x%.3f over the as-good starts)", j,
                       v[j], r.ratio[j]);
        g_assert_cmpfloat(fabs(v[j] / want[j] - 1), <, 0.02);
        g_assert_false(r.unidentified[j]);
    }
    g_assert_cmpfloat(r.obj[r.best], <, 1e-4);
}

/* Only v0 * v1 and v2 matter: flat along v0 / v1. */
static double flat(void *ctx, const double *v)
{
    (void)ctx;
    return sq(log(v[0] * v[1] / 100)) + sq(log(v[2] / 20));
}

static void flat_direction_reported_unidentified(void)
{
    NvmSearch s;
    NvmMultiResult r;
    const double prior[] = { 2, 3, 4 };
    double v[3];
    unsigned near = 0;

    search_init(&s, 3, flat, NULL);
    nvm_multistart(&s, prior, 5, v, &r);
    for (unsigned k = 0; k < r.n_starts; k++) {
        g_test_message("start %u: %g %g %g objective %g%s", k, r.v[k][0],
                       r.v[k][1], r.v[k][2], r.obj[k],
                       r.near[k] ? " (as good as the best)" : "");
        near += r.near[k];
    }
    g_assert_cmpuint(near, >=, 2);
    g_assert_true(r.unidentified[0]);
    g_assert_true(r.unidentified[1]);
    g_assert_false(r.unidentified[2]);
    /* what the data pin down is found all the same */
    g_assert_cmpfloat(fabs(v[0] * v[1] / 100 - 1), <, 0.02);
    g_assert_cmpfloat(fabs(v[2] / 20 - 1), <, 0.02);
}

/* v0's optimum is 5; v1 matters only below 20: flat above it. */
static double hinge(void *ctx, const double *v)
{
    (void)ctx;
    return sq(log(v[0] / 5)) + sq(log(fmin(v[1], 20) / 20));
}

/*
 * One start cannot disagree with itself: only the probes see that v1 is
 * flat.  A probe the range cuts short is not made.
 */
static void probes_find_a_flat_direction_one_start_misses(void)
{
    NvmSearch s;
    NvmMultiResult r;
    const double prior[] = { 2, 50 };
    double v[2];

    search_init(&s, 2, hinge, NULL);
    nvm_multistart(&s, prior, 1, v, &r);
    g_test_message("best %g %g objective %g; %u probes", v[0], v[1],
                   r.obj[r.best], r.n_probes);
    g_assert_cmpfloat(fabs(v[0] / 5 - 1), <, 0.02);
    g_assert_cmpfloat(v[1], >=, 20);
    g_assert_false(r.unidentified[0]);
    g_assert_true(r.unidentified[1]);
    g_assert_cmpfloat(r.ratio[1], >=, NVM_FLAT_PARAM_RATIO);
    /* v0's two probes fit worse; one of v1's at least as well */
    g_assert_cmpuint(r.n_probes, >=, 3);
    g_assert_cmpuint(r.probe_param[0], ==, 0);
    g_assert_cmpuint(r.probe_param[1], ==, 0);
    g_assert_false(r.probe_near[0] || r.probe_near[1]);
    g_assert_true(r.probe_near[2] || (r.n_probes > 3 && r.probe_near[3]));

    /* the best at 90 of a range up to 100: v1 probed downwards only */
    memset(&r, 0, sizeof(r));
    r.n_starts = 1;
    r.v[0][0] = 5;
    r.v[0][1] = 90;
    r.obj[0] = hinge(NULL, r.v[0]);
    nvm_search_flat(&s, &r);
    nvm_search_probe(&s, &r);
    g_assert_cmpuint(r.n_probes, ==, 3);
    g_assert_cmpuint(r.probe_param[2], ==, 1);
    g_assert_cmpfloat(r.probe_v[2][1], ==, 90 / NVM_FLAT_PARAM_RATIO);
    g_assert_true(r.unidentified[1]);
    g_assert_false(r.unidentified[0]);
}

/*
 * Two valleys in v0: a shallow one at 2 (objective 0.3) where the prior
 * lies, the true optimum at 50.  v1's optimum is 10.
 */
static double two_valleys(void *ctx, const double *v)
{
    double a = sq(log(v[0] / 2)) + 0.3, b = sq(log(v[0] / 50));

    (void)ctx;
    return fmin(a, b) + sq(log(v[1] / 10));
}

static void several_starts_find_the_optimum_the_prior_misses(void)
{
    NvmSearch s;
    NvmMultiResult r;
    const double prior[] = { 1.8, 3 };
    double one[2] = { 1.8, 3 }, v[2];
    double o1;

    search_init(&s, 2, two_valleys, NULL);
    /* from the prior alone: the shallow valley */
    o1 = nvm_nelder_mead(&s, one);
    g_test_message("from the prior: %g %g objective %g", one[0], one[1], o1);
    g_assert_cmpfloat(o1, >, 0.29);
    g_assert_cmpfloat(fabs(one[0] / 2 - 1), <, 0.1);
    /* from several starts: the optimum */
    nvm_multistart(&s, prior, 4, v, &r);
    g_test_message("best of 4: %g %g objective %g (start %u)", v[0], v[1],
                   r.obj[r.best], r.best);
    g_assert_cmpuint(r.best, !=, 0);
    g_assert_cmpfloat(r.obj[r.best], <, 1e-4);
    g_assert_cmpfloat(fabs(v[0] / 50 - 1), <, 0.02);
    g_assert_cmpfloat(fabs(v[1] / 10 - 1), <, 0.02);
    /* the prior's start fits far worse: not counted as equally good */
    g_assert_false(r.near[0]);
}

/* Quantities of the parameters, as a leave-one-out row is of its fit's. */
static double first(void *ctx, const double *v)
{
    (void)ctx;
    return v[0];
}

static double product01(void *ctx, const double *v)
{
    (void)ctx;
    return v[0] * v[1];
}

static double third(void *ctx, const double *v)
{
    (void)ctx;
    return v[2];
}

/*
 * The range takes the starts and probes that fit as well as the best, and
 * no other: a start far off, or a probe that fits worse, would widen it.
 */
static void range_covers_the_as_good_starts_and_probes_only(void)
{
    NvmMultiResult r;
    double lo, hi;

    memset(&r, 0, sizeof(r));
    r.n_starts = 3;
    r.best = 0;
    r.v[0][0] = 10;
    r.near[0] = true;
    r.v[1][0] = 1000;                   /* fits worse */
    r.v[2][0] = 20;
    r.near[2] = true;
    r.n_probes = 2;
    r.probe_v[0][0] = 15;
    r.probe_near[0] = true;
    r.probe_v[1][0] = 5;                /* fits worse */
    nvm_search_range(&r, first, NULL, &lo, &hi);
    g_assert_cmpfloat(lo, ==, 10);
    g_assert_cmpfloat(hi, ==, 20);
    /* the best start alone: a range of one value */
    r.near[2] = false;
    r.probe_near[0] = false;
    nvm_search_range(&r, first, NULL, &lo, &hi);
    g_assert_cmpfloat(lo, ==, 10);
    g_assert_cmpfloat(hi, ==, 10);
}

/*
 * Through the searches themselves (the flat objective above: only v0 * v1
 * and v2 matter): a quantity of what the data pin down is predicted over a
 * narrow range, one of the flat direction over more than
 * NVM_FLAT_PARAM_RATIO, which the leave-one-out summary counts as a row
 * the others do not determine.
 */
static void range_is_wide_only_where_the_data_leave_it_flat(void)
{
    NvmSearch s;
    NvmMultiResult r;
    const double prior[] = { 2, 3, 4 };
    double v[3], lo, hi;

    search_init(&s, 3, flat, NULL);
    nvm_multistart(&s, prior, 5, v, &r);
    nvm_search_range(&r, product01, NULL, &lo, &hi);
    g_test_message("v0 * v1: %g..%g", lo, hi);
    g_assert_cmpfloat(hi, <=, lo * 1.05);
    g_assert_cmpfloat(fabs(lo / 100 - 1), <, 0.05);
    nvm_search_range(&r, third, NULL, &lo, &hi);
    g_test_message("v2: %g..%g", lo, hi);
    g_assert_cmpfloat(hi, <=, lo * 1.05);
    nvm_search_range(&r, first, NULL, &lo, &hi);
    g_test_message("v0: %g..%g", lo, hi);
    g_assert_cmpfloat(hi, >, lo * NVM_FLAT_PARAM_RATIO);
}

/* The starts: the priors (clamped), the middle, spread points inside. */
static void starts_are_prior_middle_then_spread(void)
{
    NvmSearch s;
    const double prior[] = { 0.5, 40 };
    double v[2], seen[6][2];

    search_init(&s, 2, flat, NULL);
    nvm_search_start(&s, prior, 0, v);
    g_assert_cmpfloat(v[0], ==, 1);
    g_assert_cmpfloat(v[1], ==, 40);
    nvm_search_start(&s, prior, 1, v);
    g_assert_cmpfloat(fabs(v[0] - 10), <, 1e-9);
    g_assert_cmpfloat(fabs(v[1] - 10), <, 1e-9);
    for (unsigned k = 2; k < 8; k++) {
        nvm_search_start(&s, prior, k, v);
        for (unsigned j = 0; j < 2; j++) {
            /* 10..90 % of the log range */
            g_assert_cmpfloat(v[j], >=, pow(100, 0.1) - 1e-9);
            g_assert_cmpfloat(v[j], <=, pow(100, 0.9) + 1e-9);
            seen[k - 2][j] = v[j];
        }
        for (unsigned i = 0; i + 2 < k; i++) {
            g_assert_true(seen[i][0] != v[0] || seen[i][1] != v[1]);
        }
    }
}

static Fit *shipped_fit(bool vdi)
{
    Fit *f = g_new0(Fit, 1);
    g_autoptr(GError) err = NULL;

    f->dir = NVMIMIC_PROFILE_DIR;
    f->workloads = NVMIMIC_WORKLOAD_DIR;
    f->duration_s = 2;
    f->max_evals = 80;
    f->n_starts = 4;
    f->start_evals = 30;
    f->cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                     g_free);
    g_assert_true(fit_load(f, NVMIMIC_REVIEWS_TSV, vdi ?
                           NVMIMIC_PROFILE_DIR "/reviews/vdi-calibration.tsv"
                           : NULL, &err));
    g_assert_no_error(err);
    return f;
}

static int family_of(Fit *f, const char *drive)
{
    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];

        if (!strcmp(d->name, drive)) {
            return d->family;
        }
    }
    g_assert_not_reached();
}

static void the_670p_is_exactly_determined_not_predicted(void)
{
    Fit *f = shipped_fit(false);
    int fam = family_of(f, "intel-670p-2tb");
    Subset s = { fam, -1, NULL };
    unsigned idx[MAX_FREE];
    GString *out = g_string_new(NULL);
    const char *p = out->str;
    unsigned n = 0;

    g_assert_cmpuint(fit_subset_params(f, &s, idx), ==, 4);
    g_assert_cmpuint(fit_subset_rows(f, &s), ==, 4);
    fit_loo_table(f, out, fam);
    g_test_message("%s", out->str);
    for (p = out->str; (p = strstr(p, "| intel-670p-2tb |")); p++) {
        const char *eol = strchr(p, '\n');
        g_autofree char *line = g_strndup(p, eol - p);

        g_assert_nonnull(strstr(line, "exactly determined"));
        n++;
    }
    g_assert_cmpuint(n, ==, 4);
    g_assert_nonnull(strstr(out->str, "0 predictions"));
    g_assert_nonnull(strstr(out->str, "4 rows exactly determined"));
    /* nothing to fit, nothing simulated */
    g_assert_cmpuint(f->evals, ==, 0);
    g_string_free(out, TRUE);
    fit_free(f);
    g_free(f);
}

/*
 * The leave-one-out summary on rows whose answer is known: a row whose
 * as-good fits span more than x1.25 leaves the "determined" median and
 * largest, one at exactly x1.25 stays in, and the sign of an error does
 * not matter.  The figures are those of the P2 500 GB's 64K read (+66.0 %,
 * 29,493..46,083) and three made-up rows.
 */
static void loo_summary_keeps_undetermined_rows_out_of_the_rest(void)
{
    static const FitLooRow rows[] = {
        { 66.0, 29493, 46083, true },      /* x1.56: not determined */
        { -24.8, 100000, 125000, false },   /* x1.25 exactly: determined */
        { 4.0, 1000, 1100, true },
        { 12.0, 500, 510, false },
    };
    GString *out = g_string_new(NULL);

    fit_loo_summary(rows, G_N_ELEMENTS(rows), 4, out);
    g_test_message("%s", out->str);
    g_assert_nonnull(strstr(out->str, "4 predictions: median |error| 18.4 %, "
                            "largest 66.0 %; 2 of them with an "
                            "unidentified parameter."));
    g_assert_nonnull(strstr(out->str, "1 rows not determined by the others"));
    g_assert_nonnull(strstr(out->str, "over the other 3: median |error| "
                            "12.0 %, largest 24.8 %."));
    g_assert_nonnull(strstr(out->str, "4 rows exactly determined"));

    /* every row undetermined: no "other" median to give */
    g_string_truncate(out, 0);
    fit_loo_summary(rows, 1, 0, out);
    g_assert_nonnull(strstr(out->str, "1 rows not determined by the others "
                            "(as-good fits predict them over more than "
                            "x1.25)."));
    g_assert_null(strstr(out->str, "over the other"));

    /* no predictions at all (a family exactly determined) */
    g_string_truncate(out, 0);
    fit_loo_summary(NULL, 0, 4, out);
    g_assert_nonnull(strstr(out->str, "0 predictions."));
    g_assert_null(strstr(out->str, "median"));
    g_string_free(out, TRUE);
}

static void vdi_figures_join_their_drives_rows(void)
{
    Fit *f = shipped_fit(true);
    unsigned vdi = 0;

    g_assert_cmpuint(f->reviews->len, ==, 25);
    for (unsigned r = 0; r < f->reviews->len; r++) {
        vdi += fit_row_vdi(f, r);
    }
    g_assert_cmpuint(vdi, ==, 5);
    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];
        bool p2 = !strcmp(d->name, "crucial-p2-500g");
        bool p5 = !strcmp(d->name, "crucial-p5-1tb");

        g_assert_cmpuint(d->rows->len, ==, 4 + 3 * p2 + 2 * p5);
        g_assert_true(d->vdi[0] == p2);
        g_assert_true(d->vdi[1] == (p2 || p5));
    }
    fit_free(f);
    g_free(f);
}

static void bad_vdi_row_refused_naming_file_and_line(void)
{
    Fit f = { .dir = NVMIMIC_PROFILE_DIR };
    g_autoptr(GError) err = NULL;
    g_autofree char *dir = g_dir_make_tmp("nvmimic-fit-XXXXXX", NULL);
    g_autofree char *tsv = g_build_filename(dir, "vdi.tsv", NULL);

    g_assert_true(g_file_set_contents(tsv, "# c\ndrive\tworkload\tpeak_iops"
                                      "\tlat_us\tnote\ncrucial-p2-500g\t"
                                      "vdi-boot\t51084\tfast\tx\n", -1,
                                      NULL));
    g_assert_false(fit_load(&f, NVMIMIC_REVIEWS_TSV, tsv, &err));
    g_test_message("%s", err->message);
    g_assert_nonnull(strstr(err->message, "vdi.tsv:3"));
    g_assert_nonnull(strstr(err->message, "lat_us 'fast'"));
    g_assert_null(strchr(err->message, '\n'));
    fit_free(&f);
    g_unlink(tsv);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/multistart/well_posed_optimum_found_and_identified",
                    well_posed_optimum_found_and_identified);
    g_test_add_func("/multistart/flat_direction_reported_unidentified",
                    flat_direction_reported_unidentified);
    g_test_add_func("/multistart/probes_find_a_flat_direction_one_start_"
                    "misses", probes_find_a_flat_direction_one_start_misses);
    g_test_add_func("/multistart/several_starts_find_the_optimum_the_prior_"
                    "misses",
                    several_starts_find_the_optimum_the_prior_misses);
    g_test_add_func("/multistart/starts_are_prior_middle_then_spread",
                    starts_are_prior_middle_then_spread);
    g_test_add_func("/multistart/range_covers_the_as_good_starts_and_probes_"
                    "only", range_covers_the_as_good_starts_and_probes_only);
    g_test_add_func("/multistart/range_is_wide_only_where_the_data_leave_it_"
                    "flat", range_is_wide_only_where_the_data_leave_it_flat);
    g_test_add_func("/fit/the_670p_is_exactly_determined_not_predicted",
                    the_670p_is_exactly_determined_not_predicted);
    g_test_add_func("/fit/loo_summary_keeps_undetermined_rows_out_of_the_"
                    "rest",
                    loo_summary_keeps_undetermined_rows_out_of_the_rest);
    g_test_add_func("/fit/vdi_figures_join_their_drives_rows",
                    vdi_figures_join_their_drives_rows);
    g_test_add_func("/fit/bad_vdi_row_refused_naming_file_and_line",
                    bad_vdi_row_refused_naming_file_and_line);
    return g_test_run();
}
