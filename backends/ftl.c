/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mapping state of the drive model: the logical map (a directory word per
 * chunk, detailed chunks, the fill's layout, the Fenwick tree of
 * unrecorded units) and the host operations on it (ftl-int.h has the
 * design and the map of the files).
 */
#include <string.h>

#include "ftl-int.h"
#include "rng.h"

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
    return nvm_rng_scale(ftl_rand(f), n);
}

void nvm_ftl_fen_add(NvmFtl *f, uint32_t i, int64_t d)
{
    if (!d) {
        return;
    }
    for (uint32_t j = i + 1; j <= f->g.nsb; j += j & -j) {
        f->fen[j] += d;
    }
    f->fen_total += d;
}

void nvm_ftl_fen_rebuild(NvmFtl *f)
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
    nvm_ftl_fen_add(f, s, -1);
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
        nvm_ftl_fen_rebuild(f);
        return;
    }
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        Sb *s = &f->sb[i];
        uint64_t w = s->valid - s->home - s->attr;
        uint64_t d = (uint64_t)((unsigned __int128)w * n / (uint64_t)total);

        s->valid -= d;
        done += d;
    }
    nvm_ftl_fen_rebuild(f);
    for (; done < n; done++) {
        other_remove(f);
    }
}

/*
 * A record of @n units on superblock @sb with serial @ser (only the bits
 * in @mask known), reclaimed since: where its units are now.  Follows the
 * reclaims' forwards (a forward into two superblocks picks one in
 * proportion to the units each took) to a current superblock whose
 * unrecorded units can take the @n, and returns it (@ser set to its
 * serial); NVM_FTL_NONE when the trail is lost, as for any unrecorded
 * unit.  The caller moves the @n units from unrecorded to recorded.
 */
static uint32_t fwd_follow(NvmFtl *f, uint32_t sb, uint32_t *ser,
                           uint32_t mask, uint32_t n)
{
    for (int hop = 0; hop < FWD_HOPS; hop++) {
        const Fwd *e = &f->fwd[nvm_ftl_fwd_slot(sb, *ser)];
        const Sb *s;
        int k = 0;

        if (e->sb != sb || ((e->ser ^ *ser) & mask) ||
            e->to[0] == NVM_FTL_NONE) {
            return NVM_FTL_NONE;
        }
        if (e->to[1] != NVM_FTL_NONE &&
            ftl_below(f, (uint64_t)e->n[0] + e->n[1]) >= e->n[0]) {
            k = 1;
        }
        sb = e->to[k];
        *ser = e->to_ser[k];
        mask = ~0u;
        if (!nvm_ftl_sb_current(f, sb, *ser)) {
            continue;
        }
        s = &f->sb[sb];
        return (int64_t)s->valid - s->home - s->attr >= n ? sb
                                                          : NVM_FTL_NONE;
    }
    return NVM_FTL_NONE;
}

/* @n unrecorded units of current superblock @sb become recorded. */
static void fwd_claim(NvmFtl *f, uint32_t sb, uint32_t n)
{
    f->sb[sb].attr += n;
    nvm_ftl_fen_add(f, sb, -(int64_t)n);
}

/* ------------------------------------------------------------------ */
/* Layout of the fill: units [0, home_f), the last home_s of them in SLC. */

uint32_t nvm_ftl_home_sb(const NvmFtl *f, uint64_t x)
{
    uint64_t nat_end = f->home_f - f->home_s;

    if (x < nat_end) {
        return x / f->g.sb_lpns;
    }
    return f->home_nn + (x - nat_end) / f->slc_lpns;
}

