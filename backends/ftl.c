/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mapping state of the drive model.
 *
 * Logical side: the capacity is cut into chunks of 1024 map units (4 MiB
 * with 4 KiB units).  A directory word per chunk says "all unmapped", "all
 * where the fill put them" (home), "all in one superblock" or points to a
 * detailed chunk that keeps 2 bits per unit: unmapped, home, old, new.
 * "New" units are in the superblock the chunk's latest write went to; "old"
 * ones in the superblock of the write before (counted) or elsewhere.  Units
 * whose superblock is not recorded are charged to a superblock drawn in
 * proportion to its unrecorded valid units (a Fenwick tree): exact for
 * sequential overwrites, the mean-field rule for scattered ones.
 *
 * Physical side: superblocks (one block on every die) with valid counts,
 * a free pool, open superblocks for host SLC, host native and relocated
 * data, the SLC superblocks in write order (folding is FIFO) and greedy GC
 * (fewest valid units) over the native ones.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

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
    uint32_t next_free;
} Chunk;

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

/* ------------------------------------------------------------------ */

static inline uint64_t ftl_rand(NvmFtl *f)
{
    /* xorshift64* (Vigna), written from its description */
    uint64_t x = f->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static inline uint64_t ftl_below(NvmFtl *f, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)ftl_rand(f) * n) >> 64);
}

static void fen_add(NvmFtl *f, uint32_t i, int64_t d)
{
    if (!d) {
        return;
    }
    for (uint32_t j = i + 1; j <= f->g.nsb; j += j & -j) {
        f->fen[j] += d;
    }
    f->fen_total += d;
}

static void fen_rebuild(NvmFtl *f)
{
    uint32_t n = f->g.nsb;

    memset(f->fen, 0, sizeof(int64_t) * (n + 1));
    f->fen_total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const Sb *s = &f->sb[i];
        int64_t w = (int64_t)s->valid - s->home - s->attr;

        f->fen[i + 1] += w;
        f->fen_total += w;
    }
    for (uint32_t j = 1; j <= n; j++) {
        uint32_t p = j + (j & -j);

        if (p <= n) {
            f->fen[p] += f->fen[j];
        }
    }
}

/* The superblock holding unrecorded unit number @r (0 <= r < total). */
static uint32_t fen_find(const NvmFtl *f, int64_t r)
{
    uint32_t pos = 0;

    for (uint32_t step = f->fen_step; step; step >>= 1) {
        if (pos + step <= f->g.nsb && f->fen[pos + step] <= r) {
            pos += step;
            r -= f->fen[pos];
        }
    }
    return pos < f->g.nsb ? pos : f->g.nsb - 1;
}

/* Charge one invalidated unit whose superblock is not recorded. */
static void other_remove(NvmFtl *f)
{
    uint32_t s;

    if (f->fen_total <= 0) {
        f->lost++;
        return;
    }
    s = fen_find(f, (int64_t)ftl_below(f, f->fen_total));
    f->sb[s].valid--;
    fen_add(f, s, -1);
}

/* Charge @n such units at once, in proportion (large trims). */
static void other_remove_many(NvmFtl *f, uint64_t n)
{
    int64_t total = f->fen_total;
    uint64_t done = 0;

    if (n <= 64 || total <= 0) {
        for (uint64_t i = 0; i < n; i++) {
            other_remove(f);
        }
        return;
    }
    if ((int64_t)n >= total) {
        for (uint32_t i = 0; i < f->g.nsb; i++) {
            Sb *s = &f->sb[i];

            s->valid = s->home + s->attr;
        }
        f->lost += n - (uint64_t)total;
        fen_rebuild(f);
        return;
    }
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        Sb *s = &f->sb[i];
        uint64_t w = s->valid - s->home - s->attr;
        uint64_t d = (uint64_t)((unsigned __int128)w * n / (uint64_t)total);

        s->valid -= d;
        done += d;
    }
    fen_rebuild(f);
    for (; done < n; done++) {
        other_remove(f);
    }
}

/* ------------------------------------------------------------------ */
/* Layout of the fill: units [0, home_f), the last home_s of them in SLC. */

static uint32_t home_sb(const NvmFtl *f, uint64_t x)
{
    uint64_t nat_end = f->home_f - f->home_s;

    if (x < nat_end) {
        return x / f->g.sb_lpns;
    }
    return f->home_nn + (x - nat_end) / f->slc_lpns;
}

static void home_range(const NvmFtl *f, uint32_t i, uint64_t *lo,
                       uint64_t *hi)
{
    uint64_t nat_end = f->home_f - f->home_s;

    if (i < f->home_nn) {
        *lo = (uint64_t)i * f->g.sb_lpns;
        *hi = MIN(*lo + f->g.sb_lpns, nat_end);
    } else {
        *lo = nat_end + (uint64_t)(i - f->home_nn) * f->slc_lpns;
        *hi = MIN(*lo + f->slc_lpns, f->home_f);
    }
}

/* ------------------------------------------------------------------ */
/* Chunks */

static uint32_t chunk_lpns(const NvmFtl *f, uint64_t c)
{
    uint64_t left = f->g.nlpn - (c << CH_SHIFT);

    return left < CH_LPNS ? (uint32_t)left : CH_LPNS;
}

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

