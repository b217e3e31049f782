/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit's search: the drives of the reviews' table with the free
 * parameters their files mark ([fit] sections) and the families that
 * share them; each drive's four peaks simulated with given values (cached);
 * the sum of squared log errors of peak IOPS over a subset of rows; and
 * Nelder-Mead in the logarithms of the parameters, inside their bounds.
 * fit.c runs it and writes what it found.
 */
#include <math.h>
#include <string.h>

#include "fit-int.h"

/* ------------------------------------------------------------------ */
/* Loading: drives, their free parameters, families */

static Param *param_find(Fit *f, const NvmFreeParam *fp, unsigned *idx)
{
    for (unsigned i = 0; i < f->params->len; i++) {
        Param *p = f->params->pdata[i];

        if (!strcmp(p->file, fp->file) && !strcmp(p->group, fp->group) &&
            !strcmp(p->key, fp->key)) {
            *idx = i;
            return p;
        }
    }
    return NULL;
}

static bool param_value(Param *p, GError **errp)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autofree char *v = NULL;
    char *end;

    if (!g_key_file_load_from_file(kf, p->file, G_KEY_FILE_NONE, errp)) {
        return false;
    }
    v = g_key_file_get_value(kf, p->group, p->key, errp);
    if (!v) {
        return false;
    }
    p->value = g_ascii_strtod(g_strstrip(v), &end);
    p->fitted = p->value;
    return true;
}

static unsigned uf_find(unsigned *up, unsigned i)
{
    while (up[i] != i) {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

bool fit_load(Fit *f, const char *reviews, const char *only,
              GError **errp)
{
    unsigned *up;

    f->reviews = nvm_reviews_load(reviews, errp);
    if (!f->reviews) {
        return false;
    }
    f->drives = g_ptr_array_new();
    f->params = g_ptr_array_new();
    for (unsigned r = 0; r < f->reviews->len; r++) {
        NvmReviewRow *row = &g_array_index(f->reviews, NvmReviewRow, r);
        Drive *d = NULL;
        NvmProfile *p;

        for (unsigned i = 0; i < f->drives->len; i++) {
            Drive *e = f->drives->pdata[i];

            if (!strcmp(e->name, row->drive)) {
                d = e;
            }
        }
        if (d) {
            g_array_append_val(d->rows, r);
            continue;
        }
        p = nvm_profile_load(row->drive, f->dir, errp);
        if (!p) {
            return false;
        }
        d = g_new0(Drive, 1);
        d->name = g_strdup(row->drive);
        d->rows = g_array_new(FALSE, FALSE, sizeof(unsigned));
        d->controller = g_strdup(p->controller_part ? p->controller_part
                                                    : "");
        g_array_append_val(d->rows, r);
        for (unsigned k = 0; k < p->n_free_params; k++) {
            unsigned idx;
            Param *q = param_find(f, &p->free_params[k], &idx);

            if (!q) {
                q = g_new0(Param, 1);
                q->file = g_strdup(p->free_params[k].file);
                q->group = g_strdup(p->free_params[k].group);
                q->key = g_strdup(p->free_params[k].key);
                q->lo = p->free_params[k].lo;
                q->hi = p->free_params[k].hi;
                if (!param_value(q, errp)) {
                    nvm_profile_free(p);
                    return false;
                }
                idx = f->params->len;
                g_ptr_array_add(f->params, q);
            }
            if (d->n_params == MAX_FREE) {
                g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                            "%s: more than %d free parameters", d->name,
                            MAX_FREE);
                nvm_profile_free(p);
                return false;
            }
            d->params[d->n_params++] = idx;
        }
        g_ptr_array_add(f->drives, d);
        nvm_profile_free(p);
    }
    /* Families: drives joined by a shared free parameter. */
    up = g_new(unsigned, f->drives->len);
    for (unsigned i = 0; i < f->drives->len; i++) {
        up[i] = i;
    }
    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *a = f->drives->pdata[i];

        for (unsigned j = i + 1; j < f->drives->len; j++) {
            Drive *b = f->drives->pdata[j];

            for (unsigned x = 0; x < a->n_params; x++) {
                for (unsigned y = 0; y < b->n_params; y++) {
                    if (a->params[x] == b->params[y]) {
                        up[uf_find(up, i)] = uf_find(up, j);
                    }
                }
            }
        }
    }
    f->n_families = 0;
    for (unsigned i = 0; i < f->drives->len; i++) {
        ((Drive *)f->drives->pdata[i])->family = G_MAXUINT;
    }
    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];
        unsigned root = uf_find(up, i);
        Drive *r = f->drives->pdata[root];

        if (r->family == G_MAXUINT) {
            r->family = f->n_families++;
        }
        d->family = r->family;
    }
    g_free(up);
    if (only) {
        bool found = false;

        for (unsigned i = 0; i < f->drives->len; i++) {
            found |= !strcmp(((Drive *)f->drives->pdata[i])->name, only);
        }
        if (!found) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: no such drive in %s", only, reviews);
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Evaluation: a drive's four peaks with the given parameter values */

static const double *drive_peaks(Fit *f, Drive *d, const double *vals)
{
    GString *key = g_string_new(d->name);
    const char *ov[3 * MAX_FREE + 1];
    g_autoptr(GError) err = NULL;
    char num[MAX_FREE][G_ASCII_DTOSTR_BUF_SIZE];
    NvmSimOptions so = { .seed = 1, .duration_s = f->duration_s,
                         .peaks_only = true };
    NvmCornerResult res[NVM_FOUR_CORNERS];
    NvmProfile *p;
    double *out;
    unsigned n = 0;

    for (unsigned k = 0; k < d->n_params; k++) {
        Param *q = f->params->pdata[d->params[k]];

        g_ascii_dtostr(num[k], sizeof(num[k]), vals[d->params[k]]);
        g_string_append_printf(key, "|%s", num[k]);
        ov[n++] = q->group;
        ov[n++] = q->key;
        ov[n++] = num[k];
    }
    ov[n] = NULL;
    out = g_hash_table_lookup(f->cache, key->str);
    if (out) {
        g_string_free(key, TRUE);
        return out;
    }
    /* the same key in a part and a drive file cannot both be free: the
     * loader refuses a key set twice */
    p = nvm_profile_load_with(d->name, f->dir, ov, &err);
    out = g_new0(double, NVM_FOUR_CORNERS);
    if (p) {
        nvm_sim_four_corners(p, &so, res);
        for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
            out[w] = res[w].peak.fig.iops;
        }
        nvm_profile_free(p);
    }
    f->evals++;
    g_hash_table_insert(f->cache, g_string_free(key, FALSE), out);
    return out;
}

