/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive performance model: resource reservation over the PCIe link,
 * firmware cores, data paths, flash channels and one timeline per die, on
 * top of the mapping state of ftl.c (valid data, superblocks, SLC cache,
 * greedy GC), with background folding and GC, a write buffer, a map
 * cache, power states and a thermal model.  See README.md.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "nvmimic-model.h"
#include "ftl.h"

#define NS_PER_US 1000.0
#define NS_PER_MS 1000000ULL
#define NONE32 0xffffffffu
#define OPEN_END UINT64_MAX

/* Operations queued on a die besides reads (which go first). */
#define DIE_QUEUE 32
enum { OP_PROGRAM, OP_ERASE, OP_COPY };

typedef struct DieOp {
    uint64_t start, end;
    uint32_t unit;                  /* host unit record, NONE32 if none */
    uint16_t suspends;
    uint8_t kind;
} DieOp;

/*
 * The reads reserved on one die (or plane): the end of the last one, and
 * a few idle gaps before it, so that a read ready early is not queued
 * behind one reserved for later (one waiting for its map chunk, say).
 */
#define READ_GAPS 16

typedef struct ReadLine {
    uint64_t free;
    uint64_t gs[READ_GAPS], ge[READ_GAPS];
    unsigned ng;
} ReadLine;

typedef struct Die {
    uint64_t free;                  /* everything reserved on it ends */
    uint32_t head, n;               /* ring of queued programs/erases */
    DieOp q[DIE_QUEUE];
} Die;

/* A program unit of the host write stream. */
typedef struct Unit {
    uint64_t seq;
    uint64_t stream_end;            /* stream offset after its data */
    uint64_t end;                   /* programmed; OPEN_END while open */
} Unit;

/* Relocation work owed after a superblock was reclaimed. */
typedef struct Debt {
    uint64_t units;                 /* native program units to copy */
    double reads_per_unit;          /* multi-plane reads per unit */
    double per_host_unit;           /* copy units per host unit */
    double credit;
    uint32_t erases;                /* die erases after the copies */
    bool slc_src;
} Debt;

typedef struct ClassAcc {
    uint64_t count;
    uint64_t bytes;
    uint64_t lat_sum_ns;
    uint64_t lat_max_ns;
    uint64_t hist[NVM_HIST_BUCKETS];
} ClassAcc;

struct NvmModel {
    /* ---- parameters, derived once from the profile ---- */
    uint64_t capacity_bytes;
    uint32_t lba_bytes;
    unsigned bits;                  /* native bits per cell */
    unsigned cores;
    unsigned channels;
    unsigned ndies;
    unsigned planes;
    unsigned rd_planes;             /* read timelines per die */
    uint32_t page_bytes;
    uint32_t lpn_shift;             /* log2 of the map unit */
    uint32_t lpns_per_page;
    uint32_t slc_unit_bytes;        /* planes x page */
    uint32_t native_unit_bytes;     /* planes x page x bits */
    uint32_t sb_lpns;               /* native capacity of a superblock */
    uint32_t nsb;
    double link_ns_per_byte;
    uint32_t cmd_overhead_bytes;
    uint64_t read_cmd_ns, write_cmd_ns, flush_cmd_ns, trim_cmd_ns;
    double read_path_ns_per_byte;
    double write_path_ns_per_byte;
    double chan_ns_per_byte;
    double read_slc_ns, read_native_ns;
    double prog_slc_ns, prog_native_ns;
    double erase_ns;
    bool suspend_ok;
    uint64_t suspend_ns, resume_ns;
    unsigned max_suspends;
    uint64_t slc_static_lpns;
    uint64_t slc_dyn_max_lpns;
    uint64_t fold_idle_ns;
    uint64_t write_buffer_bytes;
    uint32_t gc_start_free, gc_urgent_free;
    /* map: one chunk (the unit loaded on a miss) covers 2^cover_shift B */
    uint32_t map_cover_shift;
    uint32_t map_chunk_bytes;
    bool map_hmb;
    bool map_miss_blocks_core;
    bool map_update_blocks_core;
    uint64_t map_bytes;             /* the whole map */
    uint64_t map_cache_bytes;       /* DRAM (dram kind) */
    uint32_t n_sram_tags;           /* on-chip cache (hmb kind) */
    uint64_t hmb_rtt_ns;
    unsigned n_ps;
    NvmPowerState ps[NVM_MAX_POWER_STATES];
    bool apst_default_enabled;
    uint64_t l1_idle_ns, l1_exit_ns;
    uint64_t core_idle_ns, core_wake_ns;
    double jitter;                  /* fraction */
    double retry_p_new, retry_p_eol;
    uint64_t retry_ns;
    double endurance_bytes;
    /* thermal */
    bool thermal_default;
    double idle_w, active_w;
    double read_mw, program_mw, program_slc_mw, erase_mw;
    double idle_c, c_per_w, tau_ns, throttle_c, throttle_slowdown;

    /* ---- resources: time each is next free ---- */
    uint64_t now;                   /* latest submission */
    uint64_t link_tx_free, link_rx_free;
    uint64_t core_free[NVM_MAX_CORES];
    uint64_t read_path_free, write_path_free;
    ReadLine *chan;                 /* [channels]: transfers reserved */
    Die *dies;                      /* [ndies] */
    /* the power budget: end times of the programs/erases running at once */
    uint64_t *slots[3];             /* native program, SLC program, erase */
    unsigned n_slots[3];
    ReadLine *rd;                   /* [ndies * rd_planes] reads reserved */