void nvm_ftl_home_range(const NvmFtl *f, uint32_t i, uint64_t *lo,
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

uint32_t nvm_ftl_chunk_lpns(const NvmFtl *f, uint64_t c)
{
    uint64_t left = f->g.nlpn - (c << CH_SHIFT);

    return left < CH_LPNS ? (uint32_t)left : CH_LPNS;
}

/* Words filled with one state for the first @n units. */
void nvm_ftl_st_fill(Chunk *c, uint32_t n, unsigned v)
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

Chunk *nvm_ftl_chunk_at(const NvmFtl *f, uint32_t d)
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

void nvm_ftl_chunk_release(NvmFtl *f, uint64_t c)
{
    uint32_t d = f->dir[c];

    if (DK_OF(d) == DK_DETAIL) {
        uint32_t i = D_PAYLOAD(d);

        pool_at(f, i)->next_free = f->pool_free;
        f->pool_free = i;
        f->pool_live--;
    }
}

bool nvm_ftl_sb_current(const NvmFtl *f, uint32_t sb, uint32_t ser)
{
    return sb < f->g.nsb && f->sb[sb].serial == ser;
}

/* A detailed chunk for @c, expanding a uniform one. */
Chunk *nvm_ftl_chunk_detail(NvmFtl *f, uint64_t c)
{
    uint32_t d = f->dir[c];
    uint32_t n = nvm_ftl_chunk_lpns(f, c);
    Chunk *ch;
    uint32_t i;

    if (DK_OF(d) == DK_DETAIL) {
        return nvm_ftl_chunk_at(f, d);
    }
    i = chunk_alloc(f);
    ch = pool_at(f, i);
    memset(ch, 0, sizeof(*ch));
    ch->sb0 = ch->sb1 = SB16_NONE;
    switch (DK_OF(d)) {
    case DK_UNMAPPED:
        break;
    case DK_HOME:
        nvm_ftl_st_fill(ch, n, ST_HOME);
        ch->nhome = n;
        break;
    case DK_UNIFORM:
        if (!(d & U_OTHER)) {
            uint32_t sb = (d >> 13) & 0xffff;

            uint32_t ser = d & U_SER_MASK;

            if (sb < f->g.nsb &&
                (f->sb[sb].serial & U_SER_MASK) == ser) {
                nvm_ftl_st_fill(ch, n, ST_NEW);
                ch->n1 = n;
                ch->sb1 = sb;
                ch->ser1 = f->sb[sb].serial;
                ch->run1 = RUN_ASSUMED;
                break;
            }
            /* reclaimed since: its units are where the reclaim put them */
            sb = sb < f->g.nsb ? fwd_follow(f, sb, &ser, U_SER_MASK, n)
                               : NVM_FTL_NONE;
            if (sb != NVM_FTL_NONE) {
                fwd_claim(f, sb, n);
                nvm_ftl_st_fill(ch, n, ST_NEW);
                ch->n1 = n;
                ch->sb1 = sb;
                ch->ser1 = ser;
                ch->run1 = RUN_ASSUMED;
                break;
            }
        }
        nvm_ftl_st_fill(ch, n, ST_OLD);
        ch->noth = n;
        break;
    }
    f->dir[c] = DK_DETAIL << 30 | i;
    return ch;
}

/* Back to a directory word if the chunk became uniform. */
void nvm_ftl_chunk_collapse(NvmFtl *f, uint64_t c)
{
    Chunk *ch = nvm_ftl_chunk_at(f, f->dir[c]);
    uint32_t n = nvm_ftl_chunk_lpns(f, c);
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
    nvm_ftl_chunk_release(f, c);
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

/* A stale record of @n units on *@sb: follow it (true) or not (false). */
static bool record_follow(NvmFtl *f, uint16_t *sb, uint32_t *ser, uint32_t n)
{
    uint32_t s = *ser;
    uint32_t to = n ? fwd_follow(f, *sb, &s, ~0u, n) : NVM_FTL_NONE;

    if (to == NVM_FTL_NONE) {
        return false;
    }
    fwd_claim(f, to, n);
    *sb = to;
    *ser = s;
    return true;
}

/*
 * Records of superblocks that were reclaimed since follow their units to
 * where the reclaim moved them, or are dropped when that is lost.
 */
static void chunk_refresh(NvmFtl *f, Chunk *ch)
{
    if (ch->sb1 != SB16_NONE && !nvm_ftl_sb_current(f, ch->sb1, ch->ser1)) {
        if (record_follow(f, &ch->sb1, &ch->ser1, ch->n1)) {
            /* a reclaim copies in order: a run stays one, not its offset */
            if (ch->run1 != RUN_BROKEN && ch->run1 != RUN_NONE) {
                ch->run1 = RUN_ASSUMED;
            }
        } else {
            relabel_new_old(ch);
            ch->noth += ch->n1;
            ch->n1 = 0;
            ch->sb1 = SB16_NONE;
            ch->run1 = RUN_NONE;
        }
    }
    if (ch->sb0 != SB16_NONE && !nvm_ftl_sb_current(f, ch->sb0, ch->ser0) &&
        !record_follow(f, &ch->sb0, &ch->ser0, ch->n0)) {
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
        s = &f->sb[nvm_ftl_home_sb(f, x)];
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
        nvm_ftl_fen_add(f, ch->sb0, ch->n0);
        ch->noth += ch->n0;
    }
    relabel_new_old(ch);
    ch->sb0 = ch->sb1;
    ch->ser0 = ch->ser1;
    ch->n0 = ch->n1;
    ch->sb1 = sb;
    ch->ser1 = f->sb[sb].serial;
    ch->n1 = 0;
    ch->run1 = RUN_NONE;
}

/* Unit @i written at @wp of the latest record: does it continue its run? */
static void chunk_run(Chunk *ch, uint32_t i, uint32_t wp)
{
    uint32_t v = wp - i + RUN_BASE;

    if (ch->run1 == RUN_NONE) {
        ch->run1 = v;
    } else if (ch->run1 != v) {
        ch->run1 = RUN_BROKEN;
    }
}

/* ------------------------------------------------------------------ */
/* Host operations */

uint32_t nvm_ftl_open_room(const NvmFtl *f, NvmSbMode mode)
{
    uint32_t i = f->open_host[mode];

    return i == NVM_FTL_NONE ? 0
                             : nvm_ftl_sb_capacity(f, &f->sb[i]) - f->sb[i].wp;
}

/*
 * Hints for a write of @lpn some writes from now (the untimed
 * preconditioning, model-state.c): at @stage 0 the directory word, at 1
 * the chunk it points to, where the write will look first.  Changes
 * nothing but what the CPU caches: a random write over a 2 TB drive's
 * span misses in every level on its chunk.
 */
void nvm_ftl_prefetch(const NvmFtl *f, uint64_t lpn, int stage)
{
    uint64_t c = lpn >> CH_SHIFT;

    if (c >= f->nchunks) {
        return;
    }
    if (stage == 0) {
        __builtin_prefetch(&f->dir[c], 0, 1);
    } else if (DK_OF(f->dir[c]) == DK_DETAIL) {
        const Chunk *ch = nvm_ftl_chunk_at(f, f->dir[c]);

        __builtin_prefetch(&ch->ser0, 1, 1);
        __builtin_prefetch(&ch->st[(lpn & (CH_LPNS - 1)) >> 5], 1, 1);
    }
}

/*
 * The open host superblock of @mode if it has room, else a new one (the
 * full one closed); NVM_FTL_NONE when none is free.
 */
static uint32_t open_host_room(NvmFtl *f, NvmSbMode mode)
{
    uint32_t w = f->open_host[mode];

    if (w != NVM_FTL_NONE &&
        f->sb[w].wp < nvm_ftl_sb_capacity(f, &f->sb[w])) {
        return w;
    }
    if (w != NVM_FTL_NONE) {
        f->sb[w].open = 0;
    }
    return f->open_host[mode] = nvm_ftl_sb_alloc(f, mode);
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
        Chunk *ch = nvm_ftl_chunk_detail(f, c);

        chunk_refresh(f, ch);
        for (; i < stop; i++, lpn++) {
            uint32_t w = open_host_room(f, mode);
            Sb *s;

            if (w == NVM_FTL_NONE) {
                nvm_ftl_chunk_collapse(f, c);
                return false;
            }
            s = &f->sb[w];
            unit_invalidate(f, ch, i, lpn);
            chunk_record(f, ch, w);
            chunk_run(ch, i, s->wp);
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
        nvm_ftl_chunk_collapse(f, c);
    }
    return true;
}

bool nvm_ftl_pad(NvmFtl *f, uint32_t n, NvmSbMode mode)
{
    while (n) {
        uint32_t w = open_host_room(f, mode);
        uint32_t k;
        Sb *s;

        if (w == NVM_FTL_NONE) {
            return false;
        }
        s = &f->sb[w];
        k = MIN(n, nvm_ftl_sb_capacity(f, s) - s->wp);
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
        uint32_t cn = nvm_ftl_chunk_lpns(f, c);
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
            nvm_ftl_home_sb(f, c0) == nvm_ftl_home_sb(f, c0 + cn - 1)) {
            Sb *s = &f->sb[nvm_ftl_home_sb(f, c0)];

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
                uint32_t ser = d & U_SER_MASK;

                u = u < f->g.nsb ? fwd_follow(f, u, &ser, U_SER_MASK, cn)
                                 : NVM_FTL_NONE;
                if (u != NVM_FTL_NONE) {
                    f->sb[u].valid -= cn;
                    nvm_ftl_fen_add(f, u, -(int64_t)cn);
                } else {
                    others += cn;
                }
            }
            f->valid -= cn;
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        if (i == 0 && stop == cn && DK_OF(d) == DK_DETAIL &&
            nvm_ftl_home_sb(f, c0) == nvm_ftl_home_sb(f, c0 + cn - 1)) {
            Chunk *ch = nvm_ftl_chunk_at(f, d);

            chunk_refresh(f, ch);
            if (ch->nhome) {
                Sb *s = &f->sb[nvm_ftl_home_sb(f, c0)];

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
            nvm_ftl_chunk_release(f, c);
            f->dir[c] = DK_UNMAPPED << 30;
            lpn = c0 + cn;
            continue;
        }
        {
            Chunk *ch = nvm_ftl_chunk_detail(f, c);

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
            nvm_ftl_chunk_collapse(f, c);
        }
        lpn = c0 + stop;
    }
    other_remove_many(f, others);
}

/* A unit's place when only its superblock (or nothing) is known. */
static uint64_t place_hash(uint64_t lpn, uint64_t salt)
{
    uint64_t z = lpn * 0x9e3779b97f4a7c15ULL ^ salt;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void place_set(NvmPlace *pl, NvmPlaceKind kind, uint32_t sb,
                      uint64_t pos)
{
    if (pl) {
        pl->kind = kind;
        pl->sb = sb;
        pl->pos = pos;
    }
}

/* A recorded unit of @sb (serial @ser): hashed with the record. */
static void place_recorded(NvmPlace *pl, uint64_t lpn, uint32_t sb,
                           uint32_t ser)
{
    place_set(pl, NVM_PLACE_SCATTERED, sb,
              place_hash(lpn, (uint64_t)ser << 32 | sb));
}

NvmLoc nvm_ftl_place(NvmFtl *f, uint64_t lpn, NvmPlace *pl)
{
    uint64_t c = lpn >> CH_SHIFT;
    uint32_t d, sb = NVM_FTL_NONE;

    if (lpn >= f->g.nlpn) {
        return NVM_LOC_UNMAPPED;
    }
    /* units whose superblock is not recorded: hashed with the geometry */
    place_set(pl, NVM_PLACE_SCATTERED, NVM_FTL_NONE,
              place_hash(lpn, f->g.seed));
    d = f->dir[c];
    switch (DK_OF(d)) {
    case DK_UNMAPPED:
        return NVM_LOC_UNMAPPED;
    case DK_HOME:
        sb = nvm_ftl_home_sb(f, lpn);
        place_set(pl, NVM_PLACE_HOME, sb, lpn);
        break;
    case DK_UNIFORM:
        if (!(d & U_OTHER)) {
            uint32_t u = (d >> 13) & 0xffff;

            if (u < f->g.nsb &&
                (f->sb[u].serial & U_SER_MASK) == (d & U_SER_MASK)) {
                sb = u;
                /* a whole chunk in one superblock: written in order */
                place_set(pl, NVM_PLACE_RUN, sb, lpn);
            } else {
                /* reclaimed since: follow it (the chunk's word is redone) */
                nvm_ftl_chunk_detail(f, c);
                nvm_ftl_chunk_collapse(f, c);
                d = f->dir[c];
                u = (d >> 13) & 0xffff;
                if (DK_OF(d) == DK_UNIFORM && !(d & U_OTHER)) {
                    sb = u;
                    place_set(pl, NVM_PLACE_RUN, sb, lpn);
                }
            }
        }
        break;
    default: {
        Chunk *ch = nvm_ftl_chunk_at(f, d);
        uint32_t i = lpn & (CH_LPNS - 1);

        chunk_refresh(f, ch);
        switch (st_get(ch, i)) {
        case ST_UNMAPPED:
            return NVM_LOC_UNMAPPED;
        case ST_HOME:
            sb = nvm_ftl_home_sb(f, lpn);
            place_set(pl, NVM_PLACE_HOME, sb, lpn);
            break;
        case ST_NEW:
            sb = ch->sb1;
            if (ch->run1 == RUN_ASSUMED) {
                place_set(pl, NVM_PLACE_RUN, sb, lpn);
            } else if (ch->run1 != RUN_BROKEN && ch->run1 != RUN_NONE) {
                place_set(pl, NVM_PLACE_RUN, sb,
                          (uint64_t)ch->run1 - RUN_BASE + i);
            } else {
                place_recorded(pl, lpn, sb, ch->ser1);
            }
            break;
        default:
            if (old_in_rec0(f, ch)) {
                sb = ch->sb0;
                place_recorded(pl, lpn, sb, ch->ser0);
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

NvmLoc nvm_ftl_locate(NvmFtl *f, uint64_t lpn)
{
    return nvm_ftl_place(f, lpn, NULL);
}
