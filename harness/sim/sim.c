/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reviews' methodology in simulated time: starting state, unthrottled
 * peak, then Poisson points at 10..120 % of it; and the SLC cliff run.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "sim.h"
#include "vdi.h"

void nvm_sim_review_state(NvmModel *m, const NvmProfile *p,
                          uint64_t *span_bytes, uint64_t *now_ns)
{
    nvm_sim_review_state_hook(m, p, span_bytes, now_ns, NULL, false);
}

void nvm_sim_review_state_hook(NvmModel *m, const NvmProfile *p,
                               uint64_t *span_bytes, uint64_t *now_ns,
                               const NvmRunHook *hook, bool reads_only)
{
    uint64_t span = (uint64_t)(p->capacity_bytes * p->review_span_pct /
                               100.0);
    bool hooked = hook && hook->set_state;
    uint64_t steady = 0;

    span -= span % (1024 * 1024);
    *span_bytes = span;
    if (p->review_state == NVM_REVIEW_FILLED) {
        /*
         * The fill ends with the SLC cache full; for a workload that
         * writes, the span has been rewritten at random by the earlier
         * tests (each corner runs 13 points), so GC is at its steady state.
         * A workload that only reads finds the span laid out in order, as
         * the fill (or a sequential write) left it: the reviews' own peaks
         * say so.  The P5 1 TB's 4K random reads peak at 225,819 IOPS
         * (NAND-bound: the 2 TB, twice the dies, does 375,545), so it
         * serves about that many page reads a second; its 64K reads peak
         * at 29,173 IOPS, which over a span rewritten 4K at a time would
         * be 16 page reads each, 467,000 a second.  With [ftl]
         * read-placement = ftl the model times reads where the data lies,
         * and over the scattered span it gave that row about 13,700.  (With
         * read-placement = lba the two states time reads alike.)
         */
        nvm_model_set_fill(m, 100.0, NULL);
        nvm_model_set_slc_used(m, p->slc_static_bytes, NULL);
        if (hooked) {
            hook->set_state(hook->opaque, false, 100.0,
                            (int64_t)p->slc_static_bytes, *now_ns);
        }
        if (!reads_only) {
            nvm_model_set_steady_random(m, 0, span, NULL);
            steady = span;
        }
        /*
         * After the steady state, as the device sets it: a simulated one
         * ([review] steady-state = simulated) quiesces the pipeline, which
         * would put the cores' clock gating back at 0, so a state set at
         * 40 ms woke the P2 2 TB's core for its first command (6 us)
         * where one set at 0 did not
         */
        nvm_model_state_at(m, *now_ns);
    } else {
        /* Secure erase, then the span is written once before the tests. */
        nvm_model_secure_erase(m);
        nvm_model_state_at(m, *now_ns);
        if (hooked) {
            hook->set_state(hook->opaque, true, -1, -1, *now_ns);
        }
        nvm_curve_precondition_hook(m, 0, span, p->lba_bytes, now_ns, hook);
    }
    /* a review's point lasts minutes: the map cache has seen the span */
    nvm_model_warm_map(m, 0, span);
    if (hook && hook->review) {
        hook->review(hook->opaque, steady, span, *now_ns);
    }
    nvm_run_reset_stats(m, hook, *now_ns);
}

typedef struct CurveThread {
    const NvmProfile *p;
    const NvmSimOptions *o;
    unsigned index;             /* in the seeds: the suite's base + i */
    NvmSimPointFn fn;
    void *job;
    bool reads_only;
} CurveThread;

