/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit: what fit.c (the command: its tables and what it writes) and
 * search.c (loading the free parameters, the model's peaks, Nelder-Mead)
 * share.  Nothing outside these two files includes it.
 */
#ifndef NVMIMIC_FIT_INT_H
#define NVMIMIC_FIT_INT_H

#include "sim.h"
#include "fit.h"

#define MAX_FREE 16

typedef struct Param {
    char *file, *group, *key;
    double lo, hi;
    double value;               /* in the file */
    double fitted;
} Param;

typedef struct Drive {
    char *name;
    GArray *rows;               /* indices into Fit.reviews */
    unsigned params[MAX_FREE];  /* indices into Fit.params */
    unsigned n_params;
    unsigned family;
    char *controller;           /* part name, for cross-capacity pairs */
} Drive;

typedef struct Fit {
    const char *dir;
    GArray *reviews;            /* NvmReviewRow */
    GPtrArray *drives;          /* Drive * */
    GPtrArray *params;          /* Param * */
    unsigned n_families;
    double duration_s;
    unsigned max_evals;
    GHashTable *cache;          /* "drive|v1|v2.." -> double[4] */
    unsigned evals;
    bool quiet;
} Fit;
/* Which rows a fit uses: all of a family, less one row, or one drive's. */
typedef struct Subset {
    unsigned family;
    int skip_row;               /* -1: none */
    const Drive *only;          /* NULL: every drive of the family */
} Subset;

/*
 * search.c: load the drives of @reviews, their free parameters and
 * families; the model's IOPS for row @r of drive @d with @vals; the
 * subset's objective; its free parameters (into @idx, at most MAX_FREE);
 * Nelder-Mead from @vals (updated in place), returning the objective.
 */
bool fit_load(Fit *f, const char *reviews, const char *only,
              GError **errp);
double fit_row_model(Fit *f, Drive *d, unsigned r, const double *vals);
double fit_objective(Fit *f, const Subset *s, const double *vals);
unsigned fit_subset_params(Fit *f, const Subset *s, unsigned *idx);
double fit_nelder_mead(Fit *f, const Subset *s, double *vals);

#endif
