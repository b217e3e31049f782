/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive performance model: resource reservation over the PCIe link,
 * firmware cores, data paths, flash channels and dies, with an SLC cache,
 * write buffer, map cache, analytical GC and power states.  See README.md.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "nvmimic-model.h"

#define NS_PER_US 1000.0
#define NS_PER_MS 1000000ULL

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
    uint32_t page_bytes;
    uint32_t slc_unit_bytes;        /* planes x page */
    uint32_t native_unit_bytes;     /* planes x page x bits */
    double link_ns_per_byte;
    uint32_t cmd_overhead_bytes;
    uint64_t read_cmd_ns, write_cmd_ns, flush_cmd_ns, trim_cmd_ns;
    double read_path_ns_per_byte;
    double write_path_ns_per_byte;
    double chan_ns_per_byte;
    double read_slc_ns, read_native_ns;
    double prog_slc_ns, prog_native_ns;
    double erase_ns_per_native_unit;  /* erase time shared over a block */
    bool indep_planes;
    bool program_suspend;
    uint64_t suspend_ns;
    double phys_native_bytes;       /* raw - reserved - static SLC */
    double slc_static_bytes;
    double slc_dynamic_max_bytes;
    uint64_t fold_idle_ns;
    uint64_t write_buffer_bytes;
    uint32_t map_cover_shift;       /* log2 data bytes per map chunk */
    uint32_t n_map_tags;            /* 0: whole map cached */
    uint32_t map_chunk_bytes;
    bool map_miss_blocks_core;
    unsigned n_ps;
    NvmPowerState ps[NVM_MAX_POWER_STATES];
    bool apst_default_enabled;
    uint64_t l1_idle_ns, l1_exit_ns;
    uint64_t core_idle_ns, core_wake_ns;
    double jitter;                  /* fraction */
    double retry_p_new, retry_p_eol;
    uint64_t retry_ns;
    double endurance_bytes;

    /* ---- resources: time each is next free ---- */
    uint64_t link_tx_free, link_rx_free;
    uint64_t core_free[NVM_MAX_CORES];
    uint64_t read_path_free, write_path_free;
    uint64_t *chan_free;            /* [channels] */
    uint64_t *die_prog_free;        /* [ndies] */
    uint64_t *plane_free;           /* [ndies * planes] */

    /* ---- write stream and buffer ---- */
    uint64_t stream_bytes;          /* bytes appended to the write stream */
    uint64_t unit_start;            /* stream offset of the open unit */
    uint32_t unit_bytes;            /* size of the open unit, 0 = none */
    bool unit_slc;
    uint64_t unit_ready;            /* last data of the open unit arrived */
    uint64_t unit_rand_bytes;       /* open unit bytes written at random */
    uint64_t stream_end[8];         /* ends of recent sequential streams */
    double rand_frac;               /* recent share of random writes */
    unsigned stream_victim;
    unsigned next_die;
    uint64_t *ring;                 /* granule -> programmed time */
    uint32_t ring_n;
    uint32_t granule_shift;         /* granule = slc unit */
    uint64_t nand_write_done;       /* latest program completion */

    /* ---- map cache ---- */
    uint32_t *map_tags;

    /* ---- drive state (byte counters) ---- */
    double base_density;            /* valid fraction outside the span */
    uint64_t span_lo, span_hi;      /* bytes; span of written LBAs */
    double span_valid;
    double slc_used;                /* host bytes held in SLC ... */
    double slc_base;                /* ... of which outside the span */
    uint64_t fold_clock;            /* folding accounted up to here */
    double wa;
    double wa_hot, wa_valid, wa_dyn;
    double wear_pct_base;

    /* ---- power ---- */
    bool apst_enabled;
    uint32_t apst_idle_ms[NVM_MAX_POWER_STATES];
    uint64_t busy_until;            /* latest host completion */
    uint64_t acct_ns;               /* power time accounted up to here */
    uint64_t ps_time_ns[NVM_MAX_POWER_STATES];
    uint64_t power_exits;

    /* ---- statistics ---- */
    uint64_t rng[4];
    ClassAcc cls[NVM_CLASS_COUNT];
    uint64_t host_written, nand_written, nand_read;
    uint64_t total_host_written;
    double total_nand_written;
    uint64_t map_misses;
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
/*
 * Garbage collection: write amplification of FIFO (LRW) cleaning under
 * uniform random writes, WA = a / (a + W0(-a e^-a)) with a = physical /
 * logical space of the data being rewritten (Hu et al., SYSTOR 2009;
 * Desnoyers, SYSTOR 2012).  Greedy cleaning does slightly better; the
 * FIFO form is closed and monotonic, which is what the model needs.
 */

