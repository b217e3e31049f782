/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic power cut: an undo journal of the writes a profiled drive has
 * not made durable yet, and the cut that undoes them.
 *
 * While a power cut is queued (nvmimic-fault), every Write and Write
 * Zeroes reads what its blocks hold before it goes to the backend, and
 * keeps that copy until the write is durable:
 * - it completed with Force Unit Access, or on a drive without a
 *   volatile write cache (or with it disabled): durable when the host
 *   sees it complete;
 * - it completed before the host sent a Flush, and that Flush completed;
 * - its data went through the drive's write buffer and the model has
 *   programmed it (nvm_model_stream_programmed()), once it completed.
 * A write whose queue went (deleted, or a controller reset) after it had
 * started never completes; it leaves by the same two rules, as if it had
 * completed when its queue went.  A write that failed, or never started,
 * keeps no copy.
 * Everything is decided at the instants the host sees completions and at
 * the cut, all in virtual time, so a run gives the same result each time
 * whatever the host's speed.  A write that becomes durable takes its
 * blocks from every older copy (it is newer than what they would put
 * back).  At the cut the copies are written back, newest first.
 *
 * To read before writing, the journal holds each write back
 * (nvmimic_cmd() returns NVME_NO_COMPLETE) and starts it itself with
 * ctrl.c's nvme_io_cmd() once the read is done, one write at a time, in
 * the order they came: so each copy is what the writes before it left.
 * The model times the write when it arrives, as any other.
 *
 * Memory: the copies of the writes not yet durable.  Buffered writes
 * leave once programmed, so at most the profile's write buffer (8-32 MiB
 * for the shipped profiles) plus what is in flight (queue depth times the
 * maximum transfer) plus the Write Zeroes since the last Flush; beyond
 * twice the buffer plus 64 MiB the oldest completed writes are taken as
 * programmed (counted as overflow).  A single write over 32 MiB (a large
 * Write Zeroes) keeps no copy and is taken as durable once written.
 *
 * A Format NVM that completes ends the copies of its namespace's writes:
 * no cut puts back what a block held before it.
 *
 * Not undone: Dataset Management (deallocate) and Copy; namespaces with
 * metadata (their writes are not tracked).
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qemu/bitmap.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "system/block-backend.h"

#include "nvmimic-int.h"
#include "nvmimic-powercut.h"
#include "trace.h"

#define JOURNAL_ENTRY_MAX_BYTES (32 * MiB)
#define JOURNAL_SLACK_BYTES (64 * MiB)

typedef enum JState {
    J_QUEUED,                   /* waits for the writes before it */
    J_READING,                  /* reading what its blocks hold */
    J_WRITING,                  /* started (nvme_io_cmd) */
    J_WRITTEN,                  /* its data transfer is done */
} JState;

typedef struct JEntry {
    QTAILQ_ENTRY(JEntry) link;  /* oldest first */
    NvmimicJournal *j;
    NvmeRequest *req;           /* until its completion is posted */
    BlockBackend *blk;
    uint32_t nsid;
    uint32_t block;             /* the namespace's LBA size */
    uint64_t offset;            /* in the backend */
    uint64_t bytes;
    uint64_t stream_end;        /* model stream after it; 0: none */
    JState state;
    bool posted;                /* completed successfully, host knows */
    bool orphan;                /* written, but its queue went: no completion */
    bool durable_at_post;       /* FUA, or no volatile write cache */
    uint64_t post_order;
    uint8_t *old;               /* what the blocks held; NULL: no copy */
    unsigned long *clipped;     /* blocks a newer durable write owns */
    QEMUIOVector qiov;
} JEntry;

struct NvmimicJournal {
    NvmeCtrl *n;
    QTAILQ_HEAD(, JEntry) entries;
    JEntry *active;             /* reading or writing: the next one waits */
    GHashTable *by_req;         /* NvmeRequest * -> JEntry *, not posted */
    GHashTable *flushes;        /* Flush's NvmeRequest * -> post order + 1 */
    uint64_t post_order;        /* tracked writes posted so far */
    uint64_t bytes;             /* copies held */
    uint64_t max_bytes;
    uint64_t kept;              /* writes made durable */
    uint64_t overflow;          /* ... of them by the bound */
    bool armed;                 /* new writes are tracked */
    bool plp_lies;              /* no volatile cache reported, yet lost */
    bool cutting;
};