void nvm_sim_curve(const NvmProfile *p, const NvmSimOptions *o,
                   unsigned index, NvmSimPointFn fn, void *job, NvmModel *m,
                   const NvmRunHook *hook, bool reads_only)
{
    uint64_t dur = (uint64_t)(o->duration_s * 1e9);
    uint64_t now = 0, span;
    NvmSimPoint pt = {
        .warmup_ns = o->peak_warmup_ns ? o->peak_warmup_ns : dur / 5,
        .settle = !o->peak_warmup_ns,
        .duration_ns = dur,
        .seed = o->seed * 7919 + index,
        .hook = hook,
        .model_seed = o->seed,
        .idle_ns = o->idle_ns,
    };
    double peak;

    nvm_sim_review_state_hook(m, p, &span, &now, hook, reads_only);
    now += o->idle_ns;
    pt.span_bytes = span;
    peak = fn(job, m, &pt, &now);
    if (o->base_iops > 0) {
        peak = o->base_iops;
    }
    for (unsigned i = 0; !o->peaks_only && i < (o->pcts ?
                         MIN(o->n_pcts, NVM_CURVE_POINTS) : NVM_CURVE_POINTS);
         i++) {
        pt.k = i + 1;
        pt.pct = o->pcts ? o->pcts[i] : (int)(10 * (i + 1));
        pt.rate_iops = nvm_curve_rate(peak, pt.pct);
        pt.warmup_ns = dur / 10;
        pt.seed = o->seed * 7919 + index * 131 + i + 1;
        fn(job, m, &pt, &now);
    }
}

/* One workload from a fresh model in the review state; independent of the
 * others, so they run in parallel and the results do not depend on it. */
static gpointer curve_thread(gpointer data)
{
    CurveThread *t = data;
    NvmModel *m = nvm_model_new(t->p, t->o->seed);

    nvm_sim_curve(t->p, t->o, t->index, t->fn, t->job, m, NULL,
                  t->reads_only);
    nvm_model_free(m);
    return NULL;
}

void nvm_sim_curves(const NvmProfile *p, const NvmSimOptions *o, unsigned n,
                    unsigned seed_base, NvmSimPointFn fn, void *const *jobs,
                    const bool *reads_only)
{
    CurveThread *t = g_new(CurveThread, n);
    GThread **threads = g_new(GThread *, n);

    for (unsigned i = 0; i < n; i++) {
        t[i] = (CurveThread){ p, o, seed_base + i, fn, jobs[i],
                              reads_only && reads_only[i] };
        threads[i] = g_thread_new("curve", curve_thread, &t[i]);
    }
    for (unsigned i = 0; i < n; i++) {
        g_thread_join(threads[i]);
    }
    g_free(threads);
    g_free(t);
}

#define NVM_SETTLE_TOL 0.05

typedef struct SettleBins {
    uint64_t t0, step, n;
    uint64_t *done;             /* completions per step */
} SettleBins;

static void settle_submitted(void *opaque, const NvmCmd *cmd G_GNUC_UNUSED,
                             uint64_t t_ns G_GNUC_UNUSED, uint64_t done_ns)
{
    SettleBins *b = opaque;
    uint64_t i = (done_ns - b->t0) / b->step;

    if (done_ns >= b->t0 && i < b->n) {
        b->done[i]++;
    }
}

uint64_t *nvm_sim_peak_bins(const NvmProfile *p, const NvmWorkload *wl,
                            uint64_t model_seed, uint64_t idle_ns,
                            uint64_t seed, uint64_t step_ns, uint64_t *n_bins)
{
    const uint64_t long_ns = (uint64_t)(NVM_SIM_LONG_S * 1e9);
    const uint64_t long_warm = long_ns / 5;
    uint64_t now = 0, span;
    NvmModel *m = nvm_model_new(p, model_seed);
    SettleBins b = { .step = step_ns };
    NvmRunHook hook = { .opaque = &b, .submitted = settle_submitted };
    NvmRunSpec spec;
    NvmRunResult res;

    nvm_sim_review_state(m, p, &span, &now);
    now += idle_ns;
    b.t0 = now;
    b.n = (long_warm + long_ns) / step_ns;
    b.done = g_new0(uint64_t, b.n);
    spec = (NvmRunSpec){
        .wl = wl, .lba_bytes = p->lba_bytes, .span_bytes = span,
        .duration_ns = long_warm + long_ns, .hook = &hook,
    };
    nvm_curve_run(m, &spec, seed, &now, &res);
    nvm_model_free(m);
    *n_bins = b.n;
    return b.done;
}

