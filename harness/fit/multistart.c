/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded minimisation for nvmimic fit (multistart.h): Nelder-Mead in the
 * logarithms of the parameters, from one start or several, and the test of
 * which parameters the objective is flat along.
 *
 * Why the flatness thresholds (multistart.h) are what they are.  The fit's
 * objective is a sum of squared log errors over review figures that are
 * known to 1-2 % (printed, rounded, some "about"), against a model whose
 * seed moves a peak by about 1 %.
 *  - NVM_FLAT_OBJ_REL (10 %) plus flat_abs (1 % of log error per row):
 *    objective 0.050 over 7 rows is an rms error of 8.5 %, 10 % more is
 *    8.9 %; figures known to 1-2 % cannot tell those two fits apart, so
 *    both are as good as the best.
 *  - NVM_FLAT_PARAM_RATIO (1.25): the starts begin 10-90 % of the way
 *    through log ranges 2.5x to 40x wide, and Nelder-Mead, run until its
 *    simplex agrees to 1e-6 or its budget ends, brings an identified
 *    parameter back within a few % (tests/unit/test-multistart.c: under
 *    2 % on a well-posed objective).  Its first simplex edge is 0.15 in log
 *    (16 %); two equally good fits that still disagree by more than 25 %
 *    (one and a half edges) do so because the objective does not change
 *    along that parameter, not because a search stopped early.
 *  - The probes: starts from a few points, each given a short budget, can
 *    all end near the same values on a parameter the data leave flat (a
 *    search has no reason to move along a flat direction, and starts 0
 *    and 1 sit near the middle of the range), so disagreement alone misses
 *    flatness.  Moving one parameter of the best fit by the same 25 % and
 *    finding the objective within the same tolerance says it directly, in
 *    2 evaluations per parameter.  A move that would leave the range is
 *    not made: there the range, not the data, bounds the parameter.
 */
#include <math.h>
#include <string.h>

#include "multistart.h"

static double clamp(const NvmSearch *s, unsigned j, double v)
{
    return v < s->lo[j] ? s->lo[j] : v > s->hi[j] ? s->hi[j] : v;
}

static double eval_log(const NvmSearch *s, const double *x, double *v)
{
    for (unsigned j = 0; j < s->n; j++) {
        v[j] = clamp(s, j, exp(x[j]));
    }
    return s->fn(s->ctx, v);
}

double nvm_nelder_mead(const NvmSearch *s, double *v)
{
    unsigned n = s->n;
    double x[NVM_SEARCH_MAX_PARAMS + 1][NVM_SEARCH_MAX_PARAMS];
    double fx[NVM_SEARCH_MAX_PARAMS + 1];
    double c[NVM_SEARCH_MAX_PARAMS], xr[NVM_SEARCH_MAX_PARAMS];
    double xe[NVM_SEARCH_MAX_PARAMS], xc[NVM_SEARCH_MAX_PARAMS];
    double tmp[NVM_SEARCH_MAX_PARAMS];
    unsigned evals = 0, best = 0;

    if (!n) {
        return s->fn(s->ctx, v);
    }
    for (unsigned i = 0; i <= n; i++) {
        for (unsigned j = 0; j < n; j++) {
            x[i][j] = log(clamp(s, j, v[j])) + (i == j + 1 ? s->step : 0);
        }
        fx[i] = eval_log(s, x[i], tmp);
        evals++;
    }
    while (evals < s->max_evals) {
        unsigned worst = 0, second;
        double fr;

        best = 0;
        for (unsigned i = 1; i <= n; i++) {
            if (fx[i] < fx[best]) {
                best = i;
            }
            if (fx[i] > fx[worst]) {
                worst = i;
            }
        }
        second = best;
        for (unsigned i = 0; i <= n; i++) {
            if (i != worst && fx[i] > fx[second]) {
                second = i;
            }
        }
        if (fx[worst] - fx[best] < 1e-6) {
            break;
        }
        for (unsigned j = 0; j < n; j++) {
            c[j] = 0;
            for (unsigned i = 0; i <= n; i++) {
                if (i != worst) {
                    c[j] += x[i][j] / n;
                }
            }
            xr[j] = c[j] + (c[j] - x[worst][j]);
        }
        fr = eval_log(s, xr, tmp);
        evals++;
        if (fr < fx[best]) {
            double fe;

            for (unsigned j = 0; j < n; j++) {
                xe[j] = c[j] + 2 * (c[j] - x[worst][j]);
            }
            fe = eval_log(s, xe, tmp);
            evals++;
            memcpy(x[worst], fe < fr ? xe : xr, sizeof(double) * n);
            fx[worst] = fe < fr ? fe : fr;
        } else if (fr < fx[second]) {
            memcpy(x[worst], xr, sizeof(double) * n);
            fx[worst] = fr;
        } else {
            double fc;

            for (unsigned j = 0; j < n; j++) {
                xc[j] = c[j] + 0.5 * (x[worst][j] - c[j]);
            }
            fc = eval_log(s, xc, tmp);
            evals++;
            if (fc < fx[worst]) {
                memcpy(x[worst], xc, sizeof(double) * n);
                fx[worst] = fc;
            } else {
                for (unsigned i = 0; i <= n; i++) {
                    if (i == best) {
                        continue;
                    }
                    for (unsigned j = 0; j < n; j++) {
                        x[i][j] = x[best][j] + 0.5 * (x[i][j] - x[best][j]);
                    }
                    fx[i] = eval_log(s, x[i], tmp);
                    evals++;
                }
            }
        }
    }
    best = 0;
    for (unsigned i = 1; i <= n; i++) {
        if (fx[i] < fx[best]) {
            best = i;
        }
    }
    return eval_log(s, x[best], v);
}

