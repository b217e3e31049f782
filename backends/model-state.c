/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's state injection: a fill, the SLC cache used, the
 * random-write steady state of a span, a warm map, wear, a secure erase,
 * the blocks that hold data, the host memory buffer's size, and a state
 * set at a given time.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"
#include "rng.h"

/* ------------------------------------------------------------------ */
/* State injection */

/* Forget queued work and buffered data (the drive was just prepared). */
void nvm_quiesce(NvmModel *m)
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
    m->die_op_ns = m->die_read_ns = 0;  /* nvm_model_die_time() */
    m->die_forgotten = 0;
    for (int k = 0; k < 3; k++) {
        if (m->slots[k]) {
            memset(m->slots[k], 0, sizeof(uint64_t) * m->n_slots[k]);
        }
    }
    memset(m->chan, 0, sizeof(ReadLine) * m->channels);
    memset(m->rd, 0, sizeof(ReadLine) * (size_t)m->ndies * m->rd_planes);
    memset(m->units, 0, sizeof(Unit) * m->n_units);
    m->stream_base += m->stream_bytes;  /* the positions stay monotonic */
    m->stream_bytes = 0;
    m->unit_seq = m->adm_seq = 0;
    m->unit_fill = 0;
    m->unit_ready = 0;
    m->next_die = m->bg_die = m->map_wb_die = 0;
    nvm_map_ckpt_reset(m);
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

    if (m->steady_simulated) {
        return nvm_model_precondition_random(m, start_bytes, span_bytes, 0,
                                             NULL, errp);
    }
    if (!m->pristine || !nvm_ftl_scatter(m->ftl, lo, hi, m->gc_start_free)) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "a steady random state needs a fill that holds the span "
                    "(set the fill level first) and room for it");
        return false;
    }
    return true;
}

/*
 * Checkpoints of preconditioned states.  A preconditioning is untimed: what
 * it leaves depends on the mapping state it starts from, the span, the
 * seed and the write policy's values below (geometry, SLC cache, GC marks,
 * and the SLC refold threshold, which the program times set), not on tR,
 * firmware costs, the data paths or the power budget.  So the state is
 * computed once per key in a process and copied into every later model
 * that asks for it: calibrate, fit and the suites start each write
 * workload from the state a fresh preconditioning gives, bit for bit
 * (test-model's /model/precondition_checkpoint_equals_a_fresh_precondition),
 * at the cost of a copy.  Every model value that nvm_write_untimed() and
 * the background work it calls read belongs in PrecondKey.
 */
typedef struct PrecondKey {
    uint64_t ftl;                       /* nvm_ftl_digest() before */
    uint64_t lo, hi, seed;
    uint64_t capacity_bytes, slc_static_lpns, slc_dyn_max_lpns;
    double slc_refold_below;
    uint32_t lpn_shift, bits, lpns_per_page, slc_unit_bytes;
    uint32_t native_unit_bytes, sb_lpns, ndies;
    uint32_t gc_start_free, gc_urgent_free;
    unsigned max_passes;
    bool slc_first_when_full;
} PrecondKey;

typedef struct PrecondEntry {
    PrecondKey key;
    NvmFtl *ftl;                        /* the state after */
    NvmPrecondition r;
    uint64_t map_lost;                  /* units it had no room for */
    double gc_wa;
    bool unit_slc;
    uint32_t unit_cap;
} PrecondEntry;

/* a few drives' states: a calibrate run's four filled drives, a fit's two */
#define PRECOND_ENTRIES 4
/* writes drawn ahead of the one running (a power of two) */
#define PRECOND_AHEAD 16

static GMutex precond_lock;
/*
 * Held while one is computed: a second model asking for the same state
 * (calibrate's write rows of one drive run side by side) waits for it
 * rather than computing it again.
 */
static GMutex precond_compute;
static PrecondEntry precond_cache[PRECOND_ENTRIES];
static unsigned precond_next;
static bool precond_off;
static uint64_t precond_hits;