    /* ---- mapping state ---- */
    NvmFtl *ftl;
    bool pristine;                  /* nothing written since the fill */
    uint64_t last_write_done;       /* latest completion of a write so far */
    uint64_t fill_lpns;
    double fill_pct;                /* as set (whole regions hold it) */

    /* ---- host write stream and buffer ---- */
    uint64_t stream_bytes;          /* data appended to the buffer */
    uint64_t unit_seq;              /* open unit (or the next one) */
    bool unit_open;
    bool unit_slc;
    uint32_t unit_cap;              /* bytes */
    uint32_t unit_fill;
    uint64_t unit_ready;            /* its last data arrived */
    Unit *units;
    uint32_t n_units;
    uint64_t adm_seq;               /* oldest unit the buffer waits on */
    unsigned next_die;
    uint64_t *bh;                   /* buffer hits: lpn + 1, unit seq */
    uint32_t bh_mask;
    bool dirty;                     /* written since the last flush */

    /* ---- background work ---- */
    Debt gc, fold;
    unsigned bg_die;
    double gc_wa;

    /* ---- map cache ---- */
    uint32_t *map_tags;             /* DRAM map cache or HMB */
    uint32_t n_map_tags;
    uint32_t *sram_tags;
    uint64_t hmb_bytes;

    /* ---- thermal ---- */
    bool thermal_on;
    double temp_c;
    uint64_t temp_t;
    double energy_nj;               /* NAND energy since temp_t */
    uint64_t core_busy_ns;          /* core time since temp_t */
    bool throttled;
    double slow;                    /* NAND time factor now */
    uint64_t throttled_ns;
    uint64_t throttles;             /* lifetime: entries into throttling */
    uint64_t total_throttled_ns;    /* lifetime */

    /* ---- power ---- */
    bool apst_enabled;
    uint32_t apst_idle_ms[NVM_MAX_POWER_STATES];
    uint64_t busy_until;            /* latest host completion */
    uint64_t acct_ns;               /* power time accounted up to here */
    uint64_t ps_time_ns[NVM_MAX_POWER_STATES];
    uint64_t power_exits;

    /* ---- statistics ---- */
    uint64_t seed;                  /* rng's, as nvm_model_new() got it */
    uint64_t rng[4];
    ClassAcc cls[NVM_CLASS_COUNT];
    uint64_t host_written, nand_written, nand_read;
    uint64_t total_host_written;
    double total_nand_written;
    double wear_pct_base;
    uint64_t map_misses;
    uint64_t buffer_hits, gc_bytes, fold_bytes, erases, suspends;
    uint64_t map_lost;              /* writes the FTL had no room for */
};

/* ------------------------------------------------------------------ */
/*
 * PRNG: xoshiro256** seeded by splitmix64 (Blackman & Vigna, public domain
 * algorithms, written out here from their description).
 */

static uint64_t nvm_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The random numbers (the model's and the FTL's) as a new drive's. */
static void nvm_model_reseed(NvmModel *m)
{
    uint64_t x = m->seed;

    for (int i = 0; i < 4; i++) {
        m->rng[i] = nvm_splitmix64(&x);
    }
    if (m->ftl) {
        nvm_ftl_reseed(m->ftl);
    }
}

static inline uint64_t nvm_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t nvm_rand64(NvmModel *m)
{
    uint64_t *s = m->rng;
    uint64_t r = nvm_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = nvm_rotl(s[3], 45);
    return r;
}

static inline double nvm_rand01(NvmModel *m)
{
    return (nvm_rand64(m) >> 11) * (1.0 / 9007199254740992.0);
}

/* Multiplicative jitter with standard deviation m->jitter (triangular). */
static inline double nvm_jitter(NvmModel *m)
{
    double f;

    if (m->jitter <= 0) {
        return 1.0;
    }
    f = 1.0 + m->jitter * 2.449489742783178 *
        (nvm_rand01(m) + nvm_rand01(m) - 1.0);
    return f < 0.2 ? 0.2 : f;
}

/* ------------------------------------------------------------------ */
/* Histogram: 8 sub-buckets per power of two of nanoseconds. */

unsigned nvm_hist_bucket(uint64_t ns)
{
    unsigned msb, b;

    if (ns < 8) {
        return ns;
    }
    msb = 63 - __builtin_clzll(ns);
    b = (msb - 2) * 8 + ((ns >> (msb - 3)) & 7);
    return b < NVM_HIST_BUCKETS ? b : NVM_HIST_BUCKETS - 1;
}

uint64_t nvm_hist_bucket_upper_ns(unsigned bucket)
{
    unsigned msb;

    if (bucket < 8) {
        return bucket + 1;
    }
    msb = bucket / 8 + 2;
    if (msb >= 63) {
        return UINT64_MAX;
    }
    return (1ULL << msb) + ((uint64_t)(bucket % 8 + 1) << (msb - 3));
}

static uint64_t nvm_hist_bucket_lower_ns(unsigned bucket)
{
    return bucket ? nvm_hist_bucket_upper_ns(bucket - 1) : 0;
}

double nvm_hist_percentile_us(const uint64_t *hist, uint64_t count, double q)
{
    uint64_t want, seen = 0;

    if (!count) {
        return 0;
    }
    want = (uint64_t)ceil(q * count);
    if (want < 1) {
        want = 1;
    }
    for (unsigned b = 0; b < NVM_HIST_BUCKETS; b++) {
        if (seen + hist[b] >= want) {
            double lo = nvm_hist_bucket_lower_ns(b);
            double hi = nvm_hist_bucket_upper_ns(b);
            double frac = (double)(want - seen) / hist[b];

            return (lo + (hi - lo) * frac) / NS_PER_US;
        }
        seen += hist[b];
    }
    return 0;
}

