/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mapping state's internals, shared by its files: ftl.c (the logical
 * map: chunks, the fill's layout, unrecorded units, the host operations),
 * ftl-gc.c (superblocks: allocation, release, greedy GC and folding),
 * ftl-state.c (lifetime, memory and state injection) and ftl-check.c (the
 * counts and their recount).  Nothing outside backends/ includes it: the
 * model's interface to it is ftl.h.
 *
 * Logical side: the capacity is cut into chunks of 1024 map units (4 MiB
 * with 4 KiB units).  A directory word per chunk says "all unmapped", "all
 * where the fill put them" (home), "all in one superblock" or points to a
 * detailed chunk that keeps 2 bits per unit: unmapped, home, old, new.
 * "New" units are in the superblock the chunk's latest write went to; "old"
 * ones in the superblock of the write before (counted) or elsewhere.  Units
 * whose superblock is not recorded are charged to a superblock drawn in
 * proportion to its unrecorded valid units (a Fenwick tree): exact for
 * sequential overwrites, the mean-field rule for scattered ones.  A record
 * whose superblock was reclaimed (folded or collected) follows the units:
 * each reclaim notes where its valid units went (Fwd, a table keyed by the
 * superblock and its serial then), and a chunk that finds its record stale
 * moves it there, so data written in order and folded stays recorded.
 *
 * Physical side: superblocks (one block on every die) with valid counts,
 * a free pool, open superblocks for host SLC, host native and relocated
 * data, the SLC superblocks in write order (folding is FIFO) and greedy GC
 * (fewest valid units) over the native ones.
 */
#ifndef NVMIMIC_FTL_INT_H
#define NVMIMIC_FTL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "ftl.h"

#define CH_SHIFT 10
#define CH_LPNS (1u << CH_SHIFT)
#define CH_WORDS (CH_LPNS / 32)         /* 2 bits per unit */
#define LO_BITS 0x5555555555555555ULL

enum { ST_UNMAPPED = 0, ST_HOME = 1, ST_OLD = 2, ST_NEW = 3 };

/* Directory word: kind in bits 30-31. */
#define DK_UNMAPPED 0u
#define DK_HOME 1u
#define DK_UNIFORM 2u                   /* all valid, one place or other */
#define DK_DETAIL 3u
#define DK_OF(d) ((d) >> 30)
#define D_PAYLOAD(d) ((d) & 0x3fffffffu)
#define U_OTHER (1u << 29)              /* uniform: superblock unrecorded */
#define U_SER_MASK 0x1fffu              /* uniform: low serial bits */
#define SB16_NONE 0xffffu
#define SLAB_SHIFT 10
#define SLAB (1u << SLAB_SHIFT)

typedef struct Chunk {
    uint64_t st[CH_WORDS];
    uint32_t ser0, ser1;
    uint16_t sb0, sb1;                  /* SB16_NONE: no record */
    uint16_t n0, n1, noth, nhome;
    union {
        uint32_t next_free;             /* a free chunk: the next one */
        uint32_t run1;                  /* a live one: RUN_* or a run */
    };
} Chunk;

/*
 * run1: how the units of the latest record (sb1) were written.  A run is
 * stored as RUN_BASE + (sb1's write pointer - unit index) of its first
 * unit; it stays while every unit written under the record continued it
 * (unit i at that base + i), and breaks at the first that did not.
 */
#define RUN_NONE 0u                     /* nothing written under it yet */
#define RUN_ASSUMED 1u                  /* a uniform chunk's: LBA order */
#define RUN_BROKEN 0xffffffffu
#define RUN_BASE (CH_LPNS + 2u)

/*
 * Where the valid units of a reclaimed superblock went: into the
 * relocation stream, in order, one or two superblocks of it.  Kept in a
 * direct-mapped table of FWD_SLOTS entries; an entry that a later reclaim
 * displaces leaves the records that pointed to it unrecorded, as before.
 */
#define FWD_SHIFT 14
#define FWD_SLOTS (1u << FWD_SHIFT)
#define FWD_HOPS 4                      /* forwards followed in a row */