static double nvm_lambert_w0(double x)
{
    double w, p;

    if (x <= -0.36787944117144233) {
        return -1.0;
    }
    p = sqrt(2.0 * (2.718281828459045 * x + 1.0));
    w = x < -0.25 ? -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p
                  : log1p(x);
    for (int i = 0; i < 32; i++) {
        double e = exp(w);
        double f = w * e - x;
        double d = e * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0);
        double nw = w - f / d;

        if (fabs(nw - w) < DBL_EPSILON) {
            w = nw;
            break;
        }
        w = nw;
    }
    return w;
}

static double nvm_wa_fifo(double alpha)
{
    if (alpha < 1.0005) {
        alpha = 1.0005;
    }
    return alpha / (alpha + nvm_lambert_w0(-alpha * exp(-alpha)));
}

static double nvm_span_len(const NvmModel *m)
{
    return m->span_hi > m->span_lo ? (double)(m->span_hi - m->span_lo) : 0;
}

static double nvm_valid_bytes(const NvmModel *m)
{
    double span = nvm_span_len(m);

    return m->span_valid + m->base_density * (m->capacity_bytes - span);
}

static double nvm_dyn_slc_used(const NvmModel *m)
{
    double d = m->slc_used - m->slc_static_bytes;

    return d > 0 ? d : 0;
}

static void nvm_update_wa(NvmModel *m, bool force)
{
    double valid = nvm_valid_bytes(m);
    double hot = nvm_span_len(m) > 0 ? m->span_valid : valid;
    double dyn = nvm_dyn_slc_used(m);
    double avail;

    if (!force && fabs(hot - m->wa_hot) <= 0.002 * m->wa_hot &&
        fabs(valid - m->wa_valid) <= 0.002 * m->wa_valid &&
        fabs(dyn - m->wa_dyn) <= 0.01 * m->capacity_bytes) {
        return;
    }
    m->wa_hot = hot;
    m->wa_valid = valid;
    m->wa_dyn = dyn;
    if (hot < 1e6) {
        m->wa = 1.0;
        return;
    }
    /* Cold data sits in full blocks; the hot set owns the rest. */
    avail = m->phys_native_bytes - (valid - hot) - dyn * m->bits;
    m->wa = nvm_wa_fifo(avail / hot);
}

static double nvm_slc_capacity(const NvmModel *m)
{
    double free_user = m->capacity_bytes - nvm_valid_bytes(m);
    double dyn = free_user > 0 ? free_user / m->bits : 0;

    if (dyn > m->slc_dynamic_max_bytes) {
        dyn = m->slc_dynamic_max_bytes;
    }
    return m->slc_static_bytes + dyn;
}

/*
 * Die time of one native program unit including GC copies and erases.
 * Sequentially written data is later invalidated a block at a time, so only
 * the randomly written fraction @rand of a unit carries GC copies.
 */
static double nvm_native_unit_ns(const NvmModel *m, double prog_ns,
                                 double rand)
{
    double wa = 1.0 + (m->wa - 1.0) * rand;

    return prog_ns * wa + (wa - 1.0) * m->bits * m->read_native_ns +
           wa * m->erase_ns_per_native_unit;
}

static double nvm_fold_ns_per_byte(const NvmModel *m)
{
    double unit = nvm_native_unit_ns(m, m->prog_native_ns, m->rand_frac) +
                  m->bits * m->read_slc_ns;

    return unit / ((double)m->ndies * m->native_unit_bytes);
}