NvmimicJournal *nvmimic_journal_new(NvmeCtrl *n)
{
    NvmimicJournal *j = g_new0(NvmimicJournal, 1);

    j->n = n;
    QTAILQ_INIT(&j->entries);
    j->by_req = g_hash_table_new(NULL, NULL);
    j->flushes = g_hash_table_new(NULL, NULL);
    j->max_bytes = 2 * n->nvmimic->profile->write_buffer_bytes +
                   JOURNAL_SLACK_BYTES;
    return j;
}

static void j_free_entry(NvmimicJournal *j, JEntry *e)
{
    QTAILQ_REMOVE(&j->entries, e, link);
    if (e->req) {
        g_hash_table_remove(j->by_req, e->req);
    }
    if (j->active == e) {
        j->active = NULL;
    }
    if (e->old) {
        j->bytes -= e->bytes;
        g_free(e->old);
    }
    g_free(e->clipped);
    g_free(e);
}

void nvmimic_journal_free(NvmimicJournal *j)
{
    JEntry *e, *next;

    if (!j) {
        return;
    }
    /*
     * A read in flight still points at its entry: let it finish first
     * (the active one, or one whose queue went while it read).  Its
     * callback frees it and, with cutting set, starts nothing.
     */
    j->cutting = true;
    for (;;) {
        QTAILQ_FOREACH(e, &j->entries, link) {
            if (e->state == J_READING) {
                break;
            }
        }
        if (!e) {
            break;
        }
        blk_drain(e->blk);
    }
    QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
        if (e->req && e->state == J_QUEUED) {
            /* held back, never started: it is answered nowhere else */
            e->req->aiocb = NULL;
        }
        j_free_entry(j, e);
    }
    g_hash_table_destroy(j->by_req);
    g_hash_table_destroy(j->flushes);
    g_free(j);
}

void nvmimic_journal_arm(NvmimicJournal *j, bool on, bool lies)
{
    j->armed = on;
    j->plp_lies = lies;
}

uint64_t nvmimic_journal_bytes(const NvmimicJournal *j)
{
    return j ? j->bytes : 0;
}

static uint64_t j_blocks(const JEntry *e)
{
    return e->bytes / e->block;
}

/* @newer is durable: no older copy may put back what it wrote. */
static void j_clip_older(NvmimicJournal *j, JEntry *newer)
{
    uint64_t lo = newer->offset, hi = newer->offset + newer->bytes;
    JEntry *e, *prev;

    for (e = QTAILQ_PREV(newer, link); e; e = prev) {
        uint64_t a, b;

        prev = QTAILQ_PREV(e, link);
        if (e->blk != newer->blk || e->offset >= hi ||
            e->offset + e->bytes <= lo) {
            continue;
        }
        a = (MAX(lo, e->offset) - e->offset) / e->block;
        b = DIV_ROUND_UP(MIN(hi, e->offset + e->bytes) - e->offset,
                         e->block);
        if (!e->clipped) {
            e->clipped = bitmap_new(j_blocks(e));
        }
        bitmap_set(e->clipped, a, b - a);
        if (e->state == J_WRITTEN && !e->req &&
            find_first_zero_bit(e->clipped, j_blocks(e)) >= j_blocks(e)) {
            j_free_entry(j, e);         /* nothing of it left to undo */
        }
    }
}

static void j_durable(NvmimicJournal *j, JEntry *e)
{
    j->kept++;
    j_clip_older(j, e);
    j_free_entry(j, e);
}

/* Buffered writes the model has programmed by @now, and the bound */
static void j_prune(NvmimicJournal *j, int64_t now)
{
    NvmimicCtrl *s = j->n->nvmimic;
    uint64_t programmed = nvm_model_stream_programmed(s->model, now);
    JEntry *e, *next;

    QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
        if (!e->stream_end) {
            continue;                   /* Write Zeroes: no buffer data */
        }
        if (e->stream_end > programmed) {
            break;                      /* the stream's order is theirs */
        }
        if (e->posted || e->orphan) {
            j_durable(j, e);
        }
    }
    while (j->bytes > j->max_bytes) {
        QTAILQ_FOREACH(e, &j->entries, link) {
            if (e->posted || e->orphan) {
                break;
            }
        }
        if (!e) {
            break;                      /* all in flight */
        }
        j->overflow++;
        j_durable(j, e);
    }
}

