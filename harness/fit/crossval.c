/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit's cross-validation: each row predicted by a fit of its family
 * without it (leave-one-out), and each capacity predicted from a fit on
 * the other of the parameters they share (cross-capacity).  Every fit here
 * starts from the parameters' priors and spread starts (fit_multistart),
 * never from the all-data fit, whose values already saw the row to
 * predict; where the remaining rows leave a parameter flat, the table says
 * so, and where a family has no more rows than free parameters, there is
 * nothing to predict.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit-int.h"

static double pct(double m, double r)
{
    return 100 * (m - r) / r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
    if (!n) {
        return NAN;
    }
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The file values of every parameter, the subset's then set by a search. */
static double *file_values(Fit *f)
{
    double *v = g_new(double, f->params->len);

    for (unsigned i = 0; i < f->params->len; i++) {
        v[i] = ((Param *)f->params->pdata[i])->value;
    }
    return v;
}

/* The parameters @r found unidentified, "key (x1.8)", into @s. */
static void unidentified_list(Fit *f, const Subset *sub,
                              const NvmMultiResult *r, GString *s)
{
    unsigned idx[MAX_FREE], n = fit_subset_params(f, sub, idx);

    for (unsigned j = 0; j < n; j++) {
        if (r->unidentified[j]) {
            g_string_append_printf(s, "%s`%s` (x%.2f)", s->len ? ", " : "",
                                   ((Param *)f->params->pdata[idx[j]])->key,
                                   r->ratio[j]);
        }
    }
}

/* Row @r of @d at the subset's values (nvm_search_range's quantity). */
typedef struct RowAt {
    Fit *f;
    Drive *d;
    unsigned r;
    unsigned idx[MAX_FREE];
    unsigned n;
    double *v;                  /* every parameter's value */
} RowAt;

static double row_at(void *ctx, const double *x)
{
    RowAt *ra = ctx;

    for (unsigned j = 0; j < ra->n; j++) {
        ra->v[ra->idx[j]] = x[j];
    }
    return fit_row_model(ra->f, ra->d, ra->r, ra->v);
}

/*
 * Row @r of @d as predicted by each start and probe of @res that fits as
 * well as the best: the range, into @lo and @hi.
 */
static void near_range(Fit *f, const Subset *sub, const NvmMultiResult *res,
                       Drive *d, unsigned r, double *lo, double *hi)
{
    RowAt ra = { .f = f, .d = d, .r = r, .v = file_values(f) };

    ra.n = fit_subset_params(f, sub, ra.idx);
    nvm_search_range(res, row_at, &ra, lo, hi);
    g_free(ra.v);
}

void fit_loo_table(Fit *f, GString *out, int family)
{
    FitLooRow *rows = g_new(FitLooRow, f->reviews->len);
    unsigned n = 0, n_exact = 0;

    g_string_append_printf(out, "\nLeave-one-out: each row predicted by a "
                           "fit of its family without that row, from the "
                           "parts' priors: %u starts (each parameter's "
                           "prior, the middle of its `[fit]` range, then "
                           "points spread over the ranges in log space), "
                           "%u evaluations each, the best kept.  A "
                           "parameter is *unidentified* where starts that "
                           "fit the other rows within %.0f %% of the best "
                           "disagree on it by more than %.0f %%, or where "
                           "the best fit with that parameter alone moved "
                           "by %.0f %%, up or down, still fits them that "
                           "well (a probe: 2 more evaluations per "
                           "parameter; x%.2f in brackets); the range is "
                           "what those starts and probes predict, and a "
                           "range wider than x%.2f is a row the other "
                           "rows do not determine.  A family with no more "
                           "rows than free parameters is *exactly "
                           "determined*: its parameters set its rows, "
                           "leaving one out predicts nothing.\n\n"
                           "| drive | workload | review IOPS | predicted "
                           "IOPS | error | unidentified | as-good starts "
                           "predict |\n|---|---|---|---|---|---|---|\n",
                           f->n_starts, f->start_evals,
                           100 * NVM_FLAT_OBJ_REL,
                           100 * (NVM_FLAT_PARAM_RATIO - 1),
                           100 * (NVM_FLAT_PARAM_RATIO - 1),
                           NVM_FLAT_PARAM_RATIO, NVM_FLAT_PARAM_RATIO);
    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];
        Subset fam = { d->family, -1, NULL };
        unsigned idx[MAX_FREE];
        unsigned np = fit_subset_params(f, &fam, idx);
        unsigned nr = fit_subset_rows(f, &fam);

        if (family >= 0 && d->family != (unsigned)family) {
            continue;
        }
        for (unsigned k = 0; k < d->rows->len; k++) {
            unsigned r = g_array_index(d->rows, unsigned, k);
            const NvmReviewRow *row = &g_array_index(f->reviews,
                                                     NvmReviewRow, r);
            Subset s = { d->family, (int)r, NULL };
            NvmMultiResult res;
            GString *unid;
            double *t, m, e, lo, hi;

            if (nr <= np) {
                g_string_append_printf(out, "| %s | %s | %.0f | - | - | "
                                       "exactly determined: %u free "
                                       "parameters, %u rows | - |\n",
                                       d->name, row->workload,
                                       row->peak_iops, np, nr);
                n_exact++;
                continue;
            }
            t = file_values(f);
            fit_multistart(f, &s, t, &res);
            m = fit_row_model(f, d, r, t);
            e = pct(m, row->peak_iops);
            near_range(f, &s, &res, d, r, &lo, &hi);
            unid = g_string_new(NULL);
            unidentified_list(f, &s, &res, unid);
            rows[n++] = (FitLooRow){ e, lo, hi, unid->len > 0 };
            g_string_append_printf(out, "| %s | %s | %.0f | %.0f | %+.1f %% "
                                   "| %s | %.0f..%.0f |\n", d->name,
                                   row->workload, row->peak_iops, m, e,
                                   unid->len ? unid->str : "-", lo, hi);
            fprintf(stderr, "leave-one-out %s %s done (%u simulations)\n",
                    d->name, row->workload, f->evals);
            g_string_free(unid, TRUE);
            g_free(t);
        }
    }
    fit_loo_summary(rows, n, n_exact, out);
    g_free(rows);
}