/* ------------------------------------------------------------------ */

static const char *const op_names[NVM_CLASS_COUNT] = {
    [NVM_OP_READ] = "read",
    [NVM_OP_WRITE] = "write",
    [NVM_OP_FLUSH] = "flush",
    [NVM_OP_DISCARD] = "discard",
    [NVM_OP_WRITE_ZEROES] = "write-zeroes",
};

const char *nvm_op_name(NvmOp op)
{
    return (unsigned)op < NVM_CLASS_COUNT ? op_names[op] : "?";
}

bool nvm_op_from_name(const char *name, NvmOp *op)
{
    for (unsigned i = 0; i < NVM_CLASS_COUNT; i++) {
        if (!strcmp(name, op_names[i])) {
            *op = (NvmOp)i;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* Power: APST non-operational states and ASPM L1 on the link. */

/*
 * Split the idle time [from, now) of an idle period that began at
 * @idle_start among the power states APST walks through.
 */
static void nvm_account_idle(const NvmModel *m, uint64_t *ps_time,
                             uint64_t idle_start, uint64_t from,
                             uint64_t now, unsigned *state_out)
{
    uint64_t t = idle_start;
    unsigned cur = 0;

    for (;;) {
        unsigned best = 0;
        uint64_t best_at = UINT64_MAX;

        if (!m->apst_enabled) {
            break;
        }
        /* The next state entered: smallest idle time beyond t. */
        for (unsigned s = 1; s < m->n_ps; s++) {
            uint64_t at;

            if (!m->apst_idle_ms[s] || !m->ps[s].non_operational) {
                continue;
            }
            at = idle_start + m->apst_idle_ms[s] * NS_PER_MS;
            if (at > t && at <= now && at < best_at) {
                best = s;
                best_at = at;
            }
        }
        if (!best) {
            break;
        }
        if (best_at > from) {
            ps_time[cur] += best_at - (t > from ? t : from);
        }
        t = best_at;
        cur = best;
    }
    if (now > from) {
        ps_time[cur] += now - (t > from ? t : from);
    }
    *state_out = cur;
}

/* Returns when the command can start after the drive wakes up. */
static uint64_t nvm_wake(NvmModel *m, uint64_t now)
{
    uint64_t gap, penalty = 0;
    unsigned state;

    if (now <= m->busy_until) {
        return now;
    }
    if (m->busy_until > m->acct_ns) {
        m->ps_time_ns[0] += m->busy_until - m->acct_ns;
        m->acct_ns = m->busy_until;
    }
    gap = now - m->busy_until;
    nvm_account_idle(m, m->ps_time_ns, m->busy_until, m->acct_ns, now,
                     &state);
    m->acct_ns = now;
    if (state) {
        uint64_t entered = m->busy_until +
                           m->apst_idle_ms[state] * NS_PER_MS +
                           m->ps[state].entry_lat_us * 1000ULL;

        penalty = m->ps[state].exit_lat_us * 1000ULL;
        if (entered > now) {
            penalty += entered - now;   /* finish entering, then exit */
        }
        m->power_exits++;
    }
    if (gap >= m->l1_idle_ns && m->l1_exit_ns > penalty) {
        penalty = m->l1_exit_ns;
    }
    return now + penalty;
}

/* ------------------------------------------------------------------ */
/* Thermal: power -> temperature (first order) -> throttling. */

static void nvm_thermal_update(NvmModel *m, uint64_t now)
{
    double dt, util, p_w, t_ss;

    if (!m->thermal_on || now < m->temp_t + NS_PER_MS) {
        return;
    }
    dt = now - m->temp_t;
    util = m->core_busy_ns / (dt * m->cores);
    p_w = m->idle_w + (m->active_w - m->idle_w) * (util > 1 ? 1 : util) +
          m->energy_nj / dt;
    t_ss = m->idle_c + m->c_per_w * (p_w - m->idle_w);
    if (m->throttled) {
        m->throttled_ns += now - m->temp_t;
        m->total_throttled_ns += now - m->temp_t;
    }
    m->temp_c = t_ss + (m->temp_c - t_ss) * exp(-dt / m->tau_ns);
    m->temp_t = now;
    m->energy_nj = 0;
    m->core_busy_ns = 0;
    /* 2 degrees of hysteresis, as firmware does to avoid flapping */
    if (m->temp_c >= m->throttle_c) {
        m->throttles += !m->throttled;
        m->throttled = true;
    } else if (m->temp_c < m->throttle_c - 2) {
        m->throttled = false;
    }
    m->slow = m->throttled ? m->throttle_slowdown : 1.0;
}

/*
 * Energy of a NAND operation that takes @ns, throttling included: a
 * throttled operation runs longer at lower power, for the same energy.
 */
static inline void nvm_energy(NvmModel *m, double mw, double ns)
{
    m->energy_nj += mw * ns / m->slow / 1000;
}

/* ------------------------------------------------------------------ */
/* Resources */

static inline uint64_t nvm_core(NvmModel *m, uint64_t t, uint64_t cost,
                                unsigned *core)
{
    unsigned best = 0;
    uint64_t start;

    for (unsigned i = 1; i < m->cores; i++) {
        if (m->core_free[i] < m->core_free[best]) {
            best = i;
        }
    }
    start = t > m->core_free[best] ? t : m->core_free[best];
    if (t > m->core_free[best] + m->core_idle_ns) {
        start += m->core_wake_ns;       /* the core was clock-gated */
    }
    m->core_free[best] = start + cost;
    m->core_busy_ns += cost;
    *core = best;
    return start + cost;
}

/*
 * A throughput resource: reserves its slot in submission order from @t and
 * returns the earliest time the work that becomes ready at @ready is done.
 */
static inline uint64_t nvm_pipe(uint64_t *free_at, uint64_t t, uint64_t ready,
                                uint64_t svc)
{
    uint64_t start = t > *free_at ? t : *free_at;
    uint64_t end = start + svc;

    *free_at = end;
    return ready + svc > end ? ready + svc : end;
}

static double nvm_retry_p(const NvmModel *m)
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

static Unit *nvm_unit(NvmModel *m, uint64_t seq)
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
enum { SLOT_NATIVE, SLOT_SLC, SLOT_ERASE };

static uint64_t nvm_slot(NvmModel *m, unsigned kind, uint64_t t, uint64_t dur)
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

static uint64_t nvm_die_push(NvmModel *m, unsigned die, uint64_t ready,
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
static uint64_t nvm_channel(NvmModel *m, unsigned die, uint64_t t,
                            uint64_t dur)
{
    ReadLine *rl = &m->chan[die % m->channels];
    int gap;
    uint64_t s = nvm_read_slot(rl, t, dur, &gap);

    nvm_read_take(rl, gap, s, s + dur);
    return s + dur;
}

/* A read of @tr ns on (@die, @plane) ready at @t; returns its end. */
static uint64_t nvm_die_read(NvmModel *m, unsigned die, unsigned plane,
                             uint64_t t, uint64_t tr)
{
    Die *d = &m->dies[die];
    ReadLine *rl = &m->rd[die * m->rd_planes +
                          (m->rd_planes > 1 ? plane : 0)];
    int gap;
    uint64_t s = nvm_read_slot(rl, t, tr, &gap);
    uint64_t s0 = s, re;

    nvm_die_retire(m, d);
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

/* One page read; returns when its data is off the channel. */
static uint64_t nvm_page_read(NvmModel *m, uint64_t page, uint64_t t,
                              double tr_ns, uint32_t bytes)
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
    end = nvm_die_read(m, die, plane, t, (uint64_t)tr);
    nvm_energy(m, m->read_mw, tr);
    xfer = (uint64_t)(bytes * m->chan_ns_per_byte);
    m->nand_read += bytes;
    return nvm_channel(m, die, end, xfer);
}

/* ------------------------------------------------------------------ */
/*
 * Map: the logical-to-physical table is looked up in map chunks of
 * chunk-bytes.  DRAM drives cache cache-bytes of it (all of it when it
 * fits); DRAM-less ones keep a small on-chip cache and the rest in the
 * host memory buffer, a link round trip away.  A miss everywhere reads the
 * chunk from NAND (SLC); with miss-blocks-core the firmware core waits.
 */

static bool nvm_tag_hit(uint32_t *tags, uint32_t n, uint64_t mp)
{
    uint32_t slot = mp % n;

    if (tags[slot] == (uint32_t)mp + 1) {
        return true;
    }
    tags[slot] = (uint32_t)mp + 1;
    return false;
}

static uint64_t nvm_map_lookup(NvmModel *m, uint64_t off, uint64_t t,
                               unsigned core, bool update)
{
    uint64_t mp = off >> m->map_cover_shift;
    uint64_t done = t;

    if (m->map_hmb) {
        if (m->n_sram_tags && nvm_tag_hit(m->sram_tags, m->n_sram_tags,
                                          mp)) {
            return t;
        }
        if (m->n_map_tags && nvm_tag_hit(m->map_tags, m->n_map_tags, mp)) {
            done = t + m->hmb_rtt_ns;
            goto out;
        }
    } else if (!m->n_map_tags ||
               nvm_tag_hit(m->map_tags, m->n_map_tags, mp)) {
        return t;
    }
    m->map_misses++;
    done = nvm_page_read(m, mp * (m->map_chunk_bytes < m->page_bytes ?
                                  1 : m->map_chunk_bytes / m->page_bytes),
                         t, m->read_slc_ns, m->map_chunk_bytes);
out:
    if ((update ? m->map_update_blocks_core : m->map_miss_blocks_core) &&
        done > m->core_free[core]) {
        m->core_free[core] = done;
    }
    return done;
}

/* ------------------------------------------------------------------ */
/* SLC cache and background work */

/* SLC cache size now, in map units. */
static uint64_t nvm_slc_size(const NvmModel *m, uint64_t valid)
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
    }
    return true;
}

/* Issue one relocation unit (or, when the copies are done, one erase). */
static void nvm_bg_issue(NvmModel *m, Debt *dt, uint64_t ready)
{
    unsigned die = m->bg_die;
    uint64_t dur;

    m->bg_die = die + 1 == m->ndies ? 0 : die + 1;
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
static void nvm_bg_urgent(NvmModel *m, uint64_t t)
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
 * Relocation interleaved with host writes, after each host unit of
 * @bytes: GC copies in the proportion that frees space as fast as the
 * host fills it, and one fold unit per host unit while the SLC cache
 * holds more than its shrunken size.
 */
static void nvm_bg_interleave(NvmModel *m, uint64_t t, uint32_t bytes)
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
static void nvm_bg_idle(NvmModel *m, uint64_t now)
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

/* ------------------------------------------------------------------ */
/* Write path: buffer -> program units on the dies in turn. */

static void nvm_open_unit(NvmModel *m, uint64_t t)
{
    uint64_t unit_lpns = m->slc_unit_bytes >> m->lpn_shift;
    Unit *u;

    nvm_bg_urgent(m, t);
    m->unit_slc = nvm_ftl_slc_written(m->ftl) + unit_lpns <=
                  nvm_slc_size(m, nvm_ftl_valid(m->ftl)) &&
                  (nvm_ftl_open_room(m->ftl, NVM_SB_SLC) >= unit_lpns ||
                   nvm_ftl_free_sbs(m->ftl) > m->gc_urgent_free + 1);
    m->unit_cap = m->unit_slc ? m->slc_unit_bytes : m->native_unit_bytes;
    m->unit_fill = 0;
    m->unit_ready = 0;
    m->unit_open = true;
    u = nvm_unit(m, m->unit_seq);
    u->seq = m->unit_seq;
    u->end = OPEN_END;
    u->stream_end = m->stream_bytes;
}

/* Program the open unit (padded if it is not full); returns its end. */
static uint64_t nvm_program_unit(NvmModel *m, uint64_t t)
{
    unsigned die = m->next_die;
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
    m->next_die = die + 1 == m->ndies ? 0 : die + 1;
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
    {
        unsigned die = m->next_die;
        double prog = m->prog_slc_ns * nvm_jitter(m) * m->slow;

        m->next_die = die + 1 == m->ndies ? 0 : die + 1;
        done = nvm_die_push(m, die, done, (uint64_t)prog, OP_PROGRAM,
                            NONE32, SLOT_SLC);
        nvm_energy(m, m->program_slc_mw, prog);
        m->nand_written += m->page_bytes;
        m->total_nand_written += m->page_bytes;
    }
    return done;
}

/* ------------------------------------------------------------------ */

static uint64_t nvm_do_read(NvmModel *m, uint64_t t, uint64_t off,
                            uint64_t bytes)
{
    unsigned core;
    uint64_t cmd_t = nvm_core(m, t, m->read_cmd_ns, &core);
    uint64_t nand_done = cmd_t;
    uint64_t t_nand = nvm_map_lookup(m, off, cmd_t, core, false);
    uint64_t lpn = off >> m->lpn_shift;
    uint64_t last = (off + bytes - 1) >> m->lpn_shift;

    while (lpn <= last) {
        uint64_t page = lpn / m->lpns_per_page;
        uint64_t pend = (page + 1) * m->lpns_per_page;
        NvmLoc where = NVM_LOC_UNMAPPED;
        uint32_t n = 0;

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
            if (where != NVM_LOC_NATIVE) {
                where = l;
            }
        }
        if (where != NVM_LOC_UNMAPPED) {
            uint64_t d = nvm_page_read(m, page, t_nand,
                                       where == NVM_LOC_SLC ?
                                       m->read_slc_ns : m->read_native_ns,
                                       n << m->lpn_shift);

            nand_done = d > nand_done ? d : nand_done;
        }
    }
    /* Data path (ECC, DMA), then the link to the host. */
    nand_done = nvm_pipe(&m->read_path_free, cmd_t, nand_done,
                         (uint64_t)(bytes * m->read_path_ns_per_byte));
    return nvm_pipe(&m->link_tx_free, cmd_t, nand_done,
                    (uint64_t)((bytes + m->cmd_overhead_bytes) *
                               m->link_ns_per_byte));
}

static uint64_t nvm_do_write(NvmModel *m, uint64_t t, uint64_t off,
                             uint64_t bytes, bool fua)
{
    unsigned core;
    uint64_t cmd_t = nvm_core(m, t, m->write_cmd_ns, &core);
    uint64_t fe, mapped;

    fe = nvm_pipe(&m->link_rx_free, cmd_t, cmd_t,
                  (uint64_t)((bytes + m->cmd_overhead_bytes) *
                             m->link_ns_per_byte));
    fe = nvm_pipe(&m->write_path_free, cmd_t, fe,
                  (uint64_t)(bytes * m->write_path_ns_per_byte));
    /* The map chunk must be cached to record the new location. */
    mapped = nvm_map_lookup(m, off, cmd_t, core, true);
    fe = mapped > fe ? mapped : fe;
    m->host_written += bytes;
    m->total_host_written += bytes;
    return nvm_buffer_write(m, off, bytes, fe, fua);
}

static void nvm_trim(NvmModel *m, uint64_t off, uint64_t bytes)
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

static void nvm_map_setup(NvmModel *m)
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
    m->slc_static_lpns = p->slc_static_bytes >> m->lpn_shift;
    m->slc_dyn_max_lpns = p->slc_dynamic_max_bytes >> m->lpn_shift;
    m->fold_idle_ns = p->fold_idle_ms * NS_PER_MS;
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
        .seed = seed ^ 0x5851f42d4c957f2dULL,
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
    g_free(m->dies);
    for (int k = 0; k < 3; k++) {
        g_free(m->slots[k]);
    }
    g_free(m->rd);
    g_free(m->units);
    g_free(m->bh);
    g_free(m->map_tags);
    g_free(m->sram_tags);
    g_free(m);
}

size_t nvm_model_memory_bytes(const NvmModel *m)
{
    return sizeof(*m) + sizeof(ReadLine) * m->channels +
           sizeof(Die) * m->ndies +
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
    return nvm_model_memory_bytes(m) - nvm_ftl_memory_bytes(m->ftl) +
           nvm_ftl_memory_max_bytes(m->ftl);
}

size_t nvm_model_max_memory_bytes(void)
{
    size_t units = NVM_MAX_WRITE_BUFFER_BYTES / NVM_MIN_PAGE_BYTES + 8;
    size_t bh = 2 * (NVM_MAX_WRITE_BUFFER_BYTES >> 12) * 2;

    return sizeof(NvmModel) + sizeof(ReadLine) * NVM_MAX_CHANNELS +
           sizeof(Die) * NVM_MAX_DIES + sizeof(uint64_t) * 3 * NVM_MAX_DIES +
           sizeof(ReadLine) * (size_t)NVM_MAX_DIES * NVM_MAX_PLANES +
           sizeof(Unit) * units + sizeof(uint64_t) * bh +
           sizeof(uint32_t) * 2 * (size_t)NVM_MAX_MAP_TAGS +
           nvm_ftl_memory_bound(NVM_MAX_MAP_REGIONS, NVM_MAX_SUPERBLOCKS);
}

/* ------------------------------------------------------------------ */
/* State injection */

/* Forget queued work and buffered data (the drive was just prepared). */
static void nvm_quiesce(NvmModel *m)
{
    memset(&m->gc, 0, sizeof(m->gc));
    memset(&m->fold, 0, sizeof(m->fold));
    m->unit_open = false;
    m->dirty = false;
    m->pristine = true;
    memset(m->bh, 0, sizeof(uint64_t) * 2 * ((size_t)m->bh_mask + 1));
    /*
     * And the pipeline, as a new model has it: nothing queued on the dies,
     * the channels, the paths or the power slots, the write stream and the
     * die rotation from their start.  A drive given a state after other
     * work then times what follows as one given it new: the device (one
     * model through a suite) as nvmimic sim (a model per workload).
     * Kept, the rotation alone put a P2 2 TB's 64K writes after three
     * other workloads on other dies than a new drive's (648 against
     * 430 us from its 65th write), and the stream's offset moved when the
     * full buffer waited (22 ms against 67 us).  nvm_model_state_at()
     * then anchors what counts idle time at the state's time.
     */
    for (unsigned i = 0; i < m->ndies; i++) {
        m->dies[i].free = 0;
        m->dies[i].head = m->dies[i].n = 0;
    }
    for (int k = 0; k < 3; k++) {
        if (m->slots[k]) {
            memset(m->slots[k], 0, sizeof(uint64_t) * m->n_slots[k]);
        }
    }
    memset(m->chan, 0, sizeof(ReadLine) * m->channels);
    memset(m->rd, 0, sizeof(ReadLine) * (size_t)m->ndies * m->rd_planes);
    memset(m->units, 0, sizeof(Unit) * m->n_units);
    m->stream_bytes = 0;
    m->unit_seq = m->adm_seq = 0;
    m->unit_fill = 0;
    m->unit_ready = 0;
    m->next_die = m->bg_die = 0;
    m->link_tx_free = m->link_rx_free = 0;
    m->read_path_free = m->write_path_free = 0;
    memset(m->core_free, 0, sizeof(m->core_free));
    /* last_write_done stays: a flush still covers a write in flight */
}

bool nvm_model_set_fill(NvmModel *m, double pct, GError **errp)
{
    uint64_t nlpn = m->capacity_bytes >> m->lpn_shift;

    if (!(pct >= 0 && pct <= 100)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "fill level %g %% is outside 0..100", pct);
        return false;
    }
    m->fill_lpns = (uint64_t)llround(pct / 100.0 * nlpn);
    m->fill_pct = pct;
    nvm_ftl_reset(m->ftl, m->fill_lpns, 0);
    nvm_quiesce(m);
    return true;
}