void nvm_model_precondition_checkpoints(bool on)
{
    g_mutex_lock(&precond_lock);
    precond_off = !on;
    for (unsigned i = 0; i < PRECOND_ENTRIES; i++) {
        nvm_ftl_free(precond_cache[i].ftl);
        precond_cache[i] = (PrecondEntry){ .ftl = NULL };
    }
    precond_next = 0;
    precond_hits = 0;
    g_mutex_unlock(&precond_lock);
}

uint64_t nvm_model_precondition_checkpoint_hits(void)
{
    uint64_t n;

    g_mutex_lock(&precond_lock);
    n = precond_hits;
    g_mutex_unlock(&precond_lock);
    return n;
}

uint64_t nvm_model_state_digest(const NvmModel *m)
{
    return nvm_ftl_digest(m->ftl);
}

static void precond_key(const NvmModel *m, uint64_t lo, uint64_t hi,
                        unsigned max_passes, PrecondKey *k)
{
    memset(k, 0, sizeof(*k));           /* the padding too: memcmp below */
    k->ftl = nvm_ftl_digest(m->ftl);
    k->lo = lo;
    k->hi = hi;
    k->seed = m->seed;
    k->capacity_bytes = m->capacity_bytes;
    k->slc_static_lpns = m->slc_static_lpns;
    k->slc_dyn_max_lpns = m->slc_dyn_max_lpns;
    k->slc_refold_below = m->slc_refold_below;
    k->lpn_shift = m->lpn_shift;
    k->bits = m->bits;
    k->lpns_per_page = m->lpns_per_page;
    k->slc_unit_bytes = m->slc_unit_bytes;
    k->native_unit_bytes = m->native_unit_bytes;
    k->sb_lpns = m->sb_lpns;
    k->ndies = m->ndies;
    k->gc_start_free = m->gc_start_free;
    k->gc_urgent_free = m->gc_urgent_free;
    k->max_passes = max_passes;
    k->slc_first_when_full = m->slc_first_when_full;
}

/* The checkpoint of @k copied into @m; false if there is none. */
static bool precond_restore(NvmModel *m, const PrecondKey *k,
                            NvmPrecondition *r)
{
    bool hit = false;

    g_mutex_lock(&precond_lock);
    for (unsigned i = 0; i < PRECOND_ENTRIES && !precond_off; i++) {
        const PrecondEntry *e = &precond_cache[i];

        if (e->ftl && !memcmp(&e->key, k, sizeof(*k))) {
            nvm_ftl_copy(m->ftl, e->ftl);
            *r = e->r;
            m->map_lost += e->map_lost;
            m->gc_wa = e->gc_wa;
            m->unit_slc = e->unit_slc;
            m->unit_cap = e->unit_cap;
            precond_hits++;
            hit = true;
            break;
        }
    }
    g_mutex_unlock(&precond_lock);
    return hit;
}

static void precond_save(const NvmModel *m, const PrecondKey *k,
                         const NvmPrecondition *r, uint64_t map_lost)
{
    PrecondEntry *e;

    g_mutex_lock(&precond_lock);
    if (!precond_off) {
        e = &precond_cache[precond_next];
        precond_next = (precond_next + 1) % PRECOND_ENTRIES;
        nvm_ftl_free(e->ftl);
        *e = (PrecondEntry){
            .key = *k, .ftl = nvm_ftl_clone(m->ftl), .r = *r,
            .map_lost = map_lost, .gc_wa = m->gc_wa,
            .unit_slc = m->unit_slc, .unit_cap = m->unit_cap,
        };
    }
    g_mutex_unlock(&precond_lock);
}

