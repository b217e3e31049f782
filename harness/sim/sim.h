/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simulated-time suites (four corners, SLC cliff) and the reviews' reference
 * table; shared by the nvmimic CLI and the calibration tests.
 */
#ifndef NVMIMIC_SIM_H
#define NVMIMIC_SIM_H

#include "curve.h"

#define NVM_CURVE_POINTS 12     /* 10 % .. 120 % */

typedef struct NvmSimOptions {
    uint64_t seed;
    bool implied_threads;
    double duration_s;          /* measured simulated seconds per point */
    bool peaks_only;
    /*
     * To replay a guest run's schedule (nvmimic run): the curve's points
     * as @n_pcts percentages (NULL: 10..120 %, at most NVM_CURVE_POINTS)
     * of @base_iops (0: the peak just measured), after @idle_ns of idle
     * between the review state and the peak.
     */
    const int *pcts;
    unsigned n_pcts;
    double base_iops;
    uint64_t idle_ns;
    /* the peak's warm-up as the guest ran it (0: a fifth of the point,
     * lengthened for a write by nvm_sim_peak_warmup_ns()) */
    uint64_t peak_warmup_ns;
} NvmSimOptions;

typedef struct NvmCornerResult {
    NvmWorkload wl;
    NvmRunResult peak;
    int target_pct[NVM_CURVE_POINTS];
    double target_iops[NVM_CURVE_POINTS];
    NvmRunResult curve[NVM_CURVE_POINTS];
    unsigned n_curve;
} NvmCornerResult;

/*
 * One point of a suite's workload, for nvm_sim_curves(): the review's span,
 * the warm-up and measured time, the rate (0: closed loop, the peak) and
 * the seed; @k is 0 for the peak, else curve point k - 1 at @pct % of the
 * peak.
 */
typedef struct NvmSimPoint {
    uint64_t span_bytes;
    uint64_t warmup_ns;
    uint64_t duration_ns;
    double rate_iops;
    uint64_t seed;
    unsigned k;
    int pct;
    const NvmRunHook *hook;     /* see curve.h; NULL but under qtest */
    /* how the model was made: its seed, and the idle after the state */
    uint64_t model_seed;
    uint64_t idle_ns;
    bool settle;                /* the peak's warm-up may be lengthened */
} NvmSimPoint;

/* Run @pt of workload @job on @m from *now_ns (advanced to its end), keep
 * its figures, and return its IOPS. */
typedef double (*NvmSimPointFn)(void *job, NvmModel *m, const NvmSimPoint *pt,
                                uint64_t *now_ns);

/*
 * The reviews' method for @n independent workloads, each in a thread of its
 * own on a fresh model of @p in the review's starting state: the
 * closed-loop peak, then (unless o->peaks_only) Poisson points at 10..120 %
 * of it.  Workload i's seeds follow from o->seed and @seed_base + i, so the
 * results do not depend on the threads.  @reads_only[i] (NULL: none) says
 * workload i only reads (nvm_sim_review_state_hook()).
 */
void nvm_sim_curves(const NvmProfile *p, const NvmSimOptions *o, unsigned n,
                    unsigned seed_base, NvmSimPointFn fn, void *const *jobs,
                    const bool *reads_only);

/*
 * One of them, workload @index (seeds as nvm_sim_curves gives it) on @m, a
 * fresh model seeded with o->seed, every model call also told to @hook.
 */
void nvm_sim_curve(const NvmProfile *p, const NvmSimOptions *o,
                   unsigned index, NvmSimPointFn fn, void *job, NvmModel *m,
                   const NvmRunHook *hook, bool reads_only);

/* Put a fresh model into the review's starting state; returns the span. */
void nvm_sim_review_state(NvmModel *m, const NvmProfile *p,
                          uint64_t *span_bytes, uint64_t *now_ns);
/*
 * The same, each step also told to @hook (may be NULL), for a workload
 * that only reads (@reads_only) or one that writes.  On a drive reviewed
 * filled, a workload that writes finds the span at its random-write steady
 * state; one that only reads finds it as the fill laid it out (the reviews'
 * 64K reads are more page reads per second than their 4K reads show the
 * drive can do, were each 4K of them on a page of its own: harness/sim/
 * sim.c).
 */