bool nvm_model_set_slc_used(NvmModel *m, uint64_t bytes, GError **errp)
{
    uint64_t lpns = bytes >> m->lpn_shift;
    uint64_t cap = nvm_slc_size(m, m->fill_lpns);

    if (lpns > cap || lpns > m->fill_lpns) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "SLC occupancy %" G_GUINT64_FORMAT " bytes exceeds the "
                    "SLC cache size (%" G_GUINT64_FORMAT ") or the valid "
                    "data (%" G_GUINT64_FORMAT ")", bytes,
                    cap << m->lpn_shift, m->fill_lpns << m->lpn_shift);
        return false;
    }
    if (!m->pristine) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "SLC occupancy can only be set right after a fill "
                    "level or a secure erase");
        return false;
    }
    /* the data the fill wrote last is what sits in SLC */
    nvm_ftl_reset(m->ftl, m->fill_lpns, lpns);
    nvm_quiesce(m);
    return true;
}

bool nvm_model_set_steady_random(NvmModel *m, uint64_t start_bytes,
                                 uint64_t span_bytes, GError **errp)
{
    uint64_t lo = start_bytes >> m->lpn_shift;
    uint64_t hi = (start_bytes + span_bytes) >> m->lpn_shift;

    if (!m->pristine || !nvm_ftl_scatter(m->ftl, lo, hi, m->gc_start_free)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "a steady random state needs a fill that holds the span "
                    "(set the fill level first) and room for it");
        return false;
    }
    return true;
}

