/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mapping state: lifetime, memory, and state injection (a fill's layout,
 * a span in random-write steady state).
 */
#include <math.h>
#include <string.h>

#include "ftl-int.h"

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
    f->fwd = g_new(Fwd, FWD_SLOTS);
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
    g_free(f->fwd);
    g_free(f);
}

/*
 * Make @dst a copy of @src that shares no memory with it (the model's
 * checkpoint of a preconditioned state, model-state.c): the same logical
 * map, detailed chunks at the same pool indices, superblocks, free pool,
 * Fenwick tree, reclaims' forwards and random stream.  The two have the
 * same geometry.
 */
void nvm_ftl_copy(NvmFtl *dst, const NvmFtl *src)
{
    NvmFtl keep = *dst;
    uint32_t nslabs = src->pool_cap >> SLAB_SHIFT;

    g_assert(dst->g.nlpn == src->g.nlpn && dst->g.nsb == src->g.nsb);
    *dst = *src;
    dst->dir = keep.dir;
    dst->slabs = keep.slabs;
    dst->sb = keep.sb;
    dst->free_stack = keep.free_stack;
    dst->fen = keep.fen;
    dst->fwd = keep.fwd;
    dst->pool_cap = keep.pool_cap;
    memcpy(dst->dir, src->dir, sizeof(uint32_t) * src->nchunks);
    for (uint32_t i = 0; i < nslabs; i++) {
        uint32_t used = src->pool_used > i * SLAB ?
                        MIN(src->pool_used - i * SLAB, SLAB) : 0;

        if (!dst->slabs[i]) {
            dst->slabs[i] = g_new(Chunk, SLAB);
        }
        memcpy(dst->slabs[i], src->slabs[i], sizeof(Chunk) * used);
    }
    dst->pool_cap = MAX(dst->pool_cap, src->pool_cap);
    memcpy(dst->sb, src->sb, sizeof(Sb) * src->g.nsb);
    memcpy(dst->free_stack, src->free_stack, sizeof(uint32_t) * src->g.nsb);
    memcpy(dst->fen, src->fen, sizeof(int64_t) * (src->g.nsb + 1));
    memcpy(dst->fwd, src->fwd, sizeof(Fwd) * FWD_SLOTS);
}

NvmFtl *nvm_ftl_clone(const NvmFtl *f)
{
    NvmFtl *c = nvm_ftl_new(&f->g);

    nvm_ftl_copy(c, f);
    return c;
}

static uint64_t digest_mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    /* FNV-1a, 64 bits */
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    return h;
}

#define DIGEST(h, v) digest_mix((h), &(v), sizeof(v))

/*
 * A digest of everything that sets what @f does next: geometry, the
 * directory and the detailed chunks it points to, superblocks, the free
 * pool, the reclaims' forwards, the fill's layout, the counts and the
 * random stream.  Equal digests: equal states (tests, and the
 * checkpoint's key).
 */
uint64_t nvm_ftl_digest(const NvmFtl *f)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    uint32_t pool[4] = { f->pool_free, f->pool_used, f->pool_live, 0 };

    h = DIGEST(h, f->g.nlpn);
    h = DIGEST(h, f->g.sb_lpns);
    h = DIGEST(h, f->g.bits);
    h = DIGEST(h, f->g.nsb);
    h = DIGEST(h, f->g.seed);
    h = digest_mix(h, f->dir, sizeof(uint32_t) * f->nchunks);
    for (uint32_t i = 0; i < f->pool_used; i++) {
        const Chunk *c = &f->slabs[i >> SLAB_SHIFT][i & (SLAB - 1)];

        h = digest_mix(h, c->st, sizeof(c->st));
        h = DIGEST(h, c->ser0);
        h = DIGEST(h, c->ser1);
        h = DIGEST(h, c->sb0);
        h = DIGEST(h, c->sb1);
        h = DIGEST(h, c->n0);
        h = DIGEST(h, c->n1);
        h = DIGEST(h, c->noth);
        h = DIGEST(h, c->nhome);
        h = DIGEST(h, c->run1);
    }
    h = digest_mix(h, pool, sizeof(pool));
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        const Sb *s = &f->sb[i];

        h = DIGEST(h, s->valid);
        h = DIGEST(h, s->home);
        h = DIGEST(h, s->attr);
        h = DIGEST(h, s->wp);
        h = DIGEST(h, s->serial);
        h = DIGEST(h, s->fifo_next);
        h = DIGEST(h, s->mode);
        h = DIGEST(h, s->open);
    }
    h = digest_mix(h, f->free_stack, sizeof(uint32_t) * f->nfree);
    h = DIGEST(h, f->nfree);
    h = digest_mix(h, f->fen, sizeof(int64_t) * (f->g.nsb + 1));
    h = DIGEST(h, f->fen_total);
    for (uint32_t i = 0; i < FWD_SLOTS; i++) {
        const Fwd *e = &f->fwd[i];

        if (e->sb != NVM_FTL_NONE) {
            h = DIGEST(h, i);
            h = digest_mix(h, e, sizeof(*e));
        }
    }
    h = DIGEST(h, f->slc_head);
    h = DIGEST(h, f->slc_tail);
    h = digest_mix(h, f->open_host, sizeof(f->open_host));
    h = DIGEST(h, f->open_reloc);
    h = DIGEST(h, f->home_f);
    h = DIGEST(h, f->home_s);
    h = DIGEST(h, f->home_nn);
    h = DIGEST(h, f->home_ns);
    h = DIGEST(h, f->valid);
    h = DIGEST(h, f->slc_written);
    h = DIGEST(h, f->slc_sbs);
    h = DIGEST(h, f->lost);
    h = DIGEST(h, f->rng);
    return h;
}

