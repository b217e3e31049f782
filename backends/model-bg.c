/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's background work: the SLC cache's size, and the
 * folding and garbage collection owed after a superblock is reclaimed,
 * paid urgently, interleaved with host writes, or while the drive idles.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"

/* ------------------------------------------------------------------ */
/* SLC cache and background work */

/* SLC cache size now, in map units. */
uint64_t nvm_slc_size(const NvmModel *m, uint64_t valid)
{
    uint64_t nlpn = m->capacity_bytes >> m->lpn_shift;
    uint64_t dyn = valid < nlpn ? (nlpn - valid) / m->bits : 0;

    if (dyn > m->slc_dyn_max_lpns) {
        dyn = m->slc_dyn_max_lpns;
    }
    return m->slc_static_lpns + dyn;
}

/*
 * Multi-plane reads to gather one native unit of valid data from a source
 * whose units are valid with probability @u: every page holding one.
 */
static double nvm_reads_per_unit(const NvmModel *m, double u)
{
    double per_page = u > 0 ? (1 - pow(1 - u, m->lpns_per_page)) / u : 1;
    double reads = (double)m->bits * per_page;

    return reads < m->bits ? m->bits : reads;
}

/* Reclaim one superblock (fold an SLC one, or greedy GC); false if none. */
static bool nvm_reclaim(NvmModel *m, bool slc)
{
    Debt *dt = slc ? &m->fold : &m->gc;
    uint32_t cap = slc ? m->sb_lpns / m->bits : m->sb_lpns;
    int64_t moved = nvm_ftl_reclaim(m->ftl, slc);
    double u;

    if (moved < 0) {
        return false;
    }
    u = (double)moved / cap;
    dt->units += (((uint64_t)moved << m->lpn_shift) + m->native_unit_bytes -
                  1) / m->native_unit_bytes;
    dt->reads_per_unit = nvm_reads_per_unit(m, u);
    dt->per_host_unit = u < 1 ? u / (1 - u) : 1e9;
    dt->erases += m->ndies;
    dt->slc_src = slc;
    if (!slc) {
        m->gc_wa = u < 1 ? 1 / (1 - u) : 1e9;
        if (m->untimed) {
            m->untimed_victims++;
            m->untimed_victim_valid += u;
        }
    }
    return true;
}

/* Issue one relocation unit (or, when the copies are done, one erase). */
static void nvm_bg_issue(NvmModel *m, Debt *dt, uint64_t ready)
{
    unsigned die;
    uint64_t dur;

    if (m->untimed) {
        /* preconditioning: the work is done, not timed nor counted */
        if (dt->units) {
            dt->units--;
            m->untimed_copies++;
            m->untimed_folds += dt->slc_src;
        } else if (dt->erases) {
            dt->erases--;
        }
        return;
    }
    die = nvm_die_turn(m, &m->bg_die);
    if (dt->units) {
        double tr = dt->slc_src ? m->read_slc_ns : m->read_native_ns;
        double rd_bytes = dt->reads_per_unit * m->slc_unit_bytes;
        uint64_t xfer = (uint64_t)((rd_bytes + m->native_unit_bytes) *
                                   m->chan_ns_per_byte);
        double prog = m->prog_native_ns * nvm_jitter(m);
        double reads = dt->reads_per_unit * tr;

        dt->units--;
        /* the data crosses the channel out and back in (ECC check) */
        ready = nvm_channel(m, die, ready, xfer) - xfer;
        dur = (uint64_t)((reads + prog) * m->slow) + xfer;
        nvm_die_push(m, die, ready, dur, OP_COPY, NONE32, SLOT_NATIVE);
        nvm_energy(m, m->read_mw, reads * m->slow);
        nvm_energy(m, m->program_mw, prog * m->slow);
        m->nand_written += m->native_unit_bytes;
        m->total_nand_written += m->native_unit_bytes;
        m->nand_read += (uint64_t)rd_bytes;
        if (dt->slc_src) {
            m->fold_bytes += m->native_unit_bytes;
        } else {
            m->gc_bytes += m->native_unit_bytes;
        }
        return;
    }
    if (dt->erases) {
        dt->erases--;
        dur = (uint64_t)(m->erase_ns * nvm_jitter(m) * m->slow);
        nvm_die_push(m, die, ready, dur, OP_ERASE, NONE32, SLOT_ERASE);
        nvm_energy(m, m->erase_mw, dur);
        m->erases++;
    }
}

static bool nvm_debt(const Debt *dt)
{
    return dt->units || dt->erases;
}