/* Words filled with one state for the first @n units. */
static void st_fill(Chunk *c, uint32_t n, unsigned v)
{
    uint64_t pat = LO_BITS * v;

    for (uint32_t w = 0; w < CH_WORDS; w++) {
        uint32_t base = w * 32;

        if (base + 32 <= n) {
            c->st[w] = pat;
        } else if (base < n) {
            c->st[w] = pat & ((1ULL << ((n - base) * 2)) - 1);
        } else {
            c->st[w] = 0;
        }
    }
}

static inline Chunk *pool_at(const NvmFtl *f, uint32_t i)
{
    return &f->slabs[i >> SLAB_SHIFT][i & (SLAB - 1)];
}

static Chunk *chunk_at(const NvmFtl *f, uint32_t d)
{
    return pool_at(f, D_PAYLOAD(d));
}

/* A free detailed chunk; at most one per chunk of the capacity exists. */
static uint32_t chunk_alloc(NvmFtl *f)
{
    uint32_t i;

    if (f->pool_free != NVM_FTL_NONE) {
        i = f->pool_free;
        f->pool_free = pool_at(f, i)->next_free;
    } else {
        if (f->pool_used == f->pool_cap) {
            f->slabs[f->pool_cap >> SLAB_SHIFT] = g_new(Chunk, SLAB);
            f->pool_cap += SLAB;
        }
        i = f->pool_used++;
    }
    f->pool_live++;
    return i;
}

static void chunk_release(NvmFtl *f, uint64_t c)
{
    uint32_t d = f->dir[c];

    if (DK_OF(d) == DK_DETAIL) {
        uint32_t i = D_PAYLOAD(d);

        pool_at(f, i)->next_free = f->pool_free;
        f->pool_free = i;
        f->pool_live--;
    }
}

static bool sb_current(const NvmFtl *f, uint32_t sb, uint32_t ser)
{
    return sb < f->g.nsb && f->sb[sb].serial == ser;
}

/* A detailed chunk for @c, expanding a uniform one. */
static Chunk *chunk_detail(NvmFtl *f, uint64_t c)
{
    uint32_t d = f->dir[c];
    uint32_t n = chunk_lpns(f, c);
    Chunk *ch;
    uint32_t i;

    if (DK_OF(d) == DK_DETAIL) {
        return chunk_at(f, d);
    }
    i = chunk_alloc(f);
    ch = pool_at(f, i);
    memset(ch, 0, sizeof(*ch));
    ch->sb0 = ch->sb1 = SB16_NONE;
    switch (DK_OF(d)) {
    case DK_UNMAPPED:
        break;
    case DK_HOME:
        st_fill(ch, n, ST_HOME);
        ch->nhome = n;
        break;
    case DK_UNIFORM:
        if (!(d & U_OTHER)) {
            uint32_t sb = (d >> 13) & 0xffff;

            if (sb < f->g.nsb &&
                (f->sb[sb].serial & U_SER_MASK) == (d & U_SER_MASK)) {
                st_fill(ch, n, ST_NEW);
                ch->n1 = n;
                ch->sb1 = sb;
                ch->ser1 = f->sb[sb].serial;
                break;
            }
        }
        st_fill(ch, n, ST_OLD);
        ch->noth = n;
        break;
    }
    f->dir[c] = DK_DETAIL << 30 | i;
    return ch;
}

/* Back to a directory word if the chunk became uniform. */
static void chunk_collapse(NvmFtl *f, uint64_t c)
{
    Chunk *ch = chunk_at(f, f->dir[c]);
    uint32_t n = chunk_lpns(f, c);
    uint32_t d;

    if (!ch->n0 && !ch->n1 && !ch->noth && !ch->nhome) {
        d = DK_UNMAPPED << 30;
    } else if (ch->nhome == n) {
        d = DK_HOME << 30;
    } else if (ch->noth == n) {
        d = DK_UNIFORM << 30 | U_OTHER;
    } else if (ch->n1 == n) {
        d = DK_UNIFORM << 30 | (uint32_t)ch->sb1 << 13 |
            (ch->ser1 & U_SER_MASK);
    } else {
        return;
    }
    chunk_release(f, c);
    f->dir[c] = d;
}

/* New -> old for every unit of the chunk. */
static void relabel_new_old(Chunk *ch)
{
    for (uint32_t w = 0; w < CH_WORDS; w++) {
        uint64_t x = ch->st[w];

        ch->st[w] = x & ~(x & (x >> 1) & LO_BITS);
    }
}

/* Records of superblocks that were reclaimed since are dropped. */
static void chunk_refresh(NvmFtl *f, Chunk *ch)
{
    if (ch->sb1 != SB16_NONE && !sb_current(f, ch->sb1, ch->ser1)) {
        relabel_new_old(ch);
        ch->noth += ch->n1;
        ch->n1 = 0;
        ch->sb1 = SB16_NONE;
    }
    if (ch->sb0 != SB16_NONE && !sb_current(f, ch->sb0, ch->ser0)) {
        ch->noth += ch->n0;
        ch->n0 = 0;
        ch->sb0 = SB16_NONE;
    }
}