bool nvm_model_precondition_random(NvmModel *m, uint64_t start_bytes,
                                   uint64_t span_bytes, unsigned max_passes,
                                   NvmPrecondition *out, GError **errp)
{
    uint64_t lo = start_bytes >> m->lpn_shift;
    uint64_t hi = (start_bytes + span_bytes) >> m->lpn_shift;
    uint64_t n = hi - lo;
    /* the addresses: a stream of the mapping state's seed of their own */
    uint64_t x = nvm_rng_stream(m->seed ^ NVM_FTL_SEED_MIX, 28);
    NvmPrecondition r = { 0 };
    uint64_t lost0 = m->map_lost;
    PrecondKey key;

    if (!m->pristine || lo >= hi || hi > m->fill_lpns) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "random preconditioning needs a fill that holds the "
                    "span (set the fill level first)");
        return false;
    }
    if (!max_passes) {
        max_passes = NVM_PRECONDITION_MAX_PASSES;
    }
    precond_key(m, lo, hi, max_passes, &key);
    g_mutex_lock(&precond_compute);
    if (precond_restore(m, &key, &r)) {
        g_mutex_unlock(&precond_compute);
        nvm_quiesce(m);
        if (out) {
            *out = r;
        }
        return true;
    }
    m->untimed = true;
    m->unit_open = false;
    while (r.passes < max_passes) {
        uint64_t c0 = m->untimed_copies, f0 = m->untimed_folds;
        uint64_t v0 = m->untimed_victims;
        double u0 = m->untimed_victim_valid;
        double host = (double)(n << m->lpn_shift);

        /*
         * The same addresses in the same order, drawn PRECOND_AHEAD
         * writes early so that their map records can be fetched into the
         * CPU's caches while the writes before them run
         */
        uint64_t ahead[PRECOND_AHEAD];

        for (uint64_t i = 0; i < MIN(n, PRECOND_AHEAD); i++) {
            ahead[i] = lo + nvm_rng_scale(nvm_rng_u64(&x), n);
            nvm_ftl_prefetch(m->ftl, ahead[i], 0);
        }
        for (uint64_t i = 0; i < n; i++) {
            uint64_t lpn = ahead[i % PRECOND_AHEAD];

            if (i + PRECOND_AHEAD < n) {
                uint64_t next = lo + nvm_rng_scale(nvm_rng_u64(&x), n);

                ahead[i % PRECOND_AHEAD] = next;
                nvm_ftl_prefetch(m->ftl, next, 0);
            }
            if (i + PRECOND_AHEAD / 2 < n) {
                nvm_ftl_prefetch(m->ftl,
                                 ahead[(i + PRECOND_AHEAD / 2) %
                                       PRECOND_AHEAD], 1);
            }
            nvm_write_untimed(m, lpn);
        }
        r.passes++;
        r.wa_prev = r.wa;
        r.wa = 1 + (double)(m->untimed_copies - c0) *
                   m->native_unit_bytes / host;
        r.folded_share = (double)(m->untimed_folds - f0) *
                         m->native_unit_bytes / host;
        r.victims = m->untimed_victims - v0;
        r.victim_valid = r.victims ? (m->untimed_victim_valid - u0) /
                                     r.victims : 0;
        if (r.passes >= 2 && fabs(r.wa - r.wa_prev) <= 0.01 * r.wa_prev) {
            break;
        }
    }
    m->untimed = false;
    m->untimed_copies = m->untimed_folds = m->untimed_victims = 0;
    m->untimed_victim_valid = 0;
    nvm_quiesce(m);
    precond_save(m, &key, &r, m->map_lost - lost0);
    g_mutex_unlock(&precond_compute);
    if (out) {
        *out = r;
    }
    return true;
}

bool nvm_model_check_state(const NvmModel *m, char **why)
{
    NvmFtlCounts c;

    if (!nvm_ftl_check(m->ftl, why)) {
        return false;
    }
    nvm_ftl_counts(m->ftl, &c);
    if (c.lost || m->map_lost) {
        *why = g_strdup_printf("%" G_GUINT64_FORMAT " invalidations with "
                               "no superblock, %" G_GUINT64_FORMAT
                               " units written with no room", c.lost,
                               m->map_lost);
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
            m->map_tags[mp % m->n_map_tags] = nvm_tag_of(mp);
        }
        if (m->n_sram_tags) {
            m->sram_tags[mp % m->n_sram_tags] = nvm_tag_of(mp);
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
    m->map_wb_bytes = 0;
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
void nvm_read_line_at(ReadLine *rl, uint64_t t)
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