/* The mean of @bins from @from on, in completions per bin. */
static double bins_mean(const uint64_t *bins, uint64_t n, uint64_t from)
{
    uint64_t total = 0;

    for (uint64_t i = from; i < n; i++) {
        total += bins[i];
    }
    return (double)total / (n - from);
}

/* The mean of @len bins from @w (those before @n). */
static double window_mean(const uint64_t *bins, uint64_t n, uint64_t w,
                          uint64_t len)
{
    uint64_t total = 0;

    for (uint64_t i = w; i < w + len && i < n; i++) {
        total += bins[i];
    }
    return (double)total / len;
}

double nvm_sim_peak_swing(const uint64_t *bins, uint64_t n, uint64_t from,
                          uint64_t len)
{
    double ref = bins_mean(bins, n, from), swing = 0;

    for (uint64_t w = from; w + len <= n; w++) {
        swing = MAX(swing, fabs(window_mean(bins, n, w, len) - ref) / ref);
    }
    return swing;
}

uint64_t nvm_sim_peak_warmup_ns(const NvmProfile *p, const NvmWorkload *wl,
                                uint64_t model_seed, uint64_t idle_ns,
                                uint64_t seed, uint64_t point_ns,
                                uint64_t base_ns)
{
    const uint64_t long_ns = (uint64_t)(NVM_SIM_LONG_S * 1e9);
    const uint64_t long_warm = long_ns / 5;
    const uint64_t warm_steps = NVM_SIM_LONG_WARM_STEPS;
    uint64_t len = point_ns / NVM_SIM_STEP_NS, n, result = long_warm;
    uint64_t *done;
    double ref;

    if (wl->op != NVM_OP_WRITE || point_ns >= long_ns || base_ns >= long_warm
        || len == 0) {
        return base_ns;
    }
    done = nvm_sim_peak_bins(p, wl, model_seed, idle_ns, seed,
                             NVM_SIM_STEP_NS, &n);
    /* the long point's completions per step, then the short one's */
    ref = bins_mean(done, n, warm_steps);
    for (uint64_t w = base_ns / NVM_SIM_STEP_NS; w < warm_steps; w++) {
        if (fabs(window_mean(done, n, w, len) - ref) <=
            NVM_SETTLE_TOL * ref) {
            result = MAX(base_ns, w * NVM_SIM_STEP_NS);
            break;
        }
    }
    g_free(done);
    return result;
}

typedef struct CornerJob {
    const NvmProfile *p;
    NvmCornerResult *r;
} CornerJob;

static double corner_point(void *job, NvmModel *m, const NvmSimPoint *pt,
                           uint64_t *now_ns)
{
    CornerJob *j = job;
    NvmCornerResult *r = j->r;
    NvmRunSpec spec = {
        .wl = &r->wl,
        .lba_bytes = j->p->lba_bytes,
        .span_bytes = pt->span_bytes,
        .warmup_ns = pt->warmup_ns,
        .duration_ns = pt->duration_ns,
        .rate_iops = pt->rate_iops,
        .hook = pt->hook,
    };
    NvmRunResult *out = pt->k ? &r->curve[pt->k - 1] : &r->peak;

    if (!pt->k && pt->settle && pt->rate_iops <= 0) {
        spec.warmup_ns = nvm_sim_peak_warmup_ns(j->p, &r->wl, pt->model_seed,
                                                pt->idle_ns, pt->seed,
                                                pt->duration_ns,
                                                pt->warmup_ns);
    }

    nvm_curve_run(m, &spec, pt->seed, now_ns, out);
    if (pt->k) {
        r->target_pct[pt->k - 1] = pt->pct;
        r->target_iops[pt->k - 1] = pt->rate_iops;
        r->n_curve = pt->k;
    }
    return out->fig.iops;
}

