/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mixed-workload sweep on the model (nvmimic sim --suite mix): random
 * I/O at read shares 0..100 % in steps of 10 and 1..128 outstanding, in
 * 4 KiB blocks and in the block sizes of a VDI job file, each point a
 * closed-loop run from the review's starting state (the drive's peak at
 * that mix and load), as the four corners' peaks are.
 */
#ifndef NVMIMIC_MIXSWEEP_H
#define NVMIMIC_MIXSWEEP_H

#include "mix.h"
#include "sim.h"

#define NVM_SWEEP_SHARES 11     /* 0, 10, .. 100 % reads */
#define NVM_SWEEP_MAX_DEPTHS 8  /* default: 1, 2, 4, .. 128 outstanding */
#define NVM_SWEEP_SIZES 2       /* 4 KiB; the VDI job's sizes */
#define NVM_SWEEP_MAX_DEPTH 1024

/* The VDI job whose block sizes the sweep's second size mix takes. */
#define NVM_SWEEP_VDI_JOB "vdi-monday-login"

/* The sweep's simulated seconds per point (its warm-up: a fifth of it).
 * Shorter points catch the write-heavy shares of the drives that write
 * through their static SLC when full in a transient (docs/sim.md, "Point
 * length" under the sweep): at 2 s they were up to 56 % above 30 s. */
#define NVM_SWEEP_POINT_S 10.0

typedef struct NvmSweep {
    uint64_t seed;
    double duration_s;          /* measured per point */
    double warmup_s;
    const char *size_name[NVM_SWEEP_SIZES];     /* "4k", "vdi" */
    char *size_desc[NVM_SWEEP_SIZES];
    NvmBsSplit bs[NVM_SWEEP_SIZES][NVM_DIRS];
    unsigned n_depths;
    unsigned depth[NVM_SWEEP_MAX_DEPTHS];
    double read_pct[NVM_SWEEP_SHARES];
    NvmMixResult r[NVM_SWEEP_SIZES][NVM_SWEEP_MAX_DEPTHS][NVM_SWEEP_SHARES];
} NvmSweep;

/*
 * Parse a list of outstanding counts ("1,2,4"): increasing, each 1..1024,
 * at most NVM_SWEEP_MAX_DEPTHS.  NULL: the default 1, 2, 4, .. 128.
 * false and @errp set (naming the bad item) otherwise.
 */
bool nvm_sweep_parse_depths(const char *list, unsigned depth[], unsigned *n,
                            GError **errp);

/*
 * Run the sweep of @p at the @n_depths counts @depth: every point on a fresh
 * model (seed o->seed) in the review's state, o->duration_s measured after a
 * fifth of it.  The VDI sizes are the block-size splits of
 * NVM_SWEEP_VDI_JOB.fio in @workload_dir.  A point's seed follows from its
 * size mix, count and share alone, so it does not depend on the other points
 * nor on the threads that run them.  false and @errp set if the job file
 * does not load or does not fit @p's LBA size.
 */
bool nvm_sim_mix_sweep(const NvmProfile *p, const NvmSimOptions *o,
                       const unsigned *depth, unsigned n_depths,
                       const char *workload_dir, NvmSweep *sw,
                       GError **errp);
void nvm_sweep_clear(NvmSweep *sw);

/* One point as the sweep runs it: size mix @z at @read_pct % reads and
 * @depth outstanding on a fresh model of @p in the review's state. */
void nvm_sweep_point(const NvmProfile *p, const NvmSimOptions *o,
                     const NvmBsSplit bs[NVM_DIRS], unsigned z,
                     double read_pct, unsigned depth, NvmMixResult *r);

/*
 * The dip between pure reads and pure writes at count index @d of size mix
 * @z: the share with the fewest IOPS, and that minimum as a fraction of the
 * lower of the two pure runs (< 1: a dip below both ends).
 */
void nvm_sweep_dip(const NvmSweep *sw, unsigned z, unsigned d,
                   double *min_read_pct, double *min_frac);

#endif