void nvm_model_warm_map(NvmModel *m, uint64_t start_bytes,
                        uint64_t span_bytes)
{
    uint64_t lo = start_bytes >> m->map_cover_shift;
    uint64_t hi = (start_bytes + span_bytes + (1ULL << m->map_cover_shift) -
                   1) >> m->map_cover_shift;

    for (uint64_t mp = lo; mp < hi; mp++) {
        if (m->n_map_tags) {
            m->map_tags[mp % m->n_map_tags] = (uint32_t)mp + 1;
        }
        if (m->n_sram_tags) {
            m->sram_tags[mp % m->n_sram_tags] = (uint32_t)mp + 1;
        }
    }
}

bool nvm_model_set_wear(NvmModel *m, double pct, GError **errp)
{
    if (!(pct >= 0 && pct <= 255)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "wear %g %% is outside 0..255", pct);
        return false;
    }
    m->wear_pct_base = pct;
    m->total_nand_written = 0;
    m->total_host_written = (uint64_t)(pct / 100.0 * m->endurance_bytes);
    return true;
}

void nvm_model_secure_erase(NvmModel *m)
{
    m->fill_lpns = 0;
    m->fill_pct = 0;
    nvm_ftl_reset(m->ftl, 0, 0);
    /* from here on the drive draws what a new one would (as nvmimic sim's
     * fresh model does): no trace of the workloads before the erase */
    nvm_model_reseed(m);
    nvm_quiesce(m);
    if (m->map_tags) {
        memset(m->map_tags, 0, sizeof(uint32_t) * m->n_map_tags);
    }
    if (m->sram_tags) {
        memset(m->sram_tags, 0, sizeof(uint32_t) * m->n_sram_tags);
    }
}