/* Pay all outstanding relocation work now (host writes queue behind). */
static void nvm_bg_pay_all(NvmModel *m, Debt *dt, uint64_t t)
{
    while (nvm_debt(dt)) {
        nvm_bg_issue(m, dt, t);
    }
    dt->credit = 0;
}

/*
 * Keep free superblocks above the urgent mark before host data needs a
 * new one: reclaim and relocate at once, which stalls the host.
 */
void nvm_bg_urgent(NvmModel *m, uint64_t t)
{
    for (int guard = 0; guard < 64; guard++) {
        if (nvm_ftl_free_sbs(m->ftl) > m->gc_urgent_free) {
            return;
        }
        nvm_bg_pay_all(m, &m->gc, t);
        nvm_bg_pay_all(m, &m->fold, t);
        if (!nvm_reclaim(m, false) && !nvm_reclaim(m, true)) {
            return;
        }
    }
}

/*
 * A full SLC cache whose oldest superblock holds little valid data (a
 * span rewritten since it was written) gets that superblock back before
 * host writes fall to native programs: its copies and erases are paid
 * now, ahead of the host's next unit.  Rewriting a span smaller than the
 * cache then keeps the SLC rate; a cache full of live data (a filled
 * drive) does not refold.
 */
void nvm_bg_slc_room(NvmModel *m, uint64_t t)
{
    uint64_t unit_lpns = m->slc_unit_bytes >> m->lpn_shift;
    uint64_t cap = m->sb_lpns / m->bits;

    for (int guard = 0; guard < 64; guard++) {
        int64_t v;

        if (nvm_ftl_slc_written(m->ftl) + unit_lpns <=
            nvm_slc_size(m, nvm_ftl_valid(m->ftl)) || nvm_debt(&m->fold)) {
            return;
        }
        v = nvm_ftl_slc_head_valid(m->ftl);
        if (v < 0 || (double)v >= m->slc_refold_below * cap ||
            nvm_ftl_free_sbs(m->ftl) <= m->gc_urgent_free + 1) {
            return;
        }
        nvm_reclaim(m, true);
        nvm_bg_pay_all(m, &m->fold, t);
    }
}

/*
 * Relocation interleaved with host writes, after each host unit of
 * @bytes: GC copies in the proportion that frees space as fast as the
 * host fills it, and one fold unit per host unit while the SLC cache
 * holds more than its shrunken size.
 */
void nvm_bg_interleave(NvmModel *m, uint64_t t, uint32_t bytes)
{
    if (!nvm_debt(&m->gc) &&
        nvm_ftl_free_sbs(m->ftl) < m->gc_start_free) {
        nvm_reclaim(m, false);
    }
    if (nvm_debt(&m->gc)) {
        m->gc.credit += m->gc.per_host_unit * bytes / m->native_unit_bytes;
        while (m->gc.units && m->gc.credit >= 1) {
            m->gc.credit -= 1;
            nvm_bg_issue(m, &m->gc, t);
        }
        if (!m->gc.units) {
            while (m->gc.erases) {
                nvm_bg_issue(m, &m->gc, t);
            }
            m->gc.credit = 0;
        }
    }
    if (nvm_ftl_slc_written(m->ftl) > nvm_slc_size(m, nvm_ftl_valid(m->ftl)) +
        m->sb_lpns / m->bits) {
        /* (folding left over from an idle period waits for the next) */
        if (!nvm_debt(&m->fold)) {
            nvm_reclaim(m, true);
        }
        if (nvm_debt(&m->fold)) {
            nvm_bg_issue(m, &m->fold, t);
        }
    }
}

/*
 * Background work while the host is idle (no command outstanding, nothing
 * programmed) for fold-idle-ms: folding, then GC up to the start mark, in
 * the dies' idle time up to @now.  Computed when the next command (or a
 * statistics query) comes; what runs past @now delays that command.
 */
void nvm_bg_idle(NvmModel *m, uint64_t now)
{
    uint64_t from = m->busy_until + m->fold_idle_ns;

    if (now <= from) {
        return;
    }
    for (;;) {
        Die *d = &m->dies[m->bg_die];
        Debt *dt;
        uint64_t start;

        if (!nvm_debt(&m->fold) && !nvm_debt(&m->gc)) {
            if (!(nvm_ftl_slc_sbs(m->ftl) > 1 && nvm_reclaim(m, true)) &&
                !(nvm_ftl_free_sbs(m->ftl) < m->gc_start_free &&
                  nvm_reclaim(m, false))) {
                return;
            }
        }
        dt = nvm_debt(&m->fold) ? &m->fold : &m->gc;
        start = d->free > from ? d->free : from;
        if (start >= now) {
            return;
        }
        nvm_bg_issue(m, dt, start);
    }
}