void nvm_sim_four_corners(const NvmProfile *p, const NvmSimOptions *o,
                          NvmCornerResult res[NVM_FOUR_CORNERS])
{
    NvmWorkload wl[NVM_FOUR_CORNERS];
    CornerJob jobs[NVM_FOUR_CORNERS];
    void *ptrs[NVM_FOUR_CORNERS];
    bool reads[NVM_FOUR_CORNERS];

    nvm_four_corners(wl, o->implied_threads);
    for (unsigned w = 0; w < NVM_FOUR_CORNERS; w++) {
        memset(&res[w], 0, sizeof(res[w]));
        res[w].wl = wl[w];
        jobs[w] = (CornerJob){ p, &res[w] };
        ptrs[w] = &jobs[w];
        reads[w] = wl[w].op == NVM_OP_READ;
    }
    nvm_sim_curves(p, o, NVM_FOUR_CORNERS, 0, corner_point, ptrs, reads);
}

void nvm_sim_corner(const NvmProfile *p, const NvmSimOptions *o, unsigned w,
                    NvmModel *m, const NvmRunHook *hook, NvmCornerResult *r)
{
    NvmWorkload wl[NVM_FOUR_CORNERS];
    CornerJob job = { p, r };

    nvm_four_corners(wl, o->implied_threads);
    memset(r, 0, sizeof(*r));
    r->wl = wl[w];
    nvm_sim_curve(p, o, w, corner_point, &job, m, hook,
                  wl[w].op == NVM_OP_READ);
}

GArray *nvm_sim_slc_cliff(const NvmProfile *p, uint64_t seed, double step_gb,
                          double idle_s, double after_gb)
{
    return nvm_sim_slc_cliff_until(p, seed, step_gb, idle_s, after_gb, 0);
}

GArray *nvm_sim_slc_cliff_until(const NvmProfile *p, uint64_t seed,
                                double step_gb, double idle_s,
                                double after_gb, double stop_gb)
{
    NvmCliffSpec spec = {
        .seed = seed, .step_gb = step_gb, .idle_s = idle_s,
        .after_gb = after_gb, .stop_gb = stop_gb,
        .block_bytes = 128 * 1024, .outstanding = 8,
    };

    return nvm_sim_slc_cliff_run(p, &spec);
}

GArray *nvm_sim_slc_cliff_run(const NvmProfile *p, const NvmCliffSpec *spec)
{
    GArray *pts = g_array_new(FALSE, TRUE, sizeof(NvmCliffPoint));
    NvmModel *m = nvm_model_new(p, spec->seed);
    const uint32_t bs = spec->block_bytes;
    const unsigned qd = spec->outstanding;
    uint64_t inflight[NVM_CLIFF_MAX_QD] = { 0 };
    uint64_t now = 0;
    uint64_t step = (uint64_t)(spec->step_gb * 1e9);
    uint64_t total = p->capacity_bytes - p->capacity_bytes % bs;
    uint64_t after = (uint64_t)(spec->after_gb * 1e9);
    uint64_t stop = spec->stop_gb > 0 ? (uint64_t)(spec->stop_gb * 1e9)
                                      : UINT64_MAX;
    double idle_s = spec->idle_s;
    uint64_t written = 0, mark = 0, mark_t;
    uint64_t off = 0, i = 0;
    bool idle_done = false;
    NvmCmd cmd = { .op = NVM_OP_WRITE, .nlb = bs / p->lba_bytes };
    NvmStats *st = g_new(NvmStats, 1);

    /*
     * The published sustained-write tests start from an empty drive: a
     * filled one (the four corners' state of a TLC drive) has only its
     * static SLC left and would show no cliff.
     */
    nvm_model_secure_erase(m);
    mark_t = now;
    for (;;) {
        uint64_t *slot = &inflight[i++ % qd];
        uint64_t t = *slot > now ? *slot : now;

        if (!idle_done && written >= total) {
            /* Drain, idle, then write again from the start. */
            for (unsigned k = 0; k < qd; k++) {
                t = inflight[k] > t ? inflight[k] : t;
            }
            now = t + (uint64_t)(idle_s * 1e9);
            for (unsigned k = 0; k < qd; k++) {
                inflight[k] = now;
            }
            idle_done = true;
            off = 0;
            mark = written;
            mark_t = now;
            continue;
        }
        if (idle_done && written >= total + after) {
            break;
        }
        now = t;
        cmd.slba = off / p->lba_bytes;
        *slot = nvm_model_submit(m, &cmd, now);
        off = off + bs >= total ? 0 : off + bs;
        written += bs;
        if (written - mark >= step) {
            NvmCliffPoint pt;
            uint64_t done = *slot;

            nvm_model_get_stats(m, done, st);
            pt.gb_written = written / 1e9;
            pt.mbps = (written - mark) / ((done - mark_t) / 1e9) / 1e6;
            pt.slc_used_gb = st->slc_used_bytes / 1e9;
            pt.slc_size_gb = st->slc_size_bytes / 1e9;
            pt.after_idle = idle_done;
            g_array_append_val(pts, pt);
            mark = written;
            mark_t = done;
            if (written >= stop) {
                break;
            }
        }
    }
    g_free(st);
    nvm_model_free(m);
    return pts;
}

