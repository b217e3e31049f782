/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's mapping state (internal to backends/): which logical
 * units hold data and in which superblock, superblock valid counts, greedy
 * GC victims and the SLC cache's blocks.  No timing: model*.c do that.
 */
#ifndef NVMIMIC_FTL_H
#define NVMIMIC_FTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVM_FTL_NONE 0xffffffffu

typedef enum NvmLoc {
    NVM_LOC_UNMAPPED,           /* never written, trimmed */
    NVM_LOC_SLC,                /* in a superblock programmed in SLC mode */
    NVM_LOC_NATIVE,             /* in a TLC/QLC superblock */
} NvmLoc;

typedef enum NvmSbMode {
    NVM_SB_FREE,
    NVM_SB_SLC,
    NVM_SB_NATIVE,
} NvmSbMode;

typedef struct NvmFtlGeom {
    uint64_t nlpn;              /* logical units (map units) */
    uint32_t sb_lpns;           /* native capacity of a superblock, units */
    uint32_t bits;              /* SLC capacity = sb_lpns / bits */
    uint32_t nsb;               /* superblocks */
    uint64_t seed;
} NvmFtlGeom;

typedef struct NvmFtl NvmFtl;

NvmFtl *nvm_ftl_new(const NvmFtlGeom *g);
/* @dst becomes a copy of @src (same geometry), sharing no memory with it. */
void nvm_ftl_copy(NvmFtl *dst, const NvmFtl *src);
NvmFtl *nvm_ftl_clone(const NvmFtl *f);
/* Equal digests: equal mapping states (what the FTL does next). */
uint64_t nvm_ftl_digest(const NvmFtl *f);
void nvm_ftl_free(NvmFtl *f);
size_t nvm_ftl_memory_bytes(const NvmFtl *f);
/* Bytes the state can grow to at most (every chunk detailed). */
size_t nvm_ftl_memory_max_bytes(const NvmFtl *f);
size_t nvm_ftl_memory_bound(uint64_t nlpn, uint32_t nsb);

/*
 * State injection: all units unmapped; or units [0, valid) written in
 * order by a fill, the last @slc_tail of them still in SLC superblocks.
 */
void nvm_ftl_reset(NvmFtl *f, uint64_t valid, uint64_t slc_tail);
/* Its random numbers start again from the geometry's seed, as when new. */
void nvm_ftl_reseed(NvmFtl *f);

/*
 * After a fill: units [lo, hi) rewritten at random until greedy GC is at
 * steady state.  Their data moves to native superblocks whose valid counts
 * fall off geometrically with age (each unit of a superblock written i
 * superblocks ago is still valid with probability exp(-i * rate), which is
 * what uniform random overwrites leave), filling all free superblocks but
 * @keep_free.  Returns false (nothing changed) if the span is not all
 * valid data of the fill or there is no room.
 */
bool nvm_ftl_scatter(NvmFtl *f, uint64_t lo, uint64_t hi, uint32_t keep_free);

/* Where unit @lpn's data is (reads).  May draw from the FTL's RNG. */
NvmLoc nvm_ftl_locate(NvmFtl *f, uint64_t lpn);

/* How a unit's data lies in its superblock, as far as the map knows. */
typedef enum NvmPlaceKind {
    NVM_PLACE_HOME,             /* where the fill put it: its LBA's place */
    NVM_PLACE_RUN,              /* in a run written in order: @sb, @pos */
    NVM_PLACE_SCATTERED,        /* not recorded: a die drawn from @pos */
} NvmPlaceKind;

typedef struct NvmPlace {
    NvmPlaceKind kind;
    uint32_t sb;                /* RUN: the superblock */
    /*
     * RUN: the unit's place in the superblock's write order; SCATTERED: a
     * hash of the unit and what is known of its superblock
     */
    uint64_t pos;
} NvmPlace;

/*
 * nvm_ftl_locate() with the unit's place (reads timed where the data
 * lies): the same answer and the same draws from the FTL's RNG.
 */
NvmLoc nvm_ftl_place(NvmFtl *f, uint64_t lpn, NvmPlace *pl);

/*
 * Host writes: @n units from @lpn into the open host superblock of @mode
 * (a new one is opened from the free pool when it fills).  Returns false
 * (nothing written) if no free superblock is left for it.
 */
bool nvm_ftl_write(NvmFtl *f, uint64_t lpn, uint32_t n, NvmSbMode mode);
/* A cache hint for a coming write of @lpn (@stage 0, then 1). */
void nvm_ftl_prefetch(const NvmFtl *f, uint64_t lpn, int stage);
/*
 * @n units of padding (a partial program unit) in the open host
 * superblock of @mode: space used, no data.  False if none is free.
 */
bool nvm_ftl_pad(NvmFtl *f, uint32_t n, NvmSbMode mode);
/* Room left in the open host superblock of @mode (0: none open). */
uint32_t nvm_ftl_open_room(const NvmFtl *f, NvmSbMode mode);
/* Units [lpn, lpn + n) no longer hold data. */
void nvm_ftl_trim(NvmFtl *f, uint64_t lpn, uint64_t n);

/*
 * Reclaim one superblock: the full native one with the fewest valid units
 * (greedy GC) or, with @slc, the oldest full SLC one (folding).  Its valid
 * units move to the relocation stream (native) at once and it returns to
 * the free pool; the caller times the copies.  Returns the number of units
 * moved, or -1 if there is no candidate (or no room for its data).
 */
int64_t nvm_ftl_reclaim(NvmFtl *f, bool slc);
/* The greedy victim's valid units without reclaiming it (-1: none). */
int64_t nvm_ftl_gc_candidate(const NvmFtl *f);
/* The oldest full SLC superblock's valid units (-1: none, or still open). */
int64_t nvm_ftl_slc_head_valid(const NvmFtl *f);

typedef struct NvmFtlCounts {
    uint64_t valid;             /* valid units */
    uint64_t slc_valid;         /* of which in SLC superblocks */
    uint64_t slc_written;       /* units written into SLC not yet reclaimed */
    uint32_t free_sbs;
    uint32_t slc_sbs;           /* full or open SLC superblocks */
    uint32_t detailed_chunks;
    /* invalidations with no superblock to charge (inconsistent; expect 0) */
    uint64_t lost;
} NvmFtlCounts;

void nvm_ftl_counts(const NvmFtl *f, NvmFtlCounts *c);
/* The counts that are read on every program unit, in O(1). */
uint64_t nvm_ftl_valid(const NvmFtl *f);
uint64_t nvm_ftl_slc_written(const NvmFtl *f);
uint32_t nvm_ftl_slc_sbs(const NvmFtl *f);
uint32_t nvm_ftl_free_sbs(const NvmFtl *f);
/* Self-check of every counter against a recount (tests). */
bool nvm_ftl_check(const NvmFtl *f, char **why);

#endif
