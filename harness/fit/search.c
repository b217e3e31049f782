/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic fit's search: the drives of the reviews' tables with the free
 * parameters their files mark ([fit] sections) and the families that
 * share them; each drive's peaks simulated with given values (cached);
 * the sum of squared log errors of peak IOPS over a subset of rows; and
 * the searches of multistart.c over a subset's parameters.  fit.c runs it
 * and writes what it found.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
    if (!p->prior_given) {
        p->prior = p->value;
    }
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

/* The slot of @workload in a drive's figures (FIT_SLOTS); -1 if none. */
static int slot_of(const char *workload)
{
    NvmWorkload wl[NVM_FOUR_CORNERS];
    int v;

    nvm_four_corners(wl, false);
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        if (!strcmp(wl[w].name, workload)) {
            return w;
        }
    }
    v = nvm_vdi_index(workload);
    return v < 0 ? -1 : NVM_FOUR_CORNERS + v;
}

/* The VDI calibration figures (nvm_vdi_reviews_load) after the four
 * corners, each in its workload's slot. */
static bool vdi_load(Fit *f, const char *path, GError **errp)
{
    GArray *rows = nvm_vdi_reviews_load(path, errp);

    if (!rows) {
        return false;
    }
    for (unsigned i = 0; i < rows->len; i++) {
        NvmReviewRow row = g_array_index(rows, NvmReviewRow, i);
        int slot = slot_of(row.workload);

        g_array_append_val(f->reviews, row);
        g_array_append_val(f->slots, slot);
    }
    g_array_free(rows, TRUE);           /* the rows' strings moved */
    return true;
}

bool fit_row_vdi(const Fit *f, unsigned r)
{
    return g_array_index(f->slots, unsigned, r) >= NVM_FOUR_CORNERS;
}

bool fit_load(Fit *f, const char *reviews, const char *vdi, GError **errp)
{
    unsigned *up;

    f->reviews = nvm_reviews_load(reviews, errp);
    if (!f->reviews) {
        return false;
    }
    f->slots = g_array_new(FALSE, FALSE, sizeof(unsigned));
    for (unsigned r = 0; r < f->reviews->len; r++) {
        NvmReviewRow *row = &g_array_index(f->reviews, NvmReviewRow, r);
        int slot = slot_of(row->workload);

        if (slot < 0 || slot >= NVM_FOUR_CORNERS) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: '%s' is not one of the four corners", reviews,
                        row->workload);
            return false;
        }
        g_array_append_val(f->slots, slot);
    }
    if (vdi && !vdi_load(f, vdi, errp)) {
        return false;
    }
    f->drives = g_ptr_array_new();
    f->params = g_ptr_array_new();
    for (unsigned r = 0; r < f->reviews->len; r++) {
        NvmReviewRow *row = &g_array_index(f->reviews, NvmReviewRow, r);
        unsigned slot = g_array_index(f->slots, unsigned, r);
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
            if (slot >= NVM_FOUR_CORNERS) {
                d->vdi[slot - NVM_FOUR_CORNERS] = true;
            }
            continue;
        }
        p = nvm_profile_load(row->drive, f->dir, errp);
        if (!p) {
            return false;
        }
        d = g_new0(Drive, 1);
        d->name = g_strdup(row->drive);
        d->rows = g_array_new(FALSE, FALSE, sizeof(unsigned));
        g_array_append_val(d->rows, r);
        if (slot >= NVM_FOUR_CORNERS) {
            d->vdi[slot - NVM_FOUR_CORNERS] = true;
        }
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
                q->prior_given = p->free_params[k].has_prior;
                q->prior = p->free_params[k].prior;
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
    return true;
}

void fit_free(Fit *f)
{
    for (unsigned i = 0; f->drives && i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];

        g_free(d->name);
        g_array_free(d->rows, TRUE);
        g_free(d);
    }
    for (unsigned i = 0; f->params && i < f->params->len; i++) {
        Param *q = f->params->pdata[i];

        g_free(q->file);
        g_free(q->group);
        g_free(q->key);
        g_free(q);
    }
    if (f->drives) {
        g_ptr_array_free(f->drives, TRUE);
    }
    if (f->params) {
        g_ptr_array_free(f->params, TRUE);
    }
    if (f->slots) {
        g_array_free(f->slots, TRUE);
    }
    if (f->cache) {
        g_hash_table_destroy(f->cache);
    }
    nvm_reviews_free(f->reviews);
    f->drives = f->params = NULL;
    f->slots = f->reviews = NULL;
    f->cache = NULL;
}

/* ------------------------------------------------------------------ */
/* Evaluation: a drive's peaks with the given parameter values */

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

/*
 * The VDI workloads @d has rows of, each on a fresh model as nvmimic sim
 * --suite vdi runs it (nvm_sim_vdi_one: the same seeds), peak only; into
 * out[slot] (IOPS) and out[FIT_SLOTS + slot] (latency).
 */