void fit_loo_summary(const FitLooRow *rows, unsigned n, unsigned n_exact,
                     GString *out)
{
    double *errs = g_new(double, n);
    double *det = g_new(double, n);
    unsigned n_unid = 0, n_det = 0;
    double worst = 0, det_worst = 0;

    for (unsigned i = 0; i < n; i++) {
        double e = fabs(rows[i].err_pct);

        errs[i] = e;
        worst = fmax(worst, e);
        n_unid += rows[i].unidentified;
        if (rows[i].hi <= rows[i].lo * NVM_FLAT_PARAM_RATIO) {
            det[n_det++] = e;
            det_worst = fmax(det_worst, e);
        }
    }
    if (n) {
        g_string_append_printf(out, "\n%u predictions: median |error| "
                               "%.1f %%, largest %.1f %%; %u of them with "
                               "an unidentified parameter.", n,
                               median(errs, n), worst, n_unid);
        g_string_append_printf(out, "  %u rows not determined by the "
                               "others (as-good fits predict them over more "
                               "than x%.2f)", n - n_det,
                               NVM_FLAT_PARAM_RATIO);
        if (n_det) {
            g_string_append_printf(out, "; over the other %u: median "
                                   "|error| %.1f %%, largest %.1f %%.",
                                   n_det, median(det, n_det), det_worst);
        } else {
            g_string_append(out, ".");
        }
    } else {
        g_string_append(out, "\n0 predictions.");
    }
    g_string_append_printf(out, "  %u rows exactly determined (not "
                           "predictions).\n", n_exact);
    g_free(errs);
    g_free(det);
}

/* Whether @d's free parameters include parameter @p. */
static bool has_param(const Drive *d, unsigned p)
{
    for (unsigned j = 0; j < d->n_params; j++) {
        if (d->params[j] == p) {
            return true;
        }
    }
    return false;
}

