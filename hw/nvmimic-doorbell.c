/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: doorbell writes the timing thread takes (timing-doorbells=on).
 *
 * Why: with the timing thread, a vCPU's doorbell write submits the
 * command itself, inside its MMIO exit, with the BQL held: some 30 us on
 * the development host, most of it in the block layer
 * (bench/bql-holders.sh).  A deadline that falls inside that hold is
 * posted late by what is left of it: at 1,000-2,000 IOPS most of the
 * thread's waits for the BQL over 5 us were such holds (docs/realtime.md).
 *
 * What: an I/O region over the doorbell registers that does not take the
 * BQL.  The vCPU queues the write, with the virtual time it was made, and
 * returns to the guest; the timing thread replays it through ctrl.c's own
 * nvme_process_db() with the BQL held, at a moment no deadline is due
 * before it would be done (nvmimic_rt_set_work()).  The model takes the
 * command as arriving when the guest rang (NvmimicCtrl.db_at), so the
 * drive's timing does not include the replay's delay; the block layer's
 * I/O starts that much later, which a read whose data comes after its
 * deadline shows as lateness.
 *
 * How it stays safe:
 * - The queue has a lock of its own (lock), never held while taking the
 *   BQL; the replay takes a batch under it and lets it go before it
 *   processes, so a write the replay itself causes (a CQE aimed at a
 *   doorbell) is queued, not run inside it.
 * - The replay runs as a trapped write would: ctrl.c's code, the BQL held,
 *   the device's re-entrancy guard engaged.  The region itself has no
 *   guard (memory_region_enable_lockless_io(), qemu/patches/0011): the
 *   memory core's guard is a plain flag of the device that a vCPU without
 *   the BQL must not touch, and the queue needs none.
 * - Order: a register write (CC, INTMS...) first replays what is queued
 *   (nvmimic_doorbells_sync(), from nvme_mmio_write()); a controller reset
 *   forgets it (nvmimic_doorbells_forget()); a full queue (the thread
 *   behind) makes the vCPU take the BQL and replay it and its own write.
 * - Lifetime: the region belongs to the controller, so a flat view that
 *   still holds it holds the controller too; a vCPU may be inside the
 *   handler while the device is unrealized.  nvmimic_doorbells_exit()
 *   marks the queue dead and takes the region out; the handler then does
 *   nothing, and the memory goes only when the controller is finalized
 *   (nvmimic_doorbells_free()), when no flat view holds it.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/thread.h"
#include "hw/pci/pci.h"
#include "exec/memory.h"

#include "nvmimic-int.h"
#include "nvmimic-rt.h"
#include "trace.h"

/* writes queued at most; one more is replayed by the vCPU itself */
#define NVMIMIC_DB_QUEUE 1024
/* the doorbells' offset in BAR0 (NVMe 1.4, 3.1.24), CAP.DSTRD = 0 */
#define NVMIMIC_DB_BASE 0x1000

typedef struct NvmimicDbWrite {
    uint32_t off;               /* in BAR0 */
    uint32_t val;
    int64_t at;                 /* QEMU_CLOCK_VIRTUAL when the guest rang */
} NvmimicDbWrite;

struct NvmimicDoorbells {
    MemoryRegion mr;
    NvmeCtrl *n;
    QemuMutex lock;             /* what follows, up to batch */
    NvmimicRt *rt;              /* NULL once dead */
    bool dead;                  /* the device is going: do nothing */
    unsigned head, count;
    NvmimicDbWrite q[NVMIMIC_DB_QUEUE];
    /* the BQL's */
    NvmimicDbWrite batch[NVMIMIC_DB_QUEUE];
    uint64_t replayed, by_vcpu;
};

/*
 * With the BQL and the re-entrancy guard engaged: run @w as a trapped
 * write runs it, its commands arriving when the guest rang.
 */
static void nvmimic_db_process(NvmimicDoorbells *d, const NvmimicDbWrite *w)
{
    NvmimicCtrl *s = d->n->nvmimic;

    s->db_at = w->at;
    nvme_process_db(d->n, w->off, (int)w->val);
    s->db_at = -1;
    d->replayed++;
}

/*
 * With the BQL: replay what is queued (one batch: what a guest writes
 * meanwhile waits for the next), as a trapped write would run it.
 */
static void nvmimic_db_replay(NvmimicDoorbells *d)
{
    MemReentrancyGuard *guard = &DEVICE(d->n)->mem_reentrancy_guard;
    bool engaged;
    unsigned i, k;

    qemu_mutex_lock(&d->lock);
    if (d->dead) {
        qemu_mutex_unlock(&d->lock);
        return;
    }
    k = d->count;
    for (i = 0; i < k; i++) {
        d->batch[i] = d->q[(d->head + i) % NVMIMIC_DB_QUEUE];
    }
    d->head = (d->head + k) % NVMIMIC_DB_QUEUE;
    d->count = 0;
    qemu_mutex_unlock(&d->lock);

    engaged = guard->engaged_in_io;
    guard->engaged_in_io = true;
    for (i = 0; i < k; i++) {
        trace_nvmimic_doorbell_replay(d->batch[i].off, d->batch[i].val,
                                      nvmimic_now() - d->batch[i].at);
        nvmimic_db_process(d, &d->batch[i]);
    }
    guard->engaged_in_io = engaged;
}

/* The timing thread's work (nvmimic_rt_set_work()): the BQL is held. */
static void nvmimic_db_work(void *opaque)
{
    nvmimic_db_replay(opaque);
}

/*
 * The queue is full: the vCPU replays it and @w itself under the BQL, in
 * order.  Called with the BQL already held only from a DMA (another
 * device's, or a CQE this controller posts): then, if the replay is what
 * posted it, the re-entrancy guard is engaged and the write is refused, as
 * the memory core refuses a trapped one.
 */