/* An old unit: is it in the chunk's older record (else unrecorded)? */
static bool old_in_rec0(NvmFtl *f, const Chunk *ch)
{
    return ch->n0 && (!ch->noth ||
                      ftl_below(f, (uint64_t)ch->n0 + ch->noth) < ch->n0);
}

/* Unit @i (logical unit @x) of @ch loses its data. */
static void unit_invalidate(NvmFtl *f, Chunk *ch, uint32_t i, uint64_t x)
{
    Sb *s;

    switch (st_get(ch, i)) {
    case ST_UNMAPPED:
        return;
    case ST_HOME:
        s = &f->sb[home_sb(f, x)];
        s->valid--;
        s->home--;
        ch->nhome--;
        break;
    case ST_NEW:
        s = &f->sb[ch->sb1];
        s->valid--;
        s->attr--;
        ch->n1--;
        break;
    default:
        if (old_in_rec0(f, ch)) {
            s = &f->sb[ch->sb0];
            s->valid--;
            s->attr--;
            ch->n0--;
        } else {
            other_remove(f);
            if (ch->noth) {
                ch->noth--;
            }
        }
        break;
    }
    st_set(ch, i, ST_UNMAPPED);
    f->valid--;
}

/* Make @sb the chunk's latest record (the previous one becomes rec0). */
static void chunk_record(NvmFtl *f, Chunk *ch, uint32_t sb)
{
    if (ch->sb1 == sb && ch->ser1 == f->sb[sb].serial) {
        return;
    }
    if (ch->sb0 != SB16_NONE) {
        f->sb[ch->sb0].attr -= ch->n0;
        fen_add(f, ch->sb0, ch->n0);
        ch->noth += ch->n0;
    }
    relabel_new_old(ch);
    ch->sb0 = ch->sb1;
    ch->ser0 = ch->ser1;
    ch->n0 = ch->n1;
    ch->sb1 = sb;
    ch->ser1 = f->sb[sb].serial;
    ch->n1 = 0;
}

/* ------------------------------------------------------------------ */
/* Superblocks */

static uint32_t sb_capacity(const NvmFtl *f, const Sb *s)
{
    return s->mode == NVM_SB_SLC ? f->slc_lpns : f->g.sb_lpns;
}

static uint32_t sb_alloc(NvmFtl *f, NvmSbMode mode)
{
    uint32_t i;
    Sb *s;

    if (!f->nfree) {
        return NVM_FTL_NONE;
    }
    i = f->free_stack[--f->nfree];
    s = &f->sb[i];
    s->mode = mode;
    s->open = 1;
    s->wp = 0;
    s->valid = s->home = s->attr = 0;
    s->fifo_next = NVM_FTL_NONE;
    if (mode == NVM_SB_SLC) {
        f->slc_sbs++;
        /* the FIFO holds SLC superblocks in the order they were opened */
        if (f->slc_tail == NVM_FTL_NONE) {
            f->slc_head = i;
        } else {
            f->sb[f->slc_tail].fifo_next = i;
        }
        f->slc_tail = i;
    }
    return i;
}

static void sb_release(NvmFtl *f, uint32_t i)
{
    Sb *s = &f->sb[i];

    fen_add(f, i, -((int64_t)s->valid - s->home - s->attr));
    if (s->mode == NVM_SB_SLC) {
        f->slc_sbs--;
        f->slc_written -= s->wp;
    }
    s->serial++;
    s->valid = s->home = s->attr = 0;
    s->wp = 0;
    s->mode = NVM_SB_FREE;
    s->open = 0;
    f->free_stack[f->nfree++] = i;
}

/* Home units of reclaimed superblock @i become "other" units. */
static void home_evict(NvmFtl *f, uint32_t i)
{
    uint64_t lo, hi;

    home_range(f, i, &lo, &hi);
    for (uint64_t c = lo >> CH_SHIFT; c << CH_SHIFT < hi; c++) {
        uint64_t c0 = c << CH_SHIFT;
        uint32_t d = f->dir[c];
        uint32_t a, b;
        Chunk *ch;

        if (DK_OF(d) != DK_HOME && DK_OF(d) != DK_DETAIL) {
            continue;
        }
        if (DK_OF(d) == DK_HOME && c0 >= lo &&
            c0 + chunk_lpns(f, c) <= hi) {
            f->dir[c] = DK_UNIFORM << 30 | U_OTHER;
            continue;
        }
        ch = chunk_detail(f, c);
        a = c0 < lo ? lo - c0 : 0;
        b = MIN(hi - c0, (uint64_t)chunk_lpns(f, c));
        for (uint32_t u = a; u < b; u++) {
            if (st_get(ch, u) == ST_HOME) {
                st_set(ch, u, ST_OLD);
                ch->nhome--;
                ch->noth++;
            }
        }
        chunk_collapse(f, c);
    }
}

