/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mixed-workload driver.  As curve.c: slots (outstanding I/Os) sit in a
 * binary heap (backends/heap.h) ordered by their next submission, ties by
 * slot number, so the model sees
 * non-decreasing times.  A slot belongs to job slot / iodepth; a job's
 * sequential I/Os continue where its previous I/O of that direction ended
 * (fio's last position), and its burst cycle is shared by its slots.
 * Each slot draws its arrivals, directions, sizes and addresses from its
 * own stream (rng.h), so the guest's load generator (vm-images/
 * nvmimic-load.c --mix), which submits in its own order, draws the same
 * numbers per slot.
 */
#include <math.h>
#include <string.h>

#include "burst.h"
#include "heap.h"
#include "mix.h"
#include "rng.h"

typedef struct Slot {
    uint64_t rng;               /* its own stream */
    uint64_t next_ns;           /* next submission */
    double on_ns;               /* open loop: arrival, in issuing time */
} Slot;

typedef struct Job {
    uint64_t cycle_ns;          /* closed loop: current burst began */
    uint64_t on_end_ns;         /* ... and stops issuing here */
    uint64_t max_done_ns;       /* latest completion of the burst */
    uint64_t last_end[NVM_DIRS];    /* bytes into the span */
} Job;

static uint32_t pick_bs(const NvmBsSplit *bs, uint64_t *rng)
{
    return nvm_pick_split(bs->bytes, bs->pct, bs->n, rng);
}

static uint32_t min_bs(const NvmMix *mix)
{
    uint32_t b = UINT32_MAX;

    for (int d = 0; d < NVM_DIRS; d++) {
        for (unsigned i = 0; i < mix->bs[d].n; i++) {
            b = MIN(b, mix->bs[d].bytes[i]);
        }
    }
    return b;
}

void nvm_mix_merge_stats(const NvmClassStats *const *cls, unsigned n,
                         double secs, NvmRunResult *res)
{
    uint64_t *hist = g_new0(uint64_t, NVM_HIST_BUCKETS);
    uint64_t count = 0, bytes = 0;
    double sum_us = 0;

    for (unsigned c = 0; c < n; c++) {
        count += cls[c]->count;
        bytes += cls[c]->bytes;
        sum_us += cls[c]->mean_us * cls[c]->count;
        for (unsigned b = 0; b < NVM_HIST_BUCKETS; b++) {
            hist[b] += cls[c]->hist[b];
        }
    }
    memset(res, 0, sizeof(*res));
    res->ios = count;
    res->fig.iops = secs > 0 ? count / secs : 0;
    res->fig.mbps = secs > 0 ? bytes / secs / 1e6 : 0;
    if (count) {
        res->fig.lat_us = sum_us / count;
        res->fig.p50_us = nvm_hist_percentile_us(hist, count, 0.50);
        res->fig.p99_us = nvm_hist_percentile_us(hist, count, 0.99);
        res->fig.p999_us = nvm_hist_percentile_us(hist, count, 0.999);
    }
    g_free(hist);
}

static uint64_t on_to_real(const NvmMix *mix, uint64_t t0, double on_ns)
{
    return nvm_burst_on_to_real(mix->think_iotime_ns, mix->think_ns, t0,
                                on_ns);
}

static uint64_t skip_idle(const NvmMix *mix, uint64_t t0, uint64_t t)
{
    return nvm_burst_skip_idle(mix->think_iotime_ns, mix->think_ns, t0, t);
}