double fit_row_model(Fit *f, Drive *d, unsigned r, const double *vals)
{
    const NvmReviewRow *row = &g_array_index(f->reviews, NvmReviewRow, r);
    NvmWorkload wl[NVM_FOUR_CORNERS];
    const double *pk = drive_peaks(f, d, vals);

    nvm_four_corners(wl, false);
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        if (!strcmp(wl[w].name, row->workload)) {
            return pk[w];
        }
    }
    return NAN;
}

static bool in_subset(const Subset *s, const Drive *d, unsigned r)
{
    return d->family == s->family && (int)r != s->skip_row &&
           (!s->only || s->only == d);
}

double fit_objective(Fit *f, const Subset *s, const double *vals)
{
    double sum = 0;

    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];

        for (unsigned k = 0; k < d->rows->len; k++) {
            unsigned r = g_array_index(d->rows, unsigned, k);
            const NvmReviewRow *row;
            double m, e;

            if (!in_subset(s, d, r)) {
                continue;
            }
            row = &g_array_index(f->reviews, NvmReviewRow, r);
            m = fit_row_model(f, d, r, vals);
            e = m > 0 ? log(m / row->peak_iops) : 10;
            sum += e * e;
        }
    }
    return sum;
}

/* ------------------------------------------------------------------ */
/* Nelder-Mead over the logarithms of the subset's free parameters */

unsigned fit_subset_params(Fit *f, const Subset *s, unsigned *idx)
{
    unsigned n = 0;

    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];
        bool used = false;

        for (unsigned k = 0; k < d->rows->len && !used; k++) {
            used = in_subset(s, d, g_array_index(d->rows, unsigned, k));
        }
        for (unsigned k = 0; used && k < d->n_params; k++) {
            bool seen = false;

            for (unsigned j = 0; j < n; j++) {
                seen |= idx[j] == d->params[k];
            }
            if (!seen && n < MAX_FREE) {
                idx[n++] = d->params[k];
            }
        }
    }
    return n;
}

static double nm_eval(Fit *f, const Subset *s, const unsigned *idx,
                      unsigned n, const double *x, double *vals)
{
    for (unsigned j = 0; j < n; j++) {
        Param *q = f->params->pdata[idx[j]];
        double v = exp(x[j]);

        vals[idx[j]] = v < q->lo ? q->lo : v > q->hi ? q->hi : v;
    }
    return fit_objective(f, s, vals);
}

/*
 * Minimise the subset's objective from @vals (updated in place).  Returns
 * the objective at the result.
 */
double fit_nelder_mead(Fit *f, const Subset *s, double *vals)
{
    unsigned idx[MAX_FREE];
    unsigned n = fit_subset_params(f, s, idx);
    double x[MAX_FREE + 1][MAX_FREE], fx[MAX_FREE + 1];
    double c[MAX_FREE], xr[MAX_FREE], xe[MAX_FREE], xc[MAX_FREE];
    double *tmp = g_new(double, f->params->len);
    unsigned evals = 0;

    if (!n) {
        double o = fit_objective(f, s, vals);

        g_free(tmp);
        return o;
    }
    memcpy(tmp, vals, sizeof(double) * f->params->len);
    for (unsigned i = 0; i <= n; i++) {
        for (unsigned j = 0; j < n; j++) {
            x[i][j] = log(vals[idx[j]]) + (i == j + 1 ? 0.15 : 0);
        }
        fx[i] = nm_eval(f, s, idx, n, x[i], tmp);
        evals++;
    }
    while (evals < f->max_evals) {
        unsigned best = 0, worst = 0, second;
        double fr;

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
        fr = nm_eval(f, s, idx, n, xr, tmp);
        evals++;
        if (fr < fx[best]) {
            double fe;

            for (unsigned j = 0; j < n; j++) {
                xe[j] = c[j] + 2 * (c[j] - x[worst][j]);
            }
            fe = nm_eval(f, s, idx, n, xe, tmp);
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
            fc = nm_eval(f, s, idx, n, xc, tmp);
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
                    fx[i] = nm_eval(f, s, idx, n, x[i], tmp);
                    evals++;
                }
            }
        }
    }
    {
        unsigned best = 0;
        double o;

        for (unsigned i = 1; i <= n; i++) {
            if (fx[i] < fx[best]) {
                best = i;
            }
        }
        o = nm_eval(f, s, idx, n, x[best], vals);
        g_free(tmp);
        return o;
    }
}