bool nvm_model_set_mapped(NvmModel *m, const NvmLbaRange *ranges, size_t n,
                          GError **errp)
{
    uint64_t cap_lbas = m->capacity_bytes / m->lba_bytes;

    for (size_t i = 0; i < n; i++) {
        const NvmLbaRange *r = &ranges[i];

        if (!r->nlb || r->slba >= cap_lbas || r->nlb > cap_lbas - r->slba ||
            (i && r->slba < ranges[i - 1].slba + ranges[i - 1].nlb)) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "mapped range %zu (LBA %" G_GUINT64_FORMAT ", %"
                        G_GUINT64_FORMAT " blocks) is empty, beyond the %"
                        G_GUINT64_FORMAT " LBAs or not after the one before",
                        i, r->slba, r->nlb, cap_lbas);
            return false;
        }
    }
    nvm_model_secure_erase(m);
    if (n) {
        /*
         * The mapping state: written in order up to the end of the last
         * range (on native cells, as a fill leaves them), then the gaps
         * between the ranges deallocated; a 4 KiB unit that holds any of
         * a range's LBAs is mapped.
         */
        uint64_t unit = 1ULL << m->lpn_shift;
        uint64_t end = (ranges[n - 1].slba + ranges[n - 1].nlb) *
                       m->lba_bytes;
        uint64_t prev = 0;

        nvm_ftl_reset(m->ftl, (end + unit - 1) >> m->lpn_shift, 0);
        for (size_t i = 0; i < n; i++) {
            uint64_t lo = ranges[i].slba * m->lba_bytes;

            if (lo > prev) {
                nvm_trim(m, prev, lo - prev);
            }
            prev = lo + ranges[i].nlb * m->lba_bytes;
        }
        m->fill_lpns = nvm_ftl_valid(m->ftl);
        m->fill_pct = 100.0 * m->fill_lpns /
                      (double)(m->capacity_bytes >> m->lpn_shift);
        nvm_quiesce(m);
    }
    return true;
}