void nvm_sim_review_state_hook(NvmModel *m, const NvmProfile *p,
                               uint64_t *span_bytes, uint64_t *now_ns,
                               const NvmRunHook *hook, bool reads_only);

/*
 * The length of the point the fit and calibrate time (docs/sim.md, "Point
 * length"): NVM_SIM_LONG_S measured after a fifth of it of warm-up.
 */
#define NVM_SIM_LONG_S 30.0

/*
 * The warm-up of a closed-loop write peak of @point_ns from the review's
 * state (a fresh model of @p seeded @model_seed, @idle_ns of idle, the
 * point's @seed): @base_ns, or longer where a point that short would
 * measure the drive's first seconds.  A drive that starts the review's
 * state with room in its SLC cache or free blocks takes writes faster
 * until that room is spent (the P5 2 TB's 4K write: 512 K IOPS over its
 * first 0.5 s, 182 K over 30 s), and the reviews' points last minutes.  So
 * the run is simulated once for the long point's warm-up and length; the
 * warm-up is the first one, in steps of 0.1 s from @base_ns, after which
 * @point_ns averages within 5 % of the long point's IOPS, at most the long
 * point's warm-up.  Reads, and points at least NVM_SIM_LONG_S long, get
 * @base_ns without a run.
 */
uint64_t nvm_sim_peak_warmup_ns(const NvmProfile *p, const NvmWorkload *wl,
                                uint64_t model_seed, uint64_t idle_ns,
                                uint64_t seed, uint64_t point_ns,
                                uint64_t base_ns);
/* The step in which nvm_sim_peak_warmup_ns() counts completions: 0.1 s. */
#define NVM_SIM_STEP_NS 100000000ULL
/* The long point's warm-up (a fifth of NVM_SIM_LONG_S) in those steps. */
#define NVM_SIM_LONG_WARM_STEPS \
    ((uint64_t)(NVM_SIM_LONG_S / 5 * 1e9) / NVM_SIM_STEP_NS)

/*
 * The long point nvm_sim_peak_warmup_ns() runs (a fresh model of @p
 * seeded @model_seed in the review's state, @idle_ns of idle, @wl
 * closed-loop with @seed for a fifth of NVM_SIM_LONG_S of warm-up and
 * NVM_SIM_LONG_S): its completions in each @step_ns from the state on, in
 * *@n_bins bins.  g_free() the result.
 */
uint64_t *nvm_sim_peak_bins(const NvmProfile *p, const NvmWorkload *wl,
                            uint64_t model_seed, uint64_t idle_ns,
                            uint64_t seed, uint64_t step_ns, uint64_t *n_bins);
/*
 * The most that a window of @len bins, starting at @from or later, strays
 * from the mean of the bins from @from on (a fraction).  A drive whose
 * write rate swings over periods longer than a point (the P5s' 4K writes,
 * fast and slow by turns every 1.5-2.5 s: docs/sim.md, "Point length")
 * cannot be measured by a point that short, whatever its warm-up.
 */
double nvm_sim_peak_swing(const uint64_t *bins, uint64_t n, uint64_t from,
                          uint64_t len);

void nvm_sim_four_corners(const NvmProfile *p, const NvmSimOptions *o,
                          NvmCornerResult res[NVM_FOUR_CORNERS]);
/* Four-corners workload @w (0..3) alone on @m (see nvm_sim_curve). */
void nvm_sim_corner(const NvmProfile *p, const NvmSimOptions *o, unsigned w,
                    NvmModel *m, const NvmRunHook *hook, NvmCornerResult *r);

typedef struct NvmCliffPoint {
    double gb_written;          /* 10^9 bytes, cumulative */
    double mbps;                /* rate over the last step */
    double slc_used_gb;
    double slc_size_gb;
    bool after_idle;
} NvmCliffPoint;

/* Sequential 128 KiB writes over the whole drive, @idle_s of idle, then
 * @after_gb more; one point per @step_gb. */
GArray *nvm_sim_slc_cliff(const NvmProfile *p, uint64_t seed, double step_gb,
                          double idle_s, double after_gb);
/* The same run, stopped after the point that reaches @stop_gb of writes
 * (0: none); its points are the first ones of the whole run. */
GArray *nvm_sim_slc_cliff_until(const NvmProfile *p, uint64_t seed,
                                double step_gb, double idle_s,
                                double after_gb, double stop_gb);