void nvm_mix_run(NvmModel *m, const NvmMixSpec *spec, uint64_t seed,
                 uint64_t *now_ns, NvmMixResult *res)
{
    const NvmMix *mix = spec->mix;
    unsigned n = nvm_mix_outstanding(mix);
    Slot *slots = g_new0(Slot, n);
    Job *jobs = g_new0(Job, mix->numjobs);
    NvmHeap h;
    bool bursts = mix->think_ns > 0;
    uint64_t t0 = *now_ns;
    /* whole burst cycles, so the idle share is the same in every run */
    uint64_t warmup_ns = spec->warmup_ns;
    uint64_t duration_ns = spec->duration_ns;
    uint64_t measure_ns = t0 + warmup_ns;
    uint64_t end_ns = measure_ns + duration_ns;
    uint32_t align = min_bs(mix);
    double duty = bursts ? (double)mix->think_iotime_ns /
                           (mix->think_iotime_ns + mix->think_ns) : 1.0;
    double mean_gap_on_ns = 0;
    bool measuring = false;
    NvmDieTime dt0 = { 0 }, dt1;
    NvmStats *st = g_new(NvmStats, 1);

    if (bursts) {
        warmup_ns = nvm_burst_whole(mix->think_iotime_ns, mix->think_ns,
                                    warmup_ns, 0);
        duration_ns = nvm_burst_whole(mix->think_iotime_ns, mix->think_ns,
                                      duration_ns, 1);
        measure_ns = t0 + warmup_ns;
        end_ns = measure_ns + duration_ns;
    }
    if (spec->rate_iops > 0) {
        /* per slot, in issuing time: the idle share is made up inside */
        mean_gap_on_ns = 1e9 * duty / nvm_curve_rate_per_thread(
                                          spec->rate_iops, n);
    }
    for (unsigned j = 0; j < mix->numjobs; j++) {
        jobs[j].cycle_ns = t0;
        jobs[j].on_end_ns = bursts ? t0 + mix->think_iotime_ns : UINT64_MAX;
    }
    nvm_heap_init(&h, n);
    for (unsigned i = 0; i < n; i++) {
        slots[i].rng = nvm_rng_stream(seed, i);
        if (mean_gap_on_ns > 0) {
            slots[i].on_ns = -log(nvm_rng_01(&slots[i].rng)) *
                             mean_gap_on_ns;
            slots[i].next_ns = on_to_real(mix, t0, slots[i].on_ns);
        } else {
            slots[i].next_ns = t0 + i;  /* closed loop: all start at once */
        }
        nvm_heap_push(&h, slots[i].next_ns, i, &slots[i]);
    }
    if (warmup_ns == 0) {
        nvm_run_reset_stats(m, spec->hook, t0);
        nvm_model_die_time(m, &dt0);
        measuring = true;
    }

    for (;;) {
        NvmHeapItem *top = nvm_heap_top(&h);
        unsigned si = (unsigned)top->tie;
        Slot *s = top->data;
        Job *job = &jobs[si / mix->iodepth];
        uint64_t t = s->next_ns;
        uint64_t off, span = spec->span_bytes, done;
        uint32_t bs;
        int dir;
        NvmCmd cmd;

        if (t >= end_ns) {
            break;
        }
        if (bursts && mean_gap_on_ns == 0) {
            if (t >= job->on_end_ns) {
                /*
                 * The first of the job's slots past the end of the burst:
                 * every other slot is past it too, so the burst's last
                 * completion is known.  fio drains, then thinks.
                 */
                job->cycle_ns = MAX(job->on_end_ns, job->max_done_ns) +
                                mix->think_ns;
                job->on_end_ns = job->cycle_ns + mix->think_iotime_ns;
            }
            if (t < job->cycle_ns) {
                s->next_ns = job->cycle_ns;
                nvm_heap_update_top(&h, s->next_ns);
                continue;
            }
        }
        if (!measuring && t >= measure_ns) {
            nvm_run_reset_stats(m, spec->hook, t);
            nvm_model_die_time(m, &dt0);
            measuring = true;
        }

        dir = nvm_rng_01(&s->rng) * 100.0 < mix->read_pct ? NVM_DIR_READ
                                                       : NVM_DIR_WRITE;
        bs = pick_bs(&mix->bs[dir], &s->rng);
        if (bs > span) {
            bs = span - span % align;
        }
        if (nvm_rng_01(&s->rng) * 100.0 < mix->random_pct[dir]) {
            off = nvm_rng_u64(&s->rng) % ((span - bs) / align + 1) * align;
        } else {
            off = job->last_end[dir];
            if (off + bs > span) {
                off = 0;
            }
        }
        job->last_end[dir] = off + bs;
        cmd = (NvmCmd){
            .op = dir == NVM_DIR_READ ? NVM_OP_READ : NVM_OP_WRITE,
            .slba = (spec->span_start_bytes + off) / spec->lba_bytes,
            .nlb = bs / spec->lba_bytes,
            .flags = dir == NVM_DIR_WRITE && mix->write_sync ? NVM_CMD_FUA
                                                             : 0,
        };
        if (spec->on_submit) {
            spec->on_submit(spec->opaque, &cmd, t);
        }
        done = nvm_run_submit(m, spec->hook, &cmd, t);
        job->max_done_ns = MAX(job->max_done_ns, done);
        if (mean_gap_on_ns > 0) {
            uint64_t arrival;

            s->on_ns += -log(nvm_rng_01(&s->rng)) * mean_gap_on_ns;
            arrival = on_to_real(mix, t0, s->on_ns);
            /* fio issues nothing while a job thinks */
            s->next_ns = skip_idle(mix, t0, MAX(arrival, done));
        } else {
            s->next_ns = done;
        }
        nvm_heap_update_top(&h, s->next_ns);
    }

    nvm_run_get_stats(m, spec->hook, end_ns, st);
    nvm_model_die_time(m, &dt1);
    /* (a state set while it ran would have cleared the counters) */
    res->die_busy = !measuring || !dt1.dies ||
                    dt1.op_ns + dt1.read_ns < dt0.op_ns + dt0.read_ns ? 0 :
        (double)(dt1.op_ns + dt1.read_ns - dt0.op_ns - dt0.read_ns) /
        ((double)dt1.dies * duration_ns);
    {
        double secs = duration_ns / 1e9;
        const NvmClassStats *rd = &st->cls[NVM_OP_READ];
        const NvmClassStats *wr = &st->cls[NVM_OP_WRITE];
        const NvmClassStats *both[2] = { rd, wr };

        nvm_mix_merge_stats(both, 2, secs, &res->all);
        nvm_mix_merge_stats(&both[0], 1, secs, &res->cls[NVM_DIR_READ]);
        nvm_mix_merge_stats(&both[1], 1, secs, &res->cls[NVM_DIR_WRITE]);
    }
    *now_ns = end_ns;
    g_free(st);
    nvm_heap_destroy(&h);
    g_free(jobs);
    g_free(slots);
}