/* ---- holding a write back until its blocks are read ------------------ */

static void j_next(NvmimicJournal *j);

static void j_dispatch(NvmimicJournal *j, JEntry *e)
{
    NvmeRequest *req = e->req;
    NvmeCtrl *n = j->n;
    MemReentrancyGuard *guard = &DEVICE(n)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;
    uint16_t status;

    e->state = J_WRITING;
    /* as in nvme_process_sq(): DMA must not reach the device itself */
    guard->engaged_in_io = true;
    status = nvme_io_cmd(n, req);
    guard->engaged_in_io = engaged;
    if (status != NVME_NO_COMPLETE) {
        req->status = status;
        /* nvmimic_journal_data_done() moves the journal on */
        nvme_enqueue_req_completion(nvme_cq(req), req);
    }
}

static void j_read_cb(void *opaque, int ret)
{
    JEntry *e = opaque;
    NvmimicJournal *j = e->j;
    NvmeRequest *req = e->req;

    if (req) {
        req->aiocb = NULL;
    }
    if (!j->cutting && req && req->status == NVME_CMD_ABORT_REQ) {
        /*
         * The host aborted it (ctrl.c's nvme_abort() cancelled this read
         * as the command's aiocb): it completes now with that status and
         * never starts, as an aborted command whose I/O was cancelled.
         */
        j_free_entry(j, e);
        nvme_enqueue_req_completion(nvme_cq(req), req);
        j_next(j);
        return;
    }
    if (j->cutting || !req || req->status != NVME_SUCCESS) {
        /*
         * Power is going, or the queue is being deleted (ctrl.c cancels
         * with Abort SQ Deletion as the status, or freed the queue while
         * this read was in flight): the write never starts.
         */
        j_free_entry(j, e);
        if (!j->cutting) {
            j_next(j);
        }
        return;
    }
    if (ret < 0) {
        /* no copy: the write still goes, taken as durable once done */
        j->bytes -= e->bytes;
        g_free(e->old);
        e->old = NULL;
    }
    j_dispatch(j, e);
}

static void j_start(NvmimicJournal *j, JEntry *e)
{
    j->active = e;
    e->state = J_READING;
    if (e->bytes <= JOURNAL_ENTRY_MAX_BYTES) {
        e->old = g_try_malloc(e->bytes);
    }
    if (!e->old) {
        j_dispatch(j, e);
        return;
    }
    j->bytes += e->bytes;
    qemu_iovec_init_buf(&e->qiov, e->old, e->bytes);
    e->req->aiocb = blk_aio_preadv(e->blk, e->offset, &e->qiov, 0,
                                   j_read_cb, e);
}

static void j_next(NvmimicJournal *j)
{
    JEntry *e, *next;

    if (j->active || j->cutting) {
        return;
    }
    QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
        if (e->state != J_QUEUED) {
            continue;
        }
        if (!e->req || e->req->status != NVME_SUCCESS) {
            /*
             * Cancelled while it waited (ctrl.c takes a request with no
             * aiocb off its queue with Abort SQ Deletion and frees the
             * queue later): it must not start.
             */
            j_free_entry(j, e);
            continue;
        }
        j_start(j, e);
        return;
    }
}