/* Move @n units into the relocation stream (unrecorded). */
static bool reloc_add(NvmFtl *f, uint32_t n)
{
    while (n) {
        Sb *s;
        uint32_t room, k;

        if (f->open_reloc == NVM_FTL_NONE) {
            f->open_reloc = sb_alloc(f, NVM_SB_NATIVE);
            if (f->open_reloc == NVM_FTL_NONE) {
                return false;
            }
        }
        s = &f->sb[f->open_reloc];
        room = f->g.sb_lpns - s->wp;
        k = MIN(room, n);
        s->wp += k;
        s->valid += k;
        fen_add(f, f->open_reloc, k);
        n -= k;
        if (s->wp == f->g.sb_lpns) {
            s->open = 0;
            f->open_reloc = NVM_FTL_NONE;
        }
    }
    return true;
}

int64_t nvm_ftl_gc_candidate(const NvmFtl *f)
{
    uint32_t best = NVM_FTL_NONE;

    for (uint32_t i = 0; i < f->g.nsb; i++) {
        const Sb *s = &f->sb[i];

        if (s->mode == NVM_SB_NATIVE && !s->open &&
            (best == NVM_FTL_NONE || s->valid < f->sb[best].valid)) {
            best = i;
        }
    }
    if (best == NVM_FTL_NONE || f->sb[best].valid >= f->g.sb_lpns) {
        return -1;
    }
    return f->sb[best].valid;
}

int64_t nvm_ftl_reclaim(NvmFtl *f, bool slc)
{
    uint32_t v = NVM_FTL_NONE;
    uint32_t moved;
    Sb *s;

    if (slc) {
        v = f->slc_head;
        if (v == NVM_FTL_NONE || f->sb[v].open) {
            return -1;
        }
    } else {
        for (uint32_t i = 0; i < f->g.nsb; i++) {
            const Sb *c = &f->sb[i];

            if (c->mode == NVM_SB_NATIVE && !c->open &&
                (v == NVM_FTL_NONE || c->valid < f->sb[v].valid)) {
                v = i;
            }
        }
        if (v == NVM_FTL_NONE || f->sb[v].valid >= f->g.sb_lpns) {
            return -1;
        }
    }
    s = &f->sb[v];
    moved = s->valid;
    if (s->home) {
        home_evict(f, v);
    }
    if (slc) {
        f->slc_head = s->fifo_next;
        if (f->slc_head == NVM_FTL_NONE) {
            f->slc_tail = NVM_FTL_NONE;
        }
    }
    /*
     * Its units now count against the relocation stream; records of it
     * go stale (sb_release changes its serial).  It may become its own
     * destination: the copies are timed before its erase and reuse.
     */
    sb_release(f, v);
    if (!reloc_add(f, moved)) {
        f->lost += moved;
    }
    return moved;
}

/* ------------------------------------------------------------------ */
/* Host operations */

uint32_t nvm_ftl_open_room(const NvmFtl *f, NvmSbMode mode)
{
    uint32_t i = f->open_host[mode];

    return i == NVM_FTL_NONE ? 0 : sb_capacity(f, &f->sb[i]) - f->sb[i].wp;
}

bool nvm_ftl_write(NvmFtl *f, uint64_t lpn, uint32_t n, NvmSbMode mode)
{
    uint32_t room = nvm_ftl_open_room(f, mode);
    uint64_t end = lpn + n;

    if (room < n && !f->nfree) {
        return false;
    }
    if (end > f->g.nlpn) {
        end = f->g.nlpn;
    }
    while (lpn < end) {
        uint64_t c = lpn >> CH_SHIFT;
        uint32_t i = lpn & (CH_LPNS - 1);
        uint32_t stop = MIN((uint64_t)CH_LPNS, end - (c << CH_SHIFT));
        Chunk *ch = chunk_detail(f, c);

        chunk_refresh(f, ch);
        for (; i < stop; i++, lpn++) {
            uint32_t w = f->open_host[mode];
            Sb *s;

            if (w == NVM_FTL_NONE ||
                f->sb[w].wp == sb_capacity(f, &f->sb[w])) {
                if (w != NVM_FTL_NONE) {
                    f->sb[w].open = 0;
                }
                w = f->open_host[mode] = sb_alloc(f, mode);
                if (w == NVM_FTL_NONE) {
                    chunk_collapse(f, c);
                    return false;
                }
            }
            s = &f->sb[w];
            unit_invalidate(f, ch, i, lpn);
            chunk_record(f, ch, w);
            st_set(ch, i, ST_NEW);
            ch->n1++;
            s->valid++;
            s->attr++;
            s->wp++;
            f->valid++;
            if (mode == NVM_SB_SLC) {
                f->slc_written++;
            }
        }
        chunk_collapse(f, c);
    }
    return true;
}

bool nvm_ftl_pad(NvmFtl *f, uint32_t n, NvmSbMode mode)
{
    while (n) {
        uint32_t w = f->open_host[mode];
        uint32_t k;
        Sb *s;

        if (w == NVM_FTL_NONE || f->sb[w].wp == sb_capacity(f, &f->sb[w])) {
            if (w != NVM_FTL_NONE) {
                f->sb[w].open = 0;
            }
            w = f->open_host[mode] = sb_alloc(f, mode);
            if (w == NVM_FTL_NONE) {
                return false;
            }
        }
        s = &f->sb[w];
        k = MIN(n, sb_capacity(f, s) - s->wp);
        s->wp += k;
        if (mode == NVM_SB_SLC) {
            f->slc_written += k;
        }
        n -= k;
    }
    return true;
}

