/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Curve driver: jobs issue I/O to the model in simulated time.  A binary
 * heap (backends/heap.h) orders the jobs by the time of their next
 * submission, ties by job number, so the model sees non-decreasing
 * submission times and each I/O costs O(log jobs).
 */
#include <math.h>
#include <string.h>

#include "curve.h"
#include "heap.h"
#include "rng.h"

typedef struct Job {
    uint64_t next_ns;           /* next submission */
    uint64_t arrival_ns;        /* next Poisson arrival (open loop) */
    uint64_t rng;               /* its own addresses and arrivals */
} Job;

uint64_t nvm_run_submit(NvmModel *m, const NvmRunHook *hook,
                        const NvmCmd *cmd, uint64_t t_ns)
{
    uint64_t done = nvm_model_submit(m, cmd, t_ns);

    if (hook && hook->submitted) {
        hook->submitted(hook->opaque, cmd, t_ns, done);
    }
    return done;
}

void nvm_run_reset_stats(NvmModel *m, const NvmRunHook *hook, uint64_t t_ns)
{
    nvm_model_reset_stats(m, t_ns);
    if (hook && hook->reset_stats) {
        hook->reset_stats(hook->opaque, t_ns);
    }
}

void nvm_run_get_stats(const NvmModel *m, const NvmRunHook *hook,
                       uint64_t t_ns, NvmStats *st)
{
    nvm_model_get_stats(m, t_ns, st);
    if (hook && hook->stats) {
        hook->stats(hook->opaque, t_ns, st);
    }
}

void nvm_four_corners(NvmWorkload wl[NVM_FOUR_CORNERS], bool implied_threads)
{
    const NvmWorkload corners[NVM_FOUR_CORNERS] = {
        { "4k-random-read", NVM_OP_READ, 4096, false, 128 },
        { "4k-random-write", NVM_OP_WRITE, 4096, false, 64 },
        { "64k-seq-read", NVM_OP_READ, 65536, true, 16 },
        { "64k-seq-write", NVM_OP_WRITE, 65536, true, 8 },
    };

    memcpy(wl, corners, sizeof(corners));
    if (implied_threads) {
        wl[1].threads = 128;
        wl[3].threads = 16;
    }
}

double nvm_curve_rate(double peak_iops, int pct)
{
    return peak_iops * pct / 100.0;
}

double nvm_curve_rate_per_thread(double rate_iops, unsigned threads)
{
    return threads ? rate_iops / threads : 0;
}