void nvm_sim_cliff_summary(const GArray *pts, unsigned lead, unsigned skip,
                           unsigned max_after, NvmCliffSummary *s)
{
    const NvmCliffPoint *pt = (const NvmCliffPoint *)(void *)pts->data;
    unsigned n = 0, slow = 0;
    double sum = 0;

    while (n < pts->len && !pt[n].after_idle) {
        n++;                    /* the first pass */
    }
    *s = (NvmCliffSummary){ .cache_mbps = NAN, .cliff_gb = NAN,
                            .after_mbps = NAN };
    if (!lead || n < lead) {
        return;
    }
    s->cache_mbps = 0;
    for (unsigned i = 0; i < lead; i++) {
        s->cache_mbps += pt[i].mbps / lead;
    }
    for (slow = lead; slow < n && pt[slow].mbps >= s->cache_mbps / 2;
         slow++) {
        /* still in the cache */
    }
    if (slow == n) {
        return;
    }
    s->cliff_gb = pt[slow - 1].gb_written;
    for (unsigned i = slow + 1 + skip;
         i < n && (!max_after || s->n_after < max_after); i++) {
        sum += pt[i].mbps;
        s->n_after++;
    }
    if (s->n_after) {
        s->after_mbps = sum / s->n_after;
    }
}

double nvm_sim_cliff_rate(const GArray *pts, double from_gb, double to_gb)
{
    const NvmCliffPoint *pt = (const NvmCliffPoint *)(void *)pts->data;
    double gb = 0, secs = 0;

    for (unsigned i = 0; i < pts->len && !pt[i].after_idle; i++) {
        double start = i ? pt[i - 1].gb_written : 0;
        double step = pt[i].gb_written - start;

        /* each point's rate is over the bytes since the one before */
        if (pt[i].gb_written > from_gb + 1e-9 &&
            pt[i].gb_written <= to_gb + 1e-9 && pt[i].mbps > 0) {
            gb += step;
            secs += step * 1e3 / pt[i].mbps;
        }
    }
    return secs > 0 ? gb * 1e3 / secs : NAN;
}

void nvm_sim_figure_run(const NvmProfile *p, const NvmWorkload *wl,
                        bool filled, double span_gb, NvmRunResult *r)
{
    nvm_sim_figure_run_for(p, wl, filled, span_gb, 0.5, 2.0, r);
}

void nvm_sim_figure_run_for(const NvmProfile *p, const NvmWorkload *wl,
                            bool filled, double span_gb, double warmup_s,
                            double seconds, NvmRunResult *r)
{
    NvmRunSpec spec = {
        .wl = wl, .lba_bytes = p->lba_bytes,
        .warmup_ns = (uint64_t)(warmup_s * 1e9),
        .duration_ns = (uint64_t)(seconds * 1e9),
    };
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t now = 0, span;

    if (filled) {
        nvm_sim_review_state_hook(m, p, &span, &now, NULL,
                                  wl->op == NVM_OP_READ);
    } else {
        span = (uint64_t)(span_gb * 1e9);
        span -= span % (1 << 20);
        nvm_model_secure_erase(m);
        if (wl->op == NVM_OP_READ) {
            nvm_curve_precondition(m, 0, span, p->lba_bytes, &now);
        }
    }
    spec.span_bytes = span;
    nvm_curve_run(m, &spec, 1, &now, r);
    nvm_model_free(m);
}