/* A read line idle before @t: its holes before @t can take no read. */
static void nvm_read_line_at(ReadLine *rl, uint64_t t)
{
    if (rl->free >= t) {
        return;
    }
    rl->free = t;
    rl->ng = 0;
}

void nvm_model_state_at(NvmModel *m, uint64_t now_ns)
{
    /* background work (folding, GC) and power states count idle time
     * from busy_until (nvm_bg_idle, nvm_account_idle) */
    if (now_ns > m->busy_until) {
        m->busy_until = now_ns;
    }
    /*
     * So do the read lines: an idle one's first read would otherwise
     * record the hole from its last use (or from 0) as a gap that later
     * reads may fill, and that gap, as long as the time since, kept a
     * slot of the few a line has against the holes programs leave.  The
     * same commands replayed with the state set at 20 and at 40 ms
     * parted 1.4 s later on a P2 2 TB (a 26 ms QLC program's hole).
     */
    for (unsigned i = 0; i < m->ndies * m->rd_planes; i++) {
        nvm_read_line_at(&m->rd[i], now_ns);
    }
    for (unsigned i = 0; i < m->channels; i++) {
        nvm_read_line_at(&m->chan[i], now_ns);
    }
    /* and the cores' clock gating (nvm_core): awake at the state's time */
    for (unsigned i = 0; i < m->cores; i++) {
        if (now_ns > m->core_free[i]) {
            m->core_free[i] = now_ns;
        }
    }
}

void nvm_model_reset_stats(NvmModel *m, uint64_t now_ns)
{
    memset(m->cls, 0, sizeof(m->cls));
    m->host_written = m->nand_written = m->nand_read = 0;
    m->map_misses = 0;
    m->power_exits = 0;
    m->buffer_hits = m->gc_bytes = m->fold_bytes = 0;
    m->erases = m->suspends = 0;
    m->throttled_ns = 0;
    memset(m->ps_time_ns, 0, sizeof(m->ps_time_ns));
    m->acct_ns = now_ns;
}

