/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded minimisation for nvmimic fit, independent of the model: Nelder-Mead
 * in the logarithms of positive parameters, the same search from several
 * starts spread over the parameters' ranges, and which parameters the
 * objective leaves undetermined (flat along them).
 */
#ifndef NVMIMIC_MULTISTART_H
#define NVMIMIC_MULTISTART_H

#include <stdbool.h>

#define NVM_SEARCH_MAX_PARAMS 16
#define NVM_SEARCH_MAX_STARTS 8

/*
 * The flatness test (nvm_search_flat).  Starts whose objective is within
 * NVM_FLAT_OBJ_REL of the best (plus the search's flat_abs) fit the data as
 * well as the best; a parameter on which two of them differ by more than
 * NVM_FLAT_PARAM_RATIO is not pinned down by the data.  multistart.c says
 * why these values.
 */
#define NVM_FLAT_OBJ_REL 0.10
#define NVM_FLAT_PARAM_RATIO 1.25

/* The objective at parameter values @v (n of them, each inside its range). */
typedef double (*NvmObjectiveFn)(void *ctx, const double *v);

typedef struct NvmSearch {
    unsigned n;                 /* parameters, at most NVM_SEARCH_MAX_PARAMS */
    double lo[NVM_SEARCH_MAX_PARAMS], hi[NVM_SEARCH_MAX_PARAMS];
    NvmObjectiveFn fn;
    void *ctx;
    unsigned max_evals;         /* objective evaluations per search */
    double step;                /* the initial simplex's edge, in log units */
    /*
     * The objective's own noise: differences below it say nothing (the fit:
     * 1 % of log error per row, its simulations' seed and rounding noise).
     */
    double flat_abs;
} NvmSearch;

/*
 * Minimise from @v (updated in place; each value clamped into its range);
 * returns the objective at the result.
 */
double nvm_nelder_mead(const NvmSearch *s, double *v);

/*
 * Start @k of a multi-start search: 0 the priors @prior (clamped into the
 * ranges), 1 the middle of each range (geometric), then points spread over
 * the ranges in log space (a Kronecker sequence, 10..90 % of each log
 * range: away from the bounds, where clamping flattens the objective).
 */
void nvm_search_start(const NvmSearch *s, const double *prior, unsigned k,
                      double *v);

typedef struct NvmMultiResult {
    unsigned n_starts;
    double obj[NVM_SEARCH_MAX_STARTS];
    double v[NVM_SEARCH_MAX_STARTS][NVM_SEARCH_MAX_PARAMS];
    unsigned best;              /* the start with the lowest objective */
    bool near[NVM_SEARCH_MAX_STARTS];    /* fits as well as the best */
    bool unidentified[NVM_SEARCH_MAX_PARAMS];
    double ratio[NVM_SEARCH_MAX_PARAMS]; /* max / min over the near starts */
} NvmMultiResult;

/*
 * nvm_nelder_mead from each of @n_starts starts (at most
 * NVM_SEARCH_MAX_STARTS; see nvm_search_start); every result into @r, the
 * best's values into @v, and the flatness test's verdict.
 */
double nvm_multistart(const NvmSearch *s, const double *prior,
                      unsigned n_starts, double *v, NvmMultiResult *r);

/* The flatness test on @r's starts (fills near, ratio, unidentified). */
void nvm_search_flat(const NvmSearch *s, NvmMultiResult *r);

#endif