uint16_t nvmimic_journal_cmd(NvmimicJournal *j, NvmeRequest *req)
{
    NvmeCtrl *n = j->n;
    NvmimicCtrl *s = n->nvmimic;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint64_t nlb;
    uint64_t slba = nvmimic_rw_range(req, &nlb);
    NvmeNamespace *ns;
    BlockBackend *blk;
    JEntry *e;

    if (req->cmd.opcode == NVME_CMD_FLUSH) {
        g_hash_table_insert(j->flushes, req,
                            (gpointer)(uintptr_t)(j->post_order + 1));
        return 0;
    }
    if ((req->cmd.opcode != NVME_CMD_WRITE &&
         req->cmd.opcode != NVME_CMD_WRITE_ZEROES) || !j->armed ||
        j->cutting ||
        !nvmimic_range_ok(n, nsid, slba, nlb)) {
        return 0;                       /* ctrl.c answers it */
    }
    ns = nvme_ns(n, nsid);
    if (ns->lbaf.ms || ns->params.zoned) {
        return 0;                       /* not tracked */
    }
    blk = ns->blkconf.blk;

    /* the model times it now, when it arrives */
    nvmimic_submit(n, req);

    e = g_new0(JEntry, 1);
    e->j = j;
    e->req = req;
    e->blk = blk;
    e->nsid = nsid;
    e->block = ns->lbasz;
    e->offset = slba * ns->lbasz;
    e->bytes = nlb * ns->lbasz;
    e->durable_at_post = (le16_to_cpu(rw->control) & NVME_RW_FUA) ||
                         (!j->plp_lies &&
                          (!s->profile->volatile_write_cache ||
                           !blk_enable_write_cache(blk)));
    if (req->cmd.opcode == NVME_CMD_WRITE) {
        e->stream_end = nvm_model_stream_bytes(s->model);
    }
    e->state = J_QUEUED;
    QTAILQ_INSERT_TAIL(&j->entries, e, link);
    g_hash_table_insert(j->by_req, req, e);
    req->aiocb = NULL;
    j_next(j);
    return NVME_NO_COMPLETE;
}

void nvmimic_journal_data_done(NvmimicJournal *j, NvmeRequest *req)
{
    JEntry *e = j->active;

    if (!e || e->req != req || e->state != J_WRITING) {
        return;
    }
    e->state = J_WRITTEN;
    j->active = NULL;
    if (!e->old) {
        /* no copy to put back: as good as durable */
        j_durable(j, e);
    }
    j_next(j);
}

void nvmimic_journal_posted(NvmimicJournal *j, NvmeRequest *req)
{
    gpointer v;
    JEntry *e, *next;

    if (g_hash_table_lookup_extended(j->flushes, req, NULL, &v)) {
        uint64_t covers = (uintptr_t)v - 1;
        uint32_t nsid = le32_to_cpu(req->cmd.nsid);

        g_hash_table_remove(j->flushes, req);
        if (req->status != NVME_SUCCESS) {
            return;
        }
        /* what completed before the Flush was sent is durable now */
        QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
            if ((e->posted || e->orphan) && e->post_order < covers &&
                (nsid == NVME_NSID_BROADCAST || nsid == e->nsid)) {
                j_durable(j, e);
            }
        }
        return;
    }
    e = g_hash_table_lookup(j->by_req, req);
    if (!e) {
        return;
    }
    g_hash_table_remove(j->by_req, req);
    e->req = NULL;
    if (req->status == NVME_SUCCESS) {
        e->posted = true;
        e->post_order = j->post_order++;
        if (e->durable_at_post) {
            j_durable(j, e);
        }
    } else {
        /*
         * It failed (ctrl.c refused it, or the backend did): the host
         * knows its blocks hold no defined data, so its copy goes, without
         * taking blocks from older copies (a cut still puts back what
         * they held).  Kept, it would stay until a cut: a guest could pin
         * 32 MiB per refused command.
         */
        j_free_entry(j, e);
        j_next(j);
    }
    j_prune(j, nvmimic_now());
}

static bool j_req_of_sq(const NvmeRequest *req, const NvmeSQueue *sq)
{
    return req >= sq->io_req && req < sq->io_req + sq->size;
}

void nvmimic_journal_sq_freed(NvmimicJournal *j, NvmeSQueue *sq)
{
    GHashTableIter it;
    gpointer key;
    JEntry *e, *next;

    QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
        if (e->req && j_req_of_sq(e->req, sq)) {
            /*
             * The controller cancelled it (a read in flight has called
             * back already) or it never started: its completion will not
             * be posted.  What it wrote, if anything, can still be lost.
             */
            g_hash_table_remove(j->by_req, e->req);
            e->req = NULL;
            if (j->active == e) {
                j->active = NULL;
            }
            if (e->state == J_READING) {
                /*
                 * Its read is still in flight and owns the entry: the
                 * read's callback frees it (it has no request now).
                 */
                continue;
            }
            if (e->state == J_QUEUED) {
                j_free_entry(j, e);
            } else {
                /*
                 * Written (its data transfer was cancelled or done): the
                 * host never sees it complete, yet its blocks may have
                 * changed, so it keeps its copy until it is durable as a
                 * completed write would be (programmed, or a Flush sent
                 * from now on); before, it was kept until a cut.
                 */
                e->state = J_WRITTEN;
                e->orphan = true;
                e->post_order = j->post_order++;
            }
        }
    }
    g_hash_table_iter_init(&it, j->flushes);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        if (j_req_of_sq(key, sq)) {
            g_hash_table_iter_remove(&it);
        }
    }
    j_next(j);
}