/* Bytes background folding moves out of SLC between fold_clock and now. */
static double nvm_fold_amount(const NvmModel *m, uint64_t now, uint64_t *from)
{
    uint64_t start = m->busy_until > m->nand_write_done ? m->busy_until
                                                        : m->nand_write_done;
    double amount;

    start += m->fold_idle_ns;
    if (start < m->fold_clock) {
        start = m->fold_clock;
    }
    *from = start;
    if (m->slc_used <= 0 || now <= start) {
        return 0;
    }
    amount = (now - start) / nvm_fold_ns_per_byte(m);
    return amount < m->slc_used ? amount : m->slc_used;
}

/* Remove @bytes from the SLC pool, from span and base data alike. */
static void nvm_slc_drain(NvmModel *m, double bytes)
{
    if (m->slc_used <= 0) {
        return;
    }
    m->slc_base -= bytes * m->slc_base / m->slc_used;
    m->slc_used -= bytes;
    if (m->slc_used < 0) {
        m->slc_used = 0;
    }
    if (m->slc_base < 0) {
        m->slc_base = 0;
    }
}

static void nvm_fold(NvmModel *m, uint64_t now)
{
    uint64_t from;
    double amount = nvm_fold_amount(m, now, &from);

    if (amount > 0) {
        double wa = 1.0 + (m->wa - 1.0) * m->rand_frac;

        nvm_slc_drain(m, amount);
        m->nand_written += amount * wa;
        m->total_nand_written += amount * wa;
        m->nand_read += amount;
        nvm_update_wa(m, false);
    }
    if (now > m->fold_clock) {
        m->fold_clock = now;
    }
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

/* One page read on (die, plane); returns when its data is off the channel. */
static uint64_t nvm_page_read(NvmModel *m, unsigned die, unsigned plane,
                              uint64_t t, double tr_ns, uint32_t bytes)
{
    unsigned pl = m->indep_planes ? plane : 0;
    uint64_t *pf = &m->plane_free[die * m->planes + pl];
    uint64_t start = t > *pf ? t : *pf;
    uint64_t end, xfer;
    double tr = tr_ns * nvm_jitter(m);

    if (m->die_prog_free[die] > start) {
        if (m->program_suspend) {
            tr += m->suspend_ns;
        } else {
            start = m->die_prog_free[die];
        }
    }
    if (m->retry_p_eol > 0 || m->retry_p_new > 0) {
        if (nvm_rand01(m) < nvm_retry_p(m)) {
            tr += m->retry_ns;
        }
    }
    end = start + (uint64_t)tr;
    *pf = end;
    if (!m->indep_planes) {
        for (unsigned p = 1; p < m->planes; p++) {
            m->plane_free[die * m->planes + p] = end;
        }
    }
    xfer = (uint64_t)(bytes * m->chan_ns_per_byte);
    m->nand_read += bytes;
    return nvm_pipe(&m->chan_free[die % m->channels], start, end, xfer);
}

/*
 * Map lookup: a miss in the map cache reads a map chunk (SLC) first; a
 * synchronous firmware keeps its core busy meanwhile.
 */
static uint64_t nvm_map_lookup(NvmModel *m, uint64_t off, uint64_t t,
                               unsigned core)
{
    uint64_t done;
    uint64_t mp;
    uint32_t slot;

    if (!m->n_map_tags) {
        return t;
    }
    mp = off >> m->map_cover_shift;
    slot = mp % m->n_map_tags;
    if (m->map_tags[slot] == (uint32_t)mp + 1) {
        return t;
    }
    m->map_tags[slot] = (uint32_t)mp + 1;
    m->map_misses++;
    done = nvm_page_read(m, mp % m->ndies, (mp / m->ndies) % m->planes, t,
                         m->read_slc_ns, m->map_chunk_bytes);
    if (m->map_miss_blocks_core && done > m->core_free[core]) {
        m->core_free[core] = done;
    }
    return done;
}

/* ------------------------------------------------------------------ */
/* Valid data and SLC occupancy, tracked as byte counters over a span. */

static double nvm_span_overlap(const NvmModel *m, uint64_t s, uint64_t e)
{
    uint64_t lo = s > m->span_lo ? s : m->span_lo;
    uint64_t hi = e < m->span_hi ? e : m->span_hi;

    return hi > lo ? (double)(hi - lo) : 0;
}

static void nvm_note_write(NvmModel *m, uint64_t s, uint64_t e, bool to_slc)
{
    double b = e - s;
    double len = nvm_span_len(m);
    double inside = len > 0 ? nvm_span_overlap(m, s, e) : 0;
    double outside = b - inside;
    double p_in = len > 0 ? m->span_valid / len : 0;
    double slc_span = m->slc_used - m->slc_base;
    double slc_frac = m->span_valid > 0 ? slc_span / m->span_valid : 0;
    double base_valid = m->base_density * (m->capacity_bytes - len);
    double base_frac = base_valid > 0 ? m->slc_base / base_valid : 0;
    double overwritten = inside * p_in + outside * m->base_density;
    double gone_base = outside * m->base_density * (base_frac > 1 ? 1
                                                                  : base_frac);
    double new_len;

    if (slc_frac > 1) {
        slc_frac = 1;
    }
    m->slc_used -= inside * p_in * slc_frac + gone_base;
    m->slc_base -= gone_base;
    if (m->slc_base < 0) {
        m->slc_base = 0;
    }
    if (len <= 0) {
        m->span_lo = s;
        m->span_hi = e;
    } else {
        if (s < m->span_lo) {
            m->span_lo = s;
        }
        if (e > m->span_hi) {
            m->span_hi = e;
        }
    }
    new_len = nvm_span_len(m);
    m->span_valid += (new_len - len) * m->base_density - overwritten + b;
    if (to_slc) {
        m->slc_used += b;
    }
    if (m->slc_used < 0) {
        m->slc_used = 0;
    }
    nvm_update_wa(m, false);
}

static void nvm_note_trim(NvmModel *m, uint64_t s, uint64_t e)
{
    double len = nvm_span_len(m);
    double inside = len > 0 ? nvm_span_overlap(m, s, e) : 0;
    double outside = (e - s) - inside;
    double p_in = len > 0 ? m->span_valid / len : 0;
    double rest = m->capacity_bytes - len;
    double slc_frac = m->span_valid > 0 ?
                      (m->slc_used - m->slc_base) / m->span_valid : 0;
    double base_frac = rest > 0 && m->base_density > 0 ?
                       m->slc_base / (m->base_density * rest) : 0;
    double gone_base = outside * m->base_density *
                       (base_frac > 1 ? 1 : base_frac);

    m->slc_used -= inside * p_in * (slc_frac > 1 ? 1 : slc_frac) + gone_base;
    m->slc_base -= gone_base;
    if (m->slc_used < 0) {
        m->slc_used = 0;
    }
    if (m->slc_base < 0) {
        m->slc_base = 0;
    }
    m->span_valid -= inside * p_in;
    if (m->span_valid < 0) {
        m->span_valid = 0;
    }
    if (rest > 0) {
        m->base_density *= 1.0 - (outside < rest ? outside / rest : 1.0);
    }
    nvm_update_wa(m, false);
}

/* ------------------------------------------------------------------ */
/* Write path: buffer -> program units on dies in turn. */

static void nvm_program_unit(NvmModel *m)
{
    unsigned d = m->next_die;
    uint64_t t = m->unit_ready;
    uint64_t xfer = (uint64_t)(m->unit_bytes * m->chan_ns_per_byte);
    uint64_t *cf = &m->chan_free[d % m->channels];
    uint64_t cs = t > *cf ? t : *cf;
    uint64_t ds, done;
    double prog;
    uint64_t g0, g1;

    *cf = cs + xfer;
    ds = cs + xfer > m->die_prog_free[d] ? cs + xfer : m->die_prog_free[d];
    if (!m->program_suspend) {
        for (unsigned p = 0; p < m->planes; p++) {
            uint64_t pf = m->plane_free[d * m->planes + p];

            ds = pf > ds ? pf : ds;
        }
    }
    if (m->unit_slc) {
        prog = m->prog_slc_ns * nvm_jitter(m);
        m->nand_written += m->unit_bytes;
        m->total_nand_written += m->unit_bytes;
    } else {
        double rand = (double)m->unit_rand_bytes / m->unit_bytes;
        double wa = 1.0 + (m->wa - 1.0) * (rand > 1 ? 1 : rand);

        double excess = m->slc_used - nvm_slc_capacity(m);

        prog = nvm_native_unit_ns(m, m->prog_native_ns * nvm_jitter(m),
                                  rand > 1 ? 1 : rand);
        m->nand_written += m->unit_bytes * wa;
        m->total_nand_written += m->unit_bytes * wa;
        if (excess > 0) {
            /*
             * The dynamic cache shrank under its data (the drive filled):
             * fold the surplus alongside host writes.
             */
            double f = excess < m->unit_bytes ? excess : m->unit_bytes;

            prog += f * nvm_fold_ns_per_byte(m) * m->ndies;
            nvm_slc_drain(m, f);
            m->nand_written += f * (1.0 + (m->wa - 1.0) * m->rand_frac);
            m->total_nand_written += f * (1.0 + (m->wa - 1.0) * m->rand_frac);
            m->nand_read += f;
        }
    }
    m->unit_rand_bytes = 0;
    done = ds + (uint64_t)prog;
    m->die_prog_free[d] = done;
    if (!m->program_suspend) {
        for (unsigned p = 0; p < m->planes; p++) {
            m->plane_free[d * m->planes + p] = done;
        }
    }
    if (done > m->nand_write_done) {
        m->nand_write_done = done;
    }
    g0 = m->unit_start >> m->granule_shift;
    g1 = (m->unit_start + m->unit_bytes - 1) >> m->granule_shift;
    for (uint64_t g = g0; g <= g1; g++) {
        m->ring[g % m->ring_n] = done;
    }
    m->next_die = d + 1 == m->ndies ? 0 : d + 1;
    m->unit_start += m->unit_bytes;
    m->unit_bytes = 0;
}

static void nvm_open_unit(NvmModel *m)
{
    m->unit_slc = m->slc_used + m->slc_unit_bytes <= nvm_slc_capacity(m);
    m->unit_bytes = m->unit_slc ? m->slc_unit_bytes : m->native_unit_bytes;
    m->unit_ready = 0;
}

/* Does a write at @off continue one of the recent sequential streams? */
static bool nvm_sequential(NvmModel *m, uint64_t off, uint64_t end)
{
    for (unsigned i = 0; i < 8; i++) {
        if (m->stream_end[i] == off) {
            m->stream_end[i] = end;
            return true;
        }
    }
    m->stream_end[m->stream_victim] = end;
    m->stream_victim = (m->stream_victim + 1) % 8;
    return false;
}

/* Append @b bytes that arrived at @t; returns when the buffer admits them. */
static uint64_t nvm_buffer_write(NvmModel *m, uint64_t b, uint64_t t,
                                 uint64_t s_off)
{
    uint64_t end = m->stream_bytes + b;
    uint64_t done = t;
    uint64_t left = b;
    uint64_t off = s_off;
    bool rand = !nvm_sequential(m, s_off, s_off + b);

    /* Folded data keeps the random/sequential mix it was written with. */
    m->rand_frac += ((rand ? 1.0 : 0.0) - m->rand_frac) / 256.0;

    while (left) {
        uint64_t room, n;

        if (!m->unit_bytes) {
            nvm_open_unit(m);
        }
        room = m->unit_start + m->unit_bytes - m->stream_bytes;
        n = left < room ? left : room;
        nvm_note_write(m, off, off + n, m->unit_slc);
        if (rand) {
            m->unit_rand_bytes += n;
        }
        m->stream_bytes += n;
        off += n;
        left -= n;
        if (t > m->unit_ready) {
            m->unit_ready = t;
        }
        if (m->stream_bytes == m->unit_start + m->unit_bytes) {
            nvm_program_unit(m);
        }
    }
    if (end > m->write_buffer_bytes) {
        uint64_t g = (end - m->write_buffer_bytes - 1) >> m->granule_shift;
        uint64_t freed = m->ring[g % m->ring_n];

        done = freed > done ? freed : done;
    }
    return done;
}

/* Program whatever the open unit holds (flush). */
static void nvm_flush_unit(NvmModel *m, uint64_t t)
{
    if (m->unit_bytes && m->stream_bytes > m->unit_start) {
        uint64_t used = m->stream_bytes - m->unit_start;

        if (t > m->unit_ready) {
            m->unit_ready = t;
        }
        m->unit_bytes = used;
        nvm_program_unit(m);
        /* Padding: the stream restarts at the next granule. */
        m->stream_bytes = ((m->unit_start >> m->granule_shift) +
                           ((m->unit_start & ((1ULL << m->granule_shift) -
                                              1)) ? 1 : 0))
                          << m->granule_shift;
        m->unit_start = m->stream_bytes;
    }
}

/* ------------------------------------------------------------------ */

static uint64_t nvm_do_read(NvmModel *m, uint64_t t, uint64_t off,
                            uint64_t bytes)
{
    unsigned core;
    uint64_t cmd_t = nvm_core(m, t, m->read_cmd_ns, &core);
    uint64_t nand_done = cmd_t;
    uint64_t t_nand = nvm_map_lookup(m, off, cmd_t, core);
    double len = nvm_span_len(m);
    bool in_span = len > 0 && off >= m->span_lo && off < m->span_hi;
    double p_valid = in_span ? m->span_valid / len : m->base_density;
    double p_slc;
    double tr;

    if (in_span) {
        p_slc = m->span_valid > 0 ?
                (m->slc_used - m->slc_base) / m->span_valid : 0;
    } else {
        double base = nvm_valid_bytes(m) - m->span_valid;

        p_slc = base > 0 ? m->slc_base / base : 0;
    }
    tr = nvm_rand01(m) < p_slc ? m->read_slc_ns : m->read_native_ns;

    if (nvm_rand01(m) < p_valid) {
        uint64_t end = off + bytes;
        uint64_t page = off / m->page_bytes;

        while (off < end) {
            uint64_t pend = (page + 1) * m->page_bytes;
            uint32_t n = (end < pend ? end : pend) - off;
            uint64_t d = nvm_page_read(m, page % m->ndies,
                                       (page / m->ndies) % m->planes,
                                       t_nand, tr, n);

            nand_done = d > nand_done ? d : nand_done;
            off += n;
            page++;
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
                             uint64_t bytes)
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
    mapped = nvm_map_lookup(m, off, cmd_t, core);
    fe = mapped > fe ? mapped : fe;
    m->host_written += bytes;
    m->total_host_written += bytes;
    return nvm_buffer_write(m, bytes, fe, off);
}

uint64_t nvm_model_submit(NvmModel *m, const NvmCmd *cmd, uint64_t now_ns)
{
    uint64_t off = cmd->slba * m->lba_bytes;
    uint64_t bytes = (uint64_t)cmd->nlb * m->lba_bytes;
    uint64_t t, done;
    unsigned c = cmd->op < NVM_CLASS_COUNT ? cmd->op : NVM_OP_FLUSH;
    ClassAcc *acc;

    if (off >= m->capacity_bytes) {
        off %= m->capacity_bytes;
    }
    if (off + bytes > m->capacity_bytes) {
        bytes = m->capacity_bytes - off;
    }
    if (m->slc_used > 0) {
        nvm_fold(m, now_ns);
    } else {
        m->fold_clock = now_ns;
    }
    t = nvm_wake(m, now_ns);

    switch (cmd->op) {
    case NVM_OP_READ:
        done = nvm_do_read(m, t, off, bytes);
        break;
    case NVM_OP_WRITE:
        done = nvm_do_write(m, t, off, bytes);
        break;
    case NVM_OP_DISCARD:
    case NVM_OP_WRITE_ZEROES:
        done = nvm_core(m, t, m->trim_cmd_ns, &c);
        c = cmd->op;
        nvm_note_trim(m, off, off + bytes);
        break;
    case NVM_OP_FLUSH:
    default:
        done = nvm_core(m, t, m->flush_cmd_ns, &c);
        c = NVM_OP_FLUSH;
        nvm_flush_unit(m, done);
        if (m->nand_write_done > done) {
            done = m->nand_write_done;
        }
        bytes = 0;
        break;
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

NvmModel *nvm_model_new(const NvmProfile *p, uint64_t seed)
{
    NvmModel *m = g_new0(NvmModel, 1);
    double link_mbps;
    uint64_t block_native;

    m->capacity_bytes = p->capacity_bytes;
    m->lba_bytes = p->lba_bytes;
    m->bits = p->cell_mode;
    m->cores = p->cores;
    m->channels = p->channels;
    m->ndies = p->channels * p->dies_per_channel;
    m->planes = p->planes;
    m->page_bytes = p->page_bytes;
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
    block_native = (uint64_t)p->pages_per_block * m->slc_unit_bytes;
    m->erase_ns_per_native_unit = p->erase_us * NS_PER_US *
                                  m->native_unit_bytes / block_native;
    m->indep_planes = p->independent_plane_reads;
    m->program_suspend = p->program_suspend;
    m->suspend_ns = llround(p->suspend_us * NS_PER_US);
    m->phys_native_bytes = (double)p->raw_bytes - p->gc_reserved_bytes -
                           (double)p->slc_static_bytes * m->bits;
    m->slc_static_bytes = p->slc_static_bytes;
    m->slc_dynamic_max_bytes = p->slc_dynamic_max_bytes;
    m->fold_idle_ns = p->fold_idle_ms * NS_PER_MS;
    m->write_buffer_bytes = p->write_buffer_bytes;

    /* Map: one map chunk (the unit loaded on a miss) covers this much. */
    {
        uint64_t cover = (uint64_t)(p->map_chunk_bytes / p->map_entry_bytes) *
                         p->map_unit_bytes;
        uint64_t map_bytes = p->capacity_bytes / p->map_unit_bytes *
                             p->map_entry_bytes;

        m->map_cover_shift = g_bit_nth_msf(cover, -1);
        m->map_chunk_bytes = p->map_chunk_bytes;
        m->map_miss_blocks_core = p->map_miss_blocks_core;
        if (p->map_cache_bytes < map_bytes) {
            /* The loader bounds the tag count; never allocate beyond it. */
            uint64_t tags = p->map_cache_bytes / p->map_chunk_bytes;

            m->n_map_tags = MAX(MIN(tags, NVM_MAX_MAP_TAGS), 1);
            m->map_tags = g_new0(uint32_t, m->n_map_tags);
        }
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

    m->chan_free = g_new0(uint64_t, m->channels);
    m->die_prog_free = g_new0(uint64_t, m->ndies);
    m->plane_free = g_new0(uint64_t, (size_t)m->ndies * m->planes);
    m->granule_shift = g_bit_nth_msf(m->slc_unit_bytes, -1);
    /* <= 2^18 + 10 granules: write-buffer-bytes <= 1 GiB, page >= 4 KiB */
    m->ring_n = MIN(p->write_buffer_bytes, NVM_MAX_WRITE_BUFFER_BYTES) >>
                m->granule_shift;
    m->ring_n += 2 * m->bits + 2;
    m->ring = g_new0(uint64_t, m->ring_n);

    for (int i = 0; i < 4; i++) {
        m->rng[i] = nvm_splitmix64(&seed);
    }
    nvm_model_reset_apst(m);
    nvm_model_secure_erase(m);
    return m;
}

void nvm_model_free(NvmModel *m)
{
    if (!m) {
        return;
    }
    g_free(m->chan_free);
    g_free(m->die_prog_free);
    g_free(m->plane_free);
    g_free(m->ring);
    g_free(m->map_tags);
    g_free(m);
}

size_t nvm_model_memory_bytes(const NvmModel *m)
{
    return sizeof(*m) + sizeof(uint64_t) * (m->channels + m->ndies +
                                            (size_t)m->ndies * m->planes +
                                            m->ring_n) +
           sizeof(uint32_t) * (size_t)m->n_map_tags;
}

size_t nvm_model_max_memory_bytes(void)
{
    size_t ring = NVM_MAX_WRITE_BUFFER_BYTES / NVM_MIN_PAGE_BYTES +
                  2 * NVM_CELL_QLC + 2;

    return sizeof(NvmModel) +
           sizeof(uint64_t) * (NVM_MAX_CHANNELS + NVM_MAX_DIES +
                               (size_t)NVM_MAX_DIES * NVM_MAX_PLANES + ring) +
           sizeof(uint32_t) * (size_t)NVM_MAX_MAP_TAGS;
}

/* ------------------------------------------------------------------ */
/* State injection */

bool nvm_model_set_fill(NvmModel *m, double pct, GError **errp)
{
    if (!(pct >= 0 && pct <= 100)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "fill level %g %% is outside 0..100", pct);
        return false;
    }
    m->base_density = pct / 100.0;
    m->span_lo = m->span_hi = 0;
    m->span_valid = 0;
    m->slc_used = 0;
    m->slc_base = 0;
    nvm_update_wa(m, true);
    return true;
}

bool nvm_model_set_slc_used(NvmModel *m, uint64_t bytes, GError **errp)
{
    double cap = nvm_slc_capacity(m);
    double valid = nvm_valid_bytes(m);

    if (bytes > cap + 0.5 || bytes > valid + 0.5) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "SLC occupancy %" G_GUINT64_FORMAT " bytes exceeds the "
                    "SLC cache size (%.0f) or the valid data (%.0f)",
                    bytes, cap, valid);
        return false;
    }
    /* Injected SLC data belongs to the data already on the drive. */
    m->slc_used = bytes;
    m->slc_base = bytes;
    nvm_update_wa(m, true);
    return true;
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
    m->base_density = 0;
    m->span_lo = m->span_hi = 0;
    m->span_valid = 0;
    m->slc_used = 0;
    m->slc_base = 0;
    if (m->map_tags) {
        memset(m->map_tags, 0, sizeof(uint32_t) * m->n_map_tags);
    }
    nvm_update_wa(m, true);
}

bool nvm_model_set_mapped(NvmModel *m, const NvmLbaRange *ranges, size_t n,
                          GError **errp)
{
    uint64_t cap_lbas = m->capacity_bytes / m->lba_bytes;
    double valid = 0;

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
        valid += (double)r->nlb * m->lba_bytes;
    }
    nvm_model_secure_erase(m);
    if (n) {
        /* the byte counters hold the ranges as one span of that density */
        m->span_lo = ranges[0].slba * m->lba_bytes;
        m->span_hi = (ranges[n - 1].slba + ranges[n - 1].nlb) * m->lba_bytes;
        m->span_valid = valid;
    }
    nvm_update_wa(m, true);
    return true;
}

void nvm_model_state_at(NvmModel *m, uint64_t now_ns)
{
    if (now_ns > m->busy_until) {
        m->busy_until = now_ns;
    }
    if (now_ns > m->fold_clock) {
        m->fold_clock = now_ns;
    }
}

void nvm_model_reset_stats(NvmModel *m, uint64_t now_ns)
{
    memset(m->cls, 0, sizeof(m->cls));
    m->host_written = m->nand_written = m->nand_read = 0;
    m->map_misses = 0;
    m->power_exits = 0;
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

/* ------------------------------------------------------------------ */
/* Statistics */

void nvm_model_get_stats(const NvmModel *m, uint64_t now_ns, NvmStats *st)
{
    uint64_t from;
    double folded = nvm_fold_amount(m, now_ns, &from);
    double fold_wa = 1.0 + (m->wa - 1.0) * m->rand_frac;
    double valid = nvm_valid_bytes(m);
    unsigned state = 0;

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
    /* as nvm_fold will account it: GC only for the random share */
    st->nand_bytes_written = m->nand_written + (uint64_t)(folded * fold_wa);
    st->nand_bytes_read = m->nand_read + (uint64_t)folded;
    st->total_host_bytes_written = m->total_host_written;
    st->total_nand_bytes_written = (uint64_t)(m->total_nand_written +
                                              folded * fold_wa);
    st->write_amplification = m->host_written ?
        (double)st->nand_bytes_written / m->host_written : 0;
    st->gc_wa_now = m->wa;
    st->wear_pct = m->wear_pct_base +
                   100.0 * st->total_nand_bytes_written / m->endurance_bytes;
    st->valid_bytes = valid > 0 ? (uint64_t)valid : 0;
    st->fill_pct = 100.0 * valid / m->capacity_bytes;
    st->slc_used_bytes = (uint64_t)(m->slc_used - folded);
    st->slc_size_bytes = (uint64_t)nvm_slc_capacity(m);
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
}