typedef struct Fwd {
    uint32_t sb, ser;                   /* reclaimed; sb NVM_FTL_NONE: empty */
    uint32_t to[2], to_ser[2];          /* to[1] NVM_FTL_NONE: one place */
    uint32_t n[2];                      /* units moved to each */
} Fwd;

typedef struct Sb {
    uint32_t valid;                     /* valid units */
    uint32_t home;                      /* of which placed by the fill */
    uint32_t attr;                      /* of which recorded by chunks */
    uint32_t wp;                        /* units written */
    uint32_t serial;                    /* changes when it is reclaimed */
    uint32_t fifo_next;                 /* SLC superblocks, oldest first */
    uint8_t mode;                       /* NvmSbMode */
    uint8_t open;
} Sb;

struct NvmFtl {
    NvmFtlGeom g;
    uint32_t slc_lpns;
    uint64_t nchunks;
    uint32_t *dir;
    Chunk **slabs;                      /* detailed chunks, SLAB at a time */
    uint32_t n_slabs_max;
    uint32_t pool_cap, pool_free, pool_used, pool_live;
    Sb *sb;
    uint32_t *free_stack;
    uint32_t nfree;
    int64_t *fen;                       /* Fenwick tree of unrecorded units */
    Fwd *fwd;                           /* where reclaimed units went */
    int64_t fen_total;
    uint32_t fen_step;
    uint32_t slc_head, slc_tail;
    uint32_t open_host[3];              /* by NvmSbMode */
    uint32_t open_reloc;
    /* the fill's layout */
    uint64_t home_f, home_s;
    uint32_t home_nn, home_ns;
    uint64_t valid;
    uint64_t slc_written;               /* units written into SLC sbs */
    uint32_t slc_sbs;
    uint64_t lost;
    uint64_t rng;
};

static inline unsigned st_get(const Chunk *c, uint32_t i)
{
    return (c->st[i >> 5] >> ((i & 31) * 2)) & 3;
}

static inline void st_set(Chunk *c, uint32_t i, unsigned v)
{
    uint64_t *w = &c->st[i >> 5];
    unsigned sh = (i & 31) * 2;

    *w = (*w & ~(3ULL << sh)) | ((uint64_t)v << sh);
}

/* ftl.c */
void nvm_ftl_fen_add(NvmFtl *f, uint32_t i, int64_t d);
void nvm_ftl_fen_rebuild(NvmFtl *f);
uint32_t nvm_ftl_home_sb(const NvmFtl *f, uint64_t x);
void nvm_ftl_home_range(const NvmFtl *f, uint32_t i, uint64_t *lo,
                        uint64_t *hi);
uint32_t nvm_ftl_chunk_lpns(const NvmFtl *f, uint64_t c);
void nvm_ftl_st_fill(Chunk *c, uint32_t n, unsigned v);
Chunk *nvm_ftl_chunk_at(const NvmFtl *f, uint32_t d);
void nvm_ftl_chunk_release(NvmFtl *f, uint64_t c);
bool nvm_ftl_sb_current(const NvmFtl *f, uint32_t sb, uint32_t ser);
Chunk *nvm_ftl_chunk_detail(NvmFtl *f, uint64_t c);
void nvm_ftl_chunk_collapse(NvmFtl *f, uint64_t c);

void nvm_ftl_fwd_clear(NvmFtl *f);

/* The table slot of reclaimed superblock @sb, serial @ser (its low bits). */
static inline uint32_t nvm_ftl_fwd_slot(uint32_t sb, uint32_t ser)
{
    uint32_t h = sb * 0x9e3779b1u ^ (ser & U_SER_MASK) * 0x85ebca77u;

    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    return h >> (32 - FWD_SHIFT);
}

/* ftl-gc.c */
uint32_t nvm_ftl_sb_capacity(const NvmFtl *f, const Sb *s);
uint32_t nvm_ftl_sb_alloc(NvmFtl *f, NvmSbMode mode);

#endif