void fit_cross_table(Fit *f, GString *out, int family)
{
    GString *notes = g_string_new(NULL);
    bool any = false;

    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *a = f->drives->pdata[i];

        for (unsigned j = 0; j < f->drives->len; j++) {
            Drive *b = f->drives->pdata[j];
            Subset s = { a->family, -1, a };
            GString *shared = g_string_new(NULL), *own = g_string_new(NULL);
            GString *unid = g_string_new(NULL);
            bool leaks = false;
            NvmMultiResult res;
            double *t;

            if (i == j || a->family != b->family ||
                (family >= 0 && a->family != (unsigned)family)) {
                g_string_free(shared, TRUE);
                g_string_free(own, TRUE);
                g_string_free(unid, TRUE);
                continue;
            }
            if (!any) {
                g_string_append(out, "\nCross-capacity: the free "
                                "parameters of one drive fitted on its rows "
                                "alone (from the priors, as leave-one-out), "
                                "then the other capacity predicted with the "
                                "parameters the two share; the predicted "
                                "drive's own parameters stay at their "
                                "priors.\n\n"
                                "| fitted on | predicted | workload | "
                                "review IOPS | predicted IOPS | error |\n"
                                "|---|---|---|---|---|---|\n");
                any = true;
            }
            t = g_new(double, f->params->len);
            for (unsigned k = 0; k < f->params->len; k++) {
                Param *q = f->params->pdata[k];

                t[k] = q->prior;
                if (!has_param(b, k)) {
                    continue;
                }
                if (has_param(a, k)) {
                    g_string_append_printf(shared, "%s`%s`",
                                           shared->len ? ", " : "", q->key);
                } else {
                    g_string_append_printf(own, "%s`%s` %g%s",
                                           own->len ? ", " : "", q->key,
                                           q->prior, q->prior_given ? ""
                                           : " (the file's)");
                    leaks |= !q->prior_given;
                }
            }
            if (!shared->len) {
                g_string_append_printf(out, "| %s | %s | all | - | - | - "
                                       "|\n", a->name, b->name);
                g_string_append_printf(notes, "- %s from %s: no fitted "
                                       "parameter shared, nothing to "
                                       "predict (a fit on %s alone "
                                       "sets none of %s's values).\n",
                                       b->name, a->name, a->name, b->name);
            } else {
                fit_multistart(f, &s, t, &res);
                unidentified_list(f, &s, &res, unid);
                for (unsigned k = 0; k < b->rows->len; k++) {
                    unsigned r = g_array_index(b->rows, unsigned, k);
                    const NvmReviewRow *row =
                        &g_array_index(f->reviews, NvmReviewRow, r);
                    double m = fit_row_model(f, b, r, t);

                    g_string_append_printf(out, "| %s | %s | %s | %.0f | "
                                           "%.0f | %+.1f %% |\n", a->name,
                                           b->name, row->workload,
                                           row->peak_iops, m,
                                           pct(m, row->peak_iops));
                }
                g_string_append_printf(notes, "- %s from %s: shares %s "
                                       "(fitted on %s alone%s%s)",
                                       b->name, a->name, shared->str,
                                       a->name,
                                       unid->len ? "; unidentified there: "
                                                 : "", unid->str);
                if (own->len) {
                    g_string_append_printf(notes, "; its own %s%s",
                                           own->str, leaks
                                           ? ": no prior in its [fit] "
                                             "line, so the file's value, "
                                             "itself fitted with these "
                                             "rows: not independent of "
                                             "them" : "");
                }
                g_string_append(notes, ".\n");
                fprintf(stderr, "cross-capacity %s -> %s done (%u "
                        "simulations)\n", a->name, b->name, f->evals);
            }
            g_string_free(shared, TRUE);
            g_string_free(own, TRUE);
            g_string_free(unid, TRUE);
            g_free(t);
        }
    }
    if (any) {
        g_string_append_printf(out, "\n%s", notes->str);
    }
    g_string_free(notes, TRUE);
}