void nvm_search_start(const NvmSearch *s, const double *prior, unsigned k,
                      double *v)
{
    double g = 2;

    /* the d-dimensional golden ratio: x^(d+1) = x + 1 */
    for (unsigned i = 0; i < 60; i++) {
        g = pow(1 + g, 1.0 / (s->n + 1));
    }
    for (unsigned j = 0; j < s->n; j++) {
        double llo = log(s->lo[j]), lhi = log(s->hi[j]);

        if (k == 0) {
            v[j] = clamp(s, j, prior[j]);
        } else if (k == 1) {
            v[j] = exp((llo + lhi) / 2);
        } else {
            double a = fmod(1 / pow(g, j + 1), 1);
            double u = fmod(0.5 + (k - 1) * a, 1);

            v[j] = clamp(s, j, exp(llo + (0.1 + 0.8 * u) * (lhi - llo)));
        }
    }
}

/* The most objective a point may have and fit as well as @r's best. */
static double as_good(const NvmSearch *s, const NvmMultiResult *r)
{
    return r->obj[r->best] * (1 + NVM_FLAT_OBJ_REL) + s->flat_abs;
}

void nvm_search_flat(const NvmSearch *s, NvmMultiResult *r)
{
    double tol = as_good(s, r);

    for (unsigned k = 0; k < r->n_starts; k++) {
        r->near[k] = r->obj[k] <= tol;
    }
    for (unsigned j = 0; j < s->n; j++) {
        double lo = INFINITY, hi = 0;

        for (unsigned k = 0; k < r->n_starts; k++) {
            if (r->near[k]) {
                lo = fmin(lo, r->v[k][j]);
                hi = fmax(hi, r->v[k][j]);
            }
        }
        r->ratio[j] = hi / lo;
        r->unidentified[j] = r->ratio[j] > NVM_FLAT_PARAM_RATIO;
    }
}

void nvm_search_probe(const NvmSearch *s, NvmMultiResult *r)
{
    double tol = as_good(s, r);

    r->n_probes = 0;
    for (unsigned j = 0; j < s->n; j++) {
        for (int up = 1; up >= 0; up--) {
            unsigned i = r->n_probes;
            double *v = r->probe_v[i];
            double b = r->v[r->best][j];
            double m = up ? b * NVM_FLAT_PARAM_RATIO
                          : b / NVM_FLAT_PARAM_RATIO;

            /* a move the range does not allow whole says nothing */
            if (m < s->lo[j] || m > s->hi[j]) {
                continue;
            }
            memcpy(v, r->v[r->best], sizeof(double) * s->n);
            v[j] = m;
            r->probe_param[i] = j;
            r->probe_near[i] = s->fn(s->ctx, v) <= tol;
            if (r->probe_near[i]) {
                r->unidentified[j] = true;
                r->ratio[j] = fmax(r->ratio[j], NVM_FLAT_PARAM_RATIO);
            }
            r->n_probes++;
        }
    }
}

/* Widen [*@lo, *@hi] by @q at the values @v. */
static void range_take(NvmQuantityFn q, void *ctx, const double *v,
                       double *lo, double *hi)
{
    double x = q(ctx, v);

    *lo = fmin(*lo, x);
    *hi = fmax(*hi, x);
}

void nvm_search_range(const NvmMultiResult *r, NvmQuantityFn q, void *ctx,
                      double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (unsigned k = 0; k < r->n_starts; k++) {
        if (r->near[k]) {
            range_take(q, ctx, r->v[k], lo, hi);
        }
    }
    for (unsigned i = 0; i < r->n_probes; i++) {
        if (r->probe_near[i]) {
            range_take(q, ctx, r->probe_v[i], lo, hi);
        }
    }
}

double nvm_multistart(const NvmSearch *s, const double *prior,
                      unsigned n_starts, double *v, NvmMultiResult *r)
{
    memset(r, 0, sizeof(*r));
    r->n_starts = n_starts < 1 ? 1 : n_starts > NVM_SEARCH_MAX_STARTS
                                     ? NVM_SEARCH_MAX_STARTS : n_starts;
    for (unsigned k = 0; k < r->n_starts; k++) {
        nvm_search_start(s, prior, k, r->v[k]);
        r->obj[k] = nvm_nelder_mead(s, r->v[k]);
        if (r->obj[k] < r->obj[r->best]) {
            r->best = k;
        }
    }
    nvm_search_flat(s, r);
    nvm_search_probe(s, r);
    memcpy(v, r->v[r->best], sizeof(double) * s->n);
    return r->obj[r->best];
}
