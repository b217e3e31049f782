/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive performance model: resource reservation over the PCIe link,
 * firmware cores, data paths, flash channels and one timeline per die, on
 * top of the mapping state of ftl.c (valid data, superblocks, SLC cache,
 * greedy GC), with background folding and GC, a write buffer, a map
 * cache, power states and a thermal model.  See README.md.
 *
 * This file: the model's setup, the host command paths, the write buffer
 * and the map cache.  Die timelines are in model-die.c, folding and GC in
 * model-bg.c, power and thermal in model-power.c, state injection in
 * model-state.c, statistics in model-stats.c (model-int.h has the map).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"
#include "rng.h"

/* ------------------------------------------------------------------ */
/*
 * PRNG: xoshiro256** (Blackman & Vigna, a public domain algorithm, written
 * out in model-int.h from its description) seeded by rng.h's splitmix64.
 */

/* The random numbers (the model's and the FTL's) as a new drive's. */
void nvm_model_reseed(NvmModel *m)
{
    uint64_t x = m->seed;

    for (int i = 0; i < 4; i++) {
        m->rng[i] = nvm_rng_u64(&x);
    }
    if (m->ftl) {
        nvm_ftl_reseed(m->ftl);
    }
}


/* ------------------------------------------------------------------ */
/*
 * Map: the logical-to-physical table is looked up in map chunks of
 * chunk-bytes.  DRAM drives cache cache-bytes of it (all of it when it
 * fits); DRAM-less ones keep a small on-chip cache and the rest in the
 * host memory buffer, a link round trip away.  A miss everywhere reads the
 * chunk from NAND (SLC); with miss-blocks-core the firmware core waits.
 *
 * A write changes its chunk: the chunk is dirty in the DRAM cache or the
 * HMB (the on-chip cache writes through to them) until it is evicted, and
 * an evicted dirty chunk goes back to NAND: the chunks evicted are
 * gathered into pages, each one SLC page program on the dies in turn,
 * behind the die's queue (the host command does not wait for it).  A map
 * that fits its cache is never evicted, so only a span wider than the
 * cache's coverage pays (the P2 2 TB's 100 GB against its HMB's 64 GB).
 * Not modelled: the map blocks' own GC (their pages are rewritten whole,
 * so mostly invalid when reclaimed).  Write-back before eviction, for
 * power-loss safety, only with [map] checkpoint-bytes (below).
 */

#define MAP_TAG_DIRTY 0x80000000u

/* Does @tag (a slot of a tag array) hold chunk @mp, dirty or not? */
static bool nvm_tag_holds(uint32_t tag, uint64_t mp)
{
    return (tag & ~MAP_TAG_DIRTY) == nvm_tag_of(mp);
}

/*
 * Is chunk @mp in @tags?  On a miss it takes the slot; *@evicted_dirty
 * says whether the chunk it replaced was dirty.  @dirty marks it dirty.
 */
static bool nvm_tag_hit(uint32_t *tags, uint32_t n, uint64_t mp, bool dirty,
                        bool *evicted_dirty)
{
    uint32_t *tag = &tags[mp % n];

    *evicted_dirty = false;
    if (nvm_tag_holds(*tag, mp)) {
        *tag |= dirty ? MAP_TAG_DIRTY : 0;
        return true;
    }
    *evicted_dirty = (*tag & MAP_TAG_DIRTY) != 0;
    *tag = nvm_tag_of(mp) | (dirty ? MAP_TAG_DIRTY : 0);
    return false;
}

/*
 * One SLC program of @bytes of map or journal on @die, ready at @t;
 * returns its end.
 */
static uint64_t nvm_map_page_program(NvmModel *m, unsigned die, uint64_t t,
                                     uint32_t bytes)
{
    double prog = m->prog_slc_ns * nvm_jitter(m) * m->slow;
    uint64_t end = nvm_die_push(m, die, t, (uint64_t)prog, OP_PROGRAM,
                                NONE32, SLOT_SLC);

    nvm_energy(m, m->program_slc_mw, prog);
    m->nand_written += bytes;
    m->total_nand_written += bytes;
    return end;
}

/* A dirty chunk evicted at @t: a page of them is programmed (SLC). */
static void nvm_map_writeback(NvmModel *m, uint64_t t)
{
    m->map_writebacks++;
    m->map_wb_bytes += m->map_chunk_bytes;
    if (m->map_wb_bytes < m->page_bytes) {
        return;
    }
    m->map_wb_bytes -= m->page_bytes;
    nvm_map_page_program(m, nvm_die_turn(m, &m->map_wb_die), t, m->page_bytes);
}

/*
 * Map checkpoints ([map] checkpoint-bytes): every so many host bytes
 * written, the chunks changed since the last checkpoint are programmed
 * (SLC, a multi-plane unit at a time, the dies in turn, behind their
 * queues: the host command does not wait), so that a power loss replays
 * at most that much.  Random writes change a chunk per write where a
 * sequential stream changes one per chunk's coverage (4 MiB of data for
 * a 4 KiB chunk of 4 B entries), so the cost falls on random writes.
 */
static void nvm_map_ckpt_mark(NvmModel *m, uint64_t mp)
{
    uint64_t bit = 1ULL << (mp & 63);

    if (!(m->map_ckpt_bits[mp >> 6] & bit)) {
        m->map_ckpt_bits[mp >> 6] |= bit;
        m->map_ckpt_n++;
    }
}

/* Forget which chunks changed; the bytes towards the next mark stay. */
static void nvm_map_ckpt_clear(NvmModel *m)
{
    if (m->map_ckpt_n) {
        memset(m->map_ckpt_bits, 0, sizeof(uint64_t) * m->map_ckpt_words);
    }
    m->map_ckpt_n = 0;
}