/*
 * Format NVM of @nsid (every namespace: NVME_NSID_BROADCAST) completed: it
 * wrote every block, so no copy taken before it may go back at a cut, nor
 * be counted as lost.  ctrl.c does not wait for writes in flight: one whose
 * blocks are being read keeps its copy (what it holds depends on the
 * race); one not started reads what the Format left.
 */
void nvmimic_journal_formatted(NvmimicJournal *j, uint32_t nsid)
{
    JEntry *e, *next;

    QTAILQ_FOREACH_SAFE(e, &j->entries, link, next) {
        if (nsid != NVME_NSID_BROADCAST && e->nsid != nsid) {
            continue;
        }
        if (e->state == J_WRITTEN) {
            /* its data went before the Format: nothing of it is left */
            j_free_entry(j, e);
        } else if (e->state == J_WRITING && e->old) {
            /* the journal moves on when its data is done: no copy */
            j->bytes -= e->bytes;
            g_free(e->old);
            e->old = NULL;
        }
    }
}

/* Write @e's copy back, all but the blocks newer durable writes own. */
static int j_undo(JEntry *e)
{
    uint64_t n = j_blocks(e), a = 0, b;
    int ret;

    while (a < n) {
        if (e->clipped) {
            a = find_next_zero_bit(e->clipped, n, a);
            if (a >= n) {
                break;
            }
            b = find_next_bit(e->clipped, n, a);
        } else {
            b = n;
        }
        ret = blk_pwrite(e->blk, e->offset + a * e->block,
                         (b - a) * e->block, e->old + a * e->block, 0);
        if (ret < 0) {
            return ret;
        }
        a = b;
    }
    return 0;
}

void nvmimic_journal_cut(NvmimicJournal *j, NvmimicCut *out)
{
    GHashTable *blks = g_hash_table_new(NULL, NULL);
    GHashTableIter it;
    gpointer key;
    JEntry *e, *prev;

    memset(out, 0, sizeof(*out));
    j->cutting = true;
    /*
     * The writes the host had not seen complete are undone, or were never
     * written: counted now, by what the host knew at the instant of the
     * cut (the same every run), not by how far each had got on the host.
     * Then the ones in flight finish (none starts: cutting).
     */
    QTAILQ_FOREACH(e, &j->entries, link) {
        if (!e->posted) {
            out->inflight_writes++;
            out->inflight_bytes += e->bytes;
        }
        g_hash_table_add(blks, e->blk);
    }
    g_hash_table_iter_init(&it, blks);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        blk_drain(key);
    }
    j_prune(j, nvmimic_now());
    for (e = QTAILQ_LAST(&j->entries); e; e = prev) {
        prev = QTAILQ_PREV(e, link);
        if (e->posted) {
            out->lost_writes++;
            out->lost_bytes += e->bytes;
        }
        if (e->state == J_QUEUED || e->state == J_READING || !e->old) {
            j_free_entry(j, e);         /* never written, or no copy */
            continue;
        }
        if (!out->error) {
            out->error = j_undo(e);
        }
        g_hash_table_add(blks, e->blk);
        j_free_entry(j, e);
    }
    g_hash_table_iter_init(&it, blks);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int ret = blk_flush(key);

        if (!out->error && ret < 0) {
            out->error = ret;
        }
    }
    g_hash_table_destroy(blks);
    g_hash_table_remove_all(j->by_req);
    g_hash_table_remove_all(j->flushes);
    out->kept_writes = j->kept;
    out->overflow_writes = j->overflow;
    j->kept = j->overflow = 0;
    j->cutting = false;
}
