/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's statistics: the latency histograms and their
 * percentiles, operation names, per-class counters and the snapshot that
 * nvm_model_get_stats() returns.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"

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

/* Commands named apart from their operation: FUA writes (nvm_cmd_name) */
static const struct {
    const char *name;
    NvmOp op;
    uint32_t flags;
} cmd_names[] = {
    { "write-fua", NVM_OP_WRITE, NVM_CMD_FUA },
    { "write-zeroes-fua", NVM_OP_WRITE_ZEROES, NVM_CMD_FUA },
};

const char *nvm_cmd_name(NvmOp op, uint32_t flags)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(cmd_names); i++) {
        if (cmd_names[i].op == op &&
            (flags & NVM_CMD_FUA) == cmd_names[i].flags) {
            return cmd_names[i].name;
        }
    }
    return nvm_op_name(op);
}

bool nvm_cmd_from_name(const char *name, NvmOp *op, uint32_t *flags)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(cmd_names); i++) {
        if (!strcmp(name, cmd_names[i].name)) {
            *op = cmd_names[i].op;
            *flags = cmd_names[i].flags;
            return true;
        }
    }
    *flags = 0;
    return nvm_op_from_name(name, op);
}


void nvm_model_reset_stats(NvmModel *m, uint64_t now_ns)
{
    memset(m->cls, 0, sizeof(m->cls));
    m->host_written = m->nand_written = m->nand_read = 0;
    m->map_misses = 0;
    m->map_writebacks = 0;
    m->map_checkpoints = m->map_checkpointed = 0;
    m->power_exits = 0;
    m->buffer_hits = m->gc_bytes = m->fold_bytes = 0;
    m->erases = m->suspends = 0;
    m->throttled_ns = 0;
    memset(m->ps_time_ns, 0, sizeof(m->ps_time_ns));
    memset(&m->probe, 0, sizeof(m->probe));
    m->acct_ns = now_ns;
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
    st->map_writebacks = m->map_writebacks;
    st->map_checkpoints = m->map_checkpoints;
    st->map_checkpointed = m->map_checkpointed;
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

void nvm_model_die_time(const NvmModel *m, NvmDieTime *dt)
{
    dt->until_ns = 0;
    for (unsigned i = 0; i < m->ndies; i++) {
        if (m->dies[i].free > dt->until_ns) {
            dt->until_ns = m->dies[i].free;
        }
    }
    dt->op_ns = m->die_op_ns;
    dt->read_ns = m->die_read_ns;
    dt->dies = m->ndies;
    dt->forgotten = m->die_forgotten;
}

void nvm_model_probe(const NvmModel *m, NvmProbe *pr)
{
    *pr = m->probe;
}
