/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's internals, shared by its files: model.c (setup, the
 * host command paths, write buffer, map cache), model-die.c (die, plane
 * and channel timelines), model-bg.c (SLC folding and garbage collection),
 * model-power.c (power states and the thermal model), model-state.c
 * (state injection) and model-stats.c (histograms and statistics).
 * Nothing outside backends/ includes it: the API is nvmimic-model.h.
 */
#ifndef NVMIMIC_MODEL_INT_H
#define NVMIMIC_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "nvmimic-model.h"
#include "ftl.h"


#define NS_PER_US 1000.0
#define NS_PER_MS 1000000ULL
#define NONE32 0xffffffffu
#define OPEN_END UINT64_MAX
/* The mapping state's seed is the model's mixed with this. */
#define NVM_FTL_SEED_MIX 0x5851f42d4c957f2dULL

/*
 * Operations queued on a die besides reads (which go first): a ring that
 * starts at DIE_QUEUE_MIN and doubles up to DIE_QUEUE_MAX.  Under a mixed
 * load on a full drive relocation copies are queued 50-90 ms ahead, more
 * than 32 operations, and a fixed ring of 32 forgot operations that still
 * ran (reads then neither waited for nor suspended them).  Past the most,
 * the oldest is forgotten and counted (NvmDieTime.forgotten).
 */
#define DIE_QUEUE_MIN 32
#define DIE_QUEUE_MAX 1024
enum { OP_PROGRAM, OP_ERASE, OP_COPY };

typedef struct DieOp {
    uint64_t start, end;
    uint64_t work;                  /* its own time: duration, suspend and
                                       resume overheads, no reads */
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
    uint32_t head, n, cap;          /* ring of queued programs/erases */
    DieOp *q;                       /* cap of them */
} Die;

/* A program unit of the host write stream. */
typedef struct Unit {
    uint64_t seq;
    uint64_t stream_start;          /* stream offset of its first data */
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
    double read_path_ns_per_byte;       /* data read from native pages */
    double read_path_slc_ns_per_byte;   /* any other data a read returns */
    double write_path_ns_per_byte;
    double chan_ns_per_byte;
    double read_slc_ns, read_native_ns;
    double prog_slc_ns, prog_native_ns;
    double erase_ns;
    bool suspend_ok;
    uint64_t suspend_ns, resume_ns;
    unsigned max_suspends;
    bool die_fifo;                  /* host reads wait for queued ops */
    uint64_t slc_static_lpns;
    uint64_t slc_dyn_max_lpns;
    uint64_t fold_idle_ns;
    /* a full SLC cache folds its oldest superblock under load, rather
     * than sending host writes native, below this share of valid data */
    double slc_refold_below;
    bool slc_first_when_full;
    bool read_place_ftl;            /* reads timed where the data lies */
    bool dynamic_alloc;             /* a run's multi-plane pages: any die */
    bool data_path_streams;         /* see nvm_stream_unit_ns() */
    bool steady_simulated;          /* [review] steady-state = simulated */
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
    uint64_t stream_base;           /* ... before the latest state reset */
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
    unsigned map_wb_die;            /* the map write-back's turn */
    uint64_t *bh;                   /* buffer hits: lpn + 1, unit seq */
    uint32_t bh_mask;
    bool dirty;                     /* written since the last flush */

    /* ---- background work ---- */
    Debt gc, fold;
    unsigned bg_die;
    double gc_wa;
    /*
     * Untimed (nvm_model_precondition_random): relocation owed is paid
     * without timing or statistics, counted here instead.
     */
    bool untimed;
    uint64_t untimed_copies;        /* native program units relocated */
    uint64_t untimed_folds;         /* of which from SLC */
    uint64_t untimed_victims;       /* GC victims */
    double untimed_victim_valid;    /* their valid shares, summed */

    /* ---- map cache ---- */
    uint32_t *map_tags;             /* DRAM map cache or HMB */
    uint32_t n_map_tags;
    uint32_t *sram_tags;
    uint64_t hmb_bytes;
    uint64_t map_wb_bytes;          /* evicted chunks not yet programmed */
    uint64_t map_ckpt_bytes;        /* host bytes a checkpoint apart; 0: none */
    uint64_t map_ckpt_acc;          /* host bytes since the last one */
    uint64_t *map_ckpt_bits;        /* chunks changed since then, a bit each */
    size_t map_ckpt_words;          /* ... in this many words */
    uint64_t map_ckpt_n;            /* how many */

    /* ---- thermal ---- */
    bool thermal_on;
    double temp_c;
    uint64_t temp_t;
    double energy_nj;               /* NAND energy since temp_t */
    uint64_t core_busy_ns;          /* core time since temp_t */
    uint64_t rx_busy_ns, tx_busy_ns; /* data path time since temp_t, each way */
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
    uint64_t map_writebacks;        /* dirty chunks evicted */
    uint64_t map_checkpoints;       /* checkpoints taken */
    uint64_t map_checkpointed;      /* chunks written by checkpoints */
    uint64_t buffer_hits, gc_bytes, fold_bytes, erases, suspends;
    uint64_t die_op_ns, die_read_ns;  /* die time reserved, over all dies */
    uint64_t die_forgotten;         /* running ops a full die ring dropped */
    NvmProbe probe;
    uint64_t map_lost;              /* writes the FTL had no room for */
};


