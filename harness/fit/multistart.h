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
 * The flatness test (nvm_search_flat, nvm_search_probe).  Points whose
 * objective is within NVM_FLAT_OBJ_REL of the best (plus the search's
 * flat_abs) fit the data as well as the best.  A parameter is not pinned
 * down by the data where two such starts differ on it by more than
 * NVM_FLAT_PARAM_RATIO, or where the best start with that parameter alone
 * moved by NVM_FLAT_PARAM_RATIO, up or down, still fits as well (a probe).
 * multistart.c says why these values.
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
    /*
     * max / min over the near starts and probes: at least
     * NVM_FLAT_PARAM_RATIO where a probe along it fits as well
     */
    double ratio[NVM_SEARCH_MAX_PARAMS];
    /*
     * The probes: the best start with parameter probe_param[i] alone
     * multiplied (up) or divided by NVM_FLAT_PARAM_RATIO, two per
     * parameter less the moves its range does not allow.
     */
    unsigned n_probes;
    unsigned probe_param[2 * NVM_SEARCH_MAX_PARAMS];
    double probe_v[2 * NVM_SEARCH_MAX_PARAMS][NVM_SEARCH_MAX_PARAMS];
    bool probe_near[2 * NVM_SEARCH_MAX_PARAMS];
} NvmMultiResult;

/*
 * nvm_nelder_mead from each of @n_starts starts (at most
 * NVM_SEARCH_MAX_STARTS; see nvm_search_start); every result into @r, the
 * best's values into @v, and the flatness test's verdict (the starts',
 * then the probes': 2 more evaluations per parameter at most).
 */
double nvm_multistart(const NvmSearch *s, const double *prior,
                      unsigned n_starts, double *v, NvmMultiResult *r);

/* The flatness test on @r's starts (fills near, ratio, unidentified). */
void nvm_search_flat(const NvmSearch *s, NvmMultiResult *r);

/*
 * The probes around @r's best start (fills the probe fields; a probe that
 * fits as well as the best makes its parameter unidentified and raises its
 * ratio).  Call after nvm_search_flat.
 */
void nvm_search_probe(const NvmSearch *s, NvmMultiResult *r);

/* A quantity computed from parameter values @v (a prediction, say). */
typedef double (*NvmQuantityFn)(void *ctx, const double *v);

/*
 * What the starts and probes of @r that fit as well as the best say of
 * @q: its least and greatest value over them, into *@lo and *@hi (the
 * range of a prediction these data leave open; nvm_search_flat counts the
 * best start among them).  Call after nvm_search_probe.
 */
void nvm_search_range(const NvmMultiResult *r, NvmQuantityFn q, void *ctx,
                      double *lo, double *hi);

#endif
