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
        d->head = (d->head + 1) % d->cap;
        d->n--;
    }
}

/* Make room for one more operation on @d: grow the ring, or forget. */
static void nvm_die_room(NvmModel *m, Die *d)
{
    if (d->n < d->cap) {
        return;
    }
    if (d->cap < DIE_QUEUE_MAX) {
        DieOp *q = g_new(DieOp, (size_t)d->cap * 2);

        for (uint32_t i = 0; i < d->n; i++) {
            q[i] = d->q[(d->head + i) % d->cap];
        }
        g_free(d->q);
        d->q = q;
        d->head = 0;
        d->cap *= 2;
        return;
    }
    /* the oldest goes (retired ones went already: it still runs) */
    m->die_forgotten++;
    d->head = (d->head + 1) % d->cap;
    d->n--;
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
    m->probe.slot_n[kind]++;
    if (s[best] > t) {
        m->probe.slot_wait[kind] += s[best] - t;
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
    m->probe.push_n[kind]++;
    m->probe.push_wait[kind] += start - ready;
    m->probe.push_dur[kind] += dur;
    nvm_die_retire(m, d);
    nvm_die_room(m, d);
    op = &d->q[(d->head + d->n++) % d->cap];
    op->start = start;
    op->end = start + dur;
    op->work = dur;
    op->unit = unit;
    op->suspends = 0;
    op->kind = kind;
    d->free = op->end;
    m->die_op_ns += dur;
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
 * The first time at or after @t when no read is reserved on @rl: returned,
 * with the end of that idle spell in *@until (UINT64_MAX past the last).
 */
static uint64_t nvm_read_idle(const ReadLine *rl, uint64_t t, uint64_t *until)
{
    uint64_t next = rl->free;
    unsigned next_g = READ_GAPS;

    if (t >= rl->free) {
        *until = UINT64_MAX;
        return t;
    }
    for (unsigned g = 0; g < rl->ng; g++) {
        if (rl->gs[g] <= t && t < rl->ge[g]) {
            *until = rl->ge[g];
            return t;
        }
        if (rl->gs[g] > t && rl->gs[g] < next) {
            next = rl->gs[g];
            next_g = g;
        }
    }
    *until = next_g < READ_GAPS ? rl->ge[next_g] : UINT64_MAX;
    return next;
}

/*
 * The first instant at or after @t when none of @die's read timelines has a
 * read reserved, with the end of that idle spell in *@until.
 */
static uint64_t nvm_die_next_idle(const NvmModel *m, unsigned die,
                                  uint64_t t, uint64_t *until)
{
    const ReadLine *rl = &m->rd[die * m->rd_planes];
    bool moved;

    do {
        moved = false;
        *until = UINT64_MAX;
        for (unsigned p = 0; p < m->rd_planes; p++) {
            uint64_t u, i = nvm_read_idle(&rl[p], t, &u);

            if (i > t) {
                t = i;
                moved = true;
                break;
            }
            if (u < *until) {
                *until = u;
            }
        }
    } while (moved);
    return t;
}

/*
 * When an operation on @die that starts at @a and needs @work ns of the
 * die's own time ends, running only while none of the die's read timelines
 * has a read reserved: a read reserved inside it suspends it, so the die
 * never does two things at once.  (A gap a full read timeline dropped
 * counts as reserved: the operation then ends a little late.)
 */
static uint64_t nvm_die_fit(const NvmModel *m, unsigned die, uint64_t a,
                            uint64_t work)
{
    for (;;) {
        uint64_t until, x = nvm_die_next_idle(m, die, a, &until);

        if (until == UINT64_MAX || until - x >= work) {
            return x + work;
        }
        work -= until - x;
        a = until;
    }
}

/* The time in [@a, @b) when none of @die's read timelines has a read. */
static uint64_t nvm_die_idle(const NvmModel *m, unsigned die, uint64_t a,
                             uint64_t b)
{
    uint64_t idle = 0;

    while (a < b) {
        uint64_t until, x = nvm_die_next_idle(m, die, a, &until);

        if (x >= b) {
            break;
        }
        if (until > b) {
            until = b;
        }
        idle += until - x;
        a = until;
    }
    return idle;
}

/*
 * Push the queued ops of @die from index @i on so that none starts before
 * @t; each keeps its own time and runs around the reads reserved where it
 * lands.
 */
static void nvm_die_ripple(NvmModel *m, unsigned die, uint32_t i, uint64_t t)
{
    Die *d = &m->dies[die];

    for (; i < d->n; i++) {
        DieOp *op = &d->q[(d->head + i) % d->cap];

        if (op->start >= t) {
            break;
        }
        op->start = t;
        op->end = nvm_die_fit(m, die, t, op->work);
        nvm_op_moved(m, op);
        t = op->end;
    }
    if (t > d->free) {
        d->free = t;
    }
}

/*
 * A read of @tr ns on (@die, @plane) ready at @t; returns its end.  A
 * @host read (host data, not a map chunk) with die-queue-fifo waits for
 * every operation queued on the die instead.
 *
 * The read takes the first place on its read timeline where it fits and
 * then looks at the die's queue there: an operation running then is
 * suspended (the read waits suspend-us first, and the operation becomes
 * suspend + read + resume longer) or, past its suspend limit, waited for,
 * and the search starts again from its end; one not started yet is pushed
 * back behind the read.  Operations pushed back or lengthened run around
 * the reads already reserved where they land (nvm_die_fit), so a die never
 * reads and programs at once: a die's reserved time never exceeds the
 * time that passes (/model/dies_are_never_booked_twice).
 */
uint64_t nvm_die_read(NvmModel *m, unsigned die, unsigned plane,
                      uint64_t t, uint64_t tr, bool host)
{
    Die *d = &m->dies[die];
    ReadLine *rl = &m->rd[die * m->rd_planes +
                          (m->rd_planes > 1 ? plane : 0)];
    uint64_t len = tr, s, re;
    DieOp *held = NULL;                 /* the operation it suspends */
    uint32_t after = 0;                 /* first queued op to push back */
    int gap;
    uint64_t t_in = t, opwait = 0;

    nvm_die_retire(m, d);
    for (;;) {
        bool wait = false;

        s = nvm_read_slot(rl, t, len, &gap);
        held = NULL;
        after = d->n;
        if (m->die_fifo && host) {
            /* in arrival order: after everything queued, suspending none */
            for (uint32_t i = 0; i < d->n; i++) {
                const DieOp *op = &d->q[(d->head + i) % d->cap];

                if (op->end > s) {
                    t = op->end > t ? op->end : t;
                    wait = true;
                }
            }
        } else {
            for (uint32_t i = 0; i < d->n; i++) {
                DieOp *op = &d->q[(d->head + i) % d->cap];

                if (op->end <= s) {
                    continue;
                }
                if (op->start <= s) {
                    /* running: suspend it or wait for it */
                    if (m->suspend_ok && op->suspends < m->max_suspends) {
                        held = op;
                        after = i + 1;
                        break;
                    }
                    if (op->end > s) {
                        opwait += op->end - (s > t ? s : t);
                    }
                    t = op->end;
                    wait = true;
                    break;
                }
                /* not started yet: the read goes first */
                after = i;
                break;
            }
        }
        if (wait) {
            len = tr;
            continue;
        }
        if (held && len == tr && m->suspend_ns) {
            /* the suspend latency is the read's wait: find room for both */
            len = tr + m->suspend_ns;
            t = s;
            continue;
        }
        break;
    }
    len = held ? tr + m->suspend_ns : tr;
    re = s + len;
    if (held) {
        /* its own time left: the die's idle time until it would have ended */
        uint64_t left = nvm_die_idle(m, die, s, held->end);

        nvm_read_take(rl, gap, s, re);
        held->suspends++;
        m->suspends++;
        held->work += m->resume_ns;
        m->die_op_ns += m->resume_ns;
        /* after this read (and any other reserved there), then resumed */
        held->end = nvm_die_fit(m, die, s, left + m->resume_ns);
        nvm_op_moved(m, held);
    } else {
        nvm_read_take(rl, gap, s, re);
    }
    m->die_read_ns += len;
    if (host) {
        m->probe.pg_n++;
        m->probe.pg_tr += tr;
        m->probe.pg_wait += re - tr - t_in;
        if (held) {
            m->probe.pg_susp_n++;
            m->probe.pg_susp_ns += m->suspend_ns;
        }
        if (opwait) {
            m->probe.pg_opwait_n++;
            m->probe.pg_opwait_ns += opwait;
        }
    }
    nvm_die_ripple(m, die, after, held ? held->end : re);
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
    uint64_t end, xfer, ce;

    if (m->retry_p_eol > 0 || m->retry_p_new > 0) {
        if (nvm_rand01(m) < nvm_retry_p(m)) {
            tr += m->retry_ns;
        }
    }
    /*
     * The page stays in the die's page register until it is clocked out:
     * the die is held for tR and the data-out (a plain page read; the
     * model assumes no cache read, which would overlap the die's next tR
     * with it).  The data-out starts when tR ends, later if the channel
     * is busy then (the die is then freed a little early).
     */
    xfer = (uint64_t)(bytes * m->chan_ns_per_byte);
    end = nvm_die_read(m, die, plane, t, (uint64_t)tr + xfer, host);
    nvm_energy(m, m->read_mw, tr);
    m->nand_read += bytes;
    ce = nvm_channel(m, die, end - xfer, xfer);
    if (host) {
        m->probe.pg_chan += ce - end;
    }
    return ce;
}
