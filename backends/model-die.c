/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's die timelines: programs, erases and relocation copies
 * queued per die, reads that go ahead of them and suspend them within the
 * part's limits, the read timelines per plane, the flash channels and the
 * power budget's concurrent-operation slots.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"

double nvm_retry_p(const NvmModel *m)
{
    double w = m->wear_pct_base / 100.0 +
               m->total_nand_written / m->endurance_bytes;

    return m->retry_p_new + (m->retry_p_eol - m->retry_p_new) *
           (w > 1 ? 1 : w);
}


/* ------------------------------------------------------------------ */
/*
 * Die timelines.  Programs, erases and relocation copies are queued on
 * their die in order; a read goes ahead of any that has not started, and
 * suspends a running one (at most max_suspends times, each making it
 * suspend + read + resume longer) or waits for it.
 */

Unit *nvm_unit(NvmModel *m, uint64_t seq)
{
    return &m->units[seq % m->n_units];
}

static void nvm_op_moved(NvmModel *m, const DieOp *op)
{
    if (op->unit != NONE32 && m->units[op->unit].end != OPEN_END) {
        m->units[op->unit].end = op->end;
    }
}

static void nvm_die_retire(NvmModel *m, Die *d)
{
    while (d->n && d->q[d->head].end <= m->now) {
        d->head = (d->head + 1) % DIE_QUEUE;
        d->n--;
    }
}

/* Push queued ops from index @i on so that none starts before @t. */
static void nvm_die_ripple(NvmModel *m, Die *d, uint32_t i, uint64_t t)
{
    for (; i < d->n; i++) {
        DieOp *op = &d->q[(d->head + i) % DIE_QUEUE];
        uint64_t delta;

        if (op->start >= t) {
            break;
        }
        delta = t - op->start;
        op->start += delta;
        op->end += delta;
        nvm_op_moved(m, op);
        t = op->end;
    }
    if (t > d->free) {
        d->free = t;
    }
}

/*
 * The power budget lets a limited number of programs (or erases) of a kind
 * run at once: the earliest a @dur ns operation of @kind can start at or
 * after @t; the slot is taken until it ends.  (Kinds are budgeted apart,
 * and a slot is not moved when a read later delays its operation.)
 */
uint64_t nvm_slot(NvmModel *m, unsigned kind, uint64_t t, uint64_t dur)
{
    uint64_t *s = m->slots[kind];
    unsigned best = 0;

    for (unsigned i = 1; i < m->n_slots[kind]; i++) {
        if (s[i] < s[best]) {
            best = i;
        }
    }
    if (s[best] > t) {
        t = s[best];
    }
    s[best] = t + dur;
    return t;
}

uint64_t nvm_die_push(NvmModel *m, unsigned die, uint64_t ready,
                      uint64_t dur, uint8_t kind, uint32_t unit,
                      unsigned slot)
{
    Die *d = &m->dies[die];
    uint64_t start = ready > d->free ? ready : d->free;
    DieOp *op;

    start = nvm_slot(m, slot, start, dur);
    nvm_die_retire(m, d);
    if (d->n == DIE_QUEUE) {                /* forget the oldest */
        d->head = (d->head + 1) % DIE_QUEUE;
        d->n--;
    }
    op = &d->q[(d->head + d->n++) % DIE_QUEUE];
    op->start = start;
    op->end = start + dur;
    op->unit = unit;
    op->suspends = 0;
    op->kind = kind;
    d->free = op->end;
    return op->end;
}

/* Where a read of @tr ns ready at @t goes on @rl: a gap it fits, or the end. */
static uint64_t nvm_read_slot(ReadLine *rl, uint64_t t, uint64_t tr,
                              int *gap)
{
    for (unsigned g = 0; g < rl->ng; g++) {
        uint64_t a = t > rl->gs[g] ? t : rl->gs[g];

        if (a + tr <= rl->ge[g]) {
            *gap = g;
            return a;
        }
    }
    *gap = -1;
    return t > rl->free ? t : rl->free;
}

/*
 * Keep the gap [@a, @b).  With every slot taken, the gap that ends first
 * gives way: time only moves on, so it is the first to become useless, and
 * the gaps that ended before now (which no read can take) go before any
 * that a read may still need.
 */