static void drive_vdi(Fit *f, Drive *d, const NvmProfile *p,
                      const NvmSimOptions *so, double *out)
{
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    g_autoptr(GError) err = NULL;
    double t0 = cpu_s();
    bool any = false;

    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        any |= d->vdi[w];
    }
    if (!any) {
        return;
    }
    if (!nvm_vdi_load(p, f->workloads, res, &err)) {
        fprintf(stderr, "nvmimic fit: %s\n", err->message);
        return;
    }
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        NvmModel *m;

        if (!d->vdi[w]) {
            continue;
        }
        m = nvm_model_new(p, so->seed);
        nvm_sim_vdi_one(p, so, w, m, NULL, &res[w]);
        nvm_model_free(m);
        out[NVM_FOUR_CORNERS + w] = res[w].peak.all.fig.iops;
        out[FIT_SLOTS + NVM_FOUR_CORNERS + w] = res[w].peak.all.fig.lat_us;
        f->vdi_sims++;
    }
    nvm_vdi_results_clear(res);
    f->vdi_cpu_s += cpu_s() - t0;
}

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
    out = g_new0(double, 2 * FIT_SLOTS);
    if (p) {
        double t0 = cpu_s();

        nvm_sim_four_corners(p, &so, res);
        for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
            out[w] = res[w].peak.fig.iops;
            out[FIT_SLOTS + w] = res[w].peak.fig.lat_us;
        }
        f->fc_cpu_s += cpu_s() - t0;
        drive_vdi(f, d, p, &so, out);
        nvm_profile_free(p);
    } else {
        fprintf(stderr, "nvmimic fit: %s\n", err->message);
    }
    f->evals++;
    g_hash_table_insert(f->cache, g_string_free(key, FALSE), out);
    return out;
}

double fit_row_model(Fit *f, Drive *d, unsigned r, const double *vals)
{
    return drive_peaks(f, d, vals)[g_array_index(f->slots, unsigned, r)];
}

double fit_row_lat(Fit *f, Drive *d, unsigned r, const double *vals)
{
    return drive_peaks(f, d, vals)[FIT_SLOTS +
                                   g_array_index(f->slots, unsigned, r)];
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
            /*
             * IOPS only, VDI rows too: a VDI peak is closed-loop at the job
             * file's fixed depth, so its latency is that depth / IOPS
             * (Little's law) and carries no figure of its own; fitted too,
             * it would pull IOPS off by half the gap between the job
             * file's depth and the review's (32 against 34 for boot).
             */
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


unsigned fit_subset_rows(Fit *f, const Subset *s)
{
    unsigned n = 0;

    for (unsigned i = 0; i < f->drives->len; i++) {
        Drive *d = f->drives->pdata[i];

        for (unsigned k = 0; k < d->rows->len; k++) {
            n += in_subset(s, d, g_array_index(d->rows, unsigned, k));
        }
    }
    return n;
}

/* The objective over a subset's parameters, for multistart.c. */
typedef struct SearchCtx {
    Fit *f;
    const Subset *s;
    unsigned idx[MAX_FREE], n;
    double *vals;               /* every parameter; the subset's set here */
} SearchCtx;

static double search_fn(void *opaque, const double *v)
{
    SearchCtx *c = opaque;

    for (unsigned j = 0; j < c->n; j++) {
        c->vals[c->idx[j]] = v[j];
    }
    return fit_objective(c->f, c->s, c->vals);
}

static void search_init(Fit *f, const Subset *s, double *vals, SearchCtx *c,
                        NvmSearch *ns)
{
    *c = (SearchCtx){ .f = f, .s = s, .vals = vals };
    c->n = fit_subset_params(f, s, c->idx);
    *ns = (NvmSearch){ .n = c->n, .fn = search_fn, .ctx = c,
                       .max_evals = f->max_evals, .step = 0.15,
                       /* 1 % of log error per row: seed and rounding */
                       .flat_abs = fit_subset_rows(f, s) * 1e-4 };
    for (unsigned j = 0; j < c->n; j++) {
        Param *q = f->params->pdata[c->idx[j]];

        ns->lo[j] = q->lo;
        ns->hi[j] = q->hi;
    }
}

double fit_nelder_mead(Fit *f, const Subset *s, double *vals)
{
    SearchCtx c;
    NvmSearch ns;
    double v[MAX_FREE];

    search_init(f, s, vals, &c, &ns);
    for (unsigned j = 0; j < c.n; j++) {
        v[j] = vals[c.idx[j]];
    }
    return nvm_nelder_mead(&ns, v);
}

double fit_multistart(Fit *f, const Subset *s, double *vals,
                      NvmMultiResult *r)
{
    SearchCtx c;
    NvmSearch ns;
    double v[MAX_FREE], prior[MAX_FREE], o;

    search_init(f, s, vals, &c, &ns);
    /* from afar: a wider first simplex, the cross-validation's budget */
    ns.step = 0.3;
    ns.max_evals = f->start_evals;
    for (unsigned j = 0; j < c.n; j++) {
        prior[j] = ((Param *)f->params->pdata[c.idx[j]])->prior;
    }
    o = nvm_multistart(&ns, prior, f->n_starts, v, r);
    for (unsigned j = 0; j < c.n; j++) {
        vals[c.idx[j]] = v[j];
    }
    return o;
}
