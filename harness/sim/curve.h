/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Load generation in simulated time: closed-loop peak runs and open-loop
 * Poisson points at a percentage of that peak, as the reviews' vdbench runs.
 */
#ifndef NVMIMIC_CURVE_H
#define NVMIMIC_CURVE_H

#include "nvmimic-model.h"
#include "fig.h"

typedef struct NvmWorkload {
    const char *name;           /* e.g. "4k-random-read" */
    NvmOp op;                   /* NVM_OP_READ or NVM_OP_WRITE */
    uint32_t block_bytes;
    /*
     * Sequential: one stream the threads share, each I/O taking the next
     * block.  vdbench's user guide (5.04.07, seekpct=) runs a 100 %
     * sequential workload on one JVM only, because several JVMs would each
     * read the same blocks ("1,1,1,2,2,2,3,3,3"): the threads within the
     * one JVM share its stream.  Else uniform random.
     */
    bool sequential;
    unsigned threads;           /* outstanding I/Os (vdbench threads) */
} NvmWorkload;

/*
 * An observer of a run: every submission, statistics reset and statistics
 * read the driver makes on the model, with its simulated time, in time
 * order.  The qtest engine replays them through the emulated device at the
 * same virtual times.  Every member may be NULL.
 */
typedef struct NvmRunHook {
    void *opaque;
    /* the model was secure-erased / filled to @fill_pct (>= 0) / had
     * @slc_used_bytes (>= 0) of SLC cache in use, at @t_ns */
    void (*set_state)(void *opaque, bool erase, double fill_pct,
                      int64_t slc_used_bytes, uint64_t t_ns);
    /* the first @steady_bytes (> 0) were put in GC's random-write steady
     * state after a fill, and the map cache warmed over the first
     * @warm_bytes, at @t_ns */
    void (*review)(void *opaque, uint64_t steady_bytes, uint64_t warm_bytes,
                   uint64_t t_ns);
    /* @cmd went to the model at @t_ns; the model completes it at @done_ns */
    void (*submitted)(void *opaque, const NvmCmd *cmd, uint64_t t_ns,
                      uint64_t done_ns);
    void (*reset_stats)(void *opaque, uint64_t t_ns);
    /* the model's statistics @st were read at @t_ns */
    void (*stats)(void *opaque, uint64_t t_ns, const NvmStats *st);
} NvmRunHook;

/* The model calls of a driver, each also told to @hook (may be NULL). */
uint64_t nvm_run_submit(NvmModel *m, const NvmRunHook *hook,
                        const NvmCmd *cmd, uint64_t t_ns);
void nvm_run_reset_stats(NvmModel *m, const NvmRunHook *hook, uint64_t t_ns);
void nvm_run_get_stats(const NvmModel *m, const NvmRunHook *hook,
                       uint64_t t_ns, NvmStats *st);

typedef struct NvmRunSpec {
    const NvmWorkload *wl;
    uint32_t lba_bytes;
    uint64_t span_start_bytes;
    uint64_t span_bytes;
    uint64_t warmup_ns;         /* run, then discard */
    uint64_t duration_ns;       /* measured */
    double rate_iops;           /* 0: closed loop (unthrottled) */
    const NvmRunHook *hook;     /* optional */
} NvmRunSpec;

typedef struct NvmRunResult {
    NvmFig fig;                 /* over the measured time */
    uint64_t ios;               /* the I/Os it measured */
} NvmRunResult;

/* The four corners of the reviews, and their outstanding counts. */
#define NVM_FOUR_CORNERS 4
void nvm_four_corners(NvmWorkload wl[NVM_FOUR_CORNERS], bool implied_threads);

/* Rate of one point of a curve: @pct percent of @peak_iops. */
double nvm_curve_rate(double peak_iops, int pct);
/* Rate each of @threads jobs runs at (vdbench splits the rate evenly). */
double nvm_curve_rate_per_thread(double rate_iops, unsigned threads);

/*
 * Run @spec against @m from *now_ns (advanced to the end of the run).
 * Submissions reach the model in time order; @seed fixes the addresses and
 * arrival times.
 */
void nvm_curve_run(NvmModel *m, const NvmRunSpec *spec, uint64_t seed,
                   uint64_t *now_ns, NvmRunResult *res);

/* Write [start, start+bytes) once sequentially (128 KiB, 8 outstanding). */
void nvm_curve_precondition(NvmModel *m, uint64_t start, uint64_t bytes,
                            uint32_t lba_bytes, uint64_t *now_ns);
void nvm_curve_precondition_hook(NvmModel *m, uint64_t start, uint64_t bytes,
                                 uint32_t lba_bytes, uint64_t *now_ns,
                                 const NvmRunHook *hook);

#endif