uint64_t nvm_ftl_valid(const NvmFtl *f)
{
    return f->valid;
}

uint64_t nvm_ftl_slc_written(const NvmFtl *f)
{
    return f->slc_written;
}

uint32_t nvm_ftl_slc_sbs(const NvmFtl *f)
{
    return f->slc_sbs;
}

uint32_t nvm_ftl_free_sbs(const NvmFtl *f)
{
    return f->nfree;
}

void nvm_ftl_trim(NvmFtl *f, uint64_t lpn, uint64_t n)
{
    uint64_t end = lpn + n > f->g.nlpn ? f->g.nlpn : lpn + n;
    uint64_t others = 0;

    while (lpn < end) {
        uint64_t c = lpn >> CH_SHIFT;
        uint64_t c0 = c << CH_SHIFT;
        uint32_t cn = chunk_lpns(f, c);
        uint32_t i = lpn - c0;
        uint32_t stop = MIN((uint64_t)cn, end - c0);
        uint32_t d = f->dir[c];

        if (DK_OF(d) == DK_UNMAPPED) {
            lpn = c0 + stop;
            continue;
        }
        if (i == 0 && stop == cn && DK_OF(d) == DK_UNIFORM &&
            (d & U_OTHER)) {
            /* a whole chunk of unrecorded units: charged in one go */
            others += cn;
            f->valid -= cn;
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        if (i == 0 && stop == cn && DK_OF(d) == DK_HOME &&
            home_sb(f, c0) == home_sb(f, c0 + cn - 1)) {
            Sb *s = &f->sb[home_sb(f, c0)];

            s->valid -= cn;
            s->home -= cn;
            f->valid -= cn;
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        if (i == 0 && stop == cn && DK_OF(d) == DK_UNIFORM) {
            uint32_t u = (d >> 13) & 0xffff;

            if (u < f->g.nsb &&
                (f->sb[u].serial & U_SER_MASK) == (d & U_SER_MASK)) {
                f->sb[u].valid -= cn;
                f->sb[u].attr -= cn;
            } else {
                others += cn;
            }
            f->valid -= cn;
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        if (i == 0 && stop == cn && DK_OF(d) == DK_DETAIL &&
            home_sb(f, c0) == home_sb(f, c0 + cn - 1)) {
            Chunk *ch = chunk_at(f, d);

            chunk_refresh(f, ch);
            if (ch->nhome) {
                Sb *s = &f->sb[home_sb(f, c0)];

                s->valid -= ch->nhome;
                s->home -= ch->nhome;
            }
            if (ch->n1) {
                f->sb[ch->sb1].valid -= ch->n1;
                f->sb[ch->sb1].attr -= ch->n1;
            }
            if (ch->n0) {
                f->sb[ch->sb0].valid -= ch->n0;
                f->sb[ch->sb0].attr -= ch->n0;
            }
            others += ch->noth;
            f->valid -= ch->nhome + ch->n1 + ch->n0 + ch->noth;
            chunk_release(f, c);
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        {
            Chunk *ch = chunk_detail(f, c);

            chunk_refresh(f, ch);
            for (; i < stop; i++) {
                unsigned st = st_get(ch, i);

                if (st == ST_OLD && !old_in_rec0(f, ch) && ch->noth) {
                    /* unrecorded: charged with the others below */
                    st_set(ch, i, ST_UNMAPPED);
                    ch->noth--;
                    f->valid--;
                    others++;
                    continue;
                }
                unit_invalidate(f, ch, i, c0 + i);
            }
            chunk_collapse(f, c);
        }
        lpn = c0 + stop;
    }
    other_remove_many(f, others);
}

NvmLoc nvm_ftl_locate(NvmFtl *f, uint64_t lpn)
{
    uint64_t c = lpn >> CH_SHIFT;
    uint32_t d, sb = NVM_FTL_NONE;

    if (lpn >= f->g.nlpn) {
        return NVM_LOC_UNMAPPED;
    }
    d = f->dir[c];
    switch (DK_OF(d)) {
    case DK_UNMAPPED:
        return NVM_LOC_UNMAPPED;
    case DK_HOME:
        sb = home_sb(f, lpn);
        break;
    case DK_UNIFORM:
        if (!(d & U_OTHER)) {
            uint32_t u = (d >> 13) & 0xffff;

            if (u < f->g.nsb &&
                (f->sb[u].serial & U_SER_MASK) == (d & U_SER_MASK)) {
                sb = u;
            }
        }
        break;
    default: {
        Chunk *ch = chunk_at(f, d);
        uint32_t i = lpn & (CH_LPNS - 1);

        chunk_refresh(f, ch);
        switch (st_get(ch, i)) {
        case ST_UNMAPPED:
            return NVM_LOC_UNMAPPED;
        case ST_HOME:
            sb = home_sb(f, lpn);
            break;
        case ST_NEW:
            sb = ch->sb1;
            break;
        default:
            if (old_in_rec0(f, ch)) {
                sb = ch->sb0;
            }
            break;
        }
        break;
    }
    }
    if (sb == NVM_FTL_NONE) {
        if (f->fen_total <= 0) {
            return NVM_LOC_NATIVE;
        }
        sb = fen_find(f, (int64_t)ftl_below(f, f->fen_total));
    }
    return f->sb[sb].mode == NVM_SB_SLC ? NVM_LOC_SLC : NVM_LOC_NATIVE;
}

/* ------------------------------------------------------------------ */
/* Lifetime and state injection */

NvmFtl *nvm_ftl_new(const NvmFtlGeom *g)
{
    NvmFtl *f = g_new0(NvmFtl, 1);

    f->g = *g;
    f->slc_lpns = g->sb_lpns / g->bits;
    f->nchunks = (g->nlpn + CH_LPNS - 1) >> CH_SHIFT;
    f->dir = g_new0(uint32_t, f->nchunks);
    f->n_slabs_max = (f->nchunks + SLAB - 1) / SLAB;
    f->slabs = g_new0(Chunk *, f->n_slabs_max);
    f->sb = g_new0(Sb, g->nsb);
    f->free_stack = g_new(uint32_t, g->nsb);
    f->fen = g_new0(int64_t, g->nsb + 1);
    f->fen_step = 1;
    while (f->fen_step * 2 <= g->nsb) {
        f->fen_step *= 2;
    }
    f->pool_free = NVM_FTL_NONE;
    nvm_ftl_reseed(f);
    nvm_ftl_reset(f, 0, 0);
    return f;
}

void nvm_ftl_reseed(NvmFtl *f)
{
    f->rng = f->g.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    if (!f->rng) {
        f->rng = 1;
    }
}

void nvm_ftl_free(NvmFtl *f)
{
    if (!f) {
        return;
    }
    g_free(f->dir);
    for (uint32_t i = 0; i < f->pool_cap >> SLAB_SHIFT; i++) {
        g_free(f->slabs[i]);
    }
    g_free(f->slabs);
    g_free(f->sb);
    g_free(f->free_stack);
    g_free(f->fen);
    g_free(f);
}

size_t nvm_ftl_memory_bytes(const NvmFtl *f)
{
    return sizeof(*f) + sizeof(uint32_t) * f->nchunks +
           sizeof(Chunk *) * f->n_slabs_max +
           sizeof(Chunk) * (size_t)f->pool_cap +
           (sizeof(Sb) + sizeof(uint32_t) + sizeof(int64_t)) *
           (f->g.nsb + 1);
}

size_t nvm_ftl_memory_max_bytes(const NvmFtl *f)
{
    return nvm_ftl_memory_bound(f->g.nlpn, f->g.nsb);
}

size_t nvm_ftl_memory_bound(uint64_t nlpn, uint32_t nsb)
{
    uint64_t nchunks = (nlpn + CH_LPNS - 1) >> CH_SHIFT;
    uint64_t slabs = (nchunks + SLAB - 1) / SLAB;

    /* one detailed chunk per chunk of the capacity at the very most */
    return sizeof(NvmFtl) + sizeof(uint32_t) * nchunks +
           (sizeof(Chunk *) + sizeof(Chunk) * SLAB) * slabs +
           (sizeof(Sb) + sizeof(uint32_t) + sizeof(int64_t)) *
           ((size_t)nsb + 1);
}

void nvm_ftl_reset(NvmFtl *f, uint64_t valid, uint64_t slc_tail)
{
    uint64_t nat;
    uint32_t nn, ns;

    if (valid > f->g.nlpn) {
        valid = f->g.nlpn;
    }
    if (slc_tail > valid) {
        slc_tail = valid;
    }
    nat = valid - slc_tail;
    nn = (nat + f->g.sb_lpns - 1) / f->g.sb_lpns;
    ns = (slc_tail + f->slc_lpns - 1) / f->slc_lpns;
    /* the caller sized the drive so that the fill fits with room to spare */
    if (nn + ns + 2 > f->g.nsb) {
        ns = ns > (nn + ns + 2 - f->g.nsb) ? ns - (nn + ns + 2 - f->g.nsb)
                                            : 0;
        slc_tail = MIN(slc_tail, (uint64_t)ns * f->slc_lpns);
        nat = valid - slc_tail;
        nn = (nat + f->g.sb_lpns - 1) / f->g.sb_lpns;
    }

    for (uint32_t i = 0; i < f->g.nsb; i++) {
        f->sb[i].serial += 1;
    }
    f->pool_free = NVM_FTL_NONE;
    f->pool_used = 0;
    f->pool_live = 0;
    f->home_f = valid;
    f->home_s = slc_tail;
    f->home_nn = nn;
    f->home_ns = ns;
    f->slc_head = f->slc_tail = NVM_FTL_NONE;
    f->open_host[0] = f->open_host[1] = f->open_host[2] = NVM_FTL_NONE;
    f->open_reloc = NVM_FTL_NONE;
    f->valid = valid;
    f->lost = 0;
    f->slc_written = 0;
    f->slc_sbs = 0;
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        Sb *s = &f->sb[i];

        s->valid = s->home = s->attr = s->wp = 0;
        s->open = 0;
        s->fifo_next = NVM_FTL_NONE;
        s->mode = NVM_SB_FREE;
        if (i < nn + ns) {
            uint64_t lo, hi;

            home_range(f, i, &lo, &hi);
            s->mode = i < nn ? NVM_SB_NATIVE : NVM_SB_SLC;
            /* closed; the fill's last one is only partly written */
            s->wp = hi - lo;
            s->valid = s->home = hi - lo;
            if (s->mode == NVM_SB_SLC) {
                f->slc_sbs++;
                f->slc_written += s->wp;
                if (f->slc_tail == NVM_FTL_NONE) {
                    f->slc_head = i;
                } else {
                    f->sb[f->slc_tail].fifo_next = i;
                }
                f->slc_tail = i;
            }
        }
    }
    f->nfree = 0;
    for (uint32_t i = f->g.nsb; i-- > nn + ns;) {
        f->free_stack[f->nfree++] = i;
    }
    for (uint64_t c = 0; c < f->nchunks; c++) {
        uint64_t c0 = c << CH_SHIFT;
        uint32_t n = chunk_lpns(f, c);

        if (c0 + n <= valid) {
            f->dir[c] = DK_HOME << 30;
        } else if (c0 >= valid) {
            f->dir[c] = DK_UNMAPPED << 30;
        } else {
            Chunk *ch;

            f->dir[c] = DK_UNMAPPED << 30;
            ch = chunk_detail(f, c);
            st_fill(ch, valid - c0, ST_HOME);
            ch->nhome = valid - c0;
        }
    }
    fen_rebuild(f);
}

bool nvm_ftl_scatter(NvmFtl *f, uint64_t lo, uint64_t hi, uint32_t keep_free)
{
    uint64_t nat_end = f->home_f - f->home_s;
    uint64_t h = hi - lo, placed = 0;
    uint32_t n, freed = 0, L = f->g.sb_lpns;
    double r, a = 0, b = 50;

    if (lo >= hi || hi > nat_end || f->valid != f->home_f) {
        return false;
    }
    /* the fill's superblocks lose the span's units */
    for (uint32_t i = home_sb(f, lo); i <= home_sb(f, hi - 1); i++) {
        uint64_t slo, shi, k;

        home_range(f, i, &slo, &shi);
        k = MIN(shi, hi) - MAX(slo, lo);
        f->sb[i].valid -= k;
        f->sb[i].home -= k;
        if (!f->sb[i].valid) {
            freed++;
        }
    }
    n = f->nfree + freed > keep_free ? f->nfree + freed - keep_free : 0;
    if ((uint64_t)n * L <= h) {
        /* no room: undo */
        for (uint32_t i = home_sb(f, lo); i <= home_sb(f, hi - 1); i++) {
            uint64_t slo, shi;

            home_range(f, i, &slo, &shi);
            f->sb[i].valid += MIN(shi, hi) - MAX(slo, lo);
            f->sb[i].home += MIN(shi, hi) - MAX(slo, lo);
        }
        return false;
    }
    for (uint32_t i = home_sb(f, lo); i <= home_sb(f, hi - 1); i++) {
        if (!f->sb[i].valid) {
            f->sb[i].wp = 0;
            f->sb[i].mode = NVM_SB_FREE;
            f->sb[i].serial++;
            f->free_stack[f->nfree++] = i;
        }
    }
    /* the span's chunks: all units valid, superblock unrecorded */
    for (uint64_t c = lo >> CH_SHIFT; c << CH_SHIFT < hi; c++) {
        uint64_t c0 = c << CH_SHIFT;
        uint32_t cn = chunk_lpns(f, c);

        if (c0 >= lo && c0 + cn <= hi) {
            chunk_release(f, c);
            f->dir[c] = DK_UNIFORM << 30 | U_OTHER;
        } else {
            Chunk *ch = chunk_detail(f, c);

            for (uint32_t u = 0; u < cn; u++) {
                if (c0 + u >= lo && c0 + u < hi &&
                    st_get(ch, u) == ST_HOME) {
                    st_set(ch, u, ST_OLD);
                    ch->nhome--;
                    ch->noth++;
                }
            }
            chunk_collapse(f, c);
        }
    }
    /* geometric decay: sum_{i<n} L e^{-i r} = h, solved for r */
    for (int it = 0; it < 100; it++) {
        double mid = (a + b) / 2;
        double sum = L * (1 - exp(-(double)n * mid)) / (1 - exp(-mid));

        if (sum > h) {
            a = mid;
        } else {
            b = mid;
        }
    }
    r = (a + b) / 2;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = sb_alloc(f, NVM_SB_NATIVE);
        uint64_t v = i + 1 == n ? h - placed
                                : (uint64_t)llround(L * exp(-(double)i * r));

        if (v > h - placed) {
            v = h - placed;
        }
        if (v > L) {
            v = L;
        }
        f->sb[s].open = 0;
        f->sb[s].wp = L;
        f->sb[s].valid = v;
        fen_add(f, s, v);
        placed += v;
    }
    return true;
}

void nvm_ftl_counts(const NvmFtl *f, NvmFtlCounts *c)
{
    memset(c, 0, sizeof(*c));
    c->valid = f->valid;
    c->free_sbs = f->nfree;
    c->lost = f->lost;
    c->detailed_chunks = f->pool_live;
    c->slc_sbs = f->slc_sbs;
    c->slc_written = f->slc_written;
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        const Sb *s = &f->sb[i];

        if (s->mode == NVM_SB_SLC) {
            c->slc_valid += s->valid;
        }
    }
}

bool nvm_ftl_check(const NvmFtl *f, char **why)
{
    uint32_t n = f->g.nsb;
    uint64_t *home = g_new0(uint64_t, n);
    uint64_t *attr = g_new0(uint64_t, n);
    uint64_t valid = 0, sum = 0;
    bool ok = false;

    *why = NULL;
    for (uint64_t c = 0; c < f->nchunks; c++) {
        uint32_t d = f->dir[c];
        uint64_t c0 = c << CH_SHIFT;
        uint32_t cn = chunk_lpns(f, c);

        switch (DK_OF(d)) {
        case DK_UNMAPPED:
            break;
        case DK_HOME:
            for (uint32_t i = 0; i < cn; i++) {
                home[home_sb(f, c0 + i)]++;
            }
            valid += cn;
            break;
        case DK_UNIFORM:
            if (!(d & U_OTHER)) {
                uint32_t u = (d >> 13) & 0xffff;

                if (u < n && (f->sb[u].serial & U_SER_MASK) ==
                    (d & U_SER_MASK)) {
                    attr[u] += cn;
                }
            }
            valid += cn;
            break;
        default: {
            const Chunk *ch = chunk_at(f, d);
            uint32_t cnt[4] = { 0 };

            for (uint32_t i = 0; i < cn; i++) {
                unsigned s = st_get(ch, i);

                cnt[s]++;
                if (s == ST_HOME) {
                    home[home_sb(f, c0 + i)]++;
                }
            }
            if (cnt[ST_HOME] != ch->nhome || cnt[ST_NEW] != ch->n1 ||
                cnt[ST_OLD] != ch->n0 + ch->noth) {
                *why = g_strdup_printf("chunk %" G_GUINT64_FORMAT
                                       ": counts %u/%u/%u vs states "
                                       "%u/%u/%u", c, ch->nhome, ch->n1,
                                       ch->n0 + ch->noth, cnt[ST_HOME],
                                       cnt[ST_NEW], cnt[ST_OLD]);
                goto out;
            }
            if (ch->sb1 != SB16_NONE && sb_current(f, ch->sb1, ch->ser1)) {
                attr[ch->sb1] += ch->n1;
            }
            if (ch->sb0 != SB16_NONE && sb_current(f, ch->sb0, ch->ser0)) {
                attr[ch->sb0] += ch->n0;
            }
            valid += cnt[1] + cnt[2] + cnt[3];
            break;
        }
        }
    }
    if (valid != f->valid) {
        *why = g_strdup_printf("valid units %" G_GUINT64_FORMAT
                               " vs counter %" G_GUINT64_FORMAT, valid,
                               f->valid);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        const Sb *s = &f->sb[i];

        sum += s->valid;
        if (s->home != home[i] || s->attr != attr[i] ||
            s->valid < s->home + s->attr) {
            *why = g_strdup_printf("superblock %u: valid %u home %u "
                                   "(recount %" G_GUINT64_FORMAT ") attr %u "
                                   "(recount %" G_GUINT64_FORMAT ")", i,
                                   s->valid, s->home, home[i], s->attr,
                                   attr[i]);
            goto out;
        }
        if (s->valid > sb_capacity(f, s) && s->mode != NVM_SB_FREE) {
            *why = g_strdup_printf("superblock %u holds %u > %u units", i,
                                   s->valid, sb_capacity(f, s));
            goto out;
        }
    }
    {
        uint64_t w = 0;
        uint32_t k = 0;

        for (uint32_t i = 0; i < n; i++) {
            if (f->sb[i].mode == NVM_SB_SLC) {
                w += f->sb[i].wp;
                k++;
            }
        }
        if (w != f->slc_written || k != f->slc_sbs) {
            *why = g_strdup_printf("SLC counters %" G_GUINT64_FORMAT
                                   "/%u vs %" G_GUINT64_FORMAT "/%u",
                                   f->slc_written, f->slc_sbs, w, k);
            goto out;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t lo = 0, hi = 0;

        for (uint32_t j = i; j > 0; j -= j & -j) {
            lo += f->fen[j];
        }
        for (uint32_t j = i + 1; j > 0; j -= j & -j) {
            hi += f->fen[j];
        }
        if (hi - lo != (int64_t)f->sb[i].valid - f->sb[i].home -
            f->sb[i].attr) {
            *why = g_strdup_printf("superblock %u: Fenwick weight %" PRId64
                                   " vs %u - %u - %u", i, hi - lo,
                                   f->sb[i].valid, f->sb[i].home,
                                   f->sb[i].attr);
            goto out;
        }
    }
    if (f->lost || sum != f->valid) {
        *why = g_strdup_printf("superblocks hold %" G_GUINT64_FORMAT
                               " units, the map %" G_GUINT64_FORMAT
                               " (lost %" G_GUINT64_FORMAT ")", sum,
                               f->valid, f->lost);
        goto out;
    }
    ok = true;
out:
    g_free(home);
    g_free(attr);
    return ok;
}