/* An SLC cliff run with its write size and outstanding count stated. */
typedef struct NvmCliffSpec {
    uint64_t seed;
    double step_gb;
    double idle_s;
    double after_gb;
    double stop_gb;             /* 0: none */
    uint32_t block_bytes;       /* a multiple of the profile's LBA size */
    unsigned outstanding;       /* 1..NVM_CLIFF_MAX_QD */
} NvmCliffSpec;

#define NVM_CLIFF_MAX_QD 256

/* nvm_sim_slc_cliff_until() with @spec's block size and outstanding count
 * (the wrappers above: 128 KiB, 8, as the sustained-write tests do). */
GArray *nvm_sim_slc_cliff_run(const NvmProfile *p, const NvmCliffSpec *spec);

/* What a sustained-write test reads off its curve. */
typedef struct NvmCliffSummary {
    double cache_mbps;          /* while the SLC cache lasts */
    double cliff_gb;            /* written when the rate halved; NAN: never */
    double after_mbps;          /* after the cliff; NAN: no such point */
    unsigned n_after;           /* points behind after_mbps */
} NvmCliffSummary;

/*
 * The rule, on the points of the first pass of an nvm_sim_slc_cliff() run
 * (points after the idle are ignored): the cache rate is the mean of the
 * first @lead points; the cliff is where the first point under half of it
 * began; the rate after it is the mean of up to @max_after points (0: all)
 * that start @skip points past that first slow one.
 */
void nvm_sim_cliff_summary(const GArray *pts, unsigned lead, unsigned skip,
                           unsigned max_after, NvmCliffSummary *s);

/*
 * The mean write rate (bytes over time) of the first pass of a cliff run
 * between @from_gb and @to_gb written: the points whose step ends in
 * (from_gb, to_gb].  NAN when no point does.  What a review quotes as
 * "the rate from X GB on" or "the average over the whole fill".
 */
double nvm_sim_cliff_rate(const GArray *pts, double from_gb, double to_gb);

/*
 * A published figure's run, as nvmimic validate times it: a closed loop of
 * @wl for 2 s after 0.5 s of warm-up on a fresh model (seed 1), either in
 * the review's starting state (@filled) or secure-erased with a span of
 * @span_gb (whole MiB), written sequentially once first for a read, as
 * benchmarks that create their test file do.
 */
void nvm_sim_figure_run(const NvmProfile *p, const NvmWorkload *wl,
                        bool filled, double span_gb, NvmRunResult *r);
/* The same with the measured length stated: @seconds after @warmup_s
 * (nvmimic sim --suite point and nvmimic validate). */
void nvm_sim_figure_run_for(const NvmProfile *p, const NvmWorkload *wl,
                            bool filled, double span_gb, double warmup_s,
                            double seconds, NvmRunResult *r);

typedef struct NvmReviewRow {
    char *drive;
    char *workload;
    unsigned stated_threads;
    double peak_iops;
    bool approx;                /* '~' in the review table */
    double lat_us;              /* NAN where lost */
    bool consistent;
} NvmReviewRow;

/* Parse four-corners.tsv; a GArray of NvmReviewRow (free with the func). */
GArray *nvm_reviews_load(const char *path, GError **errp);
void nvm_reviews_free(GArray *rows);
/* Parse vdi-calibration.tsv (the VDI peaks given as calibration data):
 * the same rows, consistent unless the latency is marked '~' (about);
 * errors name the file and line.  Free with nvm_reviews_free. */
GArray *nvm_vdi_reviews_load(const char *path, GError **errp);

/*
 * The most a table of reviews' figures (four-corners.tsv, the VDI figures,
 * validation.tsv) may hold; and a document whose tables the tools rewrite
 * (profiles/README.md, --write, --readme) or a part file they update.
 */
#define NVM_TABLE_MAX_BYTES (1024 * 1024)
#define NVM_DOC_MAX_BYTES (16 * 1024 * 1024)

/*
 * The text file @path into *@text (g_free it): a regular file (not a
 * directory, not /dev/zero) of at most @max_bytes with no NUL byte, or
 * false with one line naming the file.
 */
bool nvm_text_file_load(const char *path, gsize max_bytes, char **text,
                        GError **errp);
/*
 * @s quoted for a one-line error: printable ASCII kept, other bytes as
 * \xNN, at most 40 characters then "...".  g_free it.
 */
char *nvm_quote40(const char *s);

#endif