size_t nvm_ftl_memory_bytes(const NvmFtl *f)
{
    return sizeof(*f) + sizeof(uint32_t) * f->nchunks +
           sizeof(Chunk *) * f->n_slabs_max +
           sizeof(Chunk) * (size_t)f->pool_cap +
           (sizeof(Sb) + sizeof(uint32_t) + sizeof(int64_t)) *
           (f->g.nsb + 1) + sizeof(Fwd) * FWD_SLOTS;
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
           ((size_t)nsb + 1) + sizeof(Fwd) * FWD_SLOTS;
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

    /*
     * Every record goes (the directory is rewritten and the chunk pool
     * emptied below), so no serial can match a stale one: they start again
     * from 0.  A state set on a drive with a history then equals the same
     * state on a new model, serials included, and reads placed by a hash
     * of them (nvm_ftl_place()) fall on the same dies: the device, which
     * keeps its model across workloads, equals the model fed its trace.
     */
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        f->sb[i].serial = 0;
    }
    nvm_ftl_fwd_clear(f);
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

            nvm_ftl_home_range(f, i, &lo, &hi);
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
        uint32_t n = nvm_ftl_chunk_lpns(f, c);

        if (c0 + n <= valid) {
            f->dir[c] = DK_HOME << 30;
        } else if (c0 >= valid) {
            f->dir[c] = DK_UNMAPPED << 30;
        } else {
            Chunk *ch;

            f->dir[c] = DK_UNMAPPED << 30;
            ch = nvm_ftl_chunk_detail(f, c);
            nvm_ftl_st_fill(ch, valid - c0, ST_HOME);
            ch->nhome = valid - c0;
        }
    }
    nvm_ftl_fen_rebuild(f);
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
    for (uint32_t i = nvm_ftl_home_sb(f, lo);
         i <= nvm_ftl_home_sb(f, hi - 1); i++) {
        uint64_t slo, shi, k;

        nvm_ftl_home_range(f, i, &slo, &shi);
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
        for (uint32_t i = nvm_ftl_home_sb(f, lo);
             i <= nvm_ftl_home_sb(f, hi - 1); i++) {
            uint64_t slo, shi;

            nvm_ftl_home_range(f, i, &slo, &shi);
            f->sb[i].valid += MIN(shi, hi) - MAX(slo, lo);
            f->sb[i].home += MIN(shi, hi) - MAX(slo, lo);
        }
        return false;
    }
    for (uint32_t i = nvm_ftl_home_sb(f, lo);
         i <= nvm_ftl_home_sb(f, hi - 1); i++) {
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
        uint32_t cn = nvm_ftl_chunk_lpns(f, c);

        if (c0 >= lo && c0 + cn <= hi) {
            nvm_ftl_chunk_release(f, c);
            f->dir[c] = DK_UNIFORM << 30 | U_OTHER;
        } else {
            Chunk *ch = nvm_ftl_chunk_detail(f, c);

            for (uint32_t u = 0; u < cn; u++) {
                if (c0 + u >= lo && c0 + u < hi &&
                    st_get(ch, u) == ST_HOME) {
                    st_set(ch, u, ST_OLD);
                    ch->nhome--;
                    ch->noth++;
                }
            }
            nvm_ftl_chunk_collapse(f, c);
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
        uint32_t s = nvm_ftl_sb_alloc(f, NVM_SB_NATIVE);
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
        nvm_ftl_fen_add(f, s, v);
        placed += v;
    }
    return true;
}