void nvm_reviews_free(GArray *rows)
{
    if (!rows) {
        return;
    }
    for (unsigned i = 0; i < rows->len; i++) {
        NvmReviewRow *r = &g_array_index(rows, NvmReviewRow, i);

        g_free(r->drive);
        g_free(r->workload);
    }
    g_array_free(rows, TRUE);
}

static int col_index(char **hdr, const char *name)
{
    for (int i = 0; hdr[i]; i++) {
        if (!strcmp(hdr[i], name)) {
            return i;
        }
    }
    return -1;
}

/* The whole of @v as a finite number above 0 */
static bool positive_number(const char *v, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(v, &end);
    return !errno && end != v && !*end && isfinite(*out) && *out > 0 &&
           !strpbrk(v, "xX");
}

GArray *nvm_reviews_load(const char *path, GError **errp)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    g_auto(GStrv) hdr = NULL;
    GArray *rows;
    int c_drive = -1, c_wl = -1, c_thr = -1, c_iops = -1, c_lat = -1;
    int c_cons = -1;
    unsigned n = 0;

    if (!nvm_text_file_load(path, NVM_TABLE_MAX_BYTES, &text, errp)) {
        return NULL;
    }
    rows = g_array_new(FALSE, TRUE, sizeof(NvmReviewRow));
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        g_auto(GStrv) f = NULL;
        NvmReviewRow r = { 0 };
        const char *iops, *bad = NULL, *val = NULL;
        double thr;

        n++;
        if (!**l || **l == '#') {
            continue;
        }
        if (!hdr) {
            hdr = g_strsplit(*l, "\t", -1);
            c_drive = col_index(hdr, "drive");
            c_wl = col_index(hdr, "workload");
            c_thr = col_index(hdr, "stated_threads");
            c_iops = col_index(hdr, "peak_iops");
            c_lat = col_index(hdr, "lat_us");
            c_cons = col_index(hdr, "consistent");
            if (c_drive < 0 || c_wl < 0 || c_thr < 0 || c_iops < 0 ||
                c_lat < 0 || c_cons < 0) {
                g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                            "%s:%u: the header lacks a needed column "
                            "(drive, workload, stated_threads, peak_iops, "
                            "lat_us, consistent)", path, n);
                nvm_reviews_free(rows);
                return NULL;
            }
            continue;
        }
        f = g_strsplit(*l, "\t", -1);
        if (g_strv_length(f) != g_strv_length(hdr)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: %u columns, the header has %u", path, n,
                        g_strv_length(f), g_strv_length(hdr));
            nvm_reviews_free(rows);
            return NULL;
        }
        iops = f[c_iops];
        r.approx = iops[0] == '~';
        r.lat_us = NAN;
        if (!positive_number(iops + (r.approx ? 1 : 0), &r.peak_iops)) {
            bad = "peak_iops", val = iops;
        } else if (strcmp(f[c_lat], "-") &&
                   !positive_number(f[c_lat], &r.lat_us)) {
            bad = "lat_us", val = f[c_lat];
        } else if (!positive_number(f[c_thr], &thr) || thr != floor(thr) ||
                   thr > 100000) {
            bad = "stated_threads", val = f[c_thr];
        } else if (strcmp(f[c_cons], "y") && strcmp(f[c_cons], "n") &&
                   strcmp(f[c_cons], "-")) {
            bad = "consistent", val = f[c_cons];
        } else if (!*f[c_drive] || !*f[c_wl]) {
            bad = *f[c_drive] ? "workload" : "drive", val = "";
        }
        if (bad) {
            g_autofree char *q = nvm_quote40(val);

            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: column %s: \"%s\" is not a value it takes",
                        path, n, bad, q);
            nvm_reviews_free(rows);
            return NULL;
        }
        r.consistent = f[c_cons][0] == 'y';
        r.stated_threads = (unsigned)thr;
        r.drive = g_strdup(f[c_drive]);
        r.workload = g_strdup(f[c_wl]);
        g_array_append_val(rows, r);
    }
    if (!rows->len) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    hdr ? "%s: no rows after the header" : "%s: no header",
                    path);
        nvm_reviews_free(rows);
        return NULL;
    }
    return rows;
}