static void nvmimic_db_write_locked(NvmimicDoorbells *d,
                                    const NvmimicDbWrite *w)
{
    bool locked = bql_locked();
    MemReentrancyGuard *guard;
    bool dead;

    if (!locked) {
        bql_lock();
    }
    qemu_mutex_lock(&d->lock);
    dead = d->dead;
    qemu_mutex_unlock(&d->lock);
    guard = &DEVICE(d->n)->mem_reentrancy_guard;
    if (dead) {
        /* the device is gone: as a write to an unmapped BAR */
    } else if (guard->engaged_in_io) {
        qemu_log_mask(LOG_GUEST_ERROR, "nvme: doorbell write at 0x%" PRIx32
                      " from the controller's own DMA refused (re-entrant "
                      "I/O)\n", w->off);
    } else {
        nvmimic_db_replay(d);
        guard->engaged_in_io = true;
        nvmimic_db_process(d, w);
        guard->engaged_in_io = false;
        d->by_vcpu++;
    }
    if (!locked) {
        bql_unlock();
    }
}

/* A vCPU's write, without the BQL. */
static void nvmimic_db_write(void *opaque, hwaddr addr, uint64_t data,
                             unsigned size)
{
    NvmimicDoorbells *d = opaque;
    NvmimicDbWrite w = {
        .off = NVMIMIC_DB_BASE + addr,
        .val = data,
        .at = nvmimic_now(),
    };
    bool done;

    trace_nvmimic_doorbell_queue(w.off, w.val, bql_locked());
    qemu_mutex_lock(&d->lock);
    done = d->dead;
    if (!done && d->count < NVMIMIC_DB_QUEUE) {
        d->q[(d->head + d->count++) % NVMIMIC_DB_QUEUE] = w;
        /* the owner clears rt under this lock before it stops the thread */
        nvmimic_rt_work_pending(d->rt);
        done = true;
    }
    qemu_mutex_unlock(&d->lock);
    if (!done) {
        nvmimic_db_write_locked(d, &w);
    }
}

/* As ctrl.c's nvme_mmio_read() past the registers: nothing to read. */
static uint64_t nvmimic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    qemu_log_mask(LOG_GUEST_ERROR, "nvme: MMIO read of doorbell offset 0x%"
                  HWADDR_PRIx ", returning 0\n", NVMIMIC_DB_BASE + addr);
    return 0;
}

static const MemoryRegionOps nvmimic_db_ops = {
    .read = nvmimic_db_read,
    .write = nvmimic_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* as ctrl.c's nvme_mmio_ops: the same accesses reach the same code */
    .impl = {
        .min_access_size = 2,
        .max_access_size = 8,
    },
};

void nvmimic_doorbells_init(NvmeCtrl *n)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmimicDoorbells *d;

    s->db_at = -1;
    if (!n->params.nvmimic_rt.doorbells || !s->t.rt) {
        /* asked for without the thread (off, or simulated time): inert */
        return;
    }
    d = g_new0(NvmimicDoorbells, 1);
    d->n = n;
    d->rt = s->t.rt;
    qemu_mutex_init(&d->lock);
    /*
     * From the first doorbell to the end of the registers' region: whole
     * pages, so that TCG's TLB maps them to this region itself.  A region
     * that ends inside a page is reached through the memory core's
     * subpage, which takes the BQL.  Past the queues' doorbells a write
     * goes to nvme_process_db() as before, which refuses it.
     */
    memory_region_init_io(&d->mr, OBJECT(n), &nvmimic_db_ops, d,
                          "nvmimic-doorbells",
                          memory_region_size(&n->iomem) - NVMIMIC_DB_BASE);
    /* qemu/patches/0011: without the BQL, and without the device's guard */
    memory_region_enable_lockless_io(&d->mr);
    nvmimic_rt_set_work(d->rt, nvmimic_db_work, d);
    memory_region_add_subregion_overlap(&n->iomem, NVMIMIC_DB_BASE, &d->mr,
                                        1);
    n->nvmimic_db = d;
}

void nvmimic_doorbells_sync(NvmeCtrl *n)
{
    if (n->nvmimic_db) {
        nvmimic_db_replay(n->nvmimic_db);
    }
}

void nvmimic_doorbells_forget(NvmeCtrl *n)
{
    NvmimicDoorbells *d = n->nvmimic_db;

    if (d) {
        qemu_mutex_lock(&d->lock);
        d->head = d->count = 0;
        qemu_mutex_unlock(&d->lock);
    }
}

void nvmimic_doorbells_exit(NvmeCtrl *n)
{
    NvmimicDoorbells *d = n->nvmimic_db;

    if (!d || d->dead) {
        return;
    }
    qemu_mutex_lock(&d->lock);
    d->dead = true;
    d->rt = NULL;
    d->head = d->count = 0;
    qemu_mutex_unlock(&d->lock);
    memory_region_del_subregion(&n->iomem, &d->mr);
}

void nvmimic_doorbells_free(NvmeCtrl *n)
{
    NvmimicDoorbells *d = n->nvmimic_db;

    if (!d) {
        return;
    }
    nvmimic_doorbells_exit(n);
    /* the region went with the controller's children, before this */
    qemu_mutex_destroy(&d->lock);
    g_free(d);
    n->nvmimic_db = NULL;
}

void nvmimic_doorbells_stats(NvmeCtrl *n, uint64_t *replayed,
                             uint64_t *by_vcpu)
{
    NvmimicDoorbells *d = n->nvmimic_db;

    *replayed = d ? d->replayed : 0;
    *by_vcpu = d ? d->by_vcpu : 0;
}
