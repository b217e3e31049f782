/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mixed workloads against the model in simulated time: read/write mix,
 * block-size split, random/sequential share and bursts from an NvmMix,
 * closed loop (peak) or open loop at a rate, like curve.h's single ops.
 */
#ifndef NVMIMIC_MIX_H
#define NVMIMIC_MIX_H

#include "curve.h"
#include "jobfile.h"

typedef struct NvmMixSpec {
    const NvmMix *mix;
    uint32_t lba_bytes;
    uint64_t span_start_bytes;
    uint64_t span_bytes;
    uint64_t warmup_ns;         /* run, then discard */
    uint64_t duration_ns;       /* measured */
    double rate_iops;           /* 0: closed loop (unthrottled) */
    /* optional: sees every command as it is submitted (tests, logs) */
    void (*on_submit)(void *opaque, const NvmCmd *cmd, uint64_t t_ns);
    void *opaque;
    const NvmRunHook *hook;     /* optional, see curve.h */
} NvmMixSpec;

typedef struct NvmMixResult {
    NvmRunResult all;           /* reads and writes together */
    NvmRunResult cls[NVM_DIRS];     /* NVM_DIR_READ, NVM_DIR_WRITE */
    /*
     * The die time reserved while it measured (programs, erases, copies and
     * page reads, nvm_model_die_time()) over the dies' time: near 1, the
     * dies bound the point; well below, something else does.  Page reads on
     * independent planes each count: such a part can reach its plane count.
     */
    double die_busy;
} NvmMixResult;

/*
 * Run @spec against @m from *now_ns (advanced to the end of the run).
 * Each of the mix's numjobs x iodepth slots keeps one I/O outstanding.
 * Bursts: closed loop, each job issues for think_iotime_ns, waits for its
 * I/Os, then idles think_ns (fio's thinktime_iotime); open loop, arrivals
 * fall only in the fixed windows of think_iotime_ns every
 * think_iotime_ns + think_ns, at the rate that gives @rate_iops on average
 * (an I/O whose slot frees up in an idle window waits for the next one).
 * With bursts, the warm-up and the measured time are rounded up to whole
 * cycles.  Reports IOPS over the whole measured time, idle periods included.
 */
void nvm_mix_run(NvmModel *m, const NvmMixSpec *spec, uint64_t seed,
                 uint64_t *now_ns, NvmMixResult *res);

/* Merge per-class model statistics into one result over @secs. */
void nvm_mix_merge_stats(const NvmClassStats *const *cls, unsigned n,
                         double secs, NvmRunResult *res);

#endif
