/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit: what fit.c (the command: its tables and what it writes),
 * search.c (loading the free parameters, the model's peaks, the searches)
 * and crossval.c (leave-one-out and cross-capacity tables) share.  Nothing
 * else includes it but tests/unit/test-multistart.c.
 */
#ifndef NVMIMIC_FIT_INT_H
#define NVMIMIC_FIT_INT_H

#include "sim.h"
#include "vdi.h"
#include "multistart.h"

#define MAX_FREE NVM_SEARCH_MAX_PARAMS

typedef struct Param {
    char *file, *group, *key;
    double lo, hi;
    double value;               /* in the file */
    /*
     * Where cross-validation starts (start 0, nvm_search_start): the [fit]
     * line's prior where it gives one, else the file's value.
     */
    double prior;
    bool prior_given;
    double fitted;
} Param;

/* A drive's figures: the four corners, then the VDI workloads. */
#define FIT_SLOTS (NVM_FOUR_CORNERS + NVM_VDI_WORKLOADS)

typedef struct Drive {
    char *name;
    GArray *rows;               /* indices into Fit.reviews */
    unsigned params[MAX_FREE];  /* indices into Fit.params */
    unsigned n_params;
    unsigned family;
    bool vdi[NVM_VDI_WORKLOADS];    /* VDI rows it has */
} Drive;

typedef struct Fit {
    const char *dir;
    const char *workloads;      /* the VDI job files' folder */
    GArray *reviews;            /* NvmReviewRow: four corners, then VDI */
    GArray *slots;              /* unsigned per row: its FIT_SLOTS slot */
    GPtrArray *drives;          /* Drive * */
    GPtrArray *params;          /* Param * */
    unsigned n_families;
    double duration_s;
    unsigned max_evals;         /* per search of the main fit */
    unsigned n_starts;          /* per cross-validation fit */
    unsigned start_evals;       /* per start */
    GHashTable *cache;          /* "drive|v1|v2.." -> double[2 * FIT_SLOTS] */
    unsigned evals;             /* drive evaluations simulated */
    unsigned vdi_sims;          /* VDI peaks among them */
    double fc_cpu_s, vdi_cpu_s; /* CPU seconds: four corners, VDI peaks */
} Fit;
/* Which rows a fit uses: all of a family, less one row, or one drive's. */
typedef struct Subset {
    unsigned family;
    int skip_row;               /* -1: none */
    const Drive *only;          /* NULL: every drive of the family */
} Subset;

/*
 * search.c: load the drives of @reviews (and of @vdi, the VDI calibration
 * figures, if not NULL), their free parameters and families; the model's
 * IOPS and latency for row @r of drive @d with @vals; whether row @r is a
 * VDI figure; the subset's objective; its free parameters (into @idx, at
 * most MAX_FREE) and rows; Nelder-Mead from @vals (updated in place),
 * returning the objective; the same from the parameters' priors and
 * spread starts (f->n_starts; the subset's parameters, in @idx's order,
 * in @r).
 */
bool fit_load(Fit *f, const char *reviews, const char *vdi, GError **errp);
/* What fit_load and the evaluations allocated in @f (f->cache too). */
void fit_free(Fit *f);
double fit_row_model(Fit *f, Drive *d, unsigned r, const double *vals);
double fit_row_lat(Fit *f, Drive *d, unsigned r, const double *vals);
bool fit_row_vdi(const Fit *f, unsigned r);
double fit_objective(Fit *f, const Subset *s, const double *vals);
unsigned fit_subset_params(Fit *f, const Subset *s, unsigned *idx);
unsigned fit_subset_rows(Fit *f, const Subset *s);
double fit_nelder_mead(Fit *f, const Subset *s, double *vals);
double fit_multistart(Fit *f, const Subset *s, double *vals,
                      NvmMultiResult *r);

/*
 * crossval.c: the leave-one-out and cross-capacity tables, from the
 * priors (never from the all-data fit); @family: only that family's, or
 * -1 for all.
 */
void fit_loo_table(Fit *f, GString *out, int family);
void fit_cross_table(Fit *f, GString *out, int family);

/* One leave-one-out prediction, for the table's summary. */
typedef struct FitLooRow {
    double err_pct;             /* (predicted - review) / review, in % */
    double lo, hi;              /* what the as-good starts and probes predict */
    bool unidentified;          /* some parameter flagged */
} FitLooRow;

/*
 * The summary under the leave-one-out table, appended to @out: the median
 * and largest |error| of the @n predictions, how many flag a parameter,
 * how many the other rows do not determine (@hi above @lo times
 * NVM_FLAT_PARAM_RATIO) and the median and largest over the rest, and the
 * @n_exact rows of exactly determined families.
 */
void fit_loo_summary(const FitLooRow *rows, unsigned n, unsigned n_exact,
                     GString *out);

#endif
