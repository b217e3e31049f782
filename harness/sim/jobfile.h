/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subset of fio's job file format that describes an I/O mix (rw mix,
 * block-size split, random share, queue depth, bursts), so nvmimic sim runs
 * the same job files as the guest's fio.  harness/workloads/README.md.
 */
#ifndef NVMIMIC_JOBFILE_H
#define NVMIMIC_JOBFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#define NVM_BSSPLIT_MAX 16
#define NVM_JOB_MAX_OUTSTANDING 4096
#define NVM_JOB_MAX_BLOCK_BYTES (8u << 20)

enum { NVM_DIR_READ, NVM_DIR_WRITE, NVM_DIRS };

typedef struct NvmBsSplit {
    unsigned n;
    uint32_t bytes[NVM_BSSPLIT_MAX];
    double pct[NVM_BSSPLIT_MAX];        /* sums to 100 */
} NvmBsSplit;

typedef struct NvmMix {
    char *name;                 /* the job's section name */
    double read_pct;            /* share of reads, 0..100 */
    double random_pct[NVM_DIRS];    /* share of random I/Os per direction */
    NvmBsSplit bs[NVM_DIRS];
    unsigned iodepth;
    unsigned numjobs;
    uint64_t think_ns;          /* idle time of a burst cycle, 0: none */
    uint64_t think_iotime_ns;   /* issuing time of a burst cycle */
    bool write_sync;            /* sync=1: every write with FUA */
} NvmMix;

/*
 * Parse fio job text: [global] options, then the job named @section (the
 * first job when NULL).  @origin names the text in errors ("file:line").
 */
NvmMix *nvm_jobfile_parse(const char *text, const char *origin,
                          const char *section, GError **errp);
NvmMix *nvm_jobfile_load(const char *path, const char *section,
                         GError **errp);
void nvm_mix_free(NvmMix *mix);

/* Mean block size in bytes over both directions, weighted by the mix. */
double nvm_mix_mean_block_bytes(const NvmMix *mix);
unsigned nvm_mix_outstanding(const NvmMix *mix);

#endif