/*
 * vdi-calibration.tsv: '#' comments, a header, then drive, workload (one
 * of the VDI suite's), peak IOPS, latency in us ('~': about, then the row
 * is not "consistent"), a note.
 */
GArray *nvm_vdi_reviews_load(const char *path, GError **errp)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    GArray *rows;
    bool header = false;
    unsigned line = 0;

    if (!nvm_text_file_load(path, NVM_TABLE_MAX_BYTES, &text, errp)) {
        return NULL;
    }
    rows = g_array_new(FALSE, TRUE, sizeof(NvmReviewRow));
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        g_auto(GStrv) c = NULL;
        NvmReviewRow row = { 0 };
        const char *lat;

        line++;
        if (!**l || **l == '#') {
            continue;
        }
        if (!header) {
            header = true;
            continue;
        }
        c = g_strsplit(*l, "\t", -1);
        if (g_strv_length(c) < 4) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: %u columns; drive, workload, peak_iops, "
                        "lat_us wanted", path, line, g_strv_length(c));
            goto fail;
        }
        if (nvm_vdi_index(c[1]) < 0) {
            g_autofree char *q = nvm_quote40(c[1]);

            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: '%s' is not a VDI workload", path, line, q);
            goto fail;
        }
        if (!positive_number(c[2], &row.peak_iops)) {
            g_autofree char *q = nvm_quote40(c[2]);

            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: peak_iops '%s' is not a positive number",
                        path, line, q);
            goto fail;
        }
        lat = c[3];
        row.consistent = lat[0] != '~';
        lat += lat[0] == '~';
        if (!positive_number(lat, &row.lat_us)) {
            g_autofree char *q = nvm_quote40(c[3]);

            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: lat_us '%s' is not a positive number",
                        path, line, q);
            goto fail;
        }
        row.drive = g_strdup(c[0]);
        row.workload = g_strdup(c[1]);
        g_array_append_val(rows, row);
    }
    return rows;
fail:
    nvm_reviews_free(rows);
    return NULL;
}

bool nvm_text_file_load(const char *path, gsize max_bytes, char **text,
                        GError **errp)
{
    GStatBuf st;
    gsize len;
    const char *nul;

    *text = NULL;
    /* one that cannot be stat'ed fails below, as g_file_get_contents says */
    if (g_stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: not a regular file", path);
            return false;
        }
        if ((guint64)st.st_size > max_bytes) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: %" G_GUINT64_FORMAT " bytes, more than the %"
                        G_GSIZE_FORMAT " such a file may hold", path,
                        (guint64)st.st_size, max_bytes);
            return false;
        }
    }
    if (!g_file_get_contents(path, text, &len, errp)) {
        return false;
    }
    nul = memchr(*text, '\0', len);
    if (nul) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: a NUL byte at offset %td: not a text file", path,
                    nul - *text);
        g_free(*text);
        *text = NULL;
        return false;
    }
    return true;
}

char *nvm_quote40(const char *s)
{
    GString *q = g_string_new(NULL);

    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (q->len >= 40) {
            g_string_append(q, "...");
            break;
        }
        if (*c >= 0x20 && *c < 0x7f && *c != '\\') {
            g_string_append_c(q, *c);
        } else {
            g_string_append_printf(q, "\\x%02x", *c);
        }
    }
    return g_string_free(q, FALSE);
}