static void nvm_map_checkpoint(NvmModel *m, uint64_t t)
{
    uint64_t bytes = m->map_ckpt_n * m->map_chunk_bytes;
    uint64_t units = (bytes + m->slc_unit_bytes - 1) / m->slc_unit_bytes;

    m->map_checkpoints++;
    m->map_checkpointed += m->map_ckpt_n;
    nvm_map_ckpt_clear(m);
    for (uint64_t u = 0; u < units; u++) {
        nvm_map_page_program(m, nvm_die_turn(m, &m->map_wb_die), t,
                             m->slc_unit_bytes);
    }
}

/*
 * @bytes of host data written at @t: a checkpoint when they reach its mark.
 * The bytes past the mark count towards the next one, so checkpoints come
 * every N bytes whatever the writes' size (one, though, for a write that
 * passes several marks).
 */
static void nvm_map_ckpt_written(NvmModel *m, uint64_t bytes, uint64_t t)
{
    m->map_ckpt_acc += bytes;
    if (m->map_ckpt_acc >= m->map_ckpt_bytes) {
        m->map_ckpt_acc %= m->map_ckpt_bytes;
        nvm_map_checkpoint(m, t);
    }
}

/* Forget what changed: the drive was just prepared (nvm_quiesce()). */
void nvm_map_ckpt_reset(NvmModel *m)
{
    nvm_map_ckpt_clear(m);
    m->map_ckpt_acc = 0;
}

uint64_t nvm_map_lookup(NvmModel *m, uint64_t off, uint64_t t,
                        unsigned core, bool update)
{
    uint64_t mp = off >> m->map_cover_shift;
    uint64_t done = t;
    bool wb = false, sram_wb;

    if (update && m->map_ckpt_bits) {
        nvm_map_ckpt_mark(m, mp);
    }

    if (m->map_hmb) {
        bool sram_hit = m->n_sram_tags &&
                        nvm_tag_hit(m->sram_tags, m->n_sram_tags, mp, false,
                                    &sram_wb);

        if (sram_hit && !update) {
            return t;
        }
        if (sram_hit) {
            /* written through to the HMB's copy, if it holds one */
            uint32_t *tag = m->n_map_tags ?
                            &m->map_tags[mp % m->n_map_tags] : NULL;

            if (tag && nvm_tag_holds(*tag, mp)) {
                *tag |= MAP_TAG_DIRTY;
            }
            return t;
        }
        if (m->n_map_tags && nvm_tag_hit(m->map_tags, m->n_map_tags, mp,
                                         update, &wb)) {
            done = t + m->hmb_rtt_ns;
            goto out;
        }
    } else if (!m->n_map_tags ||
               nvm_tag_hit(m->map_tags, m->n_map_tags, mp, update, &wb)) {
        return t;
    }
    if (wb) {
        nvm_map_writeback(m, t);
    }
    m->map_misses++;
    done = nvm_page_read(m, mp * (m->map_chunk_bytes < m->page_bytes ?
                                  1 : m->map_chunk_bytes / m->page_bytes),
                         t, m->read_slc_ns, m->map_chunk_bytes, false);
out:
    if ((update ? m->map_update_blocks_core : m->map_miss_blocks_core) &&
        done > m->core_free[core]) {
        m->core_free[core] = done;
    }
    return done;
}


/* ------------------------------------------------------------------ */
/* Write path: buffer -> program units on the dies in turn. */

/*
 * The next program unit: the reclaims owed first, then SLC or native
 * (m->unit_slc, m->unit_cap).  Host writes and untimed ones alike.
 */
static void nvm_choose_unit(NvmModel *m, uint64_t t)
{
    uint64_t unit_lpns = m->slc_unit_bytes >> m->lpn_shift;
    uint64_t slc_size;

    nvm_bg_urgent(m, t);
    nvm_bg_slc_room(m, t);
    slc_size = nvm_slc_size(m, nvm_ftl_valid(m->ftl));
    /*
     * a full drive's static cache, written through (slc-first-when-full);
     * a drive without one has nothing to write through
     */
    m->unit_slc = ((m->slc_first_when_full && m->slc_static_lpns &&
                    slc_size <= m->slc_static_lpns) ||
                   nvm_ftl_slc_written(m->ftl) + unit_lpns <= slc_size) &&
                  (nvm_ftl_open_room(m->ftl, NVM_SB_SLC) >= unit_lpns ||
                   nvm_ftl_free_sbs(m->ftl) > m->gc_urgent_free + 1);
    m->unit_cap = m->unit_slc ? m->slc_unit_bytes : m->native_unit_bytes;
    m->unit_fill = 0;
    m->unit_open = true;
}

static void nvm_open_unit(NvmModel *m, uint64_t t)
{
    Unit *u;

    nvm_choose_unit(m, t);
    m->unit_ready = 0;
    u = nvm_unit(m, m->unit_seq);
    u->seq = m->unit_seq;
    u->end = OPEN_END;
    u->stream_start = m->stream_bytes;
    u->stream_end = m->stream_bytes;
}

/* Program the open unit (padded if it is not full); returns its end. */
static uint64_t nvm_program_unit(NvmModel *m, uint64_t t)
{
    unsigned die = nvm_die_turn(m, &m->next_die);
    uint64_t ready = m->unit_ready > t ? m->unit_ready : t;
    uint64_t xfer = (uint64_t)(m->unit_cap * m->chan_ns_per_byte);
    uint64_t xend = nvm_channel(m, die, ready, xfer);
    double prog = (m->unit_slc ? m->prog_slc_ns : m->prog_native_ns) *
                  nvm_jitter(m) * m->slow;
    uint32_t pad = (m->unit_cap - m->unit_fill) >> m->lpn_shift;
    Unit *u = nvm_unit(m, m->unit_seq);
    uint64_t end;

    if (pad) {
        nvm_ftl_pad(m->ftl, pad, m->unit_slc ? NVM_SB_SLC : NVM_SB_NATIVE);
    }
    end = nvm_die_push(m, die, xend, (uint64_t)prog, OP_PROGRAM,
                       m->unit_seq % m->n_units,
                       m->unit_slc ? SLOT_SLC : SLOT_NATIVE);
    nvm_energy(m, m->unit_slc ? m->program_slc_mw : m->program_mw, prog);
    u->end = end;
    u->stream_end = m->stream_bytes;
    m->nand_written += m->unit_cap;
    m->total_nand_written += m->unit_cap;
    m->unit_open = false;
    m->unit_seq++;
    nvm_bg_interleave(m, ready, m->unit_cap);
    return end;
}