/* ------------------------------------------------------------------ */
/* Random numbers: xoshiro256** (model.c seeds it) */

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

/*
 * The die whose turn @turn holds; the turn moves on to the next die.  The
 * data's units, background work and map writes each keep a turn of their own.
 */
static inline unsigned nvm_die_turn(const NvmModel *m, unsigned *turn)
{
    unsigned die = *turn;

    *turn = die + 1 == m->ndies ? 0 : die + 1;
    return die;
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
 * A stage of a command's data path (the link, the controller's read or
 * write path): a throughput resource that reserves its slot in submission
 * order from @t, and passes the command's data on as it arrives, the first
 * unit at @first and the last at @last: done @svc after the first unit
 * at the earliest and @unit_ns (one unit's time) after the last.  Returns
 * when the last unit is through; *@out (if not NULL) is when the first
 * is.  A command of one unit (@unit_ns = @svc) is stored and forwarded.
 */
static inline uint64_t nvm_stream(uint64_t *free_at, uint64_t t,
                                  uint64_t first, uint64_t last,
                                  uint64_t svc, uint64_t unit_ns,
                                  uint64_t *out)
{
    uint64_t start = t > *free_at ? t : *free_at;
    uint64_t end = start + svc;

    *free_at = end;
    if (out) {
        *out = (start > first ? start : first) + unit_ns;
    }
    end = end > first + svc ? end : first + svc;
    return end > last + unit_ns ? end : last + unit_ns;
}

/*
 * Of a stage's @svc for a command of @bytes, the time of the unit it
 * passes on: with [controller] data-path-streams a map unit (4 KiB, about
 * an LDPC codeword), so a large command's stages overlap; without, the
 * whole command (store and forward: each stage takes all of it before the
 * next starts).
 */
static inline uint64_t nvm_stream_unit_ns(const NvmModel *m, uint64_t svc,
                                          uint64_t bytes)
{
    uint64_t unit = 1ULL << m->lpn_shift;

    if (!m->data_path_streams || bytes <= unit) {
        return svc;
    }
    return (uint64_t)((double)svc * unit / bytes);
}

/*
 * Energy of a NAND operation that takes @ns, throttling included: a
 * throttled operation runs longer at lower power, for the same energy.
 */
static inline void nvm_energy(NvmModel *m, double mw, double ns)
{
    m->energy_nj += mw * ns / m->slow / 1000;
}

/* The map tag that says a slot holds chunk @mp (0: an empty slot). */
static inline uint32_t nvm_tag_of(uint64_t mp)
{
    return (uint32_t)mp + 1;
}

/* model.c */
void nvm_model_reseed(NvmModel *m);
void nvm_map_ckpt_reset(NvmModel *m);
uint64_t nvm_map_lookup(NvmModel *m, uint64_t off, uint64_t t,
                        unsigned core, bool update);
void nvm_map_setup(NvmModel *m);
/* Forget the data of [off, off + bytes) (a discard) */
void nvm_trim(NvmModel *m, uint64_t off, uint64_t bytes);
/* One map unit of host data through the write policy, untimed. */
void nvm_write_untimed(NvmModel *m, uint64_t lpn);

/* model-die.c */
double nvm_retry_p(const NvmModel *m);
Unit *nvm_unit(NvmModel *m, uint64_t seq);
uint64_t nvm_slot(NvmModel *m, unsigned kind, uint64_t t, uint64_t dur);
/* the power budget's slots: native program, SLC program, erase */
enum { SLOT_NATIVE, SLOT_SLC, SLOT_ERASE };
uint64_t nvm_die_push(NvmModel *m, unsigned die, uint64_t ready,
                      uint64_t dur, uint8_t kind, uint32_t unit,
                      unsigned slot);
uint64_t nvm_channel(NvmModel *m, unsigned die, uint64_t t, uint64_t bytes);
uint64_t nvm_die_read(NvmModel *m, unsigned die, unsigned plane,
                      uint64_t t, uint64_t tr, bool host);
uint64_t nvm_page_read(NvmModel *m, uint64_t page, uint64_t t,
                       double rd_ns, uint32_t bytes, bool host);

/* model-bg.c */
uint64_t nvm_slc_size(const NvmModel *m, uint64_t valid);
void nvm_bg_urgent(NvmModel *m, uint64_t t);
void nvm_bg_slc_room(NvmModel *m, uint64_t t);
void nvm_bg_interleave(NvmModel *m, uint64_t t, uint32_t bytes);
void nvm_bg_idle(NvmModel *m, uint64_t now);

/* model-power.c */
uint64_t nvm_wake(NvmModel *m, uint64_t now);
void nvm_thermal_update(NvmModel *m, uint64_t now);
void nvm_account_idle(const NvmModel *m, uint64_t *ps_time,
                      uint64_t idle_start, uint64_t from, uint64_t now,
                      unsigned *state_out);

/* model-state.c */
void nvm_read_line_at(ReadLine *rl, uint64_t t);
void nvm_quiesce(NvmModel *m);

#endif