void nvm_curve_run(NvmModel *m, const NvmRunSpec *spec, uint64_t seed,
                   uint64_t *now_ns, NvmRunResult *res)
{
    const NvmWorkload *wl = spec->wl;
    unsigned n = wl->threads ? wl->threads : 1;
    Job *jobs = g_new0(Job, n);
    NvmHeap h;
    uint64_t t0 = *now_ns;
    uint64_t measure_ns = t0 + spec->warmup_ns;
    uint64_t end_ns = measure_ns + spec->duration_ns;
    uint64_t lba = spec->lba_bytes;
    uint64_t nblocks, seq_next = 0;
    uint64_t last_done = end_ns;
    double mean_gap_ns = 0;
    bool measuring = false;
    NvmCmd cmd = { .op = wl->op };
    NvmStats *st = g_new(NvmStats, 1);

    nblocks = spec->span_bytes / wl->block_bytes;
    if (!nblocks) {
        nblocks = 1;
    }
    if (spec->rate_iops > 0) {
        mean_gap_ns = 1e9 / nvm_curve_rate_per_thread(spec->rate_iops, n);
    }
    nvm_heap_init(&h, n);
    for (unsigned i = 0; i < n; i++) {
        /*
         * Each job draws from its own stream, so what it does does not
         * depend on how its I/Os interleave with the others' (the guest's
         * load generator, vm-images/nvmimic-load.c, draws the same).
         */
        jobs[i].rng = nvm_rng_stream(seed, i);
        if (mean_gap_ns > 0) {
            jobs[i].arrival_ns = t0 + (uint64_t)(-log(nvm_rng_01(
                                                 &jobs[i].rng)) *
                                                 mean_gap_ns);
            jobs[i].next_ns = jobs[i].arrival_ns;
        } else {
            jobs[i].next_ns = t0 + i;   /* closed loop: all start at once */
        }
        nvm_heap_push(&h, jobs[i].next_ns, i, &jobs[i]);
    }
    if (spec->warmup_ns == 0) {
        nvm_run_reset_stats(m, spec->hook, t0);
        measuring = true;
    }

    for (;;) {
        Job *j = nvm_heap_top(&h)->data;
        uint64_t t = j->next_ns;
        uint64_t blk, done;

        if (t >= end_ns) {
            break;
        }
        if (!measuring && t >= measure_ns) {
            nvm_run_reset_stats(m, spec->hook, t);
            measuring = true;
        }
        if (wl->sequential) {
            blk = seq_next;
            seq_next = seq_next + 1 == nblocks ? 0 : seq_next + 1;
        } else {
            blk = nvm_rng_u64(&j->rng) % nblocks;
        }
        cmd.slba = (spec->span_start_bytes + blk * wl->block_bytes) / lba;
        cmd.nlb = wl->block_bytes / lba;
        done = nvm_run_submit(m, spec->hook, &cmd, t);
        last_done = MAX(last_done, done);
        if (mean_gap_ns > 0) {
            j->arrival_ns += (uint64_t)(-log(nvm_rng_01(&j->rng)) *
                                        mean_gap_ns);
            j->next_ns = j->arrival_ns > done ? j->arrival_ns : done;
        } else {
            j->next_ns = done;
        }
        nvm_heap_update_top(&h, j->next_ns);
    }

    nvm_run_get_stats(m, spec->hook, end_ns, st);
    {
        const NvmClassStats *c = &st->cls[wl->op];
        double secs = spec->duration_ns / 1e9;

        res->ios = c->count;
        res->fig = (NvmFig){
            .iops = c->count / secs, .mbps = c->bytes / secs / 1e6,
            .lat_us = c->mean_us, .p50_us = c->p50_us,
            .p99_us = c->p99_us, .p999_us = c->p999_us,
        };
    }
    /*
     * The point ends when its last I/O is done, as a vdbench run does
     * before the next one starts (and the guest's load generator,
     * vm-images/nvmimic-load.c): past saturation the next point would
     * otherwise start with this one's queue still in the drive.
     */
    *now_ns = last_done;
    g_free(st);
    nvm_heap_destroy(&h);
    g_free(jobs);
}

void nvm_curve_precondition(NvmModel *m, uint64_t start, uint64_t bytes,
                            uint32_t lba_bytes, uint64_t *now_ns)
{
    nvm_curve_precondition_hook(m, start, bytes, lba_bytes, now_ns, NULL);
}

void nvm_curve_precondition_hook(NvmModel *m, uint64_t start, uint64_t bytes,
                                 uint32_t lba_bytes, uint64_t *now_ns,
                                 const NvmRunHook *hook)
{
    const uint32_t bs = 128 * 1024;
    uint64_t inflight[8] = { 0 };
    uint64_t t = *now_ns;
    NvmCmd cmd = { .op = NVM_OP_WRITE, .nlb = bs / lba_bytes };

    for (uint64_t off = 0, i = 0; off < bytes; off += bs, i++) {
        uint64_t *slot = &inflight[i % 8];

        /* Slots free in submission order; keep times non-decreasing. */
        t = *slot > t ? *slot : t;
        cmd.slba = (start + off) / lba_bytes;
        *slot = nvm_run_submit(m, hook, &cmd, t);
    }
    for (unsigned i = 0; i < 8; i++) {
        t = inflight[i] > t ? inflight[i] : t;
    }
    *now_ns = t;
}