/*
 * Append host data [@off, @off + @b) that arrived at @t; returns when the
 * buffer admits it (and, with @fua, when it is programmed).
 */
static uint64_t nvm_buffer_write(NvmModel *m, uint64_t off, uint64_t b,
                                 uint64_t t, bool fua)
{
    uint64_t lpn = off >> m->lpn_shift;
    uint64_t last = (off + b - 1) >> m->lpn_shift;
    uint64_t done = t, fua_end = 0;

    m->pristine = false;
    m->dirty = true;
    while (lpn <= last) {
        uint32_t n;
        NvmSbMode mode;

        if (!m->unit_open) {
            nvm_open_unit(m, t);
        }
        mode = m->unit_slc ? NVM_SB_SLC : NVM_SB_NATIVE;
        n = (m->unit_cap - m->unit_fill) >> m->lpn_shift;
        if (n > last + 1 - lpn) {
            n = last + 1 - lpn;
        }
        if (!nvm_ftl_write(m->ftl, lpn, n, mode)) {
            /* out of free superblocks: reclaim whatever it takes */
            nvm_bg_urgent(m, t);
            if (!nvm_ftl_write(m->ftl, lpn, n, mode)) {
                m->map_lost += n;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t *e = &m->bh[((lpn + i) & m->bh_mask) * 2];

            e[0] = lpn + i + 1;
            e[1] = m->unit_seq;
        }
        lpn += n;
        m->unit_fill += n << m->lpn_shift;
        m->stream_bytes += (uint64_t)n << m->lpn_shift;
        if (t > m->unit_ready) {
            m->unit_ready = t;
        }
        if (m->unit_fill >= m->unit_cap) {
            uint64_t end = nvm_program_unit(m, t);

            if (fua) {
                fua_end = end > fua_end ? end : fua_end;
            }
        }
    }
    if (fua && m->unit_open && m->unit_fill) {
        uint64_t end = nvm_program_unit(m, t);

        fua_end = end > fua_end ? end : fua_end;
    }
    /* Buffer full: wait until the data B bytes back is programmed. */
    if (m->stream_bytes > m->write_buffer_bytes) {
        uint64_t x = m->stream_bytes - m->write_buffer_bytes - 1;
        Unit *u;

        if (m->adm_seq + m->n_units < m->unit_seq) {
            m->adm_seq = m->unit_seq - m->n_units + 1;
        }
        while (m->adm_seq < m->unit_seq &&
               nvm_unit(m, m->adm_seq)->stream_end <= x) {
            m->adm_seq++;
        }
        u = nvm_unit(m, m->adm_seq);
        if (u->seq == m->adm_seq && u->end != OPEN_END && u->end > done) {
            done = u->end;
        }
    }
    return fua_end > done ? fua_end : done;
}

/*
 * nvm_buffer_write() for one map unit with no time, no buffer and no
 * statistics: the same choice of unit, the same reclaims before it, the
 * same mapping update and the same relocation after each full unit
 * (m->untimed pays it without timing).  nvm_model_precondition_random()
 * drives it; the state it leaves is quiesced.
 */
void nvm_write_untimed(NvmModel *m, uint64_t lpn)
{
    NvmSbMode mode;

    if (!m->unit_open) {
        nvm_choose_unit(m, 0);
    }
    mode = m->unit_slc ? NVM_SB_SLC : NVM_SB_NATIVE;
    if (!nvm_ftl_write(m->ftl, lpn, 1, mode)) {
        nvm_bg_urgent(m, 0);
        if (!nvm_ftl_write(m->ftl, lpn, 1, mode)) {
            m->map_lost++;
        }
    }
    m->unit_fill += 1u << m->lpn_shift;
    if (m->unit_fill >= m->unit_cap) {
        m->unit_open = false;
        nvm_bg_interleave(m, 0, m->unit_cap);
    }
}

/* Is @lpn's latest data still in the buffer at @t? */
static bool nvm_buffer_hit(NvmModel *m, uint64_t lpn, uint64_t t)
{
    const uint64_t *e = &m->bh[(lpn & m->bh_mask) * 2];
    const Unit *u;

    if (e[0] != lpn + 1) {
        return false;
    }
    u = nvm_unit(m, e[1]);
    return u->seq == e[1] && (u->end == OPEN_END || u->end > t);
}

uint64_t nvm_model_stream_bytes(const NvmModel *m)
{
    return m->stream_base + m->stream_bytes;
}

/*
 * The units are programmed in the order they were opened; the ring holds
 * every unit that can still be in the buffer (the buffer's worth and 8
 * more).  The prefix ends at the first unit, oldest first, that is still
 * open or still programming at @now_ns.
 */
uint64_t nvm_model_stream_programmed(const NvmModel *m, uint64_t now_ns)
{
    uint64_t s = m->unit_seq >= m->n_units ? m->unit_seq - m->n_units + 1
                                          : 0;

    for (; s <= m->unit_seq; s++) {
        const Unit *u = &m->units[s % m->n_units];

        if (u->seq != s) {
            continue;               /* not opened yet */
        }
        if (u->end == OPEN_END || u->end > now_ns) {
            return m->stream_base + u->stream_start;
        }
    }
    return m->stream_base + m->stream_bytes;
}

/* Flush: program the open unit, journal the map, wait for all programs. */
static uint64_t nvm_flush(NvmModel *m, uint64_t t)
{
    uint64_t done = t;

    if (!m->dirty) {
        return t;
    }
    m->dirty = false;
    if (m->unit_open && m->unit_fill) {
        nvm_program_unit(m, t);
    }
    for (uint64_t s = m->unit_seq > m->n_units ? m->unit_seq - m->n_units
                                               : 0;
         s < m->unit_seq; s++) {
        const Unit *u = nvm_unit(m, s);

        if (u->seq == s && u->end != OPEN_END && u->end > done) {
            done = u->end;
        }
    }
    /* the map/journal update: one SLC page program after the data */
    done = nvm_map_page_program(m, nvm_die_turn(m, &m->next_die), done,
                                m->page_bytes);
    return done;
}

/* ------------------------------------------------------------------ */

/* What a read's page reads leave for its data path. */
typedef struct ReadTally {
    uint64_t native_bytes;          /* of the data, that from native pages */
    uint64_t first;                 /* the first page's data off the NAND */
} ReadTally;

/* A page read of @units units from @where, its data off the NAND at @d. */
static void nvm_read_tally(const NvmModel *m, ReadTally *rt, NvmLoc where,
                           uint32_t units, uint64_t d)
{
    if (where == NVM_LOC_NATIVE) {
        rt->native_bytes += (uint64_t)units << m->lpn_shift;
    }
    rt->first = MIN(rt->first, d);
}

/* Units of a read that lie on one page: read together. */
typedef struct PageRun {
    NvmPlaceKind kind;
    uint32_t sb;                    /* a run's superblock */
    uint64_t page;                  /* a hash for scattered units */
    uint32_t n;                     /* units on NAND */
    NvmLoc where;
} PageRun;

/*
 * With [controller] dynamic-allocation, the page number nvm_page_read()
 * stripes for page @page of a placed run (the fill's, or one written in
 * order in superblock @sb): the run's multi-plane pages (@planes pages,
 * one per plane) each went to whichever die was free when it was
 * written.  Which die that was is not recorded, so it is drawn from a
 * hash of the multi-plane page and its superblock (deterministic, no RNG
 * draws): the pages of one group share a die, on its planes in order.
 */
static uint64_t nvm_dynamic_page(const NvmModel *m, uint32_t sb,
                                 uint64_t page)
{
    uint64_t h = ((uint64_t)sb << 40) ^ (page / m->planes);

    /* die = the result mod ndies, plane = page mod planes: as striped */
    return page * m->ndies + nvm_rng_scale(nvm_rng_u64(&h), m->ndies);
}

static uint64_t nvm_page_run_read(NvmModel *m, const PageRun *r,
                                  uint64_t t, uint64_t done, ReadTally *rt)
{
    uint64_t page = r->page;
    uint64_t d;

    if (!r->n) {
        return done;
    }
    if (m->dynamic_alloc && r->kind != NVM_PLACE_SCATTERED) {
        page = nvm_dynamic_page(m, r->sb, page);
    }
    d = nvm_page_read(m, page, t,
                      r->where == NVM_LOC_SLC ? m->read_slc_ns
                                              : m->read_native_ns,
                      r->n << m->lpn_shift, true);
    nvm_read_tally(m, rt, r->where, r->n, d);
    return d > done ? d : done;
}

/*
 * The NAND reads of units [@lpn, @last] with [ftl] read-placement = ftl:
 * each unit is read where the map says it lies (nvm_ftl_place).  Units
 * the fill placed are on their LBA's page, as with lba; units of a run
 * written in order are on the page of their place in its superblock,
 * striped over the dies the same way; neighbours in the read on one such
 * page share its read.  Every other unit is a page read of its own on a
 * die (and plane) drawn from its hash.  Returns when the last read's data
 * is transferred (@done at least).
 */
static uint64_t nvm_read_placed(NvmModel *m, uint64_t lpn, uint64_t last,
                                uint64_t cmd_t, uint64_t t, uint64_t done,
                                ReadTally *rt)
{
    PageRun cur = { .n = 0 };

    for (; lpn <= last; lpn++) {
        NvmPlace pl;
        NvmLoc l = nvm_ftl_place(m->ftl, lpn, &pl);
        uint64_t page;

        if (l == NVM_LOC_UNMAPPED) {
            continue;
        }
        if (nvm_buffer_hit(m, lpn, cmd_t)) {
            m->buffer_hits++;
            continue;
        }
        page = pl.kind == NVM_PLACE_SCATTERED ? pl.pos
                                              : pl.pos / m->lpns_per_page;
        if (!cur.n || pl.kind != cur.kind ||
            pl.kind == NVM_PLACE_SCATTERED ||
            (pl.kind == NVM_PLACE_RUN && pl.sb != cur.sb) ||
            page != cur.page) {
            done = nvm_page_run_read(m, &cur, t, done, rt);
            cur = (PageRun){ pl.kind, pl.sb, page, 0, NVM_LOC_UNMAPPED };
        }
        cur.n++;
        if (cur.where != NVM_LOC_NATIVE) {
            cur.where = l;
        }
    }
    return nvm_page_run_read(m, &cur, t, done, rt);
}

static uint64_t nvm_do_read(NvmModel *m, uint64_t t, uint64_t off,
                            uint64_t bytes)
{
    unsigned core;
    uint64_t cmd_t = nvm_core(m, t, m->read_cmd_ns, &core);
    uint64_t nand_done = cmd_t;
    uint64_t t_nand = nvm_map_lookup(m, off, cmd_t, core, false);
    uint64_t lpn = off >> m->lpn_shift;
    uint64_t last = (off + bytes - 1) >> m->lpn_shift;
    ReadTally rt = { 0, UINT64_MAX };
    uint64_t path_ns, link_ns, nand_end, first, fin;

    m->probe.rd_n++;
    m->probe.rd_core_wait += cmd_t - t - m->read_cmd_ns;
    m->probe.rd_core += m->read_cmd_ns;
    m->probe.rd_map += t_nand - cmd_t;
    if (m->read_place_ftl) {
        nand_done = nvm_read_placed(m, lpn, last, cmd_t, t_nand, nand_done,
                                    &rt);
        lpn = last + 1;
    }
    while (lpn <= last) {
        uint64_t page = lpn / m->lpns_per_page;
        uint64_t pend = (page + 1) * m->lpns_per_page;
        NvmLoc where = NVM_LOC_UNMAPPED;
        uint32_t n = 0, n_nand = 0;

        /*
         * the units of this read on this page: one page read if any is
         * on NAND (the buffer and unmapped units need none)
         */
        for (; lpn <= last && lpn < pend; lpn++, n++) {
            NvmLoc l = nvm_ftl_locate(m->ftl, lpn);

            if (l == NVM_LOC_UNMAPPED) {
                continue;
            }
            if (nvm_buffer_hit(m, lpn, cmd_t)) {
                m->buffer_hits++;
                continue;
            }
            n_nand++;
            if (where != NVM_LOC_NATIVE) {
                where = l;
            }
        }
        if (where != NVM_LOC_UNMAPPED) {
            uint64_t d = nvm_page_read(m, page, t_nand,
                                       where == NVM_LOC_SLC ?
                                       m->read_slc_ns : m->read_native_ns,
                                       n << m->lpn_shift, true);

            nand_done = d > nand_done ? d : nand_done;
            nvm_read_tally(m, &rt, where, n_nand, d);
        }
    }
    /*
     * Data path (ECC, DMA), then the link to the host: data from native
     * pages at its rate, the rest (SLC pages, the buffer, unmapped) at
     * the SLC pages' rate.  Units are whole map units, the read may
     * cover part of one.
     */
    rt.native_bytes = MIN(rt.native_bytes, bytes);
    path_ns = (uint64_t)(bytes * m->read_path_ns_per_byte +
                         (bytes - rt.native_bytes) *
                         (m->read_path_slc_ns_per_byte -
                          m->read_path_ns_per_byte));
    link_ns = (uint64_t)((bytes + m->cmd_overhead_bytes) *
                         m->link_ns_per_byte);
    m->tx_busy_ns += MAX(link_ns, path_ns);
    if (nand_done > t_nand) {
        m->probe.rd_nand += nand_done - t_nand;
        m->probe.rd_nand_cmds++;
    }
    nand_end = MAX(nand_done, t_nand);
    /*
     * The path takes the data as it comes off the NAND, the link as the
     * path passes it on (in units with [controller] data-path-streams):
     * the first data is there when the first page read is (at once when
     * none is needed).
     */
    first = MIN(rt.first, nand_done);
    nand_done = nvm_stream(&m->read_path_free, cmd_t, first, nand_done,
                           path_ns, nvm_stream_unit_ns(m, path_ns, bytes),
                           &first);
    fin = nvm_stream(&m->link_tx_free, cmd_t, first, nand_done, link_ns,
                     nvm_stream_unit_ns(m, link_ns, bytes), NULL);
    m->probe.rd_post += fin - nand_end;
    return fin;
}

static uint64_t nvm_do_write(NvmModel *m, uint64_t t, uint64_t off,
                             uint64_t bytes, bool fua)
{
    unsigned core;
    uint64_t cmd_t = nvm_core(m, t, m->write_cmd_ns, &core);
    uint64_t fe, first, mapped, done;

    uint64_t link_ns = (uint64_t)((bytes + m->cmd_overhead_bytes) *
                                  m->link_ns_per_byte);
    uint64_t path_ns = (uint64_t)(bytes * m->write_path_ns_per_byte);

    /* the write path takes the data as the link brings it */
    fe = nvm_stream(&m->link_rx_free, cmd_t, cmd_t, cmd_t, link_ns,
                    nvm_stream_unit_ns(m, link_ns, bytes), &first);
    fe = nvm_stream(&m->write_path_free, cmd_t, first, fe, path_ns,
                    nvm_stream_unit_ns(m, path_ns, bytes), NULL);
    /* the controller's power: its data path streams at the slower stage */
    m->rx_busy_ns += MAX(link_ns, path_ns);
    /* The map chunk must be cached to record the new location. */
    mapped = nvm_map_lookup(m, off, cmd_t, core, true);
    fe = mapped > fe ? mapped : fe;
    m->host_written += bytes;
    m->total_host_written += bytes;
    done = nvm_buffer_write(m, off, bytes, fe, fua);
    if (m->map_ckpt_bits) {
        nvm_map_ckpt_written(m, bytes, fe);
    }
    m->probe.wr_n++;
    m->probe.wr_core_wait += cmd_t - t - m->write_cmd_ns;
    m->probe.wr_core += m->write_cmd_ns;
    m->probe.wr_front += fe - cmd_t;
    m->probe.wr_buf += done - fe;
    m->probe.wr_buf_n += done > fe;
    return done;
}

void nvm_trim(NvmModel *m, uint64_t off, uint64_t bytes)
{
    /* only whole map units lose their data */
    uint64_t unit = 1ULL << m->lpn_shift;
    uint64_t lo = (off + unit - 1) >> m->lpn_shift;
    uint64_t hi = (off + bytes) >> m->lpn_shift;

    if (hi > lo) {
        m->pristine = false;
        nvm_ftl_trim(m->ftl, lo, hi - lo);
    }
}

uint64_t nvm_model_submit(NvmModel *m, const NvmCmd *cmd, uint64_t now_ns)
{
    uint64_t off = cmd->slba * m->lba_bytes;
    uint64_t bytes = (uint64_t)cmd->nlb * m->lba_bytes;
    uint64_t t, done;
    unsigned c = cmd->op < NVM_CLASS_COUNT ? cmd->op : NVM_OP_FLUSH;
    ClassAcc *acc;

    if (cmd->slba >= m->capacity_bytes / m->lba_bytes) {
        off = cmd->slba % (m->capacity_bytes / m->lba_bytes) * m->lba_bytes;
    }
    if (bytes > m->capacity_bytes - off) {
        bytes = m->capacity_bytes - off;
    }
    if (!bytes && (c == NVM_OP_READ || c == NVM_OP_WRITE)) {
        bytes = m->lba_bytes;
        if (off + bytes > m->capacity_bytes) {
            off = m->capacity_bytes - bytes;
        }
    }
    if (now_ns > m->now) {
        m->now = now_ns;
    }
    nvm_bg_idle(m, now_ns);
    nvm_thermal_update(m, now_ns);
    t = nvm_wake(m, now_ns);

    switch (cmd->op) {
    case NVM_OP_READ:
        done = nvm_do_read(m, t, off, bytes);
        break;
    case NVM_OP_WRITE:
        done = nvm_do_write(m, t, off, bytes, cmd->flags & NVM_CMD_FUA);
        break;
    case NVM_OP_DISCARD:
    case NVM_OP_WRITE_ZEROES: {
        unsigned core;

        done = nvm_core(m, t, m->trim_cmd_ns, &core);
        nvm_trim(m, off, bytes);
        break;
    }
    case NVM_OP_FLUSH:
    default: {
        unsigned core;

        done = nvm_core(m, t, m->flush_cmd_ns, &core);
        c = NVM_OP_FLUSH;
        done = nvm_flush(m, done);
        /* after every earlier write, even one still waiting for the buffer */
        if (done < m->last_write_done) {
            done = m->last_write_done;
        }
        bytes = 0;
        break;
    }
    }
    if (c != NVM_OP_READ && c != NVM_OP_FLUSH && done > m->last_write_done) {
        m->last_write_done = done;
    }

    if (done > m->busy_until) {
        m->busy_until = done;
    }
    acc = &m->cls[c];
    acc->count++;
    acc->bytes += bytes;
    acc->lat_sum_ns += done - now_ns;
    if (done - now_ns > acc->lat_max_ns) {
        acc->lat_max_ns = done - now_ns;
    }
    acc->hist[nvm_hist_bucket(done - now_ns)]++;
    return done;
}

/* ------------------------------------------------------------------ */
/* Lifetime */

static double nvm_pcie_lane_mbps(unsigned gen)
{
    static const double gt[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0 };
    double coding = gen >= 3 ? 128.0 / 130.0 : 0.8;

    return gt[gen] * 1000.0 / 8.0 * coding;
}

void nvm_map_setup(NvmModel *m)
{
    uint64_t cache = m->map_hmb ? m->hmb_bytes : m->map_cache_bytes;

    g_free(m->map_tags);
    m->map_tags = NULL;
    m->n_map_tags = 0;
    if (m->map_hmb ? cache > 0 : cache < m->map_bytes) {
        /* an HMB that holds the whole map: one tag per chunk, no conflicts */
        uint64_t tags = cache >= m->map_bytes ?
                        (m->map_bytes + m->map_chunk_bytes - 1) /
                        m->map_chunk_bytes : cache / m->map_chunk_bytes;

        m->n_map_tags = MAX(MIN(tags, NVM_MAX_MAP_TAGS), 1);
        m->map_tags = g_new0(uint32_t, m->n_map_tags);
    }
}

NvmModel *nvm_model_new(const NvmProfile *p, uint64_t seed)
{
    NvmModel *m = g_new0(NvmModel, 1);
    double link_mbps;
    uint64_t block_bytes, blocks_per_die;
    NvmFtlGeom g;

    m->capacity_bytes = p->capacity_bytes;
    m->lba_bytes = p->lba_bytes;
    m->bits = p->cell_mode;
    m->cores = p->cores;
    m->channels = p->channels;
    m->ndies = p->channels * p->dies_per_channel;
    m->planes = p->planes;
    m->rd_planes = p->independent_plane_reads ? p->planes : 1;
    m->page_bytes = p->page_bytes;
    /*
     * mapping state per 4 KiB region (the map unit if larger), coarser
     * where that would make more than NVM_MAX_MAP_REGIONS
     */
    m->lpn_shift = MAX(g_bit_nth_msf(p->map_unit_bytes, -1), 12);
    while ((p->capacity_bytes >> m->lpn_shift) > NVM_MAX_MAP_REGIONS) {
        m->lpn_shift++;
    }
    m->lpns_per_page = p->page_bytes >> m->lpn_shift ?
                       p->page_bytes >> m->lpn_shift : 1;
    m->slc_unit_bytes = p->planes * p->page_bytes;
    m->native_unit_bytes = m->slc_unit_bytes * m->bits;

    link_mbps = nvm_pcie_lane_mbps(p->pcie_gen) * p->pcie_lanes *
                p->max_payload_bytes /
                (p->max_payload_bytes + p->tlp_overhead_bytes);
    m->link_ns_per_byte = 1000.0 / link_mbps;
    m->cmd_overhead_bytes = p->cmd_overhead_bytes;
    m->read_cmd_ns = llround(p->read_cmd_ns);
    m->write_cmd_ns = llround(p->write_cmd_ns);
    m->flush_cmd_ns = llround(p->flush_cmd_ns);
    m->trim_cmd_ns = llround(p->trim_cmd_ns);
    m->read_path_ns_per_byte = 1000.0 / p->read_path_mbps;
    m->read_path_slc_ns_per_byte = p->read_path_slc_mbps > 0 ?
                                   1000.0 / p->read_path_slc_mbps :
                                   m->read_path_ns_per_byte;
    m->write_path_ns_per_byte = 1000.0 / p->write_path_mbps;
    m->chan_ns_per_byte = 1000.0 / p->channel_mbps;
    m->read_slc_ns = p->read_us_slc * NS_PER_US;
    m->read_native_ns = p->read_us_native * NS_PER_US;
    m->prog_slc_ns = p->program_us_slc * NS_PER_US;
    m->prog_native_ns = p->program_us_native * NS_PER_US;
    m->erase_ns = p->erase_us * NS_PER_US;
    m->suspend_ok = p->program_suspend && p->max_suspends > 0;
    m->suspend_ns = llround(p->suspend_us * NS_PER_US);
    m->resume_ns = llround(p->resume_us * NS_PER_US);
    m->max_suspends = p->max_suspends;
    m->die_fifo = p->die_fifo;
    m->slc_static_lpns = p->slc_static_bytes >> m->lpn_shift;
    m->slc_dyn_max_lpns = p->slc_dynamic_max_bytes >> m->lpn_shift;
    m->fold_idle_ns = p->fold_idle_ms * NS_PER_MS;
    m->slc_first_when_full = p->slc_first_when_full;
    m->read_place_ftl = p->read_placement == NVM_READ_PLACE_FTL;
    m->dynamic_alloc = p->dynamic_alloc;
    m->data_path_streams = p->data_path_streams;
    m->steady_simulated = p->review_steady_state == NVM_STEADY_SIMULATED;
    /*
     * Per unit of data, an SLC program costs prog_slc / (prog_native /
     * bits) of a native one.  Writing into SLC after folding a superblock
     * whose share u is still valid costs that plus u native programs for
     * the copies, against one native program for writing natively: the
     * cache is worth keeping while u < 1 - that ratio (an assumption of
     * the firmware's policy; the reads of the fold are left out).
     */
    m->slc_refold_below = 1.0 - p->program_us_slc * m->bits /
                                p->program_us_native;
    m->write_buffer_bytes = p->write_buffer_bytes;
    m->gc_start_free = p->gc_start_free;
    m->gc_urgent_free = p->gc_urgent_free;

    /* Superblocks: one block on every die, less the reserved blocks. */
    block_bytes = (uint64_t)p->pages_per_block * m->slc_unit_bytes;
    blocks_per_die = p->raw_bytes / m->ndies / block_bytes;
    m->nsb = blocks_per_die -
             (p->gc_reserved_bytes + (uint64_t)m->ndies * block_bytes - 1) /
             ((uint64_t)m->ndies * block_bytes);
    m->sb_lpns = (uint32_t)((uint64_t)m->ndies * block_bytes >> m->lpn_shift);
    g = (NvmFtlGeom){
        .nlpn = p->capacity_bytes >> m->lpn_shift,
        .sb_lpns = m->sb_lpns,
        .bits = m->bits,
        .nsb = m->nsb,
        .seed = seed ^ NVM_FTL_SEED_MIX,
    };
    m->ftl = nvm_ftl_new(&g);
    m->fill_lpns = 0;
    m->pristine = true;

    /* Map: one map chunk (the unit loaded on a miss) covers this much. */
    {
        uint64_t cover = (uint64_t)(p->map_chunk_bytes / p->map_entry_bytes) *
                         p->map_unit_bytes;

        m->map_cover_shift = g_bit_nth_msf(cover, -1);
        m->map_chunk_bytes = p->map_chunk_bytes;
        m->map_miss_blocks_core = p->map_miss_blocks_core;
        m->map_update_blocks_core = p->map_update_blocks_core;
        m->map_ckpt_bytes = p->map_checkpoint_bytes;
        if (m->map_ckpt_bytes) {
            m->map_ckpt_words = ((m->capacity_bytes >> m->map_cover_shift) +
                                 1 + 63) / 64;
            m->map_ckpt_bits = g_new0(uint64_t, m->map_ckpt_words);
        }
        m->map_bytes = p->capacity_bytes / p->map_unit_bytes *
                       p->map_entry_bytes;
        m->map_hmb = p->map_kind == NVM_MAP_HMB;
        m->map_cache_bytes = p->map_cache_bytes;
        m->hmb_bytes = m->map_hmb ? p->map_cache_bytes : 0;
        m->hmb_rtt_ns = llround(p->hmb_rtt_ns);
        if (m->map_hmb && p->map_sram_bytes) {
            m->n_sram_tags = MAX(1, MIN(p->map_sram_bytes /
                                        p->map_chunk_bytes,
                                        NVM_MAX_MAP_TAGS));
            m->sram_tags = g_new0(uint32_t, m->n_sram_tags);
        }
        nvm_map_setup(m);
    }

    m->n_ps = p->n_power_states;
    memcpy(m->ps, p->ps, sizeof(m->ps));
    m->apst_default_enabled = p->apst_enabled;
    m->l1_idle_ns = llround(p->link_l1_idle_us * NS_PER_US);
    m->l1_exit_ns = llround(p->link_l1_exit_us * NS_PER_US);
    m->core_idle_ns = llround(p->core_idle_us * NS_PER_US);
    m->core_wake_ns = llround(p->core_wake_us * NS_PER_US);
    m->jitter = p->nand_jitter_pct / 100.0;
    m->retry_p_new = p->read_retry_ppm / 1e6;
    m->retry_p_eol = p->read_retry_ppm_eol / 1e6;
    m->retry_ns = llround(p->read_retry_us * NS_PER_US);
    m->endurance_bytes = (double)p->endurance_tbw * 1e12;

    m->thermal_default = p->thermal_enabled;
    m->idle_w = p->idle_w;
    m->active_w = p->active_w;
    m->read_mw = p->read_mw;
    m->program_mw = p->program_mw;
    m->program_slc_mw = p->program_slc_mw;
    m->erase_mw = p->erase_mw;
    m->idle_c = p->temp_idle_c;
    m->c_per_w = p->thermal_c_per_w;
    m->tau_ns = p->thermal_tau_s * 1e9;
    m->throttle_c = p->throttle_c;
    m->throttle_slowdown = p->throttle_slowdown;
    m->slow = 1.0;
    nvm_model_set_thermal(m, m->thermal_default);

    m->chan = g_new0(ReadLine, m->channels);
    m->dies = g_new0(Die, m->ndies);
    for (unsigned i = 0; i < m->ndies; i++) {
        m->dies[i].cap = DIE_QUEUE_MIN;
        m->dies[i].q = g_new(DieOp, DIE_QUEUE_MIN);
    }
    {
        const double mw[3] = { p->program_mw, p->program_slc_mw,
                               p->erase_mw };

        for (int k = 0; k < 3; k++) {
            double n = mw[k] > 0 ? p->nand_power_budget_mw / mw[k]
                                 : m->ndies;

            m->n_slots[k] = n < 1 ? 1 : n > m->ndies ? m->ndies
                                                    : (unsigned)n;
            m->slots[k] = g_new0(uint64_t, m->n_slots[k]);
        }
    }
    m->rd = g_new0(ReadLine, (size_t)m->ndies * m->rd_planes);
    m->n_units = (uint32_t)(MIN(p->write_buffer_bytes,
                                NVM_MAX_WRITE_BUFFER_BYTES) /
                            m->slc_unit_bytes) + 8;
    m->units = g_new0(Unit, m->n_units);
    for (uint32_t i = 0; i < m->n_units; i++) {
        m->units[i].seq = UINT64_MAX;
    }
    {
        uint64_t want = (MIN(p->write_buffer_bytes,
                             NVM_MAX_WRITE_BUFFER_BYTES) >> m->lpn_shift) * 2;
        uint32_t n = 1;

        while (n < want) {
            n <<= 1;
        }
        m->bh_mask = n - 1;
        m->bh = g_new0(uint64_t, (size_t)n * 2);
    }

    m->seed = seed;
    nvm_model_reseed(m);
    m->gc_wa = 1.0;
    nvm_model_reset_apst(m);
    return m;
}

void nvm_model_free(NvmModel *m)
{
    if (!m) {
        return;
    }
    nvm_ftl_free(m->ftl);
    g_free(m->chan);
    for (unsigned i = 0; i < m->ndies; i++) {
        g_free(m->dies[i].q);
    }
    g_free(m->dies);
    for (int k = 0; k < 3; k++) {
        g_free(m->slots[k]);
    }
    g_free(m->rd);
    g_free(m->units);
    g_free(m->bh);
    g_free(m->map_tags);
    g_free(m->sram_tags);
    g_free(m->map_ckpt_bits);
    g_free(m);
}

/* The operations the dies' queues have room for now. */
static size_t nvm_die_queue_slots(const NvmModel *m)
{
    size_t ops = 0;

    for (unsigned i = 0; i < m->ndies; i++) {
        ops += m->dies[i].cap;
    }
    return ops;
}

size_t nvm_model_memory_bytes(const NvmModel *m)
{
    return sizeof(*m) + sizeof(ReadLine) * m->channels +
           sizeof(Die) * m->ndies + sizeof(DieOp) * nvm_die_queue_slots(m) +
           sizeof(uint64_t) * (m->n_slots[0] + m->n_slots[1] +
                               m->n_slots[2]) +
           sizeof(ReadLine) * (size_t)m->ndies * m->rd_planes +
           sizeof(Unit) * m->n_units +
           sizeof(uint64_t) * 2 * ((size_t)m->bh_mask + 1) +
           sizeof(uint32_t) * ((size_t)m->n_map_tags + m->n_sram_tags) +
           nvm_ftl_memory_bytes(m->ftl);
}

size_t nvm_model_memory_bound(const NvmModel *m)
{
    /* the dies' rings at their most */
    return nvm_model_memory_bytes(m) - nvm_ftl_memory_bytes(m->ftl) +
           nvm_ftl_memory_max_bytes(m->ftl) +
           sizeof(DieOp) * ((size_t)m->ndies * DIE_QUEUE_MAX -
                            nvm_die_queue_slots(m));
}

size_t nvm_model_max_memory_bytes(void)
{
    size_t units = NVM_MAX_WRITE_BUFFER_BYTES / NVM_MIN_PAGE_BYTES + 8;
    size_t bh = 2 * (NVM_MAX_WRITE_BUFFER_BYTES >> 12) * 2;

    return sizeof(NvmModel) + sizeof(ReadLine) * NVM_MAX_CHANNELS +
           (sizeof(Die) + sizeof(DieOp) * DIE_QUEUE_MAX) * NVM_MAX_DIES +
           sizeof(uint64_t) * 3 * NVM_MAX_DIES +
           sizeof(ReadLine) * (size_t)NVM_MAX_DIES * NVM_MAX_PLANES +
           sizeof(Unit) * units + sizeof(uint64_t) * bh +
           sizeof(uint32_t) * 2 * (size_t)NVM_MAX_MAP_TAGS +
           sizeof(uint64_t) * (NVM_MAX_CKPT_CHUNKS / 64 + 1) +
           nvm_ftl_memory_bound(NVM_MAX_MAP_REGIONS, NVM_MAX_SUPERBLOCKS);
}