bool nvm_model_set_apst(NvmModel *m, bool enabled, const uint32_t *idle_ms,
                        unsigned n, GError **errp)
{
    if (n != m->n_ps) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "APST table has %u entries, the drive has %u power "
                    "states", n, m->n_ps);
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        if (idle_ms && idle_ms[i] && !m->ps[i].non_operational) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "APST can only enter non-operational states; "
                        "power state %u is operational", i);
            return false;
        }
    }
    m->apst_enabled = enabled;
    for (unsigned i = 0; i < n; i++) {
        m->apst_idle_ms[i] = idle_ms ? idle_ms[i] : 0;
    }
    return true;
}

void nvm_model_reset_apst(NvmModel *m)
{
    m->apst_enabled = m->apst_default_enabled;
    for (unsigned i = 0; i < m->n_ps; i++) {
        m->apst_idle_ms[i] = m->ps[i].idle_before_entry_ms;
    }
}

bool nvm_model_set_hmb(NvmModel *m, uint64_t bytes, GError **errp)
{
    if (!m->map_hmb) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "the drive has DRAM; it takes no host memory buffer");
        return false;
    }
    if (bytes > (1ULL << 40)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "host memory buffer of %" G_GUINT64_FORMAT " bytes is "
                    "implausibly large", bytes);
        return false;
    }
    m->hmb_bytes = bytes;
    nvm_map_setup(m);
    return true;
}

void nvm_model_set_thermal(NvmModel *m, bool enabled)
{
    m->thermal_on = enabled;
    m->temp_c = m->idle_c;
    m->temp_t = m->now;
    m->energy_nj = 0;
    m->core_busy_ns = 0;
    m->throttled = false;
    m->slow = 1.0;
}

/* ------------------------------------------------------------------ */
/* Statistics */

void nvm_model_get_stats(const NvmModel *cm, uint64_t now_ns, NvmStats *st)
{
    /*
     * Logically const: the idle-time background work below is what the
     * next command would account first, in the same order, so reading the
     * statistics changes no result.
     */
    NvmModel *m = (NvmModel *)cm;
    NvmFtlCounts fc;
    unsigned state = 0;

    if (now_ns > m->now) {
        /* the background work a command arriving now would find done */
        uint64_t keep = m->now;

        m->now = now_ns;
        nvm_bg_idle(m, now_ns);
        m->now = keep;
    }
    nvm_ftl_counts(m->ftl, &fc);
    memset(st, 0, sizeof(*st));
    for (unsigned c = 0; c < NVM_CLASS_COUNT; c++) {
        const ClassAcc *a = &m->cls[c];
        NvmClassStats *s = &st->cls[c];

        s->count = a->count;
        s->bytes = a->bytes;
        memcpy(s->hist, a->hist, sizeof(s->hist));
        if (a->count) {
            s->mean_us = (double)a->lat_sum_ns / a->count / NS_PER_US;
            s->p50_us = nvm_hist_percentile_us(a->hist, a->count, 0.50);
            s->p99_us = nvm_hist_percentile_us(a->hist, a->count, 0.99);
            s->p999_us = nvm_hist_percentile_us(a->hist, a->count, 0.999);
            s->max_us = a->lat_max_ns / NS_PER_US;
        }
    }
    st->host_bytes_written = m->host_written;
    st->nand_bytes_written = m->nand_written;
    st->nand_bytes_read = m->nand_read;
    st->total_host_bytes_written = m->total_host_written;
    st->total_nand_bytes_written = (uint64_t)m->total_nand_written;
    st->write_amplification = m->host_written ?
        (double)m->nand_written / m->host_written : 0;
    st->gc_wa_now = m->gc_wa;
    st->wear_pct = m->wear_pct_base +
                   100.0 * m->total_nand_written / m->endurance_bytes;
    st->valid_bytes = fc.valid << m->lpn_shift;
    /* right after a fill, the level it was set to (held in whole regions) */
    st->fill_pct = m->pristine ? m->fill_pct
                               : 100.0 * st->valid_bytes / m->capacity_bytes;
    st->slc_used_bytes = fc.slc_written << m->lpn_shift;
    st->slc_size_bytes = nvm_slc_size(m, fc.valid) << m->lpn_shift;
    st->map_misses = m->map_misses;
    st->power_exits = m->power_exits;
    memcpy(st->ps_time_ns, m->ps_time_ns, sizeof(st->ps_time_ns));
    if (now_ns > m->busy_until) {
        uint64_t acct = m->acct_ns;

        if (m->busy_until > acct) {
            st->ps_time_ns[0] += m->busy_until - acct;
            acct = m->busy_until;
        }
        nvm_account_idle(m, st->ps_time_ns, m->busy_until, acct, now_ns,
                         &state);
    } else if (now_ns > m->acct_ns) {
        st->ps_time_ns[0] += now_ns - m->acct_ns;
    }
    st->power_state = state;
    st->buffer_read_hits = m->buffer_hits;
    st->gc_bytes = m->gc_bytes;
    st->fold_bytes = m->fold_bytes;
    st->erases = m->erases;
    st->suspends = m->suspends;
    st->free_superblocks = fc.free_sbs;
    st->hmb_bytes = m->hmb_bytes;
    st->temp_c = m->thermal_on ? m->temp_c : m->idle_c;
    st->throttled_ns = m->throttled_ns;
    st->throttles = m->throttles;
    st->total_throttled_ns = m->total_throttled_ns;
    st->map_state_bytes = nvm_ftl_memory_bytes(m->ftl);
}