static void nvm_read_gap_add(ReadLine *rl, uint64_t a, uint64_t b)
{
    unsigned g = rl->ng, first = 0;

    if (b < a + 1000) {
        return;                         /* shorter than any read */
    }
    if (g == READ_GAPS) {
        for (unsigned i = 1; i < READ_GAPS; i++) {
            if (rl->ge[i] < rl->ge[first]) {
                first = i;
            }
        }
        if (rl->ge[first] >= b) {
            return;
        }
        g = first;
    } else {
        rl->ng++;
    }
    rl->gs[g] = a;
    rl->ge[g] = b;
}

/* Record the read [@s, @e) on @rl, placed in @gap (-1: at the end). */
static void nvm_read_take(ReadLine *rl, int gap, uint64_t s, uint64_t e)
{
    if (gap >= 0) {
        uint64_t gs = rl->gs[gap], ge = rl->ge[gap];

        rl->gs[gap] = rl->gs[--rl->ng];
        rl->ge[gap] = rl->ge[rl->ng];
        nvm_read_gap_add(rl, gs, s < gs ? gs : s);
        nvm_read_gap_add(rl, e, ge);
        return;
    }
    if (s > rl->free) {
        nvm_read_gap_add(rl, rl->free, s);
    }
    if (e > rl->free) {
        rl->free = e;
    }
}

/* A transfer of @dur ns on @die's channel from @t; returns its end. */
uint64_t nvm_channel(NvmModel *m, unsigned die, uint64_t t,
                     uint64_t dur)
{
    ReadLine *rl = &m->chan[die % m->channels];
    int gap;
    uint64_t s = nvm_read_slot(rl, t, dur, &gap);

    nvm_read_take(rl, gap, s, s + dur);
    return s + dur;
}

/*
 * A read of @tr ns on (@die, @plane) ready at @t; returns its end.  A
 * @host read (host data, not a map chunk) with die-queue-fifo waits for
 * every operation queued on the die instead.
 */
uint64_t nvm_die_read(NvmModel *m, unsigned die, unsigned plane,
                      uint64_t t, uint64_t tr, bool host)
{
    Die *d = &m->dies[die];
    ReadLine *rl = &m->rd[die * m->rd_planes +
                          (m->rd_planes > 1 ? plane : 0)];
    int gap;
    uint64_t s = nvm_read_slot(rl, t, tr, &gap);
    uint64_t s0 = s, re;

    nvm_die_retire(m, d);
    if (m->die_fifo && host) {
        /* in arrival order: after everything queued, suspending nothing */
        for (uint32_t i = 0; i < d->n; i++) {
            const DieOp *op = &d->q[(d->head + i) % DIE_QUEUE];

            if (op->end > s) {
                s = op->end;
            }
        }
        re = s + tr;
        goto out;
    }
    for (uint32_t i = 0; i < d->n; i++) {
        DieOp *op = &d->q[(d->head + i) % DIE_QUEUE];

        if (op->end <= s) {
            continue;
        }
        if (op->start <= s) {
            /* running: suspend it or wait for it */
            if (m->suspend_ok && op->suspends < m->max_suspends) {
                op->suspends++;
                m->suspends++;
                re = s + m->suspend_ns + tr;
                op->end += m->suspend_ns + tr + m->resume_ns;
                nvm_op_moved(m, op);
                nvm_die_ripple(m, d, i + 1, op->end);
                if (op->end > d->free) {
                    d->free = op->end;
                }
                goto out;
            }
            s = op->end;
            continue;
        }
        /* not started yet: the read goes first */
        re = s + tr;
        nvm_die_ripple(m, d, i, re);
        goto out;
    }
    re = s + tr;
out:
    /* a read pushed out of its gap by a program goes to the end */
    nvm_read_take(rl, re - tr == s0 ? gap : -1, re - tr, re);
    if (re > d->free) {
        d->free = re;
    }
    return re;
}

/* One page read (@host: of host data); returns when it is off the channel. */
uint64_t nvm_page_read(NvmModel *m, uint64_t page, uint64_t t,
                       double tr_ns, uint32_t bytes, bool host)
{
    unsigned die = page % m->ndies;
    unsigned plane = (page / m->ndies) % m->planes;
    double tr = tr_ns * nvm_jitter(m) * m->slow;
    uint64_t end, xfer;

    if (m->retry_p_eol > 0 || m->retry_p_new > 0) {
        if (nvm_rand01(m) < nvm_retry_p(m)) {
            tr += m->retry_ns;
        }
    }
    end = nvm_die_read(m, die, plane, t, (uint64_t)tr, host);
    nvm_energy(m, m->read_mw, tr);
    xfer = (uint64_t)(bytes * m->chan_ns_per_byte);
    m->nand_read += bytes;
    return nvm_channel(m, die, end, xfer);
}
