/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mapping state: superblocks allocated and released, and reclaimed by
 * greedy GC (native) or folding (SLC, oldest first).
 */

#include "ftl-int.h"

uint32_t nvm_ftl_sb_capacity(const NvmFtl *f, const Sb *s)
{
    return s->mode == NVM_SB_SLC ? f->slc_lpns : f->g.sb_lpns;
}

uint32_t nvm_ftl_sb_alloc(NvmFtl *f, NvmSbMode mode)
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

    nvm_ftl_fen_add(f, i, -((int64_t)s->valid - s->home - s->attr));
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

    nvm_ftl_home_range(f, i, &lo, &hi);
    for (uint64_t c = lo >> CH_SHIFT; c << CH_SHIFT < hi; c++) {
        uint64_t c0 = c << CH_SHIFT;
        uint32_t d = f->dir[c];
        uint32_t a, b;
        Chunk *ch;

        if (DK_OF(d) != DK_HOME && DK_OF(d) != DK_DETAIL) {
            continue;
        }
        if (DK_OF(d) == DK_HOME && c0 >= lo &&
            c0 + nvm_ftl_chunk_lpns(f, c) <= hi) {
            f->dir[c] = DK_UNIFORM << 30 | U_OTHER;
            continue;
        }
        ch = nvm_ftl_chunk_detail(f, c);
        a = c0 < lo ? lo - c0 : 0;
        b = MIN(hi - c0, (uint64_t)nvm_ftl_chunk_lpns(f, c));
        for (uint32_t u = a; u < b; u++) {
            if (st_get(ch, u) == ST_HOME) {
                st_set(ch, u, ST_OLD);
                ch->nhome--;
                ch->noth++;
            }
        }
        nvm_ftl_chunk_collapse(f, c);
    }
}

/*
 * Move @n units into the relocation stream (unrecorded), noting in @e, if
 * given, the superblocks they went to (at most two: @n is at most one
 * superblock's worth).
 */
static bool reloc_add(NvmFtl *f, uint32_t n, Fwd *e)
{
    uint32_t seg = 0;

    while (n) {
        Sb *s;
        uint32_t room, k;

        if (f->open_reloc == NVM_FTL_NONE) {
            f->open_reloc = nvm_ftl_sb_alloc(f, NVM_SB_NATIVE);
            if (f->open_reloc == NVM_FTL_NONE) {
                return false;
            }
        }
        s = &f->sb[f->open_reloc];
        room = f->g.sb_lpns - s->wp;
        k = MIN(room, n);
        if (e && seg < 2) {
            e->to[seg] = f->open_reloc;
            e->to_ser[seg] = s->serial;
            e->n[seg] = k;
            seg++;
        } else if (e) {
            /* a third place: not followed */
            e->sb = NVM_FTL_NONE;
        }
        s->wp += k;
        s->valid += k;
        nvm_ftl_fen_add(f, f->open_reloc, k);
        n -= k;
        if (s->wp == f->g.sb_lpns) {
            s->open = 0;
            f->open_reloc = NVM_FTL_NONE;
        }
    }
    return true;
}

void nvm_ftl_fwd_clear(NvmFtl *f)
{
    for (uint32_t i = 0; i < FWD_SLOTS; i++) {
        f->fwd[i].sb = NVM_FTL_NONE;
    }
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

int64_t nvm_ftl_slc_head_valid(const NvmFtl *f)
{
    uint32_t v = f->slc_head;

    if (v == NVM_FTL_NONE || f->sb[v].open) {
        return -1;
    }
    return f->sb[v].valid;
}

int64_t nvm_ftl_reclaim(NvmFtl *f, bool slc)
{
    uint32_t v = NVM_FTL_NONE;
    uint32_t moved;
    Fwd *e;
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
    /* where its recorded units go (the fill's are not recorded) */
    e = &f->fwd[nvm_ftl_fwd_slot(v, s->serial)];
    e->sb = v;
    e->ser = s->serial;
    e->to[0] = e->to[1] = NVM_FTL_NONE;
    e->to_ser[0] = e->to_ser[1] = 0;
    e->n[0] = e->n[1] = 0;
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
     * go stale (sb_release changes its serial) and follow the forward
     * noted above.  It may become its own destination: the copies are
     * timed before its erase and reuse.
     */
    sb_release(f, v);
    if (!reloc_add(f, moved, e)) {
        f->lost += moved;
        e->sb = NVM_FTL_NONE;
    }
    return moved;
}
